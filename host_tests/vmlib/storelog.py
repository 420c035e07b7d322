# The device's log read back whole, for the tests (the firmware itself only streams it: the
# resume, logread.last_action; the export, logexport.py): in the Python that CPython and
# MicroPython share, so the VM's tests use it too (app_harness has it). store: a Store.
from carddraw import config
from carddraw.logread import LINE_MAX, each as each_line


def read_log(store, each=None, raw=False):
    """-> (records, damaged lines): every record, oldest first, without "seq" and "h"
    (raw: each line's text), the journal's moved into the log first. each(record): handed
    one by one; without, collected in a list. Damage found is reported as the store reports
    it (a notice and a {"ev": "damage"} record), once per new count."""
    store.flush()
    records = []
    log = store.logfile
    bad = 0
    for name in log.files():
        bad += each_line(store.fs, store.root + name, each or records.append, raw,
                         log.limit + LINE_MAX)[0]
    if bad and bad != getattr(log, "reported", 0):  # once per new count, not at every read
        log.reported = bad
        store.report(config.LOG_FILE, "%d bad lines" % bad, "log damaged")
    return records, bad


def last(store):
    """-> (seq, hash) of the last record in the log, the journal's moved in first: (0, "")
    for none."""
    store.flush()
    return store.logfile.seq, store.logfile.prev

