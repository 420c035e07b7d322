# The journal: what a loop pass changed, on flash before the pass shows anything of it, in one
# small file write: one page program and no erase. Pure file I/O, as store.py. On littlefs a
# file of a few hundred bytes lives inline in its folder's metadata block, and rewriting it is
# one commit appended to that block (an append to a log segment copies its last block into a
# fresh one: a 45 ms erase). Idle passes then move its records into the log's segments and its
# settings into settings.json (store.Store.housekeep), where an erase holds nothing up.
#
# Folders jNNNNNN in journal/, each with SLOTS empty files "0".."2" made ready in idle passes,
# each written once: a folder's block holds its slots and entries without filling (a full one
# is compacted: an erase). The next folder is made INSIDE the current one (jNNNNNN.tmp), then
# renamed out: a mkdir also commits to its parent, which compacts if full (a second erase);
# the current folder's block never is, every commit to it counted (with mtime: 1 + 2 x 3 + 2
# for the next folder's making and leaving, + 3 entries of up to 2 pages: 15 of 15 pages).
#
# Power-cut invariants of the work idle passes do a step at a time (each step one change):
# - the next folder, made over several steps inside the current one as jNNNNNN.tmp, is
#   renamed out only once whole: a cut leaves a .tmp folder, which the boot removes (read);
# - a used-up folder goes only once everything in it is kept elsewhere, renamed .tmp first in
#   one commit, then emptied a slot a step: a cut leaves a .tmp folder (removed at boot),
#   never a folder that reads as damaged, its first slots missing.
# test_store_cuts.py cuts the power at every program and erase of them, in three ways.
#
# An entry: one line {"j": its number, "q": its first record's seq, "n": how many, "p": the
# play's hint, "s": settings changed (if any), "r": the records without seq or hash}; one too
# long for a line has no "r" and a record a line after it. The records of play go packed
# (records.pack: an array of the event and its values in records.PACKED's order, only when a
# record's fields are exactly its kind's; any other goes as an object, so a field added
# anywhere never makes an entry unreadable). Packed, a draw whose pass also accepts the card
# and ends the action is one page (two as objects). Read back, every record is a dict.
from json import loads

from .config import LOG_QUEUE
from .flashfs import digits, remove_all
from .logread import LINE_MAX, dumps, too_long
from .records import pack, unpack

SLOTS = 3
DIR = "journal/"
# Folders at most, the ready one apart: while the log is full of records not exported, the
# journal holds them, up to this (then a pass's commit is refused: "log full: export").
FOLDERS_MOST = 8
KEPT_MOST = LOG_QUEUE  # records the entries keep in RAM for the move, at most (else read again)


def folder_number(name):
    """The number of a journal folder from its name jNNNNNN (None for anything else)."""
    return digits(name[1:]) if len(name) == 7 and name[0] == "j" else None


class Entry:
    """A journal entry as RAM knows it: where it is and what it holds."""

    def __init__(self, number, folder, slot, first, count, settings, records):
        self.number = number      # the entry's number ("j"): one more for each entry written
        self.folder = folder      # the folder it is in, and its slot there
        self.slot = slot
        self.first = first        # the seq of its first record ("q")
        self.count = count        # how many records ("n")
        self.last = first + count - 1  # the seq of its last record
        self.settings = settings  # whether its pass changed settings ("s")
        self.records = records    # its records while the log lacks them, if kept in RAM


class Journal:
    def __init__(self, fs, root):
        self.fs = fs
        self.root = root + DIR
        self.folders = []   # folder numbers, oldest first, the last the current: FOLDERS_MOST
        self.used = 0       # slots written in the current folder (each once, in order)
        self.ready = None   # the number of a folder made, all its slots free
        self.making = -1    # the next step of making the next folder (prepare)
        self.dropping = None  # the path of a used-up folder (.tmp) being removed
        self.next = 1       # the next entry's number
        self.entries = []   # Entry, oldest first: SLOTS a folder of self.folders at most
        self.kept = 0       # records the entries keep in RAM (KEPT_MOST at most)
        self.opened = None  # {"where": (folder, slot), "file"}: the next entry's slot, opened ahead

    # -- boot: what the journal holds -------------------------------------------------------------
    def read(self, done):
        """The folders and entries learnt (a .tmp folder, half made or removed, goes), each
        entry's records checked, and kept in RAM (KEPT_MOST) if the log lacks them (after seq
        `done`). -> (damaged lines, the newest entry's hint, [entry number, settings changed]
        for each entry that changed some, in order)."""
        fs = self.fs
        folders = self.folders = []
        entries = self.entries = []
        self.kept = self.used = 0  # afresh: a 2nd try
        for name in fs.listdir(self.root):
            n = folder_number(name)
            if n is not None:
                folders.append(n)
            elif name.endswith(".tmp") and folder_number(name[:-4]) is not None:
                remove_all(fs, self.root + name)
        folders.sort()
        bad = 0
        before = 0  # the slots used in the folder before the last
        newest = -1  # the newest entry's number, and its hint
        hint = ""
        for n in folders:
            path = self._folder(n) + "/"
            slots = 0
            for name in fs.listdir(path):
                if name.isdigit():
                    slots += 1
                else:  # the next folder, half made inside this one (or a stray file)
                    remove_all(fs, path + name)
            before, self.used = self.used, 0
            for slot in range(max(SLOTS, slots)):  # an older firmware's folders have 4
                try:
                    f = fs.open(path + str(slot), "rb")  # none: counted as used and damaged
                    try:
                        head = _head(f)
                        if head is None:
                            break  # slots are written in order: the rest are free
                        count = head["n"]
                        keep = head["q"] + count - 1 > done and self.kept + count <= KEPT_MOST
                        kept = []
                        for r in _records(f, head):
                            if keep:
                                kept.append(r)
                    finally:
                        f.close()
                    if keep:
                        self.kept += count
                    entries.append(Entry(head["j"], n, slot, head["q"], count, head.get("s"),
                                         kept if keep else None))
                    if head["j"] >= newest:
                        newest, hint = head["j"], head.get("p", "")
                except Exception:  # ValueError, UnicodeError, OSError: the entry is damaged
                    bad += 1
                self.used = slot + 1
        if len(folders) > 1 and self.used == 0:
            self.ready = folders.pop()
            self.used = before
        entries.sort(key=lambda e: e.number)
        changes = []
        for e in entries:
            if e.settings is not None:
                changes.append([e.number, e.settings])
                e.settings = True  # the dict goes to the settings: RAM keeps only this
            self.next = e.number + 1
        return bad, hint if isinstance(hint, str) else "", changes

    def records_after(self, done):
        """(seq, record) for each record held after seq `done`, in order: a generator (close()
        it if stopping early: it may hold a slot open). An entry's records come from RAM if
        kept, else from its slot again. An entry lost to damage leaves its seqs to {"ev":
        "lost"} records (the chain holds, and says so), or a gap if over LOG_QUEUE of them."""
        expect = done + 1
        for e in self.entries:
            if e.last < expect:
                continue
            if e.first > expect:
                if e.first - expect <= LOG_QUEUE:
                    while expect < e.first:
                        yield expect, {"ev": "lost"}
                        expect += 1
                expect = e.first
            seq = e.first
            records = e.records
            f = None
            try:
                if records is None:
                    f = self.fs.open(self._path(e.folder, e.slot), "rb")
                    head = _head(f)
                    if head is None or head["j"] != e.number or head["n"] != e.count:
                        raise ValueError  # not the entry read at boot
                    records = _records(f, head)
                for r in records:
                    if seq >= expect:
                        yield seq, r
                    seq += 1
            except (ValueError, OSError):  # spoilt since the boot read it: the rest is lost
                pass
            finally:
                if f is not None:
                    f.close()
            while seq <= e.last:
                if seq >= expect:
                    yield seq, {"ev": "lost"}
                seq += 1
            expect = seq

    def waiting(self, done):
        """How many records the journal holds after seq `done`."""
        n = 0
        for e in self.entries:
            if e.last > done:
                n += min(e.count, e.last - done)
        return n

    def let_go(self, done):
        """The records the log holds now (to seq `done`): RAM lets them go."""
        for e in self.entries:
            if e.records is not None and e.last <= done:
                self.kept -= len(e.records)
                e.records = None

    def write(self, seq, hint, settings, records):
        """One entry: records (dicts, the first number `seq`), the hint, the settings changed
        (or None), on flash when this returns (OSError if not)."""
        count = len(records)
        head = {"j": self.next, "q": seq, "n": count, "p": hint}
        if settings:
            head["s"] = settings
        head["r"] = list(map(pack, records))  # one line, one dumps
        text = dumps(head)
        if len(text) < LINE_MAX:
            text += "\n"
        else:  # too long for a line: the header, then a line a record
            packed = head.pop("r")
            text = dumps(head) + "\n"
            for r in packed:
                line = dumps(r)
                if len(line) >= LINE_MAX:  # what the log makes of it anyway (logread.seal)
                    line = dumps(too_long(r[0] if type(r) is list else r.get("ev")))
                text += line + "\n"
        where = self._next()
        if where is None:
            raise OSError(28)  # no slot left: the store catches up first (Store.commit)
        n, slot = where
        if n == self.ready:
            self.folders.append(n)
            self.ready = None
        # text mode: MicroPython writes the str as it is (no copy), CPython's files encode it
        f = self._take(where)
        try:
            f.write(text)
        finally:
            f.close()
        keep = self.kept + count <= KEPT_MOST
        self.entries.append(Entry(self.next, n, slot, seq, count, bool(settings),
                                  list(records) if keep else None))
        if keep:
            self.kept += count
        self.used = slot + 1
        self.next += 1

    # -- idle passes: open the next slot, make the next folder, drop the used ones ----------------
    def _next(self):
        """The next entry's (folder, slot), or None: no slot free here, none made ready."""
        if self.folders and self.used < SLOTS:
            return self.folders[-1], self.used
        return None if self.ready is None else (self.ready, 0)

    def out_of_slots(self):
        """Whether the next entry has no slot to go to: none free here, none made ready."""
        return self._next() is None

    def open_next(self):
        """The next entry's slot opened ahead (its path looked up in littlefs, folder by
        folder: about a third of a draw's commit), so that a press's pass only writes and
        closes it. Opening writes nothing: the slot exists, empty, and "w" empties it again
        only in the close's commit; a power cut leaves it as it was. -> True if opened."""
        where = self._next()
        if self.opened is not None or where is None:
            return False
        self.opened = {"where": where, "file": self.fs.open(self._path(*where), "w")}
        return True

    def _take(self, where):
        """The slot file at `where` (folder, slot), for the entry written now: the one opened
        ahead (its path not formatted again in a press's pass), or opened now."""
        opened, self.opened = self.opened, None
        if opened is not None:
            if opened["where"] == where:
                return opened["file"]
            opened["file"].close()  # not this slot (a catch-up moved on): let go
        return self.fs.open(self._path(*where), "w")

    def prepare(self):
        """A step of making the next folder (a folder, each slot, the rename out), inside the
        newest folder, whose block has room for its commits (above). -> True if one was
        taken."""
        if self.ready is not None or len(self.folders) >= FOLDERS_MOST:
            return False
        newest = self.folders[-1] if self.folders else 0
        tmp = (self._folder(newest) + "/" if self.folders else self.root) \
            + "j%06d.tmp" % (newest + 1)
        step = self.making
        if step < 0:
            self.fs.mkdir(tmp)
        elif step < SLOTS:
            self.fs.open(tmp + "/%d" % step, "wb").close()
        else:
            self.fs.rename(tmp, self._folder(newest + 1))
            self.ready = newest + 1
            step = -2  # made: the next one starts anew
        self.making = step + 1
        return True

    def drop(self, done, settled):
        """A step (the rename, a slot, the folder) of removing a used-up folder, not the
        newest's (the current hint), once its records are in the log (to seq `done`) and its
        settings in settings.json (as of entry `settled`). -> True if one was taken."""
        path = self.dropping
        if path is not None:
            slots = self.fs.listdir(path)
            if slots:
                self.fs.remove(path + "/" + slots[0])
            else:
                self.fs.rmdir(path)
                self.dropping = None
            return True
        if len(self.folders) < 2:
            return False
        n = self.folders[0]
        for e in self.entries:
            if e.folder == n and (e.last > done or e.settings and e.number > settled):
                return False
        path = self._folder(n)
        self.fs.rename(path, path + ".tmp")  # one commit: see the invariants above
        self.folders.pop(0)
        entries = []
        for e in self.entries:
            if e.folder != n:
                entries.append(e)
        self.entries = entries
        self.dropping = path + ".tmp"
        return True

    def _folder(self, n):
        return self.root + "j%06d" % n

    def _path(self, n, slot):
        return self._folder(n) + "/%d" % slot


def read_line(f):
    """f.readline(LINE_MAX), in pieces of 128 bytes: readline(n) sets n bytes aside before
    it reads, and a block of 1 KB a line is what a fragmented heap runs out of first."""
    line = f.readline(128)
    while line and len(line) < LINE_MAX and line[-1] != 10:  # no newline yet
        more = f.readline(min(128, LINE_MAX - len(line)))
        if not more:
            break
        line += more
    return line


def _head(f):
    """The header of the entry in slot file f (its first line), checked; None for an empty
    slot. ValueError if it is not a whole line holding an entry's header."""
    line = read_line(f)
    if not line:
        return None
    head = _parse(line)
    for key in ("j", "q", "n"):
        if type(head.get(key)) is not int:
            raise ValueError  # not an entry's header
    inline = head.get("r")
    if head["n"] < 0 or inline is not None and (type(inline) is not list
                                                 or len(inline) != head["n"]):
        raise ValueError  # not as many records as it says
    return head


def _records(f, head):
    """The records of the entry whose header _head just read from f, as dicts, one at a time;
    ValueError when they are not what the header says."""
    inline = head.get("r")
    if inline is not None:
        for r in inline:
            yield unpack(r)
    else:
        for _ in range(head["n"]):
            yield _parse(read_line(f))
    if f.readline(1):
        raise ValueError  # more records than the header says


def _parse(line):
    """One whole line of an entry -> its record as a dict (records.unpack; ValueError if
    not)."""
    if not line.endswith(b"\n"):
        raise ValueError  # not a whole line
    return unpack(loads(line.decode()))
