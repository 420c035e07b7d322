# The reveal, the last part of a loop pass: the LED, the display and the buzzer show what the
# controller says, after the persist (app.py). The LED first (a drawn card's colour before
# its frame is worked out), then the display, only when the view changed and then only what
# changed (render.py, ssd1306.py), then the sounds. Also what the display adds of its own: the
# notices on the bottom line, the battery icon, an error until the next press, and dimming
# when nobody has pressed for a while. Pure but for the board it is given.
from . import config, render
from .render import const  # micropython's (render's stand-in under CPython): one import

_NOTICE_MS = const(4000)   # a notice (a damaged file, an error) stays this long on the bottom line
_NOTICES_MAX = const(8)    # notices waiting; more are dropped (a repeat is never queued twice)
_BLINK_MS = const(250)     # the LED's blink in the timed warning (R21)
_LOW_BATTERY = const(15)   # percent: below it the device says the battery is low, once
_BATTERY_MS = const(5000)  # the battery is read this often (8 ADC reads each), not every pass
_AWAKE = const(0)          # Face.idle: the display on ...
_DIMMED = const(1)         # ... dimmed ...
DARK = 2                   # ... or off


class Face:
    # what a new Face starts with (set on the instance when they change)
    drawn = None        # the View on the display (None: not known, drawn whole)
    battery = None      # the battery icon's percent, in steps of 10
    low_said = False    # the low battery was said (said again only once charged)
    empty_reads = 0     # readings in a row at or under empty, off USB
    sleep_at = None     # the cell is empty: the device sleeps then (app.py)
    idle = _AWAKE
    screen = None       # the screen last shown: a change is activity, pressed or not
    error = None        # an error View, shown until the next press

    def __init__(self, board, now):
        self.board = board
        self.battery_at = now - _BATTERY_MS  # when the battery was last read (due at once)
        self.notices = []        # the bottom line's notices, oldest first
        self.notice_until = now + _NOTICE_MS
        self.last_input = now    # the last press: the display dims and goes dark after it

    def notice(self, text):
        notices = self.notices
        if text and text not in notices and len(notices) < _NOTICES_MAX:
            notices.append(text)

    def wake(self, ctl, now):
        """Someone is here, or something to see: the idle clock restarted, and a dimmed or
        dark display on again at the settings' brightness, drawn whole."""
        self.last_input = now
        if self.idle:
            self.idle = _AWAKE
            display = self.board.display
            display.sleep(False)
            display.brightness(ctl.settings["brightness"])
            self.drawn = None

    def show(self, ctl, store, now, quick):
        """LED, display, buzzer: the controller's view (quick: odds may show "..."), or the
        error on show; store: where the notices come from. The display is drawn only when
        the view is not what it shows already."""
        board = self.board
        error = self.error
        if error:  # a View
            led = error.led
        else:  # the card's colour, or white blinking during the warning (R21)
            led = ctl.led(quick)
            if ctl.warn and now // _BLINK_MS % 2:
                led = None
        board.led.show(led)  # first: a drawn card's colour before its frame is worked out
        view = error or ctl.view(quick)
        notices = self.notices
        for text in store.take_notices():
            if not notices:
                self.notice_until = now + _NOTICE_MS  # a fresh notice gets its full time
            self.notice(text)
        if notices and now >= self.notice_until:
            notices.pop(0)
            self.notice_until = now + _NOTICE_MS
        if notices:
            lines = view.lines[:config.ROWS - 1]
            lines.append(notices[0][:config.COLS])
            view = render.View(view.screen, lines, view.led, view.blink)
        if view.screen != self.screen:  # a new screen, by a press or by itself (the summary,
            self.screen = view.screen    # a timed card): at full brightness, the clock anew
            self.wake(ctl, now)
        if self.idle != DARK:
            if now - self.battery_at >= _BATTERY_MS:
                self.battery_at = now
                icon = self.battery_check(ctl, store, now) // 10 * 10
                if icon != self.battery:
                    self.battery = icon
                    self.drawn = None  # the icon changed: the frame drawn whole
            drawn = self.drawn
            if not (drawn is view or view == drawn):
                self.drawn = None  # not known while a render runs: one stopped half way left half
                render.render(view, board.display, self.battery, drawn)
                board.display.show()
                self.drawn = view
        buzzer = board.buzzer
        for pattern in ctl.take_beeps():
            buzzer.play(pattern, now)
        buzzer.update(now)

    def battery_check(self, ctl, store, now):
        """The cell read (not while the buzzer sounds: it pulls VSYS down). Below _LOW_BATTERY
        percent the device says so in words, once, and logs it (again only after a charge
        above _LOW_BATTERY + 10); at empty for BATTERY_EMPTY_READS readings in a row, off USB,
        it says so, logs it and sleeps in a few seconds (sleep_at), not running the cell flat.
        -> the percent."""
        battery = self.board.battery
        mv = battery.millivolts()
        percent = battery.percent(mv)
        if self.board.buzzer.playing:
            return percent
        if percent < _LOW_BATTERY and not self.low_said:
            self.low_said = True
            store.notice("Battery low: %d%%" % percent)
            ctl.record("battery", percent=percent)
        elif percent >= _LOW_BATTERY + 10:
            self.low_said = False
        empty = mv <= battery.empty_mv and not battery.on_usb(mv)
        self.empty_reads = self.empty_reads + 1 if empty else 0
        if self.empty_reads >= config.BATTERY_EMPTY_READS and self.sleep_at is None:
            store.notice("Battery empty: charge it")
            ctl.record("battery", percent=0, empty=True, mv=mv)
            self.sleep_at = now + _NOTICE_MS  # the notice read, the record on flash
            self.empty_reads = 0             # (woken, it reads afresh before sleeping again)
        return percent

    def idle_check(self, ctl, now):
        """Dim after DIM_AFTER_MS without a press, dark after OFF_AFTER_MS; never while an
        action draws or finishes (the rules' cadence is a draw every 30-60 s: R21, R23), and
        the timed warning wakes it for the card it draws."""
        play = ctl.play
        if ctl.warn or play and (play.action.state == "active"
                                             or ctl.screen == "finishing"):
            self.wake(ctl, now)
        idle_for = now - self.last_input
        display = self.board.display
        if self.idle == _AWAKE and idle_for >= config.DIM_AFTER_MS:
            self.idle = _DIMMED
            display.contrast(0)
        elif self.idle == _DIMMED and idle_for >= config.OFF_AFTER_MS:
            self.idle = DARK
            display.sleep(True)

    def fail(self, text):
        """An error shown until the next press; text: what went wrong."""
        cols = config.COLS
        self.error = render.View("error", ["ERROR", text[:cols], text[cols:2 * cols],
                                           text[2 * cols:3 * cols], "", "", "any key: go on",
                                           ""], "red")
        self.drawn = None
