# What the device keeps on flash: the settings, the action log and the play's hint, so that a
# power cut loses nothing that was shown. Pure file I/O: no machine, no time. The facade the
# app and the tools use (a pass's commit, the idle passes' housekeeping a step at a time, the
# notices, what the log takes: Room, below) over its parts:
#   journal.py   what a pass changed, on flash before it shows anything: one page, no erase
#   logfile.py   the log's segments: records moved from the journal, sealed, written, room
#   logread.py   a log line sealed; the log read back as a stream (resume, export)
#   flashfs.py   the filesystem, small files written whole (settings.json checked)
#   migrate.py   an older firmware's layout moved to this one (imported only then)
# The action in play is never saved: the log is its record, played again after a power cut
# (open_action, play.Play.replay). Everything read back is untrusted: damage gives defaults, a
# short notice and a {"ev": "damage"} record. A flash error is never raised: it says "flash
# error", commit returns False, the pass tries again. RAM is bounded whatever a player does: 8
# notices, config.LOG_QUEUE records a refusing flash holds back (more are counted), the journal's
# entries, the segments, an idle step's records (logfile.HOLD_MOST), a reader's chunk and line,
# repeats (only counted).
from . import config, flashfs, journal, logfile, logread

OLDER = ["settings.json", "log.exported", "action.json"]  # an older firmware's, in the root
FOLDERS = (config.STATE_DIR, config.LOG_DIR, journal.DIR)


class Store:
    def __init__(self, root="", fs=None, log_limit=None, segment=None):
        self.root = root
        self.fs = fs = fs or flashfs.OsFs()
        limit = log_limit or config.LOG_LIMIT
        # at least 4 segments in the limit, so dropping the oldest frees at most a quarter
        self.logfile = logfile.LogFile(fs, root, limit,
                                       min(segment or config.LOG_SEGMENT, limit // 4), self.notice)
        self.journal = journal.Journal(fs, root)
        self.settings = flashfs.SettingsFile(fs, root)
        self.room = Room(min(config.LOG_RESERVE, limit // 4), self.logfile, self.journal)
        self._notices = []     # short texts for the screen (take_notices): 8 at most
        self._opened = False
        self._made = False     # the folders and settings.json are there (_ready)
        self._seq = 1          # the next record's seq
        self._hint = ""        # the play's hint as flash holds it
        self._retry = []       # records a refusing flash did not take yet: LOG_QUEUE at most
        self._tidy = False     # housekeep() found nothing to do since the last entry
        self._reading = None   # the stream open_action handed out: closed before a write

    # -- boot -----------------------------------------------------------------------------------
    def load_settings(self):
        """-> (settings with every key of config.defaults(), notice or None): the file, then
        the journal's changes after it; damage reported (a commit) once both are known."""
        sf = self.settings
        if self._open():
            s, why = dict(sf.settings), sf.why
            sf.why = None  # reported once
        else:  # a flash error: the file alone
            s, _, why = sf.read()
        notice = None
        if why and why != flashfs.MISSING:  # a fresh device has none (idle passes make it)
            notice = "settings fixed" if why[:4] == "bad " else "settings reset"
            self.report(config.SETTINGS_FILE, why, notice)
            if self._opened:  # repaired at once: said once
                sf.write(sf.j) or self.flash_error()
        return s, notice

    def save_settings(self, settings):
        """settings.json written whole now (the bench, the tests). -> True once on flash."""
        if not self._open():
            return False
        try:
            self._ready()
        except OSError:
            return self.flash_error()
        sf = self.settings
        sf.settings = dict(settings)
        sf.why = None  # written whole: nothing left to report
        self._tidy = False         # a journal folder may be done with now
        return sf.write(self.journal.next - 1) or self.flash_error()  # newer than the journal's changes

    def open_action(self):
        """-> (the log's last action's records from its start, or None; the play's hint):
        a stream (logread.last_action), read to the end or closed at the store's next write."""
        self._stop_reading()
        if not self._open():
            return None, ""
        if "x" in self._hint:  # set-up, on flash with the records: the last action put away
            return None, self._hint   # is not read (a boot at set-up waits for no log)
        self._reading = logread.last_action(self.logfile, self.journal)
        return self._reading, self._hint

    # -- a pass: what it changed, on flash before it is shown -------------------------------------
    def commit(self, records, settings=None, hint=None):
        """One journal entry for what a pass changed: its records (dicts), the settings that
        differ from flash's (a whole dict, or None), the play's hint. -> True once on flash,
        False on a flash error (the next pass tries again; waiting() counts the records)."""
        if not records and not self._retry and settings is None and self._opened \
                and (hint is None or hint == self._hint):
            return True  # a quiet pass: nothing to write, nothing allocated
        self._stop_reading()
        opened = self._opened or self._open()
        records = self.room.merged(records) if records else []  # never the caller's empty list
        if self._retry:
            records = self._retry + records
        self._retry = records  # until they are on flash
        if not opened:
            return self._refused()
        hint = self._hint if hint is None else hint
        changed = self.settings.changes(settings)
        if not records and not changed and (hint == self._hint or self._seq == 1):
            self._hint = hint  # nothing logged ever (a fresh device): no play for it to be of
            return True
        held = self.journal
        try:
            self._ready()
            if held.out_of_slots():  # passes answering presses used every slot: idle work now
                while self._on(False) or held.drop(self.logfile.seq, self.settings.j):
                    pass
                while held.prepare():
                    pass
                if held.out_of_slots():  # the journal at its most, the log full: say why
                    self.notice("log full: export")
            held.write(self._seq, hint, changed, records)
        except OSError:
            self.flash_error()
            return self._refused()
        self._tidy = False
        self._seq += len(records)
        if changed:
            self.settings.settings.update(changed)
        self._hint = hint
        self._retry = []
        return True

    def _refused(self):
        """The flash refused a pass: the first LOG_QUEUE records wait for the next (an action's
        start among them), the rest are counted ({"ev": "dropped"} later). -> False."""
        for r in self._retry[config.LOG_QUEUE:]:
            self.room.dropped += r["n"] if r.get("ev") == "dropped" else 1
        del self._retry[config.LOG_QUEUE:]
        return False

    def waiting(self):
        return len(self._retry)  # records a refusing flash holds back (tried again next)

    def log(self, record):
        """One record on flash now, outside a pass (boot's damage, the self-test)."""
        return self.commit([record])

    def housekeep(self):
        """One step of the idle passes' work, an erase at most: the next slot opened, the
        journal's records or settings moved on, a journal folder made or dropped."""
        if self._tidy or not self._open():
            return False
        self._stop_reading()
        try:
            held = self.journal
            work = (self._ready(True) or held.open_next() or self._on(True) or held.prepare()
                    or held.drop(self.logfile.seq, self.settings.j))
        except OSError:
            return self.flash_error()
        self._tidy = not work  # until the next journal entry: nothing to look at
        return work

    def moving(self):
        """Whether housekeep() still moves journal records into the log (the export waits),
        until it finds nothing to do (a full log takes no more)."""
        return self.logfile.held is not None or (
            self._opened and not self._tidy and self.journal.waiting(self.logfile.seq) > 0)

    def flush(self):
        """The journal's records and settings moved on now. -> True when nothing waits."""
        if not self._open():
            return False
        self._stop_reading()
        try:
            self._ready()
            while self._on(False):
                self._tidy = False  # a journal folder may be done with now: idle work looks
        except OSError:
            return self.flash_error()
        return not self.journal.waiting(self.logfile.seq)

    def room_for_action(self):
        """Whether the log can hold a new action to its end (Room.for_action)."""
        return self._open() and self.room.for_action()  # a flash error: said, tried again

    def notice(self, text):  # (for the screen: take_notices)
        notices = self._notices
        if len(notices) < 8 and (not notices or notices[-1] != text):
            notices.append(text)

    def take_notices(self):  # -> those queued (an empty list is the store's: never changed)
        notices = self._notices
        if notices:
            self._notices = []
        return notices

    def report(self, file, why, notice):
        """Damage found: keep the short notice (for a 16-character line), log the details."""
        self.notice(notice)
        self.log({"ev": "damage", "file": file, "why": why})

    def flash_error(self):
        """Said on screen, not logged: the log is on the flash that just failed. -> False."""
        self.notice("flash error")
        return False

    def boots(self, failed=None):
        """The boots that failed in a row (config.BOOTS_FILE): failed True counts one more
        (app.fatal), False sets 0 (a first frame drawn), None reads. -> the count before (0
        for an unreadable file: it never stops a boot)."""
        path = self.root + config.BOOTS_FILE
        count = flashfs.read_json(self.fs, path, 16)[0]
        count = count if type(count) is int and 0 <= count < 1000 else 0
        if failed or failed is False and count:
            if failed:  # a fresh device's folder made first (OSError: app.fatal goes on)
                self._open() and self._ready()
            flashfs.write_json(self.fs, path, count + 1 if failed else 0)
        return count

    # -- inside ------------------------------------------------------------------------------------
    def _open(self):
        """Once: the folders made (a fresh device's: by _ready), an older layout moved, the
        log, settings and journal read. -> False on a flash error (tried at the next call)."""
        if self._opened:
            return True
        fs, root = self.fs, self.root
        try:
            # littlefs 2.11 finishes a rename between folders that a cut left half done at its
            # first change after power-on (until then a listing misses the name after the
            # moved one): removing a name that is not there is such a change, writing nothing
            fs.remove(root + journal.DIR + ".settle")
        except OSError:
            pass
        try:
            top, fresh, old = {}, True, False  # fresh: no folder of ours (made at the first
            for e in fs.ilistdir(root):        # write, _ready: a fresh boot writes nothing)
                name = e[0]  # and its type, listed with it (a stat if not: CPython's os)
                top[name] = len(e) > 1 and e[1] or fs.stat(root + name)[0]
                fresh = fresh and name + "/" not in FOLDERS
                old = old or name.startswith("log.") or name[:1] == "j" and name[1:2].isdigit() \
                    or name in OLDER or name[:-4] in OLDER  # an older firmware's
            bad, changes = 0, []
            if old or not fresh:
                for name in FOLDERS:
                    name = name[:-1]  # each folder made, a file of its name (not ours) removed
                    if not top.get(name, 0) & 0x4000:  # not a folder
                        if name in top:
                            fs.remove(root + name)
                        fs.mkdir(root + name)
                if old:
                    from . import migrate  # once in a device's life
                    bad = migrate.run(self, top)
                for name in fs.listdir(root + config.STATE_DIR):
                    if name.endswith(".tmp"):  # a write a cut left half done: the old is whole
                        fs.remove(root + config.STATE_DIR + name)
                self.logfile.open()
                damaged, self._hint, changes = self.journal.read(self.logfile.seq)
                bad += damaged
            self.settings.load(changes)
        except OSError:
            return self.flash_error()
        self._made = not fresh and self.settings.why != flashfs.MISSING
        self._opened = True
        seq = self.logfile.seq
        for e in self.journal.entries:
            seq = max(seq, e.last)
        self._seq = seq + 1
        if bad:  # a commit: the settings are known by now
            self.report(config.LOG_FILE, "%d bad lines" % bad, "log damaged")
        return True

    def _ready(self, step=False):
        """Before a write: a fresh device's folders, then its settings.json (the defaults),
        made (the boot writes none: its first frame waits for no erase); step: one of them,
        an idle pass's. -> whether one was made (OSError if the flash refused)."""
        if self._made:
            return False
        fs, sf = self.fs, self.settings
        for name in FOLDERS:
            try:
                fs.stat(self.root + name[:-1])
            except OSError:
                fs.mkdir(self.root + name[:-1])
                if step:
                    return True
        if flashfs.size(fs, sf.path):
            step = False  # nothing left to make
        elif not sf.write(sf.j):
            raise OSError(5)
        self._made = True
        return step

    def _stop_reading(self):
        if self._reading is not None:  # (open_action's)
            self._reading.close()
            self._reading = None

    def _on(self, hold):
        """The journal's records or settings moved on, a step (hold) or a batch: -> work?"""
        return (self.logfile.move(self.journal, hold)
                or self.settings.checkpoint(self.journal.entries))


# -- what the log takes: room kept for the action in progress whatever a player repeats -------
# A run of records alike but for their "ms" costs one {"ev": "repeat", "x": N} line per
# config.LOG_REPEATS; over the soft limit (config.LOG_RESERVE, kept for an action to its end,
# and a quarter more) only KEPT records are written, the others counted ({"ev": "dropped",
# "n": N} once there is room); a log that cannot hold a new action to its end refuses new
# actions (room_for_action), never an action's own records or its end.
PLAY = ("start", "draw", "redraw", "accept", "referee", "stop", "end", "helper_leaves",
        "adjust", "undo", "chain")  # play's records: never merged as repeats (replayed each)
# written even over the soft limit: play, the bench's powers (bench mode, a seeded draw), damage
# found at boot; not the lock's (refused tries never take the action's room)
KEPT = PLAY + ("bench", "seed", "damage")


class Room:
    def __init__(self, reserve, log, journal):
        self.reserve = reserve  # bytes kept free for an action to its end
        self.log = log          # logfile.LogFile
        self.journal = journal  # journal.Journal: what it holds for the log is counted
        self.entry = -1         # the journal's next entry and the log's seq when the figure
        self.seq = -1           # was worked out (compared, not a tuple: asked every pass)
        self.room = 0
        self.same = None        # the last record written: repeats of it are only counted
        self.repeats = 0
        self.repeat_ms = None
        self.dropped = 0        # records only counted: over the soft limit, or a full queue
        self.no_room = False    # room_for_action() said no: until an ack or a boot

    def for_action(self):
        """Whether the log can hold a new action to its end; once not, not until forget() or
        a boot (the journal's records count at their largest: the figure would flicker)."""
        if not self.no_room:
            self.no_room = self.figure() < self.reserve
        return not self.no_room

    def forget(self):  # an export acknowledged (nothing else frees room): worked out anew
        self.no_room = False
        self.seq = -1

    def figure(self):
        """Bytes the log can still take less the journal's records (200 each, at most):
        asked every pass at set-up, worked out anew when an entry or a move was made."""
        if self.entry != self.journal.next or self.seq != self.log.seq:
            self.entry, self.seq = self.journal.next, self.log.seq
            self.room = self.log.free() - 200 * self.journal.waiting(self.log.seq)
        return self.room

    def merged(self, records):
        """A pass's records as the log takes them (repeats, and records not KEPT over the
        soft limit, counted): the caller's list when none was (a draw's pass allocates none)."""
        if not self.repeats and not self.dropped:
            for record in records:
                if record.get("ev") not in PLAY:
                    break
            else:  # records of play only: nothing to count, all kept
                self.same = None
                return records
        out = []
        for record in records:
            if record.get("ev") not in PLAY and _alike(record, self.same):
                self.repeats += 1
                self.repeat_ms = record.get("ms")
                if self.repeats >= config.LOG_REPEATS:
                    self._put(out, self._repeat())
                continue
            if self.repeats:
                self._put(out, self._repeat())
            self.same = record  # never changed after it is logged (the log seals a copy)
            self._put(out, record)
        return out

    def _put(self, out, record):
        """One record (or a repeat line: as the record it repeats) out, or counted."""
        kept = (self.same if record.get("ev") == "repeat" else record).get("ev") in KEPT
        if self.dropped or not kept:  # over the soft limit? (figure() is worked out once)
            over = self.figure() < self.reserve + self.reserve // 4
            if over and not kept:
                self.dropped += record["x"] if record.get("ev") == "repeat" else 1
                return
            if self.dropped and not over:
                out.append({"ev": "dropped", "n": self.dropped})
                self.dropped = 0
        out.append(record)

    def _repeat(self):
        r = {"ev": "repeat", "x": self.repeats}
        if self.repeat_ms is not None:
            r["ms"] = self.repeat_ms
        self.repeats = 0
        return r


def _alike(record, other):
    """Whether two records are the same but for their "ms" (no copy of either is made)."""
    if other is None or len(record) - ("ms" in record) != len(other) - ("ms" in other):
        return False
    for name in record:
        if name != "ms" and (name not in other or record[name] != other[name]):
            return False
    return True
