"""The chip model make bench estimates with (no RP2040 here), calibrated against the rp2 port's
measured table (docs/reliability.md's "measured on the emulated RP2040": the stock v1.28.0
RPI_PICO build on an emulated RP2040 at 125 MHz, commit 892aee1, the deployed .mpy files).

An event's estimate, from the press event (the debounced press, as that table times it):
    PHASE_MS + FIXED_MS + K * cpu + flash + I2C
- PHASE_MS: the loop's phase, from the press event to the pass that sees it. 892aee1 read the
  buttons in a pass every LOOP_MS, so a press event waited 0 to LOOP_MS for it: LOOP_MS / 2
  on average (POLLED_PHASE_MS, in the fit). This firmware's pins stamp their edges and
  App.run's next pass comes as a debounce ends: asyncio's sleep wakes within its ms, so
  PHASE_MS is 1 ms (an estimate: the chip has not measured this firmware).
- cpu: native MicroPython's time for the pass to that mark (the unix port, the deployed .mpy
  files) times the slowdown calibrated on this machine: two workloads (fib(20) 238
  ms, a 100,000-step loop 741 ms on the chip) against their time here (calibrate(): x150 where
  fib(20) takes 1.6 ms). That slowdown fits bytecode; the firmware's passes are much C
  (framebuf, json, hashlib, littlefs), so the chip's own figures weigh it by K.
- K and FIXED_MS: fitted, by least squares, to the press events of the measured table (both
  columns of the .mpy files: as shipped, and with its draw worked out ahead switched off)
  against this model's figures for the same firmware (892aee1, CALIBRATION below): FIXED_MS is
  what a press's pass costs on the chip that native time does not show (the loop's own
  overhead, the flash's stalls around a program), K the share of the bytecode slowdown the
  firmware's mix pays. The boot, mostly imports (C), has its own factor BOOT_K from its one
  measured figure. That figure runs from reset, so MicroPython's own start and the mount are
  in it, and BOOT_K scales them with the firmware's time although they do not shrink: for a
  firmware lighter than 892aee1's the boot's estimate is on the low side. The fit's residuals
  are printed by make bench beside each event.
- Anchored: each measured event's estimate has the fit's own error on 892aee1 for that event
  taken off (residual()), and its budget (set at the measured mean) is judged on the median
  pass; what no measure anchors is the fit alone.
- flash: the pass's littlefs-python counts (the board's geometry) at the W25Q16JV's typical
  0.4 ms a page and 45 ms a 4 KB erase (worst: 3 ms and 400 ms); it stalls the CPU.
- I2C: the bytes the ssd1306 driver hands machine.I2C, 9 clocks a byte at 400 kHz.
Every figure from this model is an ESTIMATE; only MEASURED is a measurement (of 892aee1).
"""
from carddraw import config

SLOWDOWN = 150     # the measured slowdown, on a host where fib(20) takes 1.6 ms
CHIP_US = {"fib(20)": 238000, "loop": 741000}   # the rp2 port, measured
PAGE_MS = {"typical": 0.4, "worst": 3.0}
ERASE_MS = {"typical": 45.0, "worst": 400.0}
I2C_HZ = config.I2C_FREQ
POLLED_PHASE_MS = config.LOOP_MS / 2.0   # 892aee1's, a pass every LOOP_MS (the fit's)
PHASE_MS = 1.0                           # this firmware's: a pass as a debounce ends

# The rp2 port's measured table (commit 892aee1, .mpy files): ms from the press event (the
# release + the 30 ms debounce of that firmware), the boot from reset to the first frame.
MEASURED = {"led": 31.7, "frame": 53.1, "start": 63.9, "setup": 44.0, "boot": 898.0}
# This model's parts for the same firmware (make bench run on 892aee1, the median event of its
# session): cpu in ms at the calibrated slowdown, and flash + I2C in ms.
CALIBRATION = {"led": (10.06, 0.4), "frame": (24.51, 0.4 + 13.41),
               "start": (43.82, 0.4 + 23.27), "setup": (29.37, 0.4 + 4.78),
               "boot": (1097.3, 47.33)}
# The table's third column: the same firmware with its draw worked out ahead switched off,
# measured and run through this model alike (more points for the fit; anchoring is to the
# firmware as it was, above).
MEASURED_OFF = {"led": 31.4, "frame": 53.3, "start": 58.5, "setup": 45.4}
CALIBRATION_OFF = {"led": (11.50, 0.4), "frame": (27.25, 0.4 + 13.41),
                   "start": (45.72, 0.4 + 23.27), "setup": (30.06, 0.4 + 4.78)}
PRESSES = ("led", "frame", "start", "setup")


def _fit():
    """(K, FIXED_MS) by least squares over both columns' press events: measured - phase -
    rest = FIXED + K cpu."""
    points = [(CALIBRATION[e], MEASURED[e]) for e in PRESSES]
    points += [(CALIBRATION_OFF[e], MEASURED_OFF[e]) for e in PRESSES]
    xs = [cal[0] for cal, _ in points]
    ys = [ms - POLLED_PHASE_MS - cal[1] for cal, ms in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    k = (sum((x - mx) * (y - my) for x, y in zip(xs, ys))
         / sum((x - mx) ** 2 for x in xs))
    return k, my - k * mx


K, FIXED_MS = _fit()
BOOT_K = (MEASURED["boot"] - CALIBRATION["boot"][1]) / CALIBRATION["boot"][0]


def press_ms(cpu, rest, phase=PHASE_MS):
    """An event's estimate from the press event: its pass's cpu (ms at the slowdown) and its
    flash and I2C ms (phase: 892aee1's for the fit's own figures)."""
    return phase + FIXED_MS + K * cpu + rest


def boot_ms(cpu, rest):
    return BOOT_K * cpu + rest


def residual(event):
    """The measure less the fit's own estimate of 892aee1 for a measured event (ms): added to
    today's estimate, it anchors the event to its measure, so that a budget set at the
    measured figure is judged by what changed since, not by the fit's error on that event."""
    cpu, rest = CALIBRATION[event]
    fit = boot_ms(cpu, rest) if event == "boot" else press_ms(cpu, rest, POLLED_PHASE_MS)
    return MEASURED[event] - fit


def fit_note():
    """One line per measured event: the fit's own estimate of 892aee1 against the measure."""
    out = []
    for e in PRESSES + ("boot",):
        cpu, rest = CALIBRATION[e]
        est = boot_ms(cpu, rest) if e == "boot" else press_ms(cpu, rest, POLLED_PHASE_MS)
        out.append("%s %.1f (measured %.1f)" % (e, est, MEASURED[e]))
    return ", ".join(out)


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
    """-> {"fib(20)": us, "loop": us, "factor": x}: the two workloads under native
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
