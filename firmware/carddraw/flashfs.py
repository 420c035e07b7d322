# The flash's files as the store keeps them: the filesystem's calls (OsFs: the os module's
# on the board and the simulator; tests put littlefs-python behind the same interface), and
# the small files written whole and read back capped. Pure file I/O: no machine, no time.
import json
import os

MISSING = "missing"
_SEP = (",", ":")


BLOCK = 4096       # littlefs's block on the Pico: the flash's erase sector


def block_room(size):
    """Bytes a littlefs file of `size` bytes takes before its next write needs a second new
    block. littlefs keeps a file as a skip list of blocks (its CTZ list: block i starts with
    ctz(i) + 1 pointers of 4 bytes); a write to a closed file copies its last block into a
    fresh one (an erase), and a write that runs past that block's end erases another. This
    is littlefs's own arithmetic (lfs_ctz_index), checked against littlefs in the tests."""
    if size == 0:
        return BLOCK
    b = BLOCK - 8
    i = size // b
    off = size
    if i:
        i = (size - 4 * (_ones(i - 1) + 2)) // b
        off = size - b * i - 4 * _ones(i)
    if off < BLOCK:
        return BLOCK - off
    n = i + 1
    return BLOCK - 4 * (_ones((n & -n) - 1) + 1)  # a fresh block: its pointers first


def _ones(n):
    count = 0
    while n:
        n &= n - 1
        count += 1
    return count


class OsFs:
    """The real filesystem: MicroPython's os on the board, CPython's on a PC."""

    def open(self, path, mode):
        return open(path, mode)

    def rename(self, a, b):
        # littlefs and POSIX replace b atomically; CPython on Windows needs os.replace
        getattr(os, "replace", os.rename)(a, b)

    def remove(self, path):
        os.remove(path)

    def stat(self, path):
        return os.stat(path)

    def listdir(self, path):
        return os.listdir(path.rstrip("/") or ("/" if path == "/" else "."))

    def mkdir(self, path):
        os.mkdir(path)

    def rmdir(self, path):
        os.rmdir(path)


def folder(fs, path, top):
    """The folder at `path` (no "/" at its end) made if `top`, the listing of the folder it
    is in, lacks it; a file of its name, not ours, removed first."""
    name = path[path.rfind("/") + 1:]
    if name in top:
        if fs.stat(path)[0] & 0x4000:
            return
        fs.remove(path)
    fs.mkdir(path)


def json_bytes(obj):
    """obj as a small file holds it: compact JSON, in bytes."""
    return json.dumps(obj, separators=_SEP).encode()


class Files:
    """Small files in `root` on `fs`: read capped, written whole, a flag, a size."""

    def __init__(self, fs, root):
        self.fs = fs
        self.root = root

    def flag(self, name, on):
        """A one-shot flag file (main.py's maintenance boot): written or removed. -> done."""
        try:
            if on:
                f = self.fs.open(self.root + name, "w")
                f.write(name)
                f.close()
            else:
                self.fs.remove(self.root + name)
        except OSError:
            return False
        return True

    def read_json(self, name, cap):
        """-> (parsed JSON, None), or (None, why): MISSING, or what is wrong with the file."""
        path = self.root + name
        try:
            f = self.fs.open(path, "rb")
        except OSError:
            return None, MISSING
        try:
            raw = f.read(cap + 1)  # never more than the cap in RAM, whatever the file's size
        except OSError:
            return None, "unreadable"
        finally:
            f.close()
        if len(raw) > cap:
            return None, "over %d bytes" % cap
        if not raw:
            return None, "empty"
        try:
            return json.loads(raw.decode()), None
        except Exception as e:  # ValueError, UnicodeError, RecursionError on deep nesting
            return None, "not json: " + type(e).__name__

    def size(self, name):
        try:
            return self.fs.stat(self.root + name)[6]
        except OSError:
            return 0

    def write_json(self, name, obj):
        """A small file written whole: littlefs commits its new contents at close, atomically
        (the old file or the new, never neither). A new file is written as name.tmp and
        renamed: littlefs commits a file's creation at open, so a cut before the close would
        leave it empty (damage at the next boot)."""
        path = self.root + name
        try:
            try:
                self.fs.stat(path)
                tmp = path
            except OSError:
                tmp = path + ".tmp"  # removed at boot if a cut leaves it (_open)
            f = self.fs.open(tmp, "wb")
            try:
                f.write(json_bytes(obj))
            finally:
                f.close()
            if tmp != path:
                self.fs.rename(tmp, path)
            return True
        except OSError:
            return False
