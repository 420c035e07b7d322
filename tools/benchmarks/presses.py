"""make bench's presses: how many button presses three typical set-ups take, from power-on (a
fresh device, default settings) to the first card drawn.

Each set-up is played as bench-protocol lines (`press RANK`, `long DRAW`, ...) through the
simulator (tools/sim/sim.mjs --protocol: the firmware in the MicroPython VM on the board's
stand-ins), then `show` must report one draw from the deck the engine builds for that task,
else the figure is not measured. Printed, not asserted: host_tests/test_setup.py holds the
limits."""
import json
import os
import subprocess

from carddraw.action import Action
from report import Unmeasurable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIM = os.path.join(ROOT, "tools", "sim", "sim.mjs")
KEY = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
# (name, the action's parameters, presses); "lD" = hold DRAW. The last two presses of each:
# DRAW starts the action, DRAW draws the first card.
TASKS = (
    ("surgery, ranks 2, 1 helper, +1 red", dict(skill="surgery", ranks=2, helpers=1, red=1),
     "R H S R D D"),                                  # S R: the picker's +1 red
    ("repair, ranks 3, 2 helpers, +1 black", dict(skill="repair", ranks=3, helpers=2, black=1),
     "lD R D S R R H H S D D D"),                     # options' last row: the skill
    ("scan, rank 0, no helper, +2 red", dict(skill="scan", ranks=0, helpers=0, red=2),
     "lD R D D S lR S H D D"),
)


def protocol_lines(keys):
    return ["%s %s" % ("long" if k[0] == "l" else "press", KEY[k[-1]]) for k in keys.split()]


def play_in_simulator(keys):
    """The keys as protocol lines in the simulator, with a `show` before the last press (the
    action started) and one after it -> the two `show` replies."""
    lines = protocol_lines(keys)
    lines = lines[:-1] + ["show"] + lines[-1:] + ["show"]
    done = subprocess.run(["node", SIM, "--protocol"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    if done.returncode != 0:
        raise Unmeasurable("the simulator failed: %s" % done.stderr.strip())
    replies = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    errors = [r for r in replies if "error" in r]
    if errors:
        raise Unmeasurable("the simulator refused a line: %s" % errors[0])
    shows = [r for r in replies if "screen" in r and "ok" not in r]
    if len(shows) < 2:
        raise Unmeasurable("the simulator did not answer `show`")
    return shows[-2], shows[-1]


def checked(shows, params, keys):
    """Before the last press the action must have started on the task's deck (the engine's,
    R2-R8), after it one card must be drawn; -> the number of presses."""
    started, drawn = shows
    deck = list(Action(**params).deck.counts())
    if started["screen"] != "active" or started["deck"] != deck or started["draws"] != 0:
        raise Unmeasurable("%s started %s, not the deck %s" % (keys, started["deck"], deck))
    if drawn["draws"] != 1 or drawn["screen"] != "card":
        raise Unmeasurable("%s did not draw the first card: %s" % (keys, drawn["screen"]))
    return len(keys.split())


def part(out, ctx):
    out.note("default settings, through the simulator's protocol; the keys (l: held):")
    for name, params, keys in TASKS:
        with out.measuring(name):
            out.figure(name, checked(play_in_simulator(keys), params, keys), "presses",
                       "(%s)" % keys)
