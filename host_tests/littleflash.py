"""The board's real filesystem for CPython tests: littlefs (the C library, through
littlefs-python) on a flash chip in RAM that counts its operations and can lose power.

- Geometry and settings are MicroPython rp2's: 352 blocks of 4096 B, prog 256, read 32,
  lookahead 32, block_cycles 100, cache 1024 (CONFIG). `LittleFlash()` formats a blank chip;
  `LittleFlash(image)` / `LittleFlash.from_image(image)` mounts a copy of an image (an image
  that does not mount raises OSError; the board's _boot.py would format it instead).
  `LittleFlash(blocks=N)` is a smaller chip (a full filesystem in a test: ENOSPC); an image
  keeps its own size.
- The interface is the firmware's (store.OsFs) with MicroPython's VfsLfs2 semantics: open
  modes r/w/a/x (+ "b", "+") as MicroPython maps them to littlefs ("w" creates or truncates,
  "a" creates if missing, "r" of a missing file is ENOENT); rename (atomic, replaces the
  target), remove, stat (a 10-tuple: [0] 0x8000 file or 0x4000 folder, [6] the size), listdir,
  ilistdir ((name, type, 0, size) for each name), mkdir, rmdir (ENOTEMPTY on a folder with
  entries). Paths are from the root, with or without "/" at either end. Errors are
  OSError(errno, text), errno as MicroPython's (littlefs' own codes: ENOENT 2, EIO 5,
  EISDIR 21, ENOSPC 28, ENOTEMPTY 39, EILSEQ 84...).
- A file's new contents reach flash only at flush() (littlefs file sync) or close(): there is
  no buffering of our own, every write goes straight to littlefs (which keeps it in its cache
  until it fills a page or the file is synced). Creating a file commits its entry at open.
- mtime=True (the default, as VfsLfs2's) copies what MicroPython's 8-byte "t" timestamp
  attribute does to commits: a file opened for writing commits at its first flush/close even
  if nothing was written (an empty new file costs 2 commits, an "a" open+close 1). VfsLfs2
  puts the attribute in the file's commit; littlefs-python cannot (no lfs_file_opencfg), so
  when littlefs itself would commit nothing we set the attribute instead: the same commits,
  but a file's commit here lacks the board's 12 bytes (a one-page rewrite holds up to 232 data
  bytes here, so about 220 there), as do compacted blocks. mtime=False is bare littlefs.
  stat's times are 0.
- littlefs-python calls the chip from C and drops an exception raised there (it prints
  "Exception ignored" and littlefs goes on as if the operation had worked, writing elsewhere).
  So the chip's callbacks never raise: an operation refused by a dead chip returns LFS_ERR_IO
  (reads return 0xFF bytes: littlefs-python cannot fail a read), littlefs stops at that
  error, and every call of ours re-raises what the callback caught. `flash.refused` counts
  progs and erases tried after the cut: 0 shows littlefs stopped writing.
- The chip itself, its counts, its power cuts and the exhaustive cut searches are
  flashchip.py's Flash (PowerCut too); LittleFlash puts littlefs on it.
- put(fs, path, data) and get(fs, path): a whole file written, and read back (the tests').
"""
import os

from littlefs import LittleFSError, UserContext, lfs

from flashchip import BLOCK, BLOCKS, PAGE, Flash, PowerCut

CONFIG = dict(block_size=BLOCK, block_count=BLOCKS, prog_size=PAGE, read_size=32,
              lookahead_size=32, block_cycles=100, cache_size=1024)
LFS_ERR_IO = -5
MTIME = ord("t")  # MicroPython's LFS_ATTR_MTIME

_F = lfs.LFSFileFlag
_OPEN = {"r": _F.rdonly, "w": _F.wronly | _F.creat | _F.trunc,  # as MicroPython's vfs_lfs
         "a": _F.wronly | _F.creat | _F.append, "x": _F.wronly | _F.creat | _F.excl}


class _Chip(UserContext):
    """The block device littlefs-python calls: the Flash's operations, with any exception
    kept for LittleFlash._call to raise (littlefs-python would drop it) and an error code
    returned to littlefs instead."""

    def __init__(self, flash):  # no UserContext.__init__: it would allocate a buffer
        self.flash = flash
        self.caught = None

    def _catch(self, e):
        self.caught = self.caught or e

    def read(self, cfg, block, off, size):
        try:
            return self.flash.read(block, off, size)
        except BaseException as e:
            self._catch(e)
            return b"\xff" * size

    def prog(self, cfg, block, off, data):
        try:
            self.flash.prog(block, off, data)
            return 0
        except BaseException as e:
            self._catch(e)
            return LFS_ERR_IO

    def erase(self, cfg, block):
        try:
            self.flash.erase(block)
            return 0
        except BaseException as e:
            self._catch(e)
            return LFS_ERR_IO

    def sync(self, cfg):
        return 0


def _path(path):
    return "/" + path.strip("/")


class LittleFlash:
    def __init__(self, image=None, cut_at=None, torn="before", mtime=True, blocks=BLOCKS):
        self.chip = Flash(image, blocks)
        self.mtime = mtime
        self._chip = _Chip(self.chip)
        self._cfg = lfs.LFSConfig(self._chip, **dict(CONFIG, block_count=self.chip.blocks))
        self._fs = lfs.LFSFilesystem()
        self._files = set()  # littlefs links open files into a list: keep them alive
        if image is None:
            self._call(lfs.format, self._fs, self._cfg)
        self._call(lfs.mount, self._fs, self._cfg)
        if cut_at is not None:
            self.chip.arm(cut_at, torn)

    @classmethod
    def from_image(cls, image, **kw):
        return cls(image, **kw)

    def reboot(self):
        """A new LittleFlash on a copy of what the chip holds now, nothing armed."""
        return type(self)(self.chip.data, mtime=self.mtime)

    def _call(self, fn, *args):
        """fn(*args) into littlefs: PowerCut (or whatever the chip raised) as itself, a
        littlefs error as OSError."""
        self._alive()
        try:
            result = fn(*args)
        except LittleFSError as e:
            self._raise_caught()
            raise OSError(-e.code, os.strerror(-e.code)) from None
        self._raise_caught()
        return result

    def _alive(self):
        if self.chip.dead:
            raise PowerCut()

    def _raise_caught(self):
        caught, self._chip.caught = self._chip.caught, None
        if caught is not None:
            raise caught

    # -- the fs interface store.Store uses ----------------------------------------------------
    def open(self, path, mode="r"):
        kind = mode.strip("bt+")
        flags = _OPEN[kind] | (_F.rdwr if "+" in mode else 0)
        fh = self._call(lfs.file_open, self._fs, _path(path), flags)
        writing = kind != "r" or "+" in mode
        return _File(self, fh, _path(path), text="b" not in mode, writing=writing)

    def rename(self, a, b):
        self._call(lfs.rename, self._fs, _path(a), _path(b))

    def remove(self, path):
        self._call(lfs.remove, self._fs, _path(path))

    def rmdir(self, path):
        self._call(lfs.remove, self._fs, _path(path))  # as VfsLfs2: littlefs refuses a full one

    def mkdir(self, path):
        self._call(lfs.mkdir, self._fs, _path(path))

    def stat(self, path):
        st = self._call(lfs.stat, self._fs, _path(path))
        if st.type == lfs.LFSStat.TYPE_REG:
            return (0x8000, 0, 0, 0, 0, 0, st.size, 0, 0, 0)
        return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)  # littlefs leaves a folder's size unset

    def listdir(self, path=""):
        return [e[0] for e in self.ilistdir(path)]

    def ilistdir(self, path=""):
        """(name, type, 0, size) for each name, as VfsLfs2's os.ilistdir (a folder's size 0)."""
        dh = self._call(lfs.dir_open, self._fs, _path(path))
        entries = []
        try:
            while True:
                st = self._call(lfs.dir_read, self._fs, dh)
                if st is None:
                    return entries
                if st.name not in (".", ".."):
                    folder = st.type != lfs.LFSStat.TYPE_REG
                    entries.append((st.name, 0x4000 if folder else 0x8000, 0,
                                    0 if folder else st.size))
        finally:
            self._call(lfs.dir_close, self._fs, dh)


class _File:
    def __init__(self, fs, fh, path, text, writing):
        self.fs = fs
        self.path = path
        self.text = text
        self.closed = False
        self._fh = fh
        self._unsynced = writing and fs.mtime  # VfsLfs2 commits its mtime at the first sync
        fs._files.add(self)

    def _lfs(self, fn, *args):
        self.fs._alive()
        if self.closed:
            raise ValueError("I/O operation on closed file")  # as MicroPython
        return self.fs._call(fn, self.fs._fs, self._fh, *args)

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        return self._lfs(lfs.file_write, bytes(data))

    def read(self, n=-1):
        if n < 0:
            n = self._lfs(lfs.file_size) - self._lfs(lfs.file_tell)
        data = self._lfs(lfs.file_read, n)
        return data.decode() if self.text else data

    def readline(self, limit=-1):
        # MicroPython's stream readline asks a byte at a time; a chunk, then a seek back to the
        # line's end, returns the same line in far fewer calls (the tests read whole logs)
        start = self._lfs(lfs.file_tell)
        chunk = self._lfs(lfs.file_read, limit if 0 < limit < 256 else 256)
        line = b""
        while chunk:
            end = chunk.find(b"\n")
            if end >= 0:
                line += chunk[:end + 1]
                break
            line += chunk
            if 0 <= limit <= len(line):
                break
            chunk = self._lfs(lfs.file_read, 256 if limit < 0 else min(256, limit - len(line)))
        if limit >= 0:
            line = line[:limit]
        self._lfs(lfs.file_seek, start + len(line), 0)
        return line.decode() if self.text else line

    def seek(self, pos, whence=0):
        return self._lfs(lfs.file_seek, pos, whence)

    def tell(self):
        return self._lfs(lfs.file_tell)

    def flush(self):
        self._sync(lfs.file_sync)

    def close(self):
        self.fs._alive()
        if not self.closed:
            self._sync(lfs.file_close)

    def _sync(self, fn):
        progs = self.fs.chip.progs
        try:
            self._lfs(fn)
        finally:
            if fn is lfs.file_close:  # littlefs lets go of the file even when the sync fails
                self.closed = True
                self.fs._files.discard(self)
        if self._unsynced and self.fs.chip.progs == progs:
            self.fs._call(lfs.setattr, self.fs._fs, self.path, MTIME, bytes(8))
        self._unsynced = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def put(fs, path, data, mode="wb"):
    with fs.open(path, mode) as f:
        f.write(data)


def get(fs, path):
    with fs.open(path, "rb") as f:
        return f.read()
