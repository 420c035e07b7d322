# The shell: one loop wiring board -> controller -> LED / buzzer / display, and the store.
# App.step(now_ms) is one pass of the loop and takes the time as an argument, so the simulator
# can run it on simulated time; App.run() is the asyncio loop the board uses. The bench's
# `log` and `test ...` commands and the power-on self-test live in selftest.py, imported only
# when used: normal play carries none of them in RAM.
import json

from carddraw import config, screens
from carddraw.controller import Controller, View

COMMANDS = ("press NAME, long NAME, wait MS, show, seed N, log, test led|display|button|draws|end"
            " (NAME: RANK, HELP, DRAW, STOP)")
MAX_LINE = 80         # a protocol line longer than this is refused
MAX_QUEUE = 16        # protocol lines held while a `wait` runs (the bench tool sends one at a time)
MAX_WAIT_MS = 600_000  # one `wait` at most 10 minutes
NOTICE_MS = 4000      # a notice (a damaged file, an error) stays this long on the bottom line
BLINK_MS = 250
BATTERY_MS = 5000     # the battery is read this often, not every loop pass (8 ADC reads each)


def number(arg, most=9):
    """arg as a whole number if it is 1 to `most` ASCII digits, else None. Not str.isdigit():
    under CPython it also takes '²' (which int() then refuses) or Arabic-Indic digits, and
    int() of a few thousand digits raises there."""
    if arg is None or not 0 < len(arg) <= most:
        return None
    for ch in arg:
        if not "0" <= ch <= "9":
            return None
    return int(arg)


class App:
    def __init__(self, board, store, rng=None, now_ms=0, write=print):
        self.board = board
        self.store = store
        self.write = write          # where protocol replies go: a function taking one str
        self.notices = []
        settings, notice = store.load_settings()
        self._notice(notice)
        resume, notice = store.load_action()
        self._notice(notice)
        if resume is not None:
            why = store.check_action(resume)
            if why:
                self._notice(store.report(config.ACTION_FILE, why, "resume lost"))
                store.save_action(None)
                resume = None
        self.controller = Controller(settings, rng, now_ms, resume)
        if resume:
            if self.controller.action is None:  # the controller refused it: say so once
                self._notice(store.report(config.ACTION_FILE, "not resumable", "resume lost"))
                store.save_action(None)
            else:
                store.log({"ev": "resume", "screen": self.controller.view().screen})
        self.saved_settings = self.controller.settings_version
        self.saved_resume = self.controller.resume_version
        self.last_input = now_ms
        self.idle = 0               # 0 awake, 1 dimmed, 2 display off
        self.drawn = None           # the (view, battery) last sent to the display
        self.battery = 0            # battery level in tenths, read every BATTERY_MS
        self.battery_at = None
        self.error = None           # an error View shown until the next press
        self.last_error = None      # the last error logged
        self.queue = []             # protocol lines waiting
        self.wait_until = None      # a `wait` (or `test button`) in progress holds the queue
        self.test = None            # a bench test (selftest.Test) owning the LED and display
        self.notice_until = now_ms + NOTICE_MS
        self.apply_settings()

    def _notice(self, text):
        if text:
            self.notices.append(text)

    def apply_settings(self):
        s = self.controller.settings
        self.board.display.brightness(s["brightness"])
        self.board.buzzer.enabled = s["buzzer"]

    # -- input -----------------------------------------------------------------------------------
    def button(self, name, kind, now):
        """A press from the buttons. The press that wakes a dimmed or dark display, or ends a
        bench test (answering `test button`), does nothing else."""
        self.last_input = now
        if self.idle or self.test is not None:
            if self.test is not None:
                self.test.press(self, name, kind)
            self.wake()
            return
        self.error = None
        if kind == "long":
            self.board.buzzer.play("click", now)  # the long press registered (a screen's own
            self.controller.long(name, now)       # beep, if any, follows and replaces it)
        else:
            self.controller.press(name, now)

    def wake(self):
        self.idle = 0
        self.board.display.sleep(False)
        self.board.display.brightness(self.controller.settings["brightness"])
        self.drawn = None

    def line(self, text):
        """A bench-protocol line from the USB console; handled in order by step(). While a
        `wait` holds the queue, at most MAX_QUEUE lines wait; more are refused, not stored."""
        if len(self.queue) >= MAX_QUEUE:
            self.reply({"error": "busy: %d lines waiting, line ignored" % MAX_QUEUE})
            return
        self.queue.append(text)

    def command(self, text, now):
        """Run one protocol line; return the reply dict, or None while a `wait` runs."""
        words = text.split()
        if not words:
            return {"error": "empty line; commands: " + COMMANDS}
        cmd = words[0].lower()
        if cmd == "test" or cmd == "log":
            from carddraw import selftest  # the bench's extras: in RAM only once used
            return selftest.command(self, cmd, words[1:], now)
        arg = words[1] if len(words) > 1 else None
        if len(words) > 2:
            return {"error": "%s takes one argument; commands: %s" % (cmd, COMMANDS)}
        if cmd in ("press", "long"):
            name = (arg or "").upper()
            if name not in config.BUTTONS:
                return {"error": "%s needs a button: RANK, HELP, DRAW or STOP" % cmd}
            self.last_input = now
            if self.idle or self.test is not None:
                self.end_test()
                self.wake()
            self.error = None
            (self.controller.long if cmd == "long" else self.controller.press)(name, now)
            return {"ok": cmd, "button": name, "screen": self.controller.view().screen}
        if cmd == "wait":
            ms = number(arg)
            if ms is None or ms > MAX_WAIT_MS:
                return {"error": "wait needs milliseconds, 0 to %d" % MAX_WAIT_MS}
            self.wait_until = now + ms
            return None
        if cmd == "show":
            if arg is not None:
                return {"error": "show takes no argument"}
            return self.controller.show()
        if cmd == "seed":
            n = number(arg)
            if n is None:
                return {"error": "seed needs a whole number, 0 to 999999999"}
            why = self.controller.seed(n)
            return {"error": why} if why else {"ok": "seed", "seed": n}
        return {"error": "unknown command %r; commands: %s" % (cmd[:16], COMMANDS)}

    def reply(self, obj):
        self.write(json.dumps(obj))

    def end_test(self):
        """Back to the normal view after a bench test."""
        self.test = None
        self.drawn = None

    # -- one pass of the loop --------------------------------------------------------------------
    def step(self, now):
        board = self.board
        for name, kind in board.buttons.poll(now):
            self.button(name, kind, now)
        if self.wait_until is not None and now - self.wait_until >= 0:
            self.wait_until = None
            self.reply(self.test.timeout(self) if self.test is not None else {"ok": "wait"})
        while self.queue and self.wait_until is None:
            out = self.command(self.queue.pop(0), now)
            if out is not None:
                self.reply(out)
        self.controller.tick(now)
        self.save()
        self.output(now)
        self.idle_check(now)

    def save(self):
        """Persist what changed: the resume state first, so a power cut right after a draw
        still finds the card on reboot (no escape from a black), then the log, then settings."""
        c = self.controller
        if c.resume_version != self.saved_resume:
            self.store.save_action(c.resume_state())
            self.saved_resume = c.resume_version
        for record in c.take_log():
            self.store.log(record)
        if c.settings_version != self.saved_settings:
            self.store.save_settings(c.settings)
            self.saved_settings = c.settings_version
            self.apply_settings()

    def output(self, now):
        """LED first, then the buzzer, then the display, and the display only if the view changed."""
        board = self.board
        if self.test is not None:  # the test shows what it tests; the normal view waits
            self.test.output(self)
            board.buzzer.update(now)
            return
        view = self.error or self.controller.view()
        led = view.led
        if view.blink and (now // BLINK_MS) % 2:
            led = None
        board.led.show(led)
        for pattern in self.controller.take_beeps():
            board.buzzer.play(pattern, now)
        board.buzzer.update(now)
        if self.notices and now - self.notice_until >= 0:
            self.notices.pop(0)
            self.notice_until = now + NOTICE_MS
        if self.notices:
            view = View(view.screen, view.lines[:7] + [self.notices[0][:16]], view.led, view.blink)
        if self.idle == 2:
            return
        if self.battery_at is None or now - self.battery_at >= BATTERY_MS:
            self.battery = board.battery.percent() // 10  # the icon has 10 steps
            self.battery_at = now
        key = (view.screen, tuple(view.lines), self.battery)
        if key != self.drawn:
            screens.render(view, board.display, key[2] * 10)
            board.display.show()
            self.drawn = key

    def idle_check(self, now):
        idle_for = now - self.last_input
        if self.idle == 0 and idle_for >= config.DIM_AFTER_MS:
            self.idle = 1
            self.board.display.brightness(1)
            self.board.display.contrast(0)
        elif self.idle == 1 and idle_for >= config.OFF_AFTER_MS:
            self.idle = 2
            self.board.display.sleep(True)

    def fail(self, exc, now):
        """An unexpected exception: log it, show it until the next press, carry on."""
        why = "%s: %s" % (type(exc).__name__, exc)
        if why != self.last_error:  # a fault that repeats every pass is logged once, not 50/s
            self.last_error = why
            try:
                self.store.log({"ev": "error", "why": why[:200]})
            except Exception:  # the store itself may be what failed; the screen still says so
                pass
        self.error = View("error", ["ERROR", why[:16], why[16:32], why[32:48], "", "",
                                    "any key: go on", ""], "red", False)
        self.drawn = None

    # -- the board's loop ------------------------------------------------------------------------
    async def run(self, console=None):
        import asyncio
        board = self.board
        wdt = board.watchdog(config.WATCHDOG_MS)
        # ticks_ms wraps (every 2**30 ms on the RP2040); the controller gets a count that never does
        start = board.ticks_ms()
        base = self.last_input
        while True:
            t = board.ticks_ms()
            now = base + board.ticks_diff(t, start)
            if now - base > 1 << 29:  # re-anchor long before ticks_diff's range runs out
                start = t
                base = now
            try:
                if console is not None:
                    for text in console.lines():
                        self.line(text)
                self.step(now)
            except Exception as e:  # noqa: BLE001 -- the loop must go on
                self.fail(e, now)
            wdt.feed()
            await asyncio.sleep_ms(config.LOOP_MS)


class Console:
    """The USB serial console, read without blocking the loop: whole lines, at most MAX_LINE."""

    def __init__(self, stream=None, reply=print):
        import select
        import sys
        self.stream = stream or sys.stdin
        self.poll = select.poll()
        self.poll.register(self.stream, select.POLLIN)
        self.buf = ""
        self.reply = reply
        self.overlong = False

    def lines(self):
        out = []
        # at most two lines' worth a pass: a host sending faster than that must not keep the
        # loop here (the watchdog would fire); the rest waits in the USB buffer, nothing lost
        for _ in range(2 * MAX_LINE + 2):
            if not self.poll.poll(0):
                break
            ch = self.stream.read(1)
            if not ch:
                break
            if ch in "\r\n":
                if self.overlong:
                    self.reply(json.dumps({"error": "line longer than %d characters ignored" % MAX_LINE}))
                elif self.buf:
                    if all(" " <= c <= "~" for c in self.buf):
                        out.append(self.buf)
                    else:
                        self.reply(json.dumps({"error": "line with bytes that are not text ignored"}))
                self.buf = ""
                self.overlong = False
            elif len(self.buf) >= MAX_LINE:
                self.overlong = True
            else:
                self.buf += ch
        return out


def main():
    """Start the device: called by main.py on the board. DRAW held at power-on runs the
    self-test first (tools/sim/simhost.py boots the same way)."""
    import asyncio
    import random
    from carddraw.board import Board
    from carddraw.store import Store
    board = Board()
    store = Store()
    if "DRAW" in board.buttons.held():
        from carddraw import selftest
        asyncio.run(selftest.run(board, store))
        selftest.unload()
    app = App(board, store, random, board.ticks_ms())
    asyncio.run(app.run(Console()))
