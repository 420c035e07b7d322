"""Button events and the clock -> engine calls -> what the device shows.

Pure: no machine, time, asyncio or os. Time comes in as now_ms, randomness as an rng with
randrange(n) (and seed(n) for the bench). Runs the same under CPython and MicroPython.

How it is built: an event first meets the rules that hold on every screen (_global_rules:
hold STOP for the lock, any key leaves a message), then the screen's own handler from the
table PRESS (LONG for long presses, TICK for the clock); what a screen shows comes from its
line-builder in LINES. All are keyed by screen name: a new screen is a handler and a
line-builder added to the tables. Only the set-up screen and messages live here; the rest
live in modules loaded only while shown (ON_DEMAND): referee.py (lock, referee menu, adjust,
new code), options.py, task.py (the difficulty picker), outcome.py (the stop question, black
card, success, finishing, summary, failed). They add their entries to the tables when
loaded and are dropped when closed (with what they brought in, BROUGHT), so they are not in
the heap after boot. draws.py, the action's own code (start, draw, redraw, accept, stop,
timed mode, the active and card screens, resume), is loaded when an action starts or is
resumed and kept until it is cleared (play()): the set-up screen the device waits on
carries neither it nor the engine's Action, odds, rng or settings checks (planned() and
checked() import odds.py and settings.py for the call). Handlers use the controller's
methods goto, say, beep, record, change, move, leave, home, rearm and clear, and play().

Buttons: RANK, HELP, DRAW, STOP; a long press (about 0.8 s) is a separate event and fires no
short press. In menus RANK moves up, HELP moves down, DRAW chooses, STOP goes back; on a
chosen number RANK lowers it, HELP raises it, DRAW or STOP is done. Hold STOP on any screen
for the referee lock (except on the lock and referee screens, where it leaves them). Other
long presses do something only on set-up, the difficulty picker and the new code.

Screens and their buttons (view.screen in brackets):
  Set-up [setup]       RANK ranks +1, HELP helpers +1 (both wrap; hold to step down; rank 0
                       for scan only, R3), STOP the difficulty picker, DRAW start the
                       action. Hold DRAW: options. Shows skill, ranks and helpers, the deck
                       by source: the team's greens (R3-R5), the task's cards (R6), the
                       deck they settle into (R8), the chance (R26; "Need N" for N > 1).
                       The task's cards reset for each action (R6) unless the referee froze
                       the task: then "Task set by ref", and STOP only says so.
  Difficulty [task]    R +1 red, H +2 red, D +1 black, hold R +1 yellow, hold H none: each
                       sets the task's cards and goes back to set-up. Hold D: options.
                       STOP: back unchanged.
  Options [options]    added green/yellow/red/black cards (R6), successes needed (R7),
                       automatic successes (R11), redraws (R15), bonus greens (R5), referee
                       present, timed mode (R21), interval 30-60 s in 5 s steps, buzzer,
                       brightness 1-5, skill (R24; leaving a scan at rank 0 lifts it to 1,
                       R3). DRAW on an on/off item flips it, on the skill steps to the next.
                       A frozen task's rows (settings.FROZEN) are refused with a message.
                       STOP: back to set-up.
  Active [active]      deck G/Y/R/B (R20), next-card odds (R25), chance to succeed (R26)
                       and beside it the chances of a complication and of a black,
                       successes/needed, complications, draws, redraws left.
                       DRAW draw a card. STOP asks to confirm the stop.
                       Timed mode (R21): a draw by itself an interval after the last,
                       after a 5 s warning (the LED blinks white, a colour no card has,
                       a beep a second); STOP during the warning stops at once. The clock
                       runs on every screen: on Stop?, a message or the lock the card is
                       drawn all the same; a card on show is followed by the next draw, or,
                       with redraws left (R15), accepted when the warning ends. Only the
                       referee menu, open with the code, holds it (a full warning after).
                       An empty deck (R22): no draw, the screen says so until the referee
                       adds cards. draws.timed and draws.due tell the details.
  Stop? [confirm]      DRAW stop (R16, a failed attempt: no retry today), then the
                       finishing and the summary as after a success (R23). Any other: back.
  Card [card]          the card, its colour on the LED (black shows purple), what it did
                       ("Success 1 of 3", "Setback", "Complication 2", "Catastrophe"; not
                       yet accepted: what it will do if accepted), its result in the
                       action's words (R24). With redraws left (R15): DRAW accept,
                       HELP redraw; STOP refused (R16). With none left the card applies at
                       once: DRAW or STOP goes on (to the deck again, R20, or the outcome).
  Black card [referee] a black with a referee present (R14): only the referee menu decides.
  Success [success]    RANK/HELP move, DRAW picks: finish (R23) or chain a new action (R17).
  Finishing [finishing] 60 s roleplay countdown (R23), then the summary. No button skips it.
                       After a stop it carries the no-retry-today reminder (R16).
  Summary [summary]    successes, complications, outcome (success or stopped; a stop with
                       the no-retry-today reminder, R16). DRAW: set-up.
  Failed [failed]      the catastrophe (R14). DRAW: set-up.
  Referee lock [lock]  the code's 4 to 8 presses of R/H/D/S (default R H R H), checked by
                       lockcode.py. A wrong code says so and goes back; after 3 wrong, a
                       growing wait, counted down, when no code is taken. Hold STOP:
                       cancel. 30 s idle: cancel.
  Referee [refmenu]    black: go on / black: fail (R14), helper leaves (R18), adjust deck
                       (R19), undo last draw (while the action runs), end action,
                       change code, freeze / unfreeze task (at set-up: the task's
                       settings.FROZEN rows stay for every action until unfrozen). STOP: leave.
                       30 s idle leaves, so a player cannot pick up an open menu.
  Adjust deck [adjust] pick a colour with DRAW, then RANK removes one card, HELP adds one
                       (R8 settles). STOP: back to the referee menu.
  New code [newcode]   4 to 8 presses, then hold DRAW saves, hold RANK starts over, hold STOP
                       cancels.
  Message [message]    a refusal or a note (e.g. R22 empty deck). Any button, or 10 s
                       (MSG_MS): back.

After a power cut resume_state() brings back the screen, the action, the card on show and
the undo snapshot; the finishing countdown starts afresh, and in timed mode the 5 s
warning starts at once (R21: switching off must not hold a draw back).

Log records (take_log), each {"ev": ..., "ms": now_ms, ...}:
  start    the action's parameters, "deck", "chance" (R26), "chain" (true after R17)
  draw     "n" (draw number), "card", "deck" after the draw (the card is still in it until
           its result applies), "timed" (drawn by timed mode)
  redraw   "n", "card" (the new card), "left" (redraws left)
  accept   "n", "card", "deck" after the result, "state", "successes", "complications"
  referee  "decision": "continue" or "end" (R14)
  stop     "successes", "needed", "draws"
  end      "outcome": succeeded, failed, stopped or "ended by referee"; the counts.
           Once per action, and final: nothing is undone after it (no reopening)
  helper_leaves, adjust ("colour", "delta"), undo: each with the "deck" after; undo only
           while the action runs ("draws" and "state" after it)
  settings the options changed (name: value), a difficulty preset (the four colours),
           "frozen": true/false (the referee menu), or "lock": "changed" (never the code)
  lock     a wrong or refused code: "result" ("wrong", "refused"), "fails" (never the code)
  seed, chain, error ("msg": a bug caught and shown instead of crashing)
"""
from carddraw import config
from carddraw.config import COLS, ROWS, TITLE_COLS
from carddraw.deck import COLOURS, RuleError, build_deck

WARN_MS = 5000         # R21 warning before a timed draw
FINISH_MS = 60000      # R23
IDLE_MS = 30000        # the lock and the referee menus close after this long untouched
MSG_MS = 10000         # a message goes back by itself after this long (R21: nothing stalls)
SKILLS = config.SKILLS
# On the board a .mpy is loaded into RAM, and every separate string costs some 30 bytes on
# top of its characters: so the texts live in a few long strings, split where shown.
NAMES = "Surgery|Repair|Scan"                       # by SKILLS
CNAMES = "Green|Yellow|Red|Black"                   # by deck.COLOURS
LOCKED = ("lock", "refmenu", "adjust", "newcode")  # referee screens
HELD = ("refmenu", "adjust", "newcode")  # reached only with the code: a timed draw waits (R21)
SCREENS = ("setup", "options", "active", "confirm", "card", "referee", "success", "finishing",
           "summary", "failed", "lock", "refmenu", "adjust", "newcode", "message", "task")
PLAY = "draws"  # the action's module: loaded with the action and kept while it lasts (play())
# Screens whose code is loaded only when shown (not in the heap after boot): screen -> module
ON_DEMAND = {"active": PLAY, "card": PLAY, "options": "options", "task": "task",
             "lock": "referee", "refmenu": "referee", "adjust": "referee", "newcode": "referee",
             "confirm": "outcome", "referee": "outcome", "success": "outcome",
             "finishing": "outcome", "summary": "outcome", "failed": "outcome"}
LOADED = []  # the on-demand modules in RAM now
# What an on-demand module brings into RAM besides itself, dropped with it (unload) unless
# another module still loaded brings it too (one copy in RAM; the next import loads it again).
BROUGHT = {PLAY: ("saved", "action", "settings", "odds", "pictures"),  # pictures: screens.py's
           "options": ("menu", "settings"), "task": ("settings",),
           "referee": ("menu", "lockcode", "settings", "action")}


class View:
    """What the device shows: a screen name, up to ROWS lines of up to COLS characters (the
    first is the title), the LED colour (None = off), whether it blinks (timed warning), and
    art: None, or what screens.render draws as graphics instead of the lines (a small tuple,
    see pictures.py; made by the screen's entry in ART). The lines stay the screen's words:
    the bench protocol's show and the tests read them."""

    def __init__(self, screen, lines, led=None, blink=False, art=None):
        self.screen = screen
        self.lines = lines
        self.led = led
        self.blink = blink
        self.art = art

    def __eq__(self, other):
        return (isinstance(other, View) and self.screen == other.screen
                and self.lines == other.lines and self.led == other.led
                and self.blink == other.blink and self.art == other.art)


# -- texts ------------------------------------------------------------------------------------
def part(text, index):
    return text.split("|")[index]


def wrap(text, width=COLS):
    """Words into lines of at most width characters (a longer word is cut)."""
    lines = []
    line = ""
    for word in text.split():
        while len(word) > width:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:width])
            word = word[width:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def deck_line(counts):
    return "G%2d Y%2d R%2d B%2d" % counts  # R20


# -- the on-demand modules --------------------------------------------------------------------
def load(name):
    """Bring in an on-demand module's screens: its handlers join PRESS (and TICK) and its
    line-builders LINES (the way app.py brings in selftest.py)."""
    module = config.imported(name)
    PRESS.update(module.PRESS)
    LINES.update(module.LINES)
    TICK.update(getattr(module, "TICK", {}))
    LONG.update(getattr(module, "LONG", {}))
    ART.update(getattr(module, "ART", {}))
    LOADED.append(name)
    return module


def checked(data):
    """settings.check (every key, R3, the ranges): the one check, with settings.py imported
    for the call and dropped again (if it came with the call), as the store's readers are.
    The screens that change settings import it themselves, so it is not in the heap while the
    set-up screen waits."""
    with config.borrowed("settings") as settings:
        return settings.check(data)[0]


def unload(name):
    """Drop an on-demand module's screens from the tables and, under MicroPython, the module
    itself (config.forget), so its RAM can be freed."""
    for screen in ON_DEMAND:
        if ON_DEMAND[screen] == name:
            PRESS.pop(screen, None)
            LINES.pop(screen, None)
            TICK.pop(screen, None)
            LONG.pop(screen, None)
            ART.pop(screen, None)
    if name in LOADED:
        LOADED.remove(name)
    config.forget(name)
    for other in BROUGHT.get(name, ()):
        if not [held for held in LOADED if other in BROUGHT.get(held, ())]:
            config.forget(other)


def code_for(table, screen):
    """The table's entry for `screen` (None if it has none), its module loaded if need be."""
    entry = table.get(screen)
    if entry is None and screen in ON_DEMAND and ON_DEMAND[screen] not in LOADED:
        load(ON_DEMAND[screen])
        entry = table.get(screen)
    return entry


class Controller:
    def __init__(self, settings=None, rng=None, now_ms=0, resume=None):
        self._rng = rng           # None: the device's own, made when first needed (rng)
        self.settings = checked(settings)
        self.settings_version = 0
        self.resume_version = 0
        self.now = now_ms
        self.action = None
        self.undo = None        # saved.to_dict of the action before its last draw
        self.card = None        # the colour on the card screen
        self.applied = False    # ... and whether its result has applied (R15)
        self.ended = "success"  # after a success: "success", "finishing" or "summary"
        self.chained = False    # R17: the next action is chained
        self.due = None         # timed mode: when the next draw comes (R21)
        self.warn = 0           # seconds of warning on show, 0 = no warning
        self.fin_end = 0        # R23 countdown end
        self.screen = "setup"
        self.back = "setup"     # where the lock returns to
        self.cur = 0            # menu cursor
        self.editing = False    # a menu row's value is being changed
        self.code = ""          # the presses entered on the lock or the new-code screen
        self.lock_until = None  # when the wait after wrong codes ends (lockcode.py)
        self.boot_ms = now_ms   # ... which, for wrong codes counted before a boot, is from here
        self.idle = 0           # the last press
        self.msg = None         # (title, lines, screen to return to)
        self.since = now_ms     # when the screen on show came (goto)
        self.before = None      # the settings when the options menu opened
        self._beeps = []
        self._log = []
        self._view = None
        self._sec = None
        self._ckey = None       # draws.chance's figures, and what they were worked out for
        self._cval = 0.0
        self._planned = None    # (settings_version, deck counts, chance) for set-up (planned)
        if resume:
            self.play().restore(self, resume)
        self._rs = self.resume_state()

    # -- the API ------------------------------------------------------------------------------
    def press(self, name, now_ms):
        self._event(name, False, now_ms)

    def long(self, name, now_ms):
        self._event(name, True, now_ms)

    def tick(self, now_ms):
        self.now = now_ms
        screen = self.screen
        try:
            if screen == "message" and now_ms - self.since >= MSG_MS:
                self.goto(self.msg[2])  # a message goes by itself: it holds nothing up (R21)
            if self.in_referee_screens():
                if now_ms - self.idle > IDLE_MS:
                    self.leave()  # a referee screen left open closes itself
            else:
                on_tick = code_for(TICK, self.screen)
                if on_tick is not None:
                    on_tick(self)
            if self.action is not None:
                self.play().timed(self)  # R21: the cadence runs whatever the screen
        except Exception as e:
            self._failsafe(e, screen)
        sec = self.seconds_left()
        if sec != self._sec:
            self._sec = sec
            self._view = None
        if self._view is None:
            self._saved()

    def view(self):
        if self._view is None:
            lines, led = self._lines()
            lines[0] = lines[0][:TITLE_COLS]  # room for the battery icon
            art = ART.get(self.screen)
            art = art and art(self, lines)
            if self.seeded:  # the bench's seed chose the cards: every screen says so
                title = lines[0][:TITLE_COLS - 5]
                lines[0] = title + " " * (TITLE_COLS - 4 - len(title)) + "SEED"
                if art:  # the graphics' title (their icon and mark still name the skill)
                    art = art[:2] + ("SEEDED",) + art[3:]
            if self.warn and self.screen != "active":  # R21: the warning shows on any screen
                led = "white"
                lines = (lines + [""] * ROWS)[:ROWS]
                lines[ROWS - 1] = "%s in %ds!" % (
                    "Accept" if self.card is not None and not self.applied else "Draw",
                    self.warn)
                if art:  # both pictures end with their foot lines (pictures.py)
                    art = art[:-1] + ((lines[ROWS - 1],),)
            self._view = View(self.screen, [line[:COLS] for line in lines[:ROWS]], led,
                              self.warn > 0, art)
        return self._view

    def take_beeps(self):
        beeps = self._beeps
        self._beeps = []
        return beeps

    def take_log(self):
        records = self._log
        self._log = []
        return records

    def resume_state(self):
        action = self.action
        if action is None:
            return None
        from carddraw import saved  # only once there is an action: not in the boot heap
        return {"v": 1, "screen": self.home(), "action": saved.to_dict(action),
                "undo": self.undo, "card": self.card, "applied": self.applied,
                "ended": self.ended}

    @property
    def rng(self):
        """The generator that picks the cards (R9): the one given, or the device's own, keyed
        from os.urandom when the first card is drawn (or the bench seeds it), so that neither
        it nor rng.py is in the heap after boot; draws.start re-keys it at each action."""
        if self._rng is None:
            from carddraw.rng import Rng
            self._rng = Rng()
        return self._rng

    @rng.setter
    def rng(self, rng):
        self._rng = rng

    seeded = False  # seed() chose the cards: every record and every screen says so until reboot

    def seed(self, n):
        if self.screen != "setup":
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

    # -- events -------------------------------------------------------------------------------
    def _event(self, button, long, now):
        self.now = now
        self._view = None
        if button not in config.BUTTONS:
            return
        screen = self.screen
        self.idle = now
        try:
            if not self._global_rules(button, long):
                handler = code_for(LONG if long else PRESS, screen)
                if handler is not None:  # finishing: nothing skips the roleplay (R23)
                    handler(self, button)
        except (RuleError, ValueError) as e:  # the engine refused: say why, change nothing
            self.say("Not possible", str(e), screen)
        except Exception as e:
            self._failsafe(e, screen)
        self._saved()

    def _global_rules(self, button, long):
        """What holds on every screen before its own handler: hold STOP for the referee lock
        (or to leave the referee screens), and any key leaves a message. -> True if one did."""
        if long and button == "STOP":
            if self.in_referee_screens():
                self.leave()
            else:  # the referee lock, from anywhere
                self.back = self.msg[2] if self.screen == "message" else self.screen
                self.code = ""
                self.editing = False
                self.goto("lock")
            return True
        if self.screen == "message":
            self.goto(self.msg[2])
            return True
        return False

    def _lines(self):
        """What the screen shows: (lines, LED colour), from the screen's line-builder."""
        return code_for(LINES, self.screen)(self)

    # -- the action ---------------------------------------------------------------------------
    # -- for the screens' handlers (here, in referee.py and options.py) -----------------------
    def goto(self, screen):
        if screen == "success" and self.screen != screen:
            self.cur = 0  # the cursor starts on "finish"
        if self.action is None or not self.play().running(self):
            self.warn = 0  # R21: a warning on show goes on from screen to screen (leaving the
                           # lock grants no fresh one) until the draw or the action's end
        self.since = self.now
        self.screen = screen
        self._view = None
        shown = self.msg[2] if screen == "message" else screen
        for name in LOADED[:]:
            if ON_DEMAND.get(shown) != name and (name != PLAY or self.action is None):
                unload(name)  # its screens are closed: give its RAM back

    def say(self, title, text, back, beep="error"):
        """A message screen: the title, the text wrapped, any key goes back to `back`."""
        self.msg = (title, wrap(text)[:ROWS - 3], back)
        self.beep(beep)
        self.goto("message")

    def beep(self, name):
        if self.settings["buzzer"]:
            if len(self._beeps) >= 16:  # the app takes them every loop; keep the newest
                self._beeps.pop(0)
            self._beeps.append(name)

    def record(self, event, **fields):
        """A log record (see the module's docstring)."""
        entry = {"ev": event, "ms": self.now}
        entry.update(fields)
        if self.seeded:
            entry["seeded"] = True
        if len(self._log) >= 64:  # the app takes the log every loop; never grow without end
            self._log.pop(0)
        self._log.append(entry)

    def change(self, name, value):
        """Change one setting (the app saves settings when settings_version moves)."""
        if self.settings[name] != value:
            self.settings[name] = value
            self.settings_version += 1

    def move(self, button, rows):
        """RANK moves the menu cursor up, HELP down, wrapping over `rows` rows."""
        self.cur = (self.cur + (-1 if button == "RANK" else 1)) % rows

    def in_referee_screens(self):
        """On a referee screen, or a message that returns to one."""
        screen = self.screen
        return screen in LOCKED or (screen == "message" and self.msg[2] in LOCKED)

    def leave(self):
        """Out of the referee screens."""
        if self.action is None and self.back in ("setup", "options"):
            self.goto(self.back)
        else:
            self.goto(self.home())

    def home(self):
        """The screen the action's state calls for: set-up without one."""
        return "setup" if self.action is None else self.play().home(self)

    def play(self):
        """draws.py, the action's code: loaded when an action starts or is resumed, dropped
        with it (goto), so the set-up screen the device idles on does not carry it."""
        if PLAY not in LOADED:
            return load(PLAY)
        return config.imported(PLAY)

    def rearm(self):
        """R21: the next timed draw comes an interval from now (its warning still to come)."""
        self.due = self.now + self.settings["interval"] * 1000
        self.warn = 0

    def clear(self):
        """The action is over: back to set-up."""
        self.action = None
        self.undo = None
        self.card = None
        self.applied = False
        self.goto("setup")

    def planned(self):
        """(deck counts, chance as shown) for the action set-up would start (R2-R8, R26: the
        figure success_chance gives it once started), worked out once per change of the
        settings. odds.py is imported for the sum and dropped again, as the store's readers
        are: the set-up screen the device waits on carries neither it nor the Action."""
        if self._planned is None or self._planned[0] != self.settings_version:
            settings = self.settings
            counts = build_deck(settings["ranks"], settings["helpers"], settings["bonus"],
                                *[settings[colour] for colour in COLOURS]).counts()
            with config.borrowed("odds") as odds:
                greens = odds.greens_left(settings["needed"], 0,  # R7, R11: greens it takes
                                          min(settings["auto"], settings["ranks"]))
                shown = odds.fmt_chance(odds.chance(counts, greens)[0])
            self._planned = (self.settings_version, counts, shown)
        return self._planned[1:]

    # -- plumbing -----------------------------------------------------------------------------
    def _failsafe(self, error, where):
        # never crash the device: a bug shows as a message and is logged
        self.record("error", msg=str(error))
        self.say("Error", str(error), "setup" if where == "message" else where)

    def _saved(self):
        state = self.resume_state()
        if state != self._rs:
            self._rs = state
            self.resume_version += 1

    def seconds_left(self):
        if self.screen == "lock" and self.lock_until is not None:  # the wait's countdown
            return max(0, (self.lock_until - self.now + 999) // 1000)
        if self.screen == "finishing":
            return max(0, (self.fin_end - self.now + 999) // 1000)
        if self.screen == "active" and self.settings["timed"]:
            return max(0, (self.due - self.now + 999) // 1000)
        return None


# -- each screen's buttons: handler(controller, button) ---------------------------------------
def press_setup(ctl, button):
    if button == "DRAW":
        ctl.play().start(ctl)
    elif button == "STOP":  # the difficulty picker (task.py), unless the referee set it
        if ctl.settings["frozen"]:
            ctl.say("Set by referee", "The referee set this task. You set ranks and helpers.",
                    "setup")
        else:
            ctl.beep("click")
            ctl.goto("task")
    else:
        step_team(ctl, button, 1)


def long_setup(ctl, button):
    if button == "DRAW":  # the options menu (options.py)
        ctl.cur = 0
        ctl.editing = False
        ctl.before = dict(ctl.settings)
        ctl.goto("options")
    else:
        step_team(ctl, button, -1)


def step_team(ctl, button, delta):
    """RANK: ranks, HELP: helpers, a step up (press) or down (long press), wrapping round."""
    name = "ranks" if button == "RANK" else "helpers"
    low = 1 if name == "ranks" and ctl.settings["skill"] != "scan" else 0  # R3
    high = config.NUMBERS[name][2]
    value = ctl.settings[name] + delta
    if value > high:
        value = low
    elif value < low:
        value = high
    ctl.change(name, value)
    ctl.beep("click")


# -- what each screen shows: line-builder(controller) -> (lines, LED colour) ------------------
def setup_lines(ctl):
    settings = ctl.settings
    title = part(NAMES, SKILLS.index(settings["skill"]))
    if settings["referee"]:
        title += " REF"
    if settings["timed"]:
        title += " T%d" % settings["interval"]
    counts, chance = ctl.planned()
    needed = settings["needed"]
    return ["Chain set-up" if ctl.chained else "Set-up", title,
            "Ranks %d  Help %d" % (settings["ranks"], settings["helpers"]),
            team_line(settings), task_line(settings), deck_line(counts),
            ("Need %d " % needed if needed > 1 else "Chance  ")
            + "%6s" % chance,
            "Task set by ref" if settings["frozen"] else "S:task  D:start"], None


def team_line(settings):
    """The greens the team brings: R3 ranks, R4 helpers up to the ranks, R5 bonus."""
    ranks = settings["ranks"]
    team = ranks + min(settings["helpers"], ranks)
    if settings["bonus"]:
        line = "Team +%d +%d bonus" % (team, settings["bonus"])
        return line if len(line) <= COLS else line.replace(" +", "+", 1)[:COLS]
    return "Team  +%d green" % team


def task_line(settings):
    """The task's difficulty cards (R6): "none", "+1 red", or "+2Y +3R +1B" for a mix."""
    added = [(name, settings[name]) for name in COLOURS if settings[name]]
    if not added:
        return "Task  none"
    if len(added) == 1:
        return "Task  +%d %s" % (added[0][1], added[0][0])
    marks = ["+%d%s" % (count, name[0].upper()) for name, count in added]
    line = "Task " + " ".join(marks)
    return line if len(line) <= COLS else "Task" + "".join(marks)


def message_lines(ctl):
    title, lines, _ = ctl.msg
    return [title] + lines + ["", "Any key: back"], None


# The tables, by screen name. The on-demand modules (ON_DEMAND) add their screens to PRESS
# and LINES when loaded. A screen missing from PRESS ignores its buttons; only set-up takes
# long presses (but hold STOP, which _global_rules handles on every screen).
PRESS = {"setup": press_setup}
LONG = {"setup": long_setup}
LINES = {"setup": setup_lines,
         "message": message_lines}
TICK = {}  # the timed draw (R21) is no screen's: tick runs it on every one
ART = {}  # screens drawn as graphics (draws.py's active and card)
