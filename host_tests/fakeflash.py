"""A fake flash filesystem with littlefs semantics, for power-cut tests of store.py.

- `flash` maps a path to the bytes committed on flash. A file opened for writing keeps its
  new contents in a buffer that reaches `flash` only at flush() or close() (littlefs commits a
  file at sync/close). Opening a file that does not exist for writing creates it, empty, at
  once (littlefs commits the directory entry at open); truncating an existing one ("w") is
  only committed at the first flush/close.
- rename() is atomic and replaces the target; remove() is atomic.
- Every open, write, flush, close, rename and remove is one numbered operation. With
  `cut_at=N`, operation N never happens: it raises PowerCut, and so does every operation
  after it. `flash` is then frozen as it was; `reboot()` gives a new FakeFlash holding it.
- A full flash: with `capacity=N` (bytes in all files together) a flush or close that would
  take the files past it raises OSError(ENOSPC) and commits nothing. With `failing=True` every
  open for writing, rename and remove raises OSError(EIO) (a flash that refuses writes); reads
  still work. Both can be changed between steps of a test.
- PowerCut derives from BaseException so that no `except Exception`/`except OSError` in the
  code under test can swallow it: execution stops as it would on the board.
"""
import errno
import io


class PowerCut(BaseException):
    pass


class FakeFlash:
    def __init__(self, flash=None, cut_at=None, capacity=None):
        self.flash = dict(flash or {})
        self.cut_at = cut_at
        self.capacity = capacity
        self.failing = False
        self.ops = 0          # operations performed (or attempted, for the cut one)
        self.dead = False
        self.log = []         # (op number, what) for debugging a failing case

    # -- the fs interface store.Store uses ----------------------------------------------------
    def open(self, path, mode):
        self._op("open", path, mode)
        if "r" in mode:
            if path not in self.flash:
                raise OSError(errno.ENOENT, "no such file", path)
            return _Reader(self.flash[path])
        self._refuse(path)
        if "w" in mode:
            start = b""
        elif "a" in mode:
            start = self.flash.get(path, b"")
        else:
            raise ValueError("mode " + mode)
        if path not in self.flash:
            self.flash[path] = b""  # creation is committed at open
        return _Writer(self, path, start)

    def rename(self, a, b):
        self._op("rename", a, b)
        self._refuse(a)
        if a not in self.flash:
            raise OSError(errno.ENOENT, "no such file", a)
        self.flash[b] = self.flash.pop(a)

    def remove(self, path):
        self._op("remove", path)
        self._refuse(path)
        if path not in self.flash:
            raise OSError(errno.ENOENT, "no such file", path)
        del self.flash[path]

    def stat(self, path):
        if self.dead:
            raise PowerCut()
        if path not in self.flash:
            raise OSError(errno.ENOENT, "no such file", path)
        return (0o100644, 0, 0, 1, 0, 0, len(self.flash[path]), 0, 0, 0)

    def listdir(self, root):
        """The names of the files in folder `root` ("" or ending in "/")."""
        if self.dead:
            raise PowerCut()
        return [p[len(root):] for p in self.flash if p.startswith(root) and "/" not in p[len(root):]]

    def used(self):
        return sum(len(v) for v in self.flash.values())

    def _refuse(self, path):
        if self.failing:
            raise OSError(errno.EIO, "flash refuses writes", path)

    def _commit(self, path, data):
        if self.capacity is not None and self.used() - len(self.flash.get(path, b"")) + len(data) > self.capacity:
            raise OSError(errno.ENOSPC, "flash full", path)
        self.flash[path] = data

    # -- the test's side ------------------------------------------------------------------------
    def reboot(self):
        """A fresh filesystem holding what reached flash, with no cut planned."""
        return FakeFlash(self.flash, capacity=self.capacity)

    def _op(self, *what):
        if self.dead:
            raise PowerCut()
        self.ops += 1
        self.log.append((self.ops,) + what)
        if self.ops == self.cut_at:
            self.dead = True
            raise PowerCut()


class _Reader(io.BytesIO):
    """Reads a snapshot of the committed contents (reads change nothing on flash)."""


class _Writer:
    def __init__(self, fs, path, start):
        self.fs = fs
        self.path = path
        self.buf = bytearray(start)
        self.closed = False

    def write(self, data):
        self.fs._op("write", self.path, len(data))
        if self.closed:
            raise ValueError("write to a closed file")
        if isinstance(data, str):
            data = data.encode()
        self.buf += data
        return len(data)

    def flush(self):
        self.fs._op("flush", self.path)
        if self.closed:
            raise ValueError("flush of a closed file")
        self.fs._commit(self.path, bytes(self.buf))

    def close(self):
        if self.closed:
            return
        self.fs._op("close", self.path)
        self.closed = True
        self.fs._commit(self.path, bytes(self.buf))
