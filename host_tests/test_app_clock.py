"""App.run's clock: every loop pass gets a count of milliseconds that never wraps, though the
board's ticks_ms() wraps every 2**30 ms (about 12.4 days switched on). The buttons' debounce
and long press (button.py) compare these counts by plain subtraction, so they rely on it
(test_button.py runs them on counts past the ticks period); a referee's device left on for a
long weekend must still read its buttons.
"""
import sys
import types

from benchkit import Bench

PERIOD = 1 << 30   # the RP2040 port's ticks_ms() period


def ticks_diff(later, earlier):
    """MicroPython's time.ticks_diff for a 2**30 period: right for differences under 2**29."""
    return ((later - earlier + (PERIOD >> 1)) & (PERIOD - 1)) - (PERIOD >> 1)


class Sleep:
    """asyncio.sleep_ms's stand-in: run() pauses here once a pass, and goes on at send()."""
    def __await__(self):
        yield


def passes_of(steps, start_tick, monkeypatch):
    """Drive App.run() over ticks_ms() readings that move by `steps` (ms each), from
    start_tick, wrapping as the board's do -> the counts loop_pass got, one a pass."""
    b = Bench()
    app = b.app
    ticks = [start_tick]
    board = app.board
    board.ticks_ms = lambda: ticks[0]
    board.ticks_diff = ticks_diff
    seen = []
    monkeypatch.setattr(app, "loop_pass", lambda now: seen.append(now) or True)
    monkeypatch.setitem(sys.modules, "asyncio", types.SimpleNamespace(sleep_ms=lambda ms: Sleep()))
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
