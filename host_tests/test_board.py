"""board.py and ssd1306.py inside the MicroPython VM, on the stand-ins in tools/sim.

Each test runs a script in the VM (firmware in /lib, tools/sim/machine.py and neopixel.py
there too) and checks the JSON it leaves in RESULT. The Button logic is tested there as
well: board.py imports machine and time, which CPython lacks, and the VM is where it runs.
"""
import textwrap

import pytest

from conftest import run_in_vm

PRELUDE = """
import gc
from machine import SIM, I2C, Pin
from carddraw import config
import carddraw.config as C
from carddraw import board as B
from carddraw.ssd1306 import SSD1306
"""


def vm(body, prelude=PRELUDE):
    return run_in_vm(prelude + textwrap.dedent(body), libs=["tools/sim"])


# -- The display -----------------------------------------------------------------------------
# The driver's own tests (change detection, column spans, bus errors): test_ssd1306.py
def test_contrast_and_power_are_decoded():
    r = vm("""
        b = B.Board()
        d = b.display
        out = {"on_at_start": SIM.oled_on, "pump": SIM.charge_pump,
               "start_level": d.level, "start_contrast": SIM.contrast}
        out["levels"] = []
        for level in (1, 2, 3, 4, 5, 0, 9):
            d.brightness(level)
            out["levels"].append(SIM.contrast)
        d.contrast(17)
        out["raw"] = SIM.contrast
        d.sleep(True)
        out["asleep_on"] = SIM.oled_on
        out["asleep_show"] = d.show()
        d.sleep(False)
        out["woke_on"] = SIM.oled_on
        out["woke_show"] = d.show()
        d.poweroff()
        out["off"] = SIM.oled_on
        d.poweron()
        out["on"] = SIM.oled_on
        out["errors"] = SIM.i2c_errors
        RESULT = out
    """)
    assert r["on_at_start"] and r["pump"]
    assert r["start_level"] == 3 and r["start_contrast"] == r["levels"][2]
    levels = r["levels"]
    assert levels[:5] == sorted(levels[:5]) and len(set(levels[:5])) == 5
    assert levels[4] == 255 and levels[0] > 0
    assert levels[5] == levels[0] and levels[6] == levels[4]     # clamped to 1-5
    assert r["raw"] == 17
    assert r["asleep_on"] is False and r["asleep_show"] == 0
    assert r["woke_on"] is True and r["woke_show"] == 1024       # waking resends the frame
    assert r["off"] is False and r["on"] is True
    assert r["errors"] == []


def test_the_contrast_is_sent_only_when_it_changes_and_again_after_waking_or_a_bus_error():
    """The app applies the settings at every change of them (each set-up press): the same
    brightness again costs no I2C write; a new one, a wake from sleep (the module may have
    lost power) and a write that failed are sent."""
    r = vm("""
        d = B.Board().display
        def writes(f):
            n = SIM.i2c_writes
            try:
                f()
            except OSError:
                pass
            return SIM.i2c_writes - n
        out = [writes(lambda: d.brightness(3)), writes(lambda: d.brightness(4)),
               writes(lambda: d.brightness(4)), writes(lambda: d.contrast(17)),
               writes(lambda: d.contrast(17))]
        d.sleep(True)
        d.sleep(False)
        out.append(writes(lambda: d.brightness(4)))
        SIM.i2c_fail = 1
        out.append(writes(lambda: d.brightness(2)))   # refused on the bus
        out.append(SIM.contrast)
        out.append(writes(lambda: d.brightness(2)))   # so sent again
        out.append(SIM.contrast)
        RESULT = out + [B.CONTRAST[1]]
    """)
    level2 = r[10]
    assert r[:6] == [0, 1, 0, 1, 0, 1]
    assert r[7] != level2 and r[8] == 1 and r[9] == level2


def test_the_visible_screen_is_upright_and_blank_when_off():
    r = vm("""
        b = B.Board()
        d = b.display
        d.text("Hi", 3, 5, 1)
        d.pixel(127, 63, 1)
        d.show()
        same = all(SIM.pixel(x, y) == d.pixel(x, y) for x in range(0, 128, 3) for y in range(64))
        corner = SIM.pixel(127, 63)
        d.sleep(True)
        dark = sum(SIM.screen()) == 0
        art = SIM.text_art()
        RESULT = {"same": same, "corner": corner, "dark": dark,
                  "art_lines": len(art.split("\\n"))}
    """)
    assert r["same"] and r["corner"] == 1 and r["dark"]
    assert r["art_lines"] == 32


def test_the_stand_in_decodes_other_ways_of_talking_to_an_ssd1306():
    # What micropython-lib's driver and others send: one command per 0x80 control byte,
    # arguments in separate writes, page addressing mode. Guards the simulator, not the driver.
    r = vm("""
        i2c = I2C(0, sda=Pin(8), scl=Pin(9))
        out = {"scan": i2c.scan()}
        for byte in (0x81, 0x10):
            i2c.writeto(0x3C, bytes((0x80, byte)))
        out["contrast"] = SIM.contrast
        i2c.writeto(0x3C, b"\\x80\\xaf")
        out["on"] = SIM.oled_on
        i2c.writeto(0x3C, b"\\x00\\x20\\x02\\xb2\\x05\\x11")     # page mode, page 2, column 0x15
        i2c.writevto(0x3C, (b"\\x40", b"\\x01\\x02", b"\\x03"))
        out["page_mode"] = list(SIM.oled[2 * 128 + 0x15:2 * 128 + 0x18])
        i2c.writeto(0x3C, b"\\x00\\x20\\x01\\x21\\x05\\x06\\x22\\x00\\x01")  # vertical, 2x2
        i2c.writeto(0x3C, b"\\x40\\x0a\\x0b\\x0c\\x0d")
        out["vertical"] = [SIM.oled[5], SIM.oled[128 + 5], SIM.oled[6], SIM.oled[128 + 6]]
        out["errors_before"] = list(SIM.i2c_errors)
        i2c.writeto(0x3C, b"\\x00\\xff")
        out["unknown"] = len(SIM.i2c_errors)
        try:
            i2c.writeto(0x3D, b"\\x00\\xaf")
            out["nack"] = False
        except OSError:
            out["nack"] = True
        RESULT = out
    """)
    assert r["scan"] == [0x3C]
    assert r["contrast"] == 0x10 and r["on"] is True
    assert r["page_mode"] == [1, 2, 3]
    assert r["vertical"] == [10, 11, 12, 13]
    assert r["errors_before"] == [] and r["unknown"] == 1
    assert r["nack"] is True


# -- LED ----------------------------------------------------------------------------------------
LED_SCRIPT = """
    config.LED_KIND = %r
    b = B.Board()
    out = {"start": SIM.led_rgb()}
    for c in ("green", "yellow", "red", "black", None):
        b.led.show(c)
        out[str(c)] = SIM.led_rgb()
    pins = [config.LED_PINS[c] for c in ("red", "green", "blue")]
    out["pwm"] = [[SIM.pwm[p].freq(), SIM.pwm[p].inverted] for p in pins if p in SIM.pwm]
    out["np_writes"] = SIM.np_writes
    b.led.show("red")
    n = SIM.np_writes
    for _ in range(5):
        b.led.show("red")               # every loop: writes nothing new
    out["repeat_writes"] = SIM.np_writes - n
    out["red_again"] = [SIM.led_rgb(), list(b.led.value)]
    try:
        b.led.show("blue")
        out["bad"] = None
    except ValueError as e:
        out["bad"] = str(e)
    RESULT = out
"""


@pytest.mark.parametrize("kind", ["rgb", "rgb_anode", "neopixel"])
def test_led_colours_black_is_purple(kind):
    r = vm(LED_SCRIPT % kind)
    assert r["start"] == [0, 0, 0]
    assert r["green"] == [0, 255, 0]
    assert r["red"] == [255, 0, 0]
    y = r["yellow"]
    assert y[0] == 255 and 0 < y[1] < 255 and y[2] == 0
    k = r["black"]
    assert k[0] > 0 and k[1] == 0 and k[2] == 255        # purple, never dark
    assert r["None"] == [0, 0, 0]
    assert r["bad"] and "blue" in r["bad"]
    assert r["repeat_writes"] == 0
    assert r["red_again"] == [[255, 0, 0]] * 2
    if kind == "neopixel":
        assert r["pwm"] == [] and r["np_writes"] >= 6
    else:
        assert r["pwm"] == [[1000, kind == "rgb_anode"]] * 3   # one frequency on every channel


def test_led_kind_must_be_known():
    r = vm("""
        config.LED_KIND = "rgbw"
        try:
            B.Board()
            RESULT = None
        except ValueError as e:
            RESULT = str(e)
    """)
    assert r and "LED_KIND" in r


# -- Buzzer -------------------------------------------------------------------------------------
def test_buzzer_patterns_play_without_blocking_and_stop():
    r = vm("""
        b = B.Board()
        z = b.buzzer
        out = {"silent": SIM.tone}
        z.play("card", 1000)           # (2700, 40), (0, 25), (3400, 60)
        timeline = []
        for t in range(1000, 1140, 5):
            z.update(t)
            timeline.append([t - 1000, SIM.tone])
        out["timeline"] = timeline
        out["playing_after"] = z.playing
        out["names"] = sorted(C.BUZZER_PATTERNS)
        z.play("black", 0)
        z.update(10000)               # a very late loop: the pattern is over, no sound
        out["late"] = [SIM.tone, z.playing]
        z.enabled = False
        z.play("success", 0)
        out["disabled"] = [SIM.tone, z.playing]
        z.enabled = True
        z.play("error", 0)
        z.enabled = False
        z.update(1)
        out["muted_midway"] = [SIM.tone, z.playing]
        try:
            z.play("tada", 0)
            out["bad"] = None
        except ValueError as e:
            out["bad"] = str(e)
        RESULT = out
    """)
    assert r["silent"] == 0
    tones = dict(r["timeline"])
    assert all(tones[t] == 2700 for t in range(0, 40, 5))
    assert all(tones[t] == 0 for t in range(40, 65, 5))
    assert all(tones[t] == 3400 for t in range(65, 125, 5))
    assert all(tones[t] == 0 for t in range(125, 140, 5))
    assert r["playing_after"] is False
    assert r["names"] == sorted(["click", "card", "warn", "success", "fail", "black", "error"])
    assert r["late"] == [0, False]
    assert r["disabled"] == [0, False]
    assert r["muted_midway"] == [0, False]
    assert r["bad"] and "tada" in r["bad"]


# -- Battery and watchdog -------------------------------------------------------------------------
def test_battery_millivolts_and_percent_on_the_lipo_curve():
    r = vm("""
        b = B.Board()
        out = []
        for v in (2.8, 3.25, 3.57, 3.95, 4.2, 5.0):
            SIM.set_vsys(v)
            mv = b.battery.millivolts()
            out.append([mv, b.battery.percent(), b.battery.on_usb(mv)])
        steady = []
        for v in (3.57, 3.572, 3.568, 3.58, 3.576):   # 45, 45, 44: noise; 47 moves; 46 noise
            SIM.set_vsys(v)
            steady.append(b.battery.percent())
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
PERIOD = 1 << 30


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
        e = btn.update(levels[t], (base + t) % PERIOD)
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
                base = (PERIOD - 700) if shape == 3 else 0     # across the ticks wrap
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
