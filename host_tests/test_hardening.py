"""Hardening, part 1: the controller under a fuzz (a hypothesis state machine) and the referee
lock under a breadth-first search of everything a player can reach without the code.

The other parts: test_hardening_power.py (power cuts through App), test_hardening_input.py
(bad files, bad protocol lines, button chatter), test_hardening_vm.py (memory over 10,000
draws and the watchdog, in the MicroPython VM). Each test records its figures with figure();
they are gathered in build/hardening_figures.json and quoted in docs/reliability.md.
"""
import json
import os

from conftest import ROOT

FIGURES_PATH = os.path.join(ROOT, "build", "hardening_figures.json")


def figure(key, value):
    """Keep one figure for docs/reliability.md (merged into build/hardening_figures.json)."""
    os.makedirs(os.path.dirname(FIGURES_PATH), exist_ok=True)
    try:
        with open(FIGURES_PATH) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = {}
    data[key] = value
    with open(FIGURES_PATH, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)


# == 1. The controller under a fuzz ===========================================================
import copy  # noqa: E402
import random  # noqa: E402
from collections import deque  # noqa: E402

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings as hsettings, strategies as st  # noqa: E402
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,  # noqa: E402
                                 rule, run_state_machine_as_test)

from carddraw import config, saved  # noqa: E402
from carddraw.controller import Controller, SCREENS, LOCKED, IDLE_MS, clean, WARN_MS  # noqa: E402
from carddraw.deck import COLOURS  # noqa: E402

BUTTONS = config.BUTTONS
KEY = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
CODES = st.text(alphabet="RHDS", min_size=4, max_size=4)
SETUP = st.fixed_dictionaries({
    "skill": st.sampled_from(config.SKILLS), "ranks": st.integers(0, 9),
    "helpers": st.integers(0, 9), "bonus": st.integers(0, 3), "green": st.integers(0, 3),
    "yellow": st.integers(0, 9), "red": st.integers(0, 9), "black": st.integers(0, 3),
    "needed": st.integers(1, 3), "auto": st.integers(0, 3), "redraws": st.integers(0, 3),
    "referee": st.booleans(), "timed": st.booleans(),
    "interval": st.sampled_from(range(30, 61, 5)), "lock": CODES})
END_STATES = ("succeeded", "stopped", "failed")
# clock jumps, 0 ms to 3 min: hypothesis favours small integers, so the ones that matter are
# named (a loop period, the 1 s and 5 s marks of the warning, the 30 s lock timeout, a minute)
JUMPS = (0, 20, 999, 1000, 2500, 4000, 4999, 5000, 6000, 25000, 29000, 30001, 45000, 60000,
         61000, 180000)
FUZZ = {"runs": 0, "events": 0, "draws": 0, "timed draws": 0, "redraws": 0, "power cuts": 0,
        "right codes": 0, "wrong codes": 0, "referee decisions": 0, "screens": set()}


def fits(v):
    """Every line fits the 128x64 screen: at most 8 lines of 16, the title 14 (battery)."""
    assert 1 <= len(v.lines) <= 8, v.lines
    assert len(v.lines[0]) <= 14, v.lines
    for x in v.lines:
        assert isinstance(x, str) and len(x) <= 16, v.lines


class ControllerMachine(RuleBasedStateMachine):
    """Random presses, long presses, clock jumps of 0 ms to 3 min, the right and wrong lock
    codes, referee menu picks and power cuts, with the invariants checked after every event."""

    @initialize(setup=SETUP, seed=st.integers(0, 2 ** 32 - 1))
    def boot(self, setup, seed):
        FUZZ["runs"] += 1
        self.rng = random.Random(seed)
        self.c = Controller(settings=setup, rng=self.rng, now_ms=0)
        self.t = 0
        self.draws = 0            # draws of the current action, counted from the log
        self.last = None          # the last card drawn (or redrawn) in the current action
        self.warn_since = None    # when the timed warning went on show
        self.state = None         # the action's state after the last event
        self.check()

    # -- events ------------------------------------------------------------------------------
    def event(self, kind, arg=None):
        c = self.c
        a = c.action
        before = {"screen": c.screen, "pending": a.pending if a else None, "card": c.card,
                  "warn": c.warn, "state": a.state if a else None, "action": a}
        if kind == "press":
            c.press(arg, self.t)
        elif kind == "long":
            c.long(arg, self.t)
        else:
            self.t += arg
        c.tick(self.t)             # the app ticks after every event
        FUZZ["events"] += 1
        self.check(kind, arg, before)

    @rule(button=st.sampled_from(("DRAW",) * 4 + ("HELP",) * 2 + ("RANK", "STOP")),
          gap=st.integers(0, 2500))
    def press(self, button, gap):
        self.event("tick", gap)
        self.event("press", button)

    @rule()
    def draw(self):
        self.event("press", "DRAW")

    @rule(gap=st.sampled_from((0, 20, 400, 2000)))
    def draw_again(self, gap):  # a second rule, so that presses of DRAW come often
        self.event("tick", gap)
        self.event("press", "DRAW")

    @rule(button=st.sampled_from(BUTTONS))
    def long_press(self, button):
        self.event("long", button)

    @rule(ms=st.one_of(st.sampled_from(JUMPS), st.integers(0, 180000)))
    def clock(self, ms):
        self.event("tick", ms)

    @rule(step=st.sampled_from((20, 1000, 2500)), n=st.integers(1, 30))
    def time_passes(self, step, n):
        """The loop ticking on while nobody presses anything (timed draws, R21; R23)."""
        for _ in range(n):
            self.event("tick", step)

    @rule()
    def right_code(self):
        FUZZ["right codes"] += 1
        self.event("long", "STOP")
        for k in self.c.settings["lock"]:
            self.event("press", KEY[k])

    @rule(code=CODES)
    def wrong_code(self, code):
        if code == self.c.settings["lock"]:
            return
        FUZZ["wrong codes"] += 1
        self.event("long", "STOP")
        for k in code:
            self.event("press", KEY[k])

    @rule(item=st.integers(0, 6), then=st.sampled_from(("DRAW", "HELP", "RANK", "STOP")))
    def referee_pick(self, item, then):
        """Open the lock with the code, pick the item-th row of the referee menu, one more key."""
        self.right_code()
        if self.c.screen == "refmenu":
            for _ in range(item):
                self.event("press", "HELP")
            self.event("press", "DRAW")
            self.event("press", then)

    @rule()
    def power_cut(self):
        FUZZ["power cuts"] += 1
        c = self.c
        state = json.loads(json.dumps(c.resume_state()))
        home = c._home()
        self.c = Controller(settings=json.loads(json.dumps(c.settings)), rng=self.rng,
                            now_ms=self.t, resume=state)
        assert self.c.resume_state() == state
        assert self.c.screen == home
        self.warn_since = None
        self.check()

    # -- what must always hold -----------------------------------------------------------------
    def check(self, kind=None, arg=None, before=None):
        c = self.c
        a = c.action
        v = c.view()
        FUZZ["screens"].add(v.screen)
        fits(v)
        if v.blink:
            if self.warn_since is None:
                self.warn_since = self.t
        else:
            self.warn_since_prev = self.warn_since
            self.warn_since = None
        evs = []
        for rec in c.take_log():
            json.dumps(rec)
            ev = rec["ev"]
            evs.append(ev)
            assert ev != "error", rec                      # no exception, even a caught one
            if ev == "start":
                self.draws = 0
                self.last = None
            elif ev == "draw":
                self.draws += 1
                FUZZ["draws"] += 1
                assert rec["n"] == self.draws, rec          # every draw is in the log, in order
                self.last = rec["card"]
                assert before is not None and before["screen"] == "active"
                assert before["pending"] is None and before["card"] is None
                if rec["timed"]:                              # R21
                    FUZZ["timed draws"] += 1
                    assert kind == "tick" and c.settings["timed"]
                    assert before["warn"] > 0                 # the warning was on show ...
                    assert self.t - self.warn_since_prev >= WARN_MS - 1000  # ... for ~5 s
                else:
                    assert (kind, arg) == ("press", "DRAW")
            elif ev == "redraw":
                FUZZ["redraws"] += 1
                assert rec["n"] == self.draws and before["screen"] == "card"
                assert (kind, arg) == ("press", "HELP")
                self.last = rec["card"]
            elif ev == "accept":
                assert rec["n"] == self.draws and rec["card"] == self.last
            elif ev == "undo":
                assert rec["draws"] == self.draws - 1
                self.draws = rec["draws"]
            elif ev == "referee":
                FUZZ["referee decisions"] += 1
        if a is not None:
            assert a.draws == self.draws, (a.draws, self.draws, evs)
            g, y, r, b = a.deck.counts()
            assert min(g, y, r, b) >= 0 and y <= 3 and r <= 3     # R8
            assert a.successes >= 0 and a.complications >= 0
            assert 0 <= a.redraws_left <= a.redraws
            assert a.state in saved.STATES
            assert a.pending is None or (a.pending in COLOURS and a.state == "active")
            if a.pending is not None:
                assert c.card == a.pending and not c.applied
            # the state leaves "referee" only by a referee's decision or undo (R14), and an
            # action ends only with its end record
            if before is not None and before["action"] is a:
                if before["state"] == "referee" and a.state != "referee":
                    assert "referee" in evs or "undo" in evs, evs
                if before["state"] not in END_STATES and a.state in END_STATES:
                    assert "end" in evs, evs
        # the LED: the card drawn last, or nothing -- but for the timed warning (yellow, R21)
        # and the failed screen, which shows the outcome in red
        if v.screen in ("card", "referee", "success"):
            assert v.led == self.last, (v.screen, v.led, self.last)
            assert v.led == {"card": c.card, "referee": "black", "success": "green"}[v.screen]
        elif v.screen == "failed":
            assert v.led == "red"
        elif v.blink:
            assert v.screen == "active" and v.led == "yellow"
        else:
            assert v.led is None, (v.screen, v.led)
        assert clean(c.settings) == c.settings

    @invariant()
    def no_referee_screen_stays_open_unattended(self):
        """The lock and the referee screens close 30 s after the last press, at the next tick
        (and the app ticks after every event), so a player cannot pick up an open menu."""
        c = self.c
        if c.screen in LOCKED or (c.screen == "message" and c.msg[2] in LOCKED):
            assert self.t - c.idle <= IDLE_MS

    @invariant()
    def no_text_is_cut_off(self):
        """view() clips lines to the screen; what it clips may only be trailing spaces."""
        lines, _ = self.c._lines()
        assert len(lines) <= 8, lines
        for i, x in enumerate(lines):
            assert len(x.rstrip()) <= (14 if i == 0 else 16), lines


def test_fuzz_controller_state_machine():
    """`make fuzz` sets FUZZ_EXAMPLES=20000 (random examples each run); the default is a
    fixed set of 150, so `make test` is quick and always the same."""
    examples = os.environ.get("FUZZ_EXAMPLES")
    n = int(examples or 150)
    run_state_machine_as_test(ControllerMachine, settings=hsettings(
        max_examples=n, stateful_step_count=100, deadline=None, derandomize=examples is None,
        suppress_health_check=[HealthCheck.too_slow]))
    seen = sorted(FUZZ["screens"])
    figure("fuzz: %d examples" % n, dict(FUZZ, screens=seen, failures=0))
    assert FUZZ["draws"] > n and FUZZ["timed draws"] and FUZZ["referee decisions"]
    assert set(seen) == set(SCREENS), set(SCREENS) - set(seen)


class Black:
    """An rng whose every draw is the first black card of the deck."""

    def __init__(self):
        self.c = None

    def randrange(self, n):
        g, y, r, b = self.c.action.deck.counts()
        assert b
        return g + y + r


@pytest.mark.parametrize("decision,after", [("Black: go on", "active"), ("Black: fail", "failed")])
def test_a_referee_decision_taken_on_the_card_screen_clears_the_black_card(decision, after):
    """Found by the fuzz. With no redraws the black applies at once and stays on the card
    screen; a referee who opens the lock right there and decides (R14) must leave the black
    card behind: before the fix the card stayed set, so resume_state() said "card", and a
    power cut (or leaving a later lock) brought the black card back on the screen."""
    rng = Black()
    c = Controller(settings={"referee": True, "black": 1, "redraws": 0}, rng=rng)
    rng.c = c
    c.press("DRAW", 0)
    c.press("DRAW", 0)
    assert c.view().screen == "card" and c.view().led == "black" and c.action.state == "referee"
    c.long("STOP", 0)
    for k in c.settings["lock"]:
        c.press(KEY[k], 0)
    while not any(x.startswith(">" + decision) for x in c.view().lines):
        c.press("HELP", 0)
    c.press("DRAW", 0)
    assert c.view().screen == after and c.action.state == after
    assert c.card is None and c.resume_state()["screen"] == after
    rebooted = Controller(settings=dict(c.settings), resume=json.loads(json.dumps(c.resume_state())))
    assert rebooted.view().screen == after and rebooted.view().led in (None, "red")
    c.long("STOP", 1000)                      # the lock again, and cancelled
    c.long("STOP", 1000)
    assert c.view().screen == after
