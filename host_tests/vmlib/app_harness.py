# Drives the firmware's App inside the MicroPython VM on the hardware stand-ins (tools/sim),
# on a virtual clock: the one harness of the VM tests (`from app_harness import *`). Every
# pass is the firmware's own App.loop_pass, as the board and the simulator run it.
import json
import random

from machine import SIM
from carddraw import config, saved
from carddraw.board import Board
from carddraw.store import Store
from carddraw.app import App
from carddraw.rng import Rng
from storelog import read_log  # noqa: F401 -- for the scripts (from app_harness import *)


class Clock:
    t = 0


CLOCK = Clock()
SIM.clock = lambda: CLOCK.t      # the watchdog's time: virtual, so a stall costs no real time
REPLIES = []


def boot(seed=1, watchdog=False):
    """A fresh App on the current flash (a power-on); replies collect in REPLIES."""
    random.seed(seed)
    app = App(Board(), Store(), Rng(seed), CLOCK.t, write=REPLIES.append)
    if watchdog:
        app.board.watchdog(5000)
    return app


def run(app, ms, errors_ok=False):
    """ms of simulated time, a loop pass every LOOP_MS (the pass feeds the watchdog if one
    runs). A pass that raised (loop_pass shows and logs it, and goes on) stops the test
    unless errors_ok."""
    end = CLOCK.t + ms
    while CLOCK.t < end:
        CLOCK.t += config.LOOP_MS
        if not app.loop_pass(CLOCK.t) and not errors_ok:
            raise AssertionError("a loop pass raised: %s" % app.last_error)


def send(app, *lines):
    """Protocol lines in; every reply out once each line is answered (waits included)."""
    del REPLIES[:]
    for line in lines:
        app.line(line)
    run(app, 20)
    while app.console.busy():
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


def state(app):
    """What must survive a power cut or a watchdog reset: the view, and the action in play
    (None at set-up): its screen, the action, the undo, the card on show and whether its
    result applied, the phase after its end."""
    c = app.controller
    p = c.play
    return {"show": c.show(), "led": c.view().led, "resume": p and {
        "screen": p.home(), "action": saved.to_dict(p.action), "undo": p.undo, "card": p.card,
        "applied": p.applied, "ended": p.ended}}
