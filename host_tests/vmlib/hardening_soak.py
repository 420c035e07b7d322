# Many draws through the controller and the store, the way App's loop persists them
# (App.persist: a journal entry, then the idle passes' work), on the VM's RAM filesystem. Run inside the
# MicroPython VM by test_vm_soak.py, in top-level steps so that gc.collect() can free.
import random
import time

from carddraw import config
from carddraw.app import App
from carddraw.logexport import ack
from carddraw.store import Store
import hardening_board


class Soak:
    def __init__(self, seed=1):
        random.seed(seed)
        # a long action: 9 ranks, 9 successes needed; no redraws, so a DRAW draws and applies
        s = config.defaults()
        s["ranks"] = 5
        s["needed"] = 9
        s["redraws"] = 0
        store = Store(log_limit=128 * 1024)  # 16 KB segments; the bench acknowledges as it goes
        store.save_settings(s)
        self.board = hardening_board.Board()
        self.app = App(self.board, store, random, 0, write=self.reply)
        self.c = self.app.controller
        self.now = 0
        self.draws = 0
        self.actions = 0
        self.dropped = 0      # exported segments removed to make room
        self.ms = 0
        self.store = store
        remove = store.fs.remove

        def counted(path):
            if path.startswith("log/log.0"):
                self.dropped += 1
            remove(path)
        store.fs.remove = counted

    def reply(self, text):
        pass

    def press(self, name):
        c = self.c
        self.now += 100
        if c.screen == "finishing":
            self.now += 61000  # R23: the minute of roleplay passes
        else:
            c.press(name, self.now)
        c.tick(self.now)
        self.app.persist()
        while self.store.housekeep():  # the idle passes after it
            pass
        c.take_beeps()

    def run(self, n):
        """n draws, then on to the set-up screen with no action, so every reading is taken
        in the same state."""
        t0 = time.ticks_ms()
        c = self.c
        target = self.draws + n
        while self.draws < target:
            before = c.action.draws if c.action else 0
            started = c.action
            self.press("DRAW")
            if c.action is not None and c.action is not started:
                self.actions += 1
            if c.action is not None and c.action.draws > before:
                self.draws += 1
        self.ms += time.ticks_diff(time.ticks_ms(), t0)
        # the bench exports and acknowledges (tools/bench.py logs): old segments may go
        log = self.store.logfile
        self.store.flush()  # the journal's records in the log: the export's last is its last
        assert ack(self.store, log.seq, log.prev) is None

    def settle(self):
        c = self.c
        for _ in range(200):
            if c.action is None and c.screen == "setup":
                break
            self.press("DRAW")
        c.view()
