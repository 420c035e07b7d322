"""What the store's tests (test_store_*.py) share: the flash's files as the store lays them
out, good settings, sealed log lines, the day at the table whose every power cut the cut
tests boot, and a counter of the filesystem's changes.

Everything runs on fakeflash.FakeFlash: the board's littlefs (littlefs-python) on a chip in
RAM that can cut the power at any program or erase, torn writes included."""
import json
import os
import random
import sys

from hypothesis import HealthCheck, settings as hsettings

from carddraw import config
from carddraw.journal import DIR as J
from carddraw.logexport import ack
from carddraw.logfile import segment
from carddraw.logfile import OLDER_LOG
from carddraw.migrate import ACTION_FILE
from carddraw.settings import check
from carddraw.store import Store
from conftest import ROOT
from fakeflash import FakeFlash
from storelog import last, read_log

sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import logchain  # noqa: E402

SETTINGS = config.SETTINGS_FILE
ACTION = ACTION_FILE
LOG = config.LOG_FILE
LOG1 = OLDER_LOG  # older firmware's log files: migrated into segments at the first read or write
SEG1 = segment(1)
LIMIT = 6000  # the day below fills two segments of 1,500 bytes and starts a third
CODE = "4$" + "0123" * 4 + "$" + "ab" * 32  # a referee code as settings keep it
KEPT = "4$" + "ab" * 8 + "$" + "cd" * 32
GOOD = dict(config.defaults(), ranks=4, helpers=2, skill="scan", lock=KEPT, timed=True,
            interval=50, brightness=5, buzzer=False)
RANDOM = random.Random(1).randbytes(3000)
FAST = hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LOG_GOOD = [{"ev": "draw", "n": i} for i in range(6)]
BAD_LINES = {  # log lines a chip (or an editor) may spoil
    "truncated": b'{"ev": "draw", "n":',
    "list": b"[1, 2]",
    "number": b"7",
    "null": b"null",
    "string": b'"draw"',
    "invalid_utf8": b'{"ev": "\xff"}',
    "nul_bytes": b"\x00\x00\x00",
    "random_bytes": RANDOM.replace(b"\n", b""),
    "overlong_valid_json": json.dumps({"ev": "x" * 5000}).encode(),
    "control_chars": b"\x1b[2J\x07",
}


def segments(fs):
    return sorted(p for p in fs.flash if p.startswith(config.LOG_DIR + "log.0"))


def entries_on(fs):
    """The journal's entries on flash: {slot path: text}."""
    return {p: v for p, v in fs.flash.items() if p.startswith(J) and v}


def valid_settings(s):
    """Every key of config.defaults(), every value allowed."""
    assert set(s) == set(config.defaults())
    fixed, bad = check(s)
    assert bad == [] and fixed == s
    return True


def damage_records(fs, file):
    recs, _ = read_log(Store(fs=fs.reboot()))
    return [r for r in recs if r.get("ev") == "damage" and r.get("file") == file]


def lines_of(store):
    lines = []
    read_log(store, lines.append, raw=True)
    return lines


def chain_ok(store):
    return logchain.verify(lines_of(store))[0]


def opened(store):
    """open_action with its records read out of their stream: (records or None, hint)."""
    records, hint = store.open_action()
    return (None if records is None else list(records)), hint


def sealed_lines(records, seq=1, prev=""):
    """Log lines as the store writes them, seq numbers from `seq` on."""
    out = []
    for i, r in enumerate(records):
        line, prev = logchain.seal(prev, json.dumps(dict(r, seq=seq + i), separators=(",", ":")))
        out.append(line.encode())
    return out


def sealed(records):
    return b"".join(line + b"\n" for line in sealed_lines(records))


# -- a day at the table, and the runs of it whose power cuts are booted ----------------------------
def a_day_at_the_table():
    """The passes of a day at the table as the app commits them: each pass's records with
    the whole settings dict (only what changed goes on flash) and the play's hint; runs of
    passes that answer presses with no idle pass between (the journal's slots run out), and
    idle passes (housekeep) between others."""
    steps = []
    rng = random.Random(7)
    setting = config.defaults()
    hint = "x"
    for i in range(56):
        if i % 6 == 2:
            setting = dict(setting, ranks=1 + i % 9, lock=CODE.replace("0", "0123"[i % 4]),
                           timed=(i % 2 == 0), skill=config.SKILLS[i % 3])
        if i % 4 == 1:
            hint = ("d", "", "df", "ds", "x")[i % 5]
        records = [{"ev": "draw", "n": i, "card": rng.choice(["green", "yellow", "red"])}]
        if i % 7 == 3:
            records.append({"ev": "accept", "n": i})
        steps.append(("pass", records, dict(setting), hint))
        if not 20 <= i < 30:  # ten passes answering presses in a row
            steps += [("idle",)] * (i % 4)
    return steps


class Run:
    """Plays the steps on a store, remembering what had returned before each step."""

    def __init__(self, fs, limit=LIMIT):
        self.fs = fs
        self.base = fs.chip.progs + fs.chip.erases
        self.store = Store(fs=fs, log_limit=limit, segment=limit // 4)
        self.logged = []                   # records whose commit returned True
        self.settings = config.defaults()  # the settings of the last commit that returned
        self.hint = ""                     # the hint of the last commit that returned
        self.acked = 0                     # records in self.logged the bench acknowledged
        self.timeline = []                 # (operations before, after, step, state before)

    def ops(self):
        """Programs and erases since the run started (as cuts() counts them)."""
        return self.fs.chip.progs + self.fs.chip.erases - self.base

    def state(self):
        return len(self.logged), dict(self.settings), self.hint, self.acked

    def play(self, steps):
        for step in steps:
            before, state = self.ops(), self.state()
            kind = step[0]
            if kind == "pass":
                _, records, settings, hint = step
                assert self.store.commit(records, settings, hint)
                self.logged += records
                self.settings = settings or self.settings
                self.hint = hint
            elif kind == "ack":
                assert ack(self.store, *last(self.store)) is None
                self.acked = len(self.logged)
            elif kind == "save":
                assert self.store.save_settings(step[1])
                self.settings = step[1]
            else:
                self.store.housekeep()
            self.timeline.append((before, self.ops(), step, state))
        return self

    def around(self, n):
        """(step, state before it, state after it) of the step whose operations hold the
        n-th program or erase since the run started."""
        for i, (before, after, step, state) in enumerate(self.timeline):
            if before < n <= after:
                later = self.timeline[i + 1][3] if i + 1 < len(self.timeline) else self.state()
                return step, state, later
        raise AssertionError("no step holds operation %d" % n)


def recorded(steps, limit=LIMIT):
    """The steps played once on a recording chip: (the run, its cuts: a generator, each
    image 1.4 MB)."""
    fs = FakeFlash()
    fs.chip.record()
    run = Run(fs, limit).play(steps)
    return run, fs.chip.cuts()


def distinct(cuts):
    """Each image of the cuts once: a cut "before" the n-th operation leaves the very image a
    cut "after" the one before it leaves (littleflash yields the same object), booted once
    (as the earlier operation's), in all three modes."""
    last = None
    for n, mode, image in cuts:
        if image is not last:
            yield n, mode, image
        if mode == "after":
            last = image


def boot(fs, limit=LIMIT, chain=None):
    """As the app boots: the settings, the open action and its hint; then the whole log
    (and, given a list as chain, its lines as on flash)."""
    s = Store(fs=fs, log_limit=limit)
    settings, notice = s.load_settings()
    _, hint = opened(s)
    if chain is None:
        records, damaged = read_log(s)
    else:
        _, damaged = read_log(s, chain.append, raw=True)
        records = [{k: v for k, v in json.loads(line).items() if k not in ("seq", "h")}
                   for line in chain]
    return s, settings, notice, hint, records, damaged


def check_survivor(run, n, fs, limit=LIMIT, then=(), then_hint=None):
    """After a cut at operation n: the settings and hint of the last commit that returned
    (or of the one the power cut short), every record whose commit returned, in order, once
    (and the cut one's records, whole or not at all), a chain that verifies, no damage."""
    step, old, new = run.around(n)
    lines = []
    s, settings, notice, hint, records, damaged = boot(fs, limit, lines)
    records = [r for r in records if r not in then]  # what a boot cut short had logged
    count, old_settings, old_hint, _ = old
    assert settings in (old_settings, new[1])
    assert hint in (old_hint, new[2], then_hint)
    assert records in (run.logged[:count], run.logged[:new[0]])
    assert (notice, damaged, s.take_notices()) == (None, 0, [])
    assert logchain.verify(lines)[0]
    assert not any(p.endswith(".tmp") for p in fs.flash)  # a half-made folder went at boot
    return s


def as_older_firmware(fs):
    """The journal's folders, the state folder's files and the log's segments moved into the
    root, no journal/, state/ or log/: the older layout. -> the folders' names."""
    folders = sorted(n for n in fs.listdir(J) if n.startswith("j"))
    for name in folders:
        fs.rename(J + name, name)
    fs.rmdir(J)
    for folder in (config.STATE_DIR, config.LOG_DIR):
        for name in fs.listdir(folder):
            fs.rename(folder + name, name)
        fs.rmdir(folder)
    return folders


class Changes:
    """The store's filesystem, counting the calls that commit a change on littlefs: mkdir,
    rmdir, remove, rename, a file made by its open, a file written by its close."""

    def __init__(self, fs):
        self.fs = fs
        self.paths = []  # the path each change was to, in order (a rename's target)

    @property
    def n(self):
        return len(self.paths)

    def __getattr__(self, name):
        call = getattr(self.fs, name)
        if name in ("mkdir", "rmdir", "remove", "rename"):
            def changing(*args):
                self.paths.append(args[-1])
                return call(*args)
            return changing
        return call

    def open(self, path, mode="r"):
        if "r" in mode and "+" not in mode:
            return self.fs.open(path, mode)
        try:
            self.fs.stat(path)
        except OSError:
            self.paths.append(path)   # littlefs commits a new file's name at its open
        f = self.fs.open(path, mode)
        close = f.close

        def closing():
            self.paths.append(path)
            close()
        f.close = closing
        return f


def segment_files(records, size=config.LOG_SEGMENT):
    """A log's segments as the store writes them ({path: bytes}), of about `size` bytes each:
    sealed lines, seqs from 1, the hash chained."""
    files = {}
    prev = ""
    first, chunk = 1, []
    for i, r in enumerate(records, 1):
        line, prev = logchain.seal(prev, json.dumps(dict(r, seq=i), separators=(",", ":")))
        if chunk and sum(len(x) + 1 for x in chunk) + len(line) + 1 > size:
            files[segment(first)] = b"".join(x.encode() + b"\n" for x in chunk)
            first, chunk = i, []
        chunk.append(line)
    if chunk:
        files[segment(first)] = b"".join(x.encode() + b"\n" for x in chunk)
    return files
