"""Bench mode: what chooses or reveals a card, fakes one on the LED, lets the log go
or opens the USB REPL needs `unlock CODE` on the console, with the lock screen's own check and
wait; `lock`, 10 minutes without a console line and a reboot end it. A seeded device says so
on every screen and in every record. App.run turns the interrupt key off; `maint` turns it on.

On CPython with the fake board (vmlib/hardening_board.py) and the fake flash (fakeflash.py);
the protocol again in the MicroPython VM; then a search over protocol lines and buttons
without the code that finds no way to a referee power, a chosen or early-seen card, the code,
or a lost log record.
"""
import copy
import json
import os
import random
import sys
import textwrap
import types
from collections import deque

import pytest

from conftest import ROOT, run_in_vm
from carddraw import app as app_module, config, lockcode, protocol
from carddraw.app import App
from carddraw.controller import Controller
from carddraw.deck import COLOURS
from carddraw.rng import Rng
from carddraw.store import Store
from fakeflash import FakeFlash

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import hardening_board  # noqa: E402
from common import logchain  # noqa: E402
import handheld  # noqa: E402

CODE = "RHRH"                   # the default code (config.DEFAULT_LOCK keeps its hash)
REFUSED = "%s needs bench mode: unlock CODE first"
DEFAULT_WARNING = "the referee code is still the default R H R H: change it"
GATED_LINES = [("seed 5", "seed"), ("test draws 10", "test draws"), ("test led black", "test led"),
               ("test display", "test display"), ("test button 100", "test button"),
               ("log ack %d %s", "log ack"), ("maint", "maint")]


class Board(hardening_board.Board):
    """The fake board, with the clock App.run asks for."""

    def ticks_ms(self):
        return 0

    def ticks_diff(self, a, b):
        return a - b


class Bench:
    """An App on the fake board and flash, driven on a virtual clock."""

    def __init__(self, fs=None, **settings):
        self.fs = fs or FakeFlash()
        self.t = 10_000
        self.out = []
        if settings:
            store = Store(fs=self.fs)
            store.save_settings(dict(config.defaults(), **settings))
        self.board = Board()
        self.app = App(self.board, Store(fs=self.fs), Rng(3), self.t, write=self.out.append)

    def run(self, ms):
        end = self.t + ms
        while self.t < end:
            self.t += config.LOOP_MS
            assert self.app.loop_pass(self.t), self.app.last_error

    def send(self, *lines):
        del self.out[:]
        for line in lines:
            self.app.line(line)
        self.run(20)
        while self.app.console.busy():
            self.run(20)
        return [json.loads(x) for x in self.out]

    def one(self, line):
        return self.send(line)[-1]

    def button(self, name, kind="short"):
        if self.app.face.idle:            # a dimmed display: the first press only wakes it
            self.board.buttons.push(name)
            self.run(40)
        self.board.buttons.push(name, kind)
        self.run(40)

    def records(self):
        return self.app.store.read_log()[0]

    def lines(self):
        out = []
        self.app.store.read_log(out.append, raw=True)
        return out

    def last_seq_hash(self):
        last = self.lines()[-1]
        return json.loads(last)["seq"], logchain.split(last)[1]

    def state(self):
        c = self.app.controller
        con = self.app.console
        return (c.show(), dict(c.settings), c.resume_state(), self.board.led.colour,
                con and con.test, self.app.store.exported(), len(self.lines()))


@pytest.fixture
def kbd(monkeypatch):
    """A fake micropython module: the calls of kbd_intr, in order."""
    calls = []
    monkeypatch.setattr(app_module, "kbd_intr", calls.append)
    return calls


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
    b.run(protocol.BENCH_MS - 1000)             # quiet for just under 10 minutes
    assert b.one("seed 1")["ok"] == "seed"      # ... and the line starts them again
    b.run(protocol.BENCH_MS - 1000)
    assert b.one("test draws 2")["ok"] == "draws"
    b.one("maint")
    b.run(protocol.BENCH_MS + 100)              # 10 minutes without a line
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
    monkeypatch.setattr(app_module, "asyncio", types.SimpleNamespace(sleep_ms=sleep_ms))
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
        out["log"] = [r for r in app.store.read_log()[0] if r["ev"] in ("bench", "lock", "seed")]
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


# -- the search: protocol lines and buttons, without the code ------------------------------------
class Chooser:
    """The search's rng: a draw takes the first card of the colour the search chose, so every
    colour in the deck is a branch; seed() is there so that a seed that got through shows."""

    def __init__(self, c):
        self.c = c
        self.want = None
        self.seeded = None

    def randrange(self, n):
        if self.c.action is None:    # `test draws` on the set-up screen (with the code only)
            return 0
        counts = self.c.action.deck.counts()
        assert self.want is not None and sum(counts) == n, "an unplanned draw"
        return sum(counts[:COLOURS.index(self.want)])

    def seed(self, n):
        self.seeded = n


def one_record_store():
    """A store on the fake flash holding one record: `log ack 1 HASH` names it exactly."""
    store = Store(fs=FakeFlash())
    store.log({"ev": "start", "ms": 0})
    out = []
    store.read_log(out.append, raw=True)
    return store, logchain.split(out[0])[1]


STORE, FIRST_HASH = one_record_store()


class Shell:
    """What protocol.Console needs of App, on the fake board; the store is one shared record
    (only `log ack`, gated, would touch it). Replies are kept as the dicts they were."""
    store = STORE

    def __init__(self, controller):
        self.controller = controller
        self.board = Board()
        self.usb = []
        self.face = types.SimpleNamespace(drawn=None)
        self.console = protocol.Console(self, None)
        self.replies = []
        self.console.reply = self.replies.append

    def persist(self):  # the shell's records are the controller's log: nothing to write
        return True

    def wake(self, now):
        pass

    def usb_interrupt(self, on):
        self.usb.append(on)
        return True


BUTTON_EVENTS = ([("press", n) for n in config.BUTTONS] + [("long", n) for n in config.BUTTONS])
TICKS = [("tick", 31000), ("tick", protocol.BENCH_MS)]
WRONG_CODES = ("RHRH", "SSSS", "RHRHRH")       # the default a player would try first, and others
SEARCH_LINES = (["seed 7", "test draws 3", "test led black", "test led green",
                 "log ack 1 " + FIRST_HASH, "maint", "lock", "test display", "test end", "show"]
                + ["unlock " + code for code in WRONG_CODES])
GATE_OK = {"seed": "seed", "test draws": "draws", "test led": "led", "log ack": "ack",
           "maint": "maint"}
REFEREE_ONLY = ("referee", "adjust", "undo", "helper_leaves")
END_STATES = ("stopped", "failed", "succeeded")


def fresh(settings, start):
    c = Controller(settings=settings, rng=None, now_ms=0)
    c.rng = Chooser(c)
    if start:
        c.rng.want = None
        c.press("DRAW", 0)
    c.take_log()
    return Shell(c)


def clone(s):
    """A copy of the shell and its controller sharing nothing that an event changes in place
    (an unlock's job and the try it waits for are copied together)."""
    c = s.controller
    rng, c.rng = c.rng, None
    try:
        n, job = copy.deepcopy((c, s.console.job))
    finally:
        c.rng = rng
    n.rng = Chooser(n)
    n.rng.seeded = rng.seeded
    t = Shell(n)
    con, was = t.console, s.console
    con.bench, con.maint, con.test, con.job, t.usb = was.bench, was.maint, was.test, job, \
        list(s.usb)
    return t


def forms_code(c, kind, arg):
    return (c.screen == "lock" and kind == "press"
            and lockcode.matches(c.settings["lock"], c.shown.code + arg[0]))


def event(s, kind, arg, colour):
    """One event on a copy of s -> (the new shell, the controller's records, the replies)."""
    n = clone(s)
    c = n.controller
    c.rng.want = colour
    con = n.console
    if con.job is not None and kind != "power":  # the pass after an unlock: the try judged,
        job, con.job = con.job, None             # counted on flash since the pass before
        n.replies.append(job.step(con, c.now))   # (a power cut first: never judged)
    if kind == "press":
        c.press(arg, c.now)
    elif kind == "long":
        c.long(arg, c.now)
    elif kind == "tick":
        c.now += arg
    elif kind == "line":
        reply = con.command(arg, c.now)
        n.replies.append(reply)
    else:  # a power cut: the saved state on a new controller; bench mode was only in RAM
        rs = json.loads(json.dumps(c.resume_state()))
        c = Controller(settings=json.loads(json.dumps(c.settings)), now_ms=c.now, resume=rs)
        c.rng = Chooser(c)
        n = Shell(c)
    c.tick(c.now)
    return n, c.take_log(), n.replies


def broken(before, after, kind, arg, log, replies):
    """What a player without the code must never manage, in one event."""
    bad = []
    b, a = before.controller, after.controller
    for r in replies:
        if r is None:
            continue
        for name, ok in GATE_OK.items():
            if kind == "line" and (arg + " ").startswith(name + " ") and r.get("ok") == ok:
                bad.append("%s worked" % name)
        text = json.dumps(r)
        kept = a.settings["lock"].split("$")
        if kept[1] in text or kept[2] in text or '"lock":' in text or '"lock_fails":' in text:
            bad.append("the code shown: %s" % text)
    if after.console.bench is not None:
        bad.append("bench mode")
    if a.seeded or a.rng.seeded is not None:
        bad.append("the cards seeded")
    if True in after.usb:
        bad.append("USB opened")
    if after.console.test is not None and after.console.test.name == "led":
        bad.append("the LED faked")
    if len(log) >= 64:
        bad.append("records may have been lost")
    if a.screen in ("refmenu", "adjust", "newcode"):
        bad.append("referee screen " + a.screen)
    if a.settings["lock"] != b.settings["lock"]:
        bad.append("the code changed")
    for r in log:
        if r["ev"] in REFEREE_ONLY + ("error",) or (r["ev"] == "settings" and "lock" in r):
            bad.append("record %s" % r)
    return bad + action_broken(b.action, a.action, kind, [r["ev"] for r in log])


def action_broken(a, b, kind, evs):
    if a is None or kind == "power":
        return []
    if b is None or "start" in evs:
        return [] if a.state in END_STATES else ["action %s dropped" % a.state]
    bad = []
    if a.state == "referee" and b.state != "referee":
        bad.append("black passed")                                   # R14
    if a.state not in END_STATES and b.state in END_STATES and "end" not in evs:
        bad.append("ended without an end record")
    if b.draws < a.draws or b.helpers != a.helpers:
        bad.append("draw undone or helper sent away")
    if b.deck.counts() != a.deck.counts() and "accept" not in evs:
        bad.append("deck changed without a card")                   # R19
    return bad


def key(s):
    c = s.controller
    a = c.action
    shown = c.shown
    m = shown if c.screen == "message" else None
    referee_screen = m.back if m is not None and shown.locked else shown
    return (c.screen, a and (json.dumps(c.resume_state(), sort_keys=True)),
            json.dumps(c.settings, sort_keys=True),
            shown.code if c.screen in ("lock", "newcode") else None,
            referee_screen.back.name if shown.locked else None,
            getattr(shown, "cur", None), getattr(shown, "editing", None),
            m and json.dumps([m.title, m.text, m.back.name]), s.console.bench is not None,
            s.console.maint, s.console.test and s.console.test.name, c.seeded,
            s.console.job and (s.console.job.done, s.console.job.said),
            min(c.lockout.wait_ms(), 1) if c.settings["lock_fails"] else 0)


def search(settings, start, depth, lines, cap=200_000):
    """Breadth-first over buttons, clock jumps, power cuts and protocol lines from set-up (or
    a fresh action) -> (states, edges, what was found)."""
    root = fresh(settings, start)
    seen = {key(root)}
    frontier = deque([(root, 0, ())])
    found = []
    edges = 0
    events = BUTTON_EVENTS + TICKS + [("power", None)] + [("line", x) for x in lines]
    while frontier:
        s, d, path = frontier.popleft()
        if d >= depth:
            continue
        c = s.controller
        for kind, arg in events:
            if kind in ("press", "long") and forms_code(c, kind, arg):
                continue
            colours = [None]
            a = c.action
            draws = (a is not None and a.state == "active" and (
                (c.screen == "active" and (kind == "tick" or (kind, arg) == ("press", "DRAW")))
                or (c.screen == "card" and (kind, arg) == ("press", "HELP"))))
            if draws:
                colours = [x for x, k in zip(COLOURS, a.deck.counts()) if k] or [None]
            for colour in colours:
                n, log, replies = event(s, kind, arg, colour)
                edges += 1
                here = path + ((kind, arg, colour),)
                bad = broken(s, n, kind, arg, log, replies)
                if bad:
                    found.append((bad, here))
                k = key(n)
                if k not in seen and len(seen) < cap:
                    seen.add(k)
                    frontier.append((n, d + 1, here))
    return len(seen), edges, found


SEARCHES = [  # (name, settings, start an action first, depth)
    ("set-up, code SDHR", dict(lock="SDHR"), False, 5),
    ("a black with a referee, code DSRH", dict(referee=True, black=2, redraws=1, lock="DSRH"),
     True, 5),
]


@pytest.mark.parametrize("name,changes,start,depth", SEARCHES, ids=[s[0] for s in SEARCHES])
def test_no_line_or_press_without_the_code_chooses_sees_or_fakes_a_card(name, changes, start,
                                                                        depth):
    settings = dict(config.defaults(), **changes)
    states, edges, found = search(settings, start, depth, SEARCH_LINES)
    print("bench search %s: depth %d, %d states, %d events" % (name, depth, states, edges))
    assert not found, found[:3]
    assert states > 500


def test_the_search_finds_every_gated_power_when_it_knows_the_code():
    """The same search with the right code among its lines: the checks are not vacuous."""
    settings = dict(config.defaults(), lock="SDHR")
    _, _, found = search(settings, False, 3, SEARCH_LINES + ["unlock SDHR"])
    kinds = {b.split(":")[0] for bad, _ in found for b in bad}
    assert {"seed worked", "test draws worked", "test led worked", "maint worked", "bench mode",
            "log ack worked",
            "the cards seeded", "USB opened", "the LED faked"} <= kinds, kinds


def test_a_random_walk_over_lines_and_buttons_loses_no_log_record():
    """Thousands of random lines (floods of seed tries, wrong unlocks, acks with the right
    seq and hash read from the log) and presses on the whole app and store, without the code:
    every record the controller made is on flash, numbered from 1 without a gap, the chain
    holds, and nothing was acknowledged, so nothing can be dropped."""
    b = Bench(referee=True, black=1)
    rnd = random.Random(10)
    pool = ["seed 1", "seed 2", "test draws 5", "maint", "lock", "show", "test led red",
            "unlock SSSS", "test end", "wait 1000"]
    for i in range(1000):
        roll = rnd.random()
        if roll < 0.45:
            b.button(rnd.choice(config.BUTTONS), rnd.choice(("short", "short", "long")))
        elif roll < 0.55 and b.lines():
            seq, h = b.last_seq_hash()
            assert b.one("log ack %d %s" % (seq, h)) == {"error": REFUSED % "log ack"}
        elif roll < 0.6:
            b.run(rnd.choice((1000, 31000)))
        else:
            b.send(rnd.choice(pool))
    b.run(100)
    lines = b.lines()
    seqs = [json.loads(x)["seq"] for x in lines]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 30  # (tries: counted)
    assert logchain.verify(lines)[0]
    assert b.app.store.exported() == 0
    assert not [x for x in lines if '"ev":"dropped"' in x]
    assert b.app.console.bench is None and not b.app.controller.seeded
