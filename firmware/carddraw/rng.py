"""The device's own random generator (R9: each card equally likely): SHA-256 in counter mode.

Unseeded (Rng(), how the device plays): the key is 256 bits, sha256 of 32 bytes of hardware
entropy (os.urandom: the RP2040's ring oscillator). fresh(), called as each action starts,
hashes 32 more bytes of entropy into it, and every 32-byte block of output (16 draws of 16
bits) is sha256(key, block counter, 16 more bytes of entropy). A draw shows only which card
came up, and a hash's output says nothing about its input, so the log (every draw's deck and
card, readable over USB) gives no way to the key: there is no small state to search, as
there was with the old xoroshiro32++ and its 30-bit seed (a laptop searched all 2**30 seeds in
11 s, matched 35 logged draws and called the next 13 cards), and a key found anyway would be
gone at the next action. Where there is no os.urandom (the WebAssembly VM, whose `random`
the simulator seeds at power-on), the entropy comes from the interpreter's random.getrandbits.

Seeded (Rng(n), the bench's `seed N`, tests and tools): the key is sha256 of "carddraw seed "
and n's digits, the blocks sha256(key, counter), and no entropy goes in, fresh() included:
the same seed draws the same cards on CPython, the MicroPython VM and native MicroPython, so
a bench run or a test can be repeated. Seeds only choose among 2**30 sequences: never play
with one (the controller marks every record and screen of a seeded device).

    rng = Rng(34)
    rng.randrange(6)   # 0..5, unbiased (rejection sampling)

Every value computed stays below 2**30 (the RP2040's small ints); a block's hash allocates
its digest, so a draw costs a sixteenth of a hash and of its few small objects.
"""
from hashlib import sha256

M16 = 0xFFFF
M30 = 0x3FFFFFFF
MAX_SEED = M30       # seeds are 0 .. 2**30 - 1 (the bench's `seed N` takes up to 999,999,999)


try:
    from os import urandom as _entropy   # n bytes from the hardware
except ImportError:                      # the WebAssembly VM: the interpreter's random
    from random import getrandbits

    def _entropy(n):
        return bytes(getrandbits(8) for _ in range(n))


class Rng:
    def __init__(self, seed=None):
        if seed is None:
            self.seeded = False
            self._key(sha256(b"carddraw key " + _entropy(32)).digest())
        else:
            self.seed(seed)

    def _key(self, key):
        self._msg = bytearray(key + b"\0\0\0\0")   # the key, then a 32-bit block counter
        self._buf = None
        self._i = 32                               # nothing left: the next draw hashes a block

    def seed(self, n):
        """Draw the sequence of seed n (a whole number 0 to 2**30 - 1) from now on."""
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_SEED:
            raise ValueError("a seed is a whole number, 0 to %d" % MAX_SEED)
        self.seeded = True
        self._key(sha256(b"carddraw seed %d" % n).digest())

    def fresh(self):
        """At each action's start. Unseeded: a new key from the old one and 32 bytes of fresh
        entropy (the rest of the block is dropped). Seeded: nothing, the sequence goes on."""
        if not self.seeded:
            h = sha256(self._msg)
            h.update(_entropy(32))
            self._key(h.digest())

    def _block(self):
        m = self._msg
        h = sha256(m)
        if not self.seeded:
            h.update(_entropy(16))
        self._buf = h.digest()
        self._i = 0
        j = 35
        while j > 31:                 # the counter + 1, big-endian
            m[j] = (m[j] + 1) & 0xFF
            if m[j]:
                break
            j -= 1

    def ready(self):
        """The next draws' bits at hand: the next block hashed now (the app's idle passes)
        when the last is used up, so that a draw's pass, before its LED, never hashes one.
        The same bits as a draw would have hashed for itself, seeded or not (the block's own
        fresh entropy is taken now instead). -> whether it hashed."""
        if self._i > 30:
            self._block()
            return True
        return False

    def copy(self):
        """A generator that draws what this one would draw next (Play.ahead's draw worked out
        on it in an idle pass). Unseeded, a block it hashes takes its own fresh entropy, as
        this one's would have. take() gives its place back to this one."""
        c = _Copy()
        c.seeded = self.seeded
        c._msg = bytearray(self._msg)   # the counter goes on in place: not shared
        c._buf = self._buf
        c._i = self._i
        c._from = (self._msg, self._buf, self._i)   # where this one was: its key by identity
        return c

    def holds(self, c):
        """Whether this one has drawn nothing since copy c was made (nor been keyed again)."""
        msg, buf, i = c._from  # a new key (fresh, seed) is a new bytearray; a block a new buf
        return msg is self._msg and buf is self._buf and i == self._i

    def take(self, c):
        """Go on from where copy c is, if this one holds() it: c's draws are then the ones
        this one would have made. -> whether it did."""
        if not self.holds(c):
            return False
        self._msg, self._buf, self._i = c._msg, c._buf, c._i
        return True

    def next16(self):
        """The next 16 random bits."""
        if self._i > 30:
            self._block()
        i = self._i
        self._i = i + 2
        b = self._buf
        return (b[i] << 8) | b[i + 1]

    def randrange(self, n):
        """A whole number from 0 to n - 1, each equally likely (n from 1 to 2**30 - 1).
        Rejection sampling: a draw from the top partial block of n is thrown away."""
        if type(n) is not int or not 0 < n <= M30:  # (a bool is no range either)
            raise ValueError("randrange needs a range of 1 to %d, not %r" % (M30, n))
        if n <= M16:
            top = M16
            if self._i > 30:  # next16(), written out: a draw's card before its LED
                self._block()
            i = self._i
            self._i = i + 2
            b = self._buf
            r = (b[i] << 8) | b[i + 1]
            while r - r % n > top - n + 1:
                r = self.next16()
        else:
            top = M30
            r = ((self.next16() & 0x3FFF) << 16) | self.next16()
            while r - r % n > top - n + 1:
                r = ((self.next16() & 0x3FFF) << 16) | self.next16()
        return r % n


class _Copy(Rng):
    """Rng.copy()'s: its fields are the copied generator's, set by copy()."""

    def __init__(self):  # (MicroPython's classes have no __new__ to skip __init__ with)
        pass
