# The bench's `log` command: the log streamed line by line as it is on flash (hashes and all,
# so tools/bench.py can check the chain), the device's unique id, and the
# acknowledgement `log ack SEQ HASH` the bench sends once the export is saved, which lets the
# store drop segments holding only exported records when the log is full. Imported on the
# first `log` line and kept.
from . import config, flashfs, logread, settings
from .render import const  # micropython's (render's stand-in under CPython): one import

_LINES = const(3)  # log lines sent at most in a pass (each is a JSON reply to make and send)
_QUIET = const(8)  # passes of lines, then one left quiet: the app collects garbage in it
                   # (App.update)
_WAIT_MAX = const(50)  # passes left to the idle housekeeping (presses keep it waiting), then
                       # the export moves the journal's records itself, a step a pass


def command(con, args):
    """One `log` line (args: the words after it; con: protocol.Console) -> the final reply
    (a dict, or the text of an error), or None while the export runs."""
    if not args:
        con.job = Export()
        return None
    if len(args) != 3 or args[0] != "ack":
        return "log takes no argument, or: log ack SEQ HASH (of the last record saved)"
    seq = settings.number(args[1])
    h = args[2]
    if seq is None:
        return "log ack needs the record's seq: 1 to 9 digits"
    if len(h) != logread.HASH_DIGITS or h.strip("0123456789abcdef"):
        return "log ack needs the record's hash: 12 digits 0-9 a-f"
    return ack(con.app.store, seq, h) or {"ok": "ack", "seq": seq}


def ack(store, seq, h):
    """The bench saved the log to record `seq`, whose hash is `h`: segments holding only
    saved records may go when room is needed (store.Store). -> None, or why not."""
    log = store.logfile
    if not store.flush() and not log.full:
        return "flash error"
    if not 0 < seq <= log.seq:
        return "no record %d: the log holds records 1 to %d" % (seq, log.seq)
    if seq > log.exported:
        if log.hash_of(seq) != h:
            return "record %d's hash is not %s: export the log again" % (seq, h)
        if not flashfs.write_json(store.fs, store.root + config.LOG_EXPORTED_FILE, seq):
            return store.flash_error() or "flash error"
        log.exported = seq
    store.room.forget()  # the export frees room: worked out anew
    store.flush()  # records waiting for room go now
    return None


class Export:
    """The `log` export as a job of the loop passes (protocol.serve runs step() each pass and
    holds the lines after it meanwhile): at most _LINES lines a pass, and only while the
    replies waiting for the host leave room, so no pass reads more than that whatever the
    log's size, and a host that does not read holds the export, not the loop."""

    files = None    # the log's files still to read, oldest first
    at = 0          # where the next line starts in the first of them
    records = 0
    damaged = 0
    busy = False    # whether the last step worked (protocol.serve): else it was quiet
    waited = 0      # passes spent waiting for the journal's records
    sent = 0        # passes of lines since the last quiet one

    def step(self, con, now):
        app = con.app
        store = app.store
        self.busy = False
        if self.files is None:
            # the journal's records into the log first: the app's idle housekeeping moves
            # them, a step a pass, in quiet passes (never beside a garbage collection); if
            # presses leave it no idle pass for _WAIT_MAX passes, the export takes the steps
            if store.moving():
                self.waited += 1
                if self.waited <= _WAIT_MAX:
                    return None
                if store.housekeep():
                    self.busy = True
                    return None
            store.flush()  # nothing left to move by now, unless the flash refused
            self.files = store.logfile.files()
        if self.sent >= _QUIET:
            self.sent = 0
            return None
        self.sent += 1
        self.busy = True
        room = min(_LINES, con.room())
        files = self.files
        while room > 0 and files:
            texts = []
            bad, self.at = logread.each(store.fs, store.root + files[0], texts.append, True, 0,
                                        self.at, room)
            self.damaged += bad
            for text in texts:
                con.reply({"log": text})
            self.records += len(texts)
            room -= len(texts)
            if self.at is None:
                files.pop(0)
                self.at = 0
        if files:
            return None
        return {"ok": "log", "records": self.records, "damaged": self.damaged,
                "device": app.board.unique_id()}
