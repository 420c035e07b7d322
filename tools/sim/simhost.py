"""The simulated device, run inside the MicroPython VM: the firmware's own Board, Store and App
on the hardware stand-ins (machine.py, neopixel.py), stepped on a virtual clock.

The firmware does not know it is simulated. Device() boots exactly as carddraw.app.main()
does (Board(), Store() in the current folder, App(board, store, rng, now), the rng keyed
from the host's entropy as the board's is from its own (generator()); with DRAW held
at power-on, app.begin_selftest(); the USB serial handed to app.listen() as main() hands
sys.stdin to app.run()) and each step() is the firmware's own App.loop_pass(now): the very
pass App.run() makes on the board (the console's lines, the app's work or the self-test's,
an exception shown and logged, the watchdog fed), without asyncio: the JavaScript side
(tools/sim/device.mjs) calls advance(ms) and a pass runs every config.LOOP_MS of simulated
time. So a simulated minute can pass in a fraction of a second (the protocol's `wait`), or
in real time (the terminal, the web), and time a page missed while hidden is caught up in
coarser passes (catch_up()). Device(held=["DRAW"]) powers on with those buttons held down
(release() lets go).

Buttons go through the pins and the firmware's own debounce and long-press logic: a tap
holds the pin low SHORT_MS, a long press LONG_MS; hold()/release() follow a finger or a
mouse, and a release comes no sooner than SHORT_MS after its press, so the quickest tap is
still a press. Protocol lines are typed into the USB serial (Serial below), where the
firmware's own Console reads them; what the firmware writes back is collected.

Simulator lines (meta(), for the bench's --sim mode) start with "!" and never reach the
firmware: they act on the simulated hardware as a person would and answer {"sim": ...}:
  !press NAME, !long NAME   a tap (long press) starts now and plays out in the simulated time
                            of the lines that follow (e.g. `test button 5000`)
  !hold NAME, !release NAME the button goes down / comes up
  !advance MS               MS of simulated time pass (0-600000)
  !led                      the LED as the pins drive it: {"sim": "led", "rgb": [r, g, b]}
  !screen                   the OLED as a person sees it: on, lit pixels, the text read back

Readouts come back as JSON strings (one call, one string: cheap to pass to JavaScript):
readout() gives the time, the LED colour, the tones since the last readout, the replies,
and the visible picture (hex, only when it changed) with the text on it read back from
the pixels (ocr), so tests and the terminal can show what the screen says; and the phone
view's data (phoneview.py: the View as data), only when it changed.

The store's files live in the VM's filesystem under FLASH; the JavaScript side copies them
in before a boot and mirrors them out afterwards (a host folder, or the browser's storage).
"""
import binascii
import io
import json
import os
import random
import select

import framebuf
from machine import SIM

import ocr
import phoneview

from carddraw import config
from carddraw.render import render
from carddraw.app import App
from carddraw.rng import Rng
from carddraw.board import Board
from carddraw.store import Store

FLASH = "/flash"
SHORT_MS = 120    # a tap: the pin low this long, well over the 30 ms debounce
LONG_MS = 1000    # a long press: well over config.LONG_PRESS_MS (800)
GAP_MS = 80       # between two taps of one button, the pin high: over the debounce too
CATCH_UP_MS = 250     # catch_up()'s passes: a timed warning (5 s) still sees every second
SETTLE_MS = 700_000   # run_line() gives up after this much simulated time (a wait is at most 600 s)
_POLL = 3             # MP_STREAM_POLL: the ioctl select.poll asks a stream
META = "!press NAME, !long NAME, !hold NAME, !release NAME, !advance MS, !led, !screen"


class Serial(io.IOBase):
    """The USB serial console's input side: text written by the host, read by the firmware's
    own Console (select.poll and read(1), as on sys.stdin), line limits and all."""

    def __init__(self):
        self.buf = ""

    def write_in(self, text):
        self.buf += text

    def read(self, n=-1):
        if n < 0:
            n = len(self.buf)
        out = self.buf[:n]
        self.buf = self.buf[n:]
        return out

    def ioctl(self, req, arg):
        if req == _POLL:
            return arg & select.POLLIN if self.buf else 0
        return 0


class Device:
    def __init__(self, seed=None, flash=FLASH, vsys=None, held=()):
        SIM.reset()                  # power-on
        for name in held:            # buttons held down through power-on
            SIM.press(self._check(name))
        self.now = 0
        SIM.clock = self.clock       # the watchdog reads the virtual clock
        if vsys is not None:
            SIM.set_vsys(vsys)
        try:
            os.mkdir(flash)
        except OSError:
            pass                     # already there: a reboot keeps the flash
        os.chdir(flash)              # Store() keeps its files in the current folder
        self.target = 0              # simulated time asked for; self.now trails it by < LOOP_MS
        self.replies = []
        self.tones = []              # (ms, hz) each time the buzzer's tone changed
        self._tone = 0
        self.held = {}               # button name -> when its pin went low (down now)
        for name in held:
            self.held[self._check(name)] = 0
        self.plan = []               # (ms, name, level): pin changes to come, in time order
        self.steps = 0
        self.errors = 0
        self._frame_key = None
        self._view_key = None        # what the phone view's data was last made from ...
        self._view_json = None       # ... and that data, as sent
        # as app.main(): the board, the store, the app, the self-test if DRAW is held, the
        # console, then the loop; what the firmware prints to the USB serial goes to self.replies
        self.board = Board()
        self.store = Store()
        self.wdt = self.board.watchdog(config.WATCHDOG_MS)   # as App.run() starts it
        self.app = App(self.board, self.store, self.generator(seed), self.now,
                       write=self.replies.append)
        if "DRAW" in self.board.buttons.held():
            self.app.begin_selftest(self.now)
        self.serial = Serial()
        self.app.listen(self.serial)
        self.step()                  # the loop's first pass comes at once, as on the board

    def clock(self):
        return self.now

    def generator(self, seed):
        """The device's generator. As on the board (R9): keyed from 256 bits of the host's
        entropy, the JavaScript side's crypto.getRandomValues (the module carddrawhost, which
        tools/sim/device.mjs registers; where it is missing, Rng's own source: os.urandom on
        native MicroPython). seed: a developer's repeatable run (sim.mjs --seed, the tests,
        make docs' pictures), never the web app's: the VM's random seeded, then the seeded
        generator as before, so a seed draws what it always drew."""
        if seed is not None:
            random.seed(seed)
            self.entropy = "seed"
            return Rng(random.getrandbits(30))
        try:
            from carddrawhost import entropy as host
        except ImportError:
            self.entropy = "interpreter"
            return Rng()
        self.entropy = "host"
        return Rng(entropy=lambda n: binascii.unhexlify(host(n)))

    # -- time ------------------------------------------------------------------------------
    def step(self):
        """One pass of the loop at self.now: the firmware's own App.loop_pass."""
        self._pins()
        if not self.app.loop_pass(self.now):
            self.errors += 1
        self.steps += 1
        self._tones()

    def _tones(self):
        tone = SIM.tone
        if tone != self._tone:
            self._tone = tone
            self.tones.append((self.now, tone))

    def advance(self, ms):
        """Let ms of simulated time pass, stepping the app every LOOP_MS; -> readout()."""
        self.target += max(0, int(ms))
        loop = config.LOOP_MS
        while self.target - self.now >= loop:
            self.now += loop
            self.step()
        return self.readout()

    def catch_up(self, ms):
        """Time the page or the terminal missed (hidden, frozen, asleep) caught up at once:
        passes CATCH_UP_MS apart instead of LOOP_MS, so ten minutes take a few thousand
        passes, and the firmware draws what fell due (R21: one draw an interval, a pending
        card accepted first). Only with no button in flight (the caller's word): a press
        needs the loop's own pace. Its tones are dropped (minutes of beeps are not played
        back late); its replies stay. -> readout()."""
        self.target += max(0, int(ms))
        while self.target - self.now >= CATCH_UP_MS:
            self.now += CATCH_UP_MS
            self.step()
        self.tones = []
        return self.advance(0)

    def send(self, text):
        """A protocol line typed into the serial console, run by the passes that follow in
        their own time (the web app's log export: its lines come back in the readouts)."""
        self.serial.write_in(text + "\n")
        return self.readout()

    def busy(self):
        """Protocol input not yet read, lines queued, a `wait` or the `log` export running."""
        console = self.app.console
        return bool(self.serial.buf) or console is not None and console.busy()

    def run_line(self, text):
        """One protocol line, typed into the serial console and run to its end in simulated
        time; -> readout()."""
        self.serial.write_in(text + "\n")
        self.target = self.now
        limit = self.now + SETTLE_MS
        while True:
            self.now += config.LOOP_MS
            self.target = self.now
            self.step()
            if not self.busy() or self.now - limit >= 0:
                break
        return self.readout()

    # -- buttons ---------------------------------------------------------------------------
    def _pins(self):
        """Make the pin changes that are due."""
        while self.plan and self.now - self.plan[0][0] >= 0:
            at, name, level = self.plan.pop(0)
            if level:
                self.held.pop(name, None)
                SIM.release(name)
            elif name not in self.held:
                self.held[name] = at
                SIM.press(name)

    def _at(self, ms, name, level):
        self.plan.append((ms, name, level))
        self.plan.sort()

    def _check(self, name):
        name = name.upper()
        if name not in config.BUTTONS:
            raise ValueError("no button %r" % name)
        return name

    def hold(self, name):
        """The button goes down (its pin low) now and stays down until release()."""
        name = self._check(name)
        self.plan = [p for p in self.plan if p[1] != name]
        self._at(self.now, name, 0)
        self._pins()
        return self.readout()

    def release(self, name):
        """The button comes up, but not sooner than SHORT_MS after it went down."""
        name = self._check(name)
        down = self.held.get(name)
        if down is not None:
            self.plan = [p for p in self.plan if p[1] != name]
            self._at(max(self.now, down + SHORT_MS), name, 1)
            self._pins()
        return self.readout()

    def press(self, name, ms=SHORT_MS):
        """A tap (or, with ms=LONG_MS, a long press): down, then up ms later. A tap while the
        button is still down from the last one comes after it, GAP_MS apart, as two quick
        presses of a finger do."""
        name = self._check(name)
        start = self.now
        for at, n, _ in self.plan:
            if n == name:
                start = max(start, at + GAP_MS)
        if name in self.held and start == self.now:
            start = self.now + GAP_MS   # held by hold(): let go first
            self._at(self.now, name, 1)
        self._at(start, name, 0)
        self._at(start + ms, name, 1)
        self._pins()
        return self.readout()

    def long(self, name):
        return self.press(name, LONG_MS)

    # -- simulator lines -------------------------------------------------------------------
    def meta(self, text):
        """A "!" line: acts on the simulated hardware, never seen by the firmware; its answer
        joins the replies. -> readout()."""
        words = text[1:].split()
        cmd = words[0].lower() if words else ""
        arg = words[1] if len(words) > 1 else None
        try:
            if len(words) > 2:
                raise ValueError("one argument at most")
            if cmd in ("press", "long", "hold", "release"):
                if arg is None:
                    raise ValueError("!%s needs a button: RANK, HELP, DRAW or STOP" % cmd)
                name = self._check(arg)
                getattr(self, cmd)(name)
                out = {"sim": cmd, "button": name}
            elif cmd == "advance":
                if arg is None or not arg.isdigit() or int(arg) > 600_000:
                    raise ValueError("!advance needs milliseconds, 0 to 600000")
                self.advance(int(arg))
                out = {"sim": "advance", "t": self.now}
            elif cmd == "led" and arg is None:
                out = {"sim": "led", "rgb": list(SIM.led_rgb())}
            elif cmd == "screen" and arg is None:
                pic = SIM.screen()
                n = 0
                for b in pic:
                    while b:
                        b &= b - 1
                        n += 1
                out = {"sim": "screen", "on": SIM.oled_on, "lit": n, "text": self.text(pic)}
            else:
                raise ValueError("unknown simulator line %r" % text[:20])
        except ValueError as e:
            out = {"error": "simulator: %s; simulator lines: %s" % (e, META)}
        self.replies.append(json.dumps(out))
        return self.readout()

    # -- what a person sees and hears ------------------------------------------------------
    def readout(self, frame=False):
        """JSON: t (ms), led [r, g, b], tones [[ms, hz]...], replies [json text...], held,
        on/contrast of the OLED, and when the picture changed (or frame=True) screen (hex of
        the visible 1,024-byte MONO_VLSB picture) and text (its 8 lines: see text()); when
        the phone view's data changed (or frame=True), view (phoneview.data)."""
        out = {"t": self.now, "led": list(SIM.led_rgb()), "tones": self.tones,
               "replies": self.replies[:], "held": list(self.held), "on": SIM.oled_on,
               "contrast": SIM.contrast, "busy": self.busy(), "errors": self.errors}
        self.tones = []
        del self.replies[:]       # the app holds this list's append as its write()
        key = (SIM.i2c_data_bytes, SIM.i2c_command_bytes)
        if frame or key != self._frame_key:
            self._frame_key = key
            pic = SIM.screen()
            out["screen"] = binascii.hexlify(pic).decode()
            out["text"] = self.text(pic)
        view = self.phone(frame)
        if view is not None:
            out["view"] = view
        return json.dumps(out)

    def phone(self, again=False):
        """The phone view's data (phoneview.data) if it changed since it was last sent (or
        again=True), else None. Made only when what it is made from changed: the view the
        controller keeps (a new object for every change), the error or notice on show."""
        app = self.app
        face = app.face
        key = (app.controller.view(True), face.error,   # view(True): the one kept, or a
               face.notices[0] if face.notices else None,   # quick one (nothing worked out)
               app.selftest is None)
        if not again and self._view_key is not None \
                and all(a is b for a, b in zip(key, self._view_key)):
            return None
        self._view_key = key
        view = phoneview.data(app)
        text = json.dumps(view)
        if not again and text == self._view_json:
            return None
        self._view_json = text
        return view

    def frame(self):
        return self.readout(True)

    def text(self, pic):
        """The picture's text. A picture of a view with art (graphics: a deck bar, large
        digits, a card) reads as that view's lines when the OLED shows exactly the firmware's
        rendering of it; any other picture is read from its pixels (ocr)."""
        view = self.app.face.drawn
        if view is not None and view.picture is not None \
                and self.render_view() == binascii.hexlify(pic).decode():
            lines = [line.rstrip() for line in view.lines]  # the picture's view
            return lines + [""] * (config.ROWS - len(lines))
        return ocr.read(pic)

    def render_view(self):
        """Hex of the firmware's own rendering (render.render on a framebuf) of the view the
        app last sent to the display: what the OLED should show, for the tests."""
        face = self.app.face
        if face.drawn is None:
            return ""
        buf = bytearray(1024)
        fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
        render(face.drawn, fb, face.battery)
        return binascii.hexlify(buf).decode()

    def export_log(self, lines_json):
        """The `log` export's lines (a JSON list of record lines) checked as the bench checks
        them (logsave.check: the chain, the head, the last seq) -> JSON."""
        import logsave
        return json.dumps(logsave.check(json.loads(lines_json)))

    def stats(self):
        return json.dumps({"entropy": self.entropy, "i2c_data_bytes": SIM.i2c_data_bytes,
                           "i2c_command_bytes": SIM.i2c_command_bytes,
                           "i2c_writes": SIM.i2c_writes, "i2c_errors": SIM.i2c_errors,
                           "steps": self.steps, "wdt_feeds": SIM.wdt_feeds})

