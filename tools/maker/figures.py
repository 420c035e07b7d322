"""The figures hardware/README.md gives, worked out from config.py (and the firmware's own
contrast steps), so the prose cannot drift from the code: tools/pins.py writes them between
markers and `--check` fails when they differ.

Three blocks: the battery and display figures the firmware uses, the buzzer's tones, and the
power budget worked out at the battery's voltage.
"""
import ast
import glob
import os

from common import FIRMWARE

DIODE_V = 0.25          # the Schottky's drop at the device's current (1N5817, about 30 mA)
TONE_BAND = (2000, 4200)       # Hz: every tone the buzzer plays


# -- what the firmware's code says (read, not imported: board.py needs `machine`) ---------------
def _modules():
    return sorted(glob.glob(os.path.join(FIRMWARE, "carddraw", "*.py")))


def contrast_steps():
    """The display's contrast for brightness 1..5: a module-level CONTRAST list in firmware/."""
    for path in _modules():
        for node in ast.parse(open(path, encoding="utf-8").read()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CONTRAST"
                                                    for t in node.targets):
                return tuple(ast.literal_eval(node.value))
    raise LookupError("no CONTRAST = (...) in firmware/carddraw: tools/maker/figures.py reads the "
                      "display's contrast steps from it")


def dimmed_contrast():
    """The contrast the app dims the idle display to: the constant in a .contrast(N) call in
    a function whose name says idle or dim (else the one constant contrast call there is)."""
    found, idle = set(), set()
    for path in _modules():
        for fn in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for node in ast.walk(fn):
                if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "contrast"
                        and node.args and isinstance(node.args[0], ast.Constant)):
                    found.add(node.args[0].value)
                    if "idle" in fn.name or "dim" in fn.name:
                        idle.add(node.args[0].value)
    for candidates in (idle, found):
        if len(candidates) == 1:
            return next(iter(candidates))
    raise LookupError("firmware/carddraw sets contrasts %s in an idle or dim function, %s in "
                      "all: not one (the dimmed display's), which tools/maker/figures.py reads"
                      % (sorted(idle), sorted(found)))


# -- the figures block -----------------------------------------------------------------------------
def table(head, rows):
    return "\n".join(["| %s |" % " | ".join(head), "|" + "---|" * len(head)]
                     + ["| %s |" % " | ".join(str(c) for c in row) for row in rows])


def figures(cfg):
    bright = cfg.NUMBERS["brightness"][0]
    steps = contrast_steps()
    full, empty = cfg.BATTERY_FULL_V, cfg.BATTERY_EMPTY_V
    rows = [
        ("`PICO_W`", cfg.PICO_W, "True on a Pico W or Pico 2 W: GP25 is driven high while "
         "VSYS is read (the radio shares GPIO29); deploy refuses a wireless board without it"),
        ("`BATTERY_ADC`", cfg.BATTERY_ADC, "VSYS / 3 through the Pico's own 200k/100k divider"),
        ("`BATTERY_FULL_V`", full, "100 %%: a full cell, %.2f V, less the diode" % (full + DIODE_V)),
        ("`BATTERY_EMPTY_V`", empty, "0 %%: the cell at %.2f V; the device says so, logs it and "
         "sleeps" % (empty + DIODE_V)),
        ("`BATTERY_EMPTY_READS`", cfg.BATTERY_EMPTY_READS, "readings in a row at or "
         "under empty (one each 5 s, none while the buzzer sounds) before it sleeps"),
        ("`BATTERY_CAL_MV`", cfg.BATTERY_CAL_MV, "added to each reading: see "
         "*Calibrating the gauge*"),
        ("`BATTERY_USB_V`", cfg.BATTERY_USB_V, "VSYS above this is USB power "
         "(about 4.7 V): no gauge, no sleep"),
        ("brightness", "%d of 1-%d" % (bright, len(steps)), "the default; contrast steps %s "
         "(`CONTRAST`), so contrast %d" % (", ".join(map(str, steps)), steps[bright - 1])),
        ("dimmed", "contrast %d" % dimmed_contrast(), "after `DIM_AFTER_MS` = %d ms idle; the "
         "display sleeps after `OFF_AFTER_MS` = %d ms" % (cfg.DIM_AFTER_MS, cfg.OFF_AFTER_MS)),
    ]
    curve = cfg.BATTERY_CURVE
    return "\n".join([table(("setting", "value", "what it means"), rows), "",
                      "`BATTERY_CURVE`, VSYS (mV) to percent, straight lines between the points:",
                      "", table(("VSYS mV", "cell V", "percent"), [
                          (mv, "%.2f" % (mv / 1000 + DIODE_V), pc) for mv, pc in curve])])


def sounds(cfg):
    patterns = cfg.BUZZER_PATTERNS
    rows = []
    for name, steps in patterns.items():
        notes = ["%d Hz %d ms" % (steps[i], steps[i + 1]) if steps[i] else "rest %d ms"
                 % steps[i + 1] for i in range(0, len(steps), 2)]
        tones = [steps[i] for i in range(0, len(steps), 2) if steps[i]]
        span = "%d Hz" % tones[0] if min(tones) == max(tones) else "%d-%d Hz" % (min(tones),
                                                                                 max(tones))
        rows.append(("`%s`" % name, ", ".join(notes), span))
    return table(("pattern", "steps", "range"), rows)


# -- the power budget at the battery's voltage ---------------------------------------------------------
PICO_MW = 22 * 5.0         # estimate: 22 mA at 5 V on USB (the loop at 125 MHz), to be measured
PICO_MW_MAX = 25 * 5.0
RAIL_EFF = 0.85            # the Pico's buck-boost (RT6150), estimate
CELL_MAH, DERATE = 800, 0.80   # 603040; derated for the cut-off, ageing and cold
# (load, mA while on, on-fraction of an hour of play), at 3.3 V unless marked VSYS
LOADS = (("OLED bright (brightness 3)", 12.0, 0.30), ("OLED dimmed", 5.0, 0.10),
         ("OLED asleep", 0.01, 0.60), ("RGB LED, one card colour", 5.0, 0.0333))
BUZZER_MA, BUZZER_ON = 30.0, 0.002      # from VSYS: magnetic, worst case; a piezo a few mA
QUIESCENT_MA = 0.01                     # the charger module's protection (DW01A + FS8205A)


def rail_factor(vsys):
    """Battery mA for each mA drawn from the 3.3 V rail, VSYS at `vsys` volts."""
    return 3.3 / (RAIL_EFF * vsys)


def budget(vsys, pico_mw=PICO_MW, loads=LOADS, buzzer_on=BUZZER_ON):
    """-> ([(load, its hour's average, battery mA)], total battery mA) at VSYS `vsys`."""
    k = rail_factor(vsys)
    rows = [("Pico (%.0f mW)" % pico_mw, "%.0f mW / %.2f V" % (pico_mw, vsys), pico_mw / vsys)]
    rows += [(name, "%g mA x %g" % (ma, on), ma * on * k) for name, ma, on in loads]
    rows += [("buzzer (from VSYS)", "%g mA x %g" % (BUZZER_MA, buzzer_on), BUZZER_MA * buzzer_on),
             ("protection, quiescent", "", QUIESCENT_MA)]
    return rows, sum(r[2] for r in rows)


def hours(ma):
    return CELL_MAH * DERATE / ma


def power(cfg):
    vsys = 3.50
    rows, total = budget(vsys)
    idle = budget(vsys, loads=(("OLED asleep", 0.01, 1.0),), buzzer_on=0)[1]
    worst_v = cfg.BATTERY_EMPTY_V
    worst = budget(worst_v, PICO_MW_MAX, (("OLED all white, contrast 255", 20.0, 1.0),
                                          ("LED yellow or purple, always", 6.2, 1.0)), 0.02)[1]
    return "\n".join([
        table(("load", "average over an hour of play", "battery mA at VSYS %.2f V" % vsys),
              [(n, a, "%.2f" % ma) for n, a, ma in rows] + [("**total**", "", "**%.1f**"
                                                             % total)]), "",
        "Each 3.3 V milliamp costs 3.3 / (%.2f x %.2f) = %.2f mA from the battery at VSYS "
        "%.2f V (%.2f at the empty point, %.2f V)." % (RAIL_EFF, vsys, rail_factor(vsys), vsys,
                                                        rail_factor(worst_v), worst_v), "",
        table(("case", "battery mA", "hours on %d mAh x %.2f = %d mAh" % (
            CELL_MAH, DERATE, CELL_MAH * DERATE)), [
            ("an hour of play (above)", "%.1f" % total, "**%.1f h**" % hours(total)),
            ("on and left alone (display asleep)", "%.1f" % idle, "%.1f h" % hours(idle)),
            ("worst case: Pico %.0f mW, display all white, LED always lit, buzzer 2 %%, at "
             "VSYS %.2f V" % (PICO_MW_MAX, worst_v), "%.1f" % worst, "%.1f h" % hours(worst))]),
    ])


def blocks(cfg):
    """{marker name: generated text} for hardware/README.md."""
    return {"config-figures": figures(cfg), "buzzer-tones": sounds(cfg),
            "power-budget": power(cfg)}
