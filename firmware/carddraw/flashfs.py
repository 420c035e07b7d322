# The flash's files as the store keeps them: the filesystem's calls (OsFs: the os module's
# on the board, in the web app's VM and in the simulator; tests put littlefs-python behind
# the same interface), the small files written whole (settings.json, log.exported) and read
# back capped, and settings.json itself (SettingsFile). Pure file I/O: no machine, no time.
import json
import os

from . import config, settings as known
from .logread import dumps

MISSING = "missing"


class OsFs:
    """The real filesystem: MicroPython's os on the board and in the VM, CPython's on a PC.
    The os module's functions are the methods themselves (a built-in function is not bound
    to the instance)."""
    open = open
    # littlefs and POSIX replace the target atomically; CPython on Windows needs os.replace
    rename = getattr(os, "replace", os.rename)
    remove = os.remove
    stat = os.stat
    mkdir = os.mkdir
    rmdir = os.rmdir

    def listdir(self, path):
        return os.listdir(path.rstrip("/") or ("/" if path == "/" else "."))

    # (name, type, inode[, size: littlefs's]) for each name in a folder ("", "log/");
    # CPython's os has none: (name,) alone
    ilistdir = getattr(os, "ilistdir", lambda self, path: zip(self.listdir(path)))


def digits(text):
    """The number a name's part of ASCII digits writes, or None for anything else."""
    for c in text:
        if not "0" <= c <= "9":
            return None
    return int(text) if text else None


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
            f.write(dumps(obj).encode())
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


# -- settings.json ---------------------------------------------------------------------------------
# Read capped, checked (settings.check, the controller's own check), written whole in one
# step (write_json), so that a power cut or a kill leaves the old file or the new on every
# filesystem. The settings as flash holds them are the file's, then the changes the journal's
# entries made after it (each entry says which settings its pass changed): the file holds "j",
# the number of the newest entry whose changes it holds. Idle passes bring the file up to the
# journal (checkpoint, Store.housekeep), after which the journal's folders holding those
# changes may go.
class SettingsFile:
    def __init__(self, fs, root):
        self.fs = fs
        self.path = root + config.SETTINGS_FILE
        self.settings = None  # as flash holds them (the file, then the journal's changes)
        self.j = 0            # the newest journal entry whose changes the file holds
        self.why = None       # why the file was unreadable (MISSING: none yet), or "bad " and
                              # its bad fields: until load_settings reports it once
        self.spare = False    # settings.json.tmp made empty in an idle step, for checkpoint

    def read(self):
        """settings.json read and checked -> (settings, the entry number it is as of, why it
        is unreadable, or "bad " and its bad fields, or None)."""
        data, why = read_json(self.fs, self.path, 4096)  # bytes at most
        if why is None and not isinstance(data, dict):
            why = "not an object"
        if why is not None:
            return config.defaults(), 0, why
        s, bad = known.check(data)  # the controller uses the same check
        j = data.get("j")
        return s, j if type(j) is int else 0, "bad " + ",".join(bad) if bad else None

    def load(self, changes):
        """The file read (the boot, once), then the journal's changes ([entry number,
        settings changed], in entry order) over it where newer than it; the whole dict
        checked again (a change may be damaged as a file may)."""
        s, self.j, self.why = self.read()
        newer = False
        for number, changed in changes:
            if number > self.j and isinstance(changed, dict):
                s.update(changed)
                newer = True
        self.settings = known.check(s)[0] if newer else s  # read() checked the file's

    def changes(self, settings):
        """The settings of a pass (a whole dict, or None) that differ from flash's, or None."""
        if settings is None:
            return None
        changed = {}
        for name in settings:
            if self.settings.get(name) != settings[name]:
                changed[name] = settings[name]
        return changed

    def checkpoint(self, entries):
        """A step of bringing the file up to the journal's newest settings (entries: the
        journal's), if it is behind: settings.json.tmp made empty, then, in the next step,
        the file written whole (write_json: the .tmp written and renamed over it).
        -> whether it was behind (OSError if the flash refused). A cut after the first step
        leaves an empty .tmp beside the old file: the boot removes it (Store._open)."""
        newest = 0
        for e in entries:
            if e.settings and e.number > self.j:
                newest = e.number
        if not newest:
            return False
        if not self.spare:
            make(self.fs, self.path + ".tmp")  # its own step: see make()
            self.spare = True
        elif not self.write(newest):
            raise OSError(5)
        return True

    def write(self, j):
        """The settings written whole as of journal entry j, in one step: the old file or
        the new at any power cut. -> True once on flash."""
        s = dict(self.settings)
        s["j"] = j
        made, self.spare = self.spare, False
        if not write_json(self.fs, self.path, s, made):
            return False
        self.j = j
        return True
