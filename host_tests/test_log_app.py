"""The log through the whole app on the fake board (vmlib/hardening_board.py) and littlefs
(fakeflash.py): a pass or settings the flash refused wait and are written when it recovers; an
open action whose records make no action is closed as lost, and stays closed; a black drawn
once the log is full comes back; a full log stops new actions, not records; switching off
inside every timed warning holds no draw back (R21)."""
import json
import os
import random
import sys

import pytest

from conftest import ROOT
from carddraw import config
from carddraw.app import App
from carddraw.logexport import ack
from carddraw.logfile import segment
from carddraw.store import Store
from fakeflash import FakeFlash
from handheld import play_state
from storelog import last, read_log

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
import hardening_board  # noqa: E402


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
    recs = read_log(Store(fs=fs.reboot()))[0]
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
    shown = play_state(app.controller)
    board2 = hardening_board.Board()
    again = App(board2, Store(fs=fs.reboot(), log_limit=8192, segment=2048), random.Random(1),
                90_000, write=lambda s: None)
    assert play_state(again.controller) == shown
    assert again.controller.view().led == "black"
    again.loop_pass(90_020)
    records = read_log(Store(fs=again.store.fs.reboot(), log_limit=8192))[0]
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
    before = read_log(Store(fs=fs.reboot()))[0]
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
    recs = read_log(Store(fs=app.store.fs.reboot()))[0]
    new_recs = recs[len(before):]
    assert [r["ev"] for r in new_recs] == ["end"] and new_recs[0]["outcome"] == "lost"
    assert new_recs[0]["why"]


@pytest.mark.parametrize("spoil", ["a deck that does not match"])
def test_an_action_closed_as_lost_stays_closed(spoil):
    app, before = boot_spoilt(spoil)
    recs = read_log(Store(fs=app.store.fs.reboot()))[0]
    app2, _, board2 = boot_app(app.store.fs.reboot(), now=90_000)
    app2.loop_pass(90_020)
    assert app2.face.notices == [] and app2.controller.view().screen == "setup"
    assert app2.controller.action is None
    assert read_log(Store(fs=app2.store.fs.reboot()))[0] == recs



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
    assert not [r for r in read_log(store)[0] if r["ev"] == "start"]
    t += 60_000
    app.loop_pass(t)                              # the message gone, idle work done:
    app.loop_pass(t + 300)                        # set-up still says it
    assert app.controller.view().screen == "setup"
    assert app.controller.view().lines[-1] == "Log full: export"
    seq, h = last(store)
    assert ack(store, seq, h) is None              # the bench saved it all
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
    evs = [r["ev"] for r in read_log(Store(fs=fs.reboot(), log_limit=8192, segment=2048))[0]]
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
    draws = [r for r in read_log(Store(fs=fs.reboot()))[0] if r["ev"] == "draw"]
    assert len(draws) >= 8 and all(r["timed"] for r in draws)   # 270 s at 10 s, cut every 4.5 s
