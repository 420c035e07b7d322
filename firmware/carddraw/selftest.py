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
from carddraw import render


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


class SelfTest:
    """The power-on self-test as a step function: step(now) -> True once it has finished."""

    def __init__(self, board, store, now=0):
        self.board = board
        self.store = store
        self.stages = ([("led", c) for c in ("green", "yellow", "red", "black", None)]
                       + [("pattern", 0), ("pattern", 1)]
                       + [("buzzer", p) for p in BUZZER] + [("battery", None)]
                       + [("button", b) for b in config.BUTTONS] + [("end", None)])
        self.missing = []      # buttons not pressed in time
        self.mv = None         # VSYS in mV
        self.passed = None
        self.i: int            # the stage on show, and when its time is up (_enter sets them)
        self.until: int
        self.answered: bool
        board.buzzer.enabled = True  # a self-test is heard whatever the settings say
        self._enter(0, now)

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
        pressed = [name for name, _ in board.buttons.poll(now)]
        board.buzzer.update(now)
        kind, arg = self.stages[self.i]
        if kind == "end":  # a fresh DRAW, or the time up, starts the app
            if "DRAW" in pressed or now - self.until >= 0:
                board.led.show(None)
                return True
            return False
        if kind == "button" and not self.answered:
            ok = arg in pressed
            if ok or now - self.until >= 0:  # pressed, or not in time
                self.answered = True
                if not ok:
                    self.missing.append(arg)
                self.until = now + (OK_MS if ok else MISS_MS)
                board.buzzer.play("click" if ok else "error", now)
                self._show("Buttons", "", ("%s ok" if ok else "%s: no press") % arg)
            return False
        if kind == "buzzer" and board.buzzer.playing:
            self.until = now + GAP_MS
        if now - self.until >= 0:
            self._enter(self.i + 1, now)
        return False

    def _enter(self, i, now):
        self.i = i
        kind, arg = self.stages[i]
        self.answered = False  # a button stage: asking until pressed or the time is up
        board = self.board
        if kind == "led":
            board.led.show(arg)
            self.until = now + LED_MS
            self._show("LED", "", "purple" if arg == "black" else arg or "off")
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
        render.render(render.View("selftest", ["Self-test"] + list(lines)), self.board.display)
        self.board.display.show()

    def _log(self, now, error):
        r = {"ev": "selftest", "ms": now, "result": "passed" if self.passed else "failed",
             "missing": self.missing, "vsys_mv": self.mv}
        if error:
            r["error"] = error[:120]
        self.store.log(r)
