# The task's difficulty in two presses: the picker that STOP opens on the set-up screen.
# Pure: no I/O. Loaded by the controller only while the screen is shown (controller.load), so
# it is not in the heap after boot.
#
#   Difficulty [task]  each key sets one of the common difficulties (R6: the task's
#                      difficulty cards, in place of any set before) and goes back to
#                      set-up: RANK +1 red, HELP +2 red, DRAW +1 black, hold RANK +1 yellow,
#                      hold HELP none. Hold DRAW: more (the options menu: any mix of cards,
#                      successes needed...). STOP: back, nothing changed.
# The difficulty resets for each new action (draws.start) unless the referee froze the
# task; a frozen task never reaches this screen (set-up refuses it).
from carddraw import settings as known
from carddraw.controller import long_setup

# (key, what it sets, (green, yellow, red, black)); "hR" is hold RANK. The seed page's usual
# task cards: a red or two for a hard task or a risky place, a black for a dangerous one, a
# yellow for a mild environmental risk (R6, R7).
PRESETS = (("R", "+1 red", (0, 0, 1, 0)), ("H", "+2 red", (0, 0, 2, 0)),
           ("D", "+1 black", (0, 0, 0, 1)), ("hR", "+1 yellow", (0, 1, 0, 0)),
           ("hH", "none", (0, 0, 0, 0)))


def choose(ctl, key):
    """Set the difficulty of the preset on `key`, log it, back to set-up."""
    for preset in PRESETS:
        if preset[0] == key:
            cards = preset[2]
            if cards != shown(ctl):  # a change: logged with all four colours
                ctl.record("settings", **dict(zip(known.DIFFICULTY, cards)))
            for name, count in zip(known.DIFFICULTY, cards):
                ctl.change(name, count)
            ctl.beep("click")
            ctl.goto("setup")


def shown(ctl):
    """The task's cards now, (green, yellow, red, black)."""
    return tuple(ctl.settings[name] for name in known.DIFFICULTY)


def press_task(ctl, button):
    if ctl.settings["frozen"]:  # set-up never opens it then; never change a frozen task
        ctl.goto("setup")
    elif button == "STOP":
        ctl.beep("click")
        ctl.goto("setup")
    else:
        choose(ctl, button[0])


def long_task(ctl, button):
    if button == "DRAW":
        long_setup(ctl, button)  # more: the options menu, as hold DRAW on set-up
    elif not ctl.settings["frozen"]:
        choose(ctl, "h" + button[0])


def task_lines(ctl):
    now = shown(ctl)
    lines = ["Difficulty"]
    for key, label, cards in PRESETS:
        lines.append("%s%-3s%s" % (">" if cards == now else " ", key, label))
    return lines + [" hD more", " S  back"], None


PRESS = {"task": press_task}
LONG = {"task": long_task}
LINES = {"task": task_lines}
