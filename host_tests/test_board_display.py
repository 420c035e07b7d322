"""board.py and ssd1306.py inside the MicroPython VM, on the stand-ins in tools/sim: the display,
the LED and the buzzer (test_board.py: the battery, the watchdog and the buttons).

Each test runs a script in the VM (firmware in /lib, tools/sim/machine.py and neopixel.py
there too) and checks the JSON it leaves in RESULT.
"""
import pytest

from boardkit import vm


# -- The display -----------------------------------------------------------------------------
# The driver's own tests (change detection, column spans, bus errors): test_ssd1306.py
def test_contrast_and_power_are_decoded():
    r = vm("""
        b = B.Board()
        d = b.display
        out = {"on_at_start": SIM.oled_on, "pump": SIM.charge_pump,
               "start_contrast": SIM.contrast}
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
        out["errors"] = SIM.i2c_errors
        RESULT = out
    """)
    assert r["on_at_start"] and r["pump"]
    assert r["start_contrast"] == r["levels"][2]                 # brightness 3 at start
    levels = r["levels"]
    assert levels[:5] == sorted(levels[:5]) and len(set(levels[:5])) == 5
    assert levels[4] == 255 and levels[0] > 0
    assert levels[5] == levels[0] and levels[6] == levels[4]     # clamped to 1-5
    assert r["raw"] == 17
    assert r["asleep_on"] is False and r["asleep_show"] == 0
    assert r["woke_on"] is True and r["woke_show"] == 1024       # waking resends the frame
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
        from carddraw.ssd1306 import CONTRAST
        RESULT = out + [CONTRAST[1]]
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
    except KeyError as e:
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
        except KeyError as e:
            out["bad"] = str(e)
        RESULT = out
    """)
    assert r["silent"] == 0
    tones = dict(r["timeline"])
    assert all(tones[t] == 2700 for t in range(0, 40, 5))
    assert all(tones[t] == 0 for t in range(40, 65, 5))
    assert all(tones[t] == 3400 for t in range(65, 125, 5))
    assert all(tones[t] == 0 for t in range(125, 140, 5))
    assert r["playing_after"] is None                    # silent: no steps playing
    assert r["names"] == sorted(["click", "card", "warn", "success", "fail", "black", "error"])
    assert r["late"] == [0, None]
    assert r["disabled"] == [0, None]
    assert r["muted_midway"] == [0, None]
    assert r["bad"] and "tada" in r["bad"]
