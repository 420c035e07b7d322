"""Engine figures for `make bench`: .mpy sizes, import heap in the MicroPython VM, and the
cost of the exact chance to succeed (R26) against a Monte Carlo estimate of it."""
import json
import math
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import build_mpy  # noqa: E402
from carddraw.action import Action  # noqa: E402
from carddraw.odds import action_chance  # noqa: E402
from carddraw import saved  # noqa: E402

LARGEST = dict(skill="surgery", ranks=9, helpers=9, bonus=9, green=9, yellow=9, red=9, black=9,
               needed=9, auto=9)
ENGINE = ("carddraw/deck.mpy", "carddraw/action.mpy", "carddraw/odds.mpy")

# Heap readings each in a step of their own (see tools/mpvm/run.mjs); the same steps with no
# import measure the steps' own cost, subtracted below.
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
heap = gc.mem_alloc() - b
from carddraw.action import Action
from carddraw.odds import action_chance
out = {"import_heap": heap}
for name, kw in (("auto9", %r), ("auto0", %r)):
    a = Action(**kw)
    t = time.ticks_us()
    for _ in range(20):
        r = action_chance(a)
    out[name] = [r[0], r[2], time.ticks_diff(time.ticks_us(), t) / 20]
RESULT = out
"""


def vm(script, firmware):
    path = os.path.join(ROOT, "build", "bench_engine.py")
    with open(path, "w") as f:
        f.write(script)
    done = subprocess.run(["node", os.path.join(ROOT, "tools", "mpvm", "run.mjs"), "--firmware",
                           firmware, path], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.rstrip().rsplit("\n", 1)[-1][len("RESULT "):])


def timed(fn, repeat):
    t = time.perf_counter()
    for _ in range(repeat):
        out = fn()
    return out, (time.perf_counter() - t) / repeat


def monte_carlo(a, runs, rng):
    start = saved.to_dict(a)
    wins = 0
    for _ in range(runs):
        b = saved.from_dict(start)
        while b.state == "active":
            b.draw(rng)
            b.accept()
        wins += b.state == "succeeded"
    return wins / runs


def main():
    mpy_dir = os.path.join(ROOT, "build", "mpy")
    sizes = build_mpy.build(mpy_dir)
    print("== engine and firmware (mpy-cross 1.29) ==")
    for path, size in sorted(sizes.items()):
        print("  %-28s %6d bytes" % (path, size))
    total = sum(sizes.values())
    print("  firmware total               %6d bytes   (budget 49152: %s)" % (
        total, "OK" if total < 49152 else "OVER"))
    engine = sum(sizes[p] for p in ENGINE)
    print("  engine (deck+action+odds)    %6d bytes" % engine)

    worst = dict(LARGEST, auto=0)
    script = VM_SCRIPT % (LARGEST, worst)
    got = vm(script.replace("IMPORT", "import carddraw.deck, carddraw.action, carddraw.odds"), mpy_dir)
    control = vm(script.replace("IMPORT", "pass"), mpy_dir)
    heap = got["import_heap"] - control["import_heap"]
    print("  engine import heap in VM     %6d bytes   (budget 8192: %s)" % (
        heap, "OK" if heap < 8192 else "OVER"))

    print("== R26 exact chance on the largest deck ==")
    for label, kw, vm_key in (("auto 9 (as specified)", LARGEST, "auto9"), ("auto 0 (most steps)", worst, "auto0")):
        a = Action(**kw)
        (p, undecided, steps), secs = timed(lambda: action_chance(a), 200)
        runs = math.ceil(p * (1 - p) * (1.96 / 0.005) ** 2)  # 95% interval half-width 0.005
        t = time.perf_counter()
        estimate = monte_carlo(a, runs, random.Random(1))
        mc = time.perf_counter() - t
        print("  %s: deck %s" % (label, a.deck.counts()))
        print("    chance %.6f, undecided tail %.1e, inner steps %d (budget 5000)" % (p, undecided, steps))
        print("    CPython exact: %.3f ms; MicroPython VM exact: %.3f ms" % (secs * 1000, got[vm_key][2] / 1000))
        print("    Monte Carlo to +-0.005 (95%%): %d runs, %.3f s, estimate %.4f" % (runs, mc, estimate))
        print("    Monte Carlo / exact time: %.0fx" % (mc / secs))


if __name__ == "__main__":
    main()
