"""The bench's hardware tests over the USB console: `test led|display|button|draws|end`
(protocol.py's docstring says what each answers). A rare path: protocol.test imports this
module on the first `test` line, and keeps it."""
from carddraw import deck, render, settings

TESTS = "test led COLOUR, test display, test button MS, test draws N, test end"
TEST_NAMES = ("led", "display", "button", "draws", "end")
MAX_BUTTON_MS = 60000
MAX_DRAWS = 10000
LED_TESTS = ("green", "yellow", "red", "black", "off")


def command(con, args, now):
    """`test led|display|button|draws|end` (con: protocol.Console): the first three start a
    Test (see Test)."""
    app = con.app
    what = args[0].lower() if args else ""
    arg = args[1] if len(args) > 1 else None
    if what not in TEST_NAMES or len(args) > 2:
        return {"error": "test needs one of: " + TESTS}
    if what == "draws":
        return draws(app, arg)
    if arg is not None and (what == "end" or what == "display"):
        return {"error": "test %s takes no argument" % what}
    if what == "end":
        con.end_test()
        return {"ok": "end"}
    if what == "led":
        colour = (arg or "").lower()
        if colour == "purple":
            colour = "black"
        if colour not in LED_TESTS:
            return {"error": "test led needs a colour: green, yellow, red, black (purple) or off"}
        test = Test(what, ["LED test", "purple (black)" if colour == "black" else colour, "",
                           "test end: back"], None if colour == "off" else colour)
    elif what == "button":
        ms = settings.number(arg, 5)
        if ms is None or not 0 < ms <= MAX_BUTTON_MS:
            return {"error": "test button needs milliseconds, 1 to %d" % MAX_BUTTON_MS}
        test = Test(what, ["Button test", "Press a button",
                           "within %d s" % ((ms + 999) // 1000)], None, ms)
    else:
        test = Test(what)  # the display's pattern
    app.wake(now)
    con.test = test
    test.output(app)  # at once, so the reply can say what the LED and display show
    if test.button_ms:
        con.wait_until = now + test.button_ms
        return None
    if what == "led":
        return {"ok": "led", "colour": colour, "rgb": list(app.board.led.value)}
    d = app.board.display
    return {"ok": "display", "lit": lit(d), "pixels": 8 * len(d.buffer)}


def draws(app, arg):
    """R9 sampled: N draws from the set-up screen's deck, each card put back."""
    n = settings.number(arg, 5)
    if n is None or not 0 < n <= MAX_DRAWS:
        return {"error": "test draws needs a number of draws, 1 to %d" % MAX_DRAWS}
    c = app.controller
    if c.screen != "setup":
        return {"error": "test draws only on the set-up screen"}
    a = settings.action_from(c.settings)
    counts = [0, 0, 0, 0]
    wdt = app.board.wdt
    try:
        for i in range(n):
            counts[deck.COLOURS.index(a.draw(c.rng))] += 1
            a.pending = None  # put back: a card pending acceptance never left the deck (R15)
            if wdt is not None and not i & 1023:
                wdt.feed()
    except deck.RuleError as e:  # R22: an empty deck
        return {"error": str(e)}
    return {"ok": "draws", "n": n, "deck": list(a.deck.counts()), "counts": counts}


class Test:
    """A bench test in progress (name: led, display or button): what the LED and the display
    show until it ends; lines None: the display's pattern."""

    def __init__(self, name, lines=None, led=None, button_ms=0):
        self.name = name
        self.lines = lines
        self.led = led
        self.button_ms = button_ms
        self.shown = False

    def output(self, app):
        board = app.board
        board.led.show(self.led)
        if not self.shown:
            self.shown = True
            if self.lines is None:
                from carddraw.selftest import pattern  # the self-test's (a rare path)
                pattern(board.display, 0)
            else:
                render.render(render.View("test", self.lines), board.display)
            board.display.show()

    def press(self, con, name, kind):
        """A physical press: answers `test button`, and ends the test either way."""
        if self.button_ms and con.wait_until is not None:
            con.wait_until = None
            con.reply({"ok": "button", "button": name, "kind": kind})
        con.end_test()

    def timeout(self, con):
        """The held queue's time is up: `test button` saw no press (or a `wait` ran out)."""
        if not self.button_ms:
            return {"ok": "wait"}
        con.end_test()
        return {"error": "no button pressed in %d ms" % self.button_ms}


def lit(d):
    """Lit pixels in the frame the display was last given."""
    n = 0
    for b in d.buffer:
        while b:
            b &= b - 1
            n += 1
    return n
