"""make bench's referee lock against a brute-force search: a player tries every code
in turn through the controller, on simulated time, as they would press them (hold STOP for
the lock, the presses, a press to leave "Wrong code"), and waits out each lockout the lock
screen counts down (lockcode.py: 3 free tries, then 30 s doubling to 8 h).

Printed: how long trying all 256 4-press codes takes now, against the same presses with no
wait (the lock before the lockout: about 10 minutes by hand), then 5- and 6-press codes the
same way; 7 and 8 presses from the same sums (each try there waits the full 8 h)."""
import random
import time

from carddraw import config, lockcode
from carddraw.controller import Controller

NAME = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
PRESS_MS = 400   # a quick short press and release
LONG_MS = 1000   # holding STOP for the lock (a long press is 0.8 s) and letting go
DAY_MS = 24 * 3600 * 1000


def codes(presses):
    """Every code of `presses` presses, in the order a methodical player tries them."""
    for n in range(4 ** presses):
        yield "".join("RHDS"[(n >> (2 * i)) & 3] for i in range(presses - 1, -1, -1))


def try_code(c, code, t):
    """One try: wait out any lockout, open the lock, press the code. -> (opened, time)."""
    left = c.lockout.wait_ms()  # the countdown on the lock screen
    if left:
        t += left
        c.tick(t)
    t += LONG_MS
    c.long("STOP", t)
    c.tick(t)
    for key in code:
        t += PRESS_MS
        c.press(NAME[key], t)
        c.tick(t)
    if c.screen == "refmenu":
        return True, t
    t += PRESS_MS
    c.press("RANK", t)  # "Wrong code": any key goes back
    c.tick(t)
    return False, t


def search(presses):
    """All codes of that length against a lock whose code is the last one tried. -> (tries,
    ms with the lockout, ms of the presses alone, wrong tries logged, ms at half the tries)."""
    every = list(codes(presses))
    c = Controller(settings=dict(config.defaults()), rng=random.Random(1))
    c.lockout.keep(every[-1])
    c.take_log()
    t = 0
    pressing = 0
    half = None
    logged = 0
    for n, code in enumerate(every, 1):
        before = t
        waited = c.lockout.wait_ms()
        opened, t = try_code(c, code, t)
        pressing += t - before - waited
        logged += sum(1 for r in c.take_log() if r["ev"] == "lock" and r["result"] == "wrong")
        if n == len(every) // 2:
            half = t
        if opened:
            break
    assert opened and n == len(every)
    return n, t, pressing, logged, half


def sums(presses):
    """The same search from the formulas: each try's presses, then after each wrong one the
    press that leaves "Wrong code", or the wait (which runs from the wrong try: that press is
    made during it). -> (ms with the lockout, ms without)."""
    tries = 4 ** presses
    press_ms = LONG_MS + presses * PRESS_MS
    between = sum(max(PRESS_MS, lockcode.wait_for(n)) for n in range(1, tries))
    return tries * press_ms + between, tries * press_ms + (tries - 1) * PRESS_MS


def span(ms):
    if ms < 3600 * 1000:
        return "%.1f min" % (ms / 60000)
    if ms < 3 * DAY_MS:
        return "%.1f h" % (ms / 3600000)
    if ms < 730 * DAY_MS:
        return "%.0f days" % (ms / DAY_MS)
    return "%.0f years" % (ms / DAY_MS / 365.25)


def part(out, ctx):
    out.note("lockout: %d free tries, then %d s doubling for each wrong try, at most %d h" % (
        lockcode.FREE_TRIES, lockcode.FIRST_WAIT_MS // 1000, lockcode.MAX_WAIT_MS // 3600000))
    out.note("a try: hold STOP %.1f s, each press %.1f s, a press to leave \"Wrong code\"" % (
        LONG_MS / 1000, PRESS_MS / 1000))
    for presses in (4, 5, 6):
        start = time.perf_counter()
        tries, ms, pressing, logged, half = search(presses)
        formula, _ = sums(presses)
        if formula != ms:   # the controller waited exactly what lockcode says
            raise AssertionError("the search took %d ms, the sums say %d" % (ms, formula))
        out.figure("%d presses: all %s codes" % (presses, "{:,}".format(tries)), span(ms),
                   "(half %s; no lockout %s; %d wrong logged; %.1f s to run)" % (
                       span(half), span(pressing), logged, time.perf_counter() - start))
    for presses in (7, 8):
        ms, pressing = sums(presses)
        out.figure("%d presses: all %s codes" % (presses, "{:,}".format(4 ** presses)), span(ms),
                   "(from the sums; no lockout %s)" % span(pressing))
