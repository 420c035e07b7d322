"""Press counts for `make bench`: how many button presses three typical set-ups take, from
power-on (a fresh device, default settings) to the first card drawn.

Each set-up is played as bench-protocol lines (`press RANK`, `long DRAW`, ...) through the
simulator (tools/sim/sim.mjs --protocol: the firmware in the MicroPython VM on the board's
stand-ins), then `show` must report one draw from the deck the engine builds for that task,
else the run stops with an error. The before figures play the same tasks on the set-up as it
was before the difficulty picker (git commit BEFORE: difficulty only through the options
menu, skill on STOP), on that commit's own firmware under CPython.

Printed, not asserted: tests keep to behaviour (host_tests/test_setup.py holds the limits).
"""
import json
import os
import subprocess
import sys
import io
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "firmware"))

from carddraw.action import Action  # noqa: E402

BEFORE = "2161294"  # the last commit with the old set-up screen
KEY = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
# (name, the action's parameters, presses now, presses on the old set-up); "lD" = hold DRAW.
# The last two presses of each: DRAW starts the action, DRAW draws the first card.
TASKS = (
    ("surgery, ranks 2, 1 helper, +1 red",
     dict(skill="surgery", ranks=2, helpers=1, red=1),
     "R H S R D D",                                   # S R: the picker's +1 red
     "R H lD H H D H D S D D"),                       # options: down to red, +1, back
    ("repair, ranks 3, 2 helpers, +1 black",
     dict(skill="repair", ranks=3, helpers=2, black=1),
     "lD R D S R R H H S D D D",                      # options' last row: the skill
     "S R R H H lD H H H D H D S D D"),
    ("scan, rank 0, no helper, +2 red",
     dict(skill="scan", ranks=0, helpers=0, red=2),
     "lD R D D S lR S H D D",
     "S S lR lD H H D H H D S D D"),
)


def protocol_lines(keys):
    return ["%s %s" % ("long" if k[0] == "l" else "press", KEY[k[-1]]) for k in keys.split()]


def play_in_simulator(keys):
    """The keys as protocol lines in the simulator, with a `show` before the last press (the
    action started) and one after it -> the two `show` replies."""
    lines = protocol_lines(keys)
    lines = lines[:-1] + ["show"] + lines[-1:] + ["show"]
    done = subprocess.run(["node", os.path.join(ROOT, "tools", "sim", "sim.mjs"), "--protocol"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    if done.returncode != 0:
        sys.exit("presses: the simulator failed: %s" % done.stderr.strip()[-300:])
    replies = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    errors = [r for r in replies if "error" in r]
    if errors:
        sys.exit("presses: the simulator refused a line: %s" % errors[0])
    shows = [r for r in replies if "screen" in r and "ok" not in r]
    return shows[-2], shows[-1]


OLD_PLAY = """
import json, sys
from carddraw import config
from carddraw.controller import Controller
KEY = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
c = Controller(settings=config.defaults())
keys = sys.argv[1].split()
for k in keys[:-1]:
    (c.long if k[0] == "l" else c.press)(KEY[k[-1]], 0)
started = c.show()
c.press(KEY[keys[-1]], 0)
print(json.dumps([started, c.show()]))
"""


def play_before(keys, firmware):
    """The keys on the old set-up (that commit's controller under CPython) -> its two
    `show` replies, as play_in_simulator."""
    done = subprocess.run([sys.executable, "-c", OLD_PLAY, keys], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=firmware), timeout=120)
    if done.returncode != 0:
        sys.exit("presses: the old firmware failed: %s" % done.stderr.strip()[-300:])
    return json.loads(done.stdout)


def old_firmware(folder):
    """The firmware as it was at BEFORE, unpacked into folder -> its path (None if git has
    no such commit, as in a copy of the tree without its history)."""
    done = subprocess.run(["git", "archive", BEFORE, "firmware"], capture_output=True,
                          cwd=ROOT)
    if done.returncode != 0:
        return None
    tarfile.open(fileobj=io.BytesIO(done.stdout)).extractall(folder)
    return os.path.join(folder, "firmware")


def checked(shows, params, keys, where):
    """Before the last press the action must have started on the task's deck (the engine's,
    R2-R8), after it one card must be drawn; -> the number of presses."""
    started, drawn = shows
    deck = list(Action(**params).deck.counts())
    if started["screen"] != "active" or started["deck"] != deck or started["draws"] != 0:
        sys.exit("presses: %s started %s, not the deck %s (%s)" % (keys, started, deck, where))
    if drawn["draws"] != 1 or drawn["screen"] != "card":
        sys.exit("presses: %s did not draw the first card (%s): %s" % (keys, where, drawn))
    return len(keys.split())


def main():
    print("Presses from power-on to the first draw (default settings; simulator protocol)")
    with tempfile.TemporaryDirectory(prefix="carddraw-before-") as tmp:
        firmware = old_firmware(tmp)
        for name, params, keys, old_keys in TASKS:
            now = checked(play_in_simulator(keys), params, keys, "now")
            line = "  %-38s %2d presses  (%s)" % (name, now, keys)
            if firmware:
                before = checked(play_before(old_keys, firmware), params, old_keys, BEFORE)
                line += "; before: %d" % before
            print(line)
        if not firmware:
            print("  (before: commit %s not in this tree's history)" % BEFORE)


if __name__ == "__main__":
    main()
