# The moves from an older firmware's layout of the flash to this one's, all in one place,
# imported by the store's boot only when an older name is in its folder (Store._open), so
# once in a device's life at most. Each move is a rename (atomic) or the removal of a file
# that is no longer needed, so a power cut at any point leaves each file in one place or the
# other, and the next boot does the rest:
# - settings.json and log.exported, in the store's folder: into state/ (replacing state/'s:
#   found in the root, they were written by an older firmware run since);
# - a write cut short (name.tmp) and the saved action (action.json: the log is its record
#   now): removed;
# - the journal's folders jNNNNNN: into journal/ (one half made or half removed: removed);
# - the log's segments log.NNNNNN.jsonl: into log/;
# - the first firmware's log, log.jsonl (and log.1.jsonl) with neither seq nor hash: copied
#   record by record into segment 1, each given its seq and hash, then removed.
from . import config, flashfs, journal, logfile, logread

ACTION_FILE = "action.json"  # older firmware's saved action: removed (the log holds it)


def run(store, top):
    """Every older name in `top` (the store's folder's names: a dict of their types) moved
    or removed. -> log lines found damaged by a copy. OSError on a flash error: the next
    boot goes on."""
    fs, root = store.fs, store.root
    gone = [ACTION_FILE, ACTION_FILE + ".tmp"]
    for name in (config.SETTINGS_FILE, config.LOG_EXPORTED_FILE):  # moved by a rename each
        old = name[len(config.STATE_DIR):]
        if old in top:
            fs.rename(root + old, root + name)
        gone.append(old + ".tmp")
    ours = fs.listdir(root + config.LOG_DIR)
    for name in top:
        path = root + name
        if name in gone:
            fs.remove(path)
        elif journal.folder_number(name) is not None:
            fs.rename(path, root + journal.DIR + name)
        elif name.endswith(".tmp") and journal.folder_number(name[:-4]) is not None:
            flashfs.remove_all(fs, path)
        elif logfile.segment_seq(name) is not None and name not in ours:
            fs.rename(path, root + config.LOG_DIR + name)
            ours.append(name)
    old = []
    for name in (logfile.OLDER_LOG, config.LOG_FILE):
        if name in top:
            old.append(name)
    bad = 0
    for name in ours:
        if logfile.segment_seq(name) is not None:
            break
    else:
        if old:
            bad = _copy(store, old, root + logfile.segment(1))
    for name in old:  # copied (now or by a boot the power cut short)
        fs.remove(root + name)
    return bad


def _copy(store, names, path):
    """The first firmware's log.1.jsonl then log.jsonl, record by record, into segment 1,
    each given its seq and hash. -> damaged lines. The segment appears whole or not at all
    (path.tmp, renamed); OSError on a flash error (the old files stay for the next boot).
    Each old file is read up to an eighth of the log's limit (that firmware kept at most
    32 KB in each), so the copy always fits in the new log."""
    fs = store.fs
    seq = 1    # the next seq
    prev = ""  # the last hash
    f = fs.open(path + ".tmp", "wb")
    try:
        def put(record):
            nonlocal seq, prev
            line, prev = logread.seal(seq, prev, record)
            f.write(line)
            seq += 1
        bad = 0
        for name in names:
            bad += logread.each(fs, store.root + name, put, False, store.logfile.limit // 8)[0]
        put({"ev": "migrated", "records": seq - 1, "damaged": bad})
    finally:
        f.close()
    fs.rename(path + ".tmp", path)
    return bad
