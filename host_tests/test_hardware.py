"""The hardware docs agree with config.py, and config.py's pins work on an RP2040.

tools/pins.py generates hardware/wiring.md, wiring.svg, diagram.json and the table in
hardware/README.md from firmware/carddraw/config.py; its --check mode is the guard. These tests
run that check, read the Wokwi circuit wire by wire against config.py, show that a changed pin
makes the check fail with a message naming it, and check the pin map against RP2040 facts
written out here a second time (so a slip in pins.py's tables shows up as a disagreement).
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from carddraw import config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import pins  # noqa: E402

DIAGRAM = os.path.join(ROOT, "hardware", "diagram.json")

# -- RP2040 / Pico facts, written out independently of tools/pins.py ---------------------------
# Physical pin -> name, from the Pico pinout: GP0-GP15 down the left edge with a GND every
# fifth pin, GP16-GP22 then the power pins up the right.
PINOUT = {1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND",
          9: "GP6", 10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11",
          16: "GP12", 17: "GP13", 18: "GND", 19: "GP14", 20: "GP15", 21: "GP16", 22: "GP17",
          23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21", 28: "GND", 29: "GP22",
          30: "RUN", 31: "GP26", 32: "GP27", 33: "GND", 34: "GP28", 35: "ADC_VREF",
          36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS"}
I2C0 = {"SDA": {0, 4, 8, 12, 16, 20}, "SCL": {1, 5, 9, 13, 17, 21}}
I2C1 = {"SDA": {2, 6, 10, 14, 18, 26}, "SCL": {3, 7, 11, 15, 19, 27}}
# PWM: GPIO n drives slice (n // 2) % 8, channel A if n is even, B if odd.
PWM_SLICE = {n: (n // 2) % 8 for n in range(30)}
# Pin names of the Wokwi parts (Wokwi parts reference).
WOKWI = {
    "wokwi-pi-pico": {"GP%d" % n for n in list(range(23)) + [26, 27, 28]}
    | {"GND.%d" % n for n in range(1, 9)} | {"3V3", "VSYS", "VBUS", "RUN", "3V3_EN", "ADC_VREF"},
    "wokwi-ssd1306": {"DATA", "CLK", "DC", "RST", "CS", "3V3", "VIN", "GND"},
    "wokwi-rgb-led": {"R", "G", "B", "COM"},
    "wokwi-pushbutton": {"1.l", "1.r", "2.l", "2.r"},
    "wokwi-buzzer": {"1", "2"},
    "wokwi-resistor": {"1", "2"},
    "wokwi-neopixel": {"DIN", "DOUT", "VDD", "VSS"},
}


# -- Reading the Wokwi circuit as nets -----------------------------------------------------------
class Nets:
    """The connections of a diagram.json as nets: sets of "part:pin" joined by wires.

    The Pico's GND.1-GND.8 are one net (joined on the board), as are the two legs of each side
    of a pushbutton (1.l/1.r and 2.l/2.r)."""

    def __init__(self, diagram):
        self.parts = {p["id"]: p for p in diagram["parts"]}
        self.parent = {}
        for a, b, _colour, _route in diagram["connections"]:
            self.join(a, b)
        for pid, p in self.parts.items():
            if p["type"] == "wokwi-pushbutton":
                self.join(pid + ":1.l", pid + ":1.r")
                self.join(pid + ":2.l", pid + ":2.r")
        for n in range(2, 9):
            self.join("pico:GND.1", "pico:GND.%d" % n)

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a, b):
        self.parent[self.find(a)] = self.find(b)

    def net(self, end):
        root = self.find(end)
        return {x for x in list(self.parent) if self.find(x) == root}

    def nets(self):
        out = {}
        for x in list(self.parent):
            out.setdefault(self.find(x), set()).add(x)
        return list(out.values())

    def connected(self, a, b):
        return self.find(a) == self.find(b)


def pico_signal(end):
    """"pico:GND.3" -> "GND", "pico:GP8" -> "GP8"; None for a pin that is not the Pico's."""
    if not end.startswith("pico:"):
        return None
    name = end[5:]
    return "GND" if name.startswith("GND.") else name


@pytest.fixture(scope="module")
def diagram():
    with open(DIAGRAM, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def nets(diagram):
    return Nets(diagram)


GND = "pico:GND.1"


def part_ids(diagram, type_):
    return [p["id"] for p in diagram["parts"] if p["type"] == type_]


def table_rows(text):
    """{(part, part pin): (Pico pin, pin no., notes)} from the first table of a markdown text."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("| Pin no."):
            break                          # the "By Pico pin" table: not a part table
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("Part", "---"):
            rows[(cells[0], cells[1])] = (cells[2], cells[3], cells[4])
    return rows


def by_file(msgs):
    """{path: its messages} from check's output: a diff runs from its '--- path' line on."""
    out, path = {}, None
    for m in msgs:
        if m.startswith("--- "):
            path = m[4:].split(" ")[0]
        elif not m.startswith(("+", "-", "@@")):
            path = m.split(":")[0]
        out.setdefault(path, []).append(m)
    return out


# -- The check itself ----------------------------------------------------------------------------
def test_check_passes_on_the_committed_files():
    done = subprocess.run([sys.executable, os.path.join("tools", "pins.py"), "--check"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "matches" in done.stdout


def test_check_names_a_changed_button_pin(tmp_path):
    cfg = pins.snapshot(config)            # a copy: config itself is untouched
    assert cfg.BUTTON_PINS is not config.BUTTON_PINS
    cfg.BUTTON_PINS["RANK"] = 14           # GP10 -> GP14 (physical pin 19)
    msgs = pins.check(cfg)
    text = "\n".join(msgs)
    assert config.BUTTON_PINS["RANK"] == 10
    # every generated file has a unified diff (difflib): the file's line, then config.py's
    diffs = by_file(msgs)
    assert sorted(diffs) == ["hardware/README.md", "hardware/diagram.json", "hardware/wiring.md",
                             "hardware/wiring.svg"], text
    for path, lines in diffs.items():
        assert lines[:2] == ["--- %s (the file)" % path, "+++ %s (config.py gives)" % path]
        assert lines[2].startswith("@@ -"), lines
    md = diffs["hardware/wiring.md"]
    old = md.index("-| Button RANK | 1 | GP10 | 14 | internal pull-up; pressed reads 0 |")
    assert md[old + 1] == "+| Button RANK | 1 | GP14 | 19 | internal pull-up; pressed reads 0 |"
    wokwi = diffs["hardware/diagram.json"]
    assert '-    ["pico:GP10", "btn_rank:1.l", "green", []],' in wokwi
    assert '+    ["pico:GP14", "btn_rank:1.l", "green", []],' in wokwi
    assert any(m.startswith("+") and 'data-pin="19 GP14: Button RANK"' in m
               for m in diffs["hardware/wiring.svg"]), text
    # no context lines: only the RANK button's rows are reported for the tables
    for path in ("hardware/wiring.md", "hardware/README.md"):
        assert all("RANK" in m for m in diffs[path][2:] if m[:1] in "+-"), diffs[path]


def test_check_command_fails_on_a_monkeypatched_config(monkeypatch, capsys):
    monkeypatch.setitem(config.BUTTON_PINS, "STOP", 14)
    monkeypatch.setattr(config, "BUZZER_PIN", 20)
    assert pins.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "hardware/ does not match firmware/carddraw/config.py" in err
    assert ("\n  -| Button STOP | 1 | GP13 | 17 | internal pull-up; pressed reads 0 |\n"
            "  +| Button STOP | 1 | GP14 | 19 | internal pull-up; pressed reads 0 |\n") in err
    assert "\n  +| Buzzer driver | NPN base via 1 kΩ | GP20 | 26 |" in err
    assert """\n  +    ["pico:GP20", "bz1:2", "purple", []],""" in err
    assert "run `python tools/pins.py` to regenerate" in err.splitlines()[0]


@pytest.mark.parametrize("argv", [["--chek"], ["--check", "--check"], ["hardware"], ["-x"]])
def test_a_wrong_argument_is_one_line_and_exit_2(argv):
    done = subprocess.run([sys.executable, os.path.join("tools", "pins.py")] + argv, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert repr(" ".join(argv)) in line and "--check" in line and "--help" in line, line


def test_help_prints_the_usage():
    done = subprocess.run([sys.executable, os.path.join("tools", "pins.py"), "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "python tools/pins.py --check" in done.stdout


def test_check_reports_missing_files_and_a_round_trip_agrees(tmp_path):
    cfg = pins.snapshot(config)
    os.makedirs(tmp_path / "hardware")
    shutil.copy(os.path.join(ROOT, "hardware", "README.md"), tmp_path / "hardware")
    msgs = pins.check(cfg, root=str(tmp_path))
    assert "hardware/wiring.md: missing" in msgs
    assert "hardware/diagram.json: missing" in msgs
    pins.write(cfg, root=str(tmp_path))
    assert pins.check(cfg, root=str(tmp_path)) == []
    for name in ("wiring.md", "wiring.svg", "diagram.json", "README.md"):
        with open(tmp_path / "hardware" / name, encoding="utf-8") as a, \
                open(os.path.join(ROOT, "hardware", name), encoding="utf-8") as b:
            assert a.read() == b.read(), name


def test_check_refuses_a_pin_map_the_rp2040_cannot_do():
    cfg = pins.snapshot(config)
    cfg.I2C_SDA = 10
    msgs = pins.check(cfg)
    assert msgs and all(m.startswith("config.py: ") for m in msgs)
    assert any("I2C_SDA GP10 cannot be I2C0 SDA" in m for m in msgs)
    assert any("button RANK" in m and "OLED SDA" in m for m in msgs)   # and it is a button's


@pytest.mark.parametrize("kind", ["rgb_anode", "neopixel"])
def test_the_other_led_kinds_generate_and_check(tmp_path, kind):
    cfg = pins.snapshot(config)
    cfg.LED_KIND = kind
    assert pins.problems(cfg) == []
    os.makedirs(tmp_path / "hardware")
    pins.write(cfg, root=str(tmp_path))
    assert pins.check(cfg, root=str(tmp_path)) == []
    with open(tmp_path / "hardware" / "diagram.json", encoding="utf-8") as f:
        d = json.load(f)
    n = Nets(d)
    if kind == "neopixel":
        assert n.connected("np1:DIN", "pico:GP%d" % config.NEOPIXEL_PIN)
        assert n.connected("np1:VSS", GND)
    else:
        (led,) = [p for p in d["parts"] if p["type"] == "wokwi-rgb-led"]
        assert led["attrs"]["common"] == "anode"
        assert n.connected("rgb1:COM", "pico:3V3")


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
    assert sorted(buttons) == sorted(config.BUTTONS + ("RESET",))
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


# -- The check's messages and the drawing --------------------------------------------------------
def test_check_names_line_endings_and_caps_a_long_diff(tmp_path):
    cfg = pins.snapshot(config)
    os.makedirs(tmp_path / "hardware")
    pins.write(cfg, root=str(tmp_path))
    md, svg = tmp_path / "hardware" / "wiring.md", tmp_path / "hardware" / "wiring.svg"
    md.write_bytes(md.read_bytes().replace(b"\n", b"\r\n"))
    svg.write_text("".join("junk %d\n" % i for i in range(40)), encoding="utf-8")
    msgs = pins.check(cfg, root=str(tmp_path))
    assert "hardware/wiring.md: differs only in line endings or the final newline" in msgs
    diffs = by_file(msgs)
    svg_msgs = diffs["hardware/wiring.svg"]
    assert len(svg_msgs) == pins.DIFF_LINES + 1, svg_msgs
    assert svg_msgs[:3] == ["--- hardware/wiring.svg (the file)",
                            "+++ hardware/wiring.svg (config.py gives)", "@@ -1,40 +1,%d @@"
                            % len(pins.wiring_svg(cfg).splitlines())]
    assert svg_msgs[3:5] == ["-junk 0", "-junk 1"]
    assert svg_msgs[-1].startswith("hardware/wiring.svg: and ")
    assert svg_msgs[-1].endswith(" more diff lines")
    assert sorted(diffs) == ["hardware/wiring.md", "hardware/wiring.svg"], msgs
    with open(os.path.join(ROOT, "hardware", "README.md"), encoding="utf-8") as f:
        assert "prints a diff (up to %d lines a file)" % pins.DIFF_LINES in f.read()


def test_the_drawing_tags_every_wired_pin_with_what_it_goes_to():
    import re
    with open(os.path.join(ROOT, "hardware", "wiring.svg"), encoding="utf-8") as f:
        tags = dict((int(n), (name, to)) for n, name, to in
                    re.findall(r'class="wire" data-pin="(\d+) (\S+): ([^"]*)"', f.read()))
    with open(os.path.join(ROOT, "hardware", "wiring.md"), encoding="utf-8") as f:
        rows = table_rows(f.read())
    wired = {int(number) for _pico, number, _notes in rows.values() if number != "inside"}
    assert set(tags) == wired
    assert all(PINOUT[n] == name for n, (name, _to) in tags.items())
    for name in config.BUTTONS:
        assert tags[pins.physical("GP%d" % config.BUTTON_PINS[name])][1] == "Button " + name
    assert "OLED SDA" in tags[pins.physical("GP%d" % config.I2C_SDA)][1]
