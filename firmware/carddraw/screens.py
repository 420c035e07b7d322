# The screens as objects, one interface each, in the way Tildagon's apps have update/draw:
# press(button) and long(button) for the buttons, tick(now) for the clock, lines() for what it
# shows (its lines and the LED colour) and art() where it draws graphics. A screen's own
# state (a cursor, the code being entered, the row being edited, a message and where it
# returns) lives on the screen; the controller holds the screen on show and changes it with
# goto(). lines() and art() never change anything. Here: the base, the one Menu component,
# the message, and the set-up side (set-up itself, the difficulty picker, the options, and
# the Plan: the action set-up would start). The action's screens are in playscreens.py, the
# referee's in referee.py. docs/screens.md says what each one does.
from . import config, settings as known
from .deck import build_deck
from .odds import planned_odds
from .texts import capital, deck_line, odds_words, wrap

MSG_MS = 10000  # a message goes back by itself after this long (R21: nothing stalls)


class Screen:
    name = ""  # each screen's own (the controller, the bench and the phone view read it)
    longs = ("STOP",)  # buttons with a long press here (hold STOP: the lock, on any screen);
                       # the others act as they go down
    locked = False  # a referee screen, the lock included: hold STOP leaves, 30 s idle closes
    held = False    # reached only with the code: a timed draw waits while it is open (R21)

    def __init__(self, ctl, back=None):
        self.ctl = ctl
        self.back = back  # where leaving returns (a message, the referee's screens)

    # lines() -> (up to 8 lines, the first the title; the LED colour or None): every screen's
    def nothing(self, arg=None):  # not *args: a tuple made at each call, every pass's tick
        """What a screen does unless it says otherwise: press(button), long(button) and
        tick(now) do nothing; covered() (the referee lock opened over it, which returns to
        it later) nothing; seconds() (the countdown on show, in whole seconds: a new view
        each) None; art() None for a screen of text, else (the picture render.py draws
        instead of the lines, the LED colour)."""

    press = long = tick = covered = seconds = art = nothing


class Menu(Screen):
    """Every menu: a title, lines above the rows (head), rows of (label, value) (rows()), a
    cursor that RANK moves up and HELP down (wrapping), DRAW chooses (choose(index)), STOP
    goes back (stop()); a number chosen is edited in place (editing): RANK lowers it, HELP
    raises it (step(index, delta) -> False at the end of its range), DRAW or STOP is done.
    The rows on offer may change while the menu is open: the cursor is taken modulo their
    number."""
    # title: each menu's own
    hint = "DRAW: choose"
    quiet = False  # no click on a press (the success choice)
    led = None     # the LED's colour
    cur = 0
    editing = False
    stop = Screen.nothing

    def head(self):
        return []

    def covered(self):
        self.editing = False  # a number being edited is done: back, the menu only moves

    def press(self, button):
        ctl = self.ctl
        rows = len(self.rows())
        cur = self.cur % rows
        delta = -1 if button == "RANK" else 1
        moves = button == "RANK" or button == "HELP"
        if self.editing and moves:
            ctl.beep("click" if self.step(cur, delta) else "error")
            return
        if not self.quiet:
            ctl.beep("click")
        if self.editing:
            self.editing = False
        elif moves:
            self.cur = (cur + delta) % rows
        elif button == "DRAW":
            self.choose(cur)
        else:
            self.stop()

    def lines(self):
        """The title, the head, a window of rows around the cursor (the chosen row marked
        with >, a value being edited in <>), then the hint, or how to edit while editing."""
        rows = self.rows()
        cur = self.cur % len(rows)
        head = self.head()
        room = config.ROWS - 2 - len(head)
        top = max(0, min(cur - room + 1, len(rows) - room))
        shown = [self.title] + head
        for index in range(top, min(len(rows), top + room)):
            label, value = rows[index]
            mark = ">" if index == cur else " "
            if value is None:  # a row to choose, no value
                line = mark + label
            else:
                if self.editing and index == cur:
                    value = "<%s>" % value
                line = "%s%-10s%5s" % (mark, label, value)
            shown.append(line)
        return shown + ["RANK -  HELP +" if self.editing else self.hint], self.led


class Message(Screen):
    """A refusal or a note: any key goes back, or MSG_MS by itself. A referee screen's (locked,
    held) if it returns to one."""
    name = "message"

    def __init__(self, ctl, title, text, back):
        Screen.__init__(self, ctl, back)
        self.locked = back.locked
        self.held = back.held
        self.title = title
        self.text = wrap(text)[:config.ROWS - 3]
        self.since = ctl.now

    def press(self, button):
        self.ctl.goto(self.back)

    long = press

    def tick(self, now):
        if now - self.since >= MSG_MS:
            self.ctl.goto(self.back)  # a message goes by itself: it holds nothing up (R21)

    def lines(self):
        return [self.title] + self.text + ["", "Any key: back"], None


# -- set-up -------------------------------------------------------------------------------
class Setup(Screen):
    """RANK ranks +1, HELP helpers +1 (both wrap; hold to step down; rank 0 for a scan
    only, R3), STOP the difficulty picker (unless the referee froze the task), DRAW starts
    the action, hold DRAW the options."""
    name = "setup"
    longs = config.BUTTONS  # every button

    def press(self, button, delta=1):
        """delta: RANK (ranks) and HELP (helpers) step up a press, down a long press (-1),
        wrapping."""
        ctl = self.ctl
        settings = ctl.settings
        if button == "DRAW":
            ctl.start()
        elif button != "STOP":
            name = "ranks" if button == "RANK" else "helpers"
            low = 1 if name == "ranks" and settings["skill"] != "scan" else 0  # R3
            high = config.NUMBERS[name][2]
            value = settings[name] + delta
            if value > high:
                value = low
            elif value < low:
                value = high
            ctl.change(name, value)
            ctl.beep("click")
        elif settings["frozen"]:
            ctl.say("Set by referee", "The referee set this task. You set ranks and helpers.")
        else:
            ctl.beep("click")
            ctl.goto(Task(ctl))

    def long(self, button):
        if button == "DRAW":
            self.ctl.goto(Options(self.ctl))
        else:
            self.press(button, -1)

    def lines(self):
        ctl = self.ctl
        settings = ctl.settings
        skill = capital(settings["skill"])
        counts = ctl.plan.counts()
        chance, risk = odds_words(ctl.plan.odds)  # "..." until worked out
        needed = settings["needed"]
        # the task's difficulty cards (R6): "Task: none", "Task: +1 red", "Task: 5 cards" for
        # a mix; a task the referee froze, which nothing on set-up changes: "Ref: +1 red"
        task = "Ref:" if settings["frozen"] else "Task:"
        added = 0
        colour = None
        for name in known.DIFFICULTY:  # the task's cards, by colour
            if settings[name]:
                added += settings[name]
                colour = "mix" if colour else name
        if not colour:
            task += " none"
        elif colour == "mix":
            task += " %d cards" % added
        else:
            task += " +%d %s" % (added, colour)  # "Task: +9 yellow": 15
        # a referee present (R14, R19) and timed mode (R21), in words; "" for neither
        referee = settings["referee"]
        if settings["timed"]:
            mode = ("Referee, %ds" if referee else "Timed, every %ds") % settings["interval"]
        else:
            mode = "Referee present" if referee else ""
        if not ctl.log_room:  # the next press's meaning, or what stops it
            hint = "Log full: export"
        elif known.default(settings):  # anyone can open the lock: change the code first
            hint = "Set referee code"
        else:
            hint = "DRAW: start"
        return [("Chain: " + skill) if ctl.chained else (skill + " set-up"),
                "Rank %d Helpers %d" % (settings["ranks"], settings["helpers"]), task, mode,
                deck_line(counts), ("Need %d  " % needed if needed > 1 else "Chance  ") + chance,
                risk, hint], None


class Plan:
    """The action set-up would start: its deck (R2-R8, made anew at each change of the
    settings) and its odds (R26 and the risks, as its first active screen shows them),
    worked out by work() only: the costly part, left to a quiet pass."""

    version = None   # the settings_version the deck was built for
    deck = None
    odds = None

    def __init__(self, ctl):
        self.ctl = ctl

    def counts(self):
        ctl = self.ctl
        if self.version != ctl.settings_version:
            s = ctl.settings
            self.deck = build_deck(s["ranks"], s["helpers"], s["bonus"], s["green"],
                                   s["yellow"], s["red"], s["black"]).counts()
            self.version = ctl.settings_version
            self.odds = None
        return self.deck

    def odds_ready(self):
        self.counts()
        return self.odds is not None

    def work(self):
        if not self.odds_ready():
            s = self.ctl.settings
            self.odds = planned_odds(self.deck, s["needed"], s["auto"], s["ranks"])

    def for_deck(self, counts):
        """The odds if worked out for these settings and this deck (the start logs them)."""
        return self.odds if self.odds_ready() and self.deck == counts else None


# -- the difficulty picker ------------------------------------------------------------------
# What each key sets (the colours not named: none); "hR" is hold RANK. The seed page's usual
# task cards: a red or two for a hard task or a risky place, a black for a dangerous one, a
# yellow for a mild environmental risk (R6, R7).
PRESETS = {"R": {"red": 1}, "H": {"red": 2}, "D": {"black": 1}, "hR": {"yellow": 1}, "hH": {}}


class Task(Screen):
    """Each key sets one of the common difficulties (R6: the task's cards, in place of any
    set before) and goes back to set-up; hold DRAW: the options; STOP: back, unchanged. The
    difficulty resets for each action unless the referee froze the task, and a frozen task
    never reaches this screen: set-up refuses it, and freezing (the referee menu, which the
    lock may open over it) goes back to set-up, never here."""
    name = "task"
    longs = config.BUTTONS  # every button

    def press(self, button, held=""):
        """held: "h" for a long press (PRESETS' keys). A preset sets the difficulty, logged
        if it changed it, and goes back to set-up."""
        ctl = self.ctl
        if held and button == "DRAW":
            ctl.goto(Options(ctl))  # more: the options menu, as hold DRAW on set-up
            return
        if button != "STOP":  # (hold STOP is the lock's, never here)
            preset = PRESETS[held + button[0]]
            cards = {}
            version = ctl.settings_version
            for name in known.DIFFICULTY:
                cards[name] = preset.get(name, 0)
                ctl.change(name, cards[name])
            if ctl.settings_version != version:  # a change: logged with all four colours
                ctl.record("settings", **cards)
        ctl.beep("click")
        ctl.goto(Setup(ctl))

    def long(self, button):
        self.press(button, "h")

    def lines(self):
        # one constant tuple, copied into the list build() may change: fewer bytes than a list
        return list(("Difficulty", "RANK  +1 red", "HELP  +2 red", "DRAW  +1 black",
                     "hold RANK yellow", "hold HELP none", "hold DRAW more", "STOP  back")), None


# -- the options ------------------------------------------------------------------------------
class Options(Menu):
    """The settings beyond set-up's (settings.OPTIONS): DRAW on an on/off row flips it, on the
    skill (the last row) steps to the next skill, on a number edits it. The rows of a task the
    referee froze (settings.FROZEN) are refused with a message. STOP: back to set-up, the
    changes logged in one record."""
    name = "options"
    title = "Options"

    def __init__(self, ctl):
        Menu.__init__(self, ctl)
        self.before = dict(ctl.settings)  # what changed is logged on the way out

    def rows(self):
        settings = self.ctl.settings
        rows = []
        for label, name in zip(known.LABELS.split("|"), known.OPTIONS):
            value = settings[name]
            if name == "skill":  # its name is longer than a value column
                label += " " + capital(value)
                value = ""
            elif name == "interval":
                value = "%ds" % value
            elif name == "referee":
                value = "yes" if value else "no"
            elif name in config.FLAGS:
                value = "on" if value else "off"
            rows.append((label, value))
        return rows

    def choose(self, index):
        ctl = self.ctl
        settings = ctl.settings
        name = known.OPTIONS[index]
        if settings["frozen"] and name in known.FROZEN:
            ctl.say("Set by referee", "The referee set this task: ask them to change it.")
        elif name == "skill":  # the next of surgery, repair, scan (R24)
            skills = config.SKILLS
            ctl.change("skill", skills[(skills.index(settings["skill"]) + 1) % len(skills)])
            if settings["skill"] != "scan" and not settings["ranks"]:
                ctl.change("ranks", 1)  # R3: rank 0 is a scan's only
        elif name in config.FLAGS:
            ctl.change(name, not settings[name])
        else:
            self.editing = True

    def step(self, index, delta):
        """One step of a number option (R21: the interval by 5 s) -> False past its range."""
        ctl = self.ctl
        name = known.OPTIONS[index]
        _, low, high = config.NUMBERS[name]  # (the default, the range)
        # R21: the interval 30-60 s in 5 s steps; the others by 1
        value = ctl.settings[name] + delta * (5 if name == "interval" else 1)
        if value < low or value > high:
            return False
        ctl.change(name, value)
        return True

    def stop(self):
        ctl = self.ctl
        changed = {}
        for name in known.OPTIONS:
            if ctl.settings[name] != self.before[name]:
                changed[name] = ctl.settings[name]
        if changed:
            ctl.record("settings", **changed)
        ctl.goto(Setup(ctl))

