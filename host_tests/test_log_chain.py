"""The log (issues 9 and 10): hash-chained records, segments dropped only once exported,
floods merged, flash failures retried from RAM, an action left open closed as lost.

On CPython with the fake littlefs (fakeflash.py) and the fake board (vmlib/hardening_board.py);
the store's VM and mpy-cross checks are in test_store.py. test_zz_log_figures prints the
figures the report quotes (run with -s).
"""
import json
import os
import random
import sys

import pytest

from conftest import ROOT
from carddraw import config
from carddraw.app import App
from carddraw.controller import Controller
from carddraw.store import Store, older
from fakeflash import FakeFlash, PowerCut

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import hardening_board  # noqa: E402
import logchain  # noqa: E402

FIGURES = {}
ACTION_RECORDS = [
    {"ev": "start", "ms": 10, "skill": "surgery", "deck": [5, 2, 1, 1], "chance": 0.41},
    {"ev": "draw", "ms": 20, "n": 1, "card": "black", "deck": [5, 2, 1, 1], "timed": False},
    {"ev": "accept", "ms": 30, "n": 1, "card": "black", "deck": [5, 2, 1, 0], "state": "failed"},
    {"ev": "end", "ms": 40, "outcome": "failed", "successes": 0, "needed": 2, "draws": 1},
]


def lines_of(store):
    out = []
    store.read_log(out.append, raw=True)
    return out


def a_log(n=12):
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=4000)
    for i in range(n):
        assert s.log({"ev": "draw", "ms": i, "n": i})
    return fs, s, lines_of(s)


# -- the hash chain (tools/logchain.py) --------------------------------------------------------
def test_a_fresh_log_verifies_and_every_line_ends_in_its_hash():
    fs, s, lines = a_log()
    assert logchain.verify(lines) == (True, None, "verified: 12 records, seq 1 to 12")
    for i, line in enumerate(lines):
        text, h = logchain.split(line)
        assert json.loads(text)["seq"] == i + 1 and line.endswith(',"h":"%s"}' % h)
    assert logchain.head(lines) == s.last()[1] and s.last()[0] == 12


def test_a_changed_record_is_named():
    lines = a_log()[2]
    lines[4] = lines[4].replace('"n":4', '"n":9')  # the hash left as it was
    assert logchain.verify(lines) == (False, 4, "record 5 (line 5) was changed (its hash does not match its text)")


def test_a_removed_record_is_named():
    lines = a_log()[2]
    del lines[6:8]
    assert logchain.verify(lines) == (False, 6, "2 records removed before record 9 (line 7) (seq 7 to 8 missing)")


def test_an_inserted_record_is_named():
    lines = a_log()[2]
    forged = logchain.seal("0" * 12, '{"ev":"draw","n":99,"seq":4}')[0]
    lines.insert(3, forged)
    ok, bad, why = logchain.verify(lines)
    assert (ok, bad) == (False, 3) and why == "record 4 (line 4) was inserted (the record after it chains from the one before it)"
    lines[3] = '{"ev":"draw","n":99}'
    assert logchain.verify(lines) == (False, 3, "line 4 has no hash: inserted or damaged")


def test_a_copied_record_is_named_as_inserted_and_the_last_cannot_hide_without_the_head():
    lines = a_log()[2]
    assert logchain.verify(lines[:5] + [lines[2]] + lines[5:])[:2] == (False, 5)
    # removing the newest records keeps a valid chain: the head kept beside an export shows it
    head = logchain.head(lines)
    assert logchain.verify(lines[:-1])[0] and logchain.head(lines[:-1]) != head


def test_verify_continues_from_a_given_previous_hash():
    lines = a_log()[2]
    prev = logchain.split(lines[5])[1]
    assert logchain.verify(lines[6:], prev)[0]
    assert logchain.verify(lines[7:], prev) == (
        False, 0, "record 8 (line 1) does not follow the given previous hash: records before it removed")


# -- segments, export, floods ------------------------------------------------------------------
def test_history_is_never_dropped_before_it_was_exported():
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=12_000)  # segments of 3,000 bytes: room for the queue
    for r in ACTION_RECORDS:
        assert s.log(r)
    n = 0
    while s.log({"ev": "settings", "ms": n, "ranks": n}):  # distinct records: no merging
        n += 1
    assert s.full and s.take_notices() == ["log full: export"] and n > 20
    recs = s.read_log()[0]
    assert recs[:4] == ACTION_RECORDS  # the action is still there, whole
    for i in range(config.LOG_QUEUE + 9):  # waiting in RAM (63 more fit), then only counted
        assert not s.log({"ev": "settings", "ms": n + 1 + i, "ranks": n + 1 + i})
    # the bench saves the log and acknowledges: the oldest segments go, the waiting records
    # are written in order, then the count of the ones that could not wait
    last_seq, last_h = s.last()
    assert s.ack(last_seq, "0" * 12) == "record %d's hash is not 000000000000: export the log again" % last_seq
    assert s.ack(last_seq + 5, last_h).startswith("no record %d" % (last_seq + 5))
    assert s.ack(last_seq, last_h) is None
    assert not s.full and fs.flash[config.LOG_EXPORTED_FILE] == str(last_seq).encode()
    recs = s.read_log()[0]
    waited = [r["ranks"] for r in recs if r["ev"] == "settings" and r["ranks"] >= n]
    assert waited == list(range(n, n + config.LOG_QUEUE))  # the first refused one waited too
    assert recs[-1] == {"ev": "dropped", "n": 10}  # counted, never silent
    assert logchain.verify(lines_of(s))[0]


def test_2100_identical_seed_records_cannot_push_an_earlier_action_out():
    fs = FakeFlash()
    s = Store(fs=fs)  # the real limit
    for r in ACTION_RECORDS:
        s.log(r)
    for i in range(2100):
        s.log({"ev": "seed", "ms": 100 + i, "n": 1})
    s.log({"ev": "start", "ms": 9999, "skill": "scan"})
    recs = s.read_log()[0]
    assert recs[:4] == ACTION_RECORDS
    seeds = [r for r in recs if r["ev"] in ("seed", "repeat")]
    assert seeds[0] == {"ev": "seed", "ms": 100, "n": 1}
    assert 1 + sum(r["x"] for r in seeds[1:]) == 2100 and len(seeds) <= 10
    assert seeds[-1]["ms"] == 2199 and recs[-1]["ev"] == "start"
    FIGURES["log lines for 2,100 identical seed records"] = len(seeds)
    # and on a small log the flood still costs only a few lines: no need to drop anything
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=2000)
    for r in ACTION_RECORDS:
        s.log(r)
    for i in range(2100):
        s.log({"ev": "seed", "ms": 100 + i, "n": 1})
    assert s.flush() and not s.full and s.read_log()[0][:4] == ACTION_RECORDS


def test_an_error_repeated_on_every_pass_costs_a_counter():
    s = Store(fs=FakeFlash())
    for i in range(600):
        s.log({"ev": "error", "ms": i * 20, "why": "OSError: 5"})
    s.log({"ev": "resume", "screen": "setup"})
    recs = s.read_log()[0]
    assert [r["ev"] for r in recs] == ["error", "repeat", "repeat", "repeat", "resume"]
    assert [r["x"] for r in recs[1:4]] == [256, 256, 87] and recs[3]["ms"] == 599 * 20


# -- flash failures ----------------------------------------------------------------------------
def test_records_the_flash_refused_wait_in_ram_and_are_written_in_order_when_it_recovers():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.log({"ev": "a"})
    fs.failing = True
    for i in range(config.LOG_QUEUE + 5):
        assert not s.log({"ev": "draw", "n": i})
    assert s.take_notices()[-1] == "flash error" and not s.flush()
    fs.failing = False
    assert s.flush()
    recs = s.read_log()[0]
    assert [r.get("n") for r in recs[1:-1]] == list(range(config.LOG_QUEUE))
    assert recs[-1] == {"ev": "dropped", "n": 5}
    assert logchain.verify(lines_of(s))[0]


def test_a_full_flash_is_retried_too():
    fs = FakeFlash(capacity=600)
    s = Store(fs=fs)
    logged = 0
    while s.log({"ev": "draw", "n": logged}):
        logged += 1
    assert "flash error" in s.take_notices() and 3 < logged < 20
    fs.capacity = 10_000  # room again (a file deleted, say)
    assert s.log({"ev": "after"})
    recs = s.read_log()[0]
    assert [r.get("n") for r in recs[:-1]] == list(range(logged + 1)) and recs[-1] == {"ev": "after"}


def boot_app(fs, now=10_000, seed=3):
    board = hardening_board.Board()
    store = Store(fs=fs)
    app = App(board, store, random.Random(seed), now, write=lambda s: None)
    return app, store, board


def press(app, board, name, now):
    board.buttons.push(name)
    app.loop_pass(now)


def test_app_marks_nothing_saved_until_written_and_shows_the_failure():
    fs = FakeFlash()
    app, store, board = boot_app(fs)
    press(app, board, "DRAW", 10_100)  # set-up -> the action starts
    app.loop_pass(10_120)
    assert app.controller.action is not None
    fs.failing = True
    press(app, board, "DRAW", 10_200)  # a draw the flash refuses
    app.loop_pass(10_220)
    state = app.controller.resume_state()
    assert json.loads(fs.flash[config.ACTION_FILE]) != state   # not on flash ...
    assert app.saved_resume != app.controller.resume_version     # ... so not marked saved
    assert board.display.shown[-1].strip() == "flash error"      # and said on screen
    fs.failing = False
    app.loop_pass(10_240)  # the next pass writes it
    assert json.loads(fs.flash[config.ACTION_FILE]) == state
    assert app.saved_resume == app.controller.resume_version
    recs = Store(fs=fs.reboot()).read_log()[0]
    assert [r["ev"] for r in recs if r["ev"] in ("start", "draw")] == ["start", "draw"]


def test_settings_the_flash_refused_are_saved_when_it_recovers():
    fs = FakeFlash()
    app, store, board = boot_app(fs)
    fs.failing = True
    app.controller.settings["ranks"] = 4
    app.controller.settings_version += 1
    app.loop_pass(10_100)
    assert config.SETTINGS_FILE not in fs.flash
    fs.failing = False
    app.loop_pass(10_120)
    assert json.loads(fs.flash[config.SETTINGS_FILE])["ranks"] == 4


# -- an action left open -----------------------------------------------------------------------
def played_until_black():
    """A flash whose log shows an action started and not ended (a black on show)."""
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(dict(config.defaults(), black=9, referee=True)).encode()})
    app, store, board = boot_app(fs)
    now = 10_100
    press(app, board, "DRAW", now)
    for _ in range(20):
        now += 100
        press(app, board, "DRAW", now)
        if app.controller.view().led == "black":
            break
    assert app.controller.view().led == "black"
    app.loop_pass(now + 20)
    return fs


@pytest.mark.parametrize("spoil", ["deleted", "damaged", "emptied"])
def test_a_lost_action_file_leaves_the_action_failed_as_lost(spoil):
    fs = played_until_black()
    before = Store(fs=fs.reboot()).read_log()[0]
    flash = dict(fs.flash)
    if spoil == "deleted":
        del flash[config.ACTION_FILE]
    else:
        flash[config.ACTION_FILE] = b"" if spoil == "emptied" else b'{"v": 1, "action": {"skil'
    fs2 = FakeFlash(flash)
    app, store, board = boot_app(fs2, now=50_000)
    app.loop_pass(50_020)
    assert board.display.shown[-1].strip() == "action lost"
    recs = Store(fs=fs2.reboot()).read_log()[0]
    new = recs[len(before):]
    lost = {"ev": "end", "outcome": "lost", "why": "action file " + ("missing" if spoil == "deleted" else "damaged")}
    assert lost in new and all(r["ev"] in ("damage", "end") for r in new[:new.index(lost) + 1])
    assert app.controller.action is None
    # once closed it stays closed: the next boot says nothing more
    app2, _, board2 = boot_app(FakeFlash(fs2.flash), now=90_000)
    app2.loop_pass(90_020)
    assert app2.notices == [] and Store(fs=FakeFlash(fs2.flash)).read_log()[0] == recs


def test_no_lost_action_when_the_last_action_ended_or_on_a_fresh_device():
    s = Store(fs=FakeFlash())
    assert s.load_action() == (None, None) and s.read_log() == ([], 0)  # fresh: no log at all
    fs = FakeFlash()
    s = Store(fs=fs)
    for r in ACTION_RECORDS:
        s.log(r)
    for i in range(300):  # the end far back: read backwards past a few chunks
        s.log({"ev": "settings", "ms": i, "ranks": i})
    assert Store(fs=fs.reboot()).load_action() == (None, None)
    assert Store(fs=fs.reboot()).read_log()[0][-1] == {"ev": "settings", "ms": 299, "ranks": 299}


def test_the_open_action_check_costs_a_few_reads():
    fs = played_until_black()
    flash = dict(fs.flash)
    del flash[config.ACTION_FILE]
    fs_kept = FakeFlash(dict(fs.flash))
    boot_app(fs_kept, now=50_000)
    with_file = fs_kept.ops
    fs_lost = FakeFlash(flash)
    boot_app(fs_lost, now=50_000)
    FIGURES["boot: flash operations with action.json there"] = with_file
    FIGURES["boot: flash operations with action.json missing (check + lost record)"] = fs_lost.ops
    assert fs_lost.ops - with_file <= 12


# -- older firmware's log ----------------------------------------------------------------------
def test_migration_survives_a_power_cut_at_every_step():
    old1 = b"".join(json.dumps({"ev": "draw", "n": i}).encode() + b"\n" for i in range(20))
    old = b"".join(json.dumps({"ev": "draw", "n": i}).encode() + b"\n" for i in range(20, 30))
    files = {older(config.LOG_FILE): old1, config.LOG_FILE: old}
    clean = FakeFlash(files)
    Store(fs=clean).log({"ev": "boot"})
    total = clean.ops
    for cut in range(1, total + 1):
        fs = FakeFlash(files, cut_at=cut)
        with pytest.raises(PowerCut):
            Store(fs=fs).log({"ev": "boot"})
        s = Store(fs=fs.reboot())
        recs = s.read_log()[0]
        ns = [r["n"] for r in recs if r["ev"] == "draw"]
        assert ns == list(range(30)), cut  # every old record once, in order
        assert logchain.verify(lines_of(s))[0], cut
    assert total >= 6


# -- figures -----------------------------------------------------------------------------------
def test_zz_log_figures():
    """Bytes per record before and after the hash, and the log's capacity in actions, from
    actions played through the controller (random presses)."""
    rng = random.Random(5)
    c = Controller(dict(config.defaults(), yellow=2, red=1, black=1, needed=3, ranks=3), rng, 0)
    records = []
    now = 0
    actions = 0
    for _ in range(20_000):
        if actions >= 200:
            break
        now += 700
        c.tick(now)
        c.press(rng.choice(("DRAW", "DRAW", "DRAW", "DRAW", "RANK", "HELP", "STOP")), now)
        for r in c.take_log():
            records.append(r)
            actions += r["ev"] == "start"
    fs = FakeFlash()
    s = Store(fs=fs)
    for r in records:
        s.log(r)
    plain = sum(len(json.dumps(r, separators=(",", ":"))) + 1 for r in records)
    on_flash = sum(len(fs.flash[n]) for n in fs.flash if n.startswith("log.0"))
    written = len(lines_of(s))
    FIGURES["bytes per record before (no seq, no hash)"] = round(plain / len(records), 1)
    FIGURES["bytes per record with seq and hash"] = round(on_flash / written, 1)
    FIGURES["bytes per action on flash"] = round(on_flash / actions)
    FIGURES["actions in 512 KB"] = config.LOG_LIMIT * actions // on_flash
    assert actions >= 100 and on_flash / written - plain / len(records) < 35
    print()
    for k, v in FIGURES.items():
        print("  %s: %s" % (k, v))
