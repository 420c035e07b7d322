"""The hardware tests: the power-on self-test (DRAW held at power-on) and the bench's
`test led|display|button|draws|end` over the USB console, with the display pattern both show.

A rare path: App.begin_selftest imports it on first use, and App.loop_pass runs
SelfTest.step(now) every pass in place of the app's own work (so the board's loop, the
watchdog feed and the simulator are the same as ever); protocol.test imports it on the first
`test` line. Either way it is kept.

The self-test's screen walks through the LED colours, the display pattern and its inverse
(every pixel lit once), the buzzer's patterns, the battery voltage, then asks for each button
in turn ("press RANK", "RANK ok", or after WAIT["button"] "RANK: no press"), says
"self-test passed" (or FAILED) and ends on a fresh press of DRAW or after WAIT["end"]. The
result goes to the log as {"ev": "selftest"}. protocol.py's docstring says what each bench
test answers.
"""
from . import config, deck, render, settings
from .render import const  # micropython's (render's stand-in under CPython): one import


def pattern(d, invert):
    """A checkerboard of 8 x 8 squares in a one-pixel border, shown; invert=1 lights the
    other half of the squares, so the two together light every pixel."""
    on = 1 - invert
    d.fill(invert)
    for y in range(0, d.height, 8):
        for x in range((y >> 3 & 1) << 3, d.width, 16):
            d.fill_rect(x, y, 8, 8, on)
    d.rect(0, 0, d.width, d.height, 1)
    d.show()


def draw(d, screen, lines):
    """Text lines on the display d, shown."""
    render.render(render.View(screen, lines), d)
    d.show()


# Names in lists, not tuples: a constant tuple's strings are stored again in the .mpy.
LEDS = ["green", "yellow", "red", "black", "off"]  # both tests' LED colours (black: purple)


# -- the power-on self-test ----------------------------------------------------------------
# How long each kind of stage shows (ms): an LED colour, the pattern and then its inverse, the
# gap after each buzzer pattern, the battery; a button not pressed within "button" is reported
# missing; "ok" and "missed" say so this long; the result ends on a fresh DRAW or after "end".
WAIT = {"led": 800, "pattern": 1200, "buzzer": 300, "battery": 2000, "button": 20000,
        "ok": 600, "missed": 1500, "end": 30000}
BUZZER = ["click", "card", "warn", "success", "fail", "black", "error"]


class SelfTest:
    """The power-on self-test as a step function: step(now) -> True once it has finished."""
    mv = None      # VSYS in mV, once read
    passed = None  # True or False at the end

    def __init__(self, board, store, now):
        self.board = board
        self.store = store
        stages = self.stages = []  # (kind, arg) each, in order
        for kind, args in (("led", LEDS), ("pattern", [0, 1]), ("buzzer", BUZZER),
                           ("battery", [None]), ("button", config.BUTTONS), ("end", [None])):
            for arg in args:
                stages.append((kind, arg))
        self.missing = []      # buttons not pressed in time
        self.i: int            # the stage on show, and when its time is up (_enter sets them)
        self.until: int
        self.answered: bool
        board.buzzer.enabled = True  # a self-test is heard whatever the settings say
        self._enter(0, now)

    def step(self, now):
        board = self.board
        try:
            pressed = []
            for name, _ in board.buttons.poll(now):
                pressed.append(name)
            board.buzzer.update(now)
            kind, arg = self.stages[self.i]
            late = now - self.until >= 0  # the stage's time is up
            if kind == "end":  # a fresh DRAW, or the time up, starts the app
                if "DRAW" in pressed or late:
                    board.led.show(None)
                    return True
            elif kind == "button" and not self.answered:
                ok = arg in pressed
                if ok or late:  # pressed, or not in time
                    self.answered = True
                    if not ok:
                        self.missing.append(arg)
                    self.until = now + WAIT["ok" if ok else "missed"]
                    board.buzzer.play("click" if ok else "error", now)
                    self._show("Buttons", "", ("%s ok" if ok else "%s: no press") % arg)
            elif kind == "buzzer" and board.buzzer.playing:
                self.until = now + WAIT["buzzer"]  # the gap counts from the pattern's end
            elif late:
                self._enter(self.i + 1, now)
        except Exception as e:  # noqa: BLE001 -- never hang: a broken part ends the test
            self.passed = False
            try:
                self._log(now, "%s: %s" % (type(e).__name__, e))
                board.led.show("red")
            except Exception:  # noqa: BLE001 -- the app must still start
                pass
            return True
        return False

    def _enter(self, i, now):
        self.i = i
        kind, arg = self.stages[i]
        self.answered = False  # a button stage: asking until pressed or the time is up
        board = self.board
        if kind == "led":
            board.led.show(None if arg == "off" else arg)
            self._show("LED", "", "purple" if arg == "black" else arg)
        elif kind == "pattern":
            board.led.show(None)
            pattern(board.display, arg)
        elif kind == "buzzer":
            board.buzzer.play(arg, now)
            self._show("Buzzer", "", arg)
        elif kind == "battery":
            mv = self.mv = board.battery.millivolts()
            self._show("Battery", "", "VSYS %d.%02d V" % (mv // 1000, mv % 1000 // 10),
                       "gauge %d%%" % board.battery.percent(mv))
        elif kind == "button":
            self._show("Buttons", "", "press %s" % arg, "",
                       "within %d s" % (WAIT["button"] // 1000))
        else:
            self.passed = not self.missing
            self._log(now, None)
            board.led.show("green" if self.passed else "red")
            lines = ["self-test passed" if self.passed else "self-test FAILED"]
            if self.missing:
                lines += ["no press:", " ".join(self.missing[:3]), " ".join(self.missing[3:])]
            self._show("Result", *(lines + ["", "DRAW: start"]))
        self.until = now + WAIT[kind]

    def _show(self, *lines):
        draw(self.board.display, "selftest", ["Self-test"] + list(lines))

    def _log(self, now, error):
        r = {"ev": "selftest", "ms": now, "result": "passed" if self.passed else "failed",
             "missing": self.missing, "vsys_mv": self.mv}
        if error:
            r["error"] = error[:120]
        self.store.log(r)


# -- the bench's tests (protocol.test) -----------------------------------------------------
TEST_NAMES = ["led", "display", "button", "draws", "end"]
_MAX_BUTTON_MS = const(60000)
_MAX_DRAWS = const(10000)


def command(con, args, now):
    """`test led|display|button|draws|end` (con: protocol.Console): the first three start a
    Test (see Test). -> the reply: a dict, or the text of an error (Console.reply sends
    {"error": text}), or None while `test button` waits."""
    app = con.app
    what = args[0].lower() if args else ""
    arg = args[1] if len(args) > 1 else None
    if what not in TEST_NAMES or len(args) > 2:
        return "test needs: led COLOUR, display, button MS, draws N or end"
    if what == "draws":
        return draws(app, arg)
    if arg and (what == "end" or what == "display"):
        return "test %s takes no argument" % what
    if what == "end":
        con.end_test()
        return {"ok": "end"}
    led = None
    ms = 0
    if what == "led":
        colour = (arg or "").lower()
        if colour == "purple":
            colour = "black"
        if colour not in LEDS:
            return "test led needs a colour: green, yellow, red, black (purple) or off"
        lines = ["LED test", "purple (black)" if colour == "black" else colour, "",
                 "test end: back"]
        if colour != "off":
            led = colour
    elif what == "button":
        ms = settings.number(arg, 5)
        if not ms or ms > _MAX_BUTTON_MS:  # None: not a number
            return "test button needs milliseconds, 1 to %d" % _MAX_BUTTON_MS
        lines = ["Button test", "Press a button", "within %d s" % ((ms + 999) // 1000)]
    else:
        lines = None  # the display's pattern
    # the LED and the display taken over at once (the reply says what they show), until the
    # test ends: the app's reveal leaves them alone while con.test is on
    app.wake(now)
    board = app.board
    board.led.show(led)
    d = board.display
    if not lines:
        pattern(d, 0)
    else:
        draw(d, "test", lines)
    con.test = Test(what, ms)
    if ms:
        con.wait_until = now + ms
        return None
    if what == "led":
        return {"ok": "led", "colour": colour, "rgb": list(board.led.value)}
    lit = 0  # the lit pixels in the frame the display was given
    for b in d.buffer:
        while b:
            b &= b - 1
            lit += 1
    return {"ok": "display", "lit": lit, "pixels": 8 * len(d.buffer)}


def draws(app, arg):
    """R9 sampled: N draws from the set-up screen's deck, each card put back."""
    n = settings.number(arg, 5)
    if not n or n > _MAX_DRAWS:  # None: not a number
        return "test draws needs a number, 1 to %d" % _MAX_DRAWS
    c = app.controller
    if c.screen != "setup":
        return "test draws only on the set-up screen"
    a = settings.action_from(c.settings)
    counts = [0, 0, 0, 0]
    wdt = app.board.wdt
    try:
        for i in range(n):
            counts[deck.COLOURS.index(a.draw(c.rng))] += 1
            a.pending = None  # put back: a card pending acceptance never left the deck (R15)
            if wdt and not i & 1023:
                wdt.feed()
    except deck.RuleError as e:  # R22: an empty deck
        return str(e)
    return {"ok": "draws", "n": n, "deck": list(a.deck.counts()), "counts": counts}


class Test:
    """A bench test in progress (name: led, display or button), owning the LED and the
    display until it ends (command() has set them); button_ms: `test button`'s wait."""

    def __init__(self, name, button_ms):
        self.name = name
        self.button_ms = button_ms

    def press(self, con, name, kind):
        """A physical press: answers `test button`, and ends the test either way."""
        if self.button_ms:  # `test button`: its wait holds the queue until now
            con.wait_until = None
            con.reply({"ok": "button", "button": name, "kind": kind})
        con.end_test()

    def timeout(self, con):
        """The held queue's time is up: `test button` saw no press (an error's text), or a
        `wait` ran out."""
        if not self.button_ms:
            return {"ok": "wait"}
        con.end_test()
        return "no button pressed in %d ms" % self.button_ms

