# A board with no hardware behind it, for the hardening tests: exactly the surface App uses
# (buttons.poll, display brightness/contrast/sleep/show and the framebuf drawing calls,
# led.show, buzzer.play/update/enabled, battery.percent, watchdog). Written in the Python
# that CPython and MicroPython share, so the same stand-in serves both.


class Buttons:
    """Events are queued by the test and handed out by the next poll()."""

    def __init__(self):
        self.queue = []

    def push(self, name, kind="short"):
        self.queue.append((name, kind))

    def poll(self, now_ms):
        q = self.queue
        self.queue = []
        return q

    def held(self):
        return ()


class Display:
    """Keeps the text drawn on it (row by row) and counts frames; draws no pixels."""

    def __init__(self):
        self.level = 0
        self.asleep = False
        self.frames = 0
        self.rows = {}
        self.shown = []

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

    def text(self, s, x, y, c=1):
        self.rows[y] = s

    def fill_rect(self, x, y, w, h, c):
        pass

    def rect(self, x, y, w, h, c):
        pass

    def hline(self, x, y, w, c):
        pass

    def vline(self, x, y, h, c):
        pass

    def pixel(self, x, y, c=None):
        return 0


class Led:
    def __init__(self):
        self.colour = None
        self.changes = 0

    def show(self, colour):
        if colour != self.colour:
            self.changes += 1
        self.colour = colour


class Buzzer:
    def __init__(self):
        self.enabled = True
        self.played = 0

    def play(self, pattern, now_ms):
        if self.enabled:
            self.played += 1

    def update(self, now_ms):
        pass


class Battery:
    def percent(self):
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
