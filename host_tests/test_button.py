"""The Button state machine (firmware/carddraw/button.py) under CPython: levels and times go
straight in, no pins. The same logic runs on the board (board.Buttons reads the pins into it)
and in the VM through the pins (test_board.py, test_damaged_input_buttons.py).

README "Buttons and screens": a long press (about 0.8 s) is its own event and never also
counts as a short press; contact bounce gives exactly one press.
"""
import random

from hypothesis import given, settings, strategies as st

from carddraw import config
from carddraw.button import Button

DEBOUNCE, LONG = config.DEBOUNCE_MS, config.LONG_PRESS_MS
TICKS = 1 << 30   # the board's ticks_ms() period: the app's count (the times here) runs past it


def press_levels(rng, bounce_in, hold, bounce_out):
    """The pin for each ms: 100 ms up, `bounce_in` ms of chatter, `hold` ms down,
    `bounce_out` ms of chatter, then 200 ms up (0 = pressed)."""
    levels = [1] * 100
    levels += [rng.randrange(2) for _ in range(bounce_in)]
    levels += [0] * hold
    levels += [rng.randrange(2) for _ in range(bounce_out)]
    return levels + [1] * 200


def feed(levels, poll_ms=1, phase=0, base=0, button=None):
    """Poll every poll_ms from `phase`; times start at `base` (the app's count: it never
    wraps). -> [(event, ms index)]."""
    b = button or Button("DRAW")
    events = []
    for t in range(phase, len(levels), poll_ms):
        e = b.update(levels[t], base + t)
        if e:
            events.append((e, t))
    return events


@settings(max_examples=300, deadline=None)
@given(bounce_in=st.integers(0, 20), bounce_out=st.integers(0, 20),
       hold=st.sampled_from([90, 300, LONG - 150, LONG + 50, 1200, 5000]),
       poll_ms=st.sampled_from([1, 5, 10, 20]), phase=st.integers(0, 19),
       base=st.sampled_from([0, TICKS - 700, TICKS - 1, 12345, 3 * TICKS]),
       seed=st.integers(0, 10**6))
def test_bounce_of_0_to_20_ms_gives_exactly_one_event(bounce_in, bounce_out, hold, poll_ms,
                                                      phase, base, seed):
    levels = press_levels(random.Random(seed), bounce_in, hold, bounce_out)
    events = feed(levels, poll_ms, phase % poll_ms, base)
    want = "long" if hold >= LONG + 50 else "short"
    assert [e for e, _ in events] == [want], events


@settings(max_examples=100, deadline=None)
@given(bounce=st.integers(0, 20), poll_ms=st.sampled_from([1, 5, 10, 20]),
       base=st.sampled_from([0, TICKS - 500]), seed=st.integers(0, 10**6))
def test_a_long_press_fires_once_when_it_reaches_the_long_time_and_no_short(bounce, poll_ms,
                                                                          base, seed):
    levels = press_levels(random.Random(seed), bounce, 3000, bounce)
    events = feed(levels, poll_ms, 0, base)
    assert [e for e, _ in events] == ["long"]          # the release after it is silent
    t = events[0][1]
    down = 100 + bounce                                # the pin last went low here at the latest
    assert 100 + LONG <= t <= down + LONG + DEBOUNCE + poll_ms


def test_a_press_held_through_power_on_makes_no_event_and_the_next_press_works():
    b = Button("HELP")
    assert b.update(0, 0) is None and b.pressed         # already down at the first update
    held = [b.update(0, t) for t in range(10, 3000, 10)]
    released = [b.update(1, t) for t in range(3000, 3200, 10)]
    assert [e for e in held + released if e] == [] and not b.pressed
    again = [b.update(0, t) for t in range(4000, 4100, 10)] + [b.update(1, t) for t in range(4100, 4300, 10)]
    assert [e for e in again if e] == ["short"]


def test_a_glitch_shorter_than_the_debounce_time_is_noise():
    b = Button("HELP")
    b.update(1, 0)
    seen = [b.update(0, 10), b.update(0, 20), b.update(1, 30)]
    seen += [b.update(1, t) for t in range(40, 300, 10)]
    assert [e for e in seen if e] == [] and not b.pressed


def test_two_presses_100_ms_apart_are_two_presses():
    levels = [1] * 50 + [0] * 100 + [1] * 100 + [0] * 100 + [1] * 100
    assert [e for e, _ in feed(levels, 5)] == ["short", "short"]


def test_a_press_counts_from_when_it_went_down_not_when_it_was_debounced():
    # polled every 20 ms: the long press fires LONG ms after the level changed, not after
    # the debounce settled, so the felt hold time is the same however often the loop polls
    b = Button("RANK")
    b.update(1, 0)
    fired = None
    for t in range(20, 2000, 20):
        if b.update(0, t) == "long":
            fired = t
            break
    assert fired == 20 + LONG


def test_the_debounce_and_long_times_are_configs(monkeypatch):
    monkeypatch.setattr(config, "DEBOUNCE_MS", 5)
    monkeypatch.setattr(config, "LONG_PRESS_MS", 100)
    b = Button("STOP")
    b.update(1, 0)
    events = [(b.update(0, t), t) for t in range(1, 200)] + [(b.update(1, t), t) for t in range(200, 220)]
    assert [(e, t) for e, t in events if e] == [("long", 101)]   # down at 1, held 100 ms
    tap = [1] * 10 + [0] * 4 + [1] * 20 + [0] * 8 + [1] * 20     # 4 ms: noise; 8 ms: a press
    assert [e for e, _ in feed(tap)] == ["short"]


def test_button_module_is_pure():
    import ast
    import os
    from conftest import FIRMWARE
    tree = ast.parse(open(os.path.join(FIRMWARE, "carddraw", "button.py")).read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    assert names == {"."}                       # the package's config only: no machine, time, asyncio


def feed_down(levels, poll_ms=1):
    """As feed(), for a button with no long press on the screen on show."""
    b = Button("DRAW")
    events = []
    for t in range(0, len(levels), poll_ms):
        e = b.update(levels[t], t, False)
        if e:
            events.append((e, t))
    return events


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10 ** 6), bounce_in=st.integers(0, DEBOUNCE - 5),
       bounce_out=st.integers(0, DEBOUNCE - 5), hold=st.integers(DEBOUNCE + 45, 3 * LONG),
       poll_ms=st.sampled_from((1, 5, 20)))
def test_with_no_long_press_one_short_event_as_the_finger_goes_down(seed, bounce_in, bounce_out,
                                                                     hold, poll_ms):
    """A button the screen gives no long press acts once, as the press counts (the finger
    still down, a debounce after its last bounce), never again at the release, however long
    it is held: no long event either."""
    levels = press_levels(random.Random(seed), bounce_in, hold, bounce_out)
    events = feed_down(levels, poll_ms)
    assert [e for e, _ in events] == ["short"]
    at = events[0][1]
    assert at < 100 + bounce_in + hold                       # before the finger comes up
    assert at <= 100 + bounce_in + DEBOUNCE + 2 * poll_ms     # a debounce after it settled
