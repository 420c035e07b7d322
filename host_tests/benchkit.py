"""Bench mode's bench: an App on the fake board and flash, driven on a virtual clock, the
default code, the gate's refusal and a fake of MicroPython's kbd_intr (test_bench_mode.py,
test_bench_search.py and test_maint_boot.py use them)."""
import json
import os
import sys

import pytest

from conftest import ROOT
from carddraw import app as app_module, config
from carddraw.app import App
from carddraw.rng import Rng
from carddraw.store import Store
from fakeflash import FakeFlash
from handheld import play_state
from storelog import read_log

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import hardening_board  # noqa: E402
from common import logchain  # noqa: E402

CODE = "RHRH"                   # the default code (config.DEFAULT_LOCK keeps its hash)
REFUSED = "%s needs bench mode: unlock CODE first"
BENCH_MS = 600_000              # bench mode ends 10 quiet minutes after a line (docs/bench.md)
RESTART_MS = 200                # maint resets the board this long after its reply


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
        return read_log(self.app.store)[0]

    def lines(self):
        out = []
        read_log(self.app.store, out.append, raw=True)
        return out

    def last_seq_hash(self):
        last = self.lines()[-1]
        return json.loads(last)["seq"], logchain.split(last)[1]

    def state(self):
        c = self.app.controller
        con = self.app.console
        return (c.show(), dict(c.settings), play_state(c), self.board.led.colour,
                con and con.test, self.app.store.logfile.exported, len(self.lines()))


@pytest.fixture
def kbd(monkeypatch):
    """A fake micropython module: the calls of kbd_intr, in order."""
    calls = []
    monkeypatch.setattr(app_module, "kbd_intr", calls.append)
    return calls

