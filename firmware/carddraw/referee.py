# The referee's screens: the lock, the referee menu, deck adjustment and a new code.
# Pure: no I/O. Loaded by the controller only when a referee screen is shown (controller.load,
# on the first hold of STOP) and dropped when the last one closes, so none of it sits in the
# heap after boot. Each screen adds a handler to controller.PRESS and a line-builder to
# controller.LINES (the tables at the end of this file).
#
#   Referee lock [lock]  the code's presses of R/H/D/S. A wrong code says so and goes back.
#   Referee [refmenu]    the items of MENU that apply now. STOP: leave.
#   Adjust deck [adjust] pick a colour with DRAW, then RANK removes one card, HELP adds one
#                        (R8 settles). STOP: back to the referee menu.
#   New code [newcode]   the code's presses, then DRAW saves, STOP cancels, RANK/HELP start over.
from carddraw import settings as known
from carddraw.action import ACTIVE, FAILED, REFEREE
from carddraw.controller import CNAMES, deck_line, menu_lines
from carddraw.deck import COLOURS

LOCK_TEXT = "Referee lock|Enter the code|with R H D S:|"


class Lock:
    """The referee code: when an entry is complete, whether it opens the lock, and how a new
    code is kept. The one place that knows what a code is; the settings keep it under "lock"
    (settings.lock_ok says what a kept code looks like)."""

    presses = known.LOCK_PRESSES

    def __init__(self, ctl):
        self.ctl = ctl

    def complete(self, entered):
        """Whether `entered` holds a whole code, to be checked or kept now."""
        return len(entered) >= self.presses

    def opens(self, entered):
        return entered == self.ctl.settings["lock"]

    def keep(self, entered):
        ctl = self.ctl
        ctl.change("lock", entered)
        ctl.record("settings", lock="changed")  # never the code itself: players read logs


def shown_code(entered, presses, hidden):
    """The code as entered so far: * for each press (or the press itself), _ for each to come."""
    marks = "*" * len(entered) if hidden else entered
    return "    " + " ".join(marks + "_" * (presses - len(entered)))


# -- the lock -----------------------------------------------------------------------------------
def press_lock(ctl, button):
    lock = Lock(ctl)
    ctl.beep("click")
    ctl.code += button[0]
    if lock.complete(ctl.code):
        if lock.opens(ctl.code):
            ctl.cur = 0
            ctl.goto("refmenu")
        else:
            ctl.say("Wrong code", "Wrong referee code.", ctl.back)


def lock_lines(ctl):
    code = shown_code(ctl.code, Lock.presses, True)
    return (LOCK_TEXT + "|" + code + "|||hold S: cancel").split("|"), None


def press_newcode(ctl, button):
    lock = Lock(ctl)
    ctl.beep("click")
    if not lock.complete(ctl.code):
        ctl.code += button[0]
    elif button == "DRAW":
        lock.keep(ctl.code)
        ctl.cur = 0
        ctl.say("Code saved", "The new referee code is saved.", "refmenu", "click")
    elif button == "STOP":
        ctl.goto("refmenu")
    else:
        ctl.code = ""  # RANK or HELP: start over


def newcode_lines(ctl):
    done = Lock(ctl).complete(ctl.code)
    return ["New code", "Press %d keys:" % Lock.presses, "",
            shown_code(ctl.code, Lock.presses, False), "",
            "D:save S:cancel" if done else "", "hold S: cancel"], None


# -- the referee menu: (label, when it is offered, what it does) ---------------------------------
def black_drawn(ctl):
    return ctl.action is not None and ctl.action.state == REFEREE  # R14


def between_draws(ctl):
    action = ctl.action
    return action is not None and action.state == ACTIVE and action.pending is None


def referee_between_draws(ctl):
    return between_draws(ctl) and ctl.action.referee  # R19: a referee present only


def draw_to_undo(ctl):
    return ctl.action is not None and ctl.undo is not None


def action_running(ctl):
    return ctl.action is not None and ctl.action.state in (ACTIVE, REFEREE)


def always(ctl):
    return True


def go_on(ctl):
    action = ctl.action
    action.referee_continue()  # R14: the black leaves the deck
    ctl.card = None            # ... and off the screen, if it was still on show (no redraws)
    ctl.record("referee", decision="continue", deck=list(action.deck.counts()))
    ctl.rearm()
    ctl.goto("active")


def fail(ctl):
    ctl.action.referee_end()  # R14
    ctl.card = None
    ctl.record("referee", decision="end")
    ctl.end(FAILED)
    ctl.beep("fail")
    ctl.goto("failed")


def helper_leaves(ctl):
    action = ctl.action
    helping = action.helper_leaves()  # R18
    counts = action.deck.counts()
    ctl.record("helper_leaves", helpers=helping, deck=list(counts))
    ctl.say("Helper left", "%d helping now. Deck %s" % (helping, deck_line(counts)),
            "refmenu", "click")


def adjust(ctl):
    ctl.cur = 0
    ctl.editing = False
    ctl.goto("adjust")


def undo(ctl):
    from carddraw import saved  # in RAM once an action has drawn anyway
    ctl.action = action = saved.from_dict(ctl.undo)
    ctl.undo = None
    ctl.card = None
    ctl.applied = False
    ctl.ended = "success"
    ctl.record("undo", draws=action.draws, state=action.state, deck=list(action.deck.counts()))
    ctl.rearm()
    ctl.say("Undone", "The last draw is undone.", ctl.home(), "click")


def end_action(ctl):
    action = ctl.action
    ctl.record("end", outcome="ended by referee", successes=action.successes,
               needed=action.needed, complications=action.complications, draws=action.draws)
    ctl.clear()
    ctl.say("Ended", "The referee ended the action.", "setup", "click")


def new_code(ctl):
    ctl.code = ""
    ctl.goto("newcode")


MENU = (
    ("Black: go on", black_drawn, go_on),
    ("Black: fail", black_drawn, fail),
    ("Helper leaves", between_draws, helper_leaves),
    ("Adjust deck", referee_between_draws, adjust),
    ("Undo last draw", draw_to_undo, undo),
    ("End action", action_running, end_action),
    ("Change code", always, new_code),
)


def offered(ctl):
    """The menu's items that apply now, in MENU order."""
    return [item for item in MENU if item[1](ctl)]


def press_refmenu(ctl, button):
    if button == "STOP":
        ctl.leave()
        return
    ctl.beep("click")
    items = offered(ctl)
    if button == "DRAW":
        items[ctl.cur % len(items)][2](ctl)
    else:
        ctl.move(button, len(items))


def refmenu_lines(ctl):
    items = offered(ctl)
    ctl.cur %= len(items)  # the items on offer may have changed since the cursor moved
    labels = [item[0] for item in items]
    return menu_lines("Referee", labels, [""] * len(items), ctl.cur, False,
                      "D:pick  S:back"), None


# -- deck adjustment (R19) ----------------------------------------------------------------------
def press_adjust(ctl, button):
    if ctl.editing:
        if button == "DRAW" or button == "STOP":
            ctl.editing = False
        else:
            action = ctl.action
            colour = COLOURS[ctl.cur]
            delta = -1 if button == "RANK" else 1
            action.adjust(colour, delta)  # R19, R8 settles; RuleError if not possible
            ctl.record("adjust", colour=colour, delta=delta, deck=list(action.deck.counts()))
    elif button == "STOP":
        ctl.cur = 0
        ctl.goto("refmenu")
    elif button == "DRAW":
        ctl.editing = True
    else:
        ctl.move(button, len(COLOURS))
    ctl.beep("click")


def adjust_lines(ctl):
    return menu_lines("Adjust deck", CNAMES.split("|"), ctl.action.deck.counts(), ctl.cur,
                      ctl.editing, "D:pick  S:back"), None


PRESS = {"lock": press_lock, "newcode": press_newcode, "refmenu": press_refmenu,
         "adjust": press_adjust}
LINES = {"lock": lock_lines, "newcode": newcode_lines, "refmenu": refmenu_lines,
         "adjust": adjust_lines}
