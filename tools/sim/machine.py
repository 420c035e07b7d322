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

SIM.reset() puts all of it back to power-on.
"""
import time

IDLE = 0
PWRON_RESET = 1
WDT_RESET = 3

_FREQ = 125_000_000
_OLED_ADDR = 0x3C
_EIO = 5

# SSD1306 command -> number of argument bytes that follow it (datasheet section 9).
_ARGS = {0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xDA: 1, 0xD5: 1,
         0xD9: 1, 0xDB: 1, 0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2}
_NO_ARGS = (0x2E, 0x2F, 0xA0, 0xA1, 0xA4, 0xA5, 0xA6, 0xA7, 0xAE, 0xAF, 0xC0, 0xC8, 0xE3)

# RP2040 I2C pins: id -> (SDA pins, SCL pins)
_I2C_PINS = {0: ((0, 4, 8, 12, 16, 20, 24, 28), (1, 5, 9, 13, 17, 21, 25, 29)),
             1: ((2, 6, 10, 14, 18, 22, 26), (3, 7, 11, 15, 19, 23, 27))}


def _config():
    from carddraw import config
    return config


def _pin_id(p):
    return p.id if isinstance(p, Pin) else p


class _Sim:
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
        self.i2c_devices = [_OLED_ADDR]
        self.i2c_data_bytes = 0
        self.frame_data_bytes = 0
        self.i2c_command_bytes = 0
        self.i2c_writes = 0
        self.i2c_errors = []
        self.i2c_fail = 0
        self.wdt_timeout = None
        self.wdt_fed = None
        self.wdt_feeds = 0
        self.reset_cause = PWRON_RESET
        # The SSD1306 as it comes out of reset (datasheet section 8.9).
        self.oled = bytearray(1024)
        self.oled_on = False
        self.contrast = 0x7F
        self.inverted = False
        self.entire_on = False
        self.charge_pump = False
        self.seg_remap = False
        self.com_reversed = False
        self.start_line = 0
        self.addressing = 2     # 0 horizontal, 1 vertical, 2 page
        self.col_lo, self.col_hi = 0, 127
        self.page_lo, self.page_hi = 0, 7
        self.col = self.page = 0
        self._cmd = None        # a command waiting for its argument bytes
        self._need = 0

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

    # -- the SSD1306 ---------------------------------------------------------------------------
    def end_frame(self):
        """Data bytes since the last call; the next frame starts from 0."""
        n = self.frame_data_bytes
        self.frame_data_bytes = 0
        return n

    def _i2c_write(self, addr, vector):
        # One I2C transaction made of the buffers in `vector`, read in place: copying them
        # would leave garbage that the VM's heap measurements would count.
        if self.i2c_fail > 0:
            self.i2c_fail -= 1
            raise OSError(_EIO)
        if addr not in self.i2c_devices:
            raise OSError(_EIO)   # no ACK, as the RP2040 reports it
        self.i2c_writes += 1
        if addr != _OLED_ADDR:
            return
        state = 0       # 0: a control byte next, 1: one byte then a control byte, 2: all the rest
        is_data = 0
        for buf in vector:
            for b in buf:
                if state == 0:
                    if b & 0x3F:
                        self.i2c_errors.append("control byte 0x%02x" % b)
                        return
                    is_data = b & 0x40
                    state = 1 if b & 0x80 else 2
                    continue
                if state == 1:
                    state = 0
                if is_data:
                    self._ram(b)
                else:
                    self._command_byte(b)
        if state == 1:
            self.i2c_errors.append("a control byte with nothing after it")

    def _ram(self, b):
        if self._cmd is not None:
            self.i2c_errors.append("data while command 0x%02x waits for arguments" % self._cmd[0])
            self._cmd = None
        self.oled[self.page * 128 + self.col] = b
        if self.addressing == 0:
            if self.col >= self.col_hi:
                self.col = self.col_lo
                self.page = self.page_lo if self.page >= self.page_hi else self.page + 1
            else:
                self.col += 1
        elif self.addressing == 1:
            if self.page >= self.page_hi:
                self.page = self.page_lo
                self.col = self.col_lo if self.col >= self.col_hi else self.col + 1
            else:
                self.page += 1
        else:
            self.col = 0 if self.col >= 127 else self.col + 1
        self.i2c_data_bytes += 1
        self.frame_data_bytes += 1

    def _command_byte(self, b):
        self.i2c_command_bytes += 1
        if self._cmd is not None:
            self._cmd.append(b)
            if len(self._cmd) > self._need:
                cmd = self._cmd
                self._cmd = None
                self._execute(cmd)
            return
        if b in _ARGS:
            self._cmd = [b]
            self._need = _ARGS[b]
        elif b < 0x20 or 0x40 <= b < 0x80 or 0xB0 <= b < 0xB8 or b in _NO_ARGS:
            self._execute([b])
        else:
            self.i2c_errors.append("unknown command 0x%02x" % b)

    def _execute(self, cmd):
        c = cmd[0]
        if c == 0x81:
            self.contrast = cmd[1]
        elif c == 0xA4 or c == 0xA5:
            self.entire_on = c == 0xA5
        elif c == 0xA6 or c == 0xA7:
            self.inverted = c == 0xA7
        elif c == 0xAE or c == 0xAF:
            self.oled_on = c == 0xAF
        elif c == 0x20:
            if cmd[1] & 3 == 3:
                self.i2c_errors.append("addressing mode 3 is invalid")
            else:
                self.addressing = cmd[1] & 3
        elif c == 0x21:
            self.col_lo, self.col_hi = cmd[1] & 127, cmd[2] & 127
            self.col = self.col_lo
        elif c == 0x22:
            self.page_lo, self.page_hi = cmd[1] & 7, cmd[2] & 7
            self.page = self.page_lo
        elif 0xB0 <= c < 0xB8:
            self.page = c & 7
        elif c < 0x10:
            self.col = (self.col & 0xF0) | c
        elif c < 0x20:
            self.col = (self.col & 0x0F) | ((c & 7) << 4)
        elif 0x40 <= c < 0x80:
            self.start_line = c & 0x3F
        elif c == 0xA0 or c == 0xA1:
            self.seg_remap = c == 0xA1
        elif c == 0xC0 or c == 0xC8:
            self.com_reversed = c == 0xC8
        elif c == 0x8D:
            self.charge_pump = bool(cmd[1] & 0x04)
        # The rest (timing, multiplex, scrolling) does not change the picture here.

    def pixel(self, x, y):
        """1 if the pixel at (x, y) of the visible screen is lit."""
        if not (self.oled_on and self.charge_pump):
            return 0
        if self.entire_on:
            return 1
        # Our module is mounted so that remap + reversed COM scan is upright.
        if not self.seg_remap:
            x = 127 - x
        if not self.com_reversed:
            y = 63 - y
        lit = (self.oled[(y >> 3) * 128 + x] >> (y & 7)) & 1
        return lit ^ 1 if self.inverted else lit

    def screen(self):
        """The visible picture as a 1,024-byte MONO_VLSB buffer."""
        if (self.oled_on and self.charge_pump and not self.entire_on and self.seg_remap
                and self.com_reversed):
            # Mounted upright (the firmware's setting): the picture is the RAM itself, so
            # copy it at C speed instead of 8,192 pixel() calls (about 40 ms in the VM).
            out = bytearray(self.oled)
            if self.inverted:
                for i in range(1024):
                    out[i] ^= 0xFF
            return out
        out = bytearray(1024)
        for y in range(64):
            bit = 1 << (y & 7)
            row = (y >> 3) * 128
            for x in range(128):
                if self.pixel(x, y):
                    out[row + x] |= bit
        return out

    def text_art(self):
        """The visible picture as 32 lines of 128 half-block characters."""
        lines = []
        for y in range(0, 64, 2):
            line = []
            for x in range(128):
                top = self.pixel(x, y)
                bottom = self.pixel(x, y + 1)
                line.append(" \u2584\u2580\u2588"[top * 2 + bottom])
            lines.append("".join(line))
        return "\n".join(lines)


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
