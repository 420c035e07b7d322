# The options screen: the settings beyond set-up's skill, ranks and helpers. Pure: no I/O.
# Loaded by the controller only while the screen is shown (controller.load), so it is not in
# the heap after boot. Which options there are, their labels, ranges and steps: settings.py.
#
#   Options [options]  RANK/HELP move, DRAW picks; on a number RANK lowers it, HELP raises
#                      it, DRAW or STOP is done; DRAW on an on/off item flips it, on the
#                      skill (the last row) steps to the next skill. The rows of a task the
#                      referee froze (settings.FROZEN) are refused with a message.
#                      STOP: back to set-up, the changes logged.
from carddraw import config, settings as known
from carddraw.controller import SKILLS, NAMES, part
from carddraw.menu import menu_lines


def shown_value(name, value):
    if name == "interval":
        return "%ds" % value
    if name == "referee":
        return "yes" if value else "no"
    if name in config.FLAGS:
        return "on" if value else "off"
    return value


def press_options(ctl, button):
    name = known.OPTIONS[ctl.cur]
    if ctl.editing:
        if button == "DRAW" or button == "STOP":
            ctl.editing = False
        elif not step_value(ctl, name, -1 if button == "RANK" else 1):
            ctl.beep("error")  # at the end of its range
            return
    elif button == "STOP":
        log_changes(ctl)
        ctl.goto("setup")
    elif button == "DRAW":
        if ctl.settings["frozen"] and name in known.FROZEN:
            ctl.say("Set by referee", "The referee set this task: ask them to change it.",
                    "options")
            return
        if name == "skill":
            next_skill(ctl)
        elif name in config.FLAGS:
            ctl.change(name, not ctl.settings[name])
        else:
            ctl.editing = True
    else:
        ctl.move(button, len(known.OPTIONS))
    ctl.beep("click")


def next_skill(ctl):
    """The next of surgery, repair, scan (R24); leaving a scan at rank 0 lifts it to 1 (R3)."""
    settings = ctl.settings
    ctl.change("skill", SKILLS[(SKILLS.index(settings["skill"]) + 1) % len(SKILLS)])
    if settings["skill"] != "scan" and settings["ranks"] == 0:
        ctl.change("ranks", 1)


def step_value(ctl, name, direction):
    """One step of a number option (R21: the interval by 5 s) -> False past its range."""
    low, high = config.NUMBERS[name][1:]
    value = ctl.settings[name] + direction * known.step(name)
    if value < low or value > high:
        return False
    ctl.change(name, value)
    return True


def log_changes(ctl):
    """The options changed since the menu opened, in one settings record."""
    before = ctl.before or {}
    changed = {}
    for name in known.OPTIONS:
        if ctl.settings[name] != before.get(name):
            changed[name] = ctl.settings[name]
    if changed:
        ctl.record("settings", **changed)


def options_lines(ctl):
    values = [shown_value(name, ctl.settings[name]) for name in known.OPTIONS]
    labels = known.LABELS.split("|")
    skill = known.OPTIONS.index("skill")  # its name is longer than a value column
    labels[skill] += " " + part(NAMES, SKILLS.index(ctl.settings["skill"]))
    values[skill] = ""
    return menu_lines("Options", labels, values, ctl.cur, ctl.editing,
                      "R/H:move D:pick"), None


PRESS = {"options": press_options}
LINES = {"options": options_lines}
