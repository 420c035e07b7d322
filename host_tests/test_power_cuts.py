"""Hardening, part 2: power cuts at every flash operation of a long scripted event, through
the whole App (controller + store + the loop's save order), under CPython on a fake board
(vmlib/hardening_board.py) and the fake littlefs (fakeflash.py).

The event is played once on a flash that keeps a snapshot before every operation: a cut at
operation N leaves exactly the snapshot taken before N (FakeFlash freezes the flash at the
cut, and everything before it is deterministic). A sample of cuts is replayed for real (a
PowerCut raised in the middle of App.step) to show the snapshots are what a cut leaves.
After every cut a new App boots on what survived, and must:
  - boot without an exception and with no notice of damage;
  - resume exactly the resume state that last reached flash (screen, state, deck, successes,
    complications, draws, the card on show, the undo) -- so a saved black is still there;
  - resume either what the player last saw or the one step after it, never an older one;
  - hold every log entry whose write had returned, in order, and nothing damaged;
  - go on working (draws and logs after the boot).
"""
import bisect
import json
import os
import random
import sys

import pytest

from conftest import ROOT
from carddraw import config
from carddraw.app import App
from carddraw.logline import SEGMENT as SEGMENT_NAME
from carddraw.store import Store
from fakeflash import FakeFlash, PowerCut
from test_controller_fuzz import figure

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
import hardening_board  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tools"))
import logchain  # noqa: E402

LIMIT = config.LOG_LIMIT  # the real limit: nothing exported, nothing dropped
SEGMENT = 4096            # small segments: the event below starts a dozen of them
SEED = 20261129
ACTIONS = 50
START = dict(config.defaults(), referee=True, black=1, redraws=1, needed=3, ranks=3, helpers=2,
             yellow=2, interval=30)
HOME = ("setup", "active", "card", "referee", "success", "finishing", "summary",
        "failed")


class SnapFlash(FakeFlash):
    """A FakeFlash that keeps what the flash held before each operation: snaps[n] is the
    flash after n operations, i.e. what a cut at operation n + 1 leaves."""

    def __init__(self, flash=None):
        super().__init__(flash)
        self.snaps = []

    def _op(self, *what):
        self.snaps.append(dict(self.flash))
        super()._op(*what)


class Bench:
    """An App on a fake board; remembers, by flash operation count, which writes returned."""

    def __init__(self, fs):
        self.fs = fs
        self.board = hardening_board.Board()
        self.store = Store(fs=fs, log_limit=LIMIT, segment=SEGMENT)
        self.logged = []      # (ops when log() returned, record)
        self.saved = []       # (ops when save_action() returned, state)
        self.steps = []       # (ops at the end of a step, resume state, led) after each step
        self.store.log = self._wrap(self.store.log, self.logged)
        self.store.save_action = self._wrap(self.store.save_action, self.saved)
        self.now = 1000
        self.app = App(self.board, self.store, random.Random(SEED), self.now, write=lambda s: None)
        self.c = self.app.controller
        self.policy = random.Random(7)
        self.draws = 0
        self.counts = {"actions": 0, "draws": 0, "redraws": 0, "referee": 0, "stops": 0,
                       "chains": 0, "timed draws": 0, "settings": 0, "undo": 0, "adjust": 0,
                       "helper": 0, "black": 0}

    def _wrap(self, fn, into):
        def wrapped(value):
            ok = fn(value)
            into.append((self.fs.ops, json.loads(json.dumps(value))))
            return ok
        return wrapped

    # -- input -------------------------------------------------------------------------------
    def step(self, ms=300):
        self.now += ms
        self.app.loop_pass(self.now)
        self.steps.append((self.fs.ops, self.c.resume_state(), self.board.led.colour))

    def press(self, *names, kind="short"):
        for name in names:
            self.board.buttons.push(name, kind)
            self.step()

    def screen(self):
        return self.c.view().screen

    def code(self):
        self.press("STOP", kind="long")
        self.press(*[config.BUTTONS["RHDS".index(k)] for k in "RHRH"])  # config.DEFAULT_LOCK
        assert self.screen() == "refmenu"

    def choose(self, label):
        """On a menu, move the cursor to the row starting `label` and press DRAW."""
        for _ in range(16):
            if any(x.startswith(">" + label) for x in self.c.view().lines):
                self.press("DRAW")
                return
            self.press("HELP")
        raise AssertionError("no %r on %s" % (label, self.c.view().lines))

    def option(self, index, presses):
        """From set-up: options, move to OPTS[index], DRAW, `presses`, back to set-up."""
        self.press("DRAW", kind="long")
        self.press(*["HELP"] * index)
        self.press("DRAW", *presses)
        if presses:
            self.press("DRAW")
        self.press("STOP")
        assert self.screen() == "setup"
        self.counts["settings"] += 1

    # -- the event -----------------------------------------------------------------------------
    def play(self, actions):
        p = self.policy
        c = self.c
        for _ in range(4000):
            s = self.screen()
            a = c.action
            if s == "setup":
                if self.counts["actions"] >= actions:
                    return
                n = self.counts["actions"]
                if n % 4 == 1:
                    self.option(9, [])                       # timed mode on/off
                elif n % 5 == 2:
                    self.option(6, ["HELP" if n % 2 else "RANK"])  # redraws +-1
                elif n % 3 == 0:
                    self.press("RANK")
                self.press("DRAW")
                self.counts["actions"] += 1
            elif s == "active":
                r = p.random()
                if r < 0.05:
                    self.press("STOP", "DRAW")
                    self.counts["stops"] += 1
                elif r < 0.16 and a.referee:
                    self.code()
                    k = p.choice(("Helper", "Adjust", "Undo", "Leave"))
                    rows = " ".join(c.view().lines)
                    if k == "Helper" and "Helper" in rows and a.helpers:
                        self.choose("Helper")
                        self.press("DRAW")
                        self.counts["helper"] += 1
                    elif k == "Adjust" and "Adjust" in rows:
                        self.choose("Adjust")
                        self.press("HELP", "DRAW", "HELP", "DRAW", "STOP")  # one yellow more
                        self.counts["adjust"] += 1
                    elif k == "Undo" and "Undo" in rows:
                        self.choose("Undo")
                        self.press("DRAW")
                        self.counts["undo"] += 1
                    self.press("STOP", kind="long")
                    if self.screen() == "message":
                        self.press("DRAW")
                elif c.settings["timed"] and r < 0.5:
                    before = a.draws
                    for _ in range(40):                      # wait for the timed draw
                        self.step(2000)
                        if a.draws != before or self.screen() != "active":
                            break
                    self.counts["timed draws"] += a.draws - before
                else:
                    self.press("DRAW")
            elif s == "card":
                if not c.play.applied and a.redraws_left and p.random() < 0.5:
                    self.press("HELP")
                    self.counts["redraws"] += 1
                else:
                    self.press("DRAW")
            elif s == "referee":
                self.code()
                self.choose("Black: go on" if p.random() < 0.6 else "Black: fail")
                self.counts["referee"] += 1
                if self.screen() == "refmenu":
                    self.press("STOP")
            elif s == "success":
                if p.random() < 0.4:
                    self.press("HELP", "DRAW")
                    self.counts["chains"] += 1
                else:
                    self.press("DRAW")
            elif s == "finishing":
                self.step(61000)
            else:  # summary, failed, message
                self.press("DRAW")
        raise AssertionError("the scripted event did not finish")


_PARSED = {}


def log_files(flash):
    return sorted(name for name in flash if name.startswith("log.0"))


def records_of(flash):
    """read_log() of a flash's log segments; cached by their contents (thousands of cuts share
    a few hundred log states)."""
    key = tuple((name, flash[name]) for name in log_files(flash))
    if key not in _PARSED:
        _PARSED[key] = Store(fs=FakeFlash(dict(key)), log_limit=LIMIT).read_log()
    return _PARSED[key]


def appended(before, after):
    """The records a boot added to the log after `before`'s contents -> (records, damaged
    lines). Nothing is ever dropped here (nothing was exported): every segment only grew."""
    grown = b""
    for name in log_files(after):
        old = before.get(name, b"")
        assert after[name].startswith(old), name
        grown += after[name][len(old):]
    return Store(fs=FakeFlash({SEGMENT_NAME % 1: grown}), log_limit=LIMIT).read_log()


def lost_of(logged, recs):
    """How many of the records `logged` are not in `recs`."""
    if recs[:len(logged)] == logged:
        return 0
    have = set(json.dumps(r, sort_keys=True) for r in recs)
    return sum(1 for r in logged if json.dumps(r, sort_keys=True) not in have)


def action_on(flash):
    raw = flash.get(config.ACTION_FILE)
    return None if raw is None else json.loads(raw)


@pytest.fixture(scope="module")
def event():
    """The scripted event, played once on a snapshotting flash."""
    fs = SnapFlash({config.SETTINGS_FILE: json.dumps(START).encode()})
    b = Bench(fs)
    b.play(actions=ACTIONS)
    fs.snaps.append(dict(fs.flash))
    recs, _ = records_of(fs.flash)
    b.counts["draws"] = sum(1 for r in recs if r["ev"] == "draw")
    b.counts["black"] = sum(1 for r in recs if r.get("card") == "black" and r["ev"] == "draw")
    b.counts["timed draws"] = sum(1 for r in recs if r["ev"] == "draw" and r["timed"])
    return b


def test_the_scripted_event_covers_what_it_should(event):
    c = event.counts
    assert c["actions"] == ACTIONS and c["draws"] >= 120
    for k in ("redraws", "referee", "stops", "chains", "timed draws", "settings", "undo",
              "adjust", "helper", "black"):
        assert c[k] >= 1, k
    flash = event.fs.flash
    assert len(log_files(flash)) >= 8                   # the log started new segments ...
    recs, bad = records_of(flash)
    assert bad == 0 and recs == [r for _, r in event.logged]   # ... and nothing was dropped
    figure("power: event", dict(c, **{"flash operations": event.fs.ops,
                                       "log records": len(recs)}))


def boot(flash, now=5_000_000):
    fs = FakeFlash(flash)
    board = hardening_board.Board()
    store = Store(fs=fs, log_limit=LIMIT, segment=SEGMENT)
    app = App(board, store, random.Random(1), now, write=lambda s: None)
    return app, store, fs, board


def test_a_power_cut_at_every_flash_operation_loses_nothing(event):
    snaps = event.fs.snaps
    total = len(snaps) - 1          # operations in the event
    log_ops = [ops for ops, _ in event.logged]
    save_ops = [ops for ops, _ in event.saved]
    step_ops = [s[0] for s in event.steps]
    lost = 0
    extra = 0
    behind = 0
    screens = set()
    blacks = 0
    chains = 0
    for cut in range(1, total + 1):
        survivor = snaps[cut - 1]
        # what had returned before operation `cut`
        n = bisect.bisect_left(log_ops, cut)
        logged = [r for _, r in event.logged[:n]]
        k = bisect.bisect_left(save_ops, cut)
        on_flash = action_on(survivor)
        assert on_flash == (event.saved[k - 1][1] if k else None), cut  # atomic: the last save
        # the log: every returned entry, in order, and at most the one in flight after them
        recs, bad = records_of(survivor)
        assert bad == 0, cut
        lost += lost_of(logged, recs)
        assert recs[n:] in ([], [r for _, r in event.logged[n:n + 1]]), cut
        extra += len(recs) - n
        # boot on what survived
        app, store, fs, board = boot(survivor)
        c = app.controller
        assert app.notices == [] and store.take_notices() == [], (cut, app.notices)
        assert c.resume_state() == on_flash, cut
        v = c.view()
        screens.add(v.screen)
        if on_flash is not None:
            assert v.screen == on_flash["screen"]
            a = on_flash["action"]
            if a["state"] == "stopped":  # R16, R23: back to a stop's finishing or summary
                assert v.screen in ("finishing", "summary"), cut
            if a["pending"] == "black" or a["state"] == "referee" or on_flash["card"] == "black":
                blacks += 1
                assert v.led == "black" or v.screen == "failed"   # no escape from a black
        # what the player saw last (the last step that had ended before the cut), or the step
        # in flight: never anything older
        d = bisect.bisect_left(step_ops, cut)
        seen = event.steps[d - 1][1] if d else None
        later = event.steps[d][1] if d < len(event.steps) else seen
        if c.resume_state() not in (seen, later):
            behind += 1
        # the device goes on: the boot logged its resume, a few presses later all is on flash
        for i, name in enumerate(("DRAW", "DRAW", "RANK")):
            board.buttons.push(name)
            app.loop_pass(5_000_000 + 300 * (i + 1))
        new, bad = appended(survivor, fs.flash)
        assert bad == 0 and new, cut
        assert not any(r["ev"] in ("error", "damage") for r in new), cut
        if cut % 50 == 0 or cut == total:  # the chain holds across the cut and the boot
            lines = []
            Store(fs=FakeFlash(fs.flash), log_limit=LIMIT).read_log(lines.append, raw=True)
            assert logchain.verify(lines)[0], (cut, logchain.verify(lines))
            chains += 1
    figure("power: cuts", {"cuts tried (every flash operation)": total,
                           "log entries lost": lost, "cuts at an entry's close, the entry already on flash": extra,
                           "resumes behind what was shown": behind,
                           "cuts with a black saved, still there on boot": blacks,
                           "logs whose hash chain was verified after a cut": chains,
                           "screens resumed": sorted(screens)})
    assert lost == 0 and behind == 0
    assert blacks > 0 and {"active", "card", "referee", "setup"} <= screens


def test_real_cuts_leave_exactly_the_snapshot(event):
    """The shortcut above is sound: replaying the event with a real cut (a PowerCut raised
    inside App.step) leaves the flash exactly as the snapshot before that operation."""
    total = len(event.fs.snaps) - 1
    cuts = sorted(set(list(range(1, 25)) + list(range(25, total + 1, 211)) + [total]))
    for cut in cuts:
        fs = FakeFlash({config.SETTINGS_FILE: json.dumps(START).encode()}, cut_at=cut)
        with pytest.raises(PowerCut):
            b = Bench(fs)
            b.play(actions=ACTIONS)
        assert fs.flash == event.fs.snaps[cut - 1], cut
    figure("power: real replays", len(cuts))


def test_a_second_cut_during_the_boot_after_a_cut(event):
    """The power may go again while the device boots after a cut (it logs its resume then):
    cut at every operation of that boot, on every 8th first cut, and boot once more."""
    snaps = event.fs.snaps
    tried = 0
    for cut in range(1, len(snaps), 8):
        survivor = snaps[cut - 1]
        on_flash = action_on(survivor)
        k = 1
        while True:
            fs = FakeFlash(survivor, cut_at=k)
            try:
                App(hardening_board.Board(), Store(fs=fs, log_limit=LIMIT, segment=SEGMENT), random.Random(1),
                    7_000_000, write=lambda s: None)
            except PowerCut:
                tried += 1
                app, store, fs2, _ = boot(fs.reboot().flash)
                assert app.notices == [] and app.controller.resume_state() == on_flash
                new, bad = appended(survivor, fs2.flash)
                assert bad == 0 and all(r["ev"] == "resume" for r in new), cut
                k += 1
                continue
            break
    figure("power: second cuts during the boot", tried)
    assert tried > 100
