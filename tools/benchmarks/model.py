"""The chip model make bench estimates with (no RP2040 here; TOOLCHAIN.md's measured facts).

- CPU: native MicroPython's time (the unix port on this machine, the deployed .mpy files) times
  a slowdown. The rp2 port measured on an emulated RP2040 at 125 MHz: fib(20) 238 ms and a
  100,000-step arithmetic loop 741 ms, where native MicroPython took 1.6 ms and 4.5 ms: about
  x150 on the machines of that day. Machines differ (this kind of host has run the same fib(20)
  in 1.6 to 3 ms), so the slowdown is calibrated here, as those two workloads take on this
  machine now (calibrate(): the fastest of several runs, the larger of the two ratios), and
  is the factor that takes this machine's time to the chip's: x150 where fib(20) takes 1.6 ms.
  The emulator charged nothing for code reads from flash (XIP), so the chip is slower still:
  every CPU figure here is a lower bound for the firmware's Python. The store's file calls run
  in that time on littlefs as the board has it (MicroPython's own VfsLfs2, the same C code,
  on an image file of the board's 352 blocks, mounted with the rp2 port's parameters; the
  image's reads and writes are left out, as the board's flash is C and its programs and
  erases are counted apart) and are scaled with it. That charges littlefs's C at bytecode's
  slowdown, which likely overstates it (C is not interpreted; the rp2 port imported this
  firmware in 371 ms where this model says about 1,000, an import being mostly C); a host
  filesystem in its place (tmpfs, as the bench had it before) took a fifth of littlefs's
  time for a journal slot's open, write and close, and understated it.
- Flash (W25Q16JV): a page program (256 B) typically 0.4 ms, at most 3 ms; a 4 KB sector erase
  typically 45 ms, at most 400 ms (datasheet). The counts come from littlefs-python with the
  board's geometry; reads are memory-mapped (XIP) and charged nothing. Programming or erasing
  stalls the CPU (code runs from the same chip), so the time adds to the pass.
- I2C at config.I2C_FREQ (400 kHz): a write of n bytes is START, the address byte, the n bytes
  (9 clocks each with the ACK), STOP: 9 * (n + 1) + 2 clocks, the bytes counted as the ssd1306
  driver hands them to machine.I2C. The rp2 port's I2C writes block until sent.
"""
from carddraw import config

SLOWDOWN = 150     # TOOLCHAIN.md's figure, on a host where fib(20) takes 1.6 ms
CHIP_US = {"fib(20)": 238000, "loop": 741000}   # the rp2 port, measured (TOOLCHAIN.md)
PAGE_MS = {"typical": 0.4, "worst": 3.0}
ERASE_MS = {"typical": 45.0, "worst": 400.0}
I2C_HZ = config.I2C_FREQ


CALIBRATE = """
import time
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def loop():
    x = 0
    for i in range(100000):
        x += i
    return x
def calibrate(reps):
    best = [1 << 30, 1 << 30]
    for _ in range(reps):
        for k, work in ((0, lambda: fib(20)), (1, loop)):
            t = time.ticks_us()
            work()
            best[k] = min(best[k], time.ticks_diff(time.ticks_us(), t))
    return best
"""
_calibrated = {}


def calibrate(reps=7, processes=3):
    """-> {"fib(20)": us, "loop": us, "factor": x}: TOOLCHAIN.md's two workloads under native
    MicroPython here, the fastest of reps x processes runs (other work on this machine only
    ever adds time), and the slowdown they give: the larger of the chip's time over each."""
    if not _calibrated:
        from native import runner
        why = runner.missing()
        if why:
            from report import Unmeasurable
            raise Unmeasurable(why)
        fib = loop = 1 << 30
        for _ in range(processes):
            got = runner.run(CALIBRATE + "RESULT = calibrate(%d)\n" % reps)
            fib, loop = min(fib, got[0]), min(loop, got[1])
        _calibrated.update({"fib(20)": fib, "loop": loop, "factor": slowdown(fib, loop)})
    return _calibrated


def slowdown(fib_us, loop_us):
    """The factor from this machine's native us to the chip's: the larger of the two ratios."""
    return max(CHIP_US["fib(20)"] / fib_us, CHIP_US["loop"] / loop_us)


def factor():
    return calibrate()["factor"]


def calibration_note():
    """One line: the calibration, for the parts that use it."""
    c = calibrate()
    return ("CPU: native x%.0f here: fib(20) %.2f ms and a 100,000-step loop %.2f ms on this "
            "machine against 238 and 741 ms on the rp2 port (x150 where fib(20) takes 1.6 ms)"
            % (c["factor"], c["fib(20)"] / 1000.0, c["loop"] / 1000.0))


def cpu_ms(native_us):
    return native_us * factor() / 1000.0


def flash_ms(pages, erases, case="typical"):
    return pages * PAGE_MS[case] + erases * ERASE_MS[case]


def i2c_clocks(nbytes):
    """Clocks of one I2C write of nbytes (the address byte and START/STOP added)."""
    return 9 * (nbytes + 1) + 2


def i2c_ms(clocks):
    return clocks * 1000.0 / I2C_HZ


def frame_clocks():
    """A full SSD1306 frame as the driver sends it: the 7-byte window command (control byte,
    column range, page range), then the control byte 0x40 and 1,024 pixel bytes."""
    return i2c_clocks(7) + i2c_clocks(1 + config.OLED_WIDTH * config.OLED_HEIGHT // 8)
