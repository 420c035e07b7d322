# The settings a player or referee can change: which there are, how the options screen names
# and steps them, the one check of a settings dict (used by the controller and the store
# alike), the referee code's form and hash (lockcode.py keeps and judges codes; set-up asks
# default() here, so a boot imports no lockcode), and the one way an Action is built from
# them. Pure: no I/O.
# Defaults and ranges live in config.py (config.NUMBERS, config.FLAGS), next to the pins.
from . import config

# Every setting, sorted: MicroPython's dicts keep no order, and bad names come out in this one.
NAMES = tuple(sorted(config.defaults()))
# The options screen's rows, top to bottom, and their labels (one string: screens.py splits it)
# (the skill last: a device is usually one prop, a surgery kit or a scanner, all event long)
OPTIONS = ("green", "yellow", "red", "black", "needed", "auto", "redraws", "bonus",
           "referee", "timed", "interval", "buzzer", "brightness", "skill")
LABELS = ("Add green|Add yellow|Add red|Add black|Needed|Auto wins|Redraws|Bonus|"
          "Referee|Timed|Interval|Buzzer|Brightness|Skill")
# The task a referee prepares: frozen (the "frozen" flag, set only from the referee menu),
# these stay for every action until unfrozen, and nobody else may change them (bonus greens
# and timed mode too: either would change the odds or the cadence the referee set). The
# player still sets skill, ranks and helpers; buzzer and brightness stay free.
FROZEN = OPTIONS[:11]     # the options' rows above buzzer: green to interval
DIFFICULTY = OPTIONS[:4]  # R6: the four colours, reset for each action unless frozen
LOCK_KEYS = "RHDS"       # the referee code is presses of RANK, HELP, DRAW, STOP, by initial
LOCK_MIN = 4             # a code takes 4 to 8 presses (lockcode.py checks and keeps codes)
LOCK_MAX = 8
LOCK_FAILS_MAX = 9999    # wrong tries counted at most (the wait stops growing long before)


def code_ok(code):
    """Whether `code` is a referee code as entered: 4 to 8 presses of R, H, D, S."""
    return (isinstance(code, str) and LOCK_MIN <= len(code) <= LOCK_MAX
            and not code.strip(LOCK_KEYS))  # (nothing left: every press one of them)


def lock_ok(lock, presses=("4", "5", "6", "7", "8")):
    """Whether `lock` is a referee code as settings keep it: "N$salt$hash" (lockcode.py),
    N the presses, the salt 16 and the sha256 64 lowercase hex digits. Never the code."""
    parts = lock.split("$") if isinstance(lock, str) else ()
    return (len(parts) == 3 and parts[0] in presses
            and len(parts[1]) == 16 and len(parts[2]) == 64
            and not (parts[1] + parts[2]).strip("0123456789abcdef"))


def hashed(code, salt):
    """The code as settings keep it: "N$salt$hash", the hash sha256(salt + "$" + code) in hex
    (MicroPython's hashlib has no hexdigest). lockcode.py checks and keeps codes with it."""
    from hashlib import sha256  # only when a code is checked or kept: not in the boot heap
    digest = sha256((salt + "$" + code).encode()).digest()
    return "%d$%s$" % (len(code), salt) + "%02x" * 32 % tuple(digest)


def matches(lock, entered):
    """Whether `entered` is the code kept as `lock` ("N$salt$hash": hashed with its salt)."""
    return bool(lock) and hashed(entered, lock.split("$")[1]) == lock


_DEFAULT = [None, False]   # the lock last asked about, and the answer


def default(settings):
    """Whether the device is still on the default code, R H R H: anyone can open it. Set-up
    asks at every redraw; a hash is worked out only when the lock changed, and not for
    config.DEFAULT_LOCK itself (a boot on the default code hashes nothing)."""
    lock = settings["lock"]
    if lock != _DEFAULT[0]:  # a lock not asked about yet: it replaces the last one
        _DEFAULT[0], _DEFAULT[1] = lock, lock == config.DEFAULT_LOCK or matches(lock, "RHRH")
    return _DEFAULT[1]


def valid(name, value, default):
    """Whether `value` may stand for the setting `name` (whose default is `default`)."""
    if name in config.NUMBERS:
        low, high = config.NUMBERS[name][1:]
        return type(value) is int and low <= value <= high  # bool is an int: not a number here
    if name in config.FLAGS:
        return value is True or value is False
    if name == "skill":
        return value in config.SKILLS  # R24 (by ==: no other type equals a name)
    if name == "lock":
        return lock_ok(value) or code_ok(value)  # a code in plain text: check() hashes it
    if name == "lock_fails" or name == "recovery_fails":
        return type(value) is int and 0 <= value <= LOCK_FAILS_MAX
    if name == "recovery":  # "" (none yet) or the 12-press recovery code kept (lockcode.py)
        return value == "" or lock_ok(value, ("12",))
    return type(value) is type(default)  # a setting added later: at least its type must match


def check(data):
    """config.defaults() with every valid field of the dict `data` kept -> (settings, names
    of the fields that were bad, in NAMES order). A missing field quietly takes its default
    (a file from older firmware); unknown keys are ignored; anything but a dict keeps nothing
    and counts every field as bad. A rank of 0 outside a scan becomes 1 (R3), and counts as a
    bad "ranks". A code in plain text (older firmware) is kept hashed, and counts as a bad
    "lock", so the store writes the file again at once without it."""
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
    if settings["skill"] != "scan" and not settings["ranks"]:
        settings["ranks"] = 1  # R3: only a scanner works at rank 0
        bad.append("ranks")
    if code_ok(settings["lock"]):  # older firmware kept the code itself: keep it, hashed
        settings["lock"] = hashed(settings["lock"], config.LOCK_SALT)
        bad.append("lock")  # so it is rewritten
    bad.sort()  # NAMES' order (sorted), each once: ranks and lock only when they were good
    return settings, bad


def action_from(settings, Action=None):
    """The Action these settings start, every parameter carried (R2-R15, referee present).
    Action: the class, where the caller has it (a start's pass skips the import machinery)."""
    if not Action:
        from .action import Action  # here, so the store can check settings without it
    return Action(settings["skill"], settings["ranks"], settings["helpers"],
                  settings["bonus"], settings["green"], settings["yellow"], settings["red"],
                  settings["black"], settings["needed"], settings["auto"],
                  settings["redraws"], settings["referee"])


def number(arg, most=9):
    """A console argument as a whole number if it is 1 to `most` ASCII digits, else None.
    Not str.isdigit(): under CPython it also takes '²' (which int() then refuses) or
    Arabic-Indic digits, and int() of a few thousand digits raises there."""
    if arg is None or not 0 < len(arg) <= most or arg.strip("0123456789"):
        return None  # (strip leaves whatever is not a digit: from the first to the last)
    return int(arg)
