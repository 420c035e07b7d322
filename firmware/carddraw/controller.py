"""Button events and the clock -> the screen on show and the action in play -> a View.

Pure: time comes in as now_ms, randomness as an rng with randrange(n), so CPython, the
simulator and the board run the same code. The controller holds the screen on show (each
screen an object with press/long/tick/lines/art and its own state) and the action in play
(play.Play, or None at set-up); the code's tries are its Lockout's. Hold STOP opens the
referee lock on any screen, a referee screen left alone IDLE_MS closes, the timed draw runs
whatever the screen (R21). An exception never stops the device: the engine's refusal is said
on screen, anything else logged and shown. Drawing never changes state: view() builds a View
and keeps it until something changes; view(quick=True), in a pass that answers a press,
shows "..." for odds that a later pass's full view() works out. After a power cut the log's
last action is played again (replay): switching off is no escape from a black card (R14).
"""
from . import config, render, settings as known
from .deck import RuleError
from .rng import Rng
from .screens import Message, Plan, Setup

IDLE_MS = 30000  # the lock and the referee screens close after this long untouched


class Controller:
    def __init__(self, settings=None, rng=None, now_ms=0, replay=None):
        self.settings = known.check(settings)[0]
        self.settings_version = 0  # moves on each change of the settings
        self.now = now_ms
        self.rng = Rng() if rng is None else rng  # R9: the device's own, from hardware entropy
        self.seeded = False        # seed() chose the cards: every record and screen says so
        self.play = None           # the action in play (play.Play)
        self.chained = False       # R17: the next action is chained
        self.log_room = True       # the log can hold a new action to its end (the app says)
        self._lockout = None       # the code's tries (lockout), made at their first use, or
        if self.settings["lock_fails"] or self.settings["recovery_fails"]:  # now: a wait due
            self._lockout = self.lockout                                  # runs from the boot
        self.idle = now_ms         # the last press: the referee screens close IDLE_MS after
        self.shown = Setup(self)   # the screen on show
        self._records = render.Queue()   # for the app's next persist
        self._beeps = render.Queue()     # for its buzzer
        self._view = None
        self.plan = Plan(self)     # the action set-up would start, and its odds
        # replay: (the log's last action's records, the hint). A hint of "x" is set-up, on
        # flash in the same journal entry as the records: the last action was put away, so
        # the boot neither reads it nor imports the action's side
        if replay and replay[0] is not None and "x" not in replay[1]:
            # after a power cut the log's last action played again (play.Play.replay);
            # unreadable: set-up, said on screen, and records that make no action close it
            # as lost (R14: no escape from a black)
            try:
                from .play import Play  # (the action's side: app.WARM, after boot)
                self.play = Play.replay(self, *replay)
            except Exception as e:
                self.record("end", outcome="lost", why=str(e)[:80])
                self.say("Not resumed", "The action in the log is unreadable: %s" % e,
                         Setup(self))
            else:
                self.shown = self.home()

    def press(self, name, now_ms, long=False):
        """A button press (long: a long one); a name not in config.BUTTONS does nothing."""
        self.now = now_ms
        self._view = None
        if name not in config.BUTTONS:
            return
        shown = self.shown
        self.idle = now_ms
        try:
            if long and name == "STOP":  # on every screen: the referee lock, or out of it
                if shown.locked:
                    self.leave()
                else:
                    back = shown.back if shown.name == "message" else shown
                    back.covered()
                    from .referee import Lock
                    self.goto(Lock(self, back))
            elif long:
                shown.long(name)
            else:
                shown.press(name)
        except (RuleError, ValueError) as e:  # the engine refused: say why, change nothing
            self.say("Not possible", str(e), shown)
        except Exception as e:
            self._failsafe(e, shown)

    def long(self, name, now_ms):
        self.press(name, now_ms, True)

    def tick(self, now_ms, settle=True):
        """The clock. settle: a code try counted is compared now (the app settles itself)."""
        self.now = now_ms
        if settle:
            self.settle()
        shown = self.shown
        try:
            if shown.locked and now_ms - self.idle > IDLE_MS:
                self.leave()  # a referee screen left open closes itself
            else:
                shown.tick(now_ms)  # a message's time, the finishing countdown (R23)
            play = self.play  # R21: whatever the screen (timed mode, or a warning on show)
            if play and (play.warn or self.settings["timed"]):
                moved = play.timed(self.shown.held)
                if moved == "drawn":
                    self.go_home()
                elif moved:
                    self._view = None
        except Exception as e:
            self._failsafe(e, shown)
        if self._view and self._view.sec != self.seconds_left():
            self._view = None  # a countdown on show: a new view each second

    def settle(self, saved=True):
        """A code try counted, compared once its count is on flash (saved). -> whether."""
        lockout = self._lockout
        if lockout is None:
            return False  # no try since the boot
        try:
            settled = lockout.settle(saved)
        except Exception as e:
            self._failsafe(e, self.shown)
            return True
        if settled or lockout.stalled:
            self._view = None
        return settled

    def view(self, quick=False):
        """The View on show; quick: odds not worked out yet show as "..."."""
        v = self._view
        if v and (quick or not v.quick):
            return v
        if not quick:
            (self.play or self.plan).work()  # the odds it shows (R25, R26), if not yet
        self._view = v = render.build(self)
        return v

    def led(self, quick=False):
        """The LED's colour (None: off): a drawn card's before its view is made."""
        play = self.play
        if self._view is None and play and not play.warn \
                and self.shown.name == "card":
            return play.card
        return self.view(quick).led

    @property
    def lockout(self):
        """The code's tries (lockcode.Lockout), made at their first use: a boot with no
        wrong try counted imports no lockcode."""
        lockout = self._lockout
        if lockout is None:
            from .lockcode import Lockout
            lockout = self._lockout = Lockout(self)
        return lockout

    @property
    def screen(self):
        return self.shown.name

    @property
    def action(self):  # the engine's Action in play, or None
        return self.play and self.play.action

    @property
    def warn(self):  # seconds of the timed warning on show (R21), 0 when none
        return self.play.warn if self.play else 0

    def take_beeps(self):
        return self._beeps.take()

    def show(self):
        return render.show(self)  # the bench protocol's `show`

    def take_log(self):
        """The records queued for the app's persist, each a dict (docs/bench.md lists them)."""
        return self._records.take()

    def hint(self):
        """What no record says of the play, for the journal: "x" with none."""
        return self.play.hint() if self.play else "x"

    def seconds_left(self):
        return self.shown.seconds()  # the countdown on show, in seconds, or None

    def seed(self, n):
        """The bench's `seed N` (set-up only): the cards from now on are the seed's, and every
        record and screen says so. -> None, or why not."""
        if self.shown.name != "setup":
            return "seed only on the set-up screen"
        try:
            self.rng.seed(n)
        except Exception as e:
            return "cannot seed: %s" % e
        self.record("seed", n=n)
        self.seeded = True
        self._view = None

    def room(self, free):
        """The app's word each pass: whether the log can hold a new action."""
        if free != self.log_room:
            self.log_room = free
            self._view = None  # set-up says so, or no longer

    # -- for the screens ----------------------------------------------------------------------
    def goto(self, screen):
        play = self.play
        if play and play.action.state != "active":  # the action no longer draws:
            play.warn = 0  # R21: a warning goes on from screen to screen until the draw
        self.shown = screen
        self._view = None

    def home(self):
        """The screen the action's state calls for: set-up without one."""
        if not self.play:
            return Setup(self)
        from .playscreens import SCREENS
        return SCREENS[self.play.home()](self)

    def go_home(self):
        self.goto(self.home())

    def leave(self):
        """Out of the referee screens, back where the referee came from."""
        shown = self.shown
        if shown.name == "message":
            shown = shown.back
        back = shown.back
        if self.play is None and back.name in ("setup", "options"):
            self.goto(back)
        else:
            self.go_home()

    def say(self, title, text, back=None, beep="error"):
        """A message: any key goes back to `back` (the screen on show if None)."""
        self.beep(beep)
        self.goto(Message(self, title, text, back or self.shown))

    def beep(self, name):
        if self.settings["buzzer"]:
            self._beeps.add(name)

    def record(self, event, **fields):
        """A log record: {"ev": event, "ms": now, ...}: the one way every record is made (play.py's
        too); only the journal packs them for flash (records.py)."""
        entry = {"ev": event, "ms": self.now}
        entry.update(fields)
        if self.seeded:
            entry["seeded"] = True
        self._records.add(entry)  # for the app's next persist

    def change(self, name, value):
        """Change one setting (the app saves settings when settings_version moves)."""
        if self.settings[name] != value:
            self.settings[name] = value
            self.settings_version += 1

    def start(self):
        """Set-up's DRAW: the action in play, unless the log could not hold it to its end."""
        if not self.log_room:
            self.say("Log full", "Export the log over USB (make logs), then start.")
            return
        from .play import Play
        self.play = Play.start(self)
        self.chained = False
        self.go_home()

    def clear(self):
        """The action is over: back to set-up."""
        self.play = None
        self.goto(Setup(self))

    def chain(self):
        """R17: straight into a new action; this one's finishing is skipped."""
        self.record("chain")
        self.chained = True
        self.clear()

    def _failsafe(self, error, where):  # never crash: a bug is shown and logged
        self.record("error", msg=str(error))
        self.say("Error", str(error), Setup(self) if where.name == "message" else where)

