# The log's rare repairs, imported by storeread.py only when needed, so that normal play keeps
# none of this in RAM: older firmware's log copied into the first segment (once in a device's
# life), and the look back for an action left open when action.json is missing or damaged.
from carddraw.logline import SEGMENT, seal

SCAN_CHUNK = 512      # bytes read at a time when looking back for the last start/end
_START = b'"ev":"start"'
_END = b'"ev":"end"'


def migrate(store, names, read_lines):
    """Older firmware's log.1.jsonl then log.jsonl, record by record, into segment 1, each
    given its seq and hash. -> ([1], damaged lines), or (None, 0) on a flash error: the old
    files then stay, and the next boot tries again. The segment appears whole or not at all
    (name.tmp, renamed). Each old file is read up to an eighth of the log's limit (older
    firmware kept at most 32 KB in each), so the copy always fits in the new log.
    read_lines: storeread.read_lines (the caller's, so this module imports nothing more)."""
    path = store.root + SEGMENT % 1
    state = [1, "", False]  # the next seq, the last hash, a write failed

    def put(record):
        line, h = seal(state[0], state[1], record)
        try:
            f.write(line)
        except OSError:
            state[2] = True
        state[0] += 1
        state[1] = h

    try:
        f = store.fs.open(path + ".tmp", "wb")
        try:
            bad = 0
            for name in names:
                bad += read_lines(store, name, put, budget=store.log_limit // 8)
            put({"ev": "migrated", "records": state[0] - 1, "damaged": bad})
            f.flush()
        finally:
            f.close()
        if state[2]:
            raise OSError(28)  # ENOSPC or the like: the copy is not whole
        store.fs.rename(path + ".tmp", path)
    except OSError as e:
        store._flash_error(e)
        return None, 0
    return [1], bad


def open_action(store):
    """Whether the log's last start/end record is a start: read backwards from the end a
    chunk at a time, usually no further than the newest segment's last few lines. The texts
    match whatever the key order (compact JSON), and never inside a string (quotes escaped)."""
    for first in reversed(store._segs):
        found = _scan_back(store, store.root + SEGMENT % first)
        if found is not None:
            return found
    return False


def _scan_back(store, path):
    try:
        f = store.fs.open(path, "rb")
    except OSError:
        return None
    try:
        pos = store._size(path)
        later = b""
        while pos > 0:
            n = min(SCAN_CHUNK, pos)
            pos -= n
            f.seek(pos)
            chunk = f.read(n) + later[:len(_START) - 1]  # a match across the boundary
            start, end = chunk.rfind(_START), chunk.rfind(_END)
            if start >= 0 or end >= 0:
                return start > end
            later = chunk
    except OSError:
        return None
    finally:
        f.close()
    return None
