"""The idle passes' work, a step at a time (store.Store.housekeep): each step one change to the
filesystem (settings.json's whole write and a segment's making, each one file), an erase at
most; a pass that finds a journal slot ready erases nothing; an exported segment goes in a
step of its own; a backlog of records goes over several steps, a few records each."""
import random

from carddraw import config
from carddraw.journal import DIR as J
from carddraw.logexport import ack
from carddraw.store import Store
from fakeflash import FakeFlash
from storekit import LIMIT, Changes, a_day_at_the_table, logchain
from storelog import last, read_log


def test_each_housekeeping_step_changes_one_file_or_folder():
    """An idle pass's work is one change to the filesystem (an append's write and its close
    are two passes: littlefs erases for each), or two to one file: settings.json written
    whole (its .tmp written, then renamed over it, in state/), an empty file made (the .tmp
    beforehand, a new segment in log/, a journal slot: its name, then its close). No idle
    pass changes two files or folders."""
    fs = Changes(FakeFlash())
    s = Store(fs=fs, log_limit=LIMIT, segment=LIMIT // 4)
    s.load_settings()               # as the app boots: a fresh device gets its settings.json
    steps = most = 0
    kinds = set()
    then = [("pass", [{"ev": "draw", "n": 99}], dict(config.defaults(), ranks=9), "x")]
    for step in a_day_at_the_table() + then + [("idle",)] * 40:
        if step[0] == "pass":
            assert s.commit(*step[1:])
            continue
        before = len(fs.paths)
        worked = s.housekeep()
        changed = fs.paths[before:]
        assert worked or not changed
        most = max(most, len(changed))
        if len(changed) > 1:
            names = {p.replace(".tmp", "") for p in changed}
            assert len(names) == 1, changed
            kinds.add(names.pop().split("/")[0])
        steps += worked
    assert steps > 50 and most == 2 and kinds == {"state", "log", "journal"}
    assert not s.waiting() and not s.moving()


def test_no_idle_pass_erases_twice_and_no_pass_with_a_slot_erases_at_all():
    """On littlefs, over many journal folders: an idle pass's step erases one block at most
    (making the next folder erases its new block; its parent, the current folder, has room
    for the commit), and a pass that finds a slot ready erases nothing, its entry one or two
    pages (a pass of a draw, its acceptance and the action's end) however the folder's slots
    were used. Made in the root, a folder's making compacted the root as well, now and then:
    two erases, 91 ms of flash in one pass. (littlefs itself can still erase twice in one
    call, rarely: a new segment's block and the root's compaction in one close, or the
    superblock's expansion; 3 of 31,700 idle steps in a run of 6,000 passes, not here.)"""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    rnd = random.Random(3)
    idle_most = commits = 0
    pages = set()
    for i in range(240):
        pad = "p" * rnd.choice((10, 10, 150, 250))   # entries of one page and of two
        ready = not s.journal.out_of_slots()
        with fs.chip.counting() as c:
            assert s.commit([{"ev": "draw", "n": i, "pad": pad}], None, "d")
        if ready:
            assert c.erases == 0, i
            pages.add(c.pages)
            commits += 1
        for _ in range(rnd.choice((0, 1, 3, 12))):   # presses with no idle pass between, too
            with fs.chip.counting() as c:
                s.housekeep()
            idle_most = max(idle_most, c.erases)
    assert idle_most == 1 and pages == {1, 2} and commits > 200
    assert len(fs.listdir(J)) <= 4       # folders come and go: the current, the ready, ...
    records, damaged = read_log(Store(fs=fs.reboot()))
    assert [r["n"] for r in records if r.get("ev") == "draw"] == list(range(240)) and not damaged


def test_an_exported_segment_goes_in_an_idle_step_of_its_own():
    """A full log whose records were exported: the oldest segment goes to make room, in a
    housekeeping step of its own, and the records move on in the steps after (its removal
    and the new segment's making in one pass could each compact the root)."""
    fs = Changes(FakeFlash())
    s = Store(fs=fs, log_limit=LIMIT, segment=LIMIT // 4)
    s.load_settings()
    i = 0
    while not s.logfile.full:   # play fills the log
        assert s.commit([{"ev": "draw", "n": i, "pad": "p" * 60}], None, "d")
        while s.housekeep():
            pass
        i += 1
    assert ack(s, s.logfile.seq, s.logfile.hash_of(s.logfile.seq)) is None
    first = s.logfile.segs[0]
    opened = []     # files opened to be written, by the step now
    real_open = fs.fs.open
    fs.fs.open = lambda path, mode="r": (opened.append(path) if "r" not in mode else None,
                                         real_open(path, mode))[1]
    removals = []   # (changes, files opened for writing) of each step that removed a segment
    for j in range(i, i + 40):
        assert s.commit([{"ev": "draw", "n": j, "pad": "p" * 60}], None, "d")
        while True:
            before, segs = fs.n, list(s.logfile.segs)
            del opened[:]
            if not s.housekeep():
                break
            if set(segs) - set(s.logfile.segs):
                removals.append((fs.n - before, len(opened)))
    assert first not in s.logfile.segs and len(removals) >= 2 and set(removals) == {(1, 0)}
    records = [r["n"] for r in read_log(Store(fs=fs.fs.reboot(), log_limit=LIMIT,
                                     segment=LIMIT // 4))[0] if r.get("ev") == "draw"]
    assert records[-40:] == list(range(i, i + 40))


def test_an_idle_pass_seals_a_few_records_and_a_backlog_goes_over_several():
    """Sealing a record (its JSON and hash) is milliseconds on the chip: an idle pass's
    append takes at most logfile.HOLD_MOST of them, so the records of many presses reach the
    log over several passes, in order, each once, the chain whole."""
    from carddraw.logfile import HOLD_MOST
    s = Store(fs=FakeFlash())
    assert s.commit([{"ev": "start", "skill": "scan"}], config.defaults(), "d")
    sent = [{"ev": "draw", "n": n, "card": "green"} for n in range(1, 3 * HOLD_MOST)]
    half = len(sent) // 2
    assert s.commit(sent[:half], None, "") and s.commit(sent[half:], None, "")  # two passes
    grew = []
    finish = s.logfile.finish

    def closing():
        before = s.logfile.seq
        closed = finish()
        if closed:
            grew.append(s.logfile.seq - before)
        return closed
    s.logfile.finish = closing
    while s.housekeep():
        pass
    assert max(grew) == HOLD_MOST and sum(grew) == len(sent) + 1 and len(grew) >= 3
    records, damaged = read_log(Store(fs=s.fs.reboot()))
    assert records[-len(sent):] == sent and damaged == 0
    lines, _ = read_log(Store(fs=s.fs.reboot()), raw=True)
    assert logchain.verify(lines)[0]


def test_block_room_is_littlefs_own_arithmetic():
    """logfile.block_room(size): the bytes an append to a closed file of `size` bytes takes
    in one fresh block. littlefs itself says so: an append of that many costs one erase
    before its close, one byte more costs two."""
    from carddraw.logfile import block_room
    rng = random.Random(3)
    sizes = [1, 100, 4000, 4088, 4095, 4096, 4097, 8176, 8180, 8192, 12264, 16000, 16384]
    sizes += [rng.randrange(1, 20000) for _ in range(30)]
    fs = FakeFlash()
    for size in sizes:
        room = block_room(size)
        for n, erases in ((room, 1), (room + 1, 2)):
            with fs.open("f", "wb") as f:
                f.write(b"x" * size)
            f = fs.open("f", "ab")
            with fs.chip.counting() as c:
                f.write(b"y" * n)
            f.close()
            assert c.erases == erases, (size, room, n)
            fs.remove("f")



def test_a_settings_write_erases_once_at_most_whatever_the_folder_holds():
    """settings.json's write in an idle step (its .tmp made empty in the step before, then
    written and renamed over it) erases one block at most, whatever state/ holds and however
    long the settings: a .tmp made and written in one call erased twice every third write
    (littlefs compacted the folder at the file's making, then again at its close)."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    rnd = random.Random(5)
    most = writes = 0
    for i in range(150):
        code = "%d$" % rnd.choice((4, 8)) + "ab" * 8 + "$" + "cd" * 32
        recovery = rnd.choice(("", "12$" + "ab" * 8 + "$" + "cd" * 32))
        settings = dict(config.defaults(), ranks=1 + i % 9, lock=code, recovery=recovery,
                        lock_fails=rnd.randrange(0, 10000))
        assert s.commit([], settings, "x")
        if i % 10 == 9:
            assert s.log({"ev": "draw", "n": i}) and ack(s, *last(s)) is None  # log.exported
        while True:
            j = s.settings.j
            with fs.chip.counting() as c:
                worked = s.housekeep()
            if not worked:
                break
            writes += s.settings.j != j
            most = max(most, c.erases)
    assert writes >= 100 and most == 1


def test_the_next_slot_is_opened_in_an_idle_step_and_a_commit_only_writes_it():
    """The one piece of the journal's work left across passes for a draw's LED: an idle step
    opens the next entry's slot (its path looked up in littlefs, nothing written: the slot is
    as it was), and the pass that commits writes and closes it, opening nothing; a commit
    that finds the slot opened for another (a catch-up moved on) lets it go and opens its
    own. The power-cut search (test_power_cuts.py) cuts around it."""
    opened = []

    class Counting(FakeFlash):
        def open(self, path, mode):
            opened.append((path, mode))
            return FakeFlash.open(self, path, mode)
    fs = Counting()
    s = Store(fs=fs)
    s.load_settings()
    for _ in range(40):
        s.housekeep()
    assert s.journal.opened is not None
    slot = s.journal._path(*s.journal.opened["where"])
    assert fs.read_file(slot) == b""                  # opened ahead: still the empty slot
    del opened[:]
    assert s.commit([{"ev": "draw", "n": 1}], None, "d")
    assert opened == [] and s.journal.opened is None  # the commit only wrote and closed it
    assert fs.read_file(slot).startswith(b"{\"j\":")
    s.housekeep()
    assert s.journal.opened is not None and s.journal.opened["where"][1] == 1
