"""The device's own random generator (R9: each card equally likely): SHA-256 in counter mode.

Unseeded (Rng(), how the device plays): the key is sha256 of 32 bytes of hardware entropy
(os.urandom: the RP2040's ring oscillator). fresh(), called as each action starts, hashes 32
more bytes of entropy into it, and every 32-byte block of output (16 draws of 16 bits) is
sha256(key, block counter, 16 more bytes of entropy). A draw shows only which card came up,
and a hash's output says nothing about its input, so the log (every draw's deck and card,
readable over USB) gives no way to the key, and a key found anyway is gone at the next action.
Where the interpreter has no os.urandom (the WebAssembly VM) the host passes its own source:
Rng(entropy=f), f(n) -> n bytes (the simulator and the web app: the OS's or the browser's
crypto). Without one there, the interpreter's random.getrandbits stands in (tests only).

Seeded (Rng(n), the bench's `seed N`, tests and tools): the key is sha256 of "carddraw seed "
and n's digits, the blocks sha256(key, counter), and no entropy goes in, fresh() included:
the same seed draws the same cards on CPython, the MicroPython VM and native MicroPython.
Seeds only choose among 2**30 sequences: never play with one (the controller marks every
record and screen of a seeded device).

    rng = Rng(34)
    rng.randrange(6)   # 0..5, unbiased (rejection sampling)

Every value computed stays below 2**30 (the RP2040's small ints).
"""
from hashlib import sha256

M16 = 0xFFFF
M30 = 0x3FFFFFFF    # and seeds are 0 .. M30 (the bench's `seed N` takes up to 999,999,999)

try:
    from os import urandom as _entropy   # n bytes from the hardware
except ImportError:                      # the WebAssembly VM, where the host passes its own
    from random import getrandbits

    def _entropy(n):
        got = bytearray(n)
        for i in range(n):  # a loop, not a generator: smaller in the .mpy
            got[i] = getrandbits(8)
        return bytes(got)


class Rng:
    def __init__(self, seed=None, entropy=None):
        self.entropy = entropy or _entropy
        if seed is None:
            self.seeded = False
            self._key(sha256(b"carddraw key " + self.entropy(32)).digest())
        else:
            self.seed(seed)

    def _key(self, key):
        self._msg = bytearray(key + b"\0\0\0\0")   # the key, then a 32-bit block counter
        self._buf = None
        self._i = 32                               # nothing left: the next draw hashes a block

    def seed(self, n):
        """Draw the sequence of seed n (a whole number 0 to 2**30 - 1) from now on."""
        if type(n) is not int or not 0 <= n <= M30:  # (a bool is no seed either)
            raise ValueError("a seed is a whole number, 0 to %d" % M30)
        self.seeded = True
        self._key(sha256(b"carddraw seed %d" % n).digest())

    def fresh(self):
        """At each action's start. Unseeded: a new key from the old one and 32 bytes of fresh
        entropy (the rest of the block is dropped). Seeded: nothing, the sequence goes on."""
        if not self.seeded:
            self._key(sha256(self._msg + self.entropy(32)).digest())

    def ready(self):
        """The next block hashed now if the last is used up (the app's idle passes), so that
        a draw's pass never hashes one before its LED. -> whether it hashed."""
        if self._i < 31:
            return False
        m = self._msg
        h = sha256(m)
        if not self.seeded:
            h.update(self.entropy(16))
        self._buf = h.digest()
        self._i = 0
        j = 35
        while j > 31:                 # the counter + 1, big-endian
            m[j] = (m[j] + 1) & 0xFF
            if m[j]:
                break
            j -= 1
        return True

    def next16(self):
        """The next 16 random bits."""
        self.ready()
        i = self._i
        self._i = i + 2
        b = self._buf
        return (b[i] << 8) | b[i + 1]

    def randrange(self, n):
        """A whole number from 0 to n - 1, each equally likely (n from 1 to 2**30 - 1).
        Rejection sampling: a draw from the top partial block of n is thrown away."""
        if type(n) is not int or not 0 < n <= M30:  # (a bool is no range either)
            raise ValueError("randrange needs a range of 1 to %d, not %r" % (M30, n))
        top = M16 if n <= M16 else M30
        while True:
            r = self.next16()
            if n > M16:  # two outputs: 14 bits and 16
                r = ((r & 0x3FFF) << 16) | self.next16()
            if r - r % n <= top - n + 1:
                return r % n
