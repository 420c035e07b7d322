# make bench's scripted session: the firmware's App driven press by press and pass by pass,
# every pass marked. Written in the Python CPython and MicroPython share, so the very same
# session runs twice (tools/benchmarks/passes.py): under CPython on littlefs-python, where a
# mark reads the flash chip's counts (programs, pages, erases), and under native MicroPython
# on the deployed .mpy files, where a mark reads the clock. The two runs must give the same
# passes (kind and screen after each), so a pass's flash work and its time can be added up.
#
# A pass is App.loop_pass, as the board runs it: inputs -> controller -> persist -> reveal.
# Marks: the pass's start, the LED's first show (persist is done by then: nothing is revealed
# before it is on flash), the display's show called and returned, the pass's end. The session
# plays actions (set-up presses, starts, draws, redraws, a referee's decisions on blacks,
# chains, one finishing minute), exports the log over the console halfway, and idles between
# presses with a pass every config.LOOP_MS, so the store's housekeeping runs where it would.
import json

from carddraw import config
from carddraw.app import App
from carddraw.rng import Rng

BOOT, IDLE, SETUP, START, DRAW, PRESS, CONSOLE = range(7)
KINDS = ("boot", "idle", "set-up press", "start", "draw", "other press", "console")
SCREENS = ("setup", "options", "task", "active", "card", "confirm", "referee", "failed",
           "success", "finishing", "summary", "lock", "refmenu", "adjust", "newcode", "message",
           "error")
SEED = 20261201
SETTINGS = {"ranks": 3, "helpers": 1, "yellow": 1, "needed": 3, "redraws": 1, "black": 1,
            "referee": True}
CODE = "RHRH"   # config.DEFAULT_LOCK's code
NAME = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
GAPS = (300, 500, 800, 1200, 400, 2000)   # ms between presses, in turn
ACTIONS = 16
EXPORT_AT = 8   # the log is exported before this action starts


def settings():
    s = config.defaults()
    for k in SETTINGS:
        s[k] = SETTINGS[k]
    return s


def pressed_through(board):
    """The board's buttons read and debounced as on the device, then the presses the
    session queues (push(name, kind) -> the next poll's events). -> push."""
    pending = []
    poll = board.buttons.poll

    def polled(now, longs=()):
        got = poll(now, longs)
        if pending:
            got = list(got) + pending
            del pending[:]
        return got

    def push(name, kind):
        pending.append((name, kind))
    board.buttons.poll = polled
    return push


def screen_code(name):
    for i in range(len(SCREENS)):
        if SCREENS[i] == name:
            return i
    return 255


class Session:
    """The App on `board` and `store`, booted by the constructor (App() and its first pass,
    marked from `start`, a reading taken before the board was made, if given).
    probe() -> a reading; sink(kind, screen, start, led, show0, show1, end) gets each pass's
    readings (None for a mark the pass did not reach); push(name, kind) queues a button event
    for the board's next poll."""

    def __init__(self, board, store, probe, sink, push, start=None, now=1000):
        self.board = board
        self.probe = probe
        self.sink = sink
        self.push = push
        self.marks = [None, None, None]
        self.last = [None, None]   # the last two console replies (an export streams hundreds)
        self.now = now
        self.passes = 0
        self.gap = 0
        self.actions = 0
        self.lines = []            # (pass number, console line) for each line sent
        self._wrap(board)
        if start is None:
            start = probe()
        self.app = App(board, store, Rng(SEED), now, write=self._reply)
        self.c = self.app.controller
        self.step(BOOT, start, advance=False)

    def _wrap(self, board):
        marks = self.marks
        probe = self.probe
        led = board.led
        led_show = led.show
        display = board.display
        display_show = display.show

        def show_led(colour):
            if marks[0] is None:
                marks[0] = probe()
            led_show(colour)

        def show_display():
            if marks[1] is None:
                marks[1] = probe()
            sent = display_show()
            marks[2] = probe()
            return sent
        led.show = show_led
        display.show = show_display

    def _reply(self, text):
        self.last[0] = self.last[1]
        self.last[1] = text

    # -- passes ---------------------------------------------------------------------------------
    def step(self, kind, start=None, advance=True):
        """One loop pass, LOOP_MS after the last, its readings to the sink."""
        if advance:
            self.now += config.LOOP_MS
        marks = self.marks
        marks[0] = marks[1] = marks[2] = None
        if start is None:
            start = self.probe()
        ok = self.app.loop_pass(self.now)
        end = self.probe()
        self.sink(kind, screen_code(self.c.screen), start, marks[0], marks[1], marks[2], end)
        self.passes += 1
        if not ok:
            raise RuntimeError("a loop pass raised: %s" % self.app.last_error)

    def busy(self):
        console = self.app.console
        return console is not None and console.busy()

    def idle(self, ms):
        """Passes every LOOP_MS for ms, nothing pressed (console passes while a line runs)."""
        end = self.now + ms
        while self.now + config.LOOP_MS <= end:
            self.step(CONSOLE if self.busy() else IDLE)

    def press(self, name, long=False):
        """The next gap of idle passes, then a pass with the press (the debounced event)."""
        self.idle(GAPS[self.gap % len(GAPS)])
        self.gap += 1
        shown = self.c.screen
        if shown == "setup" and not long and name == "DRAW":
            kind = START
        elif shown == "setup" and name in ("RANK", "HELP"):
            kind = SETUP
        elif shown == "active" and not long and name == "DRAW":
            kind = DRAW
        else:
            kind = PRESS
        self.push(name, "long" if long else "short")
        self.step(kind)

    def keys(self, text):
        for k in text.split():
            self.press(NAME[k[-1]], k[0] == "l")

    def line(self, text):
        """A console line, its passes run until it is answered -> its last reply (a dict)."""
        self.lines.append((self.passes, text))
        self.app.line(text)
        for _ in range(5000):
            self.step(CONSOLE)
            if not self.busy():
                break
        for _ in range(3):   # the reply is sent in the pass after (the reveal)
            self.step(CONSOLE)
        return json.loads(self.last[1])

    # -- play -----------------------------------------------------------------------------------
    def code(self):
        self.press("STOP", True)
        for k in CODE:
            self.press(NAME[k])
        self.step(PRESS)  # the next pass compares the try (its count on flash): the menu
        if self.c.screen != "refmenu":
            raise RuntimeError("the code did not open the referee menu: %s" % self.c.screen)

    def choose(self, label):
        """On a menu: move to the row starting `label`, press DRAW."""
        for _ in range(16):
            for row in self.c.view().lines:
                if row.startswith(">" + label):
                    self.press("DRAW")
                    return
            self.press("HELP")
        raise RuntimeError("no %r on %s" % (label, self.c.screen))

    def export(self):
        """make logs over the console: unlock, the log (over many passes), its ack, lock."""
        if self.line("unlock " + CODE).get("ok") != "unlock":
            raise RuntimeError("unlock refused")
        done = self.line("log")
        if done.get("ok") != "log":
            raise RuntimeError("log refused: %s" % done)
        last = json.loads(json.loads(self.last[0])["log"])
        if self.line("log ack %d %s" % (last["seq"], last["h"])).get("ok") != "ack":
            raise RuntimeError("log ack refused")
        self.line("lock")

    def play(self, actions=ACTIONS, export_at=EXPORT_AT):
        """The session: `actions` actions, the export before action number export_at, then
        3 s idle (the store's housekeeping after the last press)."""
        c = self.c
        for _ in range(4000):
            shown = c.screen
            n = self.actions
            if shown == "setup":
                if n >= actions:
                    break
                if n == export_at:
                    self.export()
                if n % 4 == 1:
                    self.keys("R")
                elif n % 4 == 2:
                    self.keys("lR H")
                elif n % 4 == 3:
                    self.keys("lH")
                self.press("DRAW")
                self.actions += 1
            elif shown == "active":
                if n % 7 == 3 and c.action.draws == 2:
                    self.keys("S D")          # a stop (R16), confirmed: the finishing minute
                else:
                    self.press("DRAW")
            elif shown == "card":
                p = c.play
                if not p.applied and c.action.redraws_left and p.card in ("red", "black"):
                    self.press("HELP")        # a redraw (R15)
                else:
                    self.press("DRAW")
            elif shown == "referee":
                self.code()
                self.choose("Black: go on" if n % 2 else "Black: fail")
                if c.screen == "refmenu":
                    self.press("STOP")
            elif shown == "success":
                self.keys("H D")              # chain a new task (R17)
            elif shown == "finishing":
                self.idle(1000)
            else:                             # summary, failed, message, a menu left open
                self.press("DRAW")
        else:
            raise RuntimeError("the session did not finish")
        self.idle(3000)
        return self.passes
