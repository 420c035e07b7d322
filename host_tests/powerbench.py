"""The power-cut tests' bench: the App on a stand-in board and a recording chip (Bench), played
through a scripted event, and boot() of an App on a flash image. test_power_cuts.py,
test_usb_attacks.py and test_end_screens.py use it."""
import json
import os
import random
import sys

from conftest import ROOT
from carddraw import config
from carddraw.app import App
from carddraw.rng import Rng
from carddraw.store import Store
from fakeflash import FakeFlash
from handheld import play_state

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
import hardening_board  # noqa: E402

SEGMENT = 4096            # small segments: the event below starts a dozen of them
SEED = 20261129
START = dict(config.defaults(), referee=True, black=1, redraws=1, needed=3, ranks=3, helpers=2,
             yellow=2, interval=30)


class Bench:
    """The App on a stand-in board and a recording chip; after each pass, what had reached
    flash (the chip's operation count when the pass's commit returned) and what it showed."""

    def __init__(self, fs):
        self.fs = fs
        self.board = hardening_board.Board()
        self.store = Store(fs=fs, segment=SEGMENT)
        self.commits = []     # (ops when commit returned, its records) for each commit
        self.passes = []      # (ops when the commit returned, state shown) after each pass
        keep = self.store.commit

        def commit(records, settings=None, hint=None):
            ok = keep(records, settings, hint)
            assert ok
            self.commits.append((self.ops(), json.loads(json.dumps(records))))
            return ok
        self.store.commit = commit
        self.now = 1000
        self.out = []
        # the device's own generator, seeded; its next block hashed in idle passes
        self.app = App(self.board, self.store, Rng(SEED), self.now, write=self.out.append)
        self.c = self.app.controller
        self.policy = random.Random(7)
        self.counts = {"actions": 0, "redraws": 0, "referee": 0, "stops": 0, "chains": 0,
                       "settings": 0, "undo": 0, "adjust": 0, "helper": 0, "exports": 0}

    def ops(self):
        return self.fs.chip.progs + self.fs.chip.erases

    # -- input -------------------------------------------------------------------------------
    def step(self, ms=300):
        self.now += ms
        assert self.app.loop_pass(self.now), self.app.last_error
        self.passes.append((self.commits[-1][0], play_state(self.c)))

    def press(self, *names, kind="short"):
        for name in names:
            self.board.buttons.push(name, kind)
            self.step()

    def line(self, text):
        """A console line, run to its last reply."""
        self.app.line(text)
        for _ in range(2000):
            self.step(20)
            if not self.app.console.busy():
                break
        return json.loads(self.out[-1])

    def screen(self):
        return self.c.view().screen

    def code(self):
        self.press("STOP", kind="long")
        self.press(*[config.BUTTONS["RHDS".index(k)] for k in "RHRH"])  # config.DEFAULT_LOCK
        self.step(20)  # the next pass compares the try, its count on flash
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

    def export(self):
        """The bench's `make logs`: unlock, the log, its acknowledgement, lock."""
        assert self.line("unlock RHRH")["ok"] == "unlock"
        done = self.line("log")
        assert done["ok"] == "log"
        last = json.loads(json.loads(self.out[-2])["log"])
        assert self.line("log ack %d %s" % (last["seq"], last["h"]))["ok"] == "ack"
        self.line("lock")
        self.counts["exports"] += 1

    # -- the event -----------------------------------------------------------------------------
    def play(self, actions):
        p = self.policy
        c = self.c
        for _ in range(6000):
            s = self.screen()
            a = c.action
            if s == "setup":
                if self.counts["actions"] >= actions:
                    return
                n = self.counts["actions"]
                if n == actions // 2:
                    self.export()
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
                else:
                    if r > 0.6:  # a pause first: idle passes (the generator's block)
                        for _ in range(6):
                            self.step(300)
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


def boot(image, now=5_000_000):
    fs = FakeFlash(image=image)
    board = hardening_board.Board()
    store = Store(fs=fs, segment=SEGMENT)
    app = App(board, store, random.Random(1), now, write=lambda s: None)
    return app, store, fs
