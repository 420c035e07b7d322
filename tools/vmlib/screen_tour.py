"""A tour of the device: drives one controller through every screen, rendering each view onto
a canvas and handing it to snap(view). Runs the same under CPython and MicroPython; used by
host_tests/test_render.py and by tools/screenshots.py for the README's pictures."""
from carddraw.controller import Controller
from carddraw.render import render
from pick import Pick

KEY = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}


def tour(canvas, snap, battery):
    rng = Pick("red", "black", "green", "green", "black")
    c = Controller(settings={"referee": True, "black": 1, "redraws": 1, "timed": True,
                             "interval": 30, "ranks": 2}, rng=rng, now_ms=0)
    rng.c = c
    clock = [0]

    def show():
        v = c.view()
        render(v, canvas, battery)
        snap(v)

    def k(seq):
        for tok in seq.split():
            if tok[0] == "l":
                c.long(KEY[tok[1]], clock[0])
            else:
                c.press(KEY[tok], clock[0])
            c.settle()  # as the app does once it persisted (a code try is then compared)
            show()

    def tick(ms):
        clock[0] = ms
        c.tick(ms)
        show()

    show()                                     # set-up
    k("S S")                                   # the difficulty picker, and back unchanged
    k("lD R H H H H H D H R H D S")            # options: scroll, needed 2, back
    k("D")                                     # active, timed
    tick(26000)                                # the warning
    k("D S R H D")                             # red pending, refused stop, redraw: black
    k("lS R H D S D")                          # lock, wrong code, back
    k("lS R H R H D")                          # referee: black, go on
    k("S S")                                   # stop? no
    k("lS R H R H H D D H D S H H H H D R H D S lS")      # adjust, new code, leave
    k("D D D D H R D")                         # green, green: success, finish
    tick(90000)                                # summary
    k("D D S D")                               # set-up, active, stop?, a stop's finishing
    tick(150000)                               # its summary: stopped, no retry today
    k("D")                                     # set-up
    k("S D")                                   # +1 black again (each action its own cards)
    k("D D D lS R H R H H D D")                # black pending, referee: fail, set-up
    k("lS R H R H S")                          # the referee menu with no action
    return c
