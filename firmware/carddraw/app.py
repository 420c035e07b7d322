# The shell: one loop wiring board -> controller -> LED / buzzer / display, and the store.
# App.loop_pass(now_ms) is one pass of the loop, guarded (an exception is shown and logged)
# and ending with the watchdog fed; it takes the time as an argument, so the simulator runs
# the very same passes on simulated time. App.run() is the board's asyncio loop around it.
# A pass, always in this order: inputs (buttons, console lines) -> controller -> persist
# (what the pass changed, one journal entry on flash) -> reveal (LED, display, buzzer,
# console replies). Nothing leaves the device before the state that follows it is on
# flash, so a reset or a power cut at any moment never shows what the flash does not hold.
# A pass that answers a press shows its view quick (odds still to work out say "..."); the
# passes after it, with nothing to answer, work them out and do the store's idle work.
# Two rare paths are imported on first use and kept: protocol.py (the USB console and the
# bench commands) on the first byte on the console, selftest.py (the power-on self-test, run
# by loop_pass in place of the app's own work) with DRAW held at power-on.
import asyncio
import gc
import json
import select
import sys

from carddraw import config
from carddraw.controller import Controller
from carddraw.render import View, prepare, render
from carddraw.rng import Rng
from carddraw.store import Store

try:
    from micropython import kbd_intr
except ImportError:  # CPython (the tests, the tools): there is no interrupt key to turn off
    kbd_intr = None  # type: ignore[assignment]

NOTICE_MS = 4000      # a notice (a damaged file, an error) stays this long on the bottom line
IDLE_WORK_MS = 200    # the store's idle work (an erase at a time) waits this long after input
BLINK_MS = 250
LOW_BATTERY = 15      # percent: below it the device says the battery is low, once
BATTERY_MS = 5000     # the battery is read this often, not every loop pass (8 ADC reads each)
COLLECT_MS = 5000     # garbage is collected at least this often, in a pass with nothing to do
# MicroPython collects garbage when an allocation finds no room, in whatever pass it is: in a
# draw's pass that would hold the LED back by a whole collection (about 30 ms on the chip).
# So the app collects itself, in the first quiet pass after every press or frame (and every
# COLLECT_MS), and a press always finds the heap swept. CPython has no such heap: not there.
COLLECT = getattr(gc, "mem_free", None) and gc.collect
# Presses with no quiet pass between (fingers on every button, a soak) would leave
# MicroPython to collect once the heap is full, in whichever allocation found it so:
# mid-pass, with that pass's objects live among the garbage, the heap then fragmented (the
# 200 KB native soak failed to allocate a few hundred bytes with 40 KB free). So after
# SWEEP_PASSES busy passes in a row, the last collects at its end, its reveal done (one
# that only drew a frame of its own, after half as many). (The console's export runs over
# many passes too, and leaves one quiet now and then for it: logexport.QUIET. A pass never
# collects beside its flash work or its log lines.)
SWEEP_PASSES = 6


class App:
    bench = None        # bench mode (protocol.py): the time of the last console line since
    maint = False       # `unlock CODE`, None when locked; maint: the interrupt key is on
    restart_at = None   # maint's reset is due then (protocol.restart)
    replies_dropped = 0  # replies a host that did not read cost (protocol.queue)
    job = None          # a console line that runs over passes (the `log` export)

    def __init__(self, board, store, rng=None, now_ms=0, write=print):
        self.board = board
        self.store = store
        self.write = write          # where protocol replies go: a function taking one str
        self.replies = []           # reply lines waiting for the reveal (protocol.send)
        self.notices = []           # the bottom line's notices, oldest first
        settings, notice = store.load_settings()
        self._notice(notice)
        records, hint = store.open_action()  # the log's last action, played again (R14)
        self.controller = Controller(settings, rng, now_ms, replay=(records, hint))
        if self.controller.play is not None:
            self.controller.record("resume", screen=self.controller.view().screen)
        self.settings_version = self.controller.settings_version
        self.committed = None       # the settings_version on flash (None: compared at the first)
        self.busy = now_ms          # the last pass that answered a press or a console line
        self.collected = now_ms     # the last pass that collected garbage (None: due now)
        self.unswept = 0            # busy passes since the last collection
        self.last_input = now_ms
        self.idle = 0               # 0 awake, 1 dimmed, 2 display off
        self.drawn = None           # (screen, lines, battery, art) last sent to the display
        self.on_show = None         # ... and the View they came from
        self.battery = 0            # battery level in tenths, read every BATTERY_MS
        self.battery_at = None
        self.error = None           # an error View shown until the next press
        self.last_error = None      # the last error logged
        self.queue = []             # protocol lines waiting
        self.wait_until = None      # a `wait` (or `test button`) in progress holds the queue
        self.test = None            # a bench test (protocol.Test) owning the LED and display
        self.protocol = None        # the protocol module, once a line has come
        self.console = None         # protocol.Console, once a byte has come on the console
        self.listening = None       # (stream, select.poll) watched for that first byte
        self.selftest = None        # selftest.SelfTest while the power-on self-test runs
        self.notice_until = now_ms + NOTICE_MS
        self.apply_settings()
        # the pictures drawn once now, so that a press's pass only copies them
        prepare(getattr(board.display, "buffer", None))

    def _notice(self, text):
        if text and text not in self.notices:
            self.notices.append(text)

    def apply_settings(self):
        s = self.controller.settings
        self.board.display.brightness(s["brightness"])
        self.board.buzzer.enabled = s["buzzer"]

    # -- input -----------------------------------------------------------------------------------
    def button(self, name, kind, now):
        """A press, from the buttons or the console's `press`/`long`. The press that wakes a
        dimmed or dark display, or ends a bench test (answering `test button`), does nothing
        else; but during the timed warning a press acts as well (R21: STOP then stops at
        once, the draw does not wait)."""
        self.last_input = now
        if self.test is not None:
            self.test.press(self, name, kind)
            self.wake()
            return
        if self.idle:
            self.wake()
            if not self.controller.warn:
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

    # -- the USB console: a tiny hook here, the rest in protocol.py ------------------------------
    def listen(self, stream, out=None):
        """Watch `stream` (sys.stdin on the board) for the bench protocol; nothing of the
        protocol is loaded until a byte arrives. `out` (sys.stdout on the board): replies
        are written to it only as it can take them (protocol.Console.send); without it they
        go to `write`, a sink that never blocks (the simulator, the tests)."""
        poll = select.poll()
        poll.register(stream, select.POLLIN)
        self.listening = (stream, poll, out)

    def read_console(self):
        if self.console is None:
            if self.listening is None or not self.listening[1].poll(0):
                return
            stream, _, out = self.listening
            self.console = self.load_protocol().Console(stream, self.reply, out)
            self.listening = None
        for text in self.console.lines():
            self.line(text)

    def load_protocol(self):
        if self.protocol is None:
            from carddraw import protocol
            self.protocol = protocol
        return self.protocol

    def line(self, text):
        """A bench-protocol line (from the console, or a test): queued, run in order by the
        loop pass (protocol.line, protocol.serve)."""
        self.load_protocol().line(self, text)

    def reply(self, obj):
        """A reply line, sent in the pass's reveal (protocol.send), after the persist."""
        self.load_protocol().queue(self, json.dumps(obj))

    def end_test(self):
        """Back to the normal view after a bench test."""
        self.test = None
        self.drawn = None

    # -- one pass of the loop --------------------------------------------------------------------
    def loop_pass(self, now):
        """One pass, as the board, the simulator and the tests all run it: the app's work (or
        the self-test's), an exception shown and logged instead of stopping the loop, then
        the watchdog fed. -> False if the pass raised."""
        ok = True
        try:
            if self.selftest is not None:
                self.selftest_pass(now)
            else:
                self.read_console()
                self.update(now)
        except Exception as e:  # noqa: BLE001 -- the loop must go on
            ok = False
            self.fail(e, now)
        wdt = getattr(self.board, "wdt", None)
        if wdt is not None:
            wdt.feed()
        return ok

    def update(self, now):
        """The app's work in a pass: inputs, controller, persist, reveal, then idle work. The
        controller's clock does not settle: a code try entered in a pass is compared in the
        next, once its count is on flash (nothing of the pass before held back), and that
        comparison is persisted with the rest of its pass: one commit a pass (a second in
        the same pass opened its own journal slot, and took the pass over 100 ms)."""
        c = self.controller
        settled = (self.committed == c.settings_version and not self.store.waiting()
                   and c.settle())
        if c.play is None:  # on set-up: may a new action start?
            c.room(self.store.room_for_action())
        events = self.board.buttons.poll(now)
        for name, kind in events:
            self.button(name, kind, now)
        ran = self.protocol is not None and self.protocol.serve(self, now)
        c.tick(now, False)
        if events or ran or settled:
            self.busy = now
        self.persist()
        drawn = self.drawn  # a new key only when a frame is sent
        self.output(now, bool(events or ran))
        if self.protocol is not None:
            self.protocol.send(self)
        answered = events or ran
        if answered or self.drawn is not drawn:
            self.collected = None   # this pass's garbage: collected in the next quiet one
            self.unswept += not ran  # (a console line's passes: the export leaves quiet ones)
            # no quiet pass for a while: now, this pass's reveal done and its garbage dead;
            # from half the count on if it answered nothing (a frame of its own: a countdown,
            # odds worked out), so that a press or a line that comes next does not carry a
            # collection as well (the two in one pass came near 100 ms)
            if COLLECT and (self.unswept >= SWEEP_PASSES
                            or self.unswept >= SWEEP_PASSES // 2 and not answered):
                COLLECT()
                self.unswept = 0
        elif self.collected is None or now - self.collected >= COLLECT_MS:
            if COLLECT:
                COLLECT()
            self.collected = now    # and the store's idle work waits for the next pass
            self.unswept = 0
        elif now - self.busy >= IDLE_WORK_MS:
            # the next draws' random bits (a test's stand-in rng has none), else the next
            # DRAW press's draw worked out ahead (Play.ahead), else the store's work: one
            # step, an erase at most
            rng, play = c.rng, c.play
            if not (isinstance(rng, Rng) and (rng.ready() or play is not None and play.ahead())):
                self.store.housekeep()
        self.idle_check(now)

    # -- the power-on self-test ------------------------------------------------------------------
    def begin_selftest(self, now):
        """Run the power-on self-test (selftest.py) in the loop passes to come; the app starts
        when it ends. Protocol lines typed meanwhile wait on the console. Not while a timed
        action is open (R21: nothing a player does holds the next draw back; the test would
        stop its clock): the screen says so and play goes on. -> whether it runs."""
        c = self.controller
        if c.play is not None and c.settings["timed"] and c.action.state == "active":
            c.say("No self-test", "Not while a timed action is open: end it first.",
                  beep="warn")
            return False
        from carddraw.selftest import SelfTest  # a rare path: imported on first use, kept
        self.selftest = SelfTest(self.board, self.store, now)
        return True

    def selftest_pass(self, now):
        test = self.selftest
        if test is None or not test.step(now):
            return
        self.selftest = None
        self.last_input = now           # the app starts now: idle, notices and the display
        self.notice_until = now + NOTICE_MS
        self.drawn = None
        self.apply_settings()           # the self-test had the buzzer on whatever the settings

    def persist(self):
        """What the pass changed, on flash before anything of it is shown: the controller's
        records, its settings and its hint, one journal entry (store.commit). A flash that
        refuses is tried again next pass, and its notice says so on screen. -> whether it
        is all on flash."""
        c = self.controller
        changed = c.settings_version != self.committed  # else the store has them already
        ok = self.store.commit(c.take_records(), c.settings if changed else None, c.hint())
        if ok:
            self.committed = c.settings_version
        if c.settings_version != self.settings_version:
            self.settings_version = c.settings_version
            self.apply_settings()
        return ok

    def output(self, now, quick=False):
        """LED first, then the display, and the display only if the view changed, then the
        buzzer (a drawn card's sound starts a few ms after its frame: nobody hears that, and
        its frame comes sooner). quick: the view may leave its odds out (the pass answered
        a press)."""
        board = self.board
        if self.test is not None:  # the test shows what it tests; the normal view waits
            self.test.output(self)
            board.buzzer.update(now)
            return
        error = self.error
        if error is not None:
            led, blink = error.led, error.blink
        else:  # as its view: the card's colour, or white blinking during the warning (R21)
            c = self.controller
            led, play = c.led(quick), c.play
            blink = play is not None and play.warn > 0
        if blink and (now // BLINK_MS) % 2:
            led = None
        board.led.show(led)  # first: a drawn card's colour before its frame is worked out
        view = error or self.controller.view(quick)
        for text in self.store.take_notices():  # the one notice channel: the store's
            if not self.notices:
                self.notice_until = now + NOTICE_MS  # a fresh notice gets its full time
            self._notice(text)  # boot notices come back from load_* as well
        if self.notices and now - self.notice_until >= 0:
            self.notices.pop(0)
            self.notice_until = now + NOTICE_MS
        if self.notices:
            view = View(view.screen, view.lines[:config.ROWS - 1] + [self.notices[0][:config.COLS]],
                        view.led, view.blink)
        if self.idle != 2:
            self.show_view(view, now)
        for pattern in self.controller.take_beeps():
            board.buzzer.play(pattern, now)
        board.buzzer.update(now)

    def show_view(self, view, now):
        """The view on the display, if it is not what the display shows already."""
        board = self.board
        if self.battery_at is None or now - self.battery_at >= BATTERY_MS:
            percent = board.battery.percent()
            self.battery = percent // 10  # the icon has 10 steps
            self.battery_at = now
            self.battery_low(percent, now)
        drawn = self.drawn
        if drawn is not None and self.on_show is view and drawn[2] == self.battery:
            return          # the view on show again costs nothing; another is compared
        art = view.art  # by what it shows: a picture, or the lines (a picture's are not
        key = (view.screen, None if art else tuple(view.lines), self.battery, art)  # drawn)
        if key != drawn:
            display = board.display  # its plain FrameBuffer, where it has one (ssd1306.py)
            canvas = getattr(display, "canvas", None)  # and its bytes, for render's blits
            # drawn is the frame on the canvas (anything else drawing there resets it), and
            # not known once a render has begun (one stopped half way left half a frame)
            self.drawn = None
            render(view, canvas or display, key[2] * 10,
                   drawn and (drawn[3], drawn[2] * 10, drawn[1]), canvas and display.buffer)
            display.show()
            self.drawn = key
        self.on_show = view

    low_said = False    # the low battery was said (set again only once charged)

    def battery_low(self, percent, now):
        """Below LOW_BATTERY percent the device says so in words, once (a notice, not on every
        frame), and logs it; it says so again only after a charge above LOW_BATTERY + 10."""
        if percent < LOW_BATTERY and not self.low_said:
            self.low_said = True
            self.store.notice("Battery low: %d%%" % percent)
            self.controller.record("battery", percent=percent)
        elif percent >= LOW_BATTERY + 10:
            self.low_said = False

    def idle_check(self, now):
        if self.controller.warn:  # R21: the timed warning wakes the display and keeps it
            self.last_input = now  # awake for the card it draws
            if self.idle:
                self.wake()
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
            self.controller.record("error", why=why[:200])  # on flash with the next pass
        cols = config.COLS
        self.error = View("error", ["ERROR", why[:cols], why[cols:2 * cols],
                                    why[2 * cols:3 * cols], "", "", "any key: go on", ""],
                          "red", False)
        self.drawn = None

    # -- the board's loop ------------------------------------------------------------------------
    def usb_interrupt(self, on):
        """The interrupt key (Ctrl-C) on the USB console. Off while the app runs: it would end
        main.py and open the REPL, where anyone could read and change the files (settings,
        the action in progress, the log). On in maintenance (the protocol's `maint`, in bench
        mode only), so that mpremote can stop the app. -> False on a port without
        micropython.kbd_intr (CPython), where there is no key to turn off."""
        if kbd_intr is None:
            return False
        kbd_intr(3 if on else -1)
        return True

    async def run(self, stream=None):
        """The board's loop: loop_pass every LOOP_MS, the watchdog started first; `stream`
        (sys.stdin) is the USB console. The interrupt key is off from here on (usb_interrupt)."""
        board = self.board
        self.usb_interrupt(False)
        board.watchdog(config.WATCHDOG_MS)
        if stream is not None:
            self.listen(stream, sys.stdout)
        # ticks_ms wraps (every 2**30 ms on the RP2040); the controller gets a count that never does
        start = board.ticks_ms()
        base = self.last_input
        while True:
            t = board.ticks_ms()
            now = base + board.ticks_diff(t, start)
            if now - base > 1 << 29:  # re-anchor long before ticks_diff's range runs out
                start = t
                base = now
            self.loop_pass(now)
            await asyncio.sleep_ms(config.LOOP_MS)


def main():
    """Start the device: called by main.py on the board. DRAW held at power-on runs the
    self-test first (tools/sim/simhost.py boots the same way)."""
    from carddraw.board import Board  # here: only the board has `machine` to import
    board = Board()
    app = App(board, Store(), None, board.ticks_ms())  # rng None: the controller's own (R9)
    if "DRAW" in board.buttons.held():
        app.begin_selftest(app.last_input)
    gc.collect()  # boot's garbage (the files read) goes now, not mid-draw
    asyncio.run(app.run(sys.stdin))
