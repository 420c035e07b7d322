# What the device keeps on flash: the settings, the action log and the play's hint, so that a
# power cut loses nothing that was shown. Pure file I/O: no machine, no time.
#
# A loop pass commits what it changed (its log records, the settings that changed, the play's
# hint) as one journal entry (journal.py) before it shows anything: one page program, no erase,
# on littlefs. Idle passes (housekeep) then move the journal's records into the log's
# segments (logfile.py) and its settings into settings.json, one step a pass, an erase at most.
# The action in play is never saved as such: the log is its record, and after a power cut the
# open action is played again from its records (play.Play.replay), with the newest hint.
#
# Everything read back is untrusted: a short, corrupt or huge file gives defaults and a short
# notice for the screen, and the details go to the log as {"ev": "damage", ...}. Nothing here
# raises on a flash error: it says "flash error" on screen and the pass is tried again.
# Repeats and records over the log's soft limit are only counted (_merged).

from carddraw import config, settings as known
from carddraw.flashfs import MISSING, Files, OsFs, folder, json_bytes
from carddraw.journal import Journal
from carddraw.logfile import LogFile

NOTICES_MAX = 8      # notices waiting for the screen
SETTINGS_MAX = 4096  # bytes read at most from the settings file
KEPT = ("start", "draw", "redraw", "accept", "referee", "stop", "end", "helper_leaves",
        "adjust", "undo", "chain", "lock", "bench", "seed", "damage")  # logged even over the
# soft limit: play, the referee's and the bench's powers, and what was found damaged at boot


class Store:
    def __init__(self, root="", fs=None, log_limit=None, segment=None):
        self.root = root
        self.fs = fs or OsFs()
        self.files = Files(self.fs, root)
        limit = log_limit or config.LOG_LIMIT
        # at least 4 segments in the limit, so dropping the oldest frees at most a quarter
        self.logfile = LogFile(self, limit, min(segment or config.LOG_SEGMENT, limit // 4))
        self.reserve = min(config.LOG_RESERVE, limit // 4)
        self.journal = Journal(self.fs, root)
        self._notices = []     # short texts for the screen (take_notices)
        self._opened = False
        self._seq = 1          # the next record's seq
        self._settings = None  # the settings as flash holds them (settings.json + journal)
        self._settings_j = 0   # the journal entry settings.json holds the settings of
        self._damage = None, []  # settings.json: why it is unreadable, its bad fields
        self._hint = ""        # the play's hint as flash holds it
        self._same = None      # the last record: repeats of it (but for "ms") are only counted
        self._repeats = 0
        self._repeat_ms = None
        self._dropped = 0      # records only counted: the log over its soft limit
        self._no_room = False  # room_for_action() said no: until an ack or a boot
        self._room_key = [0, -1, 0]  # the seqs _room() last worked out for, and its figure
        self._retry = []       # records a refusing flash did not take yet
        self._log_bad = 0      # damaged log lines last reported
        self._tidy = False     # housekeep() found nothing to do since the last entry
        self._settings_out = None  # (journal entry, open file, text): a checkpoint half made

    # -- boot -----------------------------------------------------------------------------------
    def load_settings(self):
        """-> (settings dict with every key of config.defaults(), notice or None): the file,
        then the changes the journal holds after it (_open). Damage is reported only once
        they are known: a report is a commit, which may bring settings.json up to date."""
        if self._open():
            s = dict(self._settings)
            why, bad = self._damage
        else:  # a flash error: the file alone
            s, _, why, bad = self._file_settings()
        self._damage = None, []
        notice = None
        if bad:
            notice = self.report(config.SETTINGS_FILE, "bad " + ",".join(bad), "settings fixed")
        elif why is not None and why != MISSING:  # a fresh device has none
            notice = self.report(config.SETTINGS_FILE, why, "settings reset")
        if (notice or why == MISSING) and self._settings is not None:
            self._write_settings()  # repaired on flash, so the notice comes once; made on a
        return s, notice            # fresh device, so an idle pass only ever rewrites it

    def _file_settings(self):
        """settings.json read and checked -> (settings, the journal entry whose settings it
        holds, why it is unreadable or None, its bad fields)."""
        data, why = self.files.read_json(config.SETTINGS_FILE, SETTINGS_MAX)
        if why is None and not isinstance(data, dict):
            why = "not an object"
        if why is not None:
            return config.defaults(), 0, why, []
        s, bad = known.check(data)  # the controller uses the same check
        return s, data.get("j") if type(data.get("j")) is int else 0, None, bad

    def save_settings(self, settings):
        """The settings written whole to settings.json now (a bench or a test preparing a
        device; the device's own changes go through commit). -> True once on flash."""
        self._open()
        self._settings = dict(settings)
        self._settings_j = self.journal.next - 1  # newer than every change the journal holds
        self._tidy = False  # a journal folder may be done with now
        self._damage = None, []
        return self._write_settings()

    def open_action(self):
        """-> (the records of the log's last action, from its start record, or None; the
        play's hint as flash holds it, which says whether that action is still on show)."""
        if not self.flush():
            return None, ""
        found = self.logfile.last_start()
        if found is None:
            return None, self._hint
        records = []
        self.logfile.records_from(found[0], found[1], records.append)
        return records, self._hint

    # -- a pass: what it changed, on flash before it is shown -------------------------------------
    def commit(self, records, settings=None, hint=None):
        """One journal entry for what a pass changed: its records, the settings that differ
        from flash's (settings: the whole dict, or None), the play's hint. -> True once it is
        on flash (or nothing changed), False on a flash error (tried again next pass)."""
        if not records and not self._retry and settings is None and self._opened \
                and (hint is None or hint == self._hint):
            return True  # a quiet pass: nothing to write, nothing allocated
        opened = self._opened or self._open()
        records = self._merged(records) if records else []  # never the caller's empty list
        if self._retry:
            records = self._retry + records
        self._retry = records  # until they are on flash
        if not opened:
            return self._refused()
        hint = self._hint if hint is None else hint
        changed = None
        if settings is not None:
            changed = {}
            for name in settings:
                if self._settings.get(name) != settings[name]:
                    changed[name] = settings[name]
        if not records and not changed and hint == self._hint:
            return True
        try:
            if self.journal.out_of_slots():
                self._catch_up()
            self.journal.write(self._seq, hint, changed, records)
            self._tidy = False
        except OSError as e:
            self.flash_error(e)
            return self._refused()
        self._seq += len(records)
        if changed:
            self._settings.update(changed)
        self._hint = hint
        self._retry = []
        return True

    def _refused(self):
        """The flash refused a pass: its records wait for the next, at most LOG_QUEUE of them,
        the first (an action's start among them): the rest are counted, logged as
        {"ev": "dropped", "n": N} with the next record once there is room. -> False."""
        for r in self._retry[config.LOG_QUEUE:]:
            self._dropped += r["n"] if r.get("ev") == "dropped" else 1
        del self._retry[config.LOG_QUEUE:]
        return False

    def waiting(self):
        """Records a refusing flash still holds back (commit tries them again)."""
        return len(self._retry)

    def log(self, record):
        """One record on flash now, outside a pass's commit (boot's damage, the self-test).
        -> True once it is on flash."""
        return self.commit([record])

    def housekeep(self):
        """One step of the idle passes' work, an erase at most: the next journal slot opened,
        the journal's records into the log's segments, its settings into settings.json, the
        next journal folder made ready, a used one dropped. -> True if there was work."""
        if self._tidy or not self._open():
            return False
        try:
            if self.journal.open_next():  # no change to the filesystem, CPU only: and so is
                self._move_records(True, True)  # sealing the next lines for the log
                work = True
            else:
                work = (self._move_records(True) or self._checkpoint(True)
                        or self.journal.prepare() or self.journal.drop(self._kept))
        except OSError as e:
            self.flash_error(e)
            return False
        self._tidy = not work  # until the next journal entry: nothing to look at (and no RAM)
        return work

    def moving(self):
        """Whether housekeep() still has journal records to move into the log (the export
        waits for them): not once it found nothing it could do (a log full of records not
        exported yet takes no more)."""
        return self.logfile.held is not None or (not self._tidy and bool(self._waiting()))

    def _catch_up(self):
        """The idle passes' work done now: passes that all answered presses (no idle pass
        between them) used every journal slot. Costs erases, in this pass only."""
        while self._move_records() or self._checkpoint() or self.journal.drop(self._kept):
            pass
        while self.journal.prepare():
            pass

    def flush(self):
        """The journal's records and settings moved on at once (for the export, the bench, a
        reading of the log). -> True when nothing waits."""
        if not self._open():
            return False
        try:
            while self._move_records() or self._checkpoint():
                pass
        except OSError as e:
            self.flash_error(e)
            return False
        return not self._waiting()

    def room_for_action(self):
        """Whether the log can hold a new action to its end (config.LOG_RESERVE free). Once
        not, not until the bench acknowledges an export (the only thing that frees room) or
        a boot counts afresh: the journal's records are counted at their largest while they
        wait, so the figure would otherwise flicker as idle passes move them on."""
        if self._no_room or not self._open():  # a flash error: said, tried again next pass
            return False
        self._no_room = self._room() < self.reserve
        return not self._no_room

    def _room(self):
        """Bytes the log can still take less what the journal holds for it (counted at its
        largest): asked every pass at set-up and by every commit, worked out anew only when
        records were written or moved (or an export acknowledged)."""
        key = self._room_key
        if key[0] != self._seq or key[1] != self.logfile.seq:
            key[0], key[1] = self._seq, self.logfile.seq
            key[2] = self.logfile.free() - self._waiting_bytes()
        return key[2]

    # -- the log, read back ------------------------------------------------------------------------
    def read_log(self, each=None, raw=False):
        """-> (records, damaged): every record, oldest first, reading line by line; damaged
        counts the lines skipped. Records come without "seq" and "h"; with raw, each line's
        text as on flash instead (for the export). With each(record) given, records are
        handed to it one by one instead of collected: less RAM."""
        self.flush()
        records = []  # type: list
        bad = self.logfile.read(each or records.append, raw)
        if bad and bad != self._log_bad:  # once per new count, not at every read
            self._log_bad = bad
            self.report(config.LOG_FILE, "%d bad lines" % bad, "log damaged")
        return records, bad

    def last(self):
        """-> (seq, hash) of the last record in the log: (0, "") for none."""
        self.flush()
        return self.logfile.seq, self.logfile.prev

    def exported(self):
        """The highest seq the bench acknowledged as saved (`log ack`)."""
        self._open()
        return self.logfile.exported

    def ack(self, seq, h):
        """The bench saved the log up to record `seq`, whose hash is `h`: segments holding
        only saved records may go when room is needed. -> None, or why not."""
        if not self.flush() and not self.logfile.full:
            return "flash error"
        log = self.logfile
        if not 0 < seq <= log.seq:
            return "no record %d: the log holds records 1 to %d" % (seq, log.seq)
        if seq > log.exported:
            if log.hash_of(seq) != h:
                return "record %d's hash is not %s: export the log again" % (seq, h)
            if not self._write(config.LOG_EXPORTED_FILE, seq):
                return "flash error"
            log.exported = seq
        self._no_room = False
        self._room_key[1] = -1  # the export frees room: worked out anew
        self._tidy = False
        self.flush()  # records waiting for room go now
        return None

    # -- notices, damage, flags ------------------------------------------------------------------
    def notice(self, text):
        if len(self._notices) < NOTICES_MAX and (not self._notices or self._notices[-1] != text):
            self._notices.append(text)
        return text

    def take_notices(self):
        """-> the notices queued (an empty list is the store's own: read, never changed)."""
        notices = self._notices
        if notices:
            self._notices = []
        return notices

    def report(self, file, why, notice):
        """Damage found: keep the short notice (for a 16-character line), log the details."""
        self.notice(notice)
        self.log({"ev": "damage", "file": file, "why": why})
        return notice

    def flash_error(self, e):
        # not logged now: the log is on the same flash that just failed (tried again)
        self.notice("flash error")

    def set_flag(self, name, on):
        """A one-shot flag file (main.py's maintenance boot): written or removed. -> done."""
        return self.files.flag(name, on)

    # -- inside ------------------------------------------------------------------------------------
    def _open(self):
        """The log and the journal read (once), the journal's records moved into the log.
        -> False on a flash error (tried again at the next call)."""
        if self._opened:
            return True
        self.journal.settle()
        try:
            names = self.fs.listdir(self.root)
            self._state(names)
            bad = self.logfile.open(names)
            bad += self.journal.read(names)
        except OSError as e:
            self.flash_error(e)
            return False
        self._opened = True
        self._seq = self.logfile.seq + 1
        for number, _, head, records in self.journal.entries:
            self._seq = max(self._seq, head["q"] + head["n"])
        if self.journal.entries:
            self._hint = self.journal.hint()
        if self._settings is None:  # what flash holds: settings.json, the journal's changes
            s, self._settings_j, why, bad_fields = self._file_settings()
            self._damage = why, bad_fields  # for load_settings to report
            for entry in self.journal.entries:
                if entry[0] > self._settings_j and isinstance(entry[2].get("s"), dict):
                    s.update(entry[2]["s"])
            self._settings = known.check(s)[0]
        if bad:  # a commit: the settings are known by now
            self.report(config.LOG_FILE, "%d bad lines" % bad, "log damaged")
        return True

    def _state(self, top):
        """The folder of the files rewritten whole (config.STATE_DIR) made, and an older
        firmware's moved in from the store's folder (`top`, its listing): settings.json and
        log.exported, each by one rename (a cut leaves it in one place or the other: settle
        finished a rename left half done), replacing this folder's: found there, it was
        written by an older firmware run since. A write that a cut left as a .tmp file goes
        (the old file is whole), and so does an older firmware's saved action."""
        state = self.root + config.STATE_DIR
        folder(self.fs, state[:-1], top)
        gone = [config.ACTION_FILE, config.ACTION_FILE + ".tmp"]
        for name in (config.SETTINGS_FILE, config.LOG_EXPORTED_FILE):
            old = name[len(config.STATE_DIR):]
            if old in top:
                self.fs.rename(self.root + old, self.root + name)
            gone.append(old + ".tmp")
        for name in gone:
            if name in top:
                self.fs.remove(self.root + name)
        for name in self.fs.listdir(state):
            if name.endswith(".tmp"):
                self.fs.remove(state + name)

    def _merged(self, records):
        """A pass's records with repeats counted and, over the soft limit, others dropped: a
        run of records identical but for "ms" costs one {"ev": "repeat", "x": N} line per
        config.LOG_REPEATS; over the soft limit (config.LOG_RESERVE kept for an action to its
        end, and a quarter more) records not in KEPT are counted, logged as {"ev": "dropped",
        "n": N} once there is room: only play fills the log to where no action may start."""
        if not self._repeats and not self._dropped:
            for record in records:
                if type(record) is not list:
                    break
            else:  # records of play only (a draw's pass): nothing to count, all kept
                self._same = None
                return records
        out = []
        over = None  # worked out when a record asks (a draw's are all KEPT: it never does)
        for record in records:
            packed = type(record) is list  # a record of play: never a repeat, always kept
            if not packed and self._same is not None and _alike(record, self._same):
                self._repeats += 1
                self._repeat_ms = record.get("ms")
                if self._repeats >= config.LOG_REPEATS:
                    out.append(self._repeat())
                continue
            if self._repeats:
                out.append(self._repeat())
            # never changed after it is logged (the log seals a copy)
            self._same = None if packed else record
            kept = packed or record.get("ev") in KEPT
            if over is None and (self._dropped or not kept):
                over = self._room() < self.reserve + self.reserve // 4
            if over and not kept:
                self._dropped += 1
                continue
            if self._dropped and not over:
                out.append({"ev": "dropped", "n": self._dropped})
                self._dropped = 0
            out.append(record)
        return out

    def _repeat(self):
        r = {"ev": "repeat", "x": self._repeats}
        if self._repeat_ms is not None:
            r["ms"] = self._repeat_ms
        self._repeats = 0
        return r

    def _waiting(self):
        """The journal's records not yet in the log: [(entry, how many are in already)]."""
        done = self.logfile.seq
        return [(e, max(0, done - e[2]["q"] + 1)) for e in self.journal.entries
                if e[2]["q"] + e[2]["n"] - 1 > done]

    def _waiting_bytes(self):
        return sum(200 * (e[2]["n"] - skip) for e, skip in self._waiting())

    def _move_records(self, hold=False, seal=False):
        """Every record waiting in the journal into the log's segments, in one append. The
        log's seqs are the journal's, so none is written twice: the seqs of an entry lost to
        damage are each filled with {"ev": "lost"} (the chain holds, and says so), or left out
        if there are more than LOG_QUEUE of them. hold (the idle passes): one file operation
        at most, the append's close left to the next call (logfile.LogFile.append). seal:
        the next lines sealed, nothing written (beside a journal slot's opening)."""
        log = self.logfile
        if log.held is not None:
            if seal:
                return False
            log.finish()
            self._let_go()
            return True
        waiting = self._waiting()
        if not waiting:
            return False
        first = waiting[0][0][2]["q"] + waiting[0][1]
        lost = first - self.logfile.seq - 1
        records = [{"ev": "lost"}] * lost if 0 < lost <= config.LOG_QUEUE else []
        first -= len(records)
        for entry, skip in waiting:
            if entry[2]["q"] + skip != first + len(records):
                break  # records lost before this entry too: the next move
            records += entry[3][skip:]  # packed ones too: the log unpacks what it seals
        if not records:
            return False
        if seal:
            return log.seal_ahead(records, first)
        segments = len(log.segs)
        if not log.append(records, first, hold) and log.held is None \
                and log.sealed is None and len(log.segs) == segments:
            return False  # the log is full of records not exported yet
        self._let_go()
        return True

    def _let_go(self):
        """The journal's records the log holds now: RAM lets them go."""
        for entry in self.journal.entries:
            if entry[2]["q"] + entry[2]["n"] - 1 <= self.logfile.seq:
                del entry[3][:]

    def _checkpoint(self, hold=False):
        """settings.json brought up to the journal's newest settings, if it is behind. hold
        (an idle pass's step): in two steps, the file opened and its text made (no change to
        the filesystem: path lookups and JSON, CPU only), then written and closed (the
        commit, and its data block's erase), so that no step pays both."""
        if self._finish_checkpoint():
            return True
        newest = 0
        for number, _, head, _ in self.journal.entries:
            if "s" in head and number > self._settings_j:
                newest = number
        if not newest:
            return False
        if hold and self.files.size(config.SETTINGS_FILE):  # rewritten in place: "wb"
            try:                                             # commits nothing before the
                f = self.fs.open(self.root + config.SETTINGS_FILE, "wb")  # close (its
            except OSError:                                  # truncation too)
                self.flash_error(None)
                return True
            self._settings_out = (newest, f, json_bytes(self._settings_as(newest)))
        elif self._write_settings(newest):
            self._settings_j = newest
        return True

    def _finish_checkpoint(self):
        """The checkpoint's second step, if one is half made: its text written, the file
        closed. Never closed without its text: "wb" would commit an empty file. -> whether
        there was one (a flash error is reported, and the next checkpoint writes it again)."""
        out = self._settings_out
        if out is None:
            return False
        self._settings_out = None
        f = out[1]
        try:
            try:
                f.write(out[2])
            finally:
                f.close()
            self._settings_j = out[0]
        except OSError:
            self.flash_error(None)
        return True

    def _settings_as(self, j):
        """settings.json's contents: the settings, and the journal entry they are as of."""
        s = dict(self._settings)
        s["j"] = j
        return s

    def _write_settings(self, j=None):
        self._finish_checkpoint()  # a checkpoint half made: finished first (one open file)
        return self._write(config.SETTINGS_FILE,
                           self._settings_as(self._settings_j if j is None else j))

    def _kept(self, entry):
        """Whether everything in a journal entry is kept elsewhere too."""
        number, _, head, records = entry
        return (head["q"] + head["n"] - 1 <= self.logfile.seq
                and ("s" not in head or number <= self._settings_j))

    def _write(self, name, obj):
        if self.files.write_json(name, obj):
            return True
        self.flash_error(None)
        return False


def _alike(record, other):
    """Whether two records are the same but for their "ms" (no copy of either is made)."""
    if other is None or len(record) - ("ms" in record) != len(other) - ("ms" in other):
        return False
    for name in record:
        if name != "ms" and (name not in other or record[name] != other[name]):
            return False
    return True
