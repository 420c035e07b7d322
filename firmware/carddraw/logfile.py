# The action log's segments on flash: log/log.NNNNNN.jsonl (NNNNNN: the seq of the segment's
# first record), one sealed JSON line per record (logline.seal: its seq and a hash chained to
# the record before, so an edited, removed or inserted record shows in the export), up to
# `limit` bytes in all. Pure file I/O: writing, sealing and room here, reading in logread.py.
# The store appends records here in idle passes (an append costs a sector erase on
# littlefs), from the journal that holds them meanwhile.
#
# History is never dropped before it was exported: the oldest segment is removed only when
# every record in it is at or below the seq the bench acknowledged (config.LOG_EXPORTED_FILE).
#
# Power-cut invariants of the appends that idle passes make a step at a time (each step one
# change to the filesystem: an erase and a metadata compaction in one pass would pass 100 ms):
# - an append's lines are written in one step and its file closed in the next (finish): until
#   the close, littlefs holds the segment as it was, and so does this object (seq, prev and
#   the sizes move on only at the close), while the journal still holds the records: a cut
#   between the two loses nothing, and the next boot moves them again;
# - a new segment is made empty in a step of its own, named by the seq of the record it will
#   hold first: a cut leaves an empty newest segment, which holds no record, and the next
#   append goes into it (one named for other records is removed first).
# test_store_cuts.py cuts the power at every program and erase of them, in three ways.
from carddraw import config
from carddraw import logread
from carddraw.flashfs import block_room, read_json, size as file_size
from carddraw.logline import LINE_MAX, SEGMENT, line_hash, older, seal

# Records an append seals at most (move): sealing one (its JSON and hash) is a few ms on the
# chip, in an idle step beside its 45 ms erase; a backlog goes over several steps.
HOLD_MOST = 4


def segment(first):
    """A segment's path in the store's folder."""
    return config.LOG_DIR + SEGMENT % first


def segment_seq(name):
    """The seq of a segment's first record from its file name, or None for another file."""
    if name.startswith("log.") and name.endswith(".jsonl"):
        digits = name[4:-6]
        if len(digits) >= 6 and all("0" <= c <= "9" for c in digits):
            return int(digits)
    return None


class Held:
    """An append whose lines are written and whose file is not closed yet (finish())."""

    def __init__(self, f, size, seq, prev):
        self.file = f
        self.size = size  # bytes written
        self.seq = seq    # the last record's seq and hash, once closed
        self.prev = prev


class LogFile:
    def __init__(self, store, limit, segment):
        self.store = store     # for its filesystem, its folder and its notices
        self.limit = limit
        self.segment = segment
        # the first seq of each segment, oldest first: limit / (segment - LINE_MAX) + 1 of
        # them at most (a new one starts only when the newest cannot take the next line)
        self.segs = []
        self.sizes = {}        # bytes in each segment, by its first seq
        self.total = 0         # bytes in all segments
        self.cur = 0           # bytes in the newest segment
        self.seq = 0           # the last record's seq (0: none yet)
        self.prev = ""         # the last record's hash ("" before the first record ever)
        self.torn = False      # the newest segment ends in a torn line (not on littlefs)
        self.exported = 0      # the highest seq the bench acknowledged as saved
        self.full = False      # no room without dropping history not yet exported
        self.held = None       # Held: an append written and not closed yet
        self.reported = 0      # damaged lines the store last reported (once per new count)

    def _path(self, first):
        return self.store.root + segment(first)

    def open(self):
        """Learn the segments, the last seq and hash (OSError on a flash error)."""
        fs = self.store.fs
        names = fs.listdir(self.store.root + config.LOG_DIR)
        self.segs = sorted([s for s in [segment_seq(n) for n in names] if s is not None])
        self.sizes, self.total, self.cur, self.seq, self.prev = {}, 0, 0, 0, ""  # afresh
        for first in self.segs:
            self.cur = self.sizes[first] = file_size(fs, self._path(first))
            self.total += self.cur
        exported = read_json(fs, self.store.root + config.LOG_EXPORTED_FILE, 32)[0]
        self.exported = exported if type(exported) is int else 0
        for first in reversed(self.segs):
            if self._find_last(first):
                return
        if self.segs:  # nothing whole anywhere: go on after the newest segment's name
            self.seq = self.segs[-1] - 1

    def _find_last(self, first):
        """The last whole record's seq and hash in a segment: from its tail (2 lines' worth),
        or, when damage fills the tail, from the whole of it. -> whether it holds one."""
        path = self._path(first)
        size = self.sizes[first]
        if first == self.segs[-1] and size:
            self.torn = not self._ends_line(path, size)
        start = max(0, size - 2 * LINE_MAX)
        for at in (start, 0) if start else (0,):
            found = None
            tail = []  # from `start`: 2 lines' worth, read newest first (one parse, as a rule)
            for line, _ in logread.lines(self.store.fs, path, max(0, at - 1),
                                         self.limit + LINE_MAX):
                if at:
                    tail.append(line)
                else:  # the whole segment, the tail being damage: streamed
                    found = _sealed(line) or found
            for line in reversed(tail[1:]):  # the first read from `at` may be a line's tail
                found = _sealed(line)
                if found:
                    break
            if found is not None:
                self.seq, self.prev = found
                return True
        return False

    def _ends_line(self, path, size):
        try:
            f = self.store.fs.open(path, "rb")
        except OSError:
            return True
        try:
            f.seek(size - 1)
            return f.read(1) == b"\n"
        finally:
            f.close()

    # -- writing ------------------------------------------------------------------------------
    def move(self, journal, hold=False):
        """The journal's records into the log: an append left open closed, or the next
        records (HOLD_MOST at most, up to a gap) written: one step of it (hold: an idle
        pass's), or written and closed (flush and the catch-up call it till it says False).
        The log's seqs are the journal's, so a record moved twice (a cut before the close) is
        written once. -> whether there was work (OSError on a flash error)."""
        if self.finish():
            journal.let_go(self.seq)
            return True
        batch = []
        first = 0
        read = journal.records_after(self.seq)
        try:
            for seq, r in read:
                if not batch:
                    first = seq
                elif seq != first + len(batch):
                    break  # records lost before these (a gap): the next step
                batch.append(r)
                if len(batch) >= HOLD_MOST:
                    break
        finally:
            read.close()
        if not batch:
            return False
        moved = self.append(batch, first, hold)
        journal.let_go(self.seq)
        return moved

    def append(self, records, first, hold=False):
        """Seal and write `records` (dicts), numbered from `first` (the next seq after
        self.seq; a later one leaves a gap: records lost before these). hold (an idle
        step): one change to the filesystem, an erase at most: an exported segment dropped
        for room, or a new segment made, or the lines that fit the newest segment's current
        block written and left open for finish() to close in the next step. Else all of them
        written and closed now. -> True if a step was taken; False when the log is full of
        records not exported yet. OSError on a flash error (what was closed before stays)."""
        worked = False
        done = 0
        while done < len(records):
            step = self._step(records, done, first, hold)
            if step is None:
                return worked
            worked = True
            if hold:
                return True
            if self.held is not None:
                self.finish()
            done += step
        return worked

    def _step(self, records, done, first, hold):
        """-> how many records the lines written hold (0: a step that wrote none), None if
        the log is full."""
        before = first + done - 1  # the seq the next line follows
        line, h = seal(before + 1, self.prev, records[done])
        if not self.segs or self.cur and self.cur + self.torn + len(line) > self.segment:
            went = self._room(len(line), True, hold)
            if went is not None:
                return 0 if went else None
            self.store.fs.open(self._path(before + 1), "ab").close()  # see the invariants
            self.segs.append(before + 1)
            self.sizes[before + 1] = self.cur = 0
            self.torn = False
            if hold:
                return 0
        elif not self.cur and self.segs[-1] != before + 1:
            self.store.fs.remove(self._path(self.segs[-1]))  # empty, named for other records
            self.sizes.pop(self.segs.pop())
            self.cur = self.sizes[self.segs[-1]] if self.segs else 0
            return 0
        lines, size, seq, prev = self._seal(records, done, before, line, h)
        went = self._room(size, False, hold)
        if went is not None:
            return 0 if went else None
        count = len(lines)
        if not count:  # not even a line fits the block: it is filled with blank lines (which
            lines = [b"\n" * size]  # readers skip), and the next append starts a fresh
            seq, prev = self.seq, self.prev  # one, with no copy of a last block
        elif self.torn:
            lines.insert(0, b"\n")  # size counts it
        f = None
        try:
            f = self.store.fs.open(self._path(self.segs[-1]), "ab")
            for text in lines:  # a line at a time: no block of them all in RAM
                f.write(text)
        except OSError:
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
            self._resized()
            raise
        self.held = Held(f, size, seq, prev)
        return count

    def _seal(self, records, done, before, line, h):
        """The lines of records[done:] (the first already sealed: line, h) that go into the
        newest segment within its current block (a write within one block: one erase).
        -> (lines, bytes, last seq, last hash); no lines when not even one fits the block:
        bytes is then the block's room, to fill with blank lines."""
        lines = []
        size = 1 if self.torn else 0  # a torn last line (not littlefs) stays apart
        seq, prev = before, self.prev
        room = block_room(self.cur)
        while True:
            if lines and self.cur + size + len(line) > self.segment:
                break  # the rest go into a new segment
            if size + len(line) > room:
                break  # the rest after this block is full: the next append
            lines.append(line)
            size += len(line)
            seq, prev = seq + 1, h
            if done + len(lines) >= len(records):
                break
            line, h = seal(seq + 1, prev, records[done + len(lines)])
        if not lines:
            size = room
        return lines, size, seq, prev

    def finish(self):
        """Close the segment an append(hold=True) left open: its lines committed, the log's
        seq, hash and sizes moved on. -> whether there was one (OSError if the flash refused:
        its lines did not go)."""
        held = self.held
        if held is None:
            return False
        self.held = None
        try:
            held.file.close()
        except OSError:
            self._resized()
            raise
        self.cur += held.size
        self.sizes[self.segs[-1]] = self.cur
        self.total += held.size
        self.seq, self.prev = held.seq, held.prev
        self.torn = False
        return True

    def _resized(self):
        """After a write the flash refused: the newest segment as flash holds it (a part
        committed all the same ends in a torn line, kept apart from the next record)."""
        first = self.segs[-1]
        now = file_size(self.store.fs, self._path(first))
        if now != self.sizes[first]:
            self.total += now - self.sizes[first]
            self.sizes[first] = self.cur = now
            self.torn = not self._ends_line(self._path(first), now)

    def _room(self, size, new, hold):
        """Room for `size` bytes more, dropping only segments already exported, oldest first
        (the newest only when a new one starts). -> None when there is room; True when a
        segment went and the step is over (hold: a removal may compact the folder, an
        erase); False when the log is full."""
        while self.total + size > self.limit:
            segs = self.segs
            if not segs or len(segs) == 1 and not new:
                return self._full()
            if (segs[1] - 1 if len(segs) > 1 else self.seq) > self.exported:
                return self._full()
            self.store.fs.remove(self._path(segs[0]))
            self.total -= self.sizes.pop(segs.pop(0))
            if not segs:
                self.cur = 0
            if hold:
                return True
        self.full = False
        return None

    def _full(self):
        if not self.full:
            self.full = True
            self.store.notice("log full: export")
        return False

    def free(self):
        """Bytes the log can still take, counting segments that may go (exported)."""
        gone = 0
        for i in range(len(self.segs)):
            last = self.segs[i + 1] - 1 if i + 1 < len(self.segs) else self.seq
            if last > self.exported:
                break
            gone += self.sizes[self.segs[i]]
        return self.limit - self.total + gone

    # -- reading ------------------------------------------------------------------------------
    def files(self):
        """The log's files, oldest first (an older firmware's only while its migration
        cannot be done: a flash that refuses writes)."""
        fs, root = self.store.fs, self.store.root
        return [n for n in (older(config.LOG_FILE), config.LOG_FILE)
                if file_size(fs, root + n)] + [segment(first) for first in self.segs]

    def last_start(self):
        """(segment, byte offset) of the line of the log's last start record: where the
        action the log shows last begins (None: there is none)."""
        for first in reversed(self.segs):
            at = logread.last_start(self.store.fs, self._path(first), self.sizes[first])
            if at is not None:
                return first, at
        return None

    def records_from(self, first, offset):
        """Every record from the line at byte `offset` of segment `first` to the log's end,
        without "seq" and "h": a generator (close() it when stopping early)."""
        for seg in self.segs:
            if seg >= first:
                read = logread.records(self.store.fs, self._path(seg),
                                       offset if seg == first else 0)
                try:
                    for r in read:
                        yield r
                finally:
                    read.close()

    def hash_of(self, seq):
        """The hash on flash of record `seq`, or None. Only the line holding it is decoded
        (`log ack` runs in one pass)."""
        if seq == self.seq and self.segs:
            return self.prev  # the newest record, as a fresh export's last usually is
        first = 0
        for s in self.segs:
            if s <= seq:
                first = s
        if not first:
            return None
        key = b'"seq":%d,' % seq  # never the last key: "h" is
        read = logread.lines(self.store.fs, self._path(first))
        try:
            for line, _ in read:
                if line is not None and key in line and line.endswith(b"\n"):
                    return line_hash(line.decode().strip())
        except UnicodeError:
            return None
        finally:
            read.close()
        return None


def _sealed(line):
    """A log line's (seq, hash), or None if it is not a whole sealed record."""
    r = logread.record(line)
    if r is None or type(r.get("seq")) is not int:
        return None
    h = line_hash(line.decode().strip())
    return (r["seq"], h) if h else None
