# Settings, the action log and the action in progress, kept on flash so that a power cut
# loses nothing that was written. Pure file I/O: no machine, no time.
#
# littlefs commits a file's contents only at flush/close and os.rename replaces a file
# atomically, so every rewrite goes name.tmp -> flush/close -> rename over name, and nothing
# is ever removed first (that could leave no file at all). Everything read back is untrusted:
# a short, corrupt or huge file gives defaults and a short notice for the screen, and the
# details go to the log as {"ev": "damage", "file": ..., "why": ...}. Loading never raises.
#
# The log: numbered segments log.NNNNNN.jsonl (NNNNNN: the seq of the segment's first
# record), appended to one flushed line per record, up to config.LOG_LIMIT bytes in all.
# Each record carries "seq" (1 for the device's first record) and "h", a hash chained to
# the record before it (format: tools/logchain.py), so an edited, removed or inserted record
# shows in the export. History is never dropped before it was exported: the oldest segment is
# removed only when every record in it is at or below the seq the bench acknowledged
# (config.LOG_EXPORTED_FILE); otherwise the log stops growing, records wait in RAM (at most
# config.LOG_QUEUE) and any beyond are counted and logged as {"ev": "dropped", "n": N} as
# soon as there is room. The same goes for records the flash refused (retried at every
# flush()). A run of records identical apart from "ms" costs one {"ev": "repeat", "x": N}
# line per config.LOG_REPEATS of them, not a line each.
#
# This module is the writing side, which every draw uses. Reading back (settings and the
# action at boot, opening the log, the export) is in storeread.py, imported for one call and
# dropped after it (_reading), with logrepair.py: neither stays in the heap after boot.
import json
import os

from carddraw import config
from carddraw.logline import SEGMENT, seal, LINE_MAX, older  # noqa: F401 -- tests import these

NOTICES_MAX = 8      # notices kept in Store.notices (RAM)
_SEP = (",", ":")


def _reading(fn, *args):
    """storeread.<fn>(*args), storeread imported for the call and dropped again after it,
    with logrepair and settings (which it imports) if the call brought them (config.borrowed:
    calls nest, a load logs, which opens the log; a screen may hold settings meanwhile)."""
    with config.borrowed("storeread", "logrepair", "settings") as storeread:
        return getattr(storeread, fn)(*args)


def check_action(state):
    """None if the saved action in `state` (under "action") can be rebuilt, else why not."""
    return _reading("check_action", state)


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

    def listdir(self, root):
        return os.listdir(root.rstrip("/") or ".") if root != "/" else os.listdir("/")


class Store:
    check_action = staticmethod(check_action)

    def __init__(self, root="", fs=None, log_limit=None, segment=None):
        self.root = root
        self.fs = fs or OsFs()
        self.log_limit = log_limit or config.LOG_LIMIT
        # at least 4 segments in the limit, so dropping the oldest frees at most a quarter
        self.segment = min(segment or config.LOG_SEGMENT, self.log_limit // 4)
        self.notices = []
        self.full = False      # the log is full of records not yet exported
        self._log_bad = 0      # damaged log lines last reported
        self._segs = None      # first seq of each segment, oldest first; None: not opened yet
        self._total = 0        # bytes in all segments
        self._cur = 0          # bytes in the newest segment
        self._seq = 1          # the next record's seq
        self._prev = ""        # the last record's hash ("" before the first record ever)
        self._torn = False     # the newest segment ends in a torn line (not on littlefs)
        self._exported = 0     # the highest seq the bench acknowledged as saved
        self._queue = []       # records waiting for the flash or for room, oldest first
        self._lost = 0         # records that could not even wait: logged as "dropped"
        self._same = None      # the last record without "ms": repeats of it are only counted
        self._repeats = 0
        self._repeat_ms = None

    # -- settings ----------------------------------------------------------------------------
    def load_settings(self):
        """-> (settings dict with every key of config.defaults(), notice or None)."""
        return _reading("load_settings", self)

    def save_settings(self, settings):
        """Atomic. -> True, or False (and a notice) when the flash refused."""
        return self._write(config.SETTINGS_FILE, settings)

    # -- the action in progress -------------------------------------------------------------
    def save_action(self, state):
        """The controller's resume state (JSON-able), or None for no action. Atomic."""
        return self._write(config.ACTION_FILE, state)

    def load_action(self):
        """-> (state dict or None, notice or None). The contents are the caller's to check.
        A missing file while the log shows an action started and not ended closes that
        action as lost (see report)."""
        return _reading("load_action", self)

    def _action_lost(self, why):
        """R14: an action the log shows open is closed as lost (storeread.action_lost)."""
        return _reading("action_lost", self, why)

    # -- the log -----------------------------------------------------------------------------
    def log(self, record):
        """Keep one record (a dict). -> True when it and every record before it are on flash,
        False while some wait (flash error, or the log full of records not yet exported)."""
        same = dict(record)
        same.pop("ms", None)
        if same == self._same:
            self._repeats += 1
            self._repeat_ms = record.get("ms")
            if self._repeats < config.LOG_REPEATS:
                return not self._queue and not self._lost
            self._push_repeats()
        else:
            self._push_repeats()
            self._same = same
            self._push(record)
        return self.flush()

    def flush(self):
        """Write the records waiting, in order, then the count of any that could not wait.
        -> True when none is left waiting. The app calls this every loop pass."""
        if not self._queue and not self._lost:
            return True
        if not self._open():
            return False
        while self._queue:
            if not self._put(self._queue[0]):
                return False
            self._queue.pop(0)
        if self._lost and self._put({"ev": "dropped", "n": self._lost}):
            self._lost = 0
        return not self._lost

    def read_log(self, each=None, raw=False):
        """-> (records, damaged): every record, oldest first, reading line by line; damaged
        counts the lines skipped. Records come without the store's "seq" and "h"; with raw,
        each line's text as on flash instead (for the export). With each(record) given,
        records are handed to it one by one instead of collected: less RAM."""
        return _reading("read_log", self, each, raw)

    def last(self):
        """-> (seq, hash) of the last record written: (0, "") for none."""
        self._open()
        return self._seq - 1, self._prev

    def report(self, file, why, notice):
        """Damage found: keep the short notice (for a 16-character line), log the details.
        A damaged action file also closes the action the log shows open (R14)."""
        self._notice(notice)
        self.log({"ev": "damage", "file": file, "why": why})
        if file == config.ACTION_FILE:
            self._action_lost("damaged")
        return notice

    # -- inside: the log -----------------------------------------------------------------------
    def _notice(self, text):
        if len(self.notices) < NOTICES_MAX and (not self.notices or self.notices[-1] != text):
            self.notices.append(text)
        return text

    def _push(self, record):
        if len(self._queue) < config.LOG_QUEUE:
            self._queue.append(record)
        else:
            self._lost += 1

    def _push_repeats(self):
        if self._repeats:
            r = {"ev": "repeat", "x": self._repeats}
            if self._repeat_ms is not None:
                r["ms"] = self._repeat_ms
            self._repeats = 0
            self._push(r)

    def _open(self):
        """Learn the segments, the last seq and hash (once); migrate older firmware's log."""
        return self._segs is not None or _reading("open_log", self)

    def _read_lines(self, name, each, raw=False, start=0, budget=0):
        """Each record of one log file to each(): storeread.read_lines."""
        return _reading("read_lines", self, name, each, raw, start, budget)

    def _put(self, record):
        """Write one record as the next link of the chain. -> True, or False (flash error, or
        full of records not yet exported: the record stays queued)."""
        line, h = seal(self._seq, self._prev, record)
        if self._torn:
            line = b"\n" + line  # a torn last line (not littlefs) stays apart from this
        new = not self._segs or self._cur + len(line) > self.segment
        if not self._room(len(line), new):
            return False
        if new:
            self._segs.append(self._seq)
            self._cur = 0
        try:
            f = self.fs.open(self.root + SEGMENT % self._segs[-1], "ab")
            try:
                f.write(line)
                f.flush()
            finally:
                f.close()
        except OSError as e:
            if new:
                self._segs.pop()
                self._cur = self._size(self.root + SEGMENT % self._segs[-1]) if self._segs else 0
            self._flash_error(e)
            return False
        self._cur += len(line)
        self._total += len(line)
        self._seq += 1
        self._prev = h
        self._torn = False
        return True

    def _room(self, size, new):
        """Make room for `size` bytes, dropping only segments already exported."""
        while self._total + size > self.log_limit:
            segs = self._segs
            if not segs or len(segs) == 1 and not new:
                return self._full()
            last_seq = segs[1] - 1 if len(segs) > 1 else self._seq - 1
            if last_seq > self._exported:
                return self._full()
            path = self.root + SEGMENT % segs[0]
            size_of = self._size(path)
            if not self._remove(path[len(self.root):]):
                return False
            self._total -= size_of
            segs.pop(0)
        self.full = False
        return True

    def _full(self):
        if not self.full:
            self.full = True
            self._notice("log full: export")
        return False

    # -- inside: files -------------------------------------------------------------------------
    def _write(self, name, obj):
        """name.tmp, flush, close, rename over name: the old file or the new, never neither."""
        data = json.dumps(obj, separators=_SEP).encode()
        path = self.root + name
        try:
            f = self.fs.open(path + ".tmp", "wb")
            try:
                f.write(data)
                f.flush()
            finally:
                f.close()
            self.fs.rename(path + ".tmp", path)
            return True
        except OSError as e:
            self._flash_error(e)
            return False

    def _remove(self, name):
        try:
            self.fs.remove(self.root + name)
            return True
        except OSError as e:
            self._flash_error(e)
            return False

    def _flash_error(self, e):
        # not logged now: the log is on the same flash that just failed (records wait in RAM)
        self._notice("flash error")

    def _size(self, path):
        try:
            return self.fs.stat(path)[6]
        except OSError:
            return 0
