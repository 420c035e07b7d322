# The settings a player or referee can change: which there are, how the options screen names
# and steps them, the one check of a settings dict (used by the controller and the store
# alike), and the one way an Action is built from them. Pure: no I/O.
# Defaults and ranges live in config.py (config.NUMBERS, config.FLAGS), next to the pins.
from carddraw import config

# Every setting, sorted: MicroPython's dicts keep no order, and bad names come out in this one.
NAMES = tuple(sorted(config.defaults()))
# The options screen's rows, top to bottom, and their labels (one string: see controller.py)
OPTIONS = ("green", "yellow", "red", "black", "needed", "auto", "redraws", "bonus",
           "referee", "timed", "interval", "buzzer", "brightness")
LABELS = ("Add green|Add yellow|Add red|Add black|Needed|Auto succ|Redraws|Bonus grn|"
          "Referee|Timed|Interval|Buzzer|Brightness")
STEPS = {"interval": 5}  # R21: 30-60 s in 5 s steps; every other number steps by 1
LOCK_KEYS = "RHDS"       # the referee code is presses of RANK, HELP, DRAW, STOP, by initial
LOCK_PRESSES = 4         # how many presses a code takes


def label(name):
    return LABELS.split("|")[OPTIONS.index(name)]


def step(name):
    return STEPS.get(name, 1)


def lock_ok(code):
    """Whether `code` is a referee code as settings keep it."""
    if not isinstance(code, str) or len(code) != LOCK_PRESSES:
        return False
    for key in code:
        if key not in LOCK_KEYS:
            return False
    return True


def valid(name, value, default):
    """Whether `value` may stand for the setting `name` (whose default is `default`)."""
    if name in config.NUMBERS:
        low, high = config.NUMBERS[name][1:]
        return type(value) is int and low <= value <= high  # bool is an int: not a number here
    if name in config.FLAGS:
        return value is True or value is False
    if name == "skill":
        return isinstance(value, str) and value in config.SKILLS  # R24
    if name == "lock":
        return lock_ok(value)
    return type(value) is type(default)  # a setting added later: at least its type must match


def check(data):
    """config.defaults() with every valid field of the dict `data` kept -> (settings, names
    of the fields that were bad, in NAMES order). A missing field quietly takes its default
    (a file from older firmware); unknown keys are ignored; anything but a dict keeps nothing
    and counts every field as bad. A rank of 0 outside a scan becomes 1 (R3), and counts as a
    bad "ranks"."""
    settings = config.defaults()
    if not isinstance(data, dict):
        return settings, [] if data is None else list(NAMES)
    bad = []
    for name in NAMES:
        if name in data:
            if valid(name, data[name], settings[name]):
                settings[name] = data[name]
            else:
                bad.append(name)
    if settings["skill"] != "scan" and settings["ranks"] == 0:
        settings["ranks"] = 1  # R3: only a scanner works at rank 0
        bad = [name for name in NAMES if name in bad or name == "ranks"]
    return settings, bad


def action_from(settings):
    """The Action these settings start, every parameter carried (R2-R15, referee present)."""
    from carddraw.action import Action  # here, so the store can check settings without it
    return Action(settings["skill"], settings["ranks"], settings["helpers"],
                  settings["bonus"], settings["green"], settings["yellow"], settings["red"],
                  settings["black"], settings["needed"], settings["auto"],
                  settings["redraws"], settings["referee"])
