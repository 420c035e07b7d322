"""The RP2040's built-in `machine` as the heap benchmark needs it: only the calls the firmware
makes (board.py), doing nothing. For `make bench`'s heap after boot, not for the simulator
(tools/sim/machine.py is the working hardware).

Why a second stand-in: on the board `machine` is C in flash. Its names are fixed qstrs, so
they take nothing from the heap's qstr pool, and Pin, PWM, I2C and WDT objects are static C
objects, one per pin or peripheral, so Board() allocates none of them. The simulator's
stand-in is Python: its ~185 names (the SSD1306 decoder, the SIM counters) go into the pool
before the firmware's, and push the firmware's names past 620, where the pool takes its next
chunk of 640 entries (about 4.5 KB) the board never takes; and each Pin() is a heap object.
This one has no name the firmware does not use itself, and makes its objects once, at import,
as the port's are made once, in flash. ADC objects, which the rp2 port does allocate, are
allocated here too.
"""


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __new__(cls, id, *args, **kwargs):
        return _PINS[id]  # the port's pins are static objects: Pin(n) allocates nothing

    def __init__(self, id, *args, **kwargs):
        pass

    def value(self, level=None):
        return 1  # a pull-up, no button held


class PWM:
    def __new__(cls, pin, **kwargs):
        return _PWM

    def __init__(self, pin, **kwargs):
        pass

    def freq(self, hz=None):
        pass

    def duty_u16(self, duty=None):
        pass


class I2C:
    sink = None  # a harness's counter of the bytes sent: sink(addr, vector)

    def __new__(cls, id, **kwargs):
        return _I2C

    def __init__(self, id, **kwargs):
        pass

    def writeto(self, addr, buf):
        if I2C.sink:
            I2C.sink(addr, (buf,))
        return len(buf)

    def writevto(self, addr, vector):
        if I2C.sink:
            I2C.sink(addr, vector)


class ADC:
    def __init__(self, channel):
        pass

    def read_u16(self):
        return 40000  # about 3.9 V on VSYS


class WDT:
    def __new__(cls, **kwargs):
        return _WDT

    def __init__(self, **kwargs):
        pass

    def feed(self):
        pass


def reset():
    pass


_PINS = [object.__new__(Pin) for _ in range(30)]
_PWM = object.__new__(PWM)
_I2C = object.__new__(I2C)
_WDT = object.__new__(WDT)


def unique_id():
    return b"\xe6\x61\x41\x03\xe7\x45\x2d\x2f"
