# What the store reads back from flash: settings and the action in progress at boot, the log
# opened (its segments found, older firmware's log migrated, the last record's seq and hash
# found, an action left open closed as lost) and the log read for an export. store.Store
# imports this module for one call and drops it again (Store._reading), so that the heap
# after boot holds only the writing side, which every draw uses. Pure file I/O, as store.py.
#
# Everything read is untrusted: a short, corrupt or huge file gives defaults and a short
# notice for the screen, and the details go to the log as {"ev": "damage", ...}. Loading
# never raises.
import json

from carddraw import config, settings as known_settings
from carddraw.logline import LINE_MAX, SEGMENT, line_hash, older

SETTINGS_MAX = 4096  # bytes read at most from the settings file
ACTION_MAX = 8192    # ... and from the action state
MISSING = "missing"


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


# -- settings and the action in progress -------------------------------------------------------
def load_settings(store):
    """-> (settings dict with every key of config.defaults(), notice or None)."""
    name = config.SETTINGS_FILE
    data, why = read(store, name, SETTINGS_MAX)
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
        if why == MISSING:  # a fresh device
            return s, None
        notice = "settings reset"
    notice = store.report(name, why, notice)
    store.save_settings(s)  # repaired on flash, so the notice comes once
    return s, notice


def load_action(store):
    """-> (state dict or None, notice or None): see Store.load_action."""
    name = config.ACTION_FILE
    state, why = read(store, name, ACTION_MAX)
    if why == MISSING:
        return None, store._notice("action lost") if action_lost(store, "missing") else None
    if why is None:
        if state is None or isinstance(state, dict):
            return state, None
        why = "not an object"
    notice = store.report(name, why, "action lost")
    store.save_action(None)
    return None, notice


def action_lost(store, why):
    """R14: no escape from a black by deleting or spoiling action.json. When the log's last
    start/end record is a start, that action ends here, as lost. -> whether it did."""
    if not store._open() or store._seq == 1:  # no log, or no record in it: nothing open
        return False
    from carddraw import logrepair  # only when action.json is missing or damaged
    if not logrepair.open_action(store):
        return False
    store.log({"ev": "end", "outcome": "lost", "why": "action file " + why})
    return True


def segment_seq(name):
    """The seq of a segment's first record from its file name, or None for another file."""
    if name.startswith("log.") and name.endswith(".jsonl"):
        digits = name[4:-6]
        if len(digits) >= 6 and all("0" <= c <= "9" for c in digits):
            return int(digits)
    return None


# -- opening the log ---------------------------------------------------------------------------
def open_log(store):
    """Learn the segments, the last seq and hash; migrate older firmware's log. -> False on a
    flash error (the store tries again at its next write)."""
    try:
        names = store.fs.listdir(store.root)
    except OSError as e:
        store._flash_error(e)
        return False
    segs = []
    for name in names:
        first = segment_seq(name)
        if first is not None:
            segs.append(first)
    segs.sort()
    old = [n for n in (older(config.LOG_FILE), config.LOG_FILE) if n in names]
    bad = 0
    if old and not segs:
        from carddraw import logrepair  # once in a device's life
        segs, bad = logrepair.migrate(store, old, read_lines)
        if segs is None:
            return False
    for name in old:  # migrated (now or by a boot the power cut short)
        store._remove(name)
    store._segs = segs
    for first in segs:
        store._cur = store._size(store.root + SEGMENT % first)
        store._total += store._cur
    exported = read(store, config.LOG_EXPORTED_FILE, 32)[0]
    store._exported = exported if type(exported) is int else 0
    find_last(store)
    if bad:
        store.report(config.LOG_FILE, "%d bad lines" % bad, "log damaged")
    return True


def find_last(store):
    """The last whole record's seq and hash: from the newest segment's tail (2 lines'
    worth), or, when damage fills the tail, from the whole segment, or an older one."""
    for first in reversed(store._segs):
        path = store.root + SEGMENT % first
        size = store._size(path)
        if first == store._segs[-1] and size:
            store._torn = not ends_line(store, path, size)
        start = max(0, size - 2 * LINE_MAX)
        for at in (start, 0) if start else (0,):
            found = []
            read_lines(store, SEGMENT % first, found.append, True, at)
            for text in reversed(found):
                seq = json.loads(text).get("seq")
                if type(seq) is int and line_hash(text):
                    store._seq = seq + 1
                    store._prev = line_hash(text)
                    return
    if store._segs:  # nothing whole anywhere: go on after the newest segment's name
        store._seq = store._segs[-1]


def ends_line(store, path, size):
    try:
        f = store.fs.open(path, "rb")
    except OSError:
        return True
    try:
        f.seek(size - 1)
        return f.read(1) == b"\n"
    finally:
        f.close()


# -- reading -----------------------------------------------------------------------------------
def read_log(store, each, raw):
    """See Store.read_log."""
    store._push_repeats()
    if store._open():
        store.flush()
    records = []  # type: list
    each = each or records.append
    name = config.LOG_FILE
    bad = read_lines(store, older(name), each, raw)  # only if a migration failed
    bad += read_lines(store, name, each, raw)
    for first in list(store._segs or ()):
        bad += read_lines(store, SEGMENT % first, each, raw)
    if bad and bad != store._log_bad:  # once per new count, not at every read
        store._log_bad = bad
        store.report(name, "%d bad lines" % bad, "log damaged")
    return records, bad


def read(store, name, cap):
    """-> (parsed JSON, None), or (None, why): MISSING, or what is wrong with the file."""
    path = store.root + name
    try:
        store.fs.remove(path + ".tmp")  # a save cut short: the file it was to replace stands
    except OSError:
        pass
    try:
        f = store.fs.open(path, "rb")
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


def read_lines(store, name, each, raw=False, start=0, budget=0):
    """Hand each record of one log file to each() (the line's text with raw, else the
    record without "seq" and "h"); -> lines skipped as damaged. From byte `start` on,
    the first (partial) line skipped."""
    try:
        f = store.fs.open(store.root + name, "rb")
    except OSError:
        return 0
    bad = 0
    budget = budget or store.log_limit + LINE_MAX  # more than log() ever writes to one file
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
            bad += hand(line, each, raw)
    except OSError:
        bad += 1
    finally:
        f.close()
    return bad


def hand(line, each, raw):
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
