"""A lean SSD1306 OLED driver over I2C that sends only the pages that changed.

Why our own and not micropython-lib's `ssd1306`: its package index is unreachable from our
machines, so the simulator could not install and run it; and its show() sends the whole
1,024-byte frame every time (about 24 ms of a 400 kHz bus), while a card draw changes only
part of the screen. This driver keeps the same shape (a framebuf.FrameBuffer subclass, the
same command set) and adds page-level change detection.

Change detection keeps a COPY of the last frame sent (1,024 bytes), not a per-page checksum:
- a copy is exact. A checksum can collide and then silently leave a stale page on screen;
- MicroPython compares two memoryviews at C speed (memcmp) with no allocation, when the
  per-page views are made once here. A checksum would be a Python loop over 1,024 bytes
  (milliseconds on the RP2040 every frame) or binascii.crc32, whose results above 2**30 are
  not small ints and so allocate on every call;
- 1 KB is about 3 % of the 32 KB heap budget.

The SSD1306 is set to horizontal addressing: a run of neighbouring changed pages is one
column/page address command (one I2C write) and one data write (control byte 0x40 then
the pixels), so a frame costs 2 writes per run of changed pages and nothing when unchanged.
"""
import framebuf
from micropython import const

# SSD1306 commands (datasheet section 10)
_CONTRAST = const(0x81)
_ENTIRE_ON = const(0xA4)      # | 1 lights every pixel, 0 follows RAM
_NORMAL_INVERT = const(0xA6)  # | 1 inverts
_DISPLAY = const(0xAE)        # | 1 on, 0 off (sleep; RAM is kept)
_ADDRESS_MODE = const(0x20)
_COLUMN_RANGE = const(0x21)
_PAGE_RANGE = const(0x22)
_START_LINE = const(0x40)
_SEGMENT_REMAP = const(0xA0)
_MULTIPLEX = const(0xA8)
_COM_SCAN = const(0xC0)
_DISPLAY_OFFSET = const(0xD3)
_COM_PINS = const(0xDA)
_CLOCK = const(0xD5)
_PRECHARGE = const(0xD9)
_VCOM_DESELECT = const(0xDB)
_CHARGE_PUMP = const(0x8D)
_SCROLL_OFF = const(0x2E)

_COMMANDS = const(0x00)   # control byte: every byte after it is a command
_DATA = b"\x40"          # control byte: every byte after it is display RAM


class SSD1306(framebuf.FrameBuffer):
    """A width x height SSD1306 on `i2c` at `addr`; draw with the FrameBuffer calls, then show()."""

    def __init__(self, i2c, width=128, height=64, addr=0x3C):
        self.i2c = i2c
        self.addr = addr
        self.width = width
        self.height = height
        self.pages = height // 8
        self.buffer = bytearray(self.pages * width)
        super().__init__(self.buffer, width, height, framebuf.MONO_VLSB)
        self._sent = bytearray(len(self.buffer))  # what the display holds now
        mv = memoryview(self.buffer)
        sent = memoryview(self._sent)
        # One view per page, made once, so show() compares and copies without allocating.
        self._page = [mv[p * width:(p + 1) * width] for p in range(self.pages)]
        self._sent_page = [sent[p * width:(p + 1) * width] for p in range(self.pages)]
        self._mv = mv
        # [control, column range, 0, width-1, page range, first, last]: one write per run.
        self._address = bytearray((_COMMANDS, _COLUMN_RANGE, 0, width - 1, _PAGE_RANGE, 0, 0))
        self._all = True       # every page dirty: the display RAM is random at power-up
        self.bytes_sent = 0    # data bytes (pixels) sent since construction
        self._command(
            _DISPLAY | 0,
            _CLOCK, 0x80,
            _MULTIPLEX, height - 1,
            _DISPLAY_OFFSET, 0,
            _START_LINE | 0,
            _CHARGE_PUMP, 0x14,          # internal charge pump on
            _ADDRESS_MODE, 0x00,         # horizontal: pages follow each other
            _SEGMENT_REMAP | 1,          # column 127 at SEG0 ...
            _COM_SCAN | 0x08,            # ... and COM scanned upwards: upright on the module
            _COM_PINS, 0x02 if width > 2 * height else 0x12,
            _CONTRAST, 0xCF,
            _PRECHARGE, 0xF1,
            _VCOM_DESELECT, 0x30,
            _ENTIRE_ON | 0,
            _NORMAL_INVERT | 0,
            _SCROLL_OFF,
        )
        self.fill(0)
        self.show()
        self.poweron()

    def _command(self, *codes):
        # One I2C write: control byte 0x00 then the command bytes.
        buf = bytearray(len(codes) + 1)
        for i in range(len(codes)):
            buf[i + 1] = codes[i]
        self.i2c.writeto(self.addr, buf)

    def show(self):
        """Send the pages that differ from the last frame sent; return the data bytes sent."""
        sent = 0
        pages = self.pages
        page = 0
        while page < pages:
            if self._all or self._page[page] != self._sent_page[page]:
                first = page
                while page + 1 < pages and (
                        self._all or self._page[page + 1] != self._sent_page[page + 1]):
                    page += 1
                sent += self._send(first, page)
            page += 1
        self._all = False
        self.bytes_sent += sent
        return sent

    def _send(self, first, last):
        # Pages first..last in one data write. The copy is updated only once the write
        # returned, so a page lost to a bus error (OSError) is sent again next frame.
        width = self.width
        a = self._address
        a[5] = first
        a[6] = last
        self.i2c.writeto(self.addr, a)
        self.i2c.writevto(self.addr, (_DATA, self._mv[first * width:(last + 1) * width]))
        for p in range(first, last + 1):
            self._sent_page[p][:] = self._page[p]
        return (last - first + 1) * width

    def force(self):
        """Mark every page changed: the next show() sends the whole frame."""
        self._all = True

    def contrast(self, level):
        """Contrast (brightness) 0-255."""
        self._command(_CONTRAST, max(0, min(255, int(level))))

    def invert(self, on):
        """Light pixels dark and dark pixels light."""
        self._command(_NORMAL_INVERT | (1 if on else 0))

    def poweroff(self):
        """Display off (sleep, about 10 uA); the display keeps its RAM."""
        self._command(_DISPLAY | 0)

    def poweron(self):
        """Display on. Call force() too if the module may have lost power meanwhile."""
        self._command(_DISPLAY | 1)
