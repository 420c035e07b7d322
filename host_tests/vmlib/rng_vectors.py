# The generator's transcript for a few seeds, written in the Python that CPython, the
# MicroPython WebAssembly VM and native MicroPython share: test_rng.py compares the three
# with the pinned vectors (so a board, on any MicroPython version, draws the same cards).
import gc
import random

from carddraw.rng import Rng

SEEDS = (0, 1, 2, 20, 34, 999999999, 1073741823)


def _take(rng, n, count):
    return [rng.randrange(n) for _ in range(count)]


def transcript():
    out = {}
    for seed in SEEDS:
        r = Rng(seed)
        raw = [r.next16() for _ in range(4)]
        cards = _take(r, 6, 12)
        wide = _take(r, 1000000, 3)
        later = [r.next16() for _ in range(40)][-4:]   # across a block's end (16 outputs)
        out[str(seed)] = [raw, cards, wide, later]
    return out


def unseeded():
    """The unseeded mode's promises, in whatever interpreter runs this (the VM has no
    os.urandom: there the entropy is the interpreter's random, which the simulator seeds)."""
    two_differ = _take(Rng(), 1000, 20) != _take(Rng(), 1000, 20)
    # the same entropy, with and without a fresh() after 10 draws
    random.seed(5)
    a = Rng()
    plain = _take(a, 1000, 10) + _take(a, 1000, 10)
    random.seed(5)
    b = Rng()
    refreshed = _take(b, 1000, 10)
    b.fresh()
    refreshed += _take(b, 1000, 10)
    # seeded: fresh() changes nothing
    s = Rng(9)
    seeded_plain = _take(s, 1000, 20)
    t = Rng(9)
    seeded_fresh = _take(t, 1000, 10)
    t.fresh()
    seeded_fresh += _take(t, 1000, 10)
    # seed() makes an unseeded generator seeded, and gives seed 9's sequence
    u = Rng()
    was = u.seeded
    u.seed(9)
    import os
    return {"hardware": hasattr(os, "urandom"), "two_differ": two_differ,
            "same_start": plain[:10] == refreshed[:10],
            "fresh_changes": plain[10:] != refreshed[10:],
            "seeded_fresh_same": seeded_plain == seeded_fresh,
            "modes": [was, u.seeded, Rng(9).seeded],
            "seed_after": _take(u, 1000, 20) == seeded_plain}


def _spin(rng, n, count):
    i = 0
    while i < count:
        rng.randrange(n)
        i += 1


def _listing(rng, n, count):
    """A control that does allocate: the same draws kept in a list."""
    kept = []
    i = 0
    while i < count:
        kept.append(rng.randrange(n))
        i += 1
    return kept


def heap_growth(work, rng, n):
    """Bytes allocated over 1,000 draws of randrange(n) after a warm-up of 100, with the
    collector off so that nothing allocated is freed (and missed) during the count."""
    work(rng, n, 100)
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    work(rng, n, 1000)
    grown = gc.mem_alloc() - before
    gc.enable()
    return grown


def allocation():
    """Bytes over 1,000 draws: seeded for small ranges (a deck, 16 bits) and a 30-bit range
    (two outputs a draw), unseeded for a deck and the 30-bit range, and the control."""
    return [heap_growth(_spin, Rng(7), 6), heap_growth(_spin, Rng(7), 38),
            heap_growth(_spin, Rng(7), 65535), heap_growth(_spin, Rng(7), 1000000),
            heap_growth(_spin, Rng(), 38), heap_growth(_spin, Rng(), 1000000),
            heap_growth(_listing, Rng(7), 6)]
