"""Risk figures for `make bench` (issue 11): what the risks beside the chance cost. Steps of
odds.action_risk against action_chance (R26) on the largest deck the device can build and the
worst over a grid of decks it can build (budget: DESIGN.md's 5,000 basic steps); time on
CPython and in the MicroPython VM; in the VM the heap: odds.py's import, the bytes one sweep
allocates, and the active view built with and without its sweep."""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import build_mpy  # noqa: E402
from carddraw.action import Action  # noqa: E402
from carddraw.odds import MAX_STEPS, action_chance, action_risk  # noqa: E402

LARGEST = dict(skill="surgery", ranks=9, helpers=9, bonus=9, green=9, yellow=9, red=9, black=9,
               needed=9)
CASES = (("largest, auto 9", dict(LARGEST, auto=9)), ("largest, auto 0", dict(LARGEST, auto=0)))

# each heap reading in a step of its own after a collection (see tools/mpvm/run.mjs); the
# collector is off while a figure is taken, so it counts every byte allocated, garbage included
VM_SCRIPT = """
import gc, time
gc.collect()
#--- step
b = gc.mem_alloc()
#--- step
IMPORT
#--- step
gc.collect()
#--- step
out = {"odds_import": gc.mem_alloc() - b}
from carddraw.action import Action
from carddraw.odds import action_chance, action_risk
from carddraw.controller import Controller
from carddraw import config


def allocated(fn):
    gc.collect()
    gc.disable()
    b = gc.mem_alloc()
    fn()
    n = gc.mem_alloc() - b
    gc.enable()
    return n


for name, kw in CASES:
    a = Action(**kw)
    row = {"chance_alloc": allocated(lambda: action_chance(a)),
           "risk_alloc": allocated(lambda: action_risk(a))}
    for fn in ("chance", "risk"):
        f = action_chance if fn == "chance" else action_risk
        t = time.ticks_us()
        for _ in range(100):
            f(a)
        row[fn + "_us"] = time.ticks_diff(time.ticks_us(), t) / 100
    s = config.defaults()
    s.update(kw)
    s.pop("skill")
    ctl = Controller(settings=s, now_ms=0)
    ctl.press("DRAW", 0)
    ctl.action = a
    ctl.view()

    def fresh():
        ctl._view = None
        ctl._ckey = None
        ctl.view()

    def cached():
        ctl._view = None
        ctl.view()

    row["screen"] = ctl.screen
    row["view_alloc"] = allocated(fresh)
    row["view_cached_alloc"] = allocated(cached)
    out[name] = row
RESULT = out
"""


def grid():
    """Decks the device can build: every needed and auto 0/9 over lean to large shapes."""
    shapes = [dict(skill="scan", ranks=0), dict(ranks=1), dict(ranks=3, helpers=2),
              dict(ranks=9, helpers=9, bonus=9, green=9)]
    extras = [{}, dict(yellow=9), dict(red=9), dict(black=9), dict(yellow=9, red=9),
              dict(yellow=9, red=9, black=9), dict(black=1)]
    for needed in range(1, 10):
        for auto in (0, 9):
            for shape in shapes:
                for extra in extras:
                    yield dict(shape, needed=needed, auto=auto, **extra)


def vm(script, mpy_dir, path):
    with open(path, "w") as f:
        f.write(script)
    done = subprocess.run(["node", os.path.join(ROOT, "tools", "mpvm", "run.mjs"), "--firmware",
                           mpy_dir, path], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.rstrip().rsplit("\n", 1)[-1][len("RESULT "):])


def timed(fn, repeat=200):
    t = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t) / repeat * 1000


def main():
    print("== risks beside the chance (complication, black): odds.action_risk ==")
    for label, kw in CASES:
        a = Action(**kw)
        chance, red, black, undecided, steps = action_risk(a)
        print("  %s: deck %s" % (label, a.deck.counts()))
        print("    chance %.6f, complication %.6f, black %.6f, undecided %.1e" % (
            chance, red, black, undecided))
        print("    steps: chance alone %d, chance with risks %d (budget %d)" % (
            action_chance(a)[2], steps, MAX_STEPS))
        print("    CPython: chance %.3f ms, with risks %.3f ms" % (
            timed(lambda: action_chance(a)), timed(lambda: action_risk(a))))
    worst = max(((action_risk(Action(**kw))[4], kw) for kw in grid()), key=lambda x: x[0])
    print("  worst over %d built decks: %d steps with risks (budget %d: %s), at %s" % (
        sum(1 for _ in grid()), worst[0], MAX_STEPS, "OK" if worst[0] < MAX_STEPS else "OVER",
        worst[1]))

    mpy_dir = os.path.join(ROOT, "build", "mpy")
    build_mpy.build(mpy_dir)
    path = os.path.join(ROOT, "build", "bench_risk.py")
    script = VM_SCRIPT.replace("CASES", repr(CASES))
    got = vm(script.replace("IMPORT", "import carddraw.odds"), mpy_dir, path)
    control = vm(script.replace("IMPORT", "pass"), mpy_dir, path)  # the steps' own cost
    print("  MicroPython VM (.mpy): odds.py import heap %d bytes (deck.py included)" % (
        got["odds_import"] - control["odds_import"]))
    for label, _ in CASES:
        r = got[label]
        print("  %s in the VM:" % label)
        print("    allocated per call (garbage included): chance %d B, with risks %d B" % (
            r["chance_alloc"], r["risk_alloc"]))
        print("    time per call: chance %.3f ms, with risks %.3f ms" % (
            r["chance_us"] / 1000, r["risk_us"] / 1000))
        print("    the %s view: %d B allocated with its sweep, %d B from the cache" % (
            r["screen"], r["view_alloc"], r["view_cached_alloc"]))


if __name__ == "__main__":
    main()
