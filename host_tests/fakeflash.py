"""The store's tests' flash: the board's real filesystem (littleflash.LittleFlash: littlefs on a
chip in RAM) with a test's conveniences, and one thing littlefs cannot show by itself.

- FakeFlash(files) is a fresh chip holding those files ({path: bytes}, folders made as
  needed), of `blocks` blocks (the board's 352 unless given); `flash` is a dict of every file on it now, folders' files as "folder/name" (a copy:
  to change a file, write_file or remove it on the fs itself).
- cut_at=N cuts the power at the N-th program or erase of the chip (littleflash's torn modes
  too): PowerCut (a BaseException, so no `except Exception` in the code under test swallows it)
  from then on; reboot() is a new FakeFlash on what the chip holds, nothing armed.
- failing=True: every open for writing, rename, remove, mkdir and rmdir raises OSError(EIO),
  and so do a write and a close of a file opened for writing before (the close commits none
  of what was written: the file stays as it was opened, empty for "w"); reads still work: a chip that refuses writes, which littlefs itself cannot play (it marks
  a block that fails a program as bad and writes elsewhere).
"""
import errno

from littlefs import lfs

from littleflash import LittleFlash, PowerCut  # noqa: F401 -- tests import PowerCut here


class FakeFlash(LittleFlash):
    def __init__(self, files=None, cut_at=None, torn="before", image=None, mtime=True,
                 blocks=None):
        super().__init__(image, mtime=mtime, **({"blocks": blocks} if blocks else {}))
        self.failing = False
        for path, data in sorted((files or {}).items()):
            self.write_file(path, data)
        if cut_at is not None:
            self.chip.arm(cut_at, torn)

    def reboot(self):
        """A fresh filesystem on what the chip holds, with no cut planned."""
        return FakeFlash(image=self.chip.data, mtime=self.mtime)

    @property
    def flash(self):
        out = {}
        folders = [""]
        while folders:
            folder = folders.pop()
            for name in self.listdir(folder):
                path = folder + "/" + name if folder else name
                if self.stat(path)[0] == 0x4000:
                    folders.append(path)
                else:
                    out[path] = self.read_file(path)
        return out

    def read_file(self, path):
        with self.open(path, "rb") as f:
            return f.read()

    def write_file(self, path, data):
        parts = path.split("/")[:-1]
        for i, name in enumerate(parts):  # each folder on the way made as needed
            if name not in self.listdir("/".join(parts[:i])):
                self.mkdir("/".join(parts[:i + 1]))
        with self.open(path, "wb") as f:
            f.write(data)

    def used(self):
        return sum(len(v) for v in self.flash.values())

    # -- refusing writes ---------------------------------------------------------------------------
    def _refuse(self, path):
        if self.failing:
            raise OSError(errno.EIO, "flash refuses writes", path)

    def open(self, path, mode="r"):
        f = None
        if mode.strip("bt") != "r":
            self._refuse(path)
            f = super().open(path, mode)
            _refusing(self, f, path)
        return f or super().open(path, mode)

    def rename(self, a, b):
        self._refuse(a)
        super().rename(a, b)

    def remove(self, path):
        self._refuse(path)
        super().remove(path)

    def mkdir(self, path):
        self._refuse(path)
        super().mkdir(path)

    def rmdir(self, path):
        self._refuse(path)
        super().rmdir(path)


def _refusing(fs, f, path):
    """A file open for writing on fs, made to refuse while fs.failing: its write writes
    nothing, its close lets it go with nothing of what was written (a failed commit)."""
    write, close = f.write, f.close
    size = fs._call(lfs.file_size, fs._fs, f._fh)  # as opened: 0 for "w", the old size for "a"

    def refusing_write(data):
        fs._refuse(path)
        return write(data)

    def refusing_close():
        if fs.failing and not f.closed:
            fs._call(lfs.file_truncate, fs._fs, f._fh, size)
            close()
        fs._refuse(path)
        close()

    f.write, f.close = refusing_write, refusing_close
