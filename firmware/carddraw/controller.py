"""Button events and the clock -> the screen on show and the action in play -> a View.

Pure: no machine, time, asyncio or os. Time comes in as now_ms, randomness as an rng with
randrange(n) (and seed(n) for the bench), so CPython, the simulator and the board run the
same code, and tests drive any sequence of presses and clock ticks without waiting.

Why it is built this way:
- The controller holds two things: the screen on show (an object of screens.py,
  playscreens.py or referee.py, each with press/long/tick/lines/art) and the action in play
  (play.Play, or None at set-up). A screen keeps its own state (cursor, code entered,
  message and where it returns); the action keeps the card on show, the undo snapshot,
  timed mode and the odds. The controller keeps only what every screen shares: the
  settings, the clock, the rng, the log records and beeps waiting for the app, the lock's
  wait, and the view it last built.
- What holds on every screen is decided here, before the screen's own handler: hold STOP
  opens the referee lock from anywhere (and leaves the referee screens), a referee screen
  left untouched for IDLE_MS closes itself (a player cannot pick up an open menu), and the
  timed draw runs whatever the screen (R21). An exception in a handler never stops the
  device: a refusal by the engine (RuleError, ValueError) is said on screen and changes
  nothing; anything else is logged and shown as an error.
- Drawing never changes state: view() builds the View from lines() and art() and keeps it
  until an event or the clock changes something, so the app can ask for it every pass.
- The app persists what a pass changed before it shows it: the log records (take_log), the
  settings, and the hint (what no record says of the play). After a power cut the
  controller is built with the records of the action the log shows (replay) and the hint,
  and comes back to the same screen, card and all: switching off is no escape from a black
  card (R14). `resume` (a resume_state() taken before) does the same without a store.
- The odds (R25, R26) are the costly part of a view: view(quick=True), the app's in a pass
  that answers a press, shows "..." for them until a later pass works them out.
README's screens table is the one specification of the screens and their buttons; the log
records are described in README's "On a Pico".
"""
from carddraw import config, lockcode, settings as known
from carddraw.config import COLS, ROWS, TITLE_COLS
from carddraw.action import ACTIVE
from carddraw.deck import RuleError, build_deck
from carddraw.odds import fmt_chance, greens_left, risk
from carddraw.play import Play
from carddraw.playscreens import SCREENS
from carddraw.referee import Lock
from carddraw.render import View
from carddraw.rng import Rng
from carddraw.saved import unpacked
from carddraw.screens import Message, Setup
from carddraw.texts import wrap

IDLE_MS = 30000  # the lock and the referee screens close after this long untouched


class Controller:
    def __init__(self, settings=None, rng=None, now_ms=0, resume=None, replay=None):
        self.settings = known.check(settings)[0]
        self.settings_version = 0  # moves on each change of the settings
        self.now = now_ms
        self.rng = Rng() if rng is None else rng  # R9: the device's own, from hardware entropy
        self.seeded = False        # seed() chose the cards: every record and screen says so
        self.play = None           # the action in play (play.Play)
        self.chained = False       # R17: the next action is chained
        self.log_room = True       # the log can hold a new action to its end (the app says)
        wait = lockcode.wait_for(self.settings["lock_fails"])
        self.lock_until = now_ms + wait if wait else None  # a wait due at boot runs from it
        wait = lockcode.wait_for(self.settings["recovery_fails"])
        self.recovery_until = now_ms + wait if wait else None
        self.idle = now_ms         # the last press: the referee screens close IDLE_MS after
        self.shown = Setup(self)   # the screen on show
        self._log = []
        self._beeps = []
        self._view = None
        self._sec = None           # the countdown on show (a new view each second)
        self._planned = None       # set-up's (settings_version, deck counts, chance, risks)
        self.quick = False         # building a view that must not wait for the odds ...
        self._left_out = False     # ... and it left them out
        if resume:
            self.resume(resume)
        elif replay and replay[0]:
            self.replay(*replay)

    # -- the API ------------------------------------------------------------------------------
    def press(self, name, now_ms):
        self._event(name, False, now_ms)

    def long(self, name, now_ms):
        self._event(name, True, now_ms)

    def tick(self, now_ms, settle=True):
        """The clock. settle: what waits for the flash is compared first (tests without a
        store); the app passes False and settles after its persist."""
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
            if play is not None and (play.warn or self.settings["timed"]):
                moved = play.timed(self.shown.held)
                if moved == "drawn":
                    self.go_home()
                elif moved:
                    self._view = None
        except Exception as e:
            self._failsafe(e, shown)
        sec = self.seconds_left()
        if sec != self._sec:
            self._sec = sec
            self._view = None

    def view(self, quick=False):
        """The View on show. quick: the odds not worked out yet show as "..." (the app's
        view in a pass that answers a press: a later pass works them out and redraws), and a
        picture's lines, which are not drawn, are made only when first read (View.lines:
        read before the next event, as the pictures and the bench read them)."""
        if self._view is not None and self._view.quick and not quick:
            self._view = None  # it left the odds out: now they are worked out
        if self._view is None:
            self.quick = quick
            self._left_out = False
            shown = self.shown
            play = self.play
            warn = play is not None and play.warn > 0 and shown.name != "active"
            art = shown.art()
            make = None
            if art is None:
                lines, led = self._lines(shown, warn)
            else:
                art, led = art
                if quick:
                    lines = None
                    make = self._maker(shown, warn)
                else:
                    lines = self._lines(shown, warn)[0]
                if self.seeded:  # the graphics' title (their icon and mark name the skill)
                    art = art[:2] + ("SEEDED",) + art[3:]
                if warn:  # both pictures end with their foot lines (render.py)
                    art = art[:-1] + ((self._warning(),),)
            if warn:
                led = "white"  # R21: the warning shows on any screen
            self._view = View(shown.name, lines, led, play is not None and play.warn > 0, art,
                              make)
            self._view.quick = self._left_out  # "..." for odds not worked out yet
            self.quick = False
        return self._view

    def _maker(self, shown, warn):
        def make():  # as the quick view would have made them
            self.quick = True
            try:
                return self._lines(shown, warn)[0]
            finally:
                self.quick = False
        return make

    def _lines(self, shown, warn):
        """The screen's lines as shown: the title short of the battery icon, the seed's and
        the timed warning's marks, ROWS lines of COLS characters at most. -> (lines, led)."""
        lines, led = shown.lines()
        if len(lines[0]) > TITLE_COLS:  # room for the battery icon (a slice is a new
            lines[0] = lines[0][:TITLE_COLS]  # string: only where one is too long)
        if self.seeded:  # the bench's seed chose the cards: every screen says so
            title = lines[0]
            if len(title) > TITLE_COLS - 5:  # the default code's mark, shortened
                title = title.replace(" !code", " !")
            title = title[:TITLE_COLS - 5]
            lines[0] = title + " " * (TITLE_COLS - 4 - len(title)) + "SEED"
        if warn:
            lines = (lines + [""] * ROWS)[:ROWS]
            lines[ROWS - 1] = self._warning()
        if len(lines) > ROWS:
            lines = lines[:ROWS]
        for i in range(len(lines)):
            if len(lines[i]) > COLS:
                lines[i] = lines[i][:COLS]
        return lines, led

    def _warning(self):
        play = self.play
        return "%s in %ds!" % ("Accept" if play.card is not None and not play.applied
                               else "Draw", play.warn)

    def led(self, quick=False):
        """The LED's colour (None: off), the view's; it blinks while warn (R21). A drawn card
        says its colour before its view is made, so the app can light the LED first and
        work out the frame after."""
        play = self.play
        if self._view is None and play is not None and not play.warn \
                and self.shown.name == "card":
            return play.card  # as Card.lines() gives it, no warning to make it white
        return self.view(quick).led

    @property
    def screen(self):
        """The name of the screen on show."""
        return self.shown.name

    @property
    def action(self):
        """The engine's Action in play, or None."""
        return self.play.action if self.play is not None else None

    @property
    def warn(self):
        """Seconds of the timed warning on show (R21), 0 when none."""
        return self.play.warn if self.play is not None else 0

    # take_beeps and take_records hand over what was queued; an empty list handed over is the
    # controller's own, kept (read it, never change it): a quiet pass allocates nothing here
    def take_beeps(self):
        beeps = self._beeps
        if beeps:
            self._beeps = []
        return beeps

    def take_records(self):
        """The records queued, as made (packed or dicts): the app's, for the journal."""
        records = self._log
        if records:
            self._log = []
        return records

    def take_log(self):
        """The records queued, each a dict (README's "On a Pico")."""
        return [unpacked(r) for r in self.take_records()]

    def resume_state(self):
        return self.play.state() if self.play is not None else None

    def resume(self, state):
        """The action in play and its screen from a resume_state() (tests, without a store);
        an unreadable one is said on screen and the device goes on at set-up."""
        try:
            self.play = Play.restore(self, state)
        except Exception as e:
            self.say("Not resumed", "The saved action is unreadable: %s" % e, Setup(self))
            return
        self.shown = self.home()

    def replay(self, records, hint):
        """After a power cut: the action the log shows, played again from its records, and
        the hint (play.Play.replay). Records that make no action close it as lost (R14: the
        log cannot be spoilt to escape a black card), said on screen."""
        try:
            self.play = Play.replay(self, records, hint)
        except Exception as e:
            self.record("end", outcome="lost", why=str(e)[:80])
            self.say("Not resumed", "The action in the log is unreadable: %s" % e, Setup(self))
            return
        self.shown = self.home()

    def hint(self):
        """What no record says of the play, for the journal: "x" when none is on show."""
        return self.play.hint() if self.play is not None else "x"

    def odds(self):
        """The action in play's odds (Play.odds), or None while a quick view leaves them out."""
        if self.quick and not self.play.odds_ready():
            self._left_out = True
            return None
        return self.play.odds()

    def seed(self, n):
        if self.shown.name != "setup":
            return "seed only on the set-up screen"
        try:
            self.rng.seed(n)
        except Exception as e:
            return "cannot seed: %s" % e
        self.record("seed", n=n)
        self.seeded = True
        self._view = None
        return None

    def show(self):
        view = self.view()
        action = self.action
        shown = {"screen": view.screen, "lines": list(view.lines), "led": view.led,
                 "state": None, "deck": None, "successes": None, "needed": None,
                 "complications": None, "draws": None}
        if action:
            shown["state"] = action.state
            shown["deck"] = list(action.deck.counts())
            shown["successes"] = action.successes
            shown["needed"] = action.needed
            shown["complications"] = action.complications
            shown["draws"] = action.draws
        return shown

    def room(self, free):
        """The app's word each pass: whether the log can hold a new action to its end."""
        if free != self.log_room:
            self.log_room = free
            self._view = None  # set-up says so, or no longer

    def settle(self):
        """What waited for the pass's changes to be on flash: the app calls this after its
        persist (a code try counted, now compared). -> whether something was settled."""
        shown = self.shown
        try:
            return shown.settle()
        except Exception as e:
            self._failsafe(e, shown)
            return True

    # -- events -------------------------------------------------------------------------------
    def _event(self, button, long, now):
        self.now = now
        self._view = None
        if button not in config.BUTTONS:
            return
        shown = self.shown
        self.idle = now
        try:
            if long and button == "STOP":  # on every screen: the referee lock, or out of it
                if shown.locked:
                    self.leave()
                else:
                    back = shown.back if shown.name == "message" else shown
                    back.covered()
                    self.goto(Lock(self, back))
            elif long:
                shown.long(button)
            else:
                shown.press(button)
        except (RuleError, ValueError) as e:  # the engine refused: say why, change nothing
            self.say("Not possible", str(e), shown)
        except Exception as e:
            self._failsafe(e, shown)

    # -- for the screens ----------------------------------------------------------------------
    def goto(self, screen):
        play = self.play
        if play is not None and play.action.state != ACTIVE:  # the action no longer draws:
            play.warn = 0  # R21: a warning goes on from screen to screen (leaving the lock
                           # grants no fresh one) until the draw or the action's end
        self.shown = screen
        self._view = None

    def home(self):
        """The screen the action's state calls for: set-up without one."""
        if self.play is None:
            return Setup(self)
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
        """A message screen: the title, the text wrapped; any key goes back to `back` (the
        screen on show if not given)."""
        self.beep(beep)
        self.goto(Message(self, title, text, back or self.shown))

    def beep(self, name):
        if self.settings["buzzer"]:
            if len(self._beeps) >= 16:  # the app takes them every loop; keep the newest
                self._beeps.pop(0)
            self._beeps.append(name)

    def record(self, event, **fields):
        """A log record: {"ev": event, "ms": now, ...} (README's "On a Pico")."""
        entry = {"ev": event, "ms": self.now}
        entry.update(fields)
        self.add(entry)

    def add(self, record):
        """A log record made whole by the caller: a dict {"ev": ..., "ms": ...}, or a record
        of play packed (a list in saved.PACKED's order, the journal's own form: no keyword
        dict to make and no dict to pack before a draw's LED)."""
        if self.seeded:  # a field no packed record has: as a dict
            record = unpacked(record)
            record["seeded"] = True
        log = self._log
        if len(log) >= 64:  # the app takes the log every loop; never grow without end
            log.pop(0)
        log.append(record)

    def change(self, name, value):
        """Change one setting (the app saves settings when settings_version moves)."""
        if self.settings[name] != value:
            self.settings[name] = value
            self.settings_version += 1

    def start(self):
        """Set-up's DRAW: the action the settings describe, in play -- unless the log could
        not hold it to its end: a full log stops play, never records."""
        if not self.log_room:
            self.say("Log full", "Export the log over USB (make logs), then start.")
            return
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

    def planned(self):
        """(deck counts, chance as shown, red risk, black risk) for the action set-up would
        start (R2-R8, R26 and the risks beside it: the figures the action's first active
        screen shows, by the same sweep), worked out once per change of the settings; in a
        quick view, the chance "..." and the risks None until they are."""
        fresh = self._planned is not None and self._planned[0] == self.settings_version
        if not fresh:
            s = self.settings
            counts = build_deck(s["ranks"], s["helpers"], s["bonus"], s["green"], s["yellow"],
                                s["red"], s["black"]).counts()
        if self.quick and not fresh:
            self._left_out = True
            return counts, "...", None, None
        if not fresh:
            greens = greens_left(s["needed"], 0, min(s["auto"], s["ranks"]))  # R7, R11
            won, red, black = risk(counts, greens)[:3]
            self._planned = (self.settings_version, counts, fmt_chance(won), red, black, won)
        return self._planned[1:5]

    def planned_odds(self, counts):
        """(chance, red risk, black risk) of the action set-up would start, if worked out for
        the settings as they are and this deck (the start logs them, its screen shows them),
        else None."""
        p = self._planned
        if p is not None and p[0] == self.settings_version and p[1] == counts:
            return p[5], p[3], p[4]
        return None

    def seconds_left(self):
        """The countdown on show, in seconds, or None."""
        name = self.shown.name
        if name == "lock" and self.lock_until is not None:  # the wait after wrong codes
            return max(0, (self.lock_until - self.now + 999) // 1000)
        if name == "finishing":
            return max(0, (self.play.fin_end - self.now + 999) // 1000)
        if name == "active" and self.settings["timed"]:
            return self.play.seconds_left(self.now)
        return None

    # -- plumbing -----------------------------------------------------------------------------
    def _failsafe(self, error, where):
        # never crash the device: a bug shows as a message and is logged
        self.record("error", msg=str(error))
        self.say("Error", str(error), Setup(self) if where.name == "message" else where)

