"""What the hardware tools share: the Raspberry Pi Pico's 40-pin header and which I2C block,
PWM slice and ADC channel each GPIO has, and the values of the parts this design uses (worked
out in hardware/README.md). Plain Python, no dependencies; tools/pins.py, tools/maker/drawing.py and
tools/schematic.py read it.
"""

# -- The Raspberry Pi Pico -------------------------------------------------------------------
# Physical pin n (1-40) is PICO_PINS[n - 1]. Seen from above, USB socket at the top: pins 1-20
# run down the left edge (pin 1 = GP0, top left), 21-40 up the right edge (pin 40 = VBUS, top
# right). Pin 33 is AGND, the ground return of the ADC pins; it is a ground like the others.
PICO_PINS = (
    "GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7",               # 1-10
    "GP8", "GP9", "GND", "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15",         # 11-20
    "GP16", "GP17", "GND", "GP18", "GP19", "GP20", "GP21", "GND", "GP22", "RUN",        # 21-30
    "GP26", "GP27", "GND", "GP28", "ADC_VREF", "3V3(OUT)", "3V3_EN", "GND", "VSYS", "VBUS",  # 31-40
)
GND_PINS = tuple(n for n in range(1, 41) if PICO_PINS[n - 1] == "GND")  # 3 8 13 18 23 28 33 38
AGND_PIN = 33
HEADER_GPIOS = tuple(int(p[2:]) for p in PICO_PINS if p.startswith("GP"))  # GP0-22, GP26-28
# GPIO23-25 and 29 are used on the board itself: 23 the regulator's power-save (or the W's radio
# power), 24 VBUS sense, 25 the LED (or the W's radio select), 29 VSYS/3 for the ADC.
VSYS_SENSE_GPIO = 29
ADC_GPIOS = (26, 27, 28, 29)   # ADC channels 0-3; channel 3 is VSYS/3 on the Pico


def physical(name):
    """The physical pin number (1-40) of a GPIO or a Pico pin name: 10 or "GP10" -> 14."""
    if name == "GND":
        raise ValueError("GND is on pins %s: name one" % (GND_PINS,))
    return PICO_PINS.index("GP%d" % name if isinstance(name, int) else name) + 1


def pwm_of(gpio):
    """(slice, channel) of the RP2040's PWM that drives a GPIO: GP16 -> (0, "A")."""
    return (gpio >> 1) & 7, "AB"[gpio & 1]


def i2c_of(gpio):
    """(I2C block, role) a GPIO can take (RP2040 function table): GP8 -> (0, "SDA")."""
    return (gpio >> 1) & 1, ("SDA", "SCL")[gpio & 1]


def wokwi_pin(n):
    """Physical pin -> its name on Wokwi's Pico: grounds GND.1-GND.8 in pin order, "3V3"."""
    name = "GND.%d" % (GND_PINS.index(n) + 1) if n in GND_PINS else PICO_PINS[n - 1]
    return "pico:" + ("3V3" if name == "3V3(OUT)" else name)


# -- Parts this design uses (values worked out in hardware/README.md) -------------------------
LED_RESISTORS = {"red": 330, "green": 82, "blue": 82}   # ohms, for ~4 mA from a 3.3 V pin
LED_VF = {"red": 2.0, "green": 3.0, "blue": 3.0}         # typical forward volts at a few mA
BASE_RESISTOR = 1000                                      # ohms, GPIO -> NPN base
SUPPLY_V = 3.3
RGB = ("red", "green", "blue")
LED_LINE = {"rgb": "common-cathode RGB LED on three PWM pins",
            "rgb_anode": "common-anode RGB LED on three PWM pins (PWM inverted)",
            "neopixel": "one WS2812 (NeoPixel) on one pin"}     # config.LED_KIND's values

WOKWI_PICO_ENV = "micropython-20241129-v1.24.1"   # a MicroPython image Wokwi offers for the Pico
BUTTON_COLOURS = ("blue", "yellow", "green", "red")

# Wire colours, the same in the drawing and in Wokwi (CSS colour names).
COLOUR = {"GND": "black", "3V3": "red", "VSYS": "orange", "SDA": "blue", "SCL": "gold",
          "button": "green", "buzzer": "purple", "red": "crimson", "green": "limegreen",
          "blue": "dodgerblue", "neopixel": "teal"}
