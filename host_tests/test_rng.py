"""carddraw.rng, the device's own generator (R9): the same cards for the same seed under
CPython, the MicroPython WebAssembly VM and native MicroPython 1.29 (pinned vectors), uniform
draws (chi-square, p > 0.001), unrelated neighbouring seeds, and no allocation per draw."""
import os
import sys

import pytest

from conftest import ROOT, run_in_vm
from carddraw import rng as rng_module
from carddraw.action import Action
from carddraw.deck import COLOURS, Deck
from carddraw.rng import Rng

VMLIB = os.path.join(ROOT, "host_tests", "vmlib")
sys.path.insert(0, VMLIB)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import rng_vectors  # noqa: E402
from bench import ALPHA, chi_square  # noqa: E402  -- the bench's own test of a device's draws
from native import runner  # noqa: E402

# Pinned: computed once from the generator, so a change to it (or an interpreter that
# computes it differently) shows. Per seed: 4 raw 16-bit outputs, 12 x randrange(6),
# 3 x randrange(1000000) (the 30-bit path).
VECTORS = {
    "0": [[58856, 12462, 52074, 45059], [0, 0, 3, 3, 1, 4, 0, 4, 1, 0, 1, 0], [669746, 960329, 455594]],
    "1": [[65081, 18410, 19942, 8160], [4, 1, 3, 0, 3, 5, 3, 4, 2, 0, 2, 3], [898774, 850257, 760980]],
    "2": [[59073, 30587, 17027, 64257], [0, 4, 1, 1, 5, 3, 0, 5, 3, 2, 0, 1], [63831, 683639, 867489]],
    "20": [[29302, 6897, 16500, 9721], [2, 4, 1, 1, 0, 1, 1, 0, 4, 4, 5, 2], [420475, 632486, 807829]],
    "34": [[13187, 46842, 20190, 28116], [5, 2, 5, 3, 3, 5, 2, 1, 5, 5, 0, 0], [764711, 342343, 425140]],
    "999999999": [[36870, 59014, 16484, 42452], [1, 2, 1, 0, 4, 4, 4, 3, 1, 0, 0, 1], [360795, 328394, 133537]],
    "1073741823": [[59086, 16822, 41404, 55524], [2, 3, 4, 0, 3, 0, 3, 2, 1, 4, 2, 5], [729117, 985098, 434249]],
}
DEFAULT_DECK = (3, 2, 1, 0)   # the set-up screen's default: surgery, ranks 1 (R2, R3)
TRANSCRIPT = "import rng_vectors\nRESULT = rng_vectors.transcript()\n"
ALLOCATION = "import rng_vectors\nRESULT = rng_vectors.allocation()\n"


@pytest.fixture(scope="module")
def native():
    why = runner.missing()
    if why:
        pytest.fail(why)
    return [runner.compiled(), VMLIB]


def reference_xoroshiro32pp(s0, s1, count):
    """xoroshiro32++ [14, 2, 7, 5] written from its definition on 32-bit words, as a check of
    the firmware's lane arithmetic."""
    def rotl(x, k):
        return ((x << k) | (x >> (16 - k))) & 0xFFFF
    out = []
    for _ in range(count):
        out.append((rotl((s0 + s1) & 0xFFFF, 5) + s0) & 0xFFFF)
        s1 ^= s0
        s0 = rotl(s0, 14) ^ s1 ^ ((s1 << 2) & 0xFFFF)
        s1 = rotl(s1, 7)
    return out


def test_the_generator_is_xoroshiro32pp():
    r = Rng(12345)
    start = (r.s0, r.s1)
    assert [r.next16() for _ in range(1000)] == reference_xoroshiro32pp(*start, 1000)


def test_cpython_draws_the_pinned_vectors():
    assert rng_vectors.transcript() == VECTORS


def test_the_webassembly_vm_draws_the_pinned_vectors():
    assert run_in_vm(TRANSCRIPT, libs=[VMLIB]) == VECTORS


def test_native_micropython_draws_the_pinned_vectors_from_the_mpy_files(native):
    assert runner.run(TRANSCRIPT, native) == VECTORS


def first_draw(seed, deck):
    d = Deck(*deck)
    return d.colour_at(Rng(seed).randrange(d.total()))


def test_small_seeds_are_not_correlated():
    # the old generator drew yellow first for every seed from 1 to 12 on the default deck
    firsts = [first_draw(seed, DEFAULT_DECK) for seed in range(1, 13)]
    assert len(set(firsts)) >= 2, firsts
    # and through the engine, as the device draws (R9)
    drawn = [Action(skill="surgery", ranks=1).draw(Rng(seed)) for seed in range(1, 13)]
    assert drawn == firsts


def colour_counts(colours):
    return [colours.count(c) for c in COLOURS]


@pytest.mark.parametrize("deck", [DEFAULT_DECK, (9, 3, 3, 4)])
def test_first_draws_of_seeds_1_to_1000_are_uniform(deck):
    stat, df, p = chi_square(colour_counts([first_draw(s, deck) for s in range(1, 1001)]), deck)
    print("first draws, seeds 1-1000, deck %s: chi-square %.2f, df %d, p = %.3f" % (deck, stat, df, p))
    assert p > ALPHA


def test_the_default_deck_is_the_set_up_screens():
    assert Action(skill="surgery", ranks=1).deck.counts() == DEFAULT_DECK


def test_first_card_index_of_seeds_1_to_1000_is_uniform_over_38_cards():
    counts = [0] * 38
    for s in range(1, 1001):
        counts[Rng(s).randrange(38)] += 1
    stat, df, p = chi_square(counts, [1] * 38)
    print("first index of 38, seeds 1-1000: chi-square %.2f, df %d, p = %.3f" % (stat, df, p))
    assert p > ALPHA


@pytest.mark.parametrize("deck", [DEFAULT_DECK, (9, 3, 3, 4)])
def test_100000_draws_from_one_seed_are_uniform(deck):
    r = Rng(34)
    d = Deck(*deck)
    total = d.total()
    counts = [0, 0, 0, 0]
    for _ in range(100000):
        counts[COLOURS.index(d.colour_at(r.randrange(total)))] += 1
    stat, df, p = chi_square(counts, deck)
    print("100,000 draws, seed 34, deck %s: chi-square %.2f, df %d, p = %.3f" % (deck, stat, df, p))
    assert p > ALPHA


def test_randrange_rejects_the_partial_block():
    # 65,536 % 40,000 = 25,536: without rejection, values below 25,536 would come twice as
    # often (78% of draws instead of 63.8%)
    r = Rng(3)
    low = sum(r.randrange(40000) < 25536 for _ in range(20000))
    assert abs(low / 20000 - 25536 / 40000) < 0.02
    wide = [Rng(s).randrange(700000000) for s in range(2000)]
    assert abs(sum(w < 350000000 for w in wide) / 2000 - 0.5) < 0.05


def test_every_value_in_range_and_each_one_reached():
    r = Rng(9)
    for n in (1, 2, 3, 6, 38, 65535, 65536, 70000, 2 ** 30 - 1):
        got = [r.randrange(n) for _ in range(200)]
        assert all(0 <= g < n for g in got)
    assert sorted(set(r.randrange(7) for _ in range(500))) == list(range(7))


BAD_CALLS = [("seed", bad, "a seed is a whole number, 0 to 1073741823")
             for bad in (-1, 2 ** 30, "5", 1.5, True, None)]
BAD_CALLS += [("randrange", bad, "randrange needs a range of 1 to 1073741823")
              for bad in (0, -3, 2 ** 30)]


@pytest.mark.parametrize("method,bad,message", BAD_CALLS)
def test_a_bad_seed_or_range_is_refused_and_changes_nothing(method, bad, message):
    r = Rng(4)
    state = (r.s0, r.s1)
    with pytest.raises(ValueError, match=message):
        getattr(r, method)(bad)
    assert (r.s0, r.s1) == state


def test_different_seeds_give_different_states():
    # the Feistel mixer is a bijection on 30 bits: no two seeds share a state
    states = set()
    for s in list(range(5000)) + [2 ** 30 - 1 - k for k in range(100)]:
        r = Rng(s)
        states.add((r.s0, r.s1))
    assert len(states) == 5100


def test_unseeded_takes_its_seed_from_os_urandom(monkeypatch):
    monkeypatch.setattr(os, "urandom", lambda n: bytes([0xC1, 0x02, 0x03, 0x04])[:n])
    r = Rng()
    expected = Rng((0x01 << 24) | (0x02 << 16) | (0x03 << 8) | 0x04)  # top 2 bits dropped
    assert [r.randrange(1000) for _ in range(20)] == [expected.randrange(1000) for _ in range(20)]


def test_unseeded_without_os_urandom_uses_the_interpreters_random(monkeypatch):
    # the WebAssembly VM has no os.urandom; the simulator seeds its `random` at power-on
    import random
    monkeypatch.delattr(os, "urandom")
    random.seed(77)
    seed = random.getrandbits(30)
    random.seed(77)
    r = Rng()
    expected = Rng(seed)
    assert [r.next16() for _ in range(8)] == [expected.next16() for _ in range(8)]


def test_no_allocation_per_draw_in_the_vm():
    six, deck, top16, wide, control = run_in_vm(ALLOCATION, libs=[VMLIB])
    assert (six, deck, top16, wide) == (0, 0, 0, 0)
    assert control > 1000     # the measurement sees a list of 1,000 draws


def test_no_allocation_per_draw_on_native_micropython(native):
    six, deck, top16, wide, control = runner.run(ALLOCATION, native)
    assert (six, deck, top16, wide) == (0, 0, 0, 0)
    assert control > 1000


def test_the_module_is_pure():
    src = open(rng_module.__file__).read()
    for name in ("machine", "time", "asyncio"):
        assert "import %s" % name not in src
