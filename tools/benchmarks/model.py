"""The chip model make bench estimates with (no RP2040 here; TOOLCHAIN.md's measured facts).

- CPU: native MicroPython's time (the unix port on this machine, the deployed .mpy files) times
  SLOWDOWN. The rp2 port measured about 150x slower on an emulated RP2040 at 125 MHz, and the
  emulator charged nothing for code reads from flash (XIP), so the chip is slower still: every
  CPU figure here is a lower bound. The store's file calls run on the host's filesystem (tmpfs)
  in that time and are scaled with it: littlefs's own CPU work on the chip.
- Flash (W25Q16JV): a page program (256 B) typically 0.4 ms, at most 3 ms; a 4 KB sector erase
  typically 45 ms, at most 400 ms (datasheet). The counts come from littlefs-python with the
  board's geometry; reads are memory-mapped (XIP) and charged nothing. Programming or erasing
  stalls the CPU (code runs from the same chip), so the time adds to the pass.
- I2C at config.I2C_FREQ (400 kHz): a write of n bytes is START, the address byte, the n bytes
  (9 clocks each with the ACK), STOP: 9 * (n + 1) + 2 clocks, the bytes counted as the ssd1306
  driver hands them to machine.I2C. The rp2 port's I2C writes block until sent.
"""
from carddraw import config

SLOWDOWN = 150
PAGE_MS = {"typical": 0.4, "worst": 3.0}
ERASE_MS = {"typical": 45.0, "worst": 400.0}
I2C_HZ = config.I2C_FREQ


def cpu_ms(native_us):
    return native_us * SLOWDOWN / 1000.0


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
