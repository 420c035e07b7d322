# The flash's files as the store keeps them: the filesystem's calls (OsFs: the os module's
# on the board, in the web app's VM and in the simulator; tests put littlefs-python behind
# the same interface), and the small files written whole (settings.json, log.exported) and
# read back capped. Pure file I/O: no machine, no time.
import json
import os

MISSING = "missing"
BLOCK = 4096       # littlefs's block on the Pico: the flash's erase sector
_SEP = (",", ":")


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
    """The real filesystem: MicroPython's os on the board and in the VM, CPython's on a PC."""

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


def remove_all(fs, path):
    """A file, or a folder and what it holds (littlefs and os remove only an empty one)."""
    try:
        fs.remove(path)
        return
    except OSError:  # a folder
        pass
    for name in fs.listdir(path):
        remove_all(fs, path + "/" + name)
    fs.rmdir(path)


def settle(fs, path):
    """Before a boot lists any folder: littlefs 2.11 finishes a rename between folders that a
    power cut left half done at its first change after power-on, and until then a listing
    misses the name after the moved one (a boot would take a journal folder for gone).
    Removing `path`, a name that is not there, is such a change, and writes nothing when
    nothing was left half done."""
    try:
        fs.remove(path)
    except OSError:
        pass


def size(fs, path):
    """A file's size; 0 for none."""
    try:
        return fs.stat(path)[6]
    except OSError:
        return 0


def read_json(fs, path, cap):
    """-> (parsed JSON, None), or (None, why): MISSING, or what is wrong with the file."""
    try:
        f = fs.open(path, "rb")
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


def write_json(fs, path, obj, made=False):
    """A small file written whole in one call, atomically on every filesystem the firmware
    runs on: written as path.tmp, then renamed over the old file (littlefs and POSIX rename
    replace atomically). A power cut at any point leaves the old file or the new, never an
    empty one (a "wb" open empties the file at once on the VM's and the host's filesystems);
    a .tmp it leaves is removed at boot (store.Store._open). made: path.tmp exists already,
    made empty in an earlier pass (make()). -> True once on flash."""
    tmp = path + ".tmp"
    try:
        if not made:
            make(fs, tmp)
        f = fs.open(tmp, "wb")
        try:
            f.write(json.dumps(obj, separators=_SEP).encode())
        finally:
            f.close()
        fs.rename(tmp, path)
        return True
    except OSError:
        return False


def make(fs, path):
    """An empty file made (or emptied), and closed. Made apart from its writing: when the
    commit that makes a file compacts its folder, littlefs (2.11) compacted it again at the
    close of that file's data, two erases in one call (test_store_steps)."""
    fs.open(path, "wb").close()


def flag(fs, path, on):
    """A one-shot flag file (main.py's maintenance boot): written or removed. -> done."""
    try:
        if on:
            f = fs.open(path, "w")
            f.write(path[path.rfind("/") + 1:])
            f.close()
        else:
            fs.remove(path)
    except OSError:
        return False
    return True
