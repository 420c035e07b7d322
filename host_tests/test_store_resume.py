"""The resume after a power cut: Store.open_action streams the log's last action from its start
record (the log's lines, then the journal's records not yet moved into the log), one record
at a time, in a fixed amount of RAM whatever the log holds (issue 34: a flood of refused
code tries after the last start made the boot fail with MemoryError), and without moving the
journal first (a full log brought no action back: a drawn black disappeared)."""
import os
import tracemalloc

import pytest

from carddraw import config
from carddraw.store import Store
from conftest import FIRMWARE, ROOT
from fakeflash import FakeFlash
from storekit import chain_ok, opened, segment_files

sys_path = os.path.join(ROOT, "tools")
START = {"ev": "start", "ms": 1, "skill": "surgery", "ranks": 2, "helpers": 0, "bonus": 0,
         "difficulty": [0, 0, 0, 1], "needed": 2, "auto": 0, "redraws": 0, "referee": True,
         "timed": False, "interval": 45, "chain": False, "chance": 0.5, "deck": [4, 2, 1, 1]}
ENDED = [dict(START, ms=0), {"ev": "end", "ms": 0, "outcome": "stopped", "successes": 0,
                             "needed": 2, "complications": 0, "draws": 0}]


def draw(n, card, ms=None):
    return {"ev": "draw", "ms": ms or 100 * n, "n": n, "card": card, "deck": [4, 2, 1, 1],
            "timed": False}


def accept(n):
    return {"ev": "accept", "ms": 100 * n, "n": n, "card": "green", "deck": [4, 2, 1, 1],
            "state": "active", "successes": 1, "complications": 0}


def lock(i):
    """A refused code try, as the lock logged each one (two kinds alternating: no repeats)."""
    return {"ev": "lock", "ms": 1000 + i, "result": "wrong", "presses": 4 if i % 2 else 12}


def test_open_action_streams_the_records_in_order_and_moves_nothing():
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    for r in ENDED + [START, draw(1, "green")]:
        assert s.commit([r], None, "")
    while s.housekeep():
        pass
    assert s.commit([accept(1)], None, "d") and s.commit([draw(2, "red")], None, "")
    log = dict(fs.flash)
    again = Store(fs=fs.reboot())
    records, hint = again.open_action()
    assert not isinstance(records, (list, tuple)) and hint == ""
    assert next(records) == START          # one at a time, from the last start
    assert list(records) == [draw(1, "green"), accept(1), draw(2, "red")]
    assert again.fs.flash == log           # nothing moved into the log, nothing written


def test_a_full_log_with_the_journal_unmoved_brings_the_action_back_its_black_waiting():
    """Issue 34, item 2: the action's draws fill the log to its limit, then a black is drawn
    with a referee present (the journal holds it: the log takes no more); after a power cut
    the boot brings the action back from the log and the journal, the black last, still
    waiting for the referee: no end, no referee record."""
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=8192, segment=2048)
    s.load_settings()
    for r in ENDED:
        assert s.commit([r], None, "")
    assert s.commit([START], None, "")
    n = 0
    while not s.logfile.full:  # play's records take the room held back for the action
        n += 1
        assert s.commit([draw(n, "green"), accept(n)], None, "")
        for _ in range(6):
            s.housekeep()
    black = draw(n + 1, "black")
    assert s.commit([black], None, "")
    assert not s.flush() and s.logfile.full
    again = Store(fs=fs.reboot(), log_limit=8192, segment=2048)
    again.load_settings()
    records, hint = opened(again)
    assert records[0] == START and records[-1] == black and hint == ""
    assert [r["n"] for r in records if r["ev"] == "draw"] == list(range(1, n + 2))
    assert not [r for r in records if r["ev"] in ("end", "referee")]
    assert "log full: export" not in again.take_notices()[:0]  # (said by the app's passes)


def resume_peak(locks):
    """Bytes CPython allocates at most while the resume reads an action whose start is
    followed by `locks` refused tries in the log and 3 passes of them in the journal."""
    records = ENDED + [START, draw(1, "black")] + [lock(i) for i in range(locks)]
    fs = FakeFlash(segment_files(records))
    s = Store(fs=fs)
    s.load_settings()
    for i in range(3):  # passes not yet moved into the log
        assert s.commit([lock(locks + 2 * i), lock(locks + 2 * i + 1)], None, "")
    s = Store(fs=fs.reboot())
    s.load_settings()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        stream, hint = s.open_action()
        count = 0
        for r in stream:
            count += 1
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert count == 2 + locks + 6
    return peak


def test_the_resume_holds_a_fixed_amount_of_memory_whatever_follows_the_start():
    """Issue 34, item 1, on CPython: ten times as many records after the last start cost the
    resume no more memory (a list of them grew by hundreds of bytes a record)."""
    few, many = resume_peak(300), resume_peak(3000)
    assert many < few + 16 * 1024, (few, many)
    assert many < 64 * 1024


NATIVE = """
import gc
gc.collect()
from carddraw.store import Store
s = Store(root=%r)
s.load_settings()
gc.collect()
base = gc.mem_alloc()
records, hint = s.open_action()
count = most = 0
first = last = None
for r in records:
    if first is None:
        first = r
    last = r
    count += 1
    if count %% 250 == 0:
        gc.collect()
        most = max(most, gc.mem_alloc() - base)
records = None
RESULT = {"count": count, "most": most, "first": first["ev"], "last": last, "hint": hint}
"""
STORE_MODULES = ("config", "settings", "flashfs", "logread", "journal", "logfile",
                 "store", "records")


@pytest.fixture(scope="module")
def store_mpy(tmp_path_factory):
    """The store's modules compiled by mpy-cross 1.29 as make deploy compiles them (the rest
    of the firmware left out: the store imports none of it)."""
    import sys
    sys.path.insert(0, sys_path)
    from native import runner
    why = runner.missing()
    if why:
        pytest.fail(why, pytrace=False)
    lib = tmp_path_factory.mktemp("store_mpy")
    os.mkdir(lib / "carddraw")
    import subprocess
    import build_mpy
    for name in STORE_MODULES:
        subprocess.run([build_mpy.MPY_CROSS, "-o", str(lib / "carddraw" / (name + ".mpy")),
                        "-s", name, "-X", "no-source-lines",
                        os.path.join(FIRMWARE, "carddraw", name + ".py")], check=True)
    return str(lib), runner


def test_the_resume_reads_thousands_of_refused_tries_in_a_picos_heap(store_mpy, tmp_path):
    """Issue 34, item 1, on native MicroPython from the .mpy files with a Pico-sized heap:
    5,000 refused code tries after the last start (the log about 400 KB), a black drawn
    before them, 3 passes still in the journal: the boot streams them all, its heap flat
    (it failed with MemoryError reading them into one list)."""
    lib, runner = store_mpy
    folder = str(tmp_path / "flash") + "/"
    os.makedirs(folder + config.LOG_DIR)
    records = ENDED + [START, draw(1, "black")] + [lock(i) for i in range(5000)]
    for path, data in segment_files(records).items():
        with open(folder + path, "wb") as f:
            f.write(data)
    s = Store(root=folder)  # CPython writes 3 passes into the journal, not moved on
    s.load_settings()
    for i in range(3):
        assert s.commit([lock(5000 + i)], None, "w")
    got = runner.run(NATIVE % folder, [lib])
    assert got["count"] == 2 + 5000 + 3 and got["first"] == "start"
    assert got["last"] == lock(5002) and got["hint"] == "w"
    assert got["most"] < 12 * 1024, got["most"]
    assert chain_ok(Store(root=folder))
