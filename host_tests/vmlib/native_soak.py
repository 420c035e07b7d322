# The app booted on the simulator's hardware stand-ins (tools/sim/machine.py, neopixel.py),
# soaked: 10,000 draws, then 100,000 random button events, each followed by a loop pass (the
# display redrawn, state saved, the log written). Run under native MicroPython on the .mpy
# files with a Pico-sized heap (-X heapsize=240k, a little under the board's 245,888 B) by test_native.py, and
# by make bench's soak (tools/benchmarks/memory.py, 200k). The heap is read by gc.mem_free() after a collection.
import gc
import os
import time

import machine

SIM = getattr(machine, "SIM", None)  # None: the bare machine (tools/benchmarks/bare), the
# board's own as far as the heap goes (C in flash on the board: nothing of it in the heap)
from carddraw import config, lockcode
from carddraw.app import App
from carddraw.board import Board
from carddraw.rng import Rng
from carddraw.store import Store

BUTTONS = ("RANK", "HELP", "DRAW", "STOP")


def free():
    gc.collect()
    return gc.mem_free()


def largest():
    """The largest bytearray that can be allocated now: the longest free run of the heap
    (fragmentation), found by bisection after a collection."""
    gc.collect()
    lo, hi = 0, gc.mem_free()
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            b = bytearray(mid)
            b = None
            lo = mid
        except MemoryError:
            hi = mid - 1
    return lo


def timed_us(f, n):
    t = time.ticks_us()
    for _ in range(n):
        f()
    return time.ticks_diff(time.ticks_us(), t) // n


class Soak:
    def __init__(self, flash, seed=1, fast_i2c=True):
        try:
            os.mkdir(flash)
        except OSError:
            pass
        os.chdir(flash)                  # Store() keeps its files in the current folder
        self.i2c_bytes = 0
        self.now = 0
        if SIM is not None:
            SIM.reset()
            if fast_i2c:
                # the stand-in decodes every byte sent to the OLED in Python (2 ms a frame
                # here): the soak only counts them, so 100,000 events take seconds
                SIM._i2c_write = self.i2c_write
            SIM.clock = self.clock
        else:
            machine.I2C.sink = self.i2c_write
        s = config.defaults()            # a long action: ranks 5, 9 successes needed
        s["ranks"] = 5
        s["needed"] = 9
        store = Store()
        store.save_settings(s)
        gc.collect()
        self.heap_total = gc.mem_free() + gc.mem_alloc()
        self.before_boot = free()
        self.rng = Rng(seed)             # the events' own generator
        self.app = App(Board(), store, Rng(seed + 1), 0, write=self.reply)
        self.pending = []
        self.app.board.buttons.poll = self.poll   # events come in as the debounced buttons give them
        self.failed = 0
        self.first_failure = None
        self.step(self.now)
        self.boot = free()
        self.c = self.app.controller
        self.events = 0
        self.draws = 0
        self.replies = 0
        self.pass_us = 0
        self.passes = 0

    def clock(self):
        return self.now

    def i2c_write(self, addr, vector):
        for part in vector:
            self.i2c_bytes += len(part)

    def reply(self, text):
        self.replies += 1

    def poll(self, now, longs=()):
        out = self.pending
        self.pending = []
        return out

    def step(self, now):
        """One pass of the firmware's own loop (App.loop_pass: an exception is shown and
        logged, the loop goes on); a pass that raised is counted."""
        if not self.app.loop_pass(now):
            self.failed += 1
            if self.first_failure is None:
                self.first_failure = "%s at event %d on %s" % (
                    self.app.last_error, self.events, self.c.screen)

    def event(self, name, kind, gap):
        """One button event as the debounced buttons deliver it, then a loop pass."""
        self.now += gap
        before = self.c.action.draws if self.c.action is not None else 0
        started = self.c.action
        self.pending.append((name, kind))
        t0 = time.ticks_us()
        self.step(self.now)
        self.pass_us += time.ticks_diff(time.ticks_us(), t0)
        self.passes += 1
        a = self.c.action
        if a is not None and (a is not started or a.draws > before) and a.draws:
            self.draws += 1 if a is not started else a.draws - before
        self.events += 1
        if not self.events % EXPORT_EVERY:  # the referee exports the log (make logs), which
            store = self.app.store  # lets its oldest segments go
            store.flush()           # (the journal's records in the log: the export's last)
            from carddraw.logexport import ack  # as `log ack` imports it: on first use
            ack(store, store.logfile.seq, store.logfile.prev)

    def draw(self, n):
        """n draws through DRAW presses (a draw, its card shown, the next screen...)."""
        target = self.draws + n
        while self.draws < target:
            gap = 61000 if self.c.screen == "finishing" else 100   # R23: the minute passes
            self.event("DRAW", "short", gap)

    def random_events(self, n):
        """n events: a random button, short or (one in eight) long, 20 ms to 4 s apart."""
        r = self.rng
        for _ in range(n):
            kind = "long" if r.randrange(8) == 0 else "short"
            self.event(BUTTONS[r.randrange(4)], kind, 20 + r.randrange(4000))

    def settle(self):
        """Back to the set-up screen with no action, so readings are taken in one state:
        the presses a person would make on each screen (the referee's code, the default
        RHRH, for a black the referee must decide). -> True if it got there."""
        for _ in range(100):
            screen = self.c.screen
            if self.c.action is None and screen == "setup":
                for _ in range(30):  # 3 s untouched: the store's idle work done
                    self.now += 100
                    self.step(self.now)
                return True
            wait = self.c.lockout.wait_ms()
            if wait and screen in ("referee", "lock"):  # wrong codes pressed at random: the
                self.now += wait                        # referee waits the lockout out
                self.step(self.now)
            for name, kind in SETTLE.get(screen, (("STOP", "short"),)):
                self.event(name, kind, 61000 if screen == "finishing" else 100)
        return False


EXPORT_EVERY = 2000   # events between two exports of the log, acknowledged

# screen -> the presses that lead back towards the set-up screen (STOP where not listed)
SETTLE = {"active": (("STOP", "short"),), "confirm": (("DRAW", "short"),),
          "card": (("DRAW", "short"),), "success": (("DRAW", "short"),),
          "finishing": (("DRAW", "short"),), "summary": (("DRAW", "short"),),
          "stopped": (("DRAW", "short"),), "failed": (("DRAW", "short"),),
          "message": (("RANK", "short"),),
          "referee": (("STOP", "long"), ("RANK", "short"), ("HELP", "short"),
                      ("RANK", "short"), ("HELP", "short")),
          "refmenu": (("HELP", "short"), ("DRAW", "short"))}   # "Black: fail"


def setup_costs(s, n=10):
    """(us) a set-up press that changes the deck, which works out its chance with odds.py
    imported for the sum and dropped; and a start, which loads the action's code (draws.py,
    the Action, odds): each a loop pass, averaged over n."""
    press = start = 0
    for _ in range(n):
        t = time.ticks_us()
        s.event("RANK", "short", 100)
        press += time.ticks_diff(time.ticks_us(), t)
        t = time.ticks_us()
        s.event("DRAW", "short", 100)
        start += time.ticks_diff(time.ticks_us(), t)
        s.settle()
    return press // n, start // n


def run(flash, draws=10000, events=100000, every=10000, seed=1, measure=False):
    """10,000 draws by DRAW presses, then random events up to `events` events in all. ->
    figures: free heap (bytes, after a collection) before and after boot, after the draws
    and at every `every` events (each on the set-up screen with no action, if settle() got
    there); a MemoryError, if one came, by its message."""
    s = Soak(flash, seed)
    out = {"heap_total": s.heap_total, "before_boot": s.before_boot, "boot": s.boot,
           "readings": [], "error": None, "stuck": []}
    if measure:   # for make bench: fragmentation, an idle pass, a collection
        out["boot_largest"] = largest()
        out["idle_pass_us"] = timed_us(lambda: s.step(s.now), 200)
        out["collect_us"] = timed_us(gc.collect, 50)
        out["setup_press_us"], out["start_us"] = setup_costs(s)
    t0 = time.ticks_ms()
    try:
        s.draw(draws)
        s.settle() or out["stuck"].append(s.c.screen)
        out["after_draws"] = free()
        out["draw_events"] = s.events
        out["draw_phase"] = s.draws
        while s.events < events:
            s.random_events(min(every - s.events % every, events - s.events))
            s.settle() or out["stuck"].append(s.c.screen)
            out["readings"].append(free())
    except MemoryError as e:
        out["error"] = "MemoryError: %s" % e
    out["ms"] = time.ticks_diff(time.ticks_ms(), t0)
    if measure:
        out["largest"] = largest()
        out["collect_us_after"] = timed_us(gc.collect, 50)
    out["draws"] = s.draws
    out["events"] = s.events
    out["pass_us"] = s.pass_us // max(1, s.passes)
    out["i2c_bytes"] = s.i2c_bytes
    out["failed"] = s.failed
    out["first_failure"] = s.first_failure
    return out
