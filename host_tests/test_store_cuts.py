"""The store under power cuts at every program and erase of the flash chip (littlefs-python
with the board's geometry, littleflash's record()/cuts(): each cut in three ways, the
operation not done, half done, done), and the power-cut invariants of the work idle passes
leave half done across passes (journal.py's and logfile.py's comments name them):
  - an append's lines written in one step, its file closed in the next;
  - a new segment made empty in a step of its own;
  - the journal's next folder made over steps as a .tmp inside the current one, a used one
    renamed .tmp and emptied over steps.
settings.json is written whole in one step (name.tmp, renamed over): a cut anywhere leaves
the old settings or the new, never an empty file nor the defaults."""
import json

import pytest

from carddraw import config
from carddraw.store import Store
from fakeflash import FakeFlash, PowerCut
from storekit import (LIMIT, SEG1, SETTINGS, Run, a_day_at_the_table, chain_ok, check_survivor,
                      distinct, opened, recorded, segments)
from storelog import read_log


def test_a_power_cut_at_every_operation_loses_nothing_committed():
    steps = a_day_at_the_table()
    run, cuts = recorded(steps)
    final = read_log(Store(fs=run.fs.reboot(), log_limit=LIMIT))[0]
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
            assert opened(Store(fs=s.fs.reboot(), log_limit=LIMIT))[1] == "d"
            assert read_log(Store(fs=s.fs.reboot(), log_limit=LIMIT))[0][-1] == {"ev": "after"}
    assert seen == {"pass", "idle"}  # cuts in the passes' commits and in the idle work
    assert tried == 2 * run.ops() + 1  # the first "before", then every "torn" and "after"


def test_a_cut_while_a_fresh_devices_idle_passes_make_its_folders_loses_nothing():
    """A fresh device's boot writes nothing (Store._ready): its idle passes make the three
    folders, then settings.json, a step each, and its first passes commit after them. A cut
    at any of their operations leaves a device that boots whole and goes on."""
    run, cuts = recorded([("idle",)] * 6 + a_day_at_the_table()[:4])
    assert sorted(run.fs.listdir("")) == ["journal", "log", "state"]
    tried = 0
    for n, mode, image in distinct(cuts):
        tried += 1
        s = check_survivor(run, n, FakeFlash(image=image))
        assert s.commit([{"ev": "after"}], hint="d")
        assert read_log(Store(fs=s.fs.reboot(), log_limit=LIMIT))[0][-1] == {"ev": "after"}
    assert tried == 2 * run.ops() + 1 and run.ops() > 10


def test_a_second_power_cut_during_the_boot_after_a_cut_loses_nothing():
    """The boot reads the journal and the log and writes its first pass (the resume
    record): the power may go again there, at any of its operations."""
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
        opened(s)
        assert s.commit([resume], hint="")
        for again, mode2, image2 in distinct(fs.chip.cuts()):
            check_survivor(run, n, FakeFlash(image=image2), then=[resume], then_hint="")
            boots += 1
    assert boots > 100 and len(sampled) == 6, (boots, sampled)


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
    assert SEG1 not in run.fs.flash and 3 <= len(segments(run.fs)) <= 8  # segments went
    every = [r["n"] for r in run.logged]
    acks = 0
    for n, mode, image in distinct(cuts):
        step, old, new = run.around(n)
        acks += step[0] == "ack"
        store = Store(fs=FakeFlash(image=image), log_limit=600)
        records, damaged = read_log(store)
        ns = [r["n"] for r in records]
        assert damaged == 0 and store.take_notices() == []
        # one run of the records logged, to the last whose commit returned (or the cut one's)
        end = every.index(ns[-1]) + 1 if ns else 0
        first = every.index(ns[0]) if ns else end
        assert ns == every[first:end] and end in (old[0], new[0]), n
        assert first <= old[3], n  # nothing logged after the last acknowledgement went
        assert chain_ok(store), n
    assert acks > 20


def settings_on(image):
    """settings.json as a cut left it (parsed), and what a boot loads."""
    fs = FakeFlash(image=image)
    raw = json.loads(fs.read_file(SETTINGS))
    return raw, Store(fs=fs).load_settings()


def test_a_cut_at_every_operation_of_a_settings_write_leaves_the_old_settings_or_the_new():
    """settings.json is written whole in one step, as settings.json.tmp renamed over it: in
    save_settings (the bench's) and in the idle pass that brings it up to the journal. A cut
    at any program or erase of either, in three ways, leaves a file that parses, holding
    the old settings or the new (never empty, never the defaults), and no notice."""
    old = dict(config.defaults(), ranks=2, lock="4$" + "0f" * 8 + "$" + "e1" * 32)
    new = dict(old, ranks=6, helpers=3, referee=True)
    newer = dict(new, ranks=8)
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    assert s.save_settings(old)
    fs.chip.record()
    assert s.save_settings(new)                  # whole, now
    assert s.commit([], newer, "x")              # a pass's change: in the journal first
    while s.housekeep():                         # the idle step that rewrites the file
        pass
    assert json.loads(fs.read_file(SETTINGS))["ranks"] == 8
    cuts = 0
    for n, mode, image in distinct(fs.chip.cuts()):
        raw, loaded = settings_on(image)
        assert {k: v for k, v in raw.items() if k != "j"} in (old, new, newer), (n, mode)
        assert loaded in ((old, None), (new, None), (newer, None)), (n, mode)
        cuts += 1
    assert cuts > 10


def test_a_cut_between_an_appends_write_and_its_close_loses_no_record():
    """A record moves into the log over two idle passes: its segment written, then closed.
    Until the close, the log (on flash and in RAM) is as before and the journal holds the
    record; a cut between the two passes, or at any operation of either, loses nothing and
    writes nothing twice."""
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.commit([{"ev": "start", "skill": "scan"}], config.defaults(), "d")
    while s.housekeep():
        pass
    seq = s.logfile.seq
    draw = {"ev": "draw", "n": 1, "card": "green"}
    assert s.commit([draw], None, "")
    fs.chip.record()
    while s.logfile.held is None:    # the next folder made ready first, then the write
        assert s.housekeep()
    assert s.logfile.seq == seq      # written, not closed: not in the log yet
    after_cut = Store(fs=fs.reboot())
    records, damaged = read_log(after_cut)
    assert records[-1] == draw and records.count(draw) == 1 and damaged == 0
    assert s.housekeep()              # the close
    assert s.logfile.held is None and s.logfile.seq == seq + 1
    for n, mode, image in distinct(fs.chip.cuts()):
        records, damaged = read_log(Store(fs=FakeFlash(image=image)))
        assert records[-1] == draw and records.count(draw) == 1 and damaged == 0, (n, mode)


def test_a_cut_after_a_new_segment_is_made_and_before_it_is_written_loses_nothing():
    """A new segment is made empty in an idle step of its own, named by the seq of the
    record it will hold first: a cut then leaves an empty newest segment; the boot reads
    every record, and the next append goes into that segment (its name still right)."""
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=2000, segment=500)
    made = None
    for i in range(40):
        assert s.commit([{"ev": "draw", "n": i, "pad": "p" * 40}], None, "d")
        while s.housekeep():
            if made is None and s.logfile.segs and s.logfile.cur == 0 and len(s.logfile.segs) > 1:
                made, committed = fs.reboot(), i + 1  # the step that made it, none written
    assert made is not None
    empty = [p for p in segments(made) if not made.flash[p]]
    assert len(empty) == 1
    s = Store(fs=made, log_limit=2000, segment=500)
    records, damaged = read_log(s)          # the journal's records moved on, into it
    first = int(empty[0][-12:-6])            # log.NNNNNN.jsonl: its first record's seq
    assert damaged == 0 and [r["n"] for r in records] == list(range(committed))
    assert chain_ok(s) and first <= committed
    assert s.commit([{"ev": "after"}], None, "") and s.flush()
    assert json.loads(made.read_file(empty[0]).split(b"\n")[0])["seq"] == first
    assert read_log(Store(fs=made.reboot(), log_limit=2000))[0][-1] == {"ev": "after"}
