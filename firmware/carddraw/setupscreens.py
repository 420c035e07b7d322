# The set-up side's screens (see screens.py for the interface): set-up itself, the
# difficulty picker and the options; and the Plan, the action set-up would start.
from carddraw import config, lockcode, settings as known
from carddraw.config import SKILLS
from carddraw.deck import COLOURS, build_deck
from carddraw.odds import planned_odds
from carddraw.screens import Menu, Screen
from carddraw.texts import deck_line, odds_words, skill_name


# -- set-up -------------------------------------------------------------------------------
class Setup(Screen):
    """RANK ranks +1, HELP helpers +1 (both wrap; hold to step down; rank 0 for a scan
    only, R3), STOP the difficulty picker (unless the referee froze the task), DRAW starts
    the action, hold DRAW the options."""
    name = "setup"
    longs = ("RANK", "HELP", "DRAW", "STOP")

    def press(self, button):
        ctl = self.ctl
        if button == "DRAW":
            ctl.start()
        elif button != "STOP":
            self.step_team(button, 1)
        elif ctl.settings["frozen"]:
            ctl.say("Set by referee", "The referee set this task. You set ranks and helpers.")
        else:
            ctl.beep("click")
            ctl.goto(Task(ctl))

    def long(self, button):
        if button == "DRAW":
            self.ctl.goto(Options(self.ctl))
        else:
            self.step_team(button, -1)

    def step_team(self, button, delta):
        """RANK: ranks, HELP: helpers, a step up (press) or down (long press), wrapping."""
        ctl = self.ctl
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

    def lines(self):
        ctl = self.ctl
        settings = ctl.settings
        skill = skill_name(settings["skill"])
        title = ("Chain: " + skill) if ctl.chained else (skill + " set-up")
        counts = ctl.plan.counts()
        chance, risk = odds_words(ctl.plan.odds)  # "..." until worked out
        needed = settings["needed"]
        if not ctl.log_room:  # the next press's meaning, or what stops it
            hint = "Log full: export"
        elif lockcode.default(settings):  # anyone can open the lock: change the code first
            hint = "Set referee code"
        else:
            hint = "DRAW: start"
        return [title, "Rank %d Helpers %d" % (settings["ranks"], settings["helpers"]),
                task_line(settings), mode_line(settings), deck_line(counts),
                ("Need %d  " % needed if needed > 1 else "Chance  ") + chance, risk, hint], None


def mode_line(settings):
    """A referee present (R14, R19) and timed mode (R21), in words; "" for neither."""
    referee, timed = settings["referee"], settings["timed"]
    if referee and timed:
        return "Referee, %ds" % settings["interval"]
    if timed:
        return "Timed, every %ds" % settings["interval"]
    return "Referee present" if referee else ""


class Plan:
    """The action set-up would start: its deck (R2-R8, made anew at each change of the
    settings) and its odds (R26 and the risks, as its first active screen shows them),
    worked out by work() only: the costly part, left to a quiet pass."""

    def __init__(self, ctl):
        self.ctl = ctl
        self.version = None   # the settings_version the deck was built for
        self.deck = None
        self.odds = None

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
        if self.odds_ready():
            return False
        s = self.ctl.settings
        self.odds = planned_odds(self.deck, s["needed"], s["auto"], s["ranks"])
        return True

    def for_deck(self, counts):
        """The odds if worked out for these settings and this deck (the start logs them)."""
        return self.odds if self.odds_ready() and self.deck == counts else None


def task_line(settings):
    """The task's difficulty cards (R6): "Task: none", "Task: +1 red", "Task: 5 cards" for a
    mix; a task the referee froze, which nothing on set-up changes: "Ref: +1 red"."""
    label = "Ref:" if settings["frozen"] else "Task:"
    added = 0
    colour = None
    for name in COLOURS:
        if settings[name]:
            added += settings[name]
            colour = name if colour is None else "mix"
    if colour is None:
        return label + " none"
    if colour == "mix":
        return "%s %d cards" % (label, added)
    return "%s +%d %s" % (label, added, colour)  # "Task: +9 yellow": 15


# -- the difficulty picker ------------------------------------------------------------------
# What each key sets, (green, yellow, red, black); "hR" is hold RANK. The seed page's usual
# task cards: a red or two for a hard task or a risky place, a black for a dangerous one, a
# yellow for a mild environmental risk (R6, R7).
PRESETS = {"R": (0, 0, 1, 0), "H": (0, 0, 2, 0), "D": (0, 0, 0, 1), "hR": (0, 1, 0, 0),
           "hH": (0, 0, 0, 0)}
TASK_TEXT = ["Difficulty", "RANK  +1 red", "HELP  +2 red", "DRAW  +1 black",
             "hold RANK yellow", "hold HELP none", "hold DRAW more", "STOP  back"]


class Task(Screen):
    """Each key sets one of the common difficulties (R6: the task's cards, in place of any
    set before) and goes back to set-up; hold DRAW: the options; STOP: back, unchanged. The
    difficulty resets for each action unless the referee froze the task, and a frozen task
    never reaches this screen (set-up refuses it)."""
    name = "task"
    longs = ("RANK", "HELP", "DRAW", "STOP")

    def press(self, button):
        ctl = self.ctl
        if ctl.settings["frozen"]:  # never change a frozen task
            ctl.goto(Setup(ctl))
        elif button == "STOP":
            ctl.beep("click")
            ctl.goto(Setup(ctl))
        else:
            self.choose(button[0])

    def long(self, button):
        ctl = self.ctl
        if button == "DRAW":
            ctl.goto(Options(ctl))  # more: the options menu, as hold DRAW on set-up
        elif not ctl.settings["frozen"]:
            self.choose("h" + button[0])

    def choose(self, key):
        """Set the difficulty of the preset on `key`, log it, back to set-up."""
        ctl = self.ctl
        cards = dict(zip(known.DIFFICULTY, PRESETS[key]))
        version = ctl.settings_version
        for name in cards:
            ctl.change(name, cards[name])
        if ctl.settings_version != version:  # a change: logged with all four colours
            ctl.record("settings", **cards)
        ctl.beep("click")
        ctl.goto(Setup(ctl))

    def lines(self):
        return list(TASK_TEXT), None  # (set-up shows the task chosen)


# -- the options ------------------------------------------------------------------------------
class Options(Menu):
    """The settings beyond set-up's (settings.OPTIONS): DRAW on an on/off row flips it, on the
    skill (the last row) steps to the next skill, on a number edits it. The rows of a task the
    referee froze (settings.FROZEN) are refused with a message. STOP: back to set-up, the
    changes logged in one record."""
    name = "options"
    title = "Options"

    def __init__(self, ctl):
        super().__init__(ctl)
        self.before = dict(ctl.settings)  # what changed is logged on the way out

    def rows(self):
        settings = self.ctl.settings
        rows = []
        for label, name in zip(known.LABELS.split("|"), known.OPTIONS):
            if name == "skill":  # its name is longer than a value column
                rows.append((label + " " + skill_name(settings["skill"]), ""))
            else:
                rows.append((label, shown_value(name, settings[name])))
        return rows

    def choose(self, index):
        ctl = self.ctl
        name = known.OPTIONS[index]
        if ctl.settings["frozen"] and name in known.FROZEN:
            ctl.say("Set by referee", "The referee set this task: ask them to change it.")
        elif name == "skill":
            self.next_skill()
        elif name in config.FLAGS:
            ctl.change(name, not ctl.settings[name])
        else:
            self.editing = True

    def step(self, index, delta):
        """One step of a number option (R21: the interval by 5 s) -> False past its range."""
        ctl = self.ctl
        name = known.OPTIONS[index]
        low, high = config.NUMBERS[name][1:]
        value = ctl.settings[name] + delta * known.step(name)
        if value < low or value > high:
            return False
        ctl.change(name, value)
        return True

    def next_skill(self):
        """The next of surgery, repair, scan (R24); leaving a scan at rank 0 lifts it to 1
        (R3)."""
        ctl = self.ctl
        settings = ctl.settings
        ctl.change("skill", SKILLS[(SKILLS.index(settings["skill"]) + 1) % len(SKILLS)])
        if settings["skill"] != "scan" and settings["ranks"] == 0:
            ctl.change("ranks", 1)

    def stop(self):
        ctl = self.ctl
        changed = {}
        for name in known.OPTIONS:
            if ctl.settings[name] != self.before.get(name):
                changed[name] = ctl.settings[name]
        if changed:
            ctl.record("settings", **changed)
        ctl.goto(Setup(ctl))


def shown_value(name, value):
    if name == "interval":
        return "%ds" % value
    if name == "referee":
        return "yes" if value else "no"
    if name in config.FLAGS:
        return "on" if value else "off"
    return value
