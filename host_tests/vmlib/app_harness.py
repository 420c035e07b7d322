# Drives the firmware's App inside the MicroPython VM on the hardware stand-ins (tools/sim),
# on a virtual clock: shared by test_app.py and test_bench.py (`from app_harness import *`).
import json
import random

from machine import SIM
from carddraw.board import Board
from carddraw.store import Store
from carddraw.app import App


class Clock:
    t = 0


CLOCK = Clock()
SIM.clock = lambda: CLOCK.t
REPLIES = []


def boot(seed=1, watchdog=False):
    """A fresh App on the current flash (a power-on); replies collect in REPLIES."""
    random.seed(seed)
    app = App(Board(), Store(), random, CLOCK.t, write=REPLIES.append)
    if watchdog:
        app.board.watchdog(5000)
    return app


def run(app, ms):
    """ms of simulated time, a loop pass every 20 ms, feeding the watchdog if one runs."""
    end = CLOCK.t + ms
    while CLOCK.t < end:
        CLOCK.t += 20
        app.step(CLOCK.t)
        if app.board.wdt is not None:
            app.board.wdt.feed()


def send(app, *lines):
    """Protocol lines in; every reply out once each line is answered (waits included)."""
    del REPLIES[:]
    for line in lines:
        app.line(line)
    run(app, 20)
    while app.queue or app.wait_until is not None:
        run(app, 20)
    return [json.loads(r) for r in REPLIES]


def one(app, line):
    return send(app, line)[-1]


def tap(app, name, ms=120):
    """A press of a physical button through the pins (and the firmware's debounce)."""
    SIM.press(name)
    run(app, ms)
    SIM.release(name)
    run(app, 100)
