"""The Wokwi circuit (hardware/diagram.json) wire by wire against config.py, wiring.md's
physical pins against the Pico's pinout, and config.py's pin map electrically possible on an
RP2040 (pins.problems names what is not). The check itself, pins.py --check: test_hardware.py."""
import json
import os
import sys

import pytest

from carddraw import config
from conftest import ROOT
from picofacts import (DIAGRAM, GND, I2C0, I2C1, PINOUT, PWM_SLICE, WOKWI, Nets, pico_signal,
                       table_rows)

sys.path.insert(0, os.path.join(ROOT, "tools"))
import pins  # noqa: E402


@pytest.fixture(scope="module")
def diagram():
    with open(DIAGRAM, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def nets(diagram):
    return Nets(diagram)


# -- The Wokwi circuit, wire by wire -------------------------------------------------------------
def test_every_connection_names_a_part_and_a_pin_it_has(diagram):
    parts = {p["id"]: p["type"] for p in diagram["parts"]}
    assert len(parts) == len(diagram["parts"]), "two parts with one id"
    assert parts.get("pico") == "wokwi-pi-pico"
    for conn in diagram["connections"]:
        assert len(conn) == 4 and isinstance(conn[2], str) and conn[3] == [], conn
        for end in conn[:2]:
            pid, _, pin = end.partition(":")
            assert pid in parts, "%s: no part %r" % (conn, pid)
            assert pin in WOKWI[parts[pid]], "%s: %s has no pin %r" % (conn, parts[pid], pin)
    assert diagram["version"] == 1 and diagram["editor"] == "wokwi"


def test_each_button_joins_its_pin_to_gnd(diagram, nets):
    buttons = {p["attrs"]["label"]: p["id"] for p in diagram["parts"]
               if p["type"] == "wokwi-pushbutton"}
    assert sorted(buttons) == sorted(config.BUTTONS + ["RESET"])
    reset = buttons.pop("RESET")       # RUN to GND: a press restarts the Pico
    assert nets.connected(reset + ":1.l", "pico:RUN") and nets.connected(reset + ":2.r", GND)
    assert nets.net("pico:RUN") == {"pico:RUN", reset + ":1.l", reset + ":1.r"}
    for name, bid in buttons.items():
        pin = "pico:GP%d" % config.BUTTON_PINS[name]
        assert nets.connected(bid + ":1.l", pin), name
        assert nets.connected(bid + ":2.r", GND), "%s: its other side does not reach GND" % name
        assert not nets.connected(pin, GND), "%s shorted to GND" % name
        # nothing but this button on the pin: the pull-up is inside the RP2040
        assert nets.net(pin) == {pin, bid + ":1.l", bid + ":1.r"}, name


def test_the_oled_is_on_i2c_and_3v3(nets):
    assert nets.connected("oled1:DATA", "pico:GP%d" % config.I2C_SDA)
    assert nets.connected("oled1:CLK", "pico:GP%d" % config.I2C_SCL)
    assert nets.connected("oled1:VIN", "pico:3V3")
    assert nets.connected("oled1:GND", GND)


def test_the_oled_address(diagram):
    (oled,) = [p for p in diagram["parts"] if p["type"] == "wokwi-ssd1306"]
    assert int(oled["attrs"]["i2cAddress"], 16) == config.OLED_ADDR


def test_each_led_colour_goes_through_its_resistor(diagram, nets):
    assert config.LED_KIND == "rgb"
    (led,) = [p for p in diagram["parts"] if p["type"] == "wokwi-rgb-led"]
    assert led["attrs"]["common"] == "cathode"
    lid = led["id"]
    assert nets.connected(lid + ":COM", GND)
    resistors = {p["id"]: p for p in diagram["parts"] if p["type"] == "wokwi-resistor"}
    for colour, letter in (("red", "R"), ("green", "G"), ("blue", "B")):
        pico = "pico:GP%d" % config.LED_PINS[colour]
        led_net = nets.net(lid + ":" + letter)
        assert not any(pico_signal(e) for e in led_net), "%s: no resistor" % colour
        through = [rid for rid in resistors
                   if (rid + ":1" in led_net and nets.connected(rid + ":2", pico))
                   or (rid + ":2" in led_net and nets.connected(rid + ":1", pico))]
        assert len(through) == 1, "%s: %s" % (colour, through)
        ohms = int(resistors[through[0]]["attrs"]["value"])
        assert ohms == pins.LED_RESISTORS[colour]
        # at most 8 mA even if the LED's forward voltage were 0.3 V under the typical
        assert (3.3 - (pins.LED_VF[colour] - 0.3)) / ohms <= 0.008, colour


def test_the_buzzer_is_on_its_pin(nets):
    assert nets.connected("bz1:2", "pico:GP%d" % config.BUZZER_PIN)
    assert nets.connected("bz1:1", GND)


def test_no_pico_pin_carries_two_signals(nets):
    for net in nets.nets():
        signals = {pico_signal(e) for e in net} - {None}
        assert len(signals) <= 1, "one net joins %s: %s" % (sorted(signals), sorted(net))


def test_the_pico_pins_used_are_exactly_those_config_gives(diagram):
    used = {pico_signal(e) for c in diagram["connections"] for e in c[:2]} - {None}
    gpios = {g for _name, g in pins.signals(config)}
    assert used == {"GP%d" % g for g in gpios} | {"GND", "3V3", "RUN"}


# -- wiring.md against the pinout --------------------------------------------------------------
def test_the_wiring_table_uses_the_right_physical_pins():
    with open(os.path.join(ROOT, "hardware", "wiring.md"), encoding="utf-8") as f:
        rows = table_rows(f.read())
    assert rows
    for (part, part_pin), (pico, number, _notes) in rows.items():
        if number == "inside":
            continue
        assert PINOUT[int(number)] == pico, (part, part_pin, pico, number)
    for name in config.BUTTONS:
        pico, number, _ = rows[("Button %s" % name, "1")]
        assert pico == "GP%d" % config.BUTTON_PINS[name]
        assert rows[("Button %s" % name, "2")][0] == "GND"


def test_the_pinout_table_in_pins_py():
    assert len(pins.PICO_PINS) == 40
    assert {n: pins.PICO_PINS[n - 1] for n in range(1, 41)} == PINOUT
    assert pins.GND_PINS == (3, 8, 13, 18, 23, 28, 33, 38)
    assert [pins.physical(n) for n in ("GP0", "GP15", "GP16", "GP22", "RUN", "GP26", "VSYS",
                                       "VBUS")] == [1, 20, 21, 29, 30, 31, 39, 40]
    assert all(pins.wokwi_pin(n) == "pico:GND.%d" % (i + 1)
               for i, n in enumerate(pins.GND_PINS))
    for n in range(30):
        assert pins.pwm_of(n) == (PWM_SLICE[n], "AB"[n % 2])


# -- The pin map is electrically possible ------------------------------------------------------
def test_i2c_pins_belong_to_the_configured_block():
    block = {0: I2C0, 1: I2C1}[config.I2C_ID]
    assert config.I2C_SDA in block["SDA"]
    assert config.I2C_SCL in block["SCL"]
    assert config.I2C_FREQ <= 400_000


def test_led_and_buzzer_pwm_channels():
    leds = [config.LED_PINS[c] for c in ("red", "green", "blue")]
    channels = [(PWM_SLICE[p], p % 2) for p in leds]
    assert len(set(channels)) == 3, "two LED colours on one PWM channel: %s" % channels
    buzzer = (PWM_SLICE[config.BUZZER_PIN], config.BUZZER_PIN % 2)
    assert buzzer not in channels
    # stronger: the buzzer changes its frequency for every tone, so not even its slice may be
    # shared with an LED colour (a slice has one frequency)
    assert PWM_SLICE[config.BUZZER_PIN] not in {s for s, _ in channels}
    assert config.LED_PWM_FREQ > 0


def test_the_battery_is_read_on_an_adc_pin():
    assert 26 <= config.BATTERY_ADC <= 29
    assert config.BATTERY_ADC == 29   # VSYS/3 on the Pico: no divider to add


def test_every_signal_has_a_header_pin_of_its_own():
    gpios = [g for _name, g in pins.signals(config)]
    assert len(gpios) == len(set(gpios))
    assert all(g in set(range(23)) | {26, 27, 28} for g in gpios)
    assert pins.problems(config) == []


@pytest.mark.parametrize("change, words", [
    ({"I2C_SCL": 8, "I2C_SDA": 9}, "I2C_SDA GP9 cannot be I2C0 SDA"),
    ({"I2C_ID": 1}, "cannot be I2C1"),
    ({"LED_PINS": {"red": 16, "green": 0, "blue": 18}}, "both PWM slice 0 channel A"),
    ({"BUZZER_PIN": 19}, "the buzzer (GP19) is on PWM slice 1 with LED blue (GP18)"),
    ({"BUTTON_PINS": {"RANK": 10, "HELP": 11, "DRAW": 12, "STOP": 15}}, "both on GP15"),
    ({"BUTTON_PINS": {"RANK": 10, "HELP": 11, "DRAW": 12, "STOP": 25}}, "not on the Pico's header"),
    ({"BATTERY_ADC": 25}, "not an ADC pin"),
    ({"OLED_ADDR": 0x27}, "0x3C or 0x3D"),
    ({"LED_KIND": "lamp"}, "LED_KIND 'lamp'"),
])
def test_problems_names_what_is_wrong(change, words, capsys, monkeypatch):
    cfg = pins.snapshot(config)
    for k, v in change.items():
        setattr(cfg, k, v)
    found = pins.problems(cfg)
    assert any(words in p for p in found), found
    monkeypatch.setattr(pins, "write", lambda *a, **k: pytest.fail("wrote a bad pin map"))
    for argv in (["--check"], []):
        assert pins.main(argv, cfg=cfg) == 1
        err = capsys.readouterr().err.splitlines()
        assert err[0] == "config.py's pin map cannot work on a Pico (nothing written):"
        assert err[1:] == ["  config.py: " + p for p in found]
