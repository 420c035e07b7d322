# What the log takes, so that it keeps room for the action in progress whatever a player
# repeats: a run of records alike but for their "ms" costs one {"ev": "repeat", "x": N} line
# per config.LOG_REPEATS; over the soft limit (config.LOG_RESERVE kept for an action to its
# end, and a quarter more) only KEPT records are written, the others counted and logged as
# {"ev": "dropped", "n": N} once there is room again; a log that cannot hold a new action to
# its end refuses new actions (room_for_action), never an action's own records or its end.
# Pure: the figures come from the log's and the journal's objects.
from . import config

# play's records: never merged as repeats (the resume plays each again)
PLAY = ("start", "draw", "redraw", "accept", "referee", "stop", "end", "helper_leaves",
        "adjust", "undo", "chain")
# written even over the soft limit: play, the bench's powers (bench mode, a seeded draw), and
# what was found damaged at boot. Not the lock's: refused tries never take the action's room.
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
        """Whether the log can hold a new action to its end. Once not, not until forget()
        (the bench acknowledged an export, the only thing that frees room) or a boot: the
        journal's records are counted at their largest while they wait, so the figure would
        otherwise flicker as idle passes move them on."""
        if not self.no_room:
            self.no_room = self.figure() < self.reserve
        return not self.no_room

    def forget(self):
        """The bench acknowledged an export: room is worked out anew."""
        self.no_room = False
        self.seq = -1

    def figure(self):
        """Bytes the log can still take less what the journal holds for it (200 a record,
        at their largest): asked every pass at set-up, worked out anew only when an entry
        was written or records moved."""
        if self.entry != self.journal.next or self.seq != self.log.seq:
            self.entry, self.seq = self.journal.next, self.log.seq
            self.room = self.log.free() - 200 * self.journal.waiting(self.log.seq)
        return self.room

    def merged(self, records):
        """A pass's records as the log takes them: repeats counted, records not KEPT over
        the soft limit counted. -> the records to write (the caller's list when nothing was
        counted: a draw's pass allocates nothing here)."""
        if not self.repeats and not self.dropped:
            for record in records:
                if record.get("ev") not in PLAY:
                    break
            else:  # records of play only: nothing to count, all kept
                self.same = None
                return records
        out = []
        over = [None]  # worked out when a record asks (play's never do)
        for record in records:
            if record.get("ev") not in PLAY and _alike(record, self.same):
                self.repeats += 1
                self.repeat_ms = record.get("ms")
                if self.repeats >= config.LOG_REPEATS:
                    self._put(out, self._repeat(), over)
                continue
            if self.repeats:
                self._put(out, self._repeat(), over)
            self.same = record  # never changed after it is logged (the log seals a copy)
            self._put(out, record, over)
        return out

    def _put(self, out, record, over):
        """One record (or a repeat line: as the record it repeats) out, or counted."""
        kept = (self.same if record.get("ev") == "repeat" else record).get("ev") in KEPT
        if over[0] is None and (self.dropped or not kept):
            over[0] = self.figure() < self.reserve + self.reserve // 4
        if over[0] and not kept:
            self.dropped += record["x"] if record.get("ev") == "repeat" else 1
            return
        if self.dropped and not over[0]:
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
