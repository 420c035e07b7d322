# The generator's transcript for a few seeds, written in the Python that CPython, the
# MicroPython WebAssembly VM and native MicroPython share: test_rng.py compares the three
# with the pinned vectors (so a board, on any MicroPython version, draws the same cards).
import gc

from carddraw.rng import Rng

SEEDS = (0, 1, 2, 20, 34, 999999999, 1073741823)


def transcript():
    out = {}
    for seed in SEEDS:
        r = Rng(seed)
        raw = [r.next16() for _ in range(4)]
        cards = [r.randrange(6) for _ in range(12)]
        wide = [r.randrange(1000000) for _ in range(3)]
        out[str(seed)] = [raw, cards, wide]
    return out


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


def heap_growth(work, n):
    """Bytes the heap grew by over 1,000 draws of randrange(n) after a warm-up of 100."""
    rng = Rng(7)
    work(rng, n, 100)
    gc.collect()
    before = gc.mem_alloc()
    work(rng, n, 1000)
    return gc.mem_alloc() - before


def allocation():
    """Heap growth for small ranges (a deck), a 30-bit range, and the control."""
    return [heap_growth(_spin, 6), heap_growth(_spin, 38), heap_growth(_spin, 65535),
            heap_growth(_spin, 1000000), heap_growth(_listing, 6)]
