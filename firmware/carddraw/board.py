"""The device's hardware: buttons, display, LED, buzzer, battery, watchdog, clock.

The only module that imports `machine`, `neopixel` and `time`; everything else gets events,
`now_ms` and drawing surfaces from here. Settings are read from `config` when a Board is
built (not at import), so a test can change config.LED_KIND and build another Board.

Times are `ticks_ms()` values: compare them only with `ticks_diff`, which survives the
counter wrapping round.
"""
from time import ticks_diff, ticks_ms  # ticks_diff(later, earlier): right across the wrap

import machine
from machine import PWM, Pin

from . import config
from .button import Button
from .ssd1306 import SSD1306


# -- Buttons -------------------------------------------------------------------------------
class Buttons:
    """config.BUTTONS on their pins with pull-ups, each read into its Button (button.py:
    debounce and long press)."""
    edge = None  # the ticks of the last edge of any pin since the last poll
    wake = 0  # now_ms when that edge's debounce ends: App.run's next pass comes then

    def __init__(self):
        self.clock = ticks_ms  # the stamps' (stamp_edges)
        self.buttons = buttons = []
        for name in config.BUTTONS:
            buttons.append(Button(name, Pin(config.BUTTON_PINS[name], Pin.IN, Pin.PULL_UP)))

    def poll(self, now_ms, longs=config.BUTTONS):
        """Read every button -> the events, (name, "short" | "long") each: a list, or an empty
        tuple when there are none (every loop pass asks: it allocates nothing then). longs:
        the buttons with a long press on the screen on show (the others act as they go
        down)."""
        edge = self.edge
        if edge is not None:  # in the app's ms: the ticks since, from now_ms (what the pass
            self.edge = None  # did before this poll counts as steady: a ms or two)
            edge = now_ms - ticks_diff(self.clock(), edge)
            self.wake = edge + config.DEBOUNCE_MS
        events = None
        for b in self.buttons:
            level = b.pin.value()
            if level and b.raw == 1 and not b.pressed:
                continue  # up and settled: update() would change nothing (most, most passes)
            event = b.update(level, now_ms, b.name in longs, edge)
            if event:
                if events is None:
                    events = []
                events.append((b.name, event))
        return events or ()

    def stamp_edges(self, clock):
        """The board's loop (App.run): the pins' interrupts stamp their edges (clock() ticks),
        so that a press's debounce counts from the finger, not from the pass that next reads
        the pin, and the loop's next pass comes as it ends (wake). Two pins changing between
        two passes both count from the later edge: a debounce longer, never shorter."""
        self.clock = clock
        for b in self.buttons:
            b.pin.irq(self._stamp)  # on both edges (Pin.irq's default trigger)

    def _stamp(self, pin):  # a pin's interrupt (soft: run between bytecodes)
        self.edge = self.clock()

    def held(self):
        """Names of the buttons down right now, read from the pins (for held-at-power-on)."""
        down = []
        for b in self.buttons:
            if not b.pin.value():
                down.append(b.name)
        return down


# -- LED -----------------------------------------------------------------------------------
class Led:
    """The RGB LED as config.LED_KIND wires it: "rgb", "rgb_anode" or "neopixel"."""
    _np = None  # the NeoPixel, if it is one

    def __init__(self):
        kind = config.LED_KIND
        if kind == "neopixel":
            import neopixel
            self._np = neopixel.NeoPixel(Pin(config.NEOPIXEL_PIN, Pin.OUT), 1)
        elif kind == "rgb" or kind == "rgb_anode":
            # Same frequency on all three: GP16/17 share a PWM slice. A common-anode LED is
            # lit while its pin is low, so its PWM runs inverted and the duty stays "on time".
            self._pwm = pwm = []
            for c in ("red", "green", "blue"):
                pwm.append(PWM(Pin(config.LED_PINS[c]), freq=config.LED_PWM_FREQ, duty_u16=0,
                               invert=kind == "rgb_anode"))
        else:
            raise ValueError("LED_KIND must be rgb, rgb_anode or neopixel, not %r" % (kind,))
        self.colour = ""  # none written yet: the show(None) below writes off
        self.show(None)

    def show(self, colour):
        """A card colour ("green", "yellow", "red", "black" shows purple), "white" (the
        timed warning) or None for off. Cheap to call every loop: the same colour again
        writes nothing. The last call before a drawn card's LED: config's colours as they
        are (0-255 already), no clamping. A colour config.LED_COLOURS lacks: KeyError."""
        if colour == self.colour:
            return
        rgb = (0, 0, 0) if colour is None else config.LED_COLOURS[colour]  # else KeyError
        self.value = rgb  # what the LED shows, (r, g, b) 0-255
        if self._np:  # a NeoPixel, else None
            self._np[0] = rgb
            self._np.write()
        else:
            for i in range(3):
                self._pwm[i].duty_u16(rgb[i] * 257)   # 255 * 257 = 65535
        self.colour = colour


# -- Buzzer --------------------------------------------------------------------------------
class Buzzer:
    """The piezo on a PWM pin. play() starts a pattern and returns; update() moves it on."""
    playing = None    # the steps playing (flat, as config.BUZZER_PATTERNS has them), or None

    def __init__(self):
        self._pwm = PWM(Pin(config.BUZZER_PIN), freq=1000, duty_u16=0)
        self.enabled = config.FLAGS["buzzer"]

    def play(self, name, now_ms):
        """Start the pattern config.BUZZER_PATTERNS names (another name: KeyError); silent
        if not enabled."""
        pattern = config.BUZZER_PATTERNS[name]  # KeyError: no such pattern
        self.stop()
        if self.enabled:
            self.playing = pattern
            self.step = -2     # the index of the step's frequency in the pattern
            self.start = now_ms
            self.end = 0       # ms after start at which the current step ends
            self.update(now_ms)

    def update(self, now_ms):
        """Call often (every loop): starts the next step when one ends, stops at the end."""
        pattern = self.playing
        if not pattern:
            return
        if not self.enabled:
            self.stop()
            return
        # Steps are timed from the pattern's start, not from this call, so a late loop does
        # not stretch the pattern; a very late one skips the steps it missed. (now_ms is the
        # app's count, which never wraps.)
        elapsed = now_ms - self.start
        while elapsed >= self.end:
            step = self.step = self.step + 2
            if step >= len(pattern):
                self.stop()
                return
            hz = pattern[step]
            self.end += pattern[step + 1]
            if hz and elapsed < self.end:
                self._pwm.freq(hz)
                self._pwm.duty_u16(32768)   # a square wave: loudest on a piezo
            else:
                self._pwm.duty_u16(0)

    def stop(self):
        self._pwm.duty_u16(0)
        self.playing = None


# -- Battery -------------------------------------------------------------------------------
class Battery:
    """The LiPo's voltage, read as VSYS / 3 on the ADC, and its charge along a LiPo's
    discharge curve (config.BATTERY_CURVE)."""
    _percent = -1  # the percent shown last (-1: none yet)

    def __init__(self):
        self._adc = machine.ADC(config.BATTERY_ADC)  # its GPIO (26-29): set as an ADC input
        # On a Pico W, GP25 selects the wireless chip, which shares GPIO29: high to read VSYS.
        self._select = Pin(25, Pin.OUT, value=1) if config.PICO_W else None
        # in whole mV, worked out once: a float made in a pass is a heap allocation
        self.empty_mv = round(config.BATTERY_EMPTY_V * 1000)
        self._usb_mv = round(config.BATTERY_USB_V * 1000)

    def millivolts(self):
        """VSYS in mV, calibrated (config.BATTERY_CAL_MV), in small-int arithmetic."""
        if self._select:  # a Pin, else None
            self._select.value(1)
        raw = 0
        for _ in range(8):   # average a few: the ADC is noisy by a count or two
            raw += self._adc.read_u16()
        return (raw >> 3) * 9900 // 65535 + config.BATTERY_CAL_MV   # 3 x 3.3 V full scale

    def on_usb(self, mv):
        return mv > self._usb_mv

    def percent(self, mv):
        """0-100 for a reading of millivolts(), along config.BATTERY_CURVE (100 on USB power).
        A change of one point is ignored (except to 0 or 100), so ADC noise does not make the
        gauge flicker."""
        p = 100 if self.on_usb(mv) else level(mv)
        if p == 0 or p == 100 or abs(p - self._percent) > 1:  # (-1 at first: taken)
            self._percent = p
        return self._percent


def level(mv):
    """Percent for VSYS mv on config.BATTERY_CURVE: straight lines between its points."""
    hi = None  # the point before lo: over mv
    for lo in config.BATTERY_CURVE:
        if mv >= lo[0]:
            if not hi:
                return lo[1]  # at or over the first point: 100
            return lo[1] + (mv - lo[0]) * (hi[1] - lo[1]) // (hi[0] - lo[0])
        hi = lo
    return 0


# -- The board -----------------------------------------------------------------------------
class Board:
    """Everything on the device, built from config."""

    ticks_ms = staticmethod(ticks_ms)
    ticks_diff = staticmethod(ticks_diff)
    wdt = None  # the watchdog, once started (watchdog())

    def __init__(self):
        self.buttons = Buttons()   # first, so buttons held at power-on can be read at once
        # the OLED: a FrameBuffer to draw on, show() sends what changed (ssd1306.py)
        self.display = SSD1306(machine.I2C(config.I2C_ID, sda=Pin(config.I2C_SDA),
                                           scl=Pin(config.I2C_SCL), freq=config.I2C_FREQ),
                               config.OLED_WIDTH, config.OLED_HEIGHT, config.OLED_ADDR)
        self.display.brightness(config.NUMBERS["brightness"][0])
        self.led = Led()
        self.buzzer = Buzzer()
        self.battery = Battery()

    def watchdog(self, timeout):
        """Start the watchdog (it cannot be stopped): feed() it within timeout ms, or reset.
        machine.WDT refuses a timeout over the RP2040's longest, 8,388 ms (ValueError)."""
        self.wdt = machine.WDT(timeout=timeout)
        return self.wdt

    def sleep(self):
        """The cell is empty: the LED, the buzzer and the display off, then the RP2040 asleep
        with no wake-up time (machine.deepsleep) until the switch or a charger resets it."""
        self.led.show(None)
        self.buzzer.stop()
        self.display.sleep(True)
        machine.deepsleep()

    def reset(self):
        """Restart the board as at power-on (the bench protocol's `maint`); never returns."""
        machine.reset()

    def unique_id(self):
        """The RP2040's flash chip id as hex: which board a log came from."""
        return machine.unique_id().hex()
