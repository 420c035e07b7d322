"""App.run's clock: every loop pass gets a count of milliseconds that never wraps, though the
board's ticks_ms() wraps every 2**30 ms (about 12.4 days switched on). The buttons' debounce
and long press (button.py) compare these counts by plain subtraction, so they rely on it
(test_button.py runs them on counts past the ticks period); a referee's device left on for a
long weekend must still read its buttons.
"""
import sys
import types

from benchkit import Bench
from carddraw import config

PERIOD = 1 << 30   # the RP2040 port's ticks_ms() period


def ticks_diff(later, earlier):
    """MicroPython's time.ticks_diff for a 2**30 period: right for differences under 2**29."""
    return ((later - earlier + (PERIOD >> 1)) & (PERIOD - 1)) - (PERIOD >> 1)


class Sleep:
    """asyncio.sleep_ms's stand-in: run() pauses here once a pass, and goes on at send()."""
    def __await__(self):
        yield


def passes_of(steps, start_tick, monkeypatch, wakes=None, pass_ms=0, slept=None):
    """Drive App.run() over ticks_ms() readings that move by `steps` (ms each), from
    start_tick, wrapping as the board's do -> the counts loop_pass got, one a pass. wakes:
    the buttons' wake each pass leaves (a debounce's end, ms from the pass); pass_ms: each
    pass's own time; slept: the sleeps run() asked for."""
    b = Bench()
    app = b.app
    ticks = [start_tick]
    board = app.board
    board.ticks_ms = lambda: ticks[0]
    board.ticks_diff = ticks_diff
    seen = []

    def one_pass(now):
        seen.append(now)
        ticks[0] = (ticks[0] + pass_ms) % PERIOD
        if wakes:
            board.buttons.wake = now + wakes.pop(0)
        return True

    monkeypatch.setattr(app, "loop_pass", one_pass)
    sleeps = [] if slept is None else slept
    monkeypatch.setitem(sys.modules, "asyncio",
                        types.SimpleNamespace(sleep_ms=lambda ms: sleeps.append(ms) or Sleep()))
    loop = app.run()
    loop.send(None)                   # to the first pass and its sleep
    for step in steps:
        ticks[0] = (ticks[0] + step) % PERIOD
        loop.send(None)               # the next pass
    loop.close()
    return seen


def test_the_count_runs_on_across_the_wrap_of_ticks_ms(monkeypatch):
    steps = [20] * 200                # 4 s of passes, the wrap 1 s in
    seen = passes_of(steps, PERIOD - 1000, monkeypatch)
    assert len(seen) == len(steps) + 1
    assert [b - a for a, b in zip(seen, seen[1:])] == steps
    assert seen[-1] - seen[0] == sum(steps)


def test_the_count_stays_exact_through_weeks_switched_on(monkeypatch):
    # passes far apart (each under ticks_diff's 2**29 range) run the count past 2**29, where
    # run() re-anchors, and through several wraps: still exact, never back
    steps = [(1 << 27) + 20] * 40 + [20] * 10   # about 62 days, then ordinary passes
    seen = passes_of(steps, 12345, monkeypatch)
    assert [b - a for a, b in zip(seen, seen[1:])] == steps
    assert seen[-1] - seen[0] == sum(steps) > 4 * PERIOD


def test_the_next_pass_comes_as_a_press_s_debounce_ends(monkeypatch):
    # board.Buttons.wake: when the debounce of the last edge the pins stamped ends; run()
    # sleeps until then (less the pass's own time, LOOP_MS at most) if it is still to come,
    # so a press acts as its debounce ends, not up to LOOP_MS later; else LOOP_MS
    slept = []
    passes_of([20] * 6, 1000, monkeypatch, [-50, 7, 12, 0, 50, 2, 3], pass_ms=4, slept=slept)
    assert slept == [config.LOOP_MS, 3, 8, config.LOOP_MS, config.LOOP_MS, 0, 0]
    assert config.LOOP_MS == 20
