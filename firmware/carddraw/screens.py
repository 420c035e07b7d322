# The screens as objects, one interface each, in the way Tildagon's apps have update/draw:
# press(button) and long(button) for the buttons, tick(now) for the clock, lines() for what it
# shows (its lines and the LED colour) and art() where it draws graphics. A screen's own
# state (a cursor, the code being entered, the row being edited, a message and where it
# returns) lives on the screen; the controller holds the screen on show and changes it with
# goto(). lines() and art() never change anything. Here: the base, the one Menu component,
# the message, and the set-up side (set-up, the difficulty picker, the options). The action's
# screens are in playscreens.py, the referee's in referee.py. README's screens table is the
# specification of every screen and its buttons.
from carddraw import config, lockcode, settings as known
from carddraw.config import COLS, ROWS, SKILLS
from carddraw.deck import COLOURS
from carddraw.texts import deck_line, risk_line, skill_name, wrap

MSG_MS = 10000  # a message goes back by itself after this long (R21: nothing stalls)


class Screen:
    name = ""
    locked = False  # a referee screen, the lock included: hold STOP leaves, 30 s idle closes
    held = False    # reached only with the code: a timed draw waits while it is open (R21)

    def __init__(self, ctl, back=None):
        self.ctl = ctl
        self.back = back  # where leaving returns (a message, the referee's screens)

    def press(self, button):
        pass

    def long(self, button):
        pass

    def tick(self, now):
        pass

    def lines(self):
        """-> (up to 8 lines, the first the title; the LED colour or None)."""
        return [self.name], None

    def art(self):
        """-> None for a screen of text (its lines are drawn), or (what render.py draws
        instead of the lines, the LED colour): its lines are then made only when read."""
        return None

    def covered(self):
        """The referee lock opened over this screen, which it returns to later."""

    def settle(self):
        """What must wait until the pass's changes are on flash (the lock's compare).
        -> whether there was such a thing (the app then persists again)."""
        return False


class Menu(Screen):
    """Every menu: a title, lines above the rows (head), rows of (label, value), a cursor that
    RANK moves up and HELP down (wrapping), DRAW chooses, STOP goes back; a number chosen
    is edited in place: RANK lowers it, HELP raises it, DRAW or STOP is done. The rows on
    offer may change while the menu is open: the cursor is taken modulo their number."""
    title = ""
    hint = "D:pick  S:back"
    quiet = False  # no click on a press (the success choice)

    def __init__(self, ctl, back=None):
        super().__init__(ctl, back)
        self.cur = 0
        self.editing = False

    def rows(self):
        return []

    def head(self):
        return []

    def choose(self, index):
        pass

    def step(self, index, delta):
        """Edit the number on row `index` by delta -> False at the end of its range."""
        return False

    def stop(self):
        """STOP: back out of the menu."""

    def covered(self):
        self.editing = False  # a number being edited is done: back, the menu only moves

    def press(self, button):
        ctl = self.ctl
        rows = len(self.rows())
        cur = self.cur % rows
        if self.editing and (button == "RANK" or button == "HELP"):
            ctl.beep("click" if self.step(cur, -1 if button == "RANK" else 1) else "error")
            return
        if not self.quiet:
            ctl.beep("click")
        if self.editing:
            self.editing = False
        elif button == "STOP":
            self.stop()
        elif button == "DRAW":
            self.choose(cur)
        else:
            self.cur = (cur + (-1 if button == "RANK" else 1)) % rows

    def lines(self):
        """The title, the head, a window of rows around the cursor (the chosen row marked
        with >, a value being edited in <>), then the hint, or how to edit while editing."""
        rows = self.rows()
        cur = self.cur % len(rows)
        shown = []
        for index in range(len(rows)):
            label, value = rows[index]
            mark = ">" if index == cur else " "
            if value is None:
                shown.append(mark + label)
                continue
            if self.editing and index == cur:
                value = "<%s>" % value
            shown.append("%s%-10s%5s" % (mark, label, value))
        head = self.head()
        room = ROWS - 2 - len(head)
        top = 0
        if len(shown) > room:
            top = min(max(0, cur - room + 1), len(shown) - room)
        hint = "RANK- HELP+ D:ok" if self.editing else self.hint
        return [self.title] + head + shown[top:top + room] + [hint], self.led()

    def led(self):
        return None


class Message(Screen):
    """A refusal or a note: any key goes back, or MSG_MS by itself."""
    name = "message"

    def __init__(self, ctl, title, text, back):
        super().__init__(ctl, back)
        self.title = title
        self.text = wrap(text)[:ROWS - 3]
        self.since = ctl.now

    @property
    def locked(self):
        return self.back.locked

    @property
    def held(self):
        return self.back.held

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

    def press(self, button):
        ctl = self.ctl
        if button == "DRAW":
            ctl.start()
        elif button == "STOP":
            if ctl.settings["frozen"]:
                ctl.say("Set by referee",
                        "The referee set this task. You set ranks and helpers.")
            else:
                ctl.beep("click")
                ctl.goto(Task(ctl))
        else:
            self.step_team(button, 1)

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
        head = "Chain set-up" if ctl.chained else "Set-up"
        if lockcode.default(ctl):  # anyone can open the lock: change the code first
            head += " !" if ctl.chained else " !code"
        title = skill_name(settings["skill"])
        if settings["referee"]:
            title += " REF"
        if settings["timed"]:
            title += " T%d" % settings["interval"]
        counts, chance, red, black = ctl.planned()
        needed = settings["needed"]
        # the risks under the chance, as on the active screen; the task's line carries the
        # hint for its key (or the referee's freeze) that a last line of its own once held
        return [head, title,
                "Ranks %d  Help %d" % (settings["ranks"], settings["helpers"]),
                team_line(settings), task_line(settings), deck_line(counts),
                ("Need %d " % needed if needed > 1 else "Chance  ") + "%6s" % chance,
                "log full: export" if not ctl.log_room else risk_line(red, black)], None


def team_line(settings):
    """The greens the team brings: R3 ranks, R4 helpers up to the ranks, R5 bonus."""
    ranks = settings["ranks"]
    team = ranks + min(settings["helpers"], ranks)
    if settings["bonus"]:
        line = "Team +%d +%d bonus" % (team, settings["bonus"])
        return line if len(line) <= COLS else line.replace(" +", "+", 1)[:COLS]
    return "Team  +%d green" % team


def task_line(settings):
    """The task's difficulty cards (R6) after the key that sets them: "S:task none",
    "S:task +1 red", "S:task +2Y +3R" or "S:task+2Y+3R+1B" for a mix; a task the referee
    froze, which no key on set-up changes: "Ref: +1 red"."""
    label = "Ref:" if settings["frozen"] else "S:task"
    added = []  # (loops, not comprehensions: each of those is a function called, a frame)
    for name in COLOURS:
        if settings[name]:
            added.append(name)
    if not added:
        return label + " none"
    if len(added) == 1:
        return "%s +%d %s" % (label, settings[added[0]], added[0])  # "S:task +9 yellow": 16
    marks = []
    for name in added:
        marks.append("+%d%s" % (settings[name], name[0].upper()))
    for line in (label + " " + " ".join(marks), label + "".join(marks)):
        if len(line) <= COLS:
            return line
    return "S:" + "".join(marks)  # all four colours: "S:+1G+2Y+3R+1B"


# -- the difficulty picker ------------------------------------------------------------------
# (key, what it sets, (green, yellow, red, black)); "hR" is hold RANK. The seed page's usual
# task cards: a red or two for a hard task or a risky place, a black for a dangerous one, a
# yellow for a mild environmental risk (R6, R7).
PRESETS = (("R", "+1 red", (0, 0, 1, 0)), ("H", "+2 red", (0, 0, 2, 0)),
           ("D", "+1 black", (0, 0, 0, 1)), ("hR", "+1 yellow", (0, 1, 0, 0)),
           ("hH", "none", (0, 0, 0, 0)))


class Task(Screen):
    """Each key sets one of the common difficulties (R6: the task's cards, in place of any
    set before) and goes back to set-up; hold DRAW: the options; STOP: back, unchanged. The
    difficulty resets for each action unless the referee froze the task, and a frozen task
    never reaches this screen (set-up refuses it)."""
    name = "task"

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
        for preset in PRESETS:
            if preset[0] == key:
                cards = preset[2]
                if cards != self.cards():  # a change: logged with all four colours
                    ctl.record("settings", **dict(zip(known.DIFFICULTY, cards)))
                for name, count in zip(known.DIFFICULTY, cards):
                    ctl.change(name, count)
                ctl.beep("click")
                ctl.goto(Setup(ctl))

    def cards(self):
        """The task's cards now, (green, yellow, red, black)."""
        return tuple(self.ctl.settings[name] for name in known.DIFFICULTY)

    def lines(self):
        now = self.cards()
        lines = ["Difficulty"]
        for key, label, cards in PRESETS:
            lines.append("%s%-3s%s" % (">" if cards == now else " ", key, label))
        return lines + [" hD more", " S  back"], None


# -- the options ------------------------------------------------------------------------------
class Options(Menu):
    """The settings beyond set-up's (settings.OPTIONS): DRAW on an on/off row flips it, on the
    skill (the last row) steps to the next skill, on a number edits it. The rows of a task the
    referee froze (settings.FROZEN) are refused with a message. STOP: back to set-up, the
    changes logged in one record."""
    name = "options"
    title = "Options"
    hint = "R/H:move D:pick"

    def __init__(self, ctl):
        super().__init__(ctl)
        self.before = dict(ctl.settings)  # what changed is logged on the way out

    def rows(self):
        settings = self.ctl.settings
        labels = known.LABELS.split("|")
        rows = []
        for i in range(len(known.OPTIONS)):
            name = known.OPTIONS[i]
            if name == "skill":  # its name is longer than a value column
                rows.append((labels[i] + " " + skill_name(settings["skill"]), ""))
            else:
                rows.append((labels[i], shown_value(name, settings[name])))
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
