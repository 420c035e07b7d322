# The referee code: the one place that checks one, counts wrong tries and keeps a new one.
# Pure: no machine, time or os (randomness comes through rng.Rng). The lock screen
# (referee.py) and the USB console's `unlock CODE` (protocol.py) both use it.
#
# A code is 4 to 8 presses of RANK, HELP, DRAW, STOP, written by initial ("RHRH", the default).
# Settings keep only "N$salt$hash": N the presses, salt 16 hex digits, hash the sha256 of
# salt + "$" + code in hex (settings.lock_ok checks the form). The hash keeps the code out of
# sight of anyone who reads the file; it cannot stop an offline search of a copied file (only
# 87,296 codes exist), which is why the REPL is closed in normal use.
#
# A try is counted before it is compared: begin() raises the wrong-try count, the app puts it
# on flash, and only then judge() compares the code (and a right one brings the count back to
# 0, on flash before the referee menu shows). A reset or a power cut at any moment of a try
# leaves it counted.
#
# Wrong tries: the first 3 are free, then each wrong try starts a wait of 30 s, doubling with
# every further wrong try, at most 8 h (from the 13th on). While a wait runs no code is
# checked, not even the right one: a try is refused. Every wrong and refused try is logged
# ({"ev": "lock", "result": ..., "fails": N}, never the code). The count is a setting
# ("lock_fails"), so a power cut keeps it. The Pico has no clock across a power cut: after a
# boot with a wait due, the wait starts again in full from the boot.
#
# The recovery code: 12 presses, made at random when a referee keeps a new code, shown once
# and kept only hashed ("recovery"). It opens the lock during a wait (a referee who lost the
# code, or a player who pressed wrong codes on purpose to lock the referee out), with its count
# ("recovery_fails") and waits of its own, the same schedule: 16.7 million codes.
from hashlib import sha256

from carddraw import settings as known
from carddraw.rng import Rng

FREE_TRIES = 3                   # wrong tries before the first wait
FIRST_WAIT_MS = 30000            # the wait after the 3rd wrong try; doubled for each after it
MAX_WAIT_MS = 8 * 3600 * 1000    # the longest wait, 8 h
BAD_CODE = "A code is 4 to 8 presses of R H D S"
RECOVERY = 12                    # presses in the recovery code
KINDS = {"lock": ("lock_fails", "lock_until"), "recovery": ("recovery_fails", "recovery_until")}

hashed = known.hashed  # the code as settings keep it, "N$salt$hash" (settings.lock_ok)


def split(lock):
    """A kept code -> (presses, salt, hash)."""
    parts = lock.split("$")
    return int(parts[0]), parts[1], parts[2]


def matches(lock, entered):
    """Whether `entered` is the code kept as `lock`."""
    return bool(lock) and split(lock)[0] == len(entered) and hashed(entered, split(lock)[1]) == lock


def presses(ctl):
    """How many presses the code takes. The lock checks an entry once it is this long: a
    submit key (a long DRAW) would hide the length, but a player learns it with one wrong
    try anyway, and it would save a searcher only the shorter codes, none for a 4-press
    code; judging at the length keeps entering the code as it always was."""
    return split(ctl.settings["lock"])[0]


def wait_for(fails):
    """Milliseconds of wait after `fails` wrong tries in a row."""
    if fails < FREE_TRIES:
        return 0
    if fails - FREE_TRIES >= 10:  # 30 s << 10 is past 8 h already (and keeps to small ints)
        return MAX_WAIT_MS
    return min(FIRST_WAIT_MS << (fails - FREE_TRIES), MAX_WAIT_MS)


def wait_ms(ctl, kind="lock"):
    """Milliseconds left of the code's (or the recovery code's) wait, 0 when none: the end is
    ctl.lock_until (ctl.recovery_until), in the controller's clock, None with no wait; a wait
    due at boot runs from the boot (the Pico has no clock across a power cut)."""
    count, until = KINDS[kind]
    end = getattr(ctl, until)
    if end is None or not wait_for(ctl.settings[count]):
        return 0
    return max(0, end - ctl.now)


def wait_text(ms):
    """A wait for the screen: "27 s", "4 min 10 s", "7 h 59 min" (rounded up)."""
    s = (ms + 999) // 1000
    if s < 60:
        return "%d s" % s
    if s < 3600:
        return "%d min %d s" % (s // 60, s % 60)
    m = (s + 59) // 60
    return "%d h %d min" % (m // 60, m % 60)


def recovering(ctl):
    """Whether presses now make the recovery code: a wait runs and there is one."""
    return bool(wait_ms(ctl)) and bool(ctl.settings["recovery"])


def begin(ctl, entered):
    """A try, counted before it is compared (see above). -> None: judge() it once the count
    is on flash; else what to tell the player (a try refused during a wait, or no code)."""
    kind = "recovery" if len(entered) == RECOVERY and recovering(ctl) else "lock"
    count = KINDS[kind][0]
    left = wait_ms(ctl, kind)
    if left:
        ctl.record("lock", result="refused", fails=ctl.settings[count])
        return "Locked: wait " + wait_text(left)
    if kind == "lock" and not known.code_ok(entered):
        return BAD_CODE  # could never open it: not a try, nothing changes
    ctl.change(count, min(ctl.settings[count] + 1, known.LOCK_FAILS_MAX))
    return None


def judge(ctl, entered):
    """The try begin() counted, compared. -> None when it opens the lock (its count back to
    0: the app has it on flash before anything shows), else what to tell the player."""
    kind = "recovery" if len(entered) == RECOVERY and recovering(ctl) else "lock"
    count, until = KINDS[kind]
    fails = ctl.settings[count]
    if matches(ctl.settings[kind], entered):
        ctl.change(count, 0)
        setattr(ctl, until, None)
        if kind == "recovery":  # the referee is in: the code's own wait ends too
            ctl.change("lock_fails", 0)
            ctl.lock_until = None
        return None
    setattr(ctl, until, ctl.now + wait_for(fails))
    ctl.record("lock", result="wrong", fails=fails)
    left = wait_ms(ctl, kind)
    if left:
        return "Wrong code. Locked: wait " + wait_text(left)
    tries = FREE_TRIES - fails
    return "Wrong code: %d %s before a wait" % (tries, "try" if tries == 1 else "tries")


def random_keys(rng, n):
    return "".join(known.LOCK_KEYS[rng.randrange(4)] for _ in range(n))


def keep(ctl, entered):
    """Keep `entered` as the new code, and a new recovery code. -> (None, the recovery code
    to show once), or (what was wrong with it, None): then nothing changes."""
    if not known.code_ok(entered):
        return BAD_CODE, None
    r = Rng()  # hardware entropy, never the bench's seeded generator
    ctl.change("lock", hashed(entered, salt(r)))
    recovery = random_keys(r, RECOVERY)
    ctl.change("recovery", hashed(recovery, salt(r)))
    ctl.change("recovery_fails", 0)
    ctl.record("settings", lock="changed")  # never the code itself: players read logs
    return None, recovery


def salt(r):
    """16 hex digits of hardware randomness."""
    mix = "%d %d" % (r.randrange(0x3FFFFFFF), r.randrange(0x3FFFFFFF))
    return "%02x" * 8 % tuple(sha256(mix.encode()).digest()[:8])


_DEFAULT = [None, False]   # the lock last asked about and whether it is the default code


def default(ctl):
    """Whether the device is still on the default code, R H R H: anyone can open it. Set-up's
    title asks at every redraw; a hash is worked out only when the lock changed."""
    lock = ctl.settings["lock"]
    if lock != _DEFAULT[0]:
        _DEFAULT[1] = matches(lock, "RHRH")
        _DEFAULT[0] = lock
    return _DEFAULT[1]
