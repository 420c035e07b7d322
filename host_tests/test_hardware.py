"""The hardware docs agree with config.py: tools/pins.py's check.

tools/pins.py generates hardware/wiring.md, wiring.svg, diagram.json and the table in
hardware/README.md from firmware/carddraw/config.py; its --check mode is the guard. These tests
run that check, show that a changed pin makes it fail with a message naming it, and try its
command line, its other LED kinds, its messages and the drawing's tags. The Wokwi circuit wire
by wire and the pin map against RP2040 facts written out a second time (picofacts.py, so a
slip in pins.py's tables shows up as a disagreement): test_hardware_circuit.py.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from carddraw import config
from conftest import ROOT
from picofacts import GND, PINOUT, Nets, table_rows

sys.path.insert(0, os.path.join(ROOT, "tools"))
import pins  # noqa: E402


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
