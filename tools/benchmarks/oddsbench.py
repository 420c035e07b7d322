"""make bench's odds: the cost of the exact chance to succeed (R26, odds.action_chance) and of
the risks beside it (odds.action_risk: a complication, a black) on the largest deck the device
can build and the worst of a grid of decks it can build (DESIGN: under 5,000 basic steps); their
time on CPython and on the chip (native MicroPython times the calibrated slowdown, model.py: a lower bound), where they are worked
out in one loop pass after a press; and what a Monte Carlo estimate of the same chance costs."""
import math
import random
import time

import model
from carddraw import saved
from carddraw.action import Action
from carddraw.odds import MAX_STEPS, action_chance, action_risk
from report import Unmeasurable

LARGEST = dict(skill="surgery", ranks=9, helpers=9, bonus=9, green=9, yellow=9, red=9, black=9,
               needed=9)
CASES = (("largest deck, auto 9", dict(LARGEST, auto=9)),
         ("largest deck, auto 0", dict(LARGEST, auto=0)))

NATIVE = """
import time
from carddraw.action import Action
from carddraw.odds import action_chance, action_risk
out = {}
for name, kw in CASES:
    a = Action(**kw)
    row = {}
    for fn, f in (("chance", action_chance), ("risk", action_risk)):
        best = None
        for _ in range(5):   # the fastest of 5 batches: this machine's other work only adds
            t = time.ticks_us()
            for _ in range(40):
                f(a)
            us = time.ticks_diff(time.ticks_us(), t) / 40
            best = us if best is None or us < best else best
        row[fn] = best
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


def timed_ms(fn, repeat=200):
    """The fastest of 5 batches, ms a call."""
    best = None
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(repeat // 5):
            fn()
        ms = (time.perf_counter() - t) / (repeat // 5) * 1000
        best = ms if best is None or ms < best else best
    return best


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


def part(out, ctx):
    for label, kw in CASES:
        a = Action(**kw)
        chance, red, black, undecided, steps = action_risk(a)
        out.note("%s: %s; chance %.4f, complication %.4f, black %.4f (+-%.0e)" % (
            label, "/".join(map(str, a.deck.counts())), chance, red, black, undecided))
        out.budget("  success_chance: steps", action_chance(a)[2], "", MAX_STEPS, under=True)
        out.figure("  with the risks: steps", steps)
        out.figure("  CPython: chance alone", round(timed_ms(lambda: action_chance(a)) * 1000),
                   "us", "(with the risks %d us)" % round(timed_ms(lambda: action_risk(a)) * 1000))
    decks = list(grid())
    worst = max(((action_risk(Action(**kw))[4], kw) for kw in decks), key=lambda x: x[0])
    out.budget("the worst of %d built decks, with the risks" % len(decks), worst[0], "steps",
               MAX_STEPS, under=True)
    out.note("  (at %s)" % ", ".join("%s %s" % kv for kv in sorted(worst[1].items())))
    out.note("the odds with the risks on the chip (native x%.0f), worked out in one pass after a "
             "press:" % model.factor())
    with out.measuring("the odds on the chip (native MicroPython)"):
        from native import runner
        why = runner.missing()
        if why:
            raise Unmeasurable(why)
        got = runner.run(NATIVE.replace("CASES", repr(CASES)), [ctx.lib()], timeout=60)
        for label, _ in CASES:
            r = got[label]
            out.budget("%s: on the chip, one pass" % label, model.cpu_ms(r["risk"]), "ms",
                       100, extra="(alone %.1f)" % model.cpu_ms(r["chance"]))
    a = Action(**dict(LARGEST, auto=0))
    p = action_chance(a)[0]
    runs = math.ceil(p * (1 - p) * (1.96 / 0.005) ** 2)   # 95% interval half-width 0.005
    t = time.perf_counter()
    estimate = monte_carlo(a, runs, random.Random(1))
    mc = time.perf_counter() - t
    out.note("Monte Carlo to +-0.005 (95%%), auto 0: %s runs, %.2f s on CPython, estimate "
             "%.4f (%.4f)" % ("{:,}".format(runs), mc, estimate, p))
    exact = timed_ms(lambda: action_chance(a))
    out.figure("  its time against the exact sweep's", mc * 1000 / exact, "x")
