"""board.py inside the MicroPython VM, on the stand-ins in tools/sim: the battery, the watchdog,
the ticks helpers and the buttons (test_board_display.py: the display, the LED and the buzzer).

Each test runs a script in the VM (firmware in /lib, tools/sim/machine.py and neopixel.py
there too) and checks the JSON it leaves in RESULT. The Button logic is tested there as
well: board.py imports machine and time, which CPython lacks, and the VM is where it runs.
"""
from boardkit import vm


# -- Battery and watchdog -------------------------------------------------------------------------
def test_battery_millivolts_and_percent_on_the_lipo_curve():
    r = vm("""
        b = B.Board()
        out = []
        for v in (2.8, 3.25, 3.57, 3.95, 4.2, 5.0):
            SIM.set_vsys(v)
            mv = b.battery.millivolts()
            out.append([mv, b.battery.percent(mv), b.battery.on_usb(mv)])
        steady = []
        for v in (3.57, 3.572, 3.568, 3.58, 3.576):   # 45, 45, 44: noise; 47 moves; 46 noise
            SIM.set_vsys(v)
            steady.append(b.battery.percent(b.battery.millivolts()))
        C.BATTERY_CAL_MV = 30                         # a meter read 30 mV more than the ADC
        SIM.set_vsys(3.57)
        cal = b.battery.millivolts()
        C.BATTERY_CAL_MV = 0
        RESULT = {"table": out, "steady": steady, "cal": cal}
    """)
    assert [round(mv / 1000.0, 2) for mv, p, usb in r["table"]] == [2.8, 3.25, 3.57, 3.95, 4.2,
                                                                      5.0]
    ps = [p for mv, p, usb in r["table"]]
    assert ps[:2] == [0, 0] and 44 <= ps[2] <= 45 and ps[3:] == [100, 100, 100]
    assert [usb for mv, p, usb in r["table"]] == [False] * 5 + [True]
    first = r["steady"][0]     # noise of a point either way is not shown; two points are
    assert r["steady"][:3] == [first] * 3 and r["steady"][3] == r["steady"][4] >= first + 2
    assert abs(r["cal"] - 3600) <= 1


def test_watchdog():
    r = vm("""
        SIM.clock = lambda: NOW
        NOW = 100
        b = B.Board()
        out = {"before": SIM.wdt_timeout}
        w = b.watchdog(config.WATCHDOG_MS)
        out["timeout"] = SIM.wdt_timeout
        out["fresh"] = SIM.wdt_expired(NOW + 4999)
        NOW = 4000
        w.feed()
        out["fed"] = [SIM.wdt_feeds, SIM.wdt_expired(8000), SIM.wdt_expired(9001)]
        out["same"] = b.wdt is w
        try:
            b.watchdog(9000)
            out["too_long"] = None
        except ValueError as e:
            out["too_long"] = str(e)
        RESULT = out
    """)
    assert r["before"] is None and r["timeout"] == 5000 and r["fresh"] is False
    assert r["fed"] == [1, False, True]
    assert r["same"] is True
    assert r["too_long"] and "8388" in r["too_long"]


def test_ticks_helpers_survive_the_wrap():
    r = vm("""
        import time
        t = B.ticks_ms()
        RESULT = [isinstance(t, int), B.ticks_diff(5, (1 << 30) - 5), B.Board.ticks_diff(3, 10),
                  abs(B.ticks_diff(B.Board.ticks_ms(), time.ticks_ms())) < 1000]
    """)
    assert r == [True, 10, -7, True]


# -- Buttons --------------------------------------------------------------------------------------
BOUNCE_SIM = """
import random
TICKS = 1 << 30   # the board's ticks_ms() period: the app's count runs past it, never wraps


def press_levels(rng, bounce_in, hold, bounce_out):
    # The pin level for each ms: 100 ms up, a press with `bounce_in` ms of chatter, `hold` ms
    # down, a release with `bounce_out` ms of chatter, then 200 ms up.
    levels = [1] * 100
    levels += [rng.randrange(2) for _ in range(bounce_in)]
    levels += [0] * hold
    levels += [rng.randrange(2) for _ in range(bounce_out)]
    levels += [1] * 200
    return levels


def run(levels, poll_ms, phase, base):
    btn = B.Button("DRAW")
    events = []
    t = phase
    while t < len(levels):
        e = btn.update(levels[t], base + t)
        if e:
            events.append((e, t))
        t += poll_ms
    return events
"""


def test_bounces_of_0_to_20_ms_give_exactly_one_event():
    r = vm(BOUNCE_SIM + """
random.seed(2024)
rng = random
bad = []
runs = 0
for poll_ms in (1, 5, 10, 20):
    for bounce in range(21):
        for shape in range(4):
            for hold, want in ((90, "short"), (300, "short"), (1200, "long")):
                levels = press_levels(rng, bounce, hold, rng.randrange(21))
                base = (TICKS - 700) if shape == 3 else 0      # past the ticks period
                events = run(levels, poll_ms, rng.randrange(poll_ms), base)
                runs += 1
                kinds = [e for e, t in events]
                if kinds != [want]:
                    bad.append([poll_ms, bounce, shape, hold, kinds])
                elif want == "long":
                    # fires when the hold reaches LONG_PRESS_MS, not later than a poll after
                    t = events[0][1]
                    start = 100 + bounce
                    if not (start + config.LONG_PRESS_MS <= t + bounce
                            and t <= start + config.LONG_PRESS_MS + config.DEBOUNCE_MS + poll_ms):
                        bad.append([poll_ms, bounce, shape, hold, "long at", t])
RESULT = {"runs": runs, "bad": bad[:10]}
""")
    assert r["runs"] == 4 * 21 * 4 * 3
    assert r["bad"] == []


def test_button_semantics():
    r = vm(BOUNCE_SIM + """
out = {}
b = B.Button("HELP")
b.update(0, 0)                           # held at power-on: no event, now or on release
seen = [b.update(0, t) for t in range(0, 3000, 10)] + [b.update(1, t) for t in range(3000, 3200, 10)]
out["power_on"] = [e for e in seen if e]
b.update(0, 4000)
seen = [b.update(0, t) for t in range(4000, 4100, 10)] + [b.update(1, t) for t in range(4100, 4300, 10)]
out["after"] = [e for e in seen if e]
# a tap shorter than the debounce time is taken for noise
b = B.Button("HELP")
b.update(1, 0)
seen = [b.update(0, 10), b.update(0, 20), b.update(1, 30)] + [b.update(1, t) for t in range(40, 200, 10)]
out["glitch"] = [e for e in seen if e]
# two presses 100 ms apart are two presses
levels = [1] * 50 + [0] * 100 + [1] * 100 + [0] * 100 + [1] * 100
out["double"] = [e for e, t in run(levels, 5, 0, 0)]
# a long hold fires once however long it lasts
levels = [1] * 50 + [0] * 5000 + [1] * 100
out["hold"] = [e for e, t in run(levels, 20, 0, 0)]
RESULT = out
""")
    assert r == {"power_on": [], "after": ["short"], "glitch": [], "double": ["short", "short"],
                 "hold": ["long"]}


def test_board_buttons_poll_and_held():
    r = vm("""
        SIM.press("STOP")                  # held while the board starts
        b = B.Board()
        out = {"held": list(b.buttons.held())}
        events = []
        t = 0
        def step(ms):
            global t
            for _ in range(ms // 20):
                events.extend([list(e) for e in b.buttons.poll(t)])
                t += 20
        step(100)
        SIM.release("STOP")
        step(100)
        SIM.press(config.BUTTON_PINS["DRAW"])
        step(100)
        SIM.release("DRAW")
        step(100)
        SIM.press("RANK"); SIM.press("HELP")
        step(1000)
        out["held_two"] = sorted(b.buttons.held())
        SIM.release("RANK")
        step(100)
        SIM.release("HELP")
        step(100)
        out["events"] = events
        out["names"] = [x.name for x in b.buttons.buttons]
        out["empty"] = b.buttons.poll(t)
        RESULT = out
    """)
    assert r["held"] == ["STOP"]
    assert r["events"] == [["DRAW", "short"], ["RANK", "long"], ["HELP", "long"]]
    assert r["held_two"] == ["HELP", "RANK"]
    assert r["names"] == ["RANK", "HELP", "DRAW", "STOP"]
    assert r["empty"] == []


def test_a_press_acts_as_its_debounce_ends_when_the_pins_interrupts_stamp_its_edges():
    # App.run's loop: the pins' interrupts stamp each edge, the debounce counts from the
    # finger, and `wake` says when it ends (the loop's next pass comes then, not up to
    # LOOP_MS later). Without the stamps it counts from the pass that first read the pin.
    r = vm("""
        ticks = [1000]
        def at(ms):   # the app's count (apart from the ticks: both move together)
            ticks[0] = 1000 + ms
            return 50000 + ms
        def edge(ms, down, name="DRAW"):  # the pin changes at ms, between passes
            ticks[0] = 1000 + ms
            (SIM.press if down else SIM.release)(name)
        def poll(ms):
            return [list(e) for e in buttons.poll(at(ms), ["HELP"])]
        def wake():
            return buttons.wake - 50000
        out = {}
        buttons = B.Board().buttons
        buttons.stamp_edges(lambda: ticks[0])
        out["idle"] = [poll(0), wake()]
        edge(5, True)                                   # the finger, 5 ms after a pass
        out["seen"] = [poll(20), wake()]                # steady 15 ms of 20: at 25
        out["acts"] = [poll(24), poll(25)]              # as it ends, not at the next LOOP_MS
        edge(100, False)
        out["release"] = [poll(110), wake(), poll(120)]
        edge(200, True); edge(202, False); edge(204, True)   # bounce: steady from the last
        out["bounce"] = [poll(210), wake(), poll(223), poll(224)]
        edge(300, False)
        poll(320)
        edge(330, True); edge(333, False)               # a glitch between two passes
        out["glitch"] = [poll(340), poll(360)]
        edge(400, True, "HELP")                         # a long press counts from the finger
        out["long"] = [poll(420), poll(400 + config.LONG_PRESS_MS - 1),
                       poll(400 + config.LONG_PRESS_MS)]
        edge(1500, False, "HELP")
        poll(1520)
        edge(1600, True, "HELP"); edge(1610, True)      # two pins: both from the later edge
        out["two"] = [poll(1620), wake(), poll(1629), poll(1630)]
        SIM.reset()
        buttons = B.Board().buttons                     # no stamps (the simulator, tests)
        poll(0)
        edge(5, True)
        out["plain"] = [poll(20), buttons.wake, poll(39), poll(40)]
        RESULT = out
    """)
    assert r["idle"] == [[], -50000]
    assert r["seen"] == [[], 25]
    assert r["acts"] == [[], [["DRAW", "short"]]]
    assert r["release"] == [[], 120, []]   # the release counts, silent (acted going down)
    assert r["bounce"] == [[], 224, [], [["DRAW", "short"]]]
    assert r["glitch"] == [[], []]
    assert r["long"] == [[], [], [["HELP", "long"]]]
    assert r["two"] == [[], 1630, [], [["DRAW", "short"]]]   # HELP: long press, at release
    assert r["plain"] == [[], 0, [], [["DRAW", "short"]]]
