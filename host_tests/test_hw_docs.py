"""The hardware docs' figures hold: hardware/README.md and docs/making.md against config.py,
the BOM against the schematic, the power budget's arithmetic, the tones, the gauge's curve,
the charge current, and links that stay inside the repository."""
import os
import re
import sys

import pytest

from carddraw import config
from conftest import ROOT
from test_schematic import texts

sys.path.insert(0, os.path.join(ROOT, "tools"))
from maker import figures as hwfigures  # noqa: E402
from maker import bom as hwparts  # noqa: E402
import pins  # noqa: E402

DOCS = [os.path.join(ROOT, "hardware", "README.md"), os.path.join(ROOT, "docs", "making.md")]
SVG = os.path.join(ROOT, "hardware", "schematic", "schematic.svg")
SETTING = re.compile(r'`([A-Z][A-Z0-9_]+)( = ([^`]+))?`( = ([-0-9.x]+|True|False))?')


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def literal(text):
    text = text.strip()
    if text in ("True", "False"):
        return text == "True"
    if text.startswith('"'):
        return text.strip('"')
    return int(text, 0) if re.fullmatch(r"-?(0x[0-9A-Fa-f]+|\d+)", text) else float(text)


def settings_said(text):
    """[(name, value)] of every `NAME = value` and `NAME` = value the text states."""
    out = []
    for m in SETTING.finditer(text):
        said = m.group(3) if m.group(2) else m.group(5)
        if said is not None:
            out.append((m.group(1), literal(said)))
    return out


@pytest.mark.parametrize("path", DOCS)
def test_every_setting_the_prose_states_is_config_pys(path):
    said = settings_said(read(path))
    for name, value in said:
        have = getattr(config, name, None)
        assert have is not None, "%s names %s, which config.py does not have" % (path, name)
        assert have == value, "%s says %s = %r, config.py has %r" % (path, name, value, have)


def test_the_settings_check_reads_both_forms():
    text = 'a `PICO_W = True` b `BATTERY_CAL_MV` = 0 c `LED_KIND = "rgb"` d `OLED_ADDR` d'
    assert settings_said(text) == [("PICO_W", True), ("BATTERY_CAL_MV", 0), ("LED_KIND", "rgb")]
    assert len(settings_said(read(DOCS[0]))) >= 3


def test_the_readme_figures_follow_config(monkeypatch):
    cfg = pins.snapshot(config)
    cfg.BATTERY_EMPTY_V = 3.3
    text = hwfigures.figures(cfg)
    assert "| `BATTERY_EMPTY_V` | 3.3 | 0 %: the cell at 3.55 V;" in text
    assert "| `BATTERY_FULL_V` | %s |" % config.BATTERY_FULL_V in hwfigures.figures(config)
    msgs = pins.check(cfg)
    assert any(m.startswith("-| `BATTERY_EMPTY_V` | 3.25 |") for m in msgs), msgs
    # a name config.py gains is taken from config.py, not from the recommendation
    monkeypatch.setattr(config, "BATTERY_CAL_MV", 42, raising=False)
    assert "| `BATTERY_CAL_MV` | 42 |" in hwfigures.figures(config)


def test_the_display_figures_are_the_firmwares():
    steps = hwfigures.contrast_steps()
    assert len(steps) == config.NUMBERS["brightness"][2]
    assert list(steps) == sorted(steps) and 0 <= hwfigures.dimmed_contrast() < steps[0] + 1
    assert "contrast %d" % steps[config.NUMBERS["brightness"][0] - 1] in hwfigures.figures(config)


def test_the_bom_and_the_schematic_name_the_same_parts():
    drawn = {w for t in texts(read(SVG).encode())
             for w in re.findall(r"\b(?:U|R|D|Q|SW|BZ|BT|J)\d+\b|\bR_PROG\b", t[0])}
    assert set(hwparts.designators()) == drawn
    assert len(drawn) >= 20


def test_the_power_budget_at_the_batterys_voltage():
    rows, total = hwfigures.budget(3.50)
    pico = rows[0][2]
    assert pico == pytest.approx(22 * 5.0 / 3.50) and 30 < pico < 32   # not 22 mA
    k = 3.3 / (0.85 * 3.50)
    oled = (12 * 0.30 + 5 * 0.10 + 0.01 * 0.60) * k
    assert total == pytest.approx(pico + oled + 5 * 0.0333 * k + 30 * 0.002 + 0.01)
    assert hwfigures.hours(total) == pytest.approx(800 * 0.8 / total)
    text = hwfigures.power(config)
    assert "**%.1f h**" % (640 / total) in text and "17.7 h" in text
    worst = 125 / config.BATTERY_EMPTY_V + (20 + 6.2) * 3.3 / (0.85 * config.BATTERY_EMPTY_V) \
        + 30 * 0.02 + 0.01
    assert "%.1f h" % (640 / worst) in text and 8.5 < 640 / worst < 10


def test_the_charge_current_suits_the_cell():
    r_prog = 3300
    amps = 1200 / r_prog
    assert amps * 1000 <= 0.5 * hwfigures.CELL_MAH                     # at most 0.5 C
    assert "R_PROG 3.3 kΩ (%d mA)" % round(amps * 1000) in {t[0] for t in texts(read(SVG).encode())}
    assert "1200 V / 3.3 kOhm = %d mA" % round(amps * 1000) in hwparts.bom()


def test_every_tone_is_in_the_buzzers_range():
    patterns = config.BUZZER_PATTERNS
    low, high = hwfigures.TONE_BAND
    assert {"click", "card", "warn", "success", "fail", "black", "error"} <= set(patterns)
    for name, steps in patterns.items():
        assert len(steps) % 2 == 0 and all(ms > 0 for ms in steps[1::2]), name
        assert all(hz == 0 or low <= hz <= high for hz in steps[::2]), name
    assert "`black` | 2960 Hz 320 ms, rest 60 ms, 2093 Hz 450 ms | 2093-2960 Hz" \
        in hwfigures.sounds(config)


def test_the_gauge_curve_runs_from_full_to_empty():
    curve = config.BATTERY_CURVE
    assert curve[0] == [round(config.BATTERY_FULL_V * 1000), 100]
    assert curve[-1] == [round(config.BATTERY_EMPTY_V * 1000), 0]
    assert all(a[0] > b[0] and a[1] > b[1] for a, b in zip(curve, curve[1:]))
    usb = config.BATTERY_USB_V
    assert config.BATTERY_FULL_V + 0.2 < usb < 4.7      # a full cell is never taken for USB


LINK = re.compile(r"\]\(([^)#]+)(#[^)]*)?\)")


@pytest.mark.parametrize("path", DOCS + [os.path.join(ROOT, "hardware", "wiring.md")])
def test_links_stay_in_the_repository_and_reach_a_file(path):
    text = read(path)
    assert "shared/" not in text and "../shared" not in text
    for m in LINK.finditer(text):
        target = m.group(1)
        if target.startswith(("http://", "https://")):
            continue
        where = os.path.normpath(os.path.join(os.path.dirname(path), target))
        assert where.startswith(ROOT + os.sep) and os.path.exists(where), (path, target)
