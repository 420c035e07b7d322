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
import sys
from json import dumps, loads

from carddraw.config import LOG_QUEUE
from carddraw.flashfs import remove_all
from carddraw.logline import LINE_MAX, read_line
from carddraw.records import pack, unpack

SLOTS = 3
PREFIX = "j"
DIR = "journal/"
# Folders at most, the ready one apart: while the log is full of records not exported, the
# journal holds them, up to this (then a pass's commit is refused: "log full: export").
FOLDERS_MOST = 8
KEPT_MOST = LOG_QUEUE  # records the entries keep in RAM for the move, at most (else read again)
_SEP = (",", ":")
# MicroPython's files take a str as it is (its bytes, no copy); CPython's binary files (the
# tests' littlefs) want bytes.
_BYTES = sys.implementation.name != "micropython"

def folder_number(name):
    """The number of a journal folder from its name (None for anything else)."""
    digits = name[len(PREFIX):]
    if name.startswith(PREFIX) and len(digits) == 6 and all("0" <= c <= "9" for c in digits):
        return int(digits)
    return None


class Entry:
    """A journal entry as RAM knows it: where it is and what it holds."""

    def __init__(self, number, folder, slot, first, count, settings, records=None):
        self.number = number      # the entry's number ("j"): one more for each entry written
        self.folder = folder      # the folder it is in, and its slot there
        self.slot = slot
        self.first = first        # the seq of its first record ("q")
        self.count = count        # how many records ("n")
        self.settings = settings  # whether its pass changed settings ("s")
        self.records = records    # its records while the log lacks them, if kept in RAM

    def last(self):
        return self.first + self.count - 1


class Folder:
    def __init__(self, number, used):
        self.number, self.used = number, used  # used: slots written (each once, in order)


class Journal:
    def __init__(self, fs, root):
        self.fs = fs
        self.root = root + DIR
        self.folders = []   # Folder, oldest first, the last the current: FOLDERS_MOST at most
        self.ready = None   # the number of a folder made, all its slots free
        self.making = None  # {"number", "step", "parent"}: the next folder, made in idle steps
        self.dropping = None  # the name of a used-up folder (.tmp) being removed
        self.next = 1       # the next entry's number
        self.entries = []   # Entry, oldest first: SLOTS a folder of self.folders at most
        self.kept = 0       # records the entries keep in RAM (KEPT_MOST at most)
        self.opened = None  # {"number", "slot", "file"}: the next entry's slot, opened ahead

    # -- boot: what the journal holds -------------------------------------------------------------
    def read(self, change, done):
        """The folders and entries learnt (a .tmp folder, half made or removed, goes), the
        records after seq `done` kept (KEPT_MOST); each entry's settings to change(number,
        changes), in order. -> (damaged lines, the newest entry's hint)."""
        self.folders, self.entries, self.kept = [], [], 0  # afresh: a boot's second try
        numbers = []
        for name in self.fs.listdir(self.root):
            if name.endswith(".tmp") and folder_number(name[:-4]) is not None:
                remove_all(self.fs, self.root + name)
            elif folder_number(name) is not None:
                numbers.append(folder_number(name))
        numbers.sort()
        bad = 0
        changes = []  # [entry number, settings changed]: one per entry, applied in order
        newest, hint = -1, ""  # the newest entry's number and hint
        for n in numbers:
            path = self.root + PREFIX + "%06d/" % n
            slots = 0
            for name in self.fs.listdir(path):
                if name.isdigit():
                    slots += 1
                else:  # the next folder, half made inside this one (or a stray file)
                    remove_all(self.fs, path + name)
            used = 0
            for slot in range(max(SLOTS, slots)):  # an older firmware's folders have 4
                head, damaged = self._check(n, slot, done)
                bad += damaged
                if head is None and not damaged:
                    break  # slots are written in order: the rest are free
                used = slot + 1
                if head is not None:
                    s = head.get("s")
                    self.entries.append(Entry(head["j"], n, slot, head["q"], head["n"],
                                              s is not None, head.get("kept")))
                    if s is not None:
                        changes.append([head["j"], s])
                    if head["j"] >= newest:
                        newest, hint = head["j"], head.get("p", "")
            self.folders.append(Folder(n, used))
        self.entries.sort(key=lambda e: e.number)
        changes.sort(key=lambda c: c[0])
        for number, s in changes:
            change(number, s)
        if self.entries:
            self.next = self.entries[-1].number + 1
        if len(self.folders) > 1 and self.folders[-1].used == 0:
            self.ready = self.folders.pop().number
        return bad, hint if isinstance(hint, str) else ""

    def _check(self, n, slot, done):
        """-> (a slot's entry's header or None, 1 if damaged else 0): its records checked,
        and kept (as "kept") if the log lacks them and RAM may keep them."""
        try:
            f = self.fs.open(self._path(n, slot), "rb")
        except OSError:
            return None, 1  # a folder without its slot: counted as used and damaged
        try:
            head = _head(f)
            if head is not None:
                keep = head["q"] + head["n"] - 1 > done and self.kept + head["n"] <= KEPT_MOST
                kept = head["kept"] = [] if keep else None
                for r in _records(f, head):
                    if keep:
                        kept.append(r)
                self.kept += len(kept) if keep else 0
        except Exception:  # ValueError, UnicodeError, OSError: the entry is damaged
            return None, 1
        finally:
            f.close()
        return head, 0

    def records_of(self, entry):
        """An entry's records one at a time: from RAM if kept, else from its slot again."""
        if entry.records is not None:
            for r in entry.records:
                yield r
            return
        f = self.fs.open(self._path(entry.folder, entry.slot), "rb")
        try:
            head = _head(f)
            if head is None or head["j"] != entry.number or head["n"] != entry.count:
                raise ValueError("not the entry read at boot")
            for r in _records(f, head):
                yield r
        finally:
            f.close()

    def records_after(self, done):
        """(seq, record) for each record held after seq `done`, in order: a generator (close()
        it if stopping early: it may hold a slot open). An entry lost to damage leaves its
        seqs to {"ev": "lost"} records (the chain holds, and says so), or a gap if over
        LOG_QUEUE of them."""
        expect = done + 1
        for e in self.entries:
            if e.last() < expect:
                continue
            if e.first > expect:
                if e.first - expect <= LOG_QUEUE:
                    while expect < e.first:
                        yield expect, {"ev": "lost"}
                        expect += 1
                expect = e.first
            seq = e.first
            inner = self.records_of(e)
            try:
                for r in inner:
                    if seq >= expect:
                        yield seq, r
                    seq += 1
            except (ValueError, OSError):  # spoilt since the boot read it: the rest is lost
                pass
            finally:
                inner.close()
            while seq <= e.last():
                if seq >= expect:
                    yield seq, {"ev": "lost"}
                seq += 1
            expect = seq

    def waiting(self, done):
        """How many records the journal holds after seq `done`."""
        n = 0
        for e in self.entries:
            if e.last() > done:
                n += min(e.count, e.last() - done)
        return n

    def let_go(self, done):
        """The records the log holds now (to seq `done`): RAM lets them go."""
        for e in self.entries:
            if e.records is not None and e.last() <= done:
                self.kept -= len(e.records)
                e.records = None

    def write(self, seq, hint, settings, records):
        """One entry: records (dicts, the first number `seq`), the hint, the settings changed
        (or None), on flash when this returns (OSError if not)."""
        head = {"j": self.next, "q": seq, "n": len(records), "p": hint}
        if settings:
            head["s"] = settings
        head["r"] = [pack(r) for r in records]  # one line, one dumps
        text = dumps(head, separators=_SEP)
        if len(text) < LINE_MAX:
            text += "\n"
        else:  # too long for a line: the header, then a line a record
            packed = head.pop("r")
            text = dumps(head, separators=_SEP) + "\n"
            for r in packed:
                line = dumps(r, separators=_SEP)
                if len(line) >= LINE_MAX:  # what the log makes of it anyway (logline.seal)
                    ev = r[0] if type(r) is list else r.get("ev")
                    line = dumps({"ev": "too long", "was": str(ev)[:40]}, separators=_SEP)
                text += line + "\n"
        folders = self.folders
        if not folders or folders[-1].used >= SLOTS:
            if self.ready is None:
                raise OSError(28)  # no slot left: the store catches up first (Store.commit)
            folders.append(Folder(self.ready, 0))
            self.ready = None
        here = folders[-1]
        f = self._take(here.number, here.used)
        try:
            f.write(text.encode() if _BYTES else text)
        finally:
            f.close()
        keep = self.kept + len(records) <= KEPT_MOST
        self.entries.append(Entry(self.next, here.number, here.used, seq, len(records),
                                  bool(settings), list(records) if keep else None))
        self.kept += len(records) if keep else 0
        here.used += 1
        self.next += 1

    # -- idle passes: open the next slot, make the next folder, drop the used ones ----------------
    def open_next(self):
        """The next entry's slot opened ahead (its path looked up in littlefs, folder by
        folder: about a third of a draw's commit), so that a press's pass only writes and
        closes it. Opening writes nothing: the slot exists, empty, and "wb" empties it again
        only in the close's commit; a power cut leaves it as it was. -> True if opened."""
        if self.opened is not None:
            return False
        if self.folders and self.folders[-1].used < SLOTS:
            n, slot = self.folders[-1].number, self.folders[-1].used
        elif self.ready is not None:
            n, slot = self.ready, 0
        else:
            return False
        self.opened = {"number": n, "slot": slot, "file": self.fs.open(self._path(n, slot), "wb")}
        return True

    def _take(self, n, slot):
        """The file of slot `slot` of folder n, for the entry written now: the one opened
        ahead, or opened now."""
        opened, self.opened = self.opened, None
        if opened is not None:
            if opened["number"] == n and opened["slot"] == slot:
                return opened["file"]
            opened["file"].close()  # not this slot (a catch-up moved on): let go
        return self.fs.open(self._path(n, slot), "wb")


    def prepare(self):
        """A step of making the next folder (a folder, each slot, the rename out). -> True if
        one was taken."""
        if self.ready is not None or len(self.folders) >= FOLDERS_MOST:
            return False
        making = self.making
        if making is None:
            # made inside the newest folder, whose block has room for its commits (above)
            newest = self.folders[-1].number if self.folders else 0
            parent = self.root + (PREFIX + "%06d/" % newest if self.folders else "")
            making = self.making = {"number": newest + 1, "step": -1, "parent": parent}
        tmp = making["parent"] + PREFIX + "%06d.tmp" % making["number"]
        step = making["step"]
        if step < 0:
            self.fs.mkdir(tmp)
        elif step < SLOTS:
            self.fs.open(tmp + "/%d" % step, "wb").close()
        else:
            self.fs.rename(tmp, self.root + PREFIX + "%06d" % making["number"])
            self.ready = making["number"]
            self.making = None
            return True
        making["step"] = step + 1
        return True

    def out_of_slots(self):
        """Whether the next entry has no slot to go to: none free here, none made ready."""
        return self.ready is None and (not self.folders or self.folders[-1].used >= SLOTS)

    def drop(self, done, settled):
        """A step (the rename, a slot, the folder) of removing a used-up folder, not the
        newest's (the current hint), once its records are in the log (to seq `done`) and its
        settings in settings.json (as of entry `settled`). -> True if one was taken."""
        if self.dropping is not None:
            path = self.root + self.dropping
            slots = self.fs.listdir(path)
            if slots:
                self.fs.remove(path + "/" + slots[0])
            else:
                self.fs.rmdir(path)
                self.dropping = None
            return True
        if len(self.folders) < 2 or self.folders[0].used < SLOTS:
            return False
        n = self.folders[0].number
        for e in self.entries:
            if e.folder == n and (e.last() > done or e.settings and e.number > settled):
                return False
        name = self.root + PREFIX + "%06d" % n
        self.fs.rename(name, name + ".tmp")  # one commit: see the invariants above
        self.folders.pop(0)
        self.entries = [e for e in self.entries if e.folder != n]
        self.dropping = PREFIX + "%06d.tmp" % n
        return True

    def _path(self, n, slot):
        return self.root + PREFIX + "%06d/%d" % (n, slot)


def _head(f):
    """The header of the entry in slot file f (its first line), checked; None for an empty
    slot. ValueError if it is not a whole line holding an entry's header."""
    line = read_line(f)
    if not line:
        return None
    head = _parse(line)
    if type(head.get("j")) is not int or type(head.get("q")) is not int \
            or type(head.get("n")) is not int or head["n"] < 0:
        raise ValueError("header")
    inline = head.get("r")
    if inline is not None and (type(inline) is not list or len(inline) != head["n"]):
        raise ValueError("records")
    return head


def _records(f, head):
    """The records of the entry whose header _head just read from f, as dicts, one at a time;
    ValueError when they are not what the header says."""
    inline = head.get("r")
    if inline is not None:
        for r in inline:
            yield _record(r)
    else:
        for _ in range(head["n"]):
            yield _parse(read_line(f), True)
    if f.readline(1):
        raise ValueError("more records than the header says")


def _parse(line, record=False):
    """One whole line of an entry -> its object, a record as a dict (ValueError if not)."""
    if not line.endswith(b"\n"):
        raise ValueError("not a whole line")
    obj = loads(line.decode())
    return _record(obj) if record else _record(obj, False)


def _record(obj, packed=True):
    """A record as read: a packed one (a list, if packed may be) as a new dict (records.unpack),
    an object as it is; ValueError for anything else."""
    if packed and isinstance(obj, list):
        return unpack(obj)
    if not isinstance(obj, dict):
        raise ValueError("not an object")
    return obj
