"""Bench mode: what chooses or reveals a card, fakes one on the LED, lets the log go
or opens the USB REPL needs `unlock CODE` on the console, with the lock screen's own check and
wait; `lock`, 10 minutes without a console line and a reboot end it. A seeded device says so
on every screen and in every record. App.run turns the interrupt key off; `maint` turns it on.

On CPython with the fake board (vmlib/hardening_board.py) and the fake flash (fakeflash.py);
the protocol again in the MicroPython VM. The search over protocol lines and buttons without
the code (no way to a referee power, a chosen or early-seen card, the code, or a lost log
record) is test_bench_search.py.
"""
import json
import os
import sys
import textwrap
import types

import pytest

from conftest import ROOT, run_in_vm
from carddraw import app as app_module, config, lockcode
from fakeflash import FakeFlash
from benchkit import BENCH_MS, Bench, CODE, REFUSED, kbd  # noqa: F401 -- kbd: a fixture
from storelog import read_log

DEFAULT_WARNING = "the referee code is still the default R H R H: change it"
GATED_LINES = [("seed 5", "seed"), ("test draws 10", "test draws"), ("test led black", "test led"),
               ("test display", "test display"), ("test button 100", "test button"),
               ("log ack %d %s", "log ack"), ("maint", "maint")]


def gated_line(b, text):
    return text % b.last_seq_hash() if "%s" in text else text


# -- the gate --------------------------------------------------------------------------------
def test_the_code_these_tests_use_is_the_default():
    assert lockcode.matches(config.DEFAULT_LOCK, CODE)


def test_each_gated_command_is_refused_before_unlock_changes_nothing_then_works(kbd):
    b = Bench()
    b.button("DRAW")                 # an action played to its end, so the log has records
    for i in range(30):
        b.button("DRAW")
        b.run(61000)                 # past the finishing countdown, if it came to that
        if b.app.controller.view().screen == "setup":
            break
    assert b.app.controller.view().screen == "setup" and b.lines()
    for text, name in GATED_LINES:
        before = b.state()
        assert b.send(gated_line(b, text)) == [{"error": REFUSED % name}], text
        b.run(100)
        assert b.state() == before, text           # nothing changed, nothing logged
    assert kbd == [] and b.app.console.bench is None
    assert b.one("unlock " + CODE) == {"ok": "unlock", "minutes": 10, "warning": DEFAULT_WARNING}
    got = {}
    for text, name in GATED_LINES:
        got[name] = b.one(gated_line(b, text))
        b.one("test end")
    assert got["seed"] == {"ok": "seed", "seed": 5}
    assert got["test draws"]["ok"] == "draws" and sum(got["test draws"]["counts"]) == 10
    assert got["test led"]["ok"] == "led" and got["test led"]["colour"] == "black"
    assert got["log ack"]["ok"] == "ack"
    assert got["maint"] == {"ok": "maint", "usb": "open"} and kbd == [3]
    bench = [r for r in b.records() if r["ev"] == "bench"]
    assert [r["mode"] for r in bench] == ["on", "maint"]


def test_the_open_commands_need_no_code():
    b = Bench()
    b.run(100)
    lines = ["show", "press RANK", "long RANK", "wait 100", "log", "lock"]
    replies = b.send(*lines)
    assert not [r for r in replies if "needs bench mode" in r.get("error", "")], replies
    assert replies[-1] == {"ok": "lock"} and b.app.console.bench is None
    assert any(r.get("ok") == "log" for r in replies)


def test_a_laptop_without_the_code_cannot_hold_the_referees_presses():
    """`test button` answered with the next press, sent again each time: without bench mode it
    is refused, so every press of the referee reaches the device (the lock, the menu)."""
    b = Bench(referee=True, black=1)
    b.run(100)
    for _ in range(3):
        assert b.one("test button 60000") == {"error": REFUSED % "test button"}
        assert b.one("test display") == {"error": REFUSED % "test display"}
    enter_on_buttons(b, CODE)
    assert b.app.controller.view().screen == "refmenu"


def test_bad_unlock_lines_are_refused_in_one_line_and_are_no_try():
    b = Bench()
    for text in ("unlock", "unlock RHX1", "unlock RHR", "unlock RHRHRHRHR", "unlock R H R H"):
        r = b.one(text)
        assert list(r) == ["error"] and ("R, H, D, S" in r["error"]
                                         or "takes one argument" in r["error"]), (text, r)
    assert b.app.controller.settings["lock_fails"] == 0 and b.app.console.bench is None
    assert b.one("unlock rhrh")["ok"] == "unlock"   # letters in either case


# -- one lockout for the buttons and the console ------------------------------------------------
def enter_on_buttons(b, code):
    b.button("STOP", "long")
    for ch in code:
        b.button({"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}[ch])


def test_wrong_unlocks_count_toward_the_lock_screens_wait_and_the_other_way_round():
    b = Bench()
    b.run(100)
    first = [b.one("unlock SSSS"), b.one("unlock DDDD")]
    assert all(r["error"].startswith("unlock: Wrong code") for r in first)
    enter_on_buttons(b, "RRRR")         # the third wrong try, on the buttons: a wait begins
    c = b.app.controller
    assert c.settings["lock_fails"] == 3
    assert c.lockout.wait_ms() > 0
    refused = b.one("unlock " + CODE)   # the right code, during the wait: refused
    assert "Locked: wait" in refused["error"] and b.app.console.bench is None
    assert b.one("seed 1")["error"] == REFUSED % "seed"
    b.button("STOP", "long")            # out of the lock screen
    b.run(c.lockout.wait_ms() + 100)
    assert b.one("unlock " + CODE)["ok"] == "unlock"
    assert c.settings["lock_fails"] == 0   # the right code resets the count, as on the lock
    tries = [r for r in b.records() if r["ev"] == "lock"]   # a wait's start, then the opening
    assert [(r["result"], r["fails"], r["refused"]) for r in tries] == [("wait", 3, 0),
                                                                       ("open", 3, 1)]
    assert all(CODE not in json.dumps(r) for r in b.records())   # never the code in the log


def test_console_tries_start_the_wait_the_lock_screen_then_keeps():
    b = Bench()
    for code in ("SSSS", "DDDD", "HHHH"):
        b.one("unlock " + code)
    c = b.app.controller
    assert c.lockout.wait_ms() > 0
    enter_on_buttons(b, CODE)           # the right code on the buttons: no referee menu
    assert c.view().screen != "refmenu"
    b.button("STOP", "long")
    # a power cut keeps the count: the wait starts again in full after the boot
    b2 = Bench(fs=b.fs.__class__(b.fs.flash))
    assert b2.app.controller.settings["lock_fails"] == 3
    assert "Locked: wait" in b2.one("unlock " + CODE)["error"]


# -- how bench mode ends ------------------------------------------------------------------------
def test_lock_ten_quiet_minutes_and_a_reboot_end_bench_mode(kbd):
    b = Bench()
    b.one("unlock " + CODE)
    assert b.one("lock") == {"ok": "lock"}
    assert b.one("seed 1")["error"] == REFUSED % "seed"
    b.one("unlock " + CODE)
    b.run(BENCH_MS - 1000)                      # quiet for just under 10 minutes
    assert b.one("seed 1")["ok"] == "seed"      # ... and the line starts them again
    b.run(BENCH_MS - 1000)
    assert b.one("test draws 2")["ok"] == "draws"
    b.one("maint")
    b.run(BENCH_MS + 100)                       # 10 minutes without a line
    assert b.app.console.bench is None and kbd == [3, -1]   # the interrupt key closed with it
    assert b.one("test draws 2")["error"] == REFUSED % "test draws"
    offs = [r for r in b.records() if r["ev"] == "bench" and r["mode"] == "off"]
    assert [r["why"] for r in offs] == ["lock", "timeout"]
    b.one("unlock " + CODE)
    b2 = Bench(fs=FakeFlash(b.fs.flash))         # a reboot
    assert b2.one("seed 1")["error"] == REFUSED % "seed" and b2.app.console.bench is None


def test_a_long_wait_line_keeps_bench_mode_in_use():
    b = Bench()
    b.one("unlock " + CODE)
    assert b.send("wait 600000", "seed 4")[-1] == {"ok": "seed", "seed": 4}


# -- seeded: on every screen and in every record -------------------------------------------------
def test_a_seeded_device_says_so_on_every_screen_and_in_every_record_until_reboot():
    b = Bench(referee=True, black=1, redraws=1)
    b.run(100)
    assert "SEED" not in b.board.display.shown[0]
    unseeded = len(b.records())
    b.send("unlock " + CODE, "seed 5")
    b.run(100)
    views = {}
    for step in ("", "DRAW", "DRAW", "DRAW", "DRAW", "DRAW", "DRAW", "DRAW", "DRAW"):
        if step:
            b.button(step)
        b.run(100)
        c = b.app.controller
        views[c.view().screen] = [c.view().lines[0], b.board.display.shown[0]]
    b.button("STOP", "long")
    views["lock"] = [b.app.controller.view().lines[0], b.board.display.shown[0]]
    assert {"setup", "active", "card", "lock"} <= set(views), views
    for screen, (title, drawn) in views.items():
        assert "SEED" in title and "SEED" in drawn, (screen, title, drawn)
        assert len(title) <= config.TITLE_COLS
    assert views["setup"][0] == "Surgery   SEED"  # the default code's mark, shortened
    assert views["active"][1] == "SEEDED"       # the graphics' title
    after = b.records()[unseeded:]
    assert [r["ev"] for r in after][:2] == ["bench", "seed"]
    assert len(after) >= 5 and all(r.get("seeded") for r in after[2:]), after
    b2 = Bench(fs=FakeFlash(b.fs.flash))         # a reboot: random again, and said so
    b2.run(100)
    assert "SEED" not in b2.app.controller.view().lines[0]
    assert "SEED" not in b2.board.display.shown[0]
    b2.button("DRAW")
    assert not [r for r in b2.records()[len(b.records()):] if "seeded" in r]


# -- the interrupt key ------------------------------------------------------------------------
class StopRun(Exception):
    pass


def test_run_turns_the_interrupt_key_off_and_maint_turns_it_on_with_a_message(kbd, monkeypatch):
    def sleep_ms(ms):
        raise StopRun()
    # run() imports asyncio where the loop starts: the stand-in is what that import finds
    monkeypatch.setitem(sys.modules, "asyncio", types.SimpleNamespace(sleep_ms=sleep_ms))
    b = Bench()
    with pytest.raises(StopRun):
        b.app.run().send(None)       # the board's loop, to its first sleep
    assert kbd == [-1]
    assert b.board.wdt is not None   # and the watchdog started
    b.one("unlock " + CODE)
    assert b.one("maint") == {"ok": "maint", "usb": "open"}
    assert kbd == [-1, 3]
    b.run(100)
    c = b.app.controller
    assert c.view().screen == "message" and c.view().lines[:3] == ["Maintenance", "USB open until",
                                                                   "next restart"]
    assert [r["mode"] for r in b.records() if r["ev"] == "bench"] == ["on", "maint"]
    b.button("DRAW")                 # any key: back to where it was
    assert c.view().screen == "setup"
    assert b.one("lock") == {"ok": "lock"} and kbd == [-1, 3, -1]


def test_without_micropython_kbd_intr_the_app_still_runs(monkeypatch):
    monkeypatch.setattr(app_module, "kbd_intr", None)  # CPython: no micropython module
    b = Bench()
    assert b.app.usb_interrupt(False) is False
    b.one("unlock " + CODE)
    assert b.one("maint")["ok"] == "maint"


# -- the protocol in the MicroPython VM --------------------------------------------------------
def test_bench_mode_runs_in_the_micropython_vm():
    r = run_in_vm("from app_harness import *\n" + textwrap.dedent("""
        app = boot()
        run(app, 100)
        out = {}
        out["refused"] = send(app, "seed 5", "test draws 3", "test led red", "maint")
        out["wrong"] = one(app, "unlock SSSS")
        out["unlock"] = one(app, "unlock RHRH")
        out["seed"] = one(app, "seed 5")
        out["draws"] = one(app, "test draws 3")
        out["maint"] = one(app, "maint")
        run(app, 100)
        out["screen"] = app.controller.view().lines[:3]
        tap(app, "DRAW")
        out["title"] = app.controller.view().lines[0]
        out["lock"] = one(app, "lock")
        out["after"] = one(app, "seed 5")
        one(app, "unlock RHRH")
        run(app, 600100)
        out["timeout"] = one(app, "test draws 3")
        out["log"] = [r for r in read_log(app.store)[0] if r["ev"] in ("bench", "lock", "seed")]
        RESULT = out
    """), libs=[os.path.join(ROOT, "tools", "sim"), os.path.join(ROOT, "host_tests", "vmlib")],
        timeout=300)
    assert r["refused"] == [{"error": REFUSED % n} for n in ("seed", "test draws", "test led",
                                                              "maint")]
    assert r["wrong"]["error"].startswith("unlock: Wrong code")
    assert r["unlock"] == {"ok": "unlock", "minutes": 10, "warning": DEFAULT_WARNING}
    assert r["seed"] == {"ok": "seed", "seed": 5} and r["draws"]["ok"] == "draws"
    assert r["maint"] == {"ok": "maint", "usb": "open"}
    assert r["screen"] == ["Maintenan SEED", "USB open until", "next restart"]  # seeded
    assert r["title"] == "Surgery   SEED"
    assert r["lock"] == {"ok": "lock"} and r["after"] == {"error": REFUSED % "seed"}
    assert r["timeout"] == {"error": REFUSED % "test draws"}
    evs = [(x["ev"], x.get("mode") or x.get("result")) for x in r["log"]]
    assert evs == [("lock", "open"), ("bench", "on"), ("seed", None), ("bench", "maint"),
                   ("bench", "off"), ("bench", "on"), ("bench", "off")]
    assert all(x.get("seeded") for x in r["log"][3:])
