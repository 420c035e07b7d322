#!/usr/bin/env python3
"""The device's schematic, drawn from the pin map in firmware/carddraw/config.py (schemdraw).

    python tools/schematic.py               write hardware/schematic/schematic.svg and .png
    python tools/schematic.py --check       exit 1, saying "run make schematic", when the
                                            committed files are not what config.py gives now
    python tools/schematic.py --out DIR     write into DIR instead

The Pico is drawn with the pins the device uses, each by its name and physical number, and a
net label at each: a label of the same name elsewhere on the sheet is the same wire. The parts'
values come from tools/pins.py (the LED resistors, the base resistor), as in the wiring table.
The folder written into must be new, empty, one the tools wrote before (its .carddraw-files
lists what they wrote) or hardware/schematic/ itself; a folder holding anything else, or a
file of the same name that the tools did not write, is refused (exit status 2).
"""
import os
import sys

from common import ROOT, cli, output
import pins

TOOL = "tools/schematic.py"
OUT = os.path.join(ROOT, "hardware", "schematic")
FILES = ("schematic.svg", "schematic.png")
R_PROG = "3.3 kΩ"        # the charger module's PROG resistor: 1200 V / 3.3 kΩ = 364 mA
R_PROG_MA = 1200 / 3.3   # TP4056: I_BAT = 1200 V / R_PROG
NET = {"OLED SDA": "SDA", "OLED SCL": "SCL", "LED red": "LED_R", "LED green": "LED_G",
       "LED blue": "LED_B", "NeoPixel DIN": "NEOPIXEL", "buzzer": "BUZZER"}
# Parts and their designators, the same in the BOM (hardware/README.md)
BUTTON_REF = {i: "SW%d" % (i + 1) for i in range(8)}
RESET_REF, POWER_REF = "SW5", "SW6"


def net_of(signal):
    """A config signal's net label: "button RANK" -> "RANK", "OLED SDA" -> "SDA"."""
    return signal.split(" ", 1)[1] if signal.startswith("button ") else NET[signal]


def pico_pins(cfg):
    """[(physical pin, pin name, net)] the schematic draws on the Pico, in pin order: the
    config's signals, the grounds tools/pins.py wires to, RUN (the reset button), 3V3(OUT),
    VSYS and VBUS. net "GND" is a ground symbol."""
    used = {pins.physical(gpio): ("GP%d" % gpio, net_of(name))
            for name, gpio in pins.signals(cfg)}
    for wire in pins.wires(cfg):
        if wire.pin and pins.PICO_PINS[wire.pin - 1] == "GND":
            used[wire.pin] = ("GND", "GND")
    used.update({pins.physical("RUN"): ("RUN", "RUN"), pins.physical("3V3(OUT)"):
                 ("3V3(OUT)", "+3V3"), pins.physical("VSYS"): ("VSYS", "VSYS"),
                 pins.physical("VBUS"): ("VBUS", "VBUS")})
    return [(n,) + used[n] for n in sorted(used)]


def pico_name(cfg):
    return "Raspberry Pi Pico W" if getattr(cfg, "PICO_W", False) else "Raspberry Pi Pico"


# -- the drawing ---------------------------------------------------------------------------------
def draw(cfg, backend):
    """The schematic as a schemdraw Drawing on `backend` ("svg" or "matplotlib")."""
    import schemdraw
    import schemdraw.elements as elm
    schemdraw.use(backend)
    schemdraw.svgconfig.text = "text"           # labels as <text>: searchable, testable
    d = schemdraw.Drawing(show=False)
    d.config(fontsize=11, unit=2.2, lw=1.4)
    _pico(d, elm, cfg)
    _oled(d, elm, cfg, (-19, 4))
    _buttons(d, elm, cfg, (-15, -4))
    (_neopixel if cfg.LED_KIND == "neopixel" else _rgb)(d, elm, cfg, (13, 12))
    _buzzer(d, elm, (14, -1))
    _power(d, elm, (-17, -17))
    _inside_pico(d, elm, cfg, (12, -15))
    d.add(elm.Label().at((-17, -26)).label(
        "Card Draw device: schematic (LED_KIND = %r, PICO_W = %s). Generated from "
        "firmware/carddraw/config.py by tools/schematic.py: do not edit. Labels of one name "
        "are one net; pin numbers are the Pico's physical pins." % (
            cfg.LED_KIND, getattr(cfg, "PICO_W", False)), halign="left", fontsize=10))
    return d


def _label(elm, net):
    """A net label (schemdraw's Tag) as wide as its text."""
    return elm.Tag(width=0.9 + 0.2 * len(net)).label(net)


def _pico(d, elm, cfg):
    rows = pico_pins(cfg)
    left = [elm.IcPin(name=name, pin=str(n), side="left", anchorname="P%d" % n)
            for n, name, _ in reversed([r for r in rows if r[0] <= 20])]
    right = [elm.IcPin(name=name, pin=str(n), side="right", anchorname="P%d" % n)
             for n, name, _ in [r for r in rows if r[0] > 20]]
    ic = d.add(elm.Ic(pins=left + right, pinspacing=1.1, edgepadH=0.8, edgepadW=3.5,
                      label="U1\n%s\n(top view)" % pico_name(cfg)).theta(0))
    for n, _name, net in rows:
        at, left = getattr(ic, "P%d" % n), n <= 20
        d.add(elm.Line().at(at).length(1.2).theta(180 if left else 0))
        if net == "GND":
            d.add(elm.Ground().theta(0))
        else:
            d.add(_label(elm, net).left() if left else _label(elm, net).right())


def _oled(d, elm, cfg, xy):
    ic = d.add(elm.Ic(pins=[elm.IcPin(name=p, side="right", anchorname=p)
                            for p in ("SDA", "SCL", "VCC", "GND")],
                      pinspacing=1.0, edgepadW=4.5, label="U2 OLED 0.96 in\nSSD1306 128x64\n"
                      "I2C%d, address 0x%02X" % (cfg.I2C_ID, cfg.OLED_ADDR)).at(xy).theta(0))
    for pin, net in (("SDA", "SDA"), ("SCL", "SCL"), ("VCC", "+3V3"), ("GND", "GND")):
        d.add(elm.Line().at(getattr(ic, pin)).right(1.2))
        d.add(elm.Ground().theta(0) if net == "GND" else _label(elm, net).right())


def _buttons(d, elm, cfg, xy):
    x, y = xy
    for i, (name, net, ref) in enumerate([(b, b, BUTTON_REF[i]) for i, b in
                                          enumerate(cfg.BUTTONS)] + [("RESET", "RUN", RESET_REF)]):
        at = (x + 4 * i, y)
        d.add(_label(elm, net).at(at).left())
        d.add(elm.Button().at(at).down().label("%s\n%s" % (ref, name), loc="bottom"))
        d.add(elm.Ground().theta(0))
    d.add(elm.Label().at((x - 1, y - 5.4)).label(
        "SW1-SW4: 12 x 12 mm tactile buttons (internal pull-ups; pressed reads 0).\n"
        "SW5 RESET: 6 x 6 mm tactile, RUN to GND (hold BOOTSEL and press it: USB drive mode).",
        halign="left", fontsize=9))


def _rgb(d, elm, cfg, xy):
    x, y = xy
    anode = cfg.LED_KIND == "rgb_anode"
    for i, colour in enumerate(pins.RGB):
        at = (x, y - 2.2 * i)
        d.add(_label(elm, "LED_" + colour[0].upper()).at(at).left())
        d.add(elm.Resistor().at(at).right().label("R%d\n%s" % (i + 1, pins.ohms(
            pins.LED_RESISTORS[colour])), loc="top"))
        led = elm.LED().right().label(colour[0].upper(), loc="bottom")
        d.add(led.reverse() if anode else led)
        d.add(elm.Line().right(0.8))
        if i:
            d.add(elm.Line().up(2.2))
    d.add(elm.Line().at((x + 2 * 2.2 + 0.8, y - 4.4)).down(0.8))
    d.add(elm.Vdd().theta(0).label("+3V3") if anode else elm.Ground().theta(0))
    d.add(elm.Label().at((x, y + 1.8)).label(
        "D1 RGB LED 5 mm, common %s" % ("anode (PWM inverted)" if anode else "cathode"),
        halign="left", fontsize=10))


def _neopixel(d, elm, cfg, xy):
    ic = d.add(elm.Ic(pins=[elm.IcPin(name=p, side="left", anchorname=p)
                            for p in ("GND", "VDD", "DIN")], pinspacing=1.0, edgepadW=2,
                      label="D1 WS2812").at(xy).theta(0))
    d.add(elm.Resistor().at(ic.DIN).left().label("R1\n330 Ω"))
    d.add(_label(elm, "NEOPIXEL").left())
    d.add(elm.Line().at(ic.VDD).left(1))
    d.add(elm.Vdd().theta(0).label("VSYS"))
    d.add(elm.Line().at(ic.GND).left(1))
    d.add(elm.Ground().theta(0))


def _buzzer(d, elm, xy):
    x, y = xy
    d.add(_label(elm, "BUZZER").at((x, y)).left())
    d.add(elm.Resistor().at((x, y)).right().label("R4\n%s" % pins.ohms(pins.BASE_RESISTOR)))
    q = d.add(elm.BjtNpn(circle=True).theta(0).anchor("base").label("Q1\n2N2222A\nor BC337",
                                                                  loc="right"))
    d.add(elm.Ground().theta(0).at(q.emitter))
    d.add(elm.Line().at(q.collector).up(0.6))
    bottom = d.here
    d.add(elm.Crystal().up().label("BZ1\nbuzzer", loc="bottom"))
    top = d.here
    d.add(elm.Line().at(bottom).right(2.2))
    d.add(elm.Diode().up().label("D2\n1N4148", loc="bottom"))
    d.add(elm.Line().left(2.2))
    d.add(elm.Line().at(top).up(0.6))
    d.add(elm.Vdd().theta(0).label("VSYS"))
    d.add(elm.Label().at((x - 1.5, y - 4.6)).label(
        "BZ1 passive: piezo (TDK PS1240, ~4 kHz) or magnetic (~2.7 kHz).\n"
        "D2 for a magnetic buzzer; for a piezo fit a 1 kΩ resistor (R5) there instead.",
        halign="left", fontsize=9))


def _power(d, elm, xy):
    x, y = xy
    ic = d.add(elm.Ic(pins=[elm.IcPin(name="IN-", side="left", anchorname="INm"),
                            elm.IcPin(name="IN+", side="left", anchorname="INp"),
                            elm.IcPin(name="OUT-", side="right", anchorname="OUTm"),
                            elm.IcPin(name="OUT+", side="right", anchorname="OUTp"),
                            elm.IcPin(name="B-", side="bottom", anchorname="Bm"),
                            elm.IcPin(name="B+", side="bottom", anchorname="Bp")],
                      pinspacing=1.4, edgepadW=2.5, edgepadH=1,
                      label="U3 TP4056 charger\nwith DW01A protection\nR_PROG %s (%.0f mA)"
                      % (R_PROG, R_PROG_MA)).at((x + 4, y)).theta(0))
    d.add(elm.Line().at(ic.INp).left(1.5).label("J1 USB-C\n(on U3) 5 V", loc="left"))
    d.add(elm.Line().at(ic.INm).left(1.5))
    d.add(elm.Ground().theta(0))
    d.add(elm.Line().at(ic.Bp).down(1))
    bplus = d.here
    d.add(elm.Line().at(ic.Bm).down(1))
    d.add(elm.Battery().endpoints(d.here, bplus).label("BT1 LiPo 3.7 V, + to B+\n603040, 800 mAh",
                                                        loc="bottom", ofst=0.6))
    d.add(elm.Line().at(ic.OUTm).right(1.2))
    d.add(elm.Ground().theta(0))
    d.add(elm.Line().at(ic.OUTp).right(0.6))
    d.add(elm.Switch().right().label("%s\nON/OFF" % POWER_REF))
    d.add(elm.Schottky().right().label("D3\n1N5817"))
    d.add(elm.Line().right(0.6))
    d.add(elm.Vdd().theta(0).label("VSYS"))


def _inside_pico(d, elm, cfg, xy):
    x, y = xy
    d.add(_label(elm, "VBUS").at((x, y)).left())
    d.add(elm.Schottky().at((x, y)).right().label("the Pico's\nSchottky"))
    d.add(elm.Line().right(0.6))
    node = d.here
    d.add(elm.Vdd().theta(0).label("VSYS"))
    d.add(elm.Resistor().at(node).down().label("200 kΩ", loc="bottom"))
    mid = d.here
    d.add(elm.Resistor().down().label("100 kΩ", loc="bottom"))
    d.add(elm.Ground().theta(0))
    d.add(elm.Line().at(mid).right(1.5))
    d.add(elm.Dot(open=True).label("GPIO%d = ADC%d\nreads VSYS / 3" % (
        cfg.BATTERY_ADC, cfg.BATTERY_ADC - 26), loc="right"))
    d.add(elm.Label().at((x - 1.5, y + 2.2)).label(
        "Inside the Pico: nothing to fit." + (" Pico W: GP25 high while reading (PICO_W)."
                                              if getattr(cfg, "PICO_W", False) else ""),
        halign="left", fontsize=10))
    d.add(elm.Label().at((x - 1.5, y - 6.6)).label(
        "VBUS (USB) and the battery (D3) feed VSYS through one Schottky each:\n"
        "whichever is higher powers the Pico, and neither feeds the other.",
        halign="left", fontsize=9))


# -- the files -----------------------------------------------------------------------------------
def render(cfg=None, formats=("svg", "png")):
    """{file name: bytes} for config (config.py if None): the SVG from schemdraw's own SVG
    writer (text kept as text), the PNG through matplotlib, carrying the SVG's SHA-256 in its
    "Source" text (check() compares that, not the pixels, which a font build may move)."""
    import hashlib
    import io
    cfg = pins.snapshot(cfg)
    svg = draw(cfg, "svg").get_imagedata("svg")
    svg = svg if isinstance(svg, bytes) else svg.encode("utf-8")
    out = {"schematic.svg": svg} if "svg" in formats else {}
    if "png" in formats:
        fig = draw(cfg, "matplotlib").draw(show=False)
        buf = io.BytesIO()
        fig.getfig().savefig(buf, format="png", bbox_inches="tight", pad_inches=0,
                             bbox_extra_artists=fig.ax.get_default_bbox_extra_artists(),
                             metadata={"Software": "carddraw %s" % TOOL,
                                       "Source": SOURCE + hashlib.sha256(svg).hexdigest()})
        out["schematic.png"] = buf.getvalue()
    return out


SOURCE = "drawn as schematic.svg with sha256 "


def png_source(data):
    """The "Source" text of a PNG the tool drew, or None."""
    import io

    from PIL import Image
    try:
        return Image.open(io.BytesIO(data)).info.get("Source")
    except OSError:
        return None


def write(out, files):
    """Write the files into `out`: new, empty, the tools' own (its .carddraw-files lists
    them) or the checkout's hardware/schematic/ (git holds them). Raises output.NotOurs."""
    output.claim(out, list(files), TOOL)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


def check(out, files):
    """Names of the files in `out` that differ from `files` (or are missing): the SVG byte
    for byte, the PNG by the SVG it says it was drawn as."""
    stale = []
    for name, data in files.items():
        try:
            with open(os.path.join(out, name), "rb") as f:
                have = f.read()
        except FileNotFoundError:
            have = None
        same = (png_source(have) == png_source(data) is not None if name.endswith(".png")
                and have else have == data)
        if not same:
            stale.append(name)
    return stale


def main(argv=None):
    p = cli.parser("schematic", __doc__)
    p.add_argument("--check", action="store_true",
                   help="compare with the files in the folder; write nothing")
    p.add_argument("--out", metavar="DIR", default=OUT,
                   help="the folder to write into (default: hardware/schematic)")
    args = p.parse_args(argv)
    problems = pins.problems(pins.snapshot())
    if problems:
        sys.stderr.write("config.py's pin map cannot work on a Pico: %s\n" % problems[0])
        return 1
    files = render()
    if args.check:
        stale = check(args.out, files)
        if stale:
            sys.stderr.write("%s: %s not what config.py gives now: run make schematic\n" % (
                os.path.relpath(args.out, ROOT), ", ".join(stale) + (" is" if len(stale) == 1
                                                                       else " are")))
            return 1
        print("%s matches config.py" % os.path.relpath(args.out, ROOT))
        return 0
    try:
        write(args.out, files)
    except output.NotOurs as e:
        p.error(str(e))
    print("wrote " + ", ".join(os.path.join(os.path.relpath(args.out, ROOT), n) for n in files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
