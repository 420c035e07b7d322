# The referee's screens: the lock, the referee menu, deck adjustment and a new code.
# Pure: no I/O. Loaded by the controller only when a referee screen is shown (controller.load,
# on the first hold of STOP) and dropped when the last one closes, so none of it sits in the
# heap after boot. Each screen adds a handler to controller.PRESS and a line-builder to
# controller.LINES (the tables at the end of this file).
#
#   Referee lock [lock]  the code's presses of R/H/D/S, checked by lockcode.py once there are as
#                        many as the code has. A wrong code says so (and how many tries are
#                        left before a wait) and goes back; during a wait, a countdown and no
#                        press is taken.
#   Referee [refmenu]    the items of MENU that apply now. STOP: leave.
#   Adjust deck [adjust] pick a colour with DRAW, then RANK removes one card, HELP adds one
#                        (R8 settles). STOP: back to the referee menu.
#   New code [newcode]   4 to 8 presses, then hold DRAW: save, hold RANK: start over, hold STOP:
#                        cancel.
from carddraw import lockcode, settings as known
from carddraw.action import ACTIVE, FAILED, REFEREE
from carddraw.config import COLS
from carddraw.controller import CNAMES, deck_line
from carddraw.menu import menu_lines
from carddraw.deck import COLOURS

LOCK_TEXT = "Referee lock|Enter the code|with R H D S:|"
WAIT_TEXT = "Referee lock|Too many wrong|codes: no code|is taken until|the wait ends.|"
# (codes entered during the wait are refused without being checked)


def shown_code(entered, hidden):
    """The code as entered so far, centred: a * for each press (how many presses the code
    takes stays unsaid), or on the new-code screen the presses themselves."""
    marks = " ".join("*" * len(entered) if hidden else entered)
    return " " * ((COLS - len(marks)) // 2) + marks


# -- the lock (lockcode.py checks the code, counts wrong tries and runs the wait) ---------------
def press_lock(ctl, button):
    """A press of the code; once there are as many as the code has, lockcode judges them
    (during a wait it refuses them unchecked, and logs the try)."""
    ctl.beep("click")
    ctl.code += button[0]
    if len(ctl.code) >= lockcode.presses(ctl):
        said = lockcode.attempt(ctl, ctl.code)
        ctl.code = ""
        if said is None:
            ctl.cur = 0
            ctl.goto("refmenu")
        else:  # wrong, or refused unchecked during a wait
            ctl.say("Referee lock" if said[0] == "L" else "Wrong code", said, ctl.back)


def lock_lines(ctl):
    left = lockcode.wait_ms(ctl)
    if left:  # a countdown (controller.seconds_left redraws it every second)
        return (WAIT_TEXT + shown_code(ctl.code, True) + "|Wait " + lockcode.wait_text(left)
                + "|hold S: cancel").split("|"), None
    return (LOCK_TEXT + "|" + shown_code(ctl.code, True) + "|||hold S: cancel").split("|"), None


def press_newcode(ctl, button):
    if len(ctl.code) < known.LOCK_MAX:
        ctl.code += button[0]
        ctl.beep("click")
    else:
        ctl.beep("error")  # 8 presses at most


def long_newcode(ctl, button):
    """Hold DRAW: save the code entered (4 to 8 presses); hold RANK: start over. (DRAW alone
    is a press of the code, so saving takes a long press; hold STOP cancels, as everywhere.)"""
    if button == "DRAW":
        said = lockcode.keep(ctl, ctl.code)
        ctl.code = ""
        if said is None:
            ctl.cur = 0
            ctl.say("Code saved", "The new referee code is saved.", "refmenu", "click")
        else:
            ctl.say("Not saved", said + ".", "newcode")
    elif button == "RANK":
        ctl.code = ""
        ctl.beep("click")


def newcode_lines(ctl):
    ready = len(ctl.code) >= known.LOCK_MIN
    return ["New code", "4 to 8 presses", "of R H D S:", shown_code(ctl.code, False), "",
            "hold D: save" if ready else "", "hold R: restart", "hold S: cancel"], None


# -- the referee menu: (label, when it is offered, what it does) ---------------------------------
def black_drawn(ctl):
    return ctl.action is not None and ctl.action.state == REFEREE  # R14


def between_draws(ctl):
    action = ctl.action
    return action is not None and action.state == ACTIVE and action.pending is None


def referee_between_draws(ctl):
    return between_draws(ctl) and ctl.action.referee  # R19: a referee present only


def draw_to_undo(ctl):
    # Only while the action runs: once it has ended (success, stop, a black with no referee,
    # R14, R16, R17) its end record is final, so one action never ends twice (no reopening).
    return ctl.undo is not None and action_running(ctl)


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
    ctl.play().end(ctl, FAILED)
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
    if not draw_to_undo(ctl):  # the menu does not offer it then; refused all the same
        from carddraw.action import RuleError
        if ctl.undo is None or ctl.action is None:
            raise RuleError("cannot undo: there is no draw to undo")
        raise RuleError("cannot undo: the action has ended, and its end is final")
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


def task_open(ctl):
    return ctl.action is None and not ctl.settings["frozen"]


def task_frozen(ctl):
    return ctl.action is None and ctl.settings["frozen"]


def freeze_task(ctl):
    """A referee-prepared task (settings.FROZEN): kept for every action until unfrozen."""
    frozen = not ctl.settings["frozen"]
    ctl.change("frozen", frozen)
    ctl.record("settings", frozen=frozen)
    ctl.say("Task frozen" if frozen else "Task unfrozen",
            "Cards, needed, bonus, auto, redraws, referee and timing stay for every action."
            if frozen else "Anyone may set the task again.", "setup", "click")


MENU = (
    ("Black: go on", black_drawn, go_on),
    ("Black: fail", black_drawn, fail),
    ("Helper leaves", between_draws, helper_leaves),
    ("Adjust deck", referee_between_draws, adjust),
    ("Undo last draw", draw_to_undo, undo),
    ("End action", action_running, end_action),
    ("Change code", always, new_code),
    ("Freeze task", task_open, freeze_task),
    ("Unfreeze task", task_frozen, freeze_task),
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
LONG = {"newcode": long_newcode}
