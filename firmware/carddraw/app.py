# The shell: one loop pass wiring board -> controller -> store -> LED, display and buzzer.
# App.loop_pass(now_ms) is one pass, guarded (an exception is shown and logged) and ending
# with the watchdog fed; it takes the time as an argument, so the simulator runs the very same
# passes on simulated time. App.run() is the board's asyncio loop around it.
# A pass, always in this order: inputs (buttons, console lines) -> controller -> persist (what
# the pass changed, one journal entry on flash) -> reveal (LED, display, buzzer, console
# replies: face.py). Nothing leaves the device before the state that follows it is on flash,
# so a reset or a power cut at any moment never shows what the flash does not hold. A pass
# that answers a press shows its view quick (odds not worked out say "..."); a quiet pass
# after it works them out, collects garbage, or does one step of the store's idle work.
# Two rare paths are imported on first use and kept: protocol.py (the USB console) on the
# first byte on the console, selftest.py with DRAW held at power-on.
import gc
import select
import sys

from . import config, controller
from .face import DARK, Face
from .rng import Rng
from .store import Store

try:
    from micropython import const, kbd_intr
except ImportError:  # CPython (the tests, the tools): no interrupt key to turn off; const(n) is n
    kbd_intr = None  # type: ignore[assignment]
    const = int  # type: ignore[assignment]

_IDLE_WORK_MS = const(200)  # the store's idle work (an erase at a time) waits this long after input
_COLLECT_MS = const(5000)   # garbage is collected at least this often, in a pass with nothing to do
# MicroPython collects when an allocation finds no room, in whatever pass that is: in a
# draw's pass that would hold the LED back by a collection (about 30 ms on the chip). So the
# app collects in the first quiet pass after a busy one, and at the end of the SWEEP_PASSES-th
# busy pass in a row (fingers on every button: no quiet pass comes). CPython: not needed.
SWEEP_PASSES = 6
COLLECT = getattr(gc, "mem_free", None) and gc.collect



class App:
    def __init__(self, board, store, rng=None, now_ms=0, write=print, safe=False):
        self.board = board
        self.store = store
        self.write = write          # where console replies go without a port: a str sink
        settings, notice = store.load_settings()
        # the log's last action, played again (R14); a safe boot (two failed in a row) leaves
        # it, in case it is what failed: set-up, said on screen and logged
        records, hint = (None, "") if safe else store.open_action()
        c = self.controller = controller.Controller(settings, rng, now_ms, replay=(records, hint))
        if c.play is not None:
            c.record("resume", screen=c.view().screen)
        if safe:
            c.record("safe", boots=safe)
            c.say("Safe start", "Two starts failed: the last action is not resumed. "
                  "Export the log for the referee.")
        self.face = Face(board, now_ms)
        self.face.notice(notice)
        self.applied = None         # the settings_version the board was set up for
        self.committed = None       # the settings_version on flash (None: compared at first)
        self.busy = now_ms          # the last pass that answered a press or a console line
        self.collected = now_ms     # the last pass that collected garbage (None: due now)
        self.unswept = 0            # busy passes since the last collection
        self.console = None         # protocol.Console, once a byte has come on the console
        self.listening = None       # {"stream", "poll", "out"} watched for that first byte
        self.selftest = None        # selftest.SelfTest while the power-on self-test runs
        self.last_error = None      # the last error logged: one that repeats is logged once
        self.warmed = 0             # steps of warm() taken after boot
        self.apply_settings()

    def apply_settings(self):
        c = self.controller
        if self.applied != c.settings_version:
            self.applied = c.settings_version
            self.board.display.brightness(c.settings["brightness"])
            self.board.buzzer.enabled = c.settings["buzzer"]

    # -- input -----------------------------------------------------------------------------------
    def button(self, name, kind, now):
        """A press, from the buttons or the console's `press`/`long`. Every press counts: only
        the one that turns a dark display on is spent on waking it (a dimmed one acts), and
        the one that ends a bench test; during the timed warning even that one acts (R21:
        STOP then stops at once, the draw does not wait)."""
        face = self.face
        console = self.console
        if console is not None and console.test is not None:
            console.test.press(console, name, kind)
            self.wake(now)
            return
        dark = face.idle == DARK
        self.wake(now)
        if dark and not self.controller.warn:
            return
        face.error = None
        long = kind == "long"
        if long:  # the long press registered (a screen's own beep, if any, then replaces it)
            self.board.buzzer.play("click", now)
        self.controller.press(name, now, long)

    def wake(self, now):
        """Someone is here: the display awake and the idle clock restarted."""
        self.face.wake(self.controller, now)

    # -- the USB console: a tiny hook here, the rest in protocol.py ------------------------------
    def listen(self, stream, out=None):
        """Watch `stream` (sys.stdin on the board) for the bench protocol; nothing of the
        protocol is loaded until a byte arrives. `out` (sys.stdout on the board): replies
        are written only as it can take them; without it they go to `write`."""
        poll = select.poll()
        poll.register(stream, select.POLLIN)
        self.listening = {"stream": stream, "poll": poll, "out": out}

    def open_console(self):
        if self.console is None:
            from . import protocol
            got = self.listening  # None: lines only through line()
            self.console = protocol.Console(self, got and got["stream"], got and got["out"],
                                            self.write)
            self.listening = None
        return self.console

    def line(self, text):
        """A bench-protocol line (from a test or a tool): queued, run in order by the pass."""
        self.open_console().line(text)

    # -- one pass of the loop --------------------------------------------------------------------
    def loop_pass(self, now):
        """One pass, as the board, the simulator and the tests all run it: the app's work (or
        the self-test's), an exception shown and logged instead of stopping the loop, then
        the watchdog fed. -> False if the pass raised."""
        ok = True
        try:
            test = self.selftest
            if test is None:
                self.update(now)
            elif test.step(now):  # the self-test ended: the app starts now
                self.selftest = None
                self.wake(now)        # idle, notices and the display
                self.face.drawn = None
                self.applied = None   # the self-test had the buzzer on whatever the settings
                self.apply_settings()
        except Exception as e:  # noqa: BLE001 -- the loop must go on
            ok = False
            self.fail(e)
        wdt = self.board.wdt
        if wdt is not None:
            wdt.feed()
        return ok

    def update(self, now):
        """The app's work in a pass: inputs, controller, persist, reveal, then idle work. A
        code try entered in a pass is compared in the next, once its count is on flash."""
        c = self.controller
        store = self.store
        settled = c.settle(self.committed == c.settings_version and not store.waiting())
        if c.play is None:  # on set-up: may a new action start?
            c.room(store.room_for_action())
        listening = self.listening
        if listening is not None and listening["poll"].poll(0):
            self.open_console()
        console = self.console
        if console is not None:
            console.read()
        events = self.board.buttons.poll(now, c.shown.longs)
        for name, kind in events:
            self.button(name, kind, now)
        ran = console is not None and console.serve(now)
        c.tick(now, False)
        answered = bool(events or ran)
        if answered or settled:
            self.busy = now
        self.persist()
        face = self.face
        drawn = face.drawn
        # the reveal: the controller's view (face.py), but for a bench test's LED and display
        if console is not None and console.test is not None:
            self.board.buzzer.update(now)
        else:
            face.show(c, store, now, answered)
        if console is not None:
            console.send()
        if answered or face.drawn is not drawn:
            self.collected = None   # this pass's garbage: collected in the next quiet one
            self.unswept += not ran  # (the console's jobs leave quiet passes of their own)
            if COLLECT and self.unswept >= SWEEP_PASSES:  # no quiet pass for a while: now,
                COLLECT()                                  # its reveal done
                self.unswept = 0
        elif self.collected is None or now - self.collected >= _COLLECT_MS:
            if COLLECT:
                COLLECT()
            self.collected = now    # the idle work waits for the next pass
            self.unswept = 0
        elif now - self.busy >= _IDLE_WORK_MS:
            # one step: the next draws' random bits (hashed ahead: none in a draw's pass), or
            # the store's (an erase at most); the odds were worked out by the reveal's view
            rng = c.rng
            if not (isinstance(rng, Rng) and rng.ready() or self.warm()):
                store.housekeep()
        face.idle_check(c, now)
        if face.sleep_at is not None and now - face.sleep_at >= 0 and not store.waiting():
            face.sleep_at = None  # (on the board sleep never returns: the switch resets it)
            self.board.sleep()    # the cell is empty (face.battery_check): all on flash

    def warm(self):
        """What set-up's first frame does not need (the action's side, the referee's
        screens), imported in the idle passes after it, a step a pass, and kept: a boot's
        first frame comes the sooner, and the first DRAW finds them. -> whether a step."""
        step = self.warmed
        if step > 2:
            return False
        self.warmed = step + 1
        if step == 0:
            from . import play  # noqa: F401 -- and the engine's Action, saved.py
        elif step == 1:
            from . import playscreens  # noqa: F401
        else:
            from . import referee  # noqa: F401
        return True

    def persist(self):
        """What the pass changed, on flash before anything of it is shown: the controller's
        records, its settings and its hint, one journal entry (store.commit). A flash that
        refuses is tried again next pass, and its notice says so. -> whether it is all on
        flash."""
        c = self.controller
        changed = c.settings_version != self.committed  # else the store has them already
        ok = self.store.commit(c.take_log(), c.settings if changed else None, c.hint())
        if ok:
            self.committed = c.settings_version
        self.apply_settings()
        return ok

    def fail(self, exc):
        """An unexpected exception: logged (once while it repeats), shown until a press."""
        why = "%s: %s" % (type(exc).__name__, exc)
        if why != self.last_error:  # a fault that repeats every pass is logged once, not 50/s
            self.last_error = why
            self.controller.record("error", why=why[:200])  # on flash with the next pass
        self.face.fail(why)

    # -- the power-on self-test ------------------------------------------------------------------
    def begin_selftest(self, now):
        """Run the power-on self-test (selftest.py) in the passes to come; the app starts when
        it ends. Not while a timed action is open (R21: nothing a player does holds the next
        draw back): the screen says so and play goes on. -> whether it runs."""
        c = self.controller
        if c.play is not None and c.settings["timed"] and c.action.state == "active":
            c.say("No self-test", "Not while a timed action is open: end it first.",
                  beep="warn")
            return False
        from . import selftest  # a rare path: imported on first use, kept
        self.selftest = selftest.SelfTest(self.board, self.store, now)
        return True

    # -- the board's loop ------------------------------------------------------------------------
    def usb_interrupt(self, on):
        """The interrupt key (Ctrl-C) on the USB console: off while the app runs (it would end
        main.py and open the REPL, where anyone could read and change the files); on in
        maintenance (bench mode's `maint`). -> False where there is no such key (CPython)."""
        if kbd_intr is None:
            return False
        kbd_intr(3 if on else -1)
        return True

    async def run(self, stream=None):
        """The board's loop: loop_pass every LOOP_MS (or as a press's debounce ends), the
        watchdog started first; `stream` (sys.stdin) is the USB console."""
        import asyncio  # here, not at the top: the first frame does not wait for it
        board = self.board
        self.usb_interrupt(False)
        if board.wdt is None:
            board.watchdog(config.WATCHDOG_MS)
        if stream is not None:
            self.listen(stream, sys.stdout)
        buttons = board.buttons
        buttons.stamp_edges(board.ticks_ms)
        # ticks_ms wraps (every 2**30 ms on the RP2040) and ticks_diff is right only under
        # 2**29 ms (6.2 days): the count that never wraps moves on by each pass's own step
        last = board.ticks_ms()
        now = self.face.last_input
        while True:
            t = board.ticks_ms()
            now += board.ticks_diff(t, last)
            last = t
            self.loop_pass(now)
            # the next pass LOOP_MS on, or as the debounce of an edge the pins stamped ends
            # (board.Buttons.wake): a press acts then, not up to LOOP_MS later
            wait = config.LOOP_MS
            if now < buttons.wake:
                wait = max(0, min(wait, buttons.wake - now - board.ticks_diff(board.ticks_ms(), t)))
            await asyncio.sleep_ms(wait)


def main():
    """Start the device: called by main.py on the board. The watchdog first: a boot that hangs
    resets. After two boots in a row that failed with an exception (fatal() counts them on
    flash; a first frame puts the count back to 0; a power cut counts nothing, so switching
    off is no way to it) the device comes up safe. DRAW held at power-on runs the self-test
    first (tools/sim/simhost.py boots the same way)."""
    from .board import Board  # here: only the board has `machine` to import
    board = Board()
    board.watchdog(config.WATCHDOG_MS)
    store = Store()
    failed = store.boots()
    app = App(board, store, None, board.ticks_ms(), safe=failed if failed >= 2 else 0)
    if "DRAW" in board.buttons.held():
        app.begin_selftest(app.face.last_input)
    app.loop_pass(app.face.last_input)  # the first frame: this boot came up
    store.boots(False)
    gc.collect()  # boot's garbage (the files read) goes now, not mid-draw
    import asyncio
    asyncio.run(app.run(sys.stdin))


def fatal(exc):
    """An exception out of the app, at boot or in the loop (main.py calls this, then resets
    the board: never the REPL): logged and shown where that still works."""
    why = "%s: %s" % (type(exc).__name__, exc)
    try:
        store = Store()
        store.boots(True)  # two in a row: the next boot comes up safe
        store.log({"ev": "error", "why": why[:200], "fatal": True})
    except Exception:  # noqa: BLE001 -- the flash may be what failed
        pass
    try:
        from .board import Board
        from .render import View, render
        display = Board().display
        render(View("error", ["Restarting", why[:16], why[16:32], why[32:48]]), display)
        display.show()
        import time
        time.sleep_ms(3000)  # read, under the watchdog's 5 s
    except Exception:  # noqa: BLE001 -- the display may be what failed
        pass
