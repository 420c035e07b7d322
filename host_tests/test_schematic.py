"""hardware/schematic/: the schematic drawn from config.py (tools/schematic.py, schemdraw).

The SVG keeps its labels as text, so these tests read the drawing itself: each pin the firmware
uses is on the Pico with its name and physical number and, on the same row, the net label
config.py gives it; every net label at the Pico is found again at a part; the parts' values
are those the wiring table uses. The committed files must be what the tool makes now."""
import hashlib
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from carddraw import config
from conftest import ROOT
from picofacts import PINOUT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import pins  # noqa: E402
import schematic  # noqa: E402

SVG = os.path.join(ROOT, "hardware", "schematic", "schematic.svg")
ROW = 4.0   # px: a pin's name, number and net label share a row (rows are ~40 px apart)


def texts(svg):
    """[(text, x, y)] of every line of text in the SVG (a <tspan> each)."""
    out = []
    for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"):
        for span in t:
            out.append((span.text or "", float(t.get("x")), float(t.get("y"))))
    return out


def expected_pins(cfg):
    """{physical pin: (pin name, net)} worked out here from config and the Pico's pinout."""
    phys = {name: n for n, name in PINOUT.items() if name != "GND"}
    want = {phys["GP%d" % cfg.I2C_SDA]: "SDA", phys["GP%d" % cfg.I2C_SCL]: "SCL",
            phys["GP%d" % cfg.BUZZER_PIN]: "BUZZER", 30: "RUN", 36: "+3V3", 39: "VSYS",
            40: "VBUS"}
    want.update({phys["GP%d" % pin]: name for name, pin in cfg.BUTTON_PINS.items()})
    if cfg.LED_KIND == "neopixel":
        want[phys["GP%d" % cfg.NEOPIXEL_PIN]] = "NEOPIXEL"
    else:
        want.update({phys["GP%d" % pin]: "LED_" + c[0].upper() for c, pin in
                     cfg.LED_PINS.items()})
    return {n: (PINOUT[n], net) for n, net in want.items()}


def rows_at_the_pico(found, wanted):
    """{physical pin: (pin name, net label)} read off the drawing: the pin number's text, the
    pin name on its row nearest to it, and the net label on that row beyond the number."""
    out = {}
    for n, (name, _net) in wanted.items():
        (num,) = [t for t in found if t[0] == str(n) and any(
            u[0] == name and abs(u[2] - t[2]) < ROW for u in found)]
        side = -1 if n <= 20 else 1          # left edge: labels further left
        beyond = sorted((abs(u[1] - num[1]), u[0]) for u in found if abs(u[2] - num[2]) < ROW
                        and (u[1] - num[1]) * side > 20)
        out[n] = (name, beyond[0][1])
    return out


@pytest.fixture(scope="module")
def now():
    """What the tool makes from config.py now (both files: about 2 s)."""
    return schematic.render()


@pytest.fixture(scope="module")
def drawn(now):
    return texts(now["schematic.svg"])


def svg_of(cfg):
    return texts(schematic.render(cfg, formats=("svg",))["schematic.svg"])


def test_the_committed_schematic_is_what_config_gives_now(now):
    stale = schematic.check(os.path.dirname(SVG), now)
    assert stale == [], "%s differ from config.py: run make schematic" % stale


def test_every_pin_the_firmware_uses_is_drawn_with_its_net(drawn):
    wanted = expected_pins(config)
    assert rows_at_the_pico(drawn, wanted) == wanted
    # and the grounds the wiring table uses, each with its number on a row reading GND
    for wire in pins.wires(config):
        if wire.pin and PINOUT[wire.pin] == "GND":
            assert any(t[0] == str(wire.pin) and any(u[0] == "GND" and abs(u[2] - t[2]) < ROW
                                                     for u in drawn) for t in drawn), wire


def test_every_net_label_at_the_pico_is_found_again_at_a_part(drawn):
    words = [t[0] for t in drawn]
    for _name, net in expected_pins(config).values():
        assert words.count(net) >= 2, "%s is labelled only once" % net


def test_the_values_and_parts_are_those_of_the_wiring_table(drawn):
    words = {t[0] for t in drawn}
    for colour, letter in (("red", 1), ("green", 2), ("blue", 3)):
        assert "R%d" % letter in words and pins.ohms(pins.LED_RESISTORS[colour]) in words
    assert "1 kΩ" in words and "I2C%d, address 0x%02X" % (config.I2C_ID, config.OLED_ADDR) \
        in words
    assert "GPIO%d = ADC%d" % (config.BATTERY_ADC, config.BATTERY_ADC - 26) in words
    assert {"U1", "U2 OLED 0.96 in", "D2", "1N4148", "D3", "1N5817", "SW5", "RESET", "SW6",
            "Q1", "BZ1"} <= words
    assert "R_PROG 3.3 kΩ (364 mA)" in words


def test_a_changed_pin_moves_its_label_and_the_check_finds_it(tmp_path, now):
    cfg = pins.snapshot(config)
    cfg.BUTTON_PINS["RANK"] = 14                     # GP10 -> GP14, physical pin 19
    files = schematic.render(cfg, formats=("svg",))
    found = texts(files["schematic.svg"])
    wanted = expected_pins(cfg)
    assert wanted[19] == ("GP14", "RANK") and rows_at_the_pico(found, wanted) == wanted
    schematic.write(str(tmp_path), now)
    assert schematic.check(str(tmp_path), files) == ["schematic.svg"]
    assert schematic.check(str(tmp_path), now) == []
    # the PNG is checked by the drawing it says it shows: another config's is stale
    moved = schematic.render(cfg, formats=("svg", "png"))["schematic.png"]
    assert schematic.check(str(tmp_path), {"schematic.png": moved}) == ["schematic.png"]
    assert schematic.png_source(now["schematic.png"]).endswith(
        hashlib.sha256(now["schematic.svg"]).hexdigest())
    assert schematic.png_source(b"not a png") is None


def test_check_says_run_make_schematic_in_one_line(tmp_path, now):
    schematic.write(str(tmp_path), now)
    (tmp_path / "schematic.svg").write_text("<svg/>")
    done = subprocess.run([sys.executable, os.path.join("tools", "schematic.py"), "--check",
                           "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "schematic.svg is not what config.py gives now: run make schematic" in done.stderr
    assert (tmp_path / "schematic.svg").read_text() == "<svg/>"      # --check writes nothing


@pytest.mark.parametrize("kind, words", [("rgb_anode", "common anode (PWM inverted)"),
                                         ("neopixel", "D1 WS2812")])
def test_the_other_led_kinds_are_drawn(kind, words):
    cfg = pins.snapshot(config)
    cfg.LED_KIND = kind
    found = svg_of(cfg)
    assert any(words in t[0] for t in found)
    wanted = expected_pins(cfg)
    assert rows_at_the_pico(found, wanted) == wanted


def test_a_folder_of_someone_elses_is_refused_and_left_alone(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    done = subprocess.run([sys.executable, os.path.join("tools", "schematic.py"), "--out",
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "did not write" in done.stderr and os.listdir(str(tmp_path)) == ["notes.txt"]
