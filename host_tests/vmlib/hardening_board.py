# A board with no hardware behind it, for the hardening tests: exactly the surface App uses
# (buttons.poll, display brightness/contrast/sleep/show and the framebuf drawing calls,
# led.show, buzzer.play/update/enabled, battery.percent, watchdog, unique_id). Written in the
# Python that CPython and MicroPython share, so the same stand-in serves both.
from carddraw import config


class Buttons:
    """Events are queued by the test and handed out by the next poll()."""

    def __init__(self):
        self.queue = []

    def push(self, name, kind="short"):
        self.queue.append((name, kind))

    def poll(self, now_ms, longs=()):
        q = self.queue
        self.queue = []
        return q

    def held(self):
        return ()

    wake = 0  # App.run's: no edge stamped here, no debounce to wake for

    def stamp_edges(self, clock):  # App.run's: no pins here, no edges to stamp
        pass


class Display:
    """Keeps the text drawn on it (row by row) and counts frames; the shapes (fill, fill_rect,
    rect, lines, pixels) are drawn into a 128x64 MONO_VLSB buffer as framebuf does, so the
    bench's `test display` counts the same lit pixels; text draws no pixels."""
    width = 128
    height = 64

    def __init__(self):
        self.level = 0
        self.asleep = False
        self.frames = 0
        self.rows = {}
        self.shown = []
        self.buffer = bytearray(self.width * self.height // 8)

    def brightness(self, level):
        self.level = level

    def contrast(self, value):
        pass

    def sleep(self, on):
        self.asleep = on

    def show(self):
        self.frames += 1
        self.shown = [self.rows[k] for k in sorted(self.rows)]

    def fill(self, c):
        self.rows = {}
        for i in range(len(self.buffer)):
            self.buffer[i] = 0xFF if c else 0

    def text(self, s, x, y, c=1):
        self.rows[y] = s

    def fill_rect(self, x, y, w, h, c):
        for j in range(max(0, y), min(self.height, y + h)):
            for i in range(max(0, x), min(self.width, x + w)):
                self.pixel(i, j, c)

    def rect(self, x, y, w, h, c):
        self.hline(x, y, w, c)
        self.hline(x, y + h - 1, w, c)
        self.vline(x, y, h, c)
        self.vline(x + w - 1, y, h, c)

    def hline(self, x, y, w, c):
        self.fill_rect(x, y, w, 1, c)

    def vline(self, x, y, h, c):
        self.fill_rect(x, y, 1, h, c)

    def pixel(self, x, y, c=None):
        if not (0 <= x < self.width and 0 <= y < self.height):
            return 0
        i = (y >> 3) * self.width + x
        bit = 1 << (y & 7)
        if c is None:
            return 1 if self.buffer[i] & bit else 0
        if c:
            self.buffer[i] |= bit
        else:
            self.buffer[i] &= ~bit & 0xFF
        return None


class Led:
    def __init__(self):
        self.colour = None
        self.value = (0, 0, 0)
        self.changes = 0

    def show(self, colour):
        if colour != self.colour:
            self.changes += 1
        self.colour = colour
        self.value = config.LED_COLOURS[colour] if colour else (0, 0, 0)


class Buzzer:
    def __init__(self):
        self.enabled = True
        self.played = 0

    def play(self, pattern, now_ms):
        if self.enabled:
            self.played += 1

    def update(self, now_ms):
        pass

    playing = False


class Battery:
    """A cell at 80 %, on no USB."""
    empty_mv = 3250

    def millivolts(self):
        return 3750

    def on_usb(self, mv):
        return False

    def percent(self, mv=None):
        return 80


class Watchdog:
    def __init__(self, timeout_ms):
        self.timeout_ms = timeout_ms
        self.feeds = 0

    def feed(self):
        self.feeds += 1


class Board:
    def __init__(self):
        self.buttons = Buttons()
        self.display = Display()
        self.led = Led()
        self.buzzer = Buzzer()
        self.battery = Battery()
        self.wdt = None

    def watchdog(self, timeout_ms=5000):
        self.wdt = Watchdog(timeout_ms)
        return self.wdt

    def reset(self):
        """maint's restart: this board does not restart (a test plays the power-on after)."""

    def unique_id(self):
        return "e6605838834a7b2c"  # the simulator's board id (tools/sim/machine.py), as hex
