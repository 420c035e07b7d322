"""The attack that broke carddraw.rng's old generator (a search of its 2**30 seeds from the
device's log, which anyone reads over USB) played against the old design, which it breaks, and
the new one (R9), seeded and unseeded, where it finds nothing; the device re-keys its generator
as each action starts and hashes the next block in idle passes."""
import secrets
import time

import numpy as np

from carddraw.action import ACTIVE, Action
from carddraw.deck import BLACK, COLOURS, RED, Deck
from carddraw.rng import Rng


M15 = 0x7FFF
M16 = 0xFFFF
OLD_KEYS = (0x3A5D, 0x1F27, 0x6B81, 0x52C9)
OLD_MUL = 0x5BD1
SEEDS = 1 << 30                  # the old design's seeds (and the new design's seeded mode)
WINDOW = 1 << 25                 # the seeds searched in the suite: 1/32 of them
LOGGED = 50
PREDICTED = 13


class OldRng:
    """The old carddraw.rng: a four-round Feistel mixer puts the 30-bit seed into the state,
    then xoroshiro32++ [14, 2, 7, 5] on two 16-bit lanes, 16 bits an output."""

    def __init__(self, seed):
        left = seed >> 15
        right = seed & M15
        for key in OLD_KEYS:
            y = (right ^ key) * OLD_MUL
            left, right = right, left ^ (((y >> 15) ^ y) & M15)
        self.s0 = left
        self.s1 = right | 0x8000
        for _ in range(4):
            self.next16()

    def next16(self):
        s0, s1 = self.s0, self.s1
        t = (s0 + s1) & M16
        out = ((((t << 5) & M16) | (t >> 11)) + s0) & M16
        s1 ^= s0
        self.s0 = (((s0 << 14) & M16) | (s0 >> 2)) ^ s1 ^ ((s1 << 2) & M16)
        self.s1 = ((s1 << 7) & M16) | (s1 >> 9)
        return out

    def randrange(self, n):
        r = self.next16()
        while r - r % n > M16 - n + 1:
            r = self.next16()
        return r % n


def test_the_attackers_model_is_the_old_generator():
    # the old module's pinned vectors (its test_rng.py): 4 outputs and 12 x randrange(6)
    old = ((0, [58856, 12462, 52074, 45059], [0, 0, 3, 3, 1, 4, 0, 4, 1, 0, 1, 0]),
           (34, [13187, 46842, 20190, 28116], [5, 2, 5, 3, 3, 5, 2, 1, 5, 5, 0, 0]))
    for seed, raw, cards in old:
        r = OldRng(seed)
        assert [r.next16() for _ in range(4)] == raw
        assert [r.randrange(6) for _ in range(12)] == cards


# Realistic play, as the set-up screen starts it: the default deck first (surgery, ranks 1),
# then a task with a difficulty yellow and a redraw, then two ranks with a helper.
SETUPS = (dict(ranks=1, needed=3), dict(ranks=1, needed=2, yellow=1, redraws=1),
          dict(ranks=2, helpers=1, red=1, needed=3, redraws=1))


def play_log(rng, count):
    """count draws and redraws through the engine, as the device plays (draws.start calls
    fresh() as each action starts): [(the deck before the draw, the card drawn)], what the
    device's log records. The lead redraws a red or black while a redraw is left."""
    log = []
    k = 0
    while len(log) < count:
        fresh = getattr(rng, "fresh", None)
        if fresh:
            fresh()
        a = Action("surgery", **SETUPS[k % len(SETUPS)])
        k += 1
        while a.state == ACTIVE and len(log) < count:
            deck = tuple(a.deck.counts())
            colour = a.draw(rng)
            log.append((deck, colour))
            while colour in (RED, BLACK) and a.redraws_left and len(log) < count:
                colour = a.redraw(rng)
                log.append((deck, colour))
            a.accept()
    return log


def _step(s0, s1):
    """xoroshiro32++ on arrays of uint16 lanes (numpy wraps at 16 bits)."""
    t = s0 + s1
    out = ((t << 5) | (t >> 11)) + s0
    s1 = s1 ^ s0
    s0 = ((s0 << 14) | (s0 >> 2)) ^ s1 ^ (s1 << 2)
    s1 = (s1 << 7) | (s1 >> 9)
    return out, s0, s1


def _old_states(seeds):
    """OldRng's state after seed() for an array of uint32 seeds."""
    left = seeds >> np.uint32(15)
    right = seeds & np.uint32(M15)
    for key in OLD_KEYS:
        y = (right ^ np.uint32(key)) * np.uint32(OLD_MUL)
        left, right = right, left ^ (((y >> np.uint32(15)) ^ y) & np.uint32(M15))
    s0 = left.astype(np.uint16)
    s1 = (right | np.uint32(0x8000)).astype(np.uint16)
    for _ in range(4):
        _, s0, s1 = _step(s0, s1)
    return s0, s1


def card_ranges(log):
    """Per logged draw: (deck total, first and last + 1 index of the card's colour)."""
    plan = []
    for deck, colour in log:
        i = COLOURS.index(colour)
        plan.append((sum(deck), sum(deck[:i]), sum(deck[:i + 1])))
    return plan


def search_old(log, start, stop, chunk=1 << 22):
    """The attacker: the seeds in start..stop-1 whose old-generator cards are the log's.
    Vectorised over a chunk of seeds, filtered draw by draw (each draw keeps about a third to
    a half of the seeds, so after some 30 draws none is left but the true one)."""
    plan = card_ranges(log)
    found = []
    for base in range(start, stop, chunk):
        seeds = np.arange(base, min(base + chunk, stop), dtype=np.uint32)
        s0, s1 = _old_states(seeds)
        for n, lo, hi in plan:
            out, s0, s1 = _step(s0, s1)
            n16 = np.uint16(n)
            redo = np.nonzero(out - out % n16 > M16 - n + 1)[0]   # rejection sampling
            while len(redo):
                o, a, b = _step(s0[redo], s1[redo])
                out[redo], s0[redo], s1[redo] = o, a, b
                redo = redo[o - o % n16 > M16 - n + 1]
            v = out % n16
            keep = np.nonzero((v >= lo) & (v < hi))[0]
            seeds, s0, s1 = seeds[keep], s0[keep], s1[keep]
            if not len(seeds):
                break
        found += [int(s) for s in seeds]
    return found


def predict(seed, log, decks):
    """The attacker's call of the next cards: the found seed's generator past the logged
    draws, on each deck as the device shows it before the draw (R20)."""
    r = OldRng(seed)
    for deck, _ in log:
        r.randrange(sum(deck))
    return [Deck(*deck).colour_at(r.randrange(sum(deck))) for deck in decks]


def false_matches(log, seeds):
    """How many of `seeds` wrong seeds would match the log by chance, expected: cards
    independent of a seed's sequence match each draw with the card's odds, count/total."""
    p = 1.0
    for deck, colour in log:
        p *= deck[COLOURS.index(colour)] / sum(deck)
    return seeds * p


def window_around(seed):
    start = max(0, seed - secrets.randbelow(WINDOW))
    return min(start, SEEDS - WINDOW)


def test_the_attack_breaks_the_old_generator():
    seed = secrets.randbits(30)
    played = play_log(OldRng(seed), LOGGED + PREDICTED)
    log, later = played[:LOGGED], played[LOGGED:]
    assert false_matches(log, SEEDS) < 1e-6
    start = window_around(seed)
    t = time.time()
    found = search_old(log, start, start + WINDOW)
    took = time.time() - t
    print("old generator, seed %d: %d seeds searched in %.2f s, found %s" % (
        seed, WINDOW, took, found))
    assert found == [seed]
    calls = predict(seed, log, [deck for deck, _ in later])
    assert calls == [colour for _, colour in later], seed   # the next 13 cards, called


def test_the_attack_finds_nothing_in_unseeded_play():
    """The new generator's cards come from a 256-bit key of hardware entropy, re-keyed at each
    action and with entropy in every block: they are no function of any 30-bit seed, so a
    wrong seed matches each logged card only by chance, with that card's odds. Over all 2**30
    seeds the expected number of matches is 2**30 times the product of the 50 draws' odds
    (false_matches, asserted below 1e-6; about 1e-10 for a typical log): the full space,
    like the window searched here, finds nothing. The window is 2**25 seeds, as for the old
    generator (about 1 s each here); the full 2**30, measured once, took 20.6 s for an old log
    and 24.6 s for a new one on this machine's 2 cores: over the suite's budget, so the suite
    searches the window and bounds the rest by false_matches."""
    log = play_log(Rng(), LOGGED)
    assert false_matches(log, SEEDS) < 1e-6
    start = secrets.randbelow(SEEDS - WINDOW)
    t = time.time()
    found = search_old(log, start, start + WINDOW)
    print("new generator unseeded: %d seeds searched in %.2f s, found %s" % (
        WINDOW, time.time() - t, found))
    assert found == []


# Seeded mode draws from 2**30 sequences too, but not the ones unseeded play uses.
SEEDED_WINDOW = 1 << 19


def search_seeded(log, start, stop):
    """The attacker again, on the new generator's seeded mode: the seeds whose cards are the
    log's (pure Python: most seeds part from the log within three draws)."""
    plan = card_ranges(log)
    found = []
    for seed in range(start, stop):
        r = Rng(seed)
        for n, lo, hi in plan:
            if not lo <= r.randrange(n) < hi:
                break
        else:
            found.append(seed)
    return found


def test_an_unseeded_log_is_not_in_the_seeded_sequences():
    # the search works: a seeded log is found (the bench's `seed N`, or a tool's)
    seed = secrets.randbelow(SEEDED_WINDOW)
    assert search_seeded(play_log(Rng(seed), LOGGED), 0, SEEDED_WINDOW) == [seed]
    # and unseeded play is in none of the seeded sequences searched
    log = play_log(Rng(), LOGGED)
    t = time.time()
    found = search_seeded(log, 0, SEEDED_WINDOW)
    print("unseeded log against seeds 0-%d of seeded mode: %.2f s, found %s" % (
        SEEDED_WINDOW - 1, time.time() - t, found))
    assert found == []


def test_the_device_rekeys_its_rng_as_each_action_starts():
    from handheld import dev, keys
    c = dev("green", "green")
    calls = []
    c.rng.fresh = lambda: calls.append(c.screen)    # draws.start calls it, if the rng has one
    keys(c, "D")
    assert c.view().screen == "active" and calls == ["setup"]
    keys(c, "D D H D")                              # a green: success, chain a new action (R17)
    assert c.view().screen == "setup" and calls == ["setup"]
    keys(c, "D")
    assert c.view().screen == "active" and calls == ["setup", "setup"]


def test_ready_hashes_the_next_block_ahead_and_the_draws_are_the_same():
    """The app's idle passes call ready(): the next block is hashed then, so that a draw's
    pass (before its LED) never hashes one; a seeded sequence is the same drawn either way."""
    plain, ahead = Rng(77), Rng(77)
    hashed = []
    ready = ahead.ready

    def counted():
        got = ready()
        if got:
            hashed.append(True)
        return got
    ahead.ready = counted
    got_plain, got_ahead, in_draws = [], [], 0
    for i in range(200):
        got_plain.append(plain.randrange(11 + i % 7))
        ahead.ready()                    # an idle pass between draws
        del hashed[:]
        got_ahead.append(ahead.randrange(11 + i % 7))
        in_draws += len(hashed)
    assert got_plain == got_ahead
    assert in_draws == 0       # every block hashed in an idle pass
    assert not ahead.ready()   # nothing to do while the block has bits left
