# The referee's screens (see screens.py for the interface): the lock, the referee menu, deck
# adjustment and a new code. Pure: no I/O. Each keeps `back`, the screen the referee came
# from, where leaving them returns (hold STOP, or 30 s untouched: the controller's leave()).
#
#   Lock       the code's presses of R/H/D/S, judged by lockcode.py once there are as many as
#              the code has. A wrong code says so (and how many tries are left before a
#              wait); during a wait, a countdown and no code is taken.
#   Referee    the items that apply now (RefMenu.offered).
#   Adjust     pick a colour with DRAW, then RANK removes one card, HELP adds one (R19, R8).
#   New code   4 to 8 presses, then hold DRAW saves, hold RANK starts over.
from . import deck, lockcode, settings, texts
from .config import COLS
from .screens import Menu, Screen, Setup


def shown_code(code):
    """A code as entered so far, centred, its presses spaced while they fit (the recovery
    code's 12 do not): the lock shows a * for each (how many presses the code takes stays
    unsaid), the new-code screen the presses."""
    marks = " ".join(code)
    if len(marks) > COLS:
        marks = code
    return " " * ((COLS - len(marks)) // 2) + marks


class Lock(Screen):
    name = "lock"
    locked = True
    code = ""  # the presses entered so far

    def press(self, button):
        """A press of the code; once there are as many as the code has (the recovery code's
        12 during a wait, if there is one) the Lockout counts the try and judges it once the
        count is on flash (during a wait it refuses it unchecked)."""
        ctl = self.ctl
        lockout = ctl.lockout
        if lockout.pending:  # (a try, or None)
            return
        ctl.beep("click")
        self.code += button[0]
        if len(self.code) >= lockout.presses():
            said = lockout.attempt(self.code, self.judged)
            self.code = ""
            if said:  # (a refusal, or None)
                ctl.say("Referee lock", said, self.back)

    def judged(self, said):
        """The Lockout's word on the try, its count on flash: the menu, or why not (only if
        the lock is still on show: left meanwhile, the try's count and wait stand)."""
        ctl = self.ctl
        if ctl.shown is not self:
            return
        if not said:  # (None: the code opened it)
            ctl.goto(RefMenu(ctl, self.back))
        else:
            ctl.say("Wrong code", said, self.back)

    def seconds(self):
        left = self.ctl.lockout.wait_ms()  # the wait after wrong codes
        return (left + 999) // 1000 if left else None

    def lines(self):
        ctl = self.ctl
        lockout = ctl.lockout
        left = lockout.wait_ms()
        stars = shown_code("*" * len(self.code))
        pending = lockout.pending  # a try counted, compared once the count is on flash
        if pending or not left:
            lines = ["Enter the code", "on the buttons:", "", stars, "", ""]
            if pending and lockout.stalled:
                lines[4:] = ["Flash error:", "not checked yet"]
            elif pending:
                lines[4] = "Checking..."
        else:  # a countdown (the controller redraws it every second); codes entered during
            # the wait are refused unchecked, but for the recovery code if there is one
            if ctl.settings["recovery"]:
                why = ["codes. Wait, or", "enter the 12-key", "recovery code:"]
            else:
                why = ["codes: no code", "is taken until", "the wait ends."]
            lines = ["Too many wrong"] + why + [stars, "Wait " + lockcode.wait_text(left)]
        return ["Referee lock"] + lines + ["hold STOP: back"], None


class NewCode(Screen):
    name = "newcode"
    longs = ("RANK", "DRAW", "STOP")
    locked = True
    held = True
    code = ""

    def press(self, button):
        full = len(self.code) >= settings.LOCK_MAX  # 8 presses at most
        if not full:
            self.code += button[0]
        self.ctl.beep("error" if full else "click")

    def long(self, button):
        """Hold DRAW: save the code entered (4 to 8 presses); hold RANK: start over. (DRAW
        alone is a press of the code, so saving takes a long press; hold STOP cancels, as on
        every referee screen.)"""
        ctl = self.ctl
        code = self.code
        self.code = ""  # either way the entry starts over
        if button == "DRAW":
            said, recovery = ctl.lockout.keep(code)
            if not said:  # the recovery code, shown this once: write it down
                ctl.say("Code saved", "Recovery code, for a wait after wrong codes: %s %s %s"
                        % (recovery[:4], recovery[4:8], recovery[8:]),
                        RefMenu(ctl, self.back), "click")
            else:
                ctl.say("Not saved", said + ".")
        else:  # RANK (hold STOP never comes here: the controller leaves)
            ctl.beep("click")

    def lines(self):
        return ["New code", "4 to 8 presses", "of the buttons:", shown_code(self.code),
                "", "hold DRAW: save" if len(self.code) >= settings.LOCK_MIN else "",
                "hold RANK: clear", "hold STOP: back"], None


class RefMenu(Menu):
    name = "refmenu"
    title = "Referee"
    locked = True
    held = True

    def offered(self):
        """The labels of the items that apply now, in the menu's order (choose() does them)."""
        ctl = self.ctl
        play = ctl.play
        if not play:  # the referee's task, frozen or not: from set-up only
            return ["Change code", "Unfreeze task" if ctl.settings["frozen"] else "Freeze task"]
        action = play.action
        state = action.state
        items = []
        if state == "referee":  # R14: a black awaits the referee
            items = ["Black: go on", "Black: fail"]
        if state == "active" and not action.pending:  # between draws
            items.append("Helper leaves")  # R18
            if action.referee:  # R19: a referee present only
                items.append("Adjust deck")
        if play.can_undo():
            items.append("Undo last draw")
        if state == "active" or state == "referee":  # the action runs
            items.append("End action")
        return items + ["Change code"]

    def rows(self):
        rows = []
        for label in self.offered():
            rows.append((label, ""))
        return rows

    def choose(self, index):
        """What the item chosen does."""
        ctl = self.ctl
        play = ctl.play
        item = self.offered()[index]
        if item == "Black: go on":
            play.referee_continue()
            ctl.go_home()
        elif item == "Black: fail":
            play.referee_fail()
            ctl.go_home()
        elif item == "Helper leaves":
            ctl.say("Helper left", "%d helping now. Deck %s" % (
                play.helper_leaves(), texts.deck_line(play.action.deck.counts())), self, "click")
        elif item == "Adjust deck":
            ctl.goto(Adjust(ctl, self.back))
        elif item == "Undo last draw":
            play.undo_draw()
            ctl.say("Undone", "The last draw is undone.", ctl.home(), "click")
        elif item == "End action":
            play.end_by_referee()
            ctl.clear()
            ctl.say("Ended", "The referee ended the action.", Setup(ctl), "click")
        elif item == "Change code":
            ctl.goto(NewCode(ctl, self.back))
        else:  # a referee-prepared task (settings.FROZEN): kept for every action until unfrozen
            frozen = not ctl.settings["frozen"]
            ctl.change("frozen", frozen)
            ctl.record("settings", frozen=frozen)
            ctl.say("Task frozen" if frozen else "Task unfrozen",
                    "The task is set for every action until unfrozen." if frozen  # 5 lines fit
                    else "Anyone may set the task again.", Setup(ctl), "click")

    def stop(self):
        self.ctl.leave()


class Adjust(Menu):
    """R19: pick a colour with DRAW, then RANK removes a card, HELP adds one (R8 settles);
    STOP back to the referee menu."""
    name = "adjust"
    title = "Adjust deck"
    locked = True
    held = True

    def rows(self):
        rows = []
        for colour, count in zip(deck.COLOURS, self.ctl.play.action.deck.counts()):
            rows.append((texts.capital(colour), count))
        return rows

    def choose(self, index):
        self.editing = True

    def step(self, index, delta):
        self.ctl.play.adjust(deck.COLOURS[index], delta)  # RuleError if not possible: said
        return True

    def stop(self):
        self.ctl.goto(RefMenu(self.ctl, self.back))
