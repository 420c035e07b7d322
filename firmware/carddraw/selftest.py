"""The bench's extra protocol commands and the power-on self-test.

Imported only when one of them is used (app.py's `log` and `test` commands, DRAW held at
power-on), so normal play carries none of this in RAM.

Bench commands, over the USB serial (App.command hands them here):
  log               the action log, oldest first: one {"log": record} line per record, read a
                    line at a time from flash, then {"ok": "log", "records": N, "damaged": D}
  test led COLOUR   green, yellow, red, black (shows purple; "purple" works too) or off: the LED
                    shows it until the test ends -> {"ok": "led", "colour", "rgb"}
  test display      a checkerboard of 8 x 8 squares inside a one-pixel border
                    -> {"ok": "display", "lit": lit pixels read back from the frame, "pixels"}
  test button MS    waits up to MS ms (1-60000) for a press of a physical button, holding the
                    queue as `wait` does -> {"ok": "button", "button", "kind": "short"|"long"}
                    or {"error": "no button pressed in MS ms"}. The press does nothing else.
  test draws N      set-up screen only: N draws (1-10000) from the deck the settings build,
                    each card put back, with the controller's rng through the engine (R9);
                    nothing changes -> {"ok": "draws", "n", "deck": [g, y, r, b], "counts"}
  test end          back to the normal view -> {"ok": "end"}
A test (led, display, button) owns the LED and the display until `test end`, another test,
a `press`/`long` line or a press of a button (which then does nothing else). `show` still
answers with the controller's view: what comes back when the test ends.

Power-on self-test (DRAW held at power-on): SelfTest.step(now) is one pass, on any clock, so
the simulator drives it on simulated time; run() is the board's loop around it. The screen
walks through the LED colours, the display pattern and its inverse (every pixel lit once), the
buzzer's patterns, the battery voltage, then asks for each button in turn ("press RANK",
"RANK ok", or after PROMPT_MS "RANK: no press"), says "self-test passed" (or FAILED) and ends
on a fresh press of DRAW or after END_MS. The result goes to the log as {"ev": "selftest"}.
"""
from carddraw import config, screens
from carddraw.controller import View
from carddraw.app import number

LED_TESTS = ("green", "yellow", "red", "black", "off")
TESTS = "test led COLOUR, test display, test button MS, test draws N, test end"
MAX_BUTTON_MS = 60000
MAX_DRAWS = 10000


# -- bench commands ------------------------------------------------------------------------
def command(app, cmd, args, now):
    """One `log` or `test ...` line (args: the words after it) -> reply dict, or None while
    `test button` waits."""
    if cmd == "log":
        if args:
            return {"error": "log takes no argument"}
        return stream_log(app)
    what = args[0].lower() if args else ""
    arg = args[1] if len(args) > 1 else None
    if what not in ("led", "display", "button", "draws", "end") or len(args) > 2:
        return {"error": "test needs one of: " + TESTS}
    if what == "end":
        if arg is not None:
            return {"error": "test end takes no argument"}
        app.end_test()
        return {"ok": "end"}
    if what == "draws":
        return draws(app, arg)
    board = app.board
    if what == "led":
        c = (arg or "").lower()
        if c == "purple":
            c = "black"
        if c not in LED_TESTS:
            return {"error": "test led needs a colour: green, yellow, red, black (purple) or off"}
        led = None if c == "off" else c
        test = Test("led", ["LED test", c == "black" and "purple (black)" or c, "",
                            "test end: back"], led)
    elif what == "display":
        if arg is not None:
            return {"error": "test display takes no argument"}
        test = Test("display")
    else:
        ms = number(arg, 5)
        if ms is None or not 0 < ms <= MAX_BUTTON_MS:
            return {"error": "test button needs milliseconds, 1 to %d" % MAX_BUTTON_MS}
        test = Test("button", ["Button test", "Press a button", "within %d s" % ((ms + 999) // 1000)],
                    None, ms)
        app.wait_until = now + ms
    app.last_input = now
    if app.idle:
        app.wake()
    app.test = test
    test.output(app)  # at once, so the reply can say what the LED and display show
    if what == "led":
        return {"ok": "led", "colour": c, "rgb": list(board.led.value)}
    if what == "display":
        return {"ok": "display", "lit": lit(board.display), "pixels": 8 * len(board.display.buffer)}
    return None


def stream_log(app):
    """Every log record as its own reply line, read one line at a time (never a list in RAM)."""
    n = [0]
    wdt = getattr(app.board, "wdt", None)

    def each(record):
        app.reply({"log": record})
        n[0] += 1
        if wdt is not None:
            wdt.feed()  # a full log is hundreds of lines: the stream must not reset the board

    bad = app.store.read_log(each)[1]
    return {"ok": "log", "records": n[0], "damaged": bad}


def draws(app, arg):
    """R9 sampled: N draws from the set-up screen's deck, each card put back."""
    n = number(arg, 5)
    if n is None or not 0 < n <= MAX_DRAWS:
        return {"error": "test draws needs a number of draws, 1 to %d" % MAX_DRAWS}
    c = app.controller
    if c.screen != "setup":
        return {"error": "test draws only on the set-up screen"}
    from carddraw.action import Action, RuleError
    from carddraw.deck import COLOURS
    s = c.settings
    a = Action(s["skill"], s["ranks"], s["helpers"], s["bonus"], s["green"], s["yellow"],
               s["red"], s["black"], s["needed"], s["auto"])
    counts = [0, 0, 0, 0]
    wdt = getattr(app.board, "wdt", None)
    try:
        for i in range(n):
            counts[COLOURS.index(a.draw(c.rng))] += 1
            a.pending = None  # put back: a card pending acceptance never left the deck (R15)
            if wdt is not None and not i & 1023:
                wdt.feed()
    except RuleError as e:  # R22: an empty deck
        return {"error": str(e)}
    return {"ok": "draws", "n": n, "deck": list(a.deck.counts()), "counts": counts}


class Test:
    """A bench test in progress: what the LED and the display show until it ends."""

    def __init__(self, name, lines=None, led=None, button_ms=0):
        self.name = name
        self.lines = lines        # None: the display pattern
        self.led = led
        self.button_ms = button_ms
        self.shown = False

    def output(self, app):
        board = app.board
        board.led.show(self.led)
        if not self.shown:
            self.shown = True
            if self.lines is None:
                pattern(board.display, 0)
            else:
                screens.render(View("test", self.lines), board.display, None)
            board.display.show()

    def press(self, app, name, kind):
        """A physical press: answers `test button`, and ends the test either way."""
        if self.button_ms and app.wait_until is not None:
            app.wait_until = None
            app.reply({"ok": "button", "button": name, "kind": kind})
        app.end_test()

    def timeout(self, app):
        """The held queue's time is up: `test button` saw no press (or a `wait` ran out)."""
        if not self.button_ms:
            return {"ok": "wait"}
        app.end_test()
        return {"error": "no button pressed in %d ms" % self.button_ms}


def pattern(d, invert):
    """A checkerboard of 8 x 8 squares in a one-pixel border; invert=1 lights the other half
    of the squares, so the two together light every pixel."""
    on = 1 - invert
    d.fill(invert)
    for y in range(0, d.height, 8):
        for x in range((y >> 3 & 1) << 3, d.width, 16):
            d.fill_rect(x, y, 8, 8, on)
    d.rect(0, 0, d.width, d.height, 1)


def lit(d):
    """Lit pixels in the frame the display was last given."""
    n = 0
    for b in d.buffer:
        while b:
            b &= b - 1
            n += 1
    return n


# -- the power-on self-test ----------------------------------------------------------------
LED_MS = 800          # each LED colour
PATTERN_MS = 1200     # the pattern, then its inverse
GAP_MS = 300          # after each buzzer pattern
BATTERY_MS = 2000
PROMPT_MS = 20000     # a button not pressed within this is reported missing
OK_MS = 600           # "RANK ok" stays this long
MISS_MS = 1500        # ... and "RANK: no press"
END_MS = 30000        # the result screen: a fresh DRAW press, or this long, starts the app
BUZZER = ("click", "card", "warn", "success", "fail", "black", "error")
LED_NAMES = {"green": "green", "yellow": "yellow", "red": "red", "black": "purple", None: "off"}


class SelfTest:
    """The power-on self-test as a step function: step(now) -> True once it has finished."""

    def __init__(self, board, store, now=0):
        self.board = board
        self.store = store
        self.stages = ([("led", c) for c in ("green", "yellow", "red", "black", None)]
                       + [("pattern", 0), ("pattern", 1)]
                       + [("buzzer", p) for p in BUZZER] + [("battery", None)]
                       + [("button", b) for b in config.BUTTONS] + [("end", None)])
        self.i = -1
        self.until = now
        self.answer = None     # on a button stage: None while asking, then "ok" or "no press"
        self.missing = []      # buttons not pressed in time
        self.mv = None         # VSYS in mV
        self.passed = None
        board.buzzer.enabled = True  # a self-test is heard whatever the settings say

    def step(self, now):
        try:
            return self._step(now)
        except Exception as e:  # noqa: BLE001 -- never hang: a broken part ends the test
            self.passed = False
            try:
                self._log(now, "%s: %s" % (type(e).__name__, e))
                self.board.led.show("red")
            except Exception:  # noqa: BLE001 -- the app must still start
                pass
            return True

    def _step(self, now):
        board = self.board
        events = board.buttons.poll(now)
        board.buzzer.update(now)
        if self.i < 0:
            self._enter(0, now)
        kind, arg = self.stages[self.i]
        if kind == "end":
            for name, _ in events:
                if name == "DRAW":
                    return self._finish()
            return now - self.until >= 0 and self._finish()
        if kind == "button" and self.answer is None:
            for name, _ in events:
                if name == arg:
                    self.answer = "ok"
                    self.until = now + OK_MS
                    board.buzzer.play("click", now)
                    self._show("Buttons", "", "%s ok" % arg)
                    return False
            if now - self.until >= 0:
                self.answer = "no press"
                self.missing.append(arg)
                self.until = now + MISS_MS
                board.buzzer.play("error", now)
                self._show("Buttons", "", "%s: no press" % arg)
            return False
        if kind == "buzzer" and board.buzzer.playing:
            self.until = now + GAP_MS
        if now - self.until >= 0:
            self._enter(self.i + 1, now)
        return False

    def _enter(self, i, now):
        self.i = i
        kind, arg = self.stages[i]
        self.answer = None
        board = self.board
        if kind == "led":
            board.led.show(arg)
            self.until = now + LED_MS
            self._show("LED", "", LED_NAMES[arg])
        elif kind == "pattern":
            board.led.show(None)
            pattern(board.display, arg)
            board.display.show()
            self.until = now + PATTERN_MS
        elif kind == "buzzer":
            board.buzzer.play(arg, now)
            self.until = now + GAP_MS
            self._show("Buzzer", "", arg)
        elif kind == "battery":
            mv = self.mv = board.battery.millivolts()
            self.until = now + BATTERY_MS
            self._show("Battery", "", "VSYS %d.%02d V" % (mv // 1000, mv % 1000 // 10),
                       "gauge %d%%" % board.battery.percent())
        elif kind == "button":
            self.until = now + PROMPT_MS
            self._show("Buttons", "", "press %s" % arg, "", "within %d s" % (PROMPT_MS // 1000))
        else:
            self.passed = not self.missing
            self._log(now, None)
            board.led.show("green" if self.passed else "red")
            self.until = now + END_MS
            lines = ["self-test passed" if self.passed else "self-test FAILED"]
            if self.missing:
                lines += ["no press:", " ".join(self.missing[:3]), " ".join(self.missing[3:])]
            self._show("Result", *(lines + ["", "DRAW: start"]))

    def _show(self, *lines):
        screens.render(View("selftest", ["Self-test"] + list(lines)), self.board.display, None)
        self.board.display.show()

    def _log(self, now, error):
        r = {"ev": "selftest", "ms": now, "result": "passed" if self.passed else "failed",
             "missing": self.missing, "vsys_mv": self.mv}
        if error:
            r["error"] = error[:120]
        self.store.log(r)

    def _finish(self):
        self.board.led.show(None)
        return True


async def run(board, store):
    """The board's loop around SelfTest: its own clock from 0, the watchdog fed every pass."""
    import asyncio
    wdt = board.watchdog(config.WATCHDOG_MS)
    start = board.ticks_ms()
    test = SelfTest(board, store, 0)
    while not test.step(board.ticks_diff(board.ticks_ms(), start)):
        wdt.feed()
        await asyncio.sleep_ms(config.LOOP_MS)
    wdt.feed()


def unload():
    """Drop this module once the self-test is over, so the app boots with the RAM it
    always has."""
    import sys
    import carddraw
    sys.modules.pop(__name__, None)
    try:
        delattr(carddraw, "selftest")
    except AttributeError:
        pass
