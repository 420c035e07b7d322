"""The flash chip in RAM under the CPython tests' littlefs (littleflash.py): its bytes, counts
of its operations, power cuts at any program or erase, and exhaustive cut searches.

- Flash (a LittleFlash's `chip`) is the chip: `data` (erased = 0xFF) and counts of reads
  (calls), read_bytes, progs (calls), pages (bytes programmed / 256) and erases, which
  reset_counts() zeroes and `with flash.counting() as c:` measures. A list in `flash.log`
  gets every operation.
- Power cuts count progs and erases only (reads never cut). `chip.arm(N, torn)` (or
  LittleFlash(cut_at=N, torn=...)) makes the N-th of them from then on the cut one:
  torn="before" it does not happen, "torn" a prog writes the first half of its bytes and an
  erase leaves the first half of the block erased and the rest as it was, "after" it
  completes. It raises PowerCut, and so does everything after it (file calls, the fs's, the
  chip's). LittleFlash's `reboot()` mounts a copy of what the chip holds. PowerCut derives
  from BaseException so that no `except Exception`/`except OSError` in the code under test
  can swallow it.
- Exhaustive cut searches: `flash.record()` then a scenario, then `flash.cuts()` yields
  (n, mode, image) for every prog/erase n since record() and every mode, image being the
  chip's bytes (1.4 MB) as a cut there leaves them, built in one pass over the recorded
  operations. Cost: recording keeps one image and every programmed byte (about 256 B a page,
  plus ~100 B an operation); cuts() makes one 1.4 MB copy per image yielded ("before" of n is
  "after" of n - 1, the same object) and holds two besides those the caller keeps. Measured:
  8,500 operations (4 MB programmed) gave their 25,500 images in 0.9 s; from_image copies
  once more and mounts, about 0.5 ms on such a filesystem.
"""
import contextlib

BLOCK = 4096
BLOCKS = 352
PAGE = 256
MODES = ("before", "torn", "after")
COUNTS = ("reads", "read_bytes", "progs", "pages", "erases")


class PowerCut(BaseException):
    pass


class Counts:
    """What a `with flash.counting()` block cost (filled in when the block ends)."""

    def __init__(self):
        for name in COUNTS:
            setattr(self, name, 0)

    def __repr__(self):
        return "Counts(%s)" % ", ".join("%s=%d" % (n, getattr(self, n)) for n in COUNTS)


def _span(op):
    """Where prog (block, off, bytes) or erase (block, 0, None) changes the chip's bytes."""
    block, off, payload = op
    start = block * BLOCK + off
    return start, start + (BLOCK if payload is None else len(payload))


def _apply(data, op, torn=False):
    """Do `op` on `data`, or only the first half of it."""
    start, end = _span(op)
    if torn:
        end = start + (end - start) // 2
    data[start:end] = b"\xff" * (end - start) if op[2] is None else op[2][:end - start]


class Flash:
    def __init__(self, image=None, blocks=BLOCKS):
        self.data = bytearray(image) if image is not None else bytearray(b"\xff" * BLOCK * blocks)
        assert len(self.data) % BLOCK == 0 and len(self.data) >= 2 * BLOCK
        self.blocks = len(self.data) // BLOCK
        self.dead = False
        self.refused = 0      # progs and erases tried after the cut
        self.log = None       # a list: every operation is appended as (kind, block, off, size)
        self._cut_at = None
        self._torn = None
        self._recorded = None  # (image at record(), [op, ...])
        self.reset_counts()

    def reset_counts(self):
        for name in COUNTS:
            setattr(self, name, 0)

    @contextlib.contextmanager
    def counting(self):
        start = [getattr(self, n) for n in COUNTS]
        c = Counts()
        try:
            yield c
        finally:
            for name, was in zip(COUNTS, start):
                setattr(c, name, getattr(self, name) - was)

    def arm(self, cut_at, torn="before"):
        """Cut the power at the cut_at-th prog/erase from now (1 is the next one)."""
        assert torn in MODES and cut_at >= 1
        self._cut_at, self._torn = cut_at, torn

    # -- the chip's operations ------------------------------------------------------------------
    def read(self, block, off, size):
        if self.dead:
            raise PowerCut()
        self.reads += 1
        self.read_bytes += size
        if self.log is not None:
            self.log.append(("read", block, off, size))
        start = block * BLOCK + off
        return bytes(self.data[start:start + size])

    def prog(self, block, off, data):
        self._wear((block, off, bytes(data)))

    def erase(self, block):
        self._wear((block, 0, None))

    def _wear(self, op):
        """A prog or an erase: counted, logged, recorded, then done unless the cut is here."""
        if self.dead:
            self.refused += 1
            raise PowerCut()
        start, end = _span(op)
        if op[2] is None:
            self.erases += 1
        else:
            self.progs += 1
            self.pages += (end - start) // PAGE
        if self.log is not None:
            self.log.append(("erase" if op[2] is None else "prog", op[0], op[1], end - start))
        if self._recorded is not None:
            self._recorded[1].append(op)
        if self._cut_at is not None:
            self._cut_at -= 1
            if self._cut_at == 0:
                if self._torn != "before":
                    _apply(self.data, op, torn=self._torn == "torn")
                self.dead = True
                raise PowerCut()
        _apply(self.data, op)

    # -- exhaustive cut searches --------------------------------------------------------------
    def record(self):
        """Keep every prog/erase from now on, for cuts()."""
        self._recorded = (bytes(self.data), [])

    def cuts(self, modes=MODES):
        """(n, mode, image) for each prog/erase n since record() (1-based; a cut one is
        recorded too) and mode: the chip's bytes (bytes) as a cut at n in that mode leaves them."""
        initial, ops = self._recorded
        work = bytearray(initial)
        before = initial
        for n, op in enumerate(ops, 1):
            if "before" in modes:
                yield n, "before", before
            if "torn" in modes:
                start, end = _span(op)
                kept = work[start:end]
                _apply(work, op, torn=True)
                yield n, "torn", bytes(work)
                work[start:end] = kept
            _apply(work, op)
            before = bytes(work)
            if "after" in modes:
                yield n, "after", before
