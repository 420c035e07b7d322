"""The Pico's and the RP2040's facts, written out independently of tools/pins.py, and the
Wokwi circuit (hardware/diagram.json) read as nets: what test_hardware.py (the check) and
test_hardware_circuit.py (the circuit and the pin map) compare config.py and pins.py with."""
import os

from conftest import ROOT

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
