"""The log: hash-chained records, segments dropped only once exported, floods merged,
records a refusing or full flash held back written in order when it recovers, an open action
whose records do not make an action closed as lost, older firmware's log migrated.

On CPython with littlefs (fakeflash.py) and the fake board (vmlib/hardening_board.py); the
store's VM and mpy-cross checks are in test_store.py. A pass's records go into the journal
(store.commit); idle passes, flush() and read_log() move them on into the log's segments.
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
from carddraw.logfile import segment
from carddraw.logfile import OLDER_LOG
from carddraw.logroom import KEPT
from carddraw.store import Store
from fakeflash import FakeFlash

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import hardening_board  # noqa: E402
from common import logchain  # noqa: E402

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
    s = Store(fs=fs, log_limit=12_000)  # segments of 3,000 bytes, 3,000 kept for an action
    for r in ACTION_RECORDS:
        assert s.log(r)
    n = 0
    while not s.logfile.full:  # play's records (logroom.KEPT) fill the log to its limit ...
        assert s.log({"ev": "draw", "ms": n, "n": n})
        s.housekeep()  # (the idle passes between draws move them into the segments)
        n += 1
    assert s.take_notices() == ["log full: export"] and n > 100
    recs = s.read_log()[0]
    assert recs[:4] == ACTION_RECORDS  # the action is still there, whole
    # ... then they wait in the journal; the others are only counted
    for i in range(10):
        assert s.log({"ev": "settings", "ms": n + i, "ranks": i}) and "settings" not in KEPT
        assert s.log({"ev": "draw", "ms": n + i, "n": n + i})
        s.housekeep()
    assert s.logfile.full and not s.room_for_action() and not s.flush()
    # the bench saves the log and acknowledges: the oldest segments go, the waiting records
    # are written in order, then the count of the ones that could not wait
    last_seq, last_h = s.last()
    assert s.ack(last_seq, "0" * 12) == "record %d's hash is not 000000000000: export the log again" % last_seq
    assert s.ack(last_seq + 50, last_h).startswith("no record %d" % (last_seq + 50))
    assert s.ack(last_seq, last_h) is None
    assert not s.logfile.full and fs.flash[config.LOG_EXPORTED_FILE] == str(last_seq).encode()
    assert s.room_for_action() and s.flush()
    assert s.log({"ev": "battery", "percent": 12})
    recs = s.read_log()[0]
    waited = [r["n"] for r in recs if r["ev"] == "draw" and r["n"] >= n]
    assert waited == list(range(n, n + 10))
    assert recs[-2:] == [{"ev": "dropped", "n": 10}, {"ev": "battery", "percent": 12}]
    assert not any(r["ev"] == "settings" for r in recs)  # counted, never silent
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
    # and on a small log the flood still costs only a few lines: no need to drop anything
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=2000)
    for r in ACTION_RECORDS:
        s.log(r)
    for i in range(2100):
        s.log({"ev": "seed", "ms": 100 + i, "n": 1})
    assert s.flush() and not s.logfile.full and s.read_log()[0][:4] == ACTION_RECORDS


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
    assert s.waiting() == config.LOG_QUEUE  # the first ones (an action's start among them)
    fs.failing = False
    assert s.commit([{"ev": "b"}])          # the next pass writes them, then the count
    assert s.waiting() == 0 and s.flush()
    recs = s.read_log()[0]
    assert [r.get("n") for r in recs[1:-2]] == list(range(config.LOG_QUEUE))
    assert recs[-2:] == [{"ev": "dropped", "n": 5}, {"ev": "b"}]
    assert logchain.verify(lines_of(s))[0]
    assert Store(fs=fs.reboot()).read_log()[0] == recs


def test_a_full_flash_is_retried_too():
    # a small chip, nearly full (the folders journal/, log/ and state/ take a block pair each)
    fs = FakeFlash({"filler": b"f" * 34 * 4096}, blocks=48)
    s = Store(fs=fs)
    logged = 0
    while s.log({"ev": "draw", "n": logged, "pad": "p" * 100}):
        s.housekeep()
        logged += 1
    assert "flash error" in s.take_notices() and 3 < logged < 300
    fs.remove("filler")  # room again (a file deleted, say)
    assert s.log({"ev": "after"})
    recs = s.read_log()[0]
    assert [r.get("n") for r in recs[:-1]] == list(range(logged + 1)) and recs[-1] == {"ev": "after"}
    assert logchain.verify(lines_of(s))[0]
    assert Store(fs=fs.reboot()).read_log()[0] == recs


def boot_app(fs, now=10_000, seed=3):
    board = hardening_board.Board()
    store = Store(fs=fs)
    app = App(board, store, random.Random(seed), now, write=lambda s: None)
    return app, store, board


def press(app, board, name, now):
    board.buttons.push(name)
    app.loop_pass(now)


def test_a_pass_the_flash_refused_waits_and_its_failure_is_shown():
    fs = FakeFlash()
    app, store, board = boot_app(fs)
    press(app, board, "DRAW", 10_100)  # set-up -> the action starts
    app.loop_pass(10_120)
    assert app.controller.action is not None
    hint = Store(fs=fs.reboot()).open_action()[1]
    fs.failing = True
    press(app, board, "DRAW", 10_200)  # a draw the flash refuses
    app.loop_pass(10_220)
    assert store.waiting() >= 1                                   # not on flash ...
    assert Store(fs=fs.reboot()).open_action()[1] == hint         # ... nor its hint
    assert board.display.shown[-1].strip() == "flash error"      # and said on screen
    fs.failing = False
    app.loop_pass(10_240)  # the next pass writes it
    assert store.waiting() == 0
    assert Store(fs=fs.reboot()).open_action()[1] == app.controller.hint()
    recs = Store(fs=fs.reboot()).read_log()[0]
    assert [r["ev"] for r in recs if r["ev"] in ("start", "draw")] == ["start", "draw"]


def test_settings_the_flash_refused_are_saved_when_it_recovers():
    fs = FakeFlash()
    app, store, board = boot_app(fs)
    fs.failing = True
    app.controller.settings["ranks"] = 4
    app.controller.settings_version += 1
    app.loop_pass(10_100)
    assert Store(fs=fs.reboot()).load_settings()[0]["ranks"] == 1
    fs.failing = False
    app.loop_pass(10_120)
    assert Store(fs=fs.reboot()).load_settings()[0]["ranks"] == 4  # in the journal ...
    for t in range(10_400, 11_000, 20):                             # ... then idle passes
        app.loop_pass(t)
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
    assert store.flush()  # the records into the segment, to spoil them there
    return fs


def test_a_black_drawn_once_the_log_is_full_comes_back_after_a_power_cut():
    """Issue 34, item 2, through the app: the log nearly full when an action starts (it may:
    its room is held back), the action's draws fill it, and a black is drawn with a referee
    present while the log takes no more (the journal holds the draws). After a power cut the
    boot brings the action back, the black on the LED, waiting for the referee: it used to
    find the journal unmovable and bring back no action at all (set-up, no end record)."""
    settings = dict(config.defaults(), skill="scan", ranks=0, needed=9, referee=True)
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(settings).encode()})
    store = Store(fs=fs, log_limit=8192, segment=2048)
    store.load_settings()
    n = 0
    while store.room.figure() > store.room.reserve + 600:  # earlier play fills the log
        n += 1
        assert store.commit([{"ev": "end", "ms": n, "outcome": "stopped", "pad": "p" * 60}])
        store.flush()
    board = hardening_board.Board()
    app = App(board, Store(fs=fs, log_limit=8192, segment=2048), random.Random(6), 10_000,
              write=lambda s: None)
    now = 10_100
    press(app, board, "DRAW", now)  # the action starts: room enough for it
    assert app.controller.action is not None
    for _ in range(400):
        now += 300
        press(app, board, "DRAW", now)
        for _ in range(8):  # idle passes: the draws into the log while it has room
            now += 20
            app.loop_pass(now)
        if app.controller.view().led == "black" and app.store.logfile.full:
            break
    assert app.controller.view().led == "black" and app.store.logfile.full
    assert app.store.journal.waiting(app.store.logfile.seq) > 0  # the journal holds the rest
    shown = app.controller.resume_state()
    board2 = hardening_board.Board()
    again = App(board2, Store(fs=fs.reboot(), log_limit=8192, segment=2048), random.Random(1),
                90_000, write=lambda s: None)
    assert again.controller.resume_state() == shown
    assert again.controller.view().led == "black"
    again.loop_pass(90_020)
    records = Store(fs=again.store.fs.reboot(), log_limit=8192).read_log()[0]
    start = max(i for i, r in enumerate(records) if r["ev"] == "start")
    assert not [r for r in records[start:] if r["ev"] in ("end", "referee")]


def spoilt(text, old, new, last=True):
    """The segment's text with `old` replaced by `new` in its last (or first) line holding it."""
    lines = text.split(b"\n")
    at = [i for i, line in enumerate(lines) if old in line][-1 if last else 0]
    lines[at] = lines[at].replace(old, new)
    return b"\n".join(lines)


SPOILS = {
    "a card the deck does not hold": (b'"card":"black"', b'"card":"purple"', False),
    "a deck that does not match": (b'"deck":[3,2,2,9]', b'"deck":[3,2,2,8]', False),
    "a card changed": (b'"card":"yellow"', b'"card":"green"', False),
    "a start that makes no action": (b'"ranks":1', b'"ranks":"one"', False),
    "a start without its skill": (b'"skill":"surgery",', b"", False),
}


def boot_spoilt(spoil):
    """A flash whose open action's records were spoilt, booted: (app, the log before)."""
    fs = played_until_black()
    before = Store(fs=fs.reboot()).read_log()[0]
    old, new, last = SPOILS[spoil]
    fs.write_file(segment(1), spoilt(fs.flash[segment(1)], old, new, last))
    app, store, board = boot_app(fs, now=50_000)
    app.loop_pass(50_020)
    return app, before


@pytest.mark.parametrize("spoil", sorted(SPOILS))
def test_an_open_action_whose_records_make_no_action_is_closed_as_lost(spoil):
    """The log is the action's record: records the engine cannot play again (damage, or an
    edit) close the action as lost, said on screen, rather than bringing back something
    else; a black card is not escaped by spoiling the log either: the end is logged."""
    app, before = boot_spoilt(spoil)
    assert app.controller.view().lines[0] == "Not resumed" and app.controller.action is None
    recs = Store(fs=app.store.fs.reboot()).read_log()[0]
    new_recs = recs[len(before):]
    assert [r["ev"] for r in new_recs] == ["end"] and new_recs[0]["outcome"] == "lost"
    assert new_recs[0]["why"]


@pytest.mark.parametrize("spoil", ["a deck that does not match"])
def test_an_action_closed_as_lost_stays_closed(spoil):
    app, before = boot_spoilt(spoil)
    recs = Store(fs=app.store.fs.reboot()).read_log()[0]
    app2, _, board2 = boot_app(app.store.fs.reboot(), now=90_000)
    app2.loop_pass(90_020)
    assert app2.face.notices == [] and app2.controller.view().screen == "setup"
    assert app2.controller.action is None
    assert Store(fs=app2.store.fs.reboot()).read_log()[0] == recs


def an_ended_action():
    """The records of an action played through the controller to its end."""
    c = Controller(dict(config.defaults(), needed=1), random.Random(2), 0)
    for t in range(100, 5000, 100):
        c.press("DRAW", t)
        if c.action is None or c.action.state != "active":
            break
    records = json.loads(json.dumps(c.take_log()))
    assert records[0]["ev"] == "start" and records[-1]["ev"] == "end"
    return records, c.hint()


def test_no_lost_action_when_the_last_action_ended_or_on_a_fresh_device():
    s = Store(fs=FakeFlash())
    assert s.open_action() == (None, "") and s.read_log() == ([], 0)  # fresh: no log at all
    fs = FakeFlash()
    s = Store(fs=fs)
    action, hint = an_ended_action()
    for r in action:
        assert s.commit([r], hint=hint)
    for i in range(300):  # the end far back: read backwards past a few chunks
        assert s.commit([{"ev": "settings", "ms": i, "ranks": i}], hint="x")
    records, hint = Store(fs=fs.reboot()).open_action()
    records = list(records)  # a stream: read here to look at it whole
    assert records[:len(action)] == action and hint == "x"
    assert len(records) == len(action) + 300
    assert records[-1] == {"ev": "settings", "ms": 299, "ranks": 299}
    c = Controller(config.defaults(), random.Random(1), 0, replay=(records, hint))
    assert c.action is None and c.take_log() == [] and c.view().screen == "setup"


def test_the_open_action_is_found_reading_the_logs_tail_only():
    fs = FakeFlash()
    s = Store(fs=fs)
    for i in range(2000):
        s.commit([{"ev": "settings", "ms": i, "ranks": i % 9}], hint="x")
    for r in ACTION_RECORDS[:2]:
        s.commit([r], hint="")
    assert s.flush()
    whole, opened = Store(fs=fs.reboot()), Store(fs=fs.reboot())
    whole.last()   # each opened first: the segments' sizes, the log's tail, the journal
    opened.last()
    with whole.fs.chip.counting() as c:
        assert len(whole.read_log()[0]) == 2002
    with opened.fs.chip.counting() as o:
        records, hint = opened.open_action()
        assert (list(records), hint) == (ACTION_RECORDS[:2], "")
    assert o.read_bytes * 10 < c.read_bytes and o.progs == o.erases == 0


# -- older firmware's log ----------------------------------------------------------------------
def test_migration_survives_a_power_cut_at_every_step():
    old1 = b"".join(json.dumps({"ev": "draw", "n": i}).encode() + b"\n" for i in range(20))
    old = b"".join(json.dumps({"ev": "draw", "n": i}).encode() + b"\n" for i in range(20, 30))
    fs = FakeFlash({OLDER_LOG: old1, config.LOG_FILE: old})
    fs.chip.record()
    s = Store(fs=fs)
    assert s.log({"ev": "boot"}) and s.flush()  # the first boot of the new firmware
    total = 0
    for cut, mode, image in fs.chip.cuts():
        s = Store(fs=FakeFlash(image=image))
        recs = s.read_log()[0]
        ns = [r["n"] for r in recs if r["ev"] == "draw"]
        assert ns == list(range(30)), (cut, mode)  # every old record once, in order
        assert recs[30] == {"ev": "migrated", "records": 30, "damaged": 0}
        assert recs[31:] in ([], [{"ev": "boot"}]) and s.take_notices() == []
        assert logchain.verify(lines_of(s))[0], (cut, mode)
        total += 1
    assert total >= 3 * 6


# -- what the chain costs ----------------------------------------------------------------------
def test_seq_and_hash_cost_under_35_bytes_a_record():
    """Records of actions played through the controller (random presses), on flash with
    their seq and hash: under 35 bytes more a record than their JSON alone."""
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
    assert s.flush()
    plain = sum(len(json.dumps(r, separators=(",", ":"))) + 1 for r in records)
    on_flash = sum(len(fs.flash[n]) for n in fs.flash if n.startswith(segment(0)[:8]))
    written = len(lines_of(s))
    assert actions >= 100 and written == len(records)
    assert on_flash / written - plain / len(records) < 35


def test_a_full_log_stops_new_actions_not_records():
    """Filling the log to play unrecorded: set-up presses (STOP, RANK, STOP, long HELP, not merged as
    repeats) stop being written before the log's reserve for an action (config.LOG_RESERVE,
    a quarter of a small log here): they are only counted, and an action may still start.
    Once play itself fills the log into the reserve, no action starts while the log could
    not hold it to its end: DRAW on set-up says "Log full", set-up says "Log full: export"
    for as long as it is true, no start record is written; once the bench exported and
    acknowledged the log, the action starts and its records are on flash."""
    fs = FakeFlash()
    store = Store(fs=fs, log_limit=8192, segment=2048)
    board = hardening_board.Board()
    app = App(board, store, random.Random(4), 10_000, write=lambda s: None)
    t = 10_000
    for i in range(150):
        for name, kind in (("STOP", "short"), ("RANK", "short"), ("STOP", "short"),
                           ("HELP", "long")):
            t += 150
            board.buttons.push(name, kind)
            app.loop_pass(t)
            app.loop_pass(t + 20)
        assert store.room_for_action(), i
    assert store.room.dropped > 100               # the presses were only counted ...
    assert app.controller.view().lines[-1] != "Log full: export"   # ... and play may start
    n = 0
    while store.room_for_action():               # play's records go on into the reserve
        n += 1
        assert store.commit([{"ev": "end", "ms": n, "outcome": "stopped", "pad": "x" * 60}])
    app.loop_pass(t + 40)
    assert app.controller.view().lines[-1] == "Log full: export"
    board.buttons.push("DRAW")
    app.loop_pass(t + 200)
    app.loop_pass(t + 220)
    assert app.controller.action is None
    assert app.controller.view().screen == "message" and "Log full" in app.controller.view().lines[0]
    assert not [r for r in store.read_log()[0] if r["ev"] == "start"]
    t += 60_000
    app.loop_pass(t)                              # the message gone, idle work done:
    app.loop_pass(t + 300)                        # set-up still says it
    assert app.controller.view().screen == "setup"
    assert app.controller.view().lines[-1] == "Log full: export"
    seq, h = store.last()
    assert store.ack(seq, h) is None              # the bench saved it all
    app.loop_pass(t + 320)
    assert app.controller.view().lines[-1] != "Log full: export"
    board.buttons.push("RANK")                    # wakes the display (idle a minute)
    app.loop_pass(t + 340)
    board.buttons.push("DRAW")
    app.loop_pass(t + 400)
    app.loop_pass(t + 420)
    assert app.controller.view().screen == "active"
    board.buttons.push("DRAW")
    app.loop_pass(t + 1600)
    app.loop_pass(t + 1620)
    assert app.controller.action.draws == 1
    evs = [r["ev"] for r in Store(fs=fs.reboot(), log_limit=8192, segment=2048).read_log()[0]]
    assert "start" in evs and "draw" in evs[evs.index("start"):], evs[-5:]


def test_switching_off_inside_every_warning_holds_no_timed_draw_back():
    """R21 against a player who switches the device off and on every 4.5 s, inside the 5 s
    warning a resume starts with: a warning that had started before the cut is on flash (the
    play's hint), so the boot after it draws at once. 60 cycles, through the app on flash:
    draws keep coming, each on flash."""
    fs = FakeFlash()
    app, store, board = boot_app(fs, now=10_000)
    for name, value in (("timed", True), ("interval", 10), ("needed", 9)):
        app.controller.change(name, value)
    press(app, board, "DRAW", 10_100)                 # the timed action starts
    app.loop_pass(10_120)
    t = 10_120
    for cycle in range(60):
        for _ in range(225):                          # 4.5 s of passes
            t += 20
            app.loop_pass(t)
        fs = fs.reboot()                              # off and on again
        app, store, board = boot_app(fs, now=t, seed=cycle)
        t += 20
        app.loop_pass(t)
        if app.controller.action is None or app.controller.action.state != "active":
            break
        if app.controller.view().screen == "card":    # the lead takes each card at once
            press(app, board, "DRAW", t + 20)
            t += 20
    draws = [r for r in Store(fs=fs.reboot()).read_log()[0] if r["ev"] == "draw"]
    assert len(draws) >= 8 and all(r["timed"] for r in draws)   # 270 s at 10 s, cut every 4.5 s
