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
import json
import os

from carddraw import config, saved, settings as known
from carddraw.logline import LINE_MAX, SEGMENT, line_hash, older, seal

NOTICES_MAX = 8      # notices waiting for the screen
SETTINGS_MAX = 4096  # bytes read at most from the settings file
ACTION_MAX = 8192    # ... and from the action state
SCAN_CHUNK = 512     # bytes read at a time when looking back for the last start/end
MISSING = "missing"
_SEP = (",", ":")


def check_action(state):
    """None if the saved action in `state` (under "action") can be rebuilt, else why not."""
    if state is None:
        return None
    if not isinstance(state, dict):
        return "not an object"
    if "action" not in state:
        return None
    try:
        saved.from_dict(state["action"])
    except Exception as e:  # ValueError by contract; anything else is damage all the same
        return str(e) or type(e).__name__
    return None


def segment_seq(name):
    """The seq of a segment's first record from its file name, or None for another file."""
    if name.startswith("log.") and name.endswith(".jsonl"):
        digits = name[4:-6]
        if len(digits) >= 6 and all("0" <= c <= "9" for c in digits):
            return int(digits)
    return None


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
        self.full = False      # the log is full of records not yet exported
        self._notices = []     # short texts for the screen (take_notices)
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

    # -- settings and the action in progress --------------------------------------------------
    def load_settings(self):
        """-> (settings dict with every key of config.defaults(), notice or None)."""
        name = config.SETTINGS_FILE
        data, why = self._read(name, SETTINGS_MAX)
        if why is None and not isinstance(data, dict):
            why = "not an object"
        if why is None:
            s, bad = known.check(data)  # the controller uses the same check
            if not bad:
                return s, None
            why = "bad " + ",".join(bad)
            notice = "settings fixed"
        else:
            s = config.defaults()
            if why == MISSING:  # a fresh device
                return s, None
            notice = "settings reset"
        notice = self.report(name, why, notice)
        self.save_settings(s)  # repaired on flash, so the notice comes once
        return s, notice

    def save_settings(self, settings):
        """Atomic. -> True, or False (and a notice) when the flash refused."""
        return self._write(config.SETTINGS_FILE, settings)

    def load_action(self):
        """-> (state dict or None, notice or None). The contents are the caller's to check.
        A missing file while the log shows an action started and not ended closes that
        action as lost (see report)."""
        name = config.ACTION_FILE
        state, why = self._read(name, ACTION_MAX)
        if why == MISSING:
            return None, self.notice("action lost") if self._action_lost("missing") else None
        if why is None:
            if state is None or isinstance(state, dict):
                return state, None
            why = "not an object"
        notice = self.report(name, why, "action lost")
        self.save_action(None)
        return None, notice

    def save_action(self, state):
        """The controller's resume state (JSON-able), or None for no action. Atomic."""
        return self._write(config.ACTION_FILE, state)

    def set_flag(self, name, on):
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

    # -- notices: short texts for the bottom line of the screen --------------------------------
    def notice(self, text):
        if len(self._notices) < NOTICES_MAX and (not self._notices or self._notices[-1] != text):
            self._notices.append(text)
        return text

    def take_notices(self):
        notices = self._notices
        self._notices = []
        return notices

    def report(self, file, why, notice):
        """Damage found: keep the short notice (for a 16-character line), log the details.
        A damaged action file also closes the action the log shows open (R14)."""
        self.notice(notice)
        self.log({"ev": "damage", "file": file, "why": why})
        if file == config.ACTION_FILE:
            self._action_lost("damaged")
        return notice

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

    def waiting(self):
        """Records waiting in RAM for the flash (or for room)."""
        return len(self._queue) + (1 if self._lost else 0)

    def read_log(self, each=None, raw=False):
        """-> (records, damaged): every record, oldest first, reading line by line; damaged
        counts the lines skipped. Records come without the store's "seq" and "h"; with raw,
        each line's text as on flash instead (for the export). With each(record) given,
        records are handed to it one by one instead of collected: less RAM."""
        self._push_repeats()
        if self._open():
            self.flush()
        records = []  # type: list
        each = each or records.append
        name = config.LOG_FILE
        bad = self.read_lines(older(name), each, raw)  # only if a migration failed
        bad += self.read_lines(name, each, raw)
        for first in list(self._segs or ()):
            bad += self.read_lines(SEGMENT % first, each, raw)
        if bad and bad != self._log_bad:  # once per new count, not at every read
            self._log_bad = bad
            self.report(name, "%d bad lines" % bad, "log damaged")
        return records, bad

    def last(self):
        """-> (seq, hash) of the last record written: (0, "") for none."""
        self._open()
        return self._seq - 1, self._prev

    def exported(self):
        """The highest seq the bench acknowledged as saved (`log ack`)."""
        self._open()
        return self._exported

    def ack(self, seq, h):
        """The bench saved the log up to record `seq`, whose hash is `h`: when the log is
        full, segments holding only saved records may go. -> None, or why not."""
        if not self._open():
            return "flash error"
        last = self._seq - 1
        if not 0 < seq <= last:
            return "no record %d: the log holds records 1 to %d" % (seq, last)
        if seq > self._exported:
            if self._hash_of(seq) != h:
                return "record %d's hash is not %s: export the log again" % (seq, h)
            if not self._write(config.LOG_EXPORTED_FILE, seq):
                return "flash error"
            self._exported = seq
        self.flush()  # records waiting for room go now
        return None

    def read_lines(self, name, each, raw=False, start=0, budget=0):
        """Hand each record of one log file to each() (the line's text with raw, else the
        record without "seq" and "h"); -> lines skipped as damaged. From byte `start` on,
        the first (partial) line skipped."""
        try:
            f = self.fs.open(self.root + name, "rb")
        except OSError:
            return 0
        bad = 0
        budget = budget or self.log_limit + LINE_MAX  # more than log() ever writes to a file
        skipping = False
        try:
            if start:
                f.seek(start)
                skipping = True
            while True:
                line = f.readline(LINE_MAX)
                if not line:
                    break
                budget -= len(line)
                if budget < 0:
                    bad += 1  # the rest of an oversized file
                    break
                whole = line.endswith(b"\n")
                if skipping:  # the tail of an overlong line, or of the line `start` cut
                    skipping = not whole
                    continue
                if not whole and len(line) == LINE_MAX:
                    bad += 1
                    skipping = True
                    continue
                bad += _hand(line, each, raw)
        except OSError:
            bad += 1
        finally:
            f.close()
        return bad

    def flash_error(self, e):
        # not logged now: the log is on the same flash that just failed (records wait in RAM)
        self.notice("flash error")

    # -- inside: opening the log -------------------------------------------------------------
    def _open(self):
        """Learn the segments, the last seq and hash (once); migrate older firmware's log.
        -> False on a flash error (tried again at the next write)."""
        if self._segs is not None:
            return True
        try:
            names = self.fs.listdir(self.root)
        except OSError as e:
            self.flash_error(e)
            return False
        segs = sorted([s for s in [segment_seq(n) for n in names] if s is not None])
        old = [n for n in (older(config.LOG_FILE), config.LOG_FILE) if n in names]
        bad = 0
        if old and not segs:
            from carddraw import logrepair  # once in a device's life
            segs, bad = logrepair.migrate(self, old)
            if segs is None:
                return False
        for name in old:  # migrated (now or by a boot the power cut short)
            self._remove(name)
        self._segs = segs
        for first in segs:
            self._cur = self._size(SEGMENT % first)
            self._total += self._cur
        exported = self._read(config.LOG_EXPORTED_FILE, 32)[0]
        self._exported = exported if type(exported) is int else 0
        self._find_last()
        if bad:
            self.report(config.LOG_FILE, "%d bad lines" % bad, "log damaged")
        return True

    def _find_last(self):
        """The last whole record's seq and hash: from the newest segment's tail (2 lines'
        worth), or, when damage fills the tail, from the whole segment, or an older one."""
        for first in reversed(self._segs):
            name = SEGMENT % first
            size = self._size(name)
            if first == self._segs[-1] and size:
                self._torn = not self._ends_line(name, size)
            start = max(0, size - 2 * LINE_MAX)
            for at in (start, 0) if start else (0,):
                found = []
                self.read_lines(name, found.append, True, at)
                for text in reversed(found):
                    seq = json.loads(text).get("seq")
                    if type(seq) is int and line_hash(text):
                        self._seq = seq + 1
                        self._prev = line_hash(text)
                        return
        if self._segs:  # nothing whole anywhere: go on after the newest segment's name
            self._seq = self._segs[-1]

    def _ends_line(self, name, size):
        try:
            f = self.fs.open(self.root + name, "rb")
        except OSError:
            return True
        try:
            f.seek(size - 1)
            return f.read(1) == b"\n"
        finally:
            f.close()

    def _action_lost(self, why):
        """R14: no escape from a black by deleting or spoiling action.json. When the log's
        last start/end record is a start, that action ends here, as lost. -> whether it did."""
        if not self._open() or self._seq == 1:  # no log, or no record in it: nothing open
            return False
        found = None
        for first in reversed(self._segs):
            found = self._scan_back(SEGMENT % first)
            if found is not None:
                break
        if not found:
            return False
        self.log({"ev": "end", "outcome": "lost", "why": "action file " + why})
        return True

    def _scan_back(self, name):
        """Whether a segment's last start/end record is a start (None: it holds neither),
        read backwards a chunk at a time. The texts match whatever the key order (compact
        JSON), and never inside a string (quotes escaped)."""
        try:
            f = self.fs.open(self.root + name, "rb")
        except OSError:
            return None
        try:
            pos = self._size(name)
            later = b""
            while pos > 0:
                n = min(SCAN_CHUNK, pos)
                pos -= n
                f.seek(pos)
                chunk = f.read(n) + later[:11]  # a match across the boundary
                start, end = chunk.rfind(b'"ev":"start"'), chunk.rfind(b'"ev":"end"')
                if start >= 0 or end >= 0:
                    return start > end
                later = chunk
        except OSError:
            return None
        finally:
            f.close()
        return None

    def _hash_of(self, seq):
        """The hash on flash of record `seq`, or None."""
        first = 0
        for s in self._segs:
            if s <= seq:
                first = s
        key = '"seq":%d,' % seq  # never the last key: "h" is
        found = []

        def each(text):
            if not found and key in text:
                found.append(line_hash(text))
        if first:
            self.read_lines(SEGMENT % first, each, True)
        return found[0] if found else None

    # -- inside: writing the log -------------------------------------------------------------
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
                self._cur = self._size(SEGMENT % self._segs[-1]) if self._segs else 0
            self.flash_error(e)
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
            name = SEGMENT % segs[0]
            size_of = self._size(name)
            if not self._remove(name):
                return False
            self._total -= size_of
            segs.pop(0)
        self.full = False
        return True

    def _full(self):
        if not self.full:
            self.full = True
            self.notice("log full: export")
        return False

    # -- inside: files -------------------------------------------------------------------------
    def _read(self, name, cap):
        """-> (parsed JSON, None), or (None, why): MISSING, or what is wrong with the file."""
        path = self.root + name
        try:
            self.fs.remove(path + ".tmp")  # a save cut short: the file it was to replace stands
        except OSError:
            pass
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
            self.flash_error(e)
            return False

    def _remove(self, name):
        try:
            self.fs.remove(self.root + name)
            return True
        except OSError as e:
            self.flash_error(e)
            return False

    def _size(self, name):
        try:
            return self.fs.stat(self.root + name)[6]
        except OSError:
            return 0


def _hand(line, each, raw):
    """One line to each(); -> 1 when it was damaged (and not handed), else 0."""
    if not line.strip():
        return 0
    try:
        text = line.decode().strip()
        r = json.loads(text)
    except Exception:
        return 1
    if not isinstance(r, dict):
        return 1
    if raw:
        each(text)
    else:
        r.pop("seq", None)
        r.pop("h", None)
        each(r)
    return 0
