# The journal: what a loop pass changed, on flash before the pass shows anything of it, in one
# small file write that costs one page program and no erase. Pure file I/O, as store.py.
#
# Why it is cheap on littlefs (the Pico's filesystem): a file of at most a few hundred bytes
# lives inline in its folder's metadata block, and rewriting it is one commit appended to that
# block, which was erased when the folder was made. Appending to the log's segment files
# instead costs a 4 KB sector erase every time (littlefs copies a file's last block into a
# fresh one), 45 ms on the Pico's flash chip. So a pass writes one journal entry; the records
# go on into the log's segments, the settings into settings.json, in idle passes later
# (store.Store.housekeep), where an erase holds nothing up.
#
# The layout: folders jNNNNNN (NNNNNN increasing) in the folder journal/, each with SLOTS
# empty files "0".."2" made ready in idle passes, each slot written once. A folder's metadata
# block then holds its slots and their entries without filling up (a full block is compacted:
# an erase), so a folder is used up after SLOTS entries and the next one is made ready while
# the current one still has slots. The next is made INSIDE the current one (as jNNNNNN.tmp,
# its slots made there) and then renamed out into journal/ whole. Why: a mkdir erases the new
# folder's block and commits to its parent, and a parent whose block is full compacts in the
# same call, a second erase (91 ms of flash in one pass). The current folder's block never is:
# every commit to it is one of ours, counted (with mtime, as the board has it, a slot's making
# is 2 commits and a commit takes a 256 B page at least: 1 + 2 x 3 + 2 for the next folder's
# making and its leaving + 3 entries of up to 2 pages is 15 of the block's 15 pages; a
# fourth slot would leave no room for an entry over one page). journal/ itself takes only the
# journal's renames and removals, never a mkdir, and it is always its folders' predecessor
# in littlefs's list of folders, so a removal (rmdir commits to both) compacts one block at
# most. A used-up folder goes once everything in it is kept elsewhere and a newer entry
# exists (renamed .tmp first, then emptied: a folder .tmp, half made or half removed, is
# removed at boot). An older firmware's folders, in the root, are moved into journal/ at boot.
#
# An entry: one line {"j": entry number, "q": seq of its first record, "n": how many records,
# "p": the play's hint (play.Play.hint), "s": settings changed (only if some did), "r": the
# records}, the records without seq or hash (the log adds them: the records of entries follow
# each other in seq order): one dumps for a whole pass. An entry too long for a line
# (LINE_MAX: the catch-up of many passes) has no "r" and its records on the lines after the
# header, one a line, as an older firmware wrote every entry; both read back. The newest
# entry holds the current hint. littlefs commits a file whole or not at all, so an entry is
# whole or is not there.
#
# The records of play are written packed: a JSON array of the event and its fields' values in
# saved.PACKED's order, as the controller makes them (a record with other fields, "seeded"
# say, stays an object, as an older firmware wrote them all). The keys were half of an
# entry's bytes: a draw whose pass also accepts the card and ends the action took 327 B, two
# pages (a page holds about 230 B of a commit), and an action's start 251 B; packed, 162 B
# and 115 B, one page each. The log's lines stay objects: the store unpacks the records as
# it moves them on.
import sys
from json import dumps, loads

from carddraw.flashfs import folder
from carddraw.saved import PACKED, unpacked
from carddraw.logline import LINE_MAX, read_line

SLOTS = 3
PREFIX = "j"
DIR = "journal/"
_SEP = (",", ":")
# MicroPython's files take a str as it is (its bytes, no copy); CPython's binary files (the
# tests' littlefs) want bytes. An entry is the largest allocation of a press's pass: on the
# board each copy of it is a search of the heap for a free run of its size.
_BYTES = sys.implementation.name != "micropython"


def folder_number(name):
    """The number of a journal folder from its name (None for anything else)."""
    digits = name[len(PREFIX):]
    if name.startswith(PREFIX) and len(digits) == 6 and all("0" <= c <= "9" for c in digits):
        return int(digits)
    return None


class Journal:
    def __init__(self, fs, root):
        self.fs = fs
        self.root = root + DIR
        self.folders = []   # [folder number, slots used] oldest first; the last is current
        self.ready = None   # a folder made, all its slots free, for when the current is used
        self.making = None  # [folder number, step, parent] of one made in idle passes
        self.dropping = None  # the name of a used-up folder (.tmp) being removed
        self.opened = None  # (folder number, slot, file): the next entry's slot, opened in
                            # an idle pass
        self.next = 1       # the next entry's number
        self.entries = []   # (entry number, folder number, header, records) oldest first;
                            # the records are let go (emptied) once the log holds them

    # -- boot: what the journal holds -------------------------------------------------------------
    def settle(self):
        """Before the boot lists any folder: littlefs finishes a rename that a power cut left
        half done (moving a folder into another is two commits, the folders' making and the
        boot's move of an older firmware's) at its first change after power-on, and until
        then a listing of the folder it left misses the name after the moved one as well
        (littlefs 2.11; a boot would take a folder of entries for gone). Removing a name that
        is not there is such a change, and writes nothing when nothing was left half done."""
        try:
            self.fs.remove(self.root + ".settle")
        except OSError:
            pass

    def read(self, top):
        """Learn the folders and their entries (oldest first), `top` being what the store's
        folder holds (its listdir). -> lines that were damaged. A folder left half made or
        half removed by a power cut is removed."""
        store = self.root[:-len(DIR)]  # the store's folder: an older firmware's are there
        folder(self.fs, self.root[:-1], top)
        for name in top:  # an older firmware's folders, moved in (a cut: the rest next boot)
            if folder_number(name) is not None:
                self.fs.rename(store + name, self.root + name)
            elif name.endswith(".tmp") and folder_number(name[:-4]) is not None:
                self._remove(store + name)
        bad = 0
        numbers = []
        for name in self.fs.listdir(self.root):
            if name.endswith(".tmp") and folder_number(name[:-4]) is not None:
                self._remove(self.root + name)
            else:
                n = folder_number(name)
                if n is not None:
                    numbers.append(n)
        numbers.sort()
        for n in numbers:
            path = self.root + PREFIX + "%06d/" % n
            slots = 0
            for name in self.fs.listdir(path):
                if name.isdigit():
                    slots += 1
                else:  # the next folder, half made inside this one (or a stray file)
                    self._remove(path + name)
            used = 0
            for slot in range(max(SLOTS, slots)):  # an older firmware's folders have 4
                entry, damaged = self._read_slot(n, slot)
                bad += damaged
                if entry is None and not damaged:
                    break  # slots are written in order: the rest are free
                used = slot + 1
                if entry is not None:
                    self.entries.append(entry)
            self.folders.append([n, used])
        self.entries.sort(key=lambda e: e[0])
        if self.entries:
            self.next = self.entries[-1][0] + 1
        if len(self.folders) > 1 and self.folders[-1][1] == 0:
            self.ready = self.folders.pop()[0]
        return bad

    def _read_slot(self, n, slot):
        """-> (entry or None, 1 if damaged else 0). An empty slot is free. Read a line at a
        time, each at most LINE_MAX (as write makes them), so a pass of many records reads
        back whole and a huge file costs no more RAM than a line."""
        try:
            f = self.fs.open(self._path(n, slot), "rb")
        except OSError:
            return None, 1  # a folder without its slot: counted as used and damaged
        try:
            line = read_line(f)
            if not line:
                return None, 0
            head = _parse(line)
            if type(head.get("j")) is not int or type(head.get("q")) is not int \
                    or type(head.get("n")) is not int or head["n"] < 0:
                raise ValueError("header")
            records = []
            inline = head.pop("r", None)  # the records in the header's line (write)
            if inline is not None:
                if type(inline) is not list or len(inline) != head["n"]:
                    raise ValueError("records")
                for r in inline:
                    records.append(_record(r))
            while len(records) < head["n"]:
                records.append(_parse(read_line(f), True))
            if f.readline(1):
                raise ValueError("more records than the header says")
        except Exception:  # ValueError, UnicodeError, OSError: the entry is damaged
            return None, 1
        finally:
            f.close()
        return (head["j"], n, head, records), 0

    def hint(self):
        """The newest entry's play hint ("" with none, or one that is not a string)."""
        p = self.entries[-1][2].get("p", "") if self.entries else ""
        return p if isinstance(p, str) else ""

    # -- a pass: one entry -----------------------------------------------------------------------
    def write(self, seq, hint, settings, records):
        """One entry: the records (their first is number `seq`), the hint, the settings
        changed (a dict, or None), on flash when this returns (OSError if not). A press's
        pass runs this before its LED: its slot was opened in an idle pass (open_next), so it
        only formats, writes and closes."""
        head = {"j": self.next, "q": seq, "n": len(records), "p": hint}
        if settings:
            head["s"] = settings
        packed = records
        for r in records:
            if type(r) is not list:  # a record the controller did not pack (rarely)
                packed = [r if type(r) is list else _packed(r) for r in records]
                break
        head["r"] = packed  # one line, one dumps: a draw's three records and all
        text = dumps(head, separators=_SEP)
        del head["r"]  # the entry kept in RAM keeps its records apart (let go when moved)
        if len(text) < LINE_MAX:
            text += "\n"
        else:  # too long for a line: the header, then a line a record (as older firmware)
            text = dumps(head, separators=_SEP) + "\n"
            for r in packed:
                line = dumps(r, separators=_SEP)
                if len(line) >= LINE_MAX:  # what the log makes of it anyway (logline.seal)
                    line = dumps({"ev": "too long",
                                  "was": str(r[0] if type(r) is list else r.get("ev"))[:40]},
                                 separators=_SEP)
                text += line + "\n"
        folders = self.folders
        if not folders or folders[-1][1] >= SLOTS:
            if self.ready is None:
                raise OSError(28)  # no slot left: the store catches up first (Store.commit)
            folders.append([self.ready, 0])
            self.ready = None
        folder = folders[-1]
        opened, self.opened = self.opened, None
        if opened is not None and (opened[0] != folder[0] or opened[1] != folder[1]):
            opened[2].close()  # not this slot (it cannot be): let go, a commit of the empty
            opened = None      # slot it was
        f = opened[2] if opened else self.fs.open(self._path(folder[0], folder[1]), "wb")
        try:
            f.write(text.encode() if _BYTES else text)
        finally:
            f.close()
        folder[1] += 1
        self.entries.append((self.next, folder[0], head, records))
        self.next += 1

    # -- idle passes: open the next slot, make the next folder, drop the used ones ------------------
    def open_next(self):
        """Open the slot the next entry goes to, so that the press's pass only writes and
        closes it (the commit). Opening finds the path in littlefs: each folder on the way
        read and checked from flash, 35-50 us on native MicroPython here, about 6-9 ms on
        the chip's estimate; the write and close are 6-20 us. It writes nothing: the slot
        exists (empty), and "wb" truncates it in the close's commit. -> True if opened."""
        if self.opened is not None:
            return False
        if self.folders and self.folders[-1][1] < SLOTS:
            n, slot = self.folders[-1]
        elif self.ready is not None:
            n, slot = self.ready, 0
        else:
            return False
        self.opened = (n, slot, self.fs.open(self._path(n, slot), "wb"))
        return True

    def prepare(self):
        """One step of making the next folder ready (a folder, then each slot, then the
        rename out of the current one). -> True if a step was taken."""
        if self.ready is not None:
            return False
        if self.making is None:
            # made inside the newest folder, whose block has room for its commits (above)
            newest = max([f[0] for f in self.folders] or [0])
            parent = self.root + (PREFIX + "%06d/" % newest if self.folders else "")
            self.making = [newest + 1, -1, parent]
        n, step, parent = self.making
        tmp = parent + PREFIX + "%06d.tmp" % n
        if step < 0:
            self.fs.mkdir(tmp)
        elif step < SLOTS:
            self.fs.open(tmp + "/%d" % step, "wb").close()
        else:
            self.fs.rename(tmp, self.root + PREFIX + "%06d" % n)
            self.ready = n
            self.making = None
            return True
        self.making[1] += 1
        return True

    def out_of_slots(self):
        """Whether the next entry has no slot to go to: none free here, none made ready."""
        return self.ready is None and (not self.folders or self.folders[-1][1] >= SLOTS)

    def drop(self, kept):
        """Remove one used-up folder whose entries are all kept elsewhere (kept(entry) says
        so), but never the one holding the newest entry (the current hint), a file operation
        a call: the rename, each slot, the folder (each a commit, which may compact a folder:
        an erase). -> True if a step was taken."""
        if self.dropping is not None:
            path = self.root + self.dropping
            slots = self.fs.listdir(path)
            if slots:
                self.fs.remove(path + "/" + slots[0])
            else:
                self.fs.rmdir(path)
                self.dropping = None
            return True
        if len(self.folders) < 2 or self.folders[0][1] < SLOTS:
            return False
        n = self.folders[0][0]
        mine = [e for e in self.entries if e[1] == n]
        if not all(kept(e) for e in mine):
            return False
        # renamed first, in one commit: a cut while its slots go leaves a .tmp folder (removed
        # at boot), never a folder that reads as damaged, its first slots missing
        name = self.root + PREFIX + "%06d" % n
        self.fs.rename(name, name + ".tmp")
        self.folders.pop(0)
        self.entries = [e for e in self.entries if e[1] != n]
        self.dropping = PREFIX + "%06d.tmp" % n  # emptied and removed by the calls to come
        return True

    def _remove(self, path):
        """A file, or a folder and what it holds (a folder half made inside it, at most)."""
        try:
            self.fs.remove(path)
            return
        except OSError:  # a folder (littlefs removes only an empty one; os never does)
            pass
        for name in self.fs.listdir(path):
            self._remove(path + "/" + name)
        self.fs.rmdir(path)

    def _path(self, n, slot):
        return self.root + PREFIX + "%06d/%d" % (n, slot)


def _parse(line, record=False):
    """One whole line of an entry -> its object (ValueError if it is not a whole line
    holding an object, or for a record, a packed one)."""
    if not line.endswith(b"\n"):
        raise ValueError("not a whole line")
    obj = loads(line.decode())
    return _record(obj) if record else _object(obj)


def _record(obj):
    """A record as read: a packed one (a list) as a dict, an object as it is."""
    if isinstance(obj, list):
        names = PACKED.get(obj[0]) if obj and isinstance(obj[0], str) else None
        if names is None or len(obj) != len(names) + 1:
            raise ValueError("not a packed record")
        return unpacked(obj)
    return _object(obj)


def _object(obj):
    if not isinstance(obj, dict):
        raise ValueError("not an object")
    return obj


def _packed(record):
    """A record as written in an entry: a list of its event and its fields in PACKED's
    order, if its fields are those; else the record itself."""
    ev = record.get("ev")
    names = PACKED.get(ev) if type(ev) is str else None
    if names is None or len(record) != len(names) + 1:
        return record
    values = [ev]
    try:
        for name in names:
            values.append(record[name])
    except KeyError:  # the same number of fields, not the same ones
        return record
    return values
