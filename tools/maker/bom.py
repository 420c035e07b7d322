"""The bill of materials: every part by its designator on the schematic (tools/schematic.py),
with a manufacturer's part number to order by, its size and what to check. tools/pins.py writes
it into hardware/README.md; host_tests/test_hw_docs.py checks that the BOM and the schematic
name the same parts. The part numbers are examples of parts that fit: any part with the same
values and size does.
"""
from maker.pico import BASE_RESISTOR, LED_RESISTORS

# (designator, qty, part, part number (example), size / package, notes)
PARTS = (
    ("U1", 1, "Raspberry Pi Pico (RP2040)", "Raspberry Pi SC0915",
     "51 x 21 mm, no headers", "Pico W SC0918: set `PICO_W` to True; Pico 2 SC1631 and Pico 2 W "
     "SC1633 take the same pins (untested)"),
    ("U2", 1, "OLED 0.96 in, SSD1306, 128 x 64, I2C, 4 pins (GND VCC SCL SDA)",
     "generic \"0.96 inch I2C OLED\" module", "board 27.3 x 27.8 mm, glass 26.7 x 19.3 mm",
     "3.3 V capable; address 0x3C (some are 0x3D: change `OLED_ADDR`); pin order varies: wire "
     "by the labels; measure it against hardware/case/dimensions.py"),
    ("U3", 1, "LiPo charger module, TP4056 with DW01A + FS8205A protection, USB-C",
     "generic \"TP4056 Type-C 1A with protection\" (6 pads: IN+ IN- B+ B- OUT+ OUT-)",
     "28 x 17.5 mm", "the protected version, with OUT+/OUT-; its R_PROG (the resistor at the "
     "TP4056's pin 2, marked 122) replaced: see R_PROG"),
    ("R_PROG", 1, "resistor 3.3 kOhm, 1 %, replaces U3's 1.2 kOhm", "Yageo RC0603FR-073K3L "
     "(0805 boards: RC0805FR-073K3L)", "0603 or 0805, as on the module",
     "charge current 1200 V / 3.3 kOhm = 364 mA, 0.45 C for BT1"),
    ("J1", 0, "USB-C socket", "on U3", "", "the charging socket"),
    ("BT1", 1, "LiPo cell 3.7 V, 800 mAh, with protection board and JST-PH 2.0 lead",
     "LP603040 (generic)", "6.0 x 30 x 40 mm (+ 5 mm for its board)",
     "not a 1000 mAh cell: 603040s are 700-800 mAh; check the lead's polarity against U3's "
     "B+/B- before soldering (the lead is soldered to B+ and B-, no plug on the module)"),
    ("D1", 1, "RGB LED 5 mm, common cathode, diffused", "SparkFun COM-11120 (or any diffused "
     "common-cathode 5 mm)", "5 mm, 4 legs", "the longest leg is the cathode; common anode: "
     "set `LED_KIND` to \"rgb_anode\""),
    ("R1", 1, "resistor %d Ohm, 1/4 W, 1 %%" % LED_RESISTORS["red"],
     "Yageo MFR-25FBF52-330R", "axial, 6 mm", "LED red, about 3.9 mA"),
    ("R2", 1, "resistor %d Ohm, 1/4 W, 1 %%" % LED_RESISTORS["green"],
     "Yageo MFR-25FBF52-82R", "axial, 6 mm", "LED green"),
    ("R3", 1, "resistor %d Ohm, 1/4 W, 1 %%" % LED_RESISTORS["blue"],
     "Yageo MFR-25FBF52-82R", "axial, 6 mm", "LED blue"),
    ("R4", 1, "resistor %g kOhm, 1/4 W, 1 %%" % (BASE_RESISTOR / 1000), "Yageo MFR-25FBF52-1K",
     "axial, 6 mm", "Q1's base"),
    ("R5", 1, "resistor 1 kOhm, 1/4 W (piezo only, instead of D2)", "Yageo MFR-25FBF52-1K",
     "axial, 6 mm", "across a piezo BZ1, so it discharges"),
    ("Q1", 1, "NPN transistor", "onsemi P2N2222AG (or BC337-25: onsemi BC33725TA)", "TO-92",
     "pinouts differ (2N2222A E-B-C, BC337 C-B-E): check the datasheet"),
    ("D2", 1, "diode 1N4148 (magnetic buzzer only, instead of R5)", "Vishay 1N4148-TAP",
     "DO-35", "across a magnetic BZ1, cathode to VSYS"),
    ("D3", 1, "Schottky diode 1 A, 20 V", "Vishay 1N5817-E3/54", "DO-41",
     "battery to VSYS; banded end (cathode) to VSYS"),
    ("BZ1", 1, "passive buzzer, 12 mm: piezo (the tones are set for it)", "TDK PS1240P02BT",
     "12.2 x 6.5 mm", "passive, not self-oscillating; a 12 mm magnetic one rated 3-5 V near "
     "2.7 kHz also works (fit D2)"),
    ("SW1-SW4", 4, "tactile switch 12 x 12 mm, 7.3 mm, for caps", "Omron B3F-4055",
     "12 x 12 x 7.3 mm", "RANK HELP DRAW STOP, left to right"),
    ("", 4, "round caps for SW1-SW4", "Omron B32-10x0 (x: the colour)", "11.5 mm across",
     "four colours help in the dark; measure the cap's height (`CAP_TOP`)"),
    ("SW5", 1, "tactile switch 6 x 6 mm (RESET)", "Omron B3F-1000", "6 x 6 x 4.3 mm",
     "RUN to GND, in the back, pressed with a pen"),
    ("SW6", 1, "slide switch SPDT (power)", "C&K OS102011MA1QN1 (or generic SS12D00G4)",
     "8.6 x 3.6 mm body, 4 mm knob", "in the left wall"),
    ("", 10, "screws M2 x 8 mm, self-tapping, pan head", "e.g. DIN 7981 / ISO 7049 ST2.2 x 9.5 "
     "or 'M2 x 8 self-tapping for plastic'", "", "4 lid, 4 Pico, 2 button holder"),
    ("", 3, "printed parts: case-base.stl, case-lid.stl, case-holder.stl", "hardware/case/print/",
     "80 x 115 x 26 mm closed", "PETG or PLA; see *The case*"),
    ("", 1, "wire 26-28 AWG silicone, heat-shrink 1.5 and 3 mm, double-sided foam tape, clear "
     "hot glue (the charge-light pipe)", "", "", "about 1.5 m of wire in 4 colours"),
)


def rows():
    """The BOM's rows as text cells."""
    return [(ref or "-", qty or "(on U3)", part, number, size, notes)
            for ref, qty, part, number, size, notes in PARTS]


def designators():
    """Every designator the BOM names: SW1-SW4 counts as SW1, SW2, SW3, SW4."""
    out = []
    for ref, *_ in PARTS:
        if "-" in ref:
            first, last = ref.split("-")
            prefix = first.rstrip("0123456789")
            out += ["%s%d" % (prefix, n) for n in range(int(first[len(prefix):]),
                                                       int(last[len(prefix):]) + 1)]
        elif ref:
            out.append(ref)
    return out


def bom():
    from maker.figures import table
    return table(("ref", "qty", "part", "part number (example)", "size / package", "notes"),
                 rows())
