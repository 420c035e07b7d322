# Settings, the action log and the action in progress, kept on flash so that a power cut
# loses nothing that was written. Pure file I/O: no machine, no time.
#
# littlefs commits a file's contents only at flush/close and os.rename replaces a file
# atomically, so every rewrite goes name.tmp -> flush/close -> rename over name, and nothing
# is ever removed first (that could leave no file at all). The log is only appended to, one
# flushed line per record, and rotates by a rename. Everything read back is untrusted: a
# short, corrupt or huge file gives defaults and a short notice for the screen, and the
# details go to the log as {"ev": "damage", "file": ..., "why": ...}. Loading never raises.
import json
import os

from carddraw import config, settings as known_settings

SETTINGS_MAX = 4096  # bytes read at most from the settings file
ACTION_MAX = 8192    # ... and from the action state
LINE_MAX = 1024      # bytes in one log line, its newline included; log() never writes more
NOTICES_MAX = 8      # notices kept in Store.notices (RAM)
_MISSING = "missing"
_SEP = (",", ":")


def older(name):
    """The rotated log's name: log.jsonl -> log.1.jsonl."""
    i = name.rfind(".")
    return name[:i] + ".1" + name[i:] if i > 0 else name + ".1"


def check_action(state):
    """None if the saved action in `state` (under "action") can be rebuilt, else why not."""
    if state is None:
        return None
    if not isinstance(state, dict):
        return "not an object"
    if "action" not in state:
        return None
    from carddraw.saved import from_dict  # only when resuming: keeps the engine out of RAM
    try:
        from_dict(state["action"])
    except Exception as e:  # ValueError by contract; anything else is damage all the same
        return str(e) or type(e).__name__
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


class Store:
    check_action = staticmethod(check_action)

    def __init__(self, root="", fs=None, log_limit=None):
        self.root = root
        self.fs = fs or OsFs()
        self.log_limit = log_limit or config.LOG_LIMIT
        self.notices = []
        self._log_size = None  # bytes in the log, learnt at this session's first log()
        self._log_bad = 0      # damaged log lines last reported

    # -- settings ----------------------------------------------------------------------------
    def load_settings(self):
        """-> (settings dict with every key of config.defaults(), notice or None)."""
        name = config.SETTINGS_FILE
        data, why = self._read(name, SETTINGS_MAX)
        if why is None and not isinstance(data, dict):
            why = "not an object"
        if why is None:
            s, bad = known_settings.check(data)  # the controller uses the same check
            if not bad:
                return s, None
            why = "bad " + ",".join(bad)
            notice = "settings fixed"
        else:
            s = config.defaults()
            if why == _MISSING:  # a fresh device
                return s, None
            notice = "settings reset"
        notice = self.report(name, why, notice)
        self.save_settings(s)  # repaired on flash, so the notice comes once
        return s, notice

    def save_settings(self, settings):
        """Atomic. -> True, or False (and a notice) when the flash refused."""
        return self._write(config.SETTINGS_FILE, settings)

    # -- the action in progress -------------------------------------------------------------
    def save_action(self, state):
        """The controller's resume state (JSON-able), or None for no action. Atomic."""
        return self._write(config.ACTION_FILE, state)

    def load_action(self):
        """-> (state dict or None, notice or None). The contents are the caller's to check."""
        name = config.ACTION_FILE
        state, why = self._read(name, ACTION_MAX)
        if why == _MISSING:
            return None, None
        if why is None:
            if state is None or isinstance(state, dict):
                return state, None
            why = "not an object"
        notice = self.report(name, why, "action lost")
        self.save_action(None)
        return None, notice

    # -- the log -----------------------------------------------------------------------------
    def log(self, record):
        """Append one record (a dict) as a JSON line and flush. -> True, or False on a flash
        error. Rotates to log.1 first when the line would take the log past the limit."""
        text = json.dumps(record, separators=_SEP)
        if len(text) >= LINE_MAX:  # would read back as damage: keep what it was at least
            text = json.dumps({"ev": "too long", "was": record.get("ev")}, separators=_SEP)
        line = text.encode() + b"\n"
        path = self.root + config.LOG_FILE
        size = self._log_size
        try:
            if size is None:
                size = self._size(path)
                if size and size + len(line) <= self.log_limit and not self._ends_line(path, size):
                    line = b"\n" + line  # a torn last line (not littlefs) stays apart from this
            if size and size + len(line) > self.log_limit:
                # atomic: log.1 is replaced by the full log; this line starts the new one
                self.fs.rename(path, self.root + older(config.LOG_FILE))
                size = 0
            f = self.fs.open(path, "ab")
            try:
                f.write(line)
                f.flush()
            finally:
                f.close()
            self._log_size = size + len(line)
            return True
        except OSError as e:
            self._log_size = None
            self._flash_error(e)
            return False

    def read_log(self, each=None):
        """-> (records, damaged): every record of log.1 then log, oldest first, reading line by
        line; damaged counts the lines skipped. With each(record) given, records are handed to
        it one by one instead of collected (records comes back empty): less RAM."""
        records = []  # type: list
        name = config.LOG_FILE
        bad = self._read_lines(older(name), each or records.append)
        bad += self._read_lines(name, each or records.append)
        if bad and bad != self._log_bad:  # once per new count, not at every read
            self._log_bad = bad
            self.report(name, "%d bad lines" % bad, "log damaged")
        return records, bad

    def report(self, file, why, notice):
        """Damage found: keep the short notice (for a 16-character line), log the details."""
        if len(self.notices) < NOTICES_MAX:
            self.notices.append(notice)
        self.log({"ev": "damage", "file": file, "why": why})
        return notice

    # -- inside ------------------------------------------------------------------------------
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

    def _flash_error(self, e):
        # not logged: the log is on the same flash that just failed
        if len(self.notices) < NOTICES_MAX and (not self.notices or self.notices[-1] != "flash error"):
            self.notices.append("flash error")

    def _size(self, path):
        try:
            return self.fs.stat(path)[6]
        except OSError:
            return 0

    def _ends_line(self, path, size):
        f = self.fs.open(path, "rb")
        try:
            f.seek(size - 1)
            return f.read(1) == b"\n"
        finally:
            f.close()

    def _read(self, name, cap):
        """-> (parsed JSON, None), or (None, why): _MISSING, or what is wrong with the file."""
        path = self.root + name
        try:
            self.fs.remove(path + ".tmp")  # a save cut short: the file it was to replace stands
        except OSError:
            pass
        try:
            f = self.fs.open(path, "rb")
        except OSError:
            return None, _MISSING
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

    def _read_lines(self, name, each):
        """Hand each record of one log file to each(); -> lines skipped as damaged."""
        try:
            f = self.fs.open(self.root + name, "rb")
        except OSError:
            return 0
        bad = 0
        budget = self.log_limit + LINE_MAX  # more than log() ever writes to one file
        skipping = False
        try:
            while True:
                line = f.readline(LINE_MAX)
                if not line:
                    break
                budget -= len(line)
                if budget < 0:
                    bad += 1  # the rest of an oversized file
                    break
                whole = line.endswith(b"\n")
                if skipping:  # the tail of an overlong line
                    skipping = not whole
                    continue
                if not whole and len(line) == LINE_MAX:
                    bad += 1
                    skipping = True
                    continue
                if not line.strip():
                    continue
                try:
                    r = json.loads(line.decode())
                except Exception:
                    r = None
                if isinstance(r, dict):
                    each(r)
                else:
                    bad += 1
        except OSError:
            bad += 1
        finally:
            f.close()
        return bad
