"""The power-on self-test (DRAW held at power-on), and the display pattern it shows.

A rare path: App.begin_selftest imports it on first use, and App.loop_pass runs
SelfTest.step(now) every pass in place of the app's own work (so the board's loop, the
watchdog feed and the simulator are the same as ever). The bench's `test display`
(protocol.py) borrows pattern().

The screen walks through the LED colours, the display pattern and its inverse (every pixel
lit once), the buzzer's patterns, the battery voltage, then asks for each button in turn
("press RANK", "RANK ok", or after PROMPT_MS "RANK: no press"), says "self-test passed" (or
FAILED) and ends on a fresh press of DRAW or after END_MS. The result goes to the log as
{"ev": "selftest"}.
"""
from carddraw import config
from carddraw.render import View, render


def pattern(d, invert):
    """A checkerboard of 8 x 8 squares in a one-pixel border; invert=1 lights the other half
    of the squares, so the two together light every pixel."""
    on = 1 - invert
    d.fill(invert)
    for y in range(0, d.height, 8):
        for x in range((y >> 3 & 1) << 3, d.width, 16):
            d.fill_rect(x, y, 8, 8, on)
    d.rect(0, 0, d.width, d.height, 1)


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
        render(View("selftest", ["Self-test"] + list(lines)), self.board.display, None)
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

