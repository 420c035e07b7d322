# The screens around an action's end: the stop question, a black card awaiting the referee,
# success, the finishing countdown, the summary and failed. Pure: no I/O. Loaded by
# the controller only while one of them is shown (controller.load), like referee.py, so
# none of it is in the heap after boot. Each screen adds a handler to controller.PRESS, a
# line-builder to controller.LINES, and the countdown a clock handler to controller.TICK.
from carddraw.controller import FINISH_MS, NAMES, SKILLS, part, wrap
from carddraw.draws import stop, tally, words  # in RAM while the action lasts
from carddraw.action import STOPPED
from carddraw.deck import BLACK

# No rule numbers on a screen: the words say what happens (R16, R23 in the comments only).
CONFIRM = "Stop?|Stopping short|of success is a|failed attempt:|no retry today.||" \
          "D:stop  S:back"
FINISHING = "Finishing|Roleplay the|finish: at least|one minute.|"
NO_RETRY = "No retry today."  # R16: a stop short of success is a failed attempt

def press_confirm(ctl, button):
    if button == "DRAW":
        stop(ctl)
    else:
        ctl.beep("click")
        ctl.goto("active")


def confirm_lines(ctl):
    return CONFIRM.split("|"), None


def press_black(ctl, button):
    ctl.beep("error")  # only the referee decides (R14)


def press_success(ctl, button):
    if button == "DRAW":
        if ctl.cur == 0:
            ctl.ended = "finishing"  # R23
            ctl.fin_end = ctl.now + FINISH_MS
            ctl.goto("finishing")
        else:
            ctl.record("chain")  # R17: a new deck; this finishing is skipped
            ctl.chained = True
            ctl.clear()
    elif button != "STOP":
        ctl.move(button, 2)


def press_done(ctl, button):
    """Summary, failed: DRAW goes back to set-up."""
    if button == "DRAW":
        ctl.beep("click")
        ctl.clear()


def catastrophe_lines(ctl, title):
    action = ctl.action
    return [title, "Catastrophe!"] + (wrap(words(action.skill, BLACK)) + [""])[:2]


def black_lines(ctl):
    return catastrophe_lines(ctl, "Black card") + [
        "Referee decides:", "hold STOP and", "enter the code"], BLACK  # R14


def failed_lines(ctl):
    # the LED keeps the black that ended it (purple): red would read as a complication
    return catastrophe_lines(ctl, "Failed") + [
        tally(ctl.action), "Successes may be", "void.", "D:done"], BLACK  # R14


def success_lines(ctl):
    action = ctl.action
    return ["Success!", tally(action), "Draws %d" % action.draws, "",
            (">" if ctl.cur == 0 else " ") + "Finish",  # R23
            (">" if ctl.cur == 1 else " ") + "Chain new task",  # R17
            "R/H:move D:pick"], "green"


def no_retry(ctl):
    """The reminder a stopped action carries to its finishing and summary (R16), or ""."""
    return NO_RETRY if ctl.action.state == STOPPED else ""


def finishing_lines(ctl):
    """R23 after a success or a stop (R16): the same minute of roleplay."""
    lines = (FINISHING + "   %d s left" % ctl.seconds_left()).split("|")
    return lines + ["", no_retry(ctl)], None


def summary_lines(ctl):
    action = ctl.action
    outcome = "stopped" if action.state == STOPPED else "success"
    return ["Summary", part(NAMES, SKILLS.index(action.skill)), "Outcome: " + outcome,
            "Successes %d/%d" % (action.successes, action.needed),
            "Complications %d" % action.complications, "Draws %d" % action.draws,
            no_retry(ctl), "D:new set-up"], None


def tick_finishing(ctl):
    if ctl.now >= ctl.fin_end:  # R23: the minute of roleplay is over
        ctl.ended = "summary"
        # the success chime only for a success: a stop had its own sound when it was made
        ctl.beep("click" if ctl.action.state == STOPPED else "success")
        ctl.goto("summary")


PRESS = {"confirm": press_confirm, "referee": press_black, "success": press_success,
         "summary": press_done, "failed": press_done}
LINES = {"confirm": confirm_lines, "referee": black_lines, "failed": failed_lines,
         "success": success_lines, "finishing": finishing_lines, "summary": summary_lines}
TICK = {"finishing": tick_finishing}
