# The action log's segments on flash: log/log.NNNNNN.jsonl (NNNNNN: the seq of the segment's
# first record), one sealed JSON line per record (logread.seal: its seq and a hash chained to
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
from . import config, flashfs, logread
from .logread import LINE_MAX

# Records an append seals at most (move): sealing one (its JSON and hash) is a few ms on the
# chip, in an idle step beside its 45 ms erase; a backlog goes over several steps.
HOLD_MOST = 4
OLDER_LOG = "log.1.jsonl"  # the first firmware's rotated log (config.LOG_FILE's older half)
BLOCK = 4096               # littlefs's block on the Pico: the flash's erase sector
TAIL = 512                 # a segment's end read first at boot for its last record


def segment(first):
    """A segment's path in the store's folder."""
    return config.LOG_DIR + "log.%06d.jsonl" % first


def segment_seq(name):
    """The seq of a segment's first record from its file name, or None for another file."""
    if name.startswith("log.") and name.endswith(".jsonl") and len(name) > 15:
        return flashfs.digits(name[4:-6])
    return None


def block_room(size):
    """Bytes a littlefs file of `size` bytes takes before its next write needs a second new
    block. littlefs keeps a file as a skip list of blocks (its CTZ list: block i starts with
    ctz(i) + 1 pointers of 4 bytes); a write to a closed file copies its last block into a
    fresh one (an erase), and a write that runs past that block's end erases another. This
    is littlefs's own arithmetic (lfs_ctz_index), checked against littlefs in the tests."""
    if size == 0:
        return BLOCK
    b = BLOCK - 8
    i = size // b
    off = size
    if i:
        i = (size - 4 * (_ones(i - 1) + 2)) // b
        off = size - b * i - 4 * _ones(i)
    if off < BLOCK:
        return BLOCK - off
    n = i + 1
    return BLOCK - 4 * (_ones((n & -n) - 1) + 1)  # a fresh block: its pointers first


def _ones(n):
    count = 0
    while n:
        n &= n - 1
        count += 1
    return count


class LogFile:
    def __init__(self, fs, root, limit, segment, notice):
        self.fs = fs
        self.root = root
        self.limit = limit
        self.segment = segment
        self.notice = notice   # the store's: "log full: export"
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
        # an append written and not closed yet: {"file", "size" written, and, once closed,
        # the log's "seq" and "prev"}
        self.held = None

    def path(self, first):
        return self.root + segment(first)

    def open(self):
        """Learn the segments, the last seq and hash (OSError on a flash error)."""
        segs = self.segs = []
        sizes = self.sizes = {}
        for e in self.fs.ilistdir(self.root + config.LOG_DIR):
            first = segment_seq(e[0])
            if first is not None:
                segs.append(first)
                # a listing without the size (not littlefs's): a stat
                sizes[first] = e[3] if len(e) > 3 else flashfs.size(self.fs, self.path(first))
        segs.sort()
        self.total, self.seq, self.prev = sum(sizes.values()), 0, ""  # afresh
        self.cur = sizes[segs[-1]] if segs else 0
        exported = flashfs.read_json(self.fs, self.root + config.LOG_EXPORTED_FILE, 32)[0]
        self.exported = exported if type(exported) is int else 0
        for first in reversed(segs):
            if self._find_last(first):
                return
        if segs:  # nothing whole anywhere: go on after the newest segment's name
            self.seq = segs[-1] - 1

    def _find_last(self, first):
        """The last whole record's seq and hash in a segment: from its last TAIL bytes (a
        whole line or more, as a rule), else 2 lines' worth, or, when damage fills that, from
        the whole of it. -> whether it holds one."""
        path = self.path(first)
        size = self.sizes[first]
        newest = first == self.segs[-1] and size
        for at in (size - TAIL, size - 2 * LINE_MAX, 0):
            if at < 0:
                continue  # the segment is shorter: read from further back
            found = end = None
            tail = []  # from `at`, read newest first (one parse, as a rule)
            for line, end in logread.lines(self.fs, path, max(0, at - 1), self.limit + LINE_MAX):
                if at:
                    tail.append(line)
                else:  # the whole segment, the tail being damage: streamed
                    found = _sealed(line) or found
            if newest:  # a whole last line read ends at the size; else the last byte is looked at
                self.torn = end != size and not self._ends_line(path, size)
                newest = False
            for line in reversed(tail[1:]):  # the first read from `at` may be a line's tail
                found = _sealed(line)
                if found:
                    break
            if found:
                self.seq, self.prev = found
                return True
        return False

    def _ends_line(self, path, size):
        try:
            f = self.fs.open(path, "rb")
        except OSError:
            return True
        try:
            f.seek(size - 1)
            return f.read(1) == b"\n"
        finally:
            f.close()

    # -- writing ------------------------------------------------------------------------------
    def move(self, journal, hold):
        """The journal's records into the log: an append left open closed, or the next
        records (HOLD_MOST at most, up to a gap) sealed and written: one step of it (hold: an
        idle pass's: one change to the filesystem, an erase at most: an exported segment
        dropped for room, or a new segment made, or the lines that fit the newest segment's
        current block written and left open for finish() to close in the next step), or all
        of them written and closed (flush and the catch-up call it till it says False). The
        log's seqs are the journal's, so a record moved twice (a cut before the close) is
        written once. -> whether there was work (False when the log is full of records not
        exported yet); OSError on a flash error (what was closed before stays)."""
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
        worked = False
        done = 0  # of the batch: the first of them after self.seq may leave a gap (lost)
        while done < len(batch):
            step = self._step(batch, done, first, hold)
            if step is None:
                break
            worked = True
            if hold:
                break
            self.finish()
            done += step
        journal.let_go(self.seq)
        return worked

    def _step(self, records, done, first, hold):
        """-> how many records the lines written hold (0: a step that wrote none), None if
        the log is full."""
        before = first + done - 1  # the seq the next line follows
        line, h = logread.seal(before + 1, self.prev, records[done])
        if not self.segs or self.cur and self.cur + self.torn + len(line) > self.segment:
            went = self._room(len(line), True, hold)
            if went is not True:
                return went  # a segment went (0), or the log is full (None)
            self.fs.open(self.path(before + 1), "ab").close()  # see the invariants
            self.segs.append(before + 1)
            self.sizes[before + 1] = self.cur = 0
            self.torn = False
            if hold:
                return 0
        elif not self.cur and self.segs[-1] != before + 1:
            self.fs.remove(self.path(self.segs[-1]))  # empty, named for other records
            self.sizes.pop(self.segs.pop())
            self.cur = self.sizes[self.segs[-1]] if self.segs else 0
            return 0
        # the lines of records[done:] that go into the newest segment within its current
        # block (a write within one block: one erase)
        out = []
        size = self.torn  # 1 for a torn last line's newline (not littlefs): it stays apart
        seq, prev = before, self.prev
        room = block_room(self.cur)
        while not out or self.cur + size + len(line) <= self.segment:  # else a new segment
            if size + len(line) > room:
                break  # the rest after this block is full: the next append
            out.append(line)
            size += len(line)
            seq, prev = seq + 1, h
            if done + len(out) >= len(records):
                break
            line, h = logread.seal(seq + 1, prev, records[done + len(out)])
        count = len(out)
        if not count:  # not even a line fits the block: it is filled with blank lines (which
            out = [b"\n" * room]  # readers skip), and the next append starts a fresh one,
            size = room            # with no copy of a last block
            seq, prev = self.seq, self.prev
        elif self.torn:
            out.insert(0, b"\n")
        went = self._room(size, False, hold)
        if went is not True:
            return went
        f = None
        try:
            f = self.fs.open(self.path(self.segs[-1]), "ab")
            for text in out:  # a line at a time: no block of them all in RAM
                f.write(text)
        except OSError:
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
            self._resized()
            raise
        self.held = {"file": f, "size": size, "seq": seq, "prev": prev}
        return count

    def finish(self):
        """Close the segment an append left open: its lines committed, the log's seq, hash
        and sizes moved on. -> whether there was one (OSError if the flash refused: its
        lines did not go)."""
        held = self.held
        if held is None:
            return False
        self.held = None
        try:
            held["file"].close()
        except OSError:
            self._resized()
            raise
        self.cur += held["size"]
        self.sizes[self.segs[-1]] = self.cur
        self.total += held["size"]
        self.seq, self.prev = held["seq"], held["prev"]
        self.torn = False
        return True

    def _resized(self):
        """After a write the flash refused: the newest segment as flash holds it (a part
        committed all the same ends in a torn line, kept apart from the next record)."""
        path = self.path(self.segs[-1])
        now = flashfs.size(self.fs, path)
        if now != self.cur:
            self.total += now - self.cur
            self.sizes[self.segs[-1]] = self.cur = now
            self.torn = not self._ends_line(path, now)

    def _room(self, size, new, hold):
        """Room for `size` bytes more, dropping only segments already exported, oldest first
        (the newest only when a new one starts). -> True when there is room; else _step's
        answer: 0 when a segment went and the step is over (hold: a removal may compact the
        folder, an erase), None when the log is full."""
        segs = self.segs
        while self.total + size > self.limit:
            if not segs or len(segs) == 1 and not new \
                    or (segs[1] - 1 if len(segs) > 1 else self.seq) > self.exported:
                if not self.full:
                    self.full = True
                    self.notice("log full: export")
                return None
            self.fs.remove(self.path(segs[0]))
            self.total -= self.sizes.pop(segs.pop(0))
            if not segs:
                self.cur = 0
            if hold:
                return 0
        self.full = False
        return True

    def free(self):
        """Bytes the log can still take, counting segments that may go (exported)."""
        free = self.limit - self.total
        segs = self.segs
        for i in range(len(segs)):
            if (segs[i + 1] - 1 if i + 1 < len(segs) else self.seq) > self.exported:
                break
            free += self.sizes[segs[i]]
        return free

    # -- reading ------------------------------------------------------------------------------
    def files(self):
        """The log's files, oldest first (an older firmware's only while its migration
        cannot be done: a flash that refuses writes)."""
        names = []
        for name in (OLDER_LOG, config.LOG_FILE):
            if flashfs.size(self.fs, self.root + name):
                names.append(name)
        for first in self.segs:
            names.append(segment(first))
        return names

    def hash_of(self, seq):
        """The hash on flash of record `seq`, or None. Only the line holding it is parsed
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
        read = logread.lines(self.fs, self.path(first))
        try:
            for line, _ in read:
                found = line is not None and key in line and _sealed(line)
                if found and found[0] == seq:
                    return found[1]
        finally:
            read.close()
        return None


def _sealed(line):
    """A log line's (seq, hash), or None if it is not a whole sealed record."""
    r = logread.record(line)
    if r is None or type(r.get("seq")) is not int:
        return None
    text = line.decode().strip()  # its hash the last key
    if text[-20:-14] == ',"h":"' and text[-2:] == '"}':
        return r["seq"], text[-14:-2]
    return None
