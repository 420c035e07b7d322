# The referee code: the one place that counts a try, compares it, runs the waits after wrong
# tries and keeps a new code. Pure: no machine, time or os (randomness comes through rng.Rng).
# The lock screen (referee.py) and the USB console's `unlock CODE` (protocol.py) both hand
# their tries to the controller's Lockout, which judges them the one same way.
#
# A code is 4 to 8 presses of RANK, HELP, DRAW, STOP, written by initial ("RHRH", the default).
# Settings keep only "N$salt$hash": N the presses, salt 16 hex digits, hash the sha256 of
# salt + "$" + code in hex (settings.lock_ok checks the form). The hash keeps the code out of
# sight of anyone who reads the file; it cannot stop an offline search of a copied file (only
# 87,296 codes exist), which is why the REPL is closed in normal use.
#
# A try is counted before it is compared: attempt() raises the wrong-try count (a setting, so
# a power cut keeps it), the app puts it on flash, and only then settle() compares the code
# (a right one brings the count back to 0, on flash before the referee menu shows). While the
# flash refuses writes nothing is compared at all. A reset at any moment leaves a try counted.
#
# Wrong tries: the first 3 are free, then each wrong try starts a wait of 30 s, doubling with
# every further wrong try, at most 8 h (from the 13th on). While a wait runs no code is
# checked, not even the right one: a try is refused, and only counted (in RAM). The log says
# when a wait starts and when the lock opens after wrong tries, each with the counts: never a
# record a try, so no flood of tries can fill the log. The Pico has no clock across a power
# cut: after a boot with a wait due, the wait starts again in full from the boot.
#
# The recovery code: 12 presses, made at random when a referee keeps a new code, shown once
# and kept only hashed ("recovery"). It opens the lock during a wait (a referee who lost the
# code, or a player who pressed wrong codes on purpose to lock the referee out), with its count
# ("recovery_fails") and waits of its own, the same schedule: 16.7 million codes.
from .rng import Rng
from .settings import LOCK_FAILS_MAX, LOCK_KEYS, code_ok, hashed, matches  # (settings.lock_ok)

FREE_TRIES = 3                   # wrong tries before the first wait
FIRST_WAIT_MS = 30000            # the wait after the 3rd wrong try; doubled for each after it
MAX_WAIT_MS = 8 * 3600 * 1000    # the longest wait, 8 h
BAD_CODE = "A code is 4 to 8 presses of R H D S"
RECOVERY = 12                    # presses in the recovery code
COUNTS = {"lock": "lock_fails", "recovery": "recovery_fails"}  # each kind's count (settings)


def wait_for(fails):
    """Milliseconds of wait after `fails` wrong tries in a row."""
    if fails < FREE_TRIES:
        return 0
    # 30 s << 10 is past 8 h already (and keeps to small ints)
    return min(FIRST_WAIT_MS << min(fails - FREE_TRIES, 10), MAX_WAIT_MS)


def wait_text(wait):
    """A wait (ms) for the screen: "27 s", "4 min 10 s", "7 h 59 min" (rounded up)."""
    s = (wait + 999) // 1000
    if s < 60:
        return "%d s" % s
    if s < 3600:
        return "%d min %d s" % divmod(s, 60)
    m = (s + 59) // 60
    return "%d h %d min" % divmod(m, 60)


class Lockout:
    """The tries of the controller `ctl`: its waits, the try waiting to be compared."""
    refused = 0      # tries refused during waits since the last lock record
    pending = None   # (the code, its kind, done(said)): counted, not yet compared
    stalled = False  # the flash did not take the pending try's count

    def __init__(self, ctl):
        self.ctl = ctl
        self.until = {}       # kind -> when its wait ends, in the controller's clock
        for kind in COUNTS:   # a wait due at boot runs from the boot (Controller makes this
            wait = wait_for(ctl.settings[COUNTS[kind]])  # then when tries are counted)
            if wait:
                self.until[kind] = ctl.now + wait

    def wait_ms(self, kind="lock"):
        """Milliseconds left of the code's (or the recovery code's) wait, 0 when none."""
        end = self.until.get(kind)
        if end is None or not wait_for(self.ctl.settings[COUNTS[kind]]):
            return 0
        return max(0, end - self.ctl.now)

    def presses(self):
        """How many presses a try takes now: the code's (the lock judges an entry once it is
        this long: a player learns the length with one wrong try anyway), or during a wait,
        if there is a recovery code, its RECOVERY."""
        settings = self.ctl.settings
        if self.wait_ms() and settings["recovery"]:
            return RECOVERY
        return int(settings["lock"].split("$")[0])  # the N of "N$salt$hash"

    def attempt(self, entered, done):
        """A try (from the lock screen or the console), counted now and compared by settle()
        once the count is on flash; done(said) is called then: said None when it opens the
        lock, else what to tell the player. -> None when counted, else the refusal (during a
        wait: refused unchecked; not a code at all; a try already waiting)."""
        if self.pending:  # (a try, or None)
            return "A try is being checked"
        kind = "recovery" if len(entered) == RECOVERY and self.presses() == RECOVERY else "lock"
        left = self.wait_ms(kind)
        if left:
            self.refused += 1  # counted, not logged: the wait's record says how many
            return "Locked: wait " + wait_text(left)
        if kind == "lock" and not code_ok(entered):
            return BAD_CODE  # could never open it: not a try, nothing changes
        count = COUNTS[kind]
        self.ctl.change(count, min(self.ctl.settings[count] + 1, LOCK_FAILS_MAX))
        self.pending = (entered, kind, done)
        self.stalled = False

    def settle(self, saved):
        """The pending try compared, if its count is on flash (saved); else it waits, and the
        lock says why. -> whether one was compared."""
        if not self.pending:
            return False
        if not saved:
            self.stalled = True
            return False
        entered, kind, done = self.pending
        self.pending = None
        self.stalled = False
        done(self._judge(entered, kind))
        return True

    def cancel(self):
        """The pending try given up (the console waited too long for the flash): never
        compared, so it told nobody anything."""
        self.pending = None

    def _judge(self, entered, kind):
        ctl = self.ctl
        count = COUNTS[kind]
        fails = ctl.settings[count]  # this try included
        if matches(ctl.settings[kind], entered):
            if fails > 1 or self.refused:  # never a record of a try, nor the code
                ctl.record("lock", result="open", kind=kind, fails=fails - 1,
                           refused=self.refused)
                self.refused = 0
            ctl.change(count, 0)
            self.until.pop(kind, None)
            if kind == "recovery":  # the referee is in: the code's own wait ends too
                ctl.change("lock_fails", 0)
                self.until.pop("lock", None)
            return None
        wait = wait_for(fails)
        if wait:
            self.until[kind] = ctl.now + wait
            ctl.record("lock", result="wait", kind=kind, fails=fails, refused=self.refused,
                       wait_s=wait // 1000)  # one record a wait at most
            self.refused = 0
            return "Wrong code. Locked: wait " + wait_text(wait)
        tries = FREE_TRIES - fails
        return "Wrong code: %d %s before a wait" % (tries, "try" if tries == 1 else "tries")

    def keep(self, entered):
        """Keep `entered` as the new code, and a new recovery code. -> (None, the recovery
        code to show once), or (what was wrong with it, None): then nothing changes."""
        if not code_ok(entered):
            return BAD_CODE, None
        ctl = self.ctl
        rng = Rng()  # hardware entropy, never the bench's seeded generator
        ctl.change("lock", hashed(entered, salt(rng)))
        recovery = ""
        for _ in range(RECOVERY):
            recovery += LOCK_KEYS[rng.randrange(4)]
        ctl.change("recovery", hashed(recovery, salt(rng)))
        ctl.change("recovery_fails", 0)
        ctl.record("settings", lock="changed")  # never the code itself: players read logs
        return None, recovery


def salt(rng):
    """16 hex digits of hardware randomness: the last of a sha256 of two random numbers."""
    return hashed("%d %d" % (rng.randrange(0x3FFFFFFF), rng.randrange(0x3FFFFFFF)), "")[-16:]
