"""A stand-in for MicroPython's `machine` on the RP2040, for the simulator and the VM tests.

The firmware imports it as `machine` and cannot tell. Everything the simulated hardware
does is kept in one object, `machine.SIM`, which the simulator and tests read and drive:

  buttons   SIM.press(pin) / SIM.release(pin) / SIM.set_level(pin, level); a pin is a GP
            number or a button name from config.BUTTON_PINS ("DRAW"). Inputs with a pull-up
            read 1 until pressed.
  OLED      the SSD1306 at 0x3C decodes the command and data stream into SIM.oled, the
            display RAM (1,024 bytes MONO_VLSB, page-major, as framebuf lays it out), with
            column/page addressing in horizontal, vertical and page mode. Also SIM.oled_on,
            SIM.contrast, SIM.inverted, SIM.entire_on, SIM.charge_pump, SIM.seg_remap,
            SIM.com_reversed. SIM.screen() is what a person sees (blank when off, inverted,
            mirrored as the module is mounted); SIM.pixel(x, y) one pixel of it;
            SIM.text_art() the screen as text.
            Counters: SIM.i2c_data_bytes (display RAM bytes, running total),
            SIM.frame_data_bytes (since the last SIM.end_frame(), which returns it and
            starts the next frame), SIM.i2c_command_bytes, SIM.i2c_writes (transactions).
            Anything the decoder cannot place goes into SIM.i2c_errors (tests assert it is
            empty). SIM.i2c_fail = n makes the next n writes raise OSError(EIO).
  PWM       SIM.pwm[pin] is the PWM object on a pin (.freq(), .duty_u16(), .inverted,
            .running, .high() = the fraction of time the pin is high). Pins on one slice
            share a frequency, as on the RP2040.
            SIM.led_rgb() -> (r, g, b) 0-255, the light the LED gives as config.LED_KIND
            wires it (PWM levels, or the NeoPixel); SIM.tone -> the buzzer's frequency in
            Hz while it sounds, else 0.
  ADC       SIM.adc_raw[channel] is what read_u16() returns; SIM.set_vsys(volts) sets
            channel 3 (VSYS / 3). 4.0 V to start with.
  WDT       SIM.wdt_timeout (None until started), SIM.wdt_fed (tick of the last feed),
            SIM.wdt_feeds, SIM.wdt_expired(now_ms=None).
  reset     machine.reset() counts in SIM.resets (kept across SIM.reset()) and returns.
  clock     SIM.clock() gives the ticks the WDT records; a simulator running virtual
            time replaces it (SIM.clock = lambda: my_now).

SIM.reset() puts all of it back to power-on. The I2C bus and the SSD1306's decoder are
simoled.py's Oled, SIM's base class.
"""
import time

from simoled import EIO as _EIO, Oled as _Oled

IDLE = 0
PWRON_RESET = 1
WDT_RESET = 3

_FREQ = 125_000_000

# RP2040 I2C pins: id -> (SDA pins, SCL pins)
_I2C_PINS = {0: ((0, 4, 8, 12, 16, 20, 24, 28), (1, 5, 9, 13, 17, 21, 25, 29)),
             1: ((2, 6, 10, 14, 18, 22, 26), (3, 7, 11, 15, 19, 23, 27))}


def _config():
    from carddraw import config
    return config


def _pin_id(p):
    return p.id if isinstance(p, Pin) else p


class _Sim(_Oled):
    """The simulated hardware's whole state; the module's one instance is SIM."""

    def __init__(self):
        self.clock = time.ticks_ms
        # machine.unique_id(): the board's flash chip id, the same across resets; a test or a
        # simulated event gives each simulated device its own (8 bytes, as on the RP2040)
        self.uid = b"\xe6\x60\x58\x38\x83\x4a\x7b\x2c"
        self.resets = 0         # machine.reset() calls, kept across SIM.reset()
        self.sleeps = 0         # machine.deepsleep() calls (an empty battery)
        self.reset()

    def reset(self):
        self.levels = {}        # pin -> level driven from outside (a button)
        self.outputs = {}       # pin -> level the firmware drives
        self.modes = {}         # pin -> (mode, pull)
        self.irqs = {}          # pin -> (handler, trigger)
        self.pwm = {}           # pin -> PWM
        self.slice_freq = {}    # PWM slice -> Hz
        self.np = {}            # pin -> [(r, g, b), ...] last written to a NeoPixel strip
        self.np_writes = 0
        self.adc_raw = {0: 0, 1: 0, 2: 0, 3: 0, 4: 14000}
        self.set_vsys(4.0)
        self.i2c_freq = 0
        self.reset_bus()
        self.wdt_timeout = None
        self.wdt_fed = None
        self.wdt_feeds = 0
        self.reset_cause = PWRON_RESET

    # -- buttons and pins ------------------------------------------------------------------
    def _resolve(self, pin):
        if isinstance(pin, str):
            return _config().BUTTON_PINS.get(pin, pin)
        return _pin_id(pin)

    def set_level(self, pin, level):
        pin = self._resolve(pin)
        old = self.level(pin)
        self.levels[pin] = 1 if level else 0
        new = self.levels[pin]
        irq = self.irqs.get(pin)
        if irq and old != new and irq[1] & (Pin.IRQ_RISING if new else Pin.IRQ_FALLING):
            irq[0](Pin(pin))

    def press(self, pin):
        self.set_level(pin, 0)

    def release(self, pin):
        self.set_level(pin, 1)

    def level(self, pin):
        pin = self._resolve(pin)
        mode, pull = self.modes.get(pin, (Pin.IN, None))
        if mode == Pin.OUT:
            return self.outputs.get(pin, 0)
        if pin in self.levels:
            return self.levels[pin]
        return 1 if pull == Pin.PULL_UP else 0

    # -- ADC, WDT ----------------------------------------------------------------------------
    def set_vsys(self, volts):
        self.adc_raw[3] = max(0, min(65535, int(volts / 3 / 3.3 * 65535 + 0.5)))

    def wdt_expired(self, now_ms=None):
        if self.wdt_timeout is None:
            return False
        if now_ms is None:
            now_ms = self.clock()
        return time.ticks_diff(now_ms, self.wdt_fed) > self.wdt_timeout

    # -- LED and buzzer as a person sees and hears them ---------------------------------------
    def _high(self, pin):
        p = self.pwm.get(pin)
        if p is not None:
            return p.high()
        if self.modes.get(pin, (None, None))[0] == Pin.OUT:
            return float(self.outputs.get(pin, 0))
        return None   # floating: no current either way

    def led_rgb(self):
        cfg = _config()
        if cfg.LED_KIND == "neopixel":
            px = self.np.get(cfg.NEOPIXEL_PIN)
            return tuple(px[0][:3]) if px else (0, 0, 0)
        out = []
        for c in ("red", "green", "blue"):
            h = self._high(cfg.LED_PINS[c])
            if h is None:
                lit = 0.0
            elif cfg.LED_KIND == "rgb_anode":
                lit = 1.0 - h    # common anode: lit while the pin is low
            else:
                lit = h
            out.append(int(lit * 255 + 0.5))
        return tuple(out)

    @property
    def tone(self):
        p = self.pwm.get(_config().BUZZER_PIN)
        if p is None or not p.running or p.freq() == 0:
            return 0
        h = p.high()
        return p.freq() if 0 < h < 1 else 0


SIM = _Sim()


# -- The machine API --------------------------------------------------------------------------
def freq(hz=None):
    global _FREQ
    if hz is None:
        return _FREQ
    _FREQ = hz


def reset():
    """The simulated board does not restart by itself: the reset is counted (SIM.resets) and
    reset_cause() says so, then the call returns and the firmware carries on; a test or the
    simulator plays the power-on that follows (SIM.reset(), a new app on the same flash)."""
    SIM.reset_cause = WDT_RESET   # as on the RP2040, where machine.reset() uses the watchdog
    SIM.resets += 1


def soft_reset():
    raise SystemExit("machine.soft_reset()")


def reset_cause():
    return SIM.reset_cause


def unique_id():
    return bytes(SIM.uid)


def idle():
    pass


def lightsleep(ms=None):
    if ms:
        time.sleep_ms(ms)


def deepsleep(ms=None):
    """The board asleep (the firmware's empty battery): counted (SIM.sleeps); the call returns
    here, as the board would once the switch or a charger woke it."""
    SIM.sleeps += 1


def disable_irq():
    return 0


def enable_irq(state=0):
    pass


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, *, value=None, drive=None, alt=None):
        self.id = _pin_id(id)
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, *, value=None, drive=None, alt=None):
        old_mode, old_pull = SIM.modes.get(self.id, (Pin.IN, None))
        SIM.modes[self.id] = (old_mode if mode == -1 else mode,
                              old_pull if pull == -1 else pull)
        if value is not None:
            SIM.outputs[self.id] = 1 if value else 0

    def value(self, x=None):
        if x is None:
            return SIM.level(self.id)
        SIM.outputs[self.id] = 1 if x else 0

    def __call__(self, x=None):
        return self.value(x)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    high = on
    low = off

    def toggle(self):
        self.value(0 if SIM.outputs.get(self.id, 0) else 1)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        SIM.irqs[self.id] = (handler, trigger)

    def __repr__(self):
        return "Pin(%r)" % (self.id,)


class PWM:
    def __init__(self, dest, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
        self.pin = _pin_id(dest)
        self.slice = (self.pin >> 1) & 7 if isinstance(self.pin, int) else self.pin
        self._duty = 0
        self.inverted = False
        self.running = True
        SIM.pwm[self.pin] = self
        self.init(freq=freq, duty_u16=duty_u16, duty_ns=duty_ns, invert=invert)

    def init(self, *, freq=None, duty_u16=None, duty_ns=None, invert=None):
        if freq is not None:
            self.freq(freq)
        if duty_u16 is not None:
            self.duty_u16(duty_u16)
        if duty_ns is not None:
            f = self.freq()
            self.duty_u16(duty_ns * f * 65535 // 1_000_000_000 if f else 0)
        if invert is not None:
            self.inverted = bool(invert)
        self.running = True

    def freq(self, hz=None):
        if hz is None:
            return SIM.slice_freq.get(self.slice, 0)
        if not 8 <= hz <= 62_500_000:
            raise ValueError("freq out of range")
        SIM.slice_freq[self.slice] = hz   # shared by both channels of the slice

    def duty_u16(self, value=None):
        if value is None:
            return self._duty
        if not 0 <= value <= 65535:
            raise ValueError("duty_u16 must be 0-65535")
        self._duty = value

    def deinit(self):
        self.running = False

    def high(self):
        """The fraction of the time the pin is high."""
        if not self.running:
            return 0.0
        h = self._duty / 65535
        return 1.0 - h if self.inverted else h


class ADC:
    CORE_TEMP = 4

    def __init__(self, id, *, sample_ns=None, atten=None):
        ch = _pin_id(id)
        if isinstance(ch, int) and 26 <= ch <= 29:
            ch -= 26
        if not (isinstance(ch, int) and 0 <= ch <= 4):
            raise ValueError("invalid channel")
        self.channel = ch

    def read_u16(self):
        return SIM.adc_raw.get(self.channel, 0)


class I2C:
    def __init__(self, id=0, *, scl=None, sda=None, freq=400_000, timeout=50_000):
        if id not in _I2C_PINS:
            raise ValueError("I2C(%r) doesn't exist" % (id,))
        sdas, scls = _I2C_PINS[id]
        if sda is not None and _pin_id(sda) not in sdas:
            raise ValueError("bad SDA pin")
        if scl is not None and _pin_id(scl) not in scls:
            raise ValueError("bad SCL pin")
        self.id = id
        self.freq = freq
        SIM.i2c_freq = freq

    def scan(self):
        return sorted(SIM.i2c_devices)

    def writeto(self, addr, buf, stop=True):
        SIM._i2c_write(addr, (buf,))
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        SIM._i2c_write(addr, vector)
        return sum(len(v) for v in vector)

    def readfrom(self, addr, nbytes, stop=True):
        if addr not in SIM.i2c_devices:
            raise OSError(_EIO)
        return bytes(nbytes)

    def readfrom_into(self, addr, buf, stop=True):
        buf[:] = self.readfrom(addr, len(buf))


class WDT:
    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= 8388:
            raise ValueError("timeout exceeds 8388")
        SIM.wdt_timeout = timeout
        SIM.wdt_fed = SIM.clock()

    def feed(self):
        SIM.wdt_fed = SIM.clock()
        SIM.wdt_feeds += 1
