# The action log's segments on flash: log.NNNNNN.jsonl (NNNNNN: the seq of the segment's first
# record), one sealed JSON line per record (logline.seal: its seq and a hash chained to the
# record before, so an edited, removed or inserted record shows in the export), up to
# `limit` bytes in all. Pure file I/O. The store appends records here in idle passes (an
# append costs a sector erase on littlefs), from the journal that holds them meanwhile.
#
# History is never dropped before it was exported: the oldest segment is removed only when
# every record in it is at or below the seq the bench acknowledged (config.LOG_EXPORTED_FILE).
# Everything read back is untrusted: a damaged line is skipped and counted, never raised.
import json

from carddraw import config
from carddraw.flashfs import block_room, folder
from carddraw.logline import LINE_MAX, SEGMENT, line_hash, older, read_line, seal
from carddraw.saved import unpacked

# An idle pass's append (hold) seals at most this many records: sealing one (its JSON and
# hash) is about 3 ms on the chip (make bench's model), so a backlog -- the records of the
# presses of a busy minute, moved when the export starts -- goes over several passes, the
# sealing in a step before the one that writes (and erases), as a rule beside the opening of
# the journal's next slot (store.Store.housekeep: neither changes the filesystem), then the
# close. (Sealing is about 6 ms a record in a pass's cold start.)
HOLD_MOST = 12
SEAL_WITH_WRITE = 0  # records sealed in the pass that writes them (more: a step before)

SCAN_CHUNK = 512   # bytes read at a time when looking back for the last start


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


class LogFile:
    def __init__(self, store, limit, segment):
        self.store = store     # for its files (fs, root) and its notices
        self.limit = limit
        self.segment = segment
        self.segs = []         # first seq of each segment, oldest first
        self.sizes = {}        # bytes in each segment, by its first seq
        self.total = 0         # bytes in all segments
        self.cur = 0           # bytes in the newest segment
        self.seq = 0           # the last record's seq (0: none yet)
        self.prev = ""         # the last record's hash ("" before the first record ever)
        self.torn = False      # the newest segment ends in a torn line (not on littlefs)
        self.exported = 0      # the highest seq the bench acknowledged as saved
        self.full = False      # no room without dropping history not yet exported
        self.held = None       # (file, new segment, bytes, seq, hash) an append left open
        self.sealed = None     # (what they follow, _seal's lines...) for the next append

    def open(self, names):
        """Learn the segments, the last seq and hash; migrate older firmware's log (`names`:
        the store's folder's listing). -> lines found damaged by a migration (raises OSError
        on a flash error)."""
        store = self.store
        root = store.root
        folder(store.fs, root + config.LOG_DIR[:-1], names)
        ours = store.fs.listdir(root + config.LOG_DIR)
        for name in names:  # an older firmware's segments, in the store's folder: moved in,
            if segment_seq(name) is not None and name not in ours:  # a rename each
                store.fs.rename(root + name, root + config.LOG_DIR + name)
                ours.append(name)
        segs = sorted([s for s in [segment_seq(n) for n in ours] if s is not None])
        old = [n for n in (older(config.LOG_FILE), config.LOG_FILE) if n in names]
        bad = 0
        if old and not segs:
            from carddraw import logrepair  # once in a device's life
            segs, bad = logrepair.migrate(store, old, segment(1))
            if segs is None:
                raise OSError(5)
        for name in old:  # migrated (now or by a boot the power cut short)
            store.fs.remove(root + name)
        self.segs = segs
        for first in segs:
            self.cur = self.sizes[first] = store.files.size(segment(first))
            self.total += self.cur
        exported = store.files.read_json(config.LOG_EXPORTED_FILE, 32)[0]
        self.exported = exported if type(exported) is int else 0
        self._find_last()
        return bad

    def _find_last(self):
        """The last whole record's seq and hash: from the newest segment's tail (2 lines'
        worth), or, when damage fills the tail, from the whole segment, or an older one."""
        for first in reversed(self.segs):
            name = segment(first)
            size = self.store.files.size(name)
            if first == self.segs[-1] and size:
                self.torn = not self._ends_line(name, size)
            start = max(0, size - 2 * LINE_MAX)
            for at in (start, 0) if start else (0,):
                found = []
                self.read_lines(name, found.append, True, at)
                for text in reversed(found):
                    seq = json.loads(text).get("seq")
                    if type(seq) is int and line_hash(text):
                        self.seq = seq
                        self.prev = line_hash(text)
                        return
        if self.segs:  # nothing whole anywhere: go on after the newest segment's name
            self.seq = self.segs[-1] - 1

    def _ends_line(self, name, size):
        try:
            f = self.store.fs.open(self.store.root + name, "rb")
        except OSError:
            return True
        try:
            f.seek(size - 1)
            return f.read(1) == b"\n"
        finally:
            f.close()

    # -- writing ------------------------------------------------------------------------------
    # An append on littlefs is two costs: writing the lines into a fresh block (an erase, and
    # the segment's last block copied into it) and closing the file (the commit of its new
    # size into the folder's metadata, which is now and then compacted: a second erase). With
    # hold, append stops before the close and finish() closes in a later loop pass, so no
    # pass pays both. Until the close, flash holds the segment as it was (the records wait
    # in the journal still) and so does this object: seq, prev and the sizes move on only
    # once the lines are committed.
    def append(self, records, first=None, hold=False):
        """Seal and write `records`, numbered from `first` (the next seq after self.seq if
        None; a later one leaves a gap: records lost before these), in as few writes as the
        segments allow: a segment takes lines while they fit. -> how many went (fewer when
        the log is full of records not yet exported; raises OSError on a flash error, the
        ones before it written). hold (an idle pass's step): one call seals a segment's
        lines (at most HOLD_MOST records: their JSON and hashes), the next writes them and
        leaves the file open for finish(), and they count as gone once it has closed them:
        the pass that writes, where a block is erased, spends little else (seal_ahead, in a
        step with no write, may have sealed them). Records may come packed (saved.PACKED, as
        the journal holds them): the log's lines are objects."""
        self.finish()
        if not hold:
            self.sealed = None
        done = 0
        while done < len(records):
            seq = self._start(first) if not done else self.seq
            key = self._key(seq)
            if hold:
                sealed = self.sealed
                self.sealed = None
                if sealed is None or sealed[0] != key:
                    sealed = (key, self._seal(records, done, seq, HOLD_MOST))
                    if len(sealed[1][0]) > SEAL_WITH_WRITE:
                        self.sealed = sealed
                        return done  # written by the next call
                lines, size, seq, prev, new = sealed[1]
            else:
                lines, size, seq, prev, new = self._seal(records, done, seq, len(records))
            if not self.room(size, new, hold):
                return done
            if new:
                self.segs.append(seq - len(lines) + 1)  # named by its first record's seq
                self.sizes[self.segs[-1]] = self.cur = 0
            name = self.store.root + segment(self.segs[-1])
            if new and hold:  # made now, closed by the next call, sealed and written by the
                try:          # ones after: making a file commits its name, and closing it
                    f = self.store.fs.open(name, "ab")  # again (each may compact the folder:
                except OSError:                         # an erase)
                    self._undo(True)
                    raise
                self.held = (f, True, 0, self.seq, self.prev)
                return done
            count = len(lines)
            if not count:  # not even a line fits: the block is filled with blank lines (which
                lines = [b"\n" * size]  # readers skip), and the next append starts a
                seq, prev = self.seq, self.prev  # fresh one, with no copy of a last block
            if self.torn:
                lines.insert(0, b"\n")  # size counts it
            f = None
            try:
                f = self.store.fs.open(name, "ab")
                for line in lines:  # a line at a time: no block of them all in RAM
                    f.write(line)
            except OSError:
                self._close(f)
                self._undo(new)
                raise
            self.held = (f, new, size, seq, prev)
            if hold:
                return done + count
            self.finish()
            done += count
        return done

    def seal_ahead(self, records, first=None):
        """The next held append's lines sealed now, nothing written (a step with no change
        to the filesystem). -> whether it sealed any."""
        seq = self._start(first)
        if self.held is not None or not records \
                or self.sealed is not None and self.sealed[0] == self._key(seq):
            return False
        self.sealed = (self._key(seq), self._seal(records, 0, seq, HOLD_MOST))
        return True

    def _start(self, first):
        """The seq the next line follows: the log's last, or the one before `first` (a
        later one: records lost before these)."""
        return first - 1 if first is not None and first > self.seq + 1 else self.seq

    def _key(self, seq):
        return (seq, len(self.segs), self.cur)  # what lines sealed after seq were sealed after

    def _seal(self, records, done, seq, most):
        """The lines of records[done:] from seq + 1 on that go into the newest segment, or a
        new one, within one block of it (a write within one block: one erase, and at most a
        block of lines in RAM at once: a catch-up moves many), at most `most` of them.
        -> (lines, bytes, last seq, last hash, whether a new segment); no lines when not
        even one fits the block: bytes is then the block's room, to fill with blank lines."""
        lines = []
        prev = self.prev
        size = 1 if self.torn else 0  # a torn last line (not littlefs) stays apart
        record = records[done]
        line, h = seal(seq + 1, prev, unpacked(record), type(record) is list)
        new = not self.segs or self.cur + size + len(line) > self.segment
        at = 0 if new else self.cur
        room = block_room(at)
        while True:
            if lines and at + size + len(line) > self.segment:
                break  # the rest go into a new segment
            if size + len(line) > room:
                break  # the rest after this block is full: the next append
            lines.append(line)
            size += len(line)
            seq, prev = seq + 1, h
            if done + len(lines) >= len(records) or len(lines) >= most:
                break
            record = records[done + len(lines)]
            line, h = seal(seq + 1, prev, unpacked(record), type(record) is list)
        if not lines:
            size = room
        return lines, size, seq, prev, new

    def finish(self):
        """Close the segment an append(hold=True) left open: its lines committed, the log's
        seq, hash and sizes moved on. -> whether there was one (OSError if the flash refused:
        its lines did not go)."""
        if self.held is None:
            return False
        f, new, size, seq, prev = self.held
        self.held = None
        try:
            f.close()
        except OSError:
            self._undo(new)
            raise
        self.cur += size
        self.sizes[self.segs[-1]] = self.cur
        self.total += size
        self.seq, self.prev = seq, prev
        self.torn = False
        return True

    def _undo(self, new):
        """An append that did not go: a segment it began is forgotten (its file, if made, is
        empty or as it was: nothing of it was committed)."""
        if new:
            self.sizes.pop(self.segs.pop())
            self.cur = self.sizes[self.segs[-1]] if self.segs else 0

    @staticmethod
    def _close(f):
        if f is not None:
            try:
                f.close()
            except OSError:
                pass

    def room(self, size, new=False, one=False):
        """Make room for `size` bytes, dropping only segments already exported. one (an idle
        pass's append): after a segment went, False, and the append goes on at the next call
        (an idle pass makes one change to the filesystem: two could each compact the root)."""
        while self.total + size > self.limit:
            segs = self.segs
            if not segs or len(segs) == 1 and not new:
                return self._full()
            last_seq = segs[1] - 1 if len(segs) > 1 else self.seq
            if last_seq > self.exported:
                return self._full()
            self.store.fs.remove(self.store.root + segment(segs[0]))
            self.total -= self.sizes.pop(segs.pop(0))
            if one:
                return False
        self.full = False
        return True

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
    def read(self, each, raw):
        """Every record, oldest first, to each() -> lines skipped as damaged."""
        name = config.LOG_FILE
        bad = self.read_lines(older(name), each, raw)  # only if a migration failed
        bad += self.read_lines(name, each, raw)
        for first in list(self.segs):
            bad += self.read_lines(segment(first), each, raw)
        return bad

    def read_lines(self, name, each, raw=False, start=0, budget=0):
        """Hand each record of one log file to each() (the line's text with raw, else the
        record without "seq" and "h"); -> lines skipped as damaged. From byte `start` on,
        the first (partial) line skipped."""
        try:
            f = self.store.fs.open(self.store.root + name, "rb")
        except OSError:
            return 0
        bad = 0
        budget = budget or self.limit + LINE_MAX  # more than is ever written to one file
        skipping = False
        try:
            if start:
                f.seek(start)
                skipping = True
            while True:
                line = read_line(f)
                if not line:
                    break
                budget -= len(line)
                if budget < 0:
                    bad += 1  # the rest of an oversized file
                    break
                whole = line.endswith(b"\n")
                if skipping:  # the tail of an overlong line, or of the line `start` cut
                    skipping = not whole
                    continue
                if not whole and len(line) == LINE_MAX:
                    bad += 1
                    skipping = True
                    continue
                bad += hand(line, each, raw)
        except OSError:
            bad += 1
        finally:
            f.close()
        return bad

    def files(self):
        """The log's files, oldest first (older firmware's only if a migration failed)."""
        return [n for n in (older(config.LOG_FILE), config.LOG_FILE)
                if self.store.files.size(n)] + [segment(first) for first in self.segs]

    def last_start(self):
        """(segment, byte offset) of the line of the log's last start record: where the
        action the log shows last begins (None: there is none)."""
        for first in reversed(self.segs):
            found = self._scan_back(segment(first))
            if found is not None:
                return first, found
        return None

    def _scan_back(self, name):
        """The offset of a segment's last line with a start record, read backwards a chunk
        at a time. The text matches whatever the key order (compact JSON), never inside a
        string (quotes are escaped)."""
        try:
            f = self.store.fs.open(self.store.root + name, "rb")
        except OSError:
            return None
        try:
            pos = self.store.files.size(name)
            later = b""
            while pos > 0:
                n = min(SCAN_CHUNK, pos)
                pos -= n
                f.seek(pos)
                chunk = f.read(n) + later[:11]  # a match across the boundary
                at = chunk.rfind(b'"ev":"start"')
                if at >= 0:
                    at += pos
                    back = max(0, at - LINE_MAX)  # the line's start: after the newline before
                    f.seek(back)
                    return back + f.read(at - back).rfind(b"\n") + 1
                later = chunk
        except OSError:
            return None
        finally:
            f.close()
        return None

    def records_from(self, first, offset, each):
        """Every record from the line at byte `offset` of segment `first` to the end of the
        log (read_lines skips the part line it starts in: it starts on the newline before)."""
        for seg in self.segs:
            if seg >= first:
                self.read_lines(segment(seg), each, False,
                                offset - 1 if seg == first and offset else 0)

    def hash_of(self, seq):
        """The hash on flash of record `seq`, or None. Only the line holding it is decoded
        (`log ack` runs in one pass: parsing a segment's 100-odd lines would cost most of a
        second on the chip)."""
        if seq == self.seq and self.segs:
            return self.prev  # the newest record, as a fresh export's last usually is
        first = 0
        for s in self.segs:
            if s <= seq:
                first = s
        if not first:
            return None
        key = b'"seq":%d,' % seq  # never the last key: "h" is
        try:
            f = self.store.fs.open(self.store.root + segment(first), "rb")
        except OSError:
            return None
        try:
            while True:
                line = read_line(f)
                if not line:
                    return None
                if key in line and line.endswith(b"\n"):
                    return line_hash(line.decode().strip())
        except (OSError, UnicodeError):
            return None
        finally:
            f.close()


def hand(line, each, raw):
    """One line to each(); -> 1 when it was damaged (and not handed), else 0."""
    if not line.strip():
        return 0
    try:
        text = line.decode().strip()
        r = json.loads(text)
    except Exception:
        return 1
    if not isinstance(r, dict):
        return 1
    if raw:
        each(text)
    else:
        r.pop("seq", None)
        r.pop("h", None)
        each(r)
    return 0
