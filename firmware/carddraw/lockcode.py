# The referee code: the one place that checks one, counts wrong tries and keeps a new one.
# Pure: no machine, time or os (the salt's randomness comes through rng.Rng). The lock screen
# (referee.py) and the USB console's `unlock CODE` (protocol.py) both call attempt().
#
# A code is 4 to 8 presses of RANK, HELP, DRAW, STOP, written by initial ("RHRH", the default).
# Settings keep only "N$salt$hash": N the presses, salt 16 hex digits, hash the sha256 of
# salt + "$" + code in hex (settings.lock_ok checks the form). The hash keeps the code out of
# sight of anyone who reads the file; it cannot stop an offline search of a copied file (only
# 87,296 codes exist), which is why the REPL is closed in normal use.
#
# Wrong tries: the first 3 are free, then each wrong try starts a wait of 30 s, doubling with
# every further wrong try, at most 8 h (from the 13th on). While a wait runs no code is
# checked, not even the right one: a try is refused. Every wrong and refused try is logged
# ({"ev": "lock", "result": ..., "fails": N}, never the code). The count is a setting
# ("lock_fails"), saved with the settings, so a power cut keeps it. The Pico has no clock
# across a power cut: after a boot with a wait due (3 or more wrong tries counted), the wait
# starts again in full from the boot. The right code, accepted, resets the count.
from hashlib import sha256

from carddraw import settings as known

FREE_TRIES = 3                   # wrong tries before the first wait
FIRST_WAIT_MS = 30000            # the wait after the 3rd wrong try; doubled for each after it
MAX_WAIT_MS = 8 * 3600 * 1000    # the longest wait, 8 h
BAD_CODE = "A code is 4 to 8 presses of R H D S"


hashed = known.hashed  # the code as settings keep it, "N$salt$hash" (settings.lock_ok)


def split(lock):
    """A kept code -> (presses, salt, hash)."""
    parts = lock.split("$")
    return int(parts[0]), parts[1], parts[2]


def matches(lock, entered):
    """Whether `entered` is the code kept as `lock`."""
    return split(lock)[0] == len(entered) and hashed(entered, split(lock)[1]) == lock


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


def wait_ms(ctl):
    """Milliseconds left of the wait, 0 when none. ctl.lock_until is when it ends, in the
    controller's clock (a wait due at boot, 3 or more wrong tries counted, runs from the boot:
    the Pico has no clock across a power cut)."""
    if ctl.lock_until is None or not wait_for(ctl.settings["lock_fails"]):
        return 0
    return max(0, ctl.lock_until - ctl.now)


def wait_text(ms):
    """A wait for the screen: "27 s", "4 min 10 s", "7 h 59 min" (rounded up)."""
    s = (ms + 999) // 1000
    if s < 60:
        return "%d s" % s
    if s < 3600:
        return "%d min %d s" % (s // 60, s % 60)
    m = (s + 59) // 60
    return "%d h %d min" % (m // 60, m % 60)


def attempt(ctl, entered):
    """None when `entered` opens the lock, else what to tell the player."""
    left = wait_ms(ctl)
    fails = ctl.settings["lock_fails"]
    if left:
        ctl.record("lock", result="refused", fails=fails)
        return "Locked: wait " + wait_text(left)
    if not known.code_ok(entered):
        return BAD_CODE  # could never open it: not a try, nothing changes
    if matches(ctl.settings["lock"], entered):
        ctl.change("lock_fails", 0)
        ctl.lock_until = None
        return None
    fails = min(fails + 1, known.LOCK_FAILS_MAX)
    ctl.change("lock_fails", fails)
    ctl.lock_until = ctl.now + wait_for(fails)
    ctl.record("lock", result="wrong", fails=fails)
    left = wait_ms(ctl)
    if left:
        return "Wrong code. Locked: wait " + wait_text(left)
    tries = FREE_TRIES - fails
    return "Wrong code: %d %s before a wait" % (tries, "try" if tries == 1 else "tries")


def new_salt(ctl):
    """16 hex digits: hardware randomness (rng.Rng with no seed), the clock and the old code."""
    from carddraw.rng import Rng
    r = Rng()
    mix = "%d %d %d %s" % (r.randrange(1 << 15), r.randrange(1 << 15), ctl.now,
                           ctl.settings["lock"])
    return "%02x" * 8 % tuple(sha256(mix.encode()).digest()[:8])


def keep(ctl, entered):
    """Keep `entered` as the new code. -> None, or what was wrong with it (nothing changes)."""
    if not known.code_ok(entered):
        return BAD_CODE
    ctl.change("lock", hashed(entered, new_salt(ctl)))
    ctl.record("settings", lock="changed")  # never the code itself: players read logs
    return None
