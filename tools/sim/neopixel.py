"""A stand-in for MicroPython's built-in `neopixel` (WS2812): write() records the pixels in
machine.SIM.np[pin] as (r, g, b) tuples, where SIM.led_rgb() reads them."""
from machine import SIM, Pin


class NeoPixel:
    ORDER = (1, 0, 2, 3)   # WS2812 takes green first; the real module reorders, so do we

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.timing = timing
        self.buf = bytearray(n * bpp)   # in wire order, as the real module keeps it

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for k in range(self.bpp):
            self.buf[offset + self.ORDER[k]] = v[k]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        pin = self.pin.id if isinstance(self.pin, Pin) else self.pin
        SIM.np[pin] = [self[i] for i in range(self.n)]
        SIM.np_writes += 1
