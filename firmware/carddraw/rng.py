"""The device's own random generator: the same seed draws the same cards on every MicroPython
version and under CPython (R9: each card equally likely).

xoroshiro32++ (Blackman and Vigna's xoroshiro family on two 16-bit lanes, the [14, 2, 7, 5]
constants Parallax use in the Propeller 2's XORO32): period 2**32 - 1, 16 bits an output.
Every value it computes stays below 2**30, so on the RP2040 (whose small ints are 31-bit
signed) no draw leaves MicroPython's small integers and none allocates.

seed(n) puts n through a four-round Feistel mixer on two 15-bit halves before it becomes the
state: a bijection, so different seeds give different states, and neighbouring seeds (1, 2,
3...) give unrelated sequences. Rng() with no seed takes 30 bits of os.urandom (the RP2040's
ring oscillator), or the interpreter's `random` where there is no os.urandom (the
WebAssembly VM, whose `random` the simulator seeds at power-on).

    rng = Rng(34)
    rng.randrange(6)   # 0..5, unbiased (rejection sampling)
"""
M15 = 0x7FFF
M16 = 0xFFFF
M30 = 0x3FFFFFFF
MAX_SEED = M30       # seeds are 0 .. 2**30 - 1 (the bench's `seed N` takes up to 999,999,999)
_KEYS = (0x3A5D, 0x1F27, 0x6B81, 0x52C9)   # the mixer's round keys (any 15-bit constants)
_MUL = 0x5BD1                              # odd, below 2**15: x * _MUL < 2**30


def _round(x, key):
    """The Feistel round function on 15 bits: a multiply and an xor-shift, all below 2**30."""
    y = (x ^ key) * _MUL
    return ((y >> 15) ^ y) & M15


def _entropy():
    """30 random bits from the hardware (os.urandom), else from the interpreter's random."""
    try:
        import os
        b = os.urandom(4)
        return ((b[0] & 0x3F) << 24) | (b[1] << 16) | (b[2] << 8) | b[3]
    except (ImportError, AttributeError, NotImplementedError, OSError):
        import random
        return random.getrandbits(30)


class Rng:
    def __init__(self, seed=None):
        self.s0 = 1
        self.s1 = 0
        self.seed(_entropy() if seed is None else seed)

    def seed(self, n):
        """Start the sequence for seed n (a whole number 0 to 2**30 - 1)."""
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_SEED:
            raise ValueError("a seed is a whole number, 0 to %d" % MAX_SEED)
        left = n >> 15
        right = n & M15
        for key in _KEYS:
            left, right = right, left ^ _round(right, key)
        self.s0 = left
        self.s1 = right | 0x8000    # one bit always set: the state is never all zero
        for _ in range(4):          # spread the mixer's bits through both lanes
            self.next16()

    def next16(self):
        """The next 16 random bits: xoroshiro32++ [14, 2, 7, 5]."""
        s0 = self.s0
        s1 = self.s1
        t = (s0 + s1) & M16
        out = ((((t << 5) & M16) | (t >> 11)) + s0) & M16            # rotl(s0 + s1, 5) + s0
        s1 ^= s0
        self.s0 = (((s0 << 14) & M16) | (s0 >> 2)) ^ s1 ^ ((s1 << 2) & M16)  # rotl(s0, 14) ^ s1 ^ s1 << 2
        self.s1 = ((s1 << 7) & M16) | (s1 >> 9)                      # rotl(s1, 7)
        return out

    def randrange(self, n):
        """A whole number from 0 to n - 1, each equally likely (n from 1 to 2**30 - 1).
        Rejection sampling: a draw from the top partial block of n is thrown away."""
        if not 0 < n <= M30:
            raise ValueError("randrange needs a range of 1 to %d, not %r" % (M30, n))
        if n <= M16:
            top = M16
            r = self.next16()
            while r - r % n > top - n + 1:
                r = self.next16()
        else:
            top = M30
            r = ((self.next16() & 0x3FFF) << 16) | self.next16()
            while r - r % n > top - n + 1:
                r = ((self.next16() & 0x3FFF) << 16) | self.next16()
        return r % n
