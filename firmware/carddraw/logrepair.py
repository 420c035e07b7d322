# The log's one rare repair, imported by the store on first use (once in a device's life):
# older firmware's log, one file log.jsonl (and log.1.jsonl) with neither seq nor hash,
# copied into the first segment, each record given its seq and hash.
from carddraw.logline import seal


def migrate(store, names, first):
    """Older firmware's log.1.jsonl then log.jsonl, record by record, into segment 1, each
    given its seq and hash. -> ([1], damaged lines), or (None, 0) on a flash error: the old
    files then stay, and the next boot tries again. The segment appears whole or not at all
    (name.tmp, renamed). Each old file is read up to an eighth of the log's limit (older
    firmware kept at most 32 KB in each), so the copy always fits in the new log."""
    path = store.root + first  # the first segment's path
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
                bad += store.logfile.read_lines(name, put, budget=store.logfile.limit // 8)
            put({"ev": "migrated", "records": state[0] - 1, "damaged": bad})
            f.flush()
        finally:
            f.close()
        if state[2]:
            raise OSError(28)  # ENOSPC or the like: the copy is not whole
        store.fs.rename(path + ".tmp", path)
    except OSError as e:
        store.flash_error(e)
        return None, 0
    return [1], bad
