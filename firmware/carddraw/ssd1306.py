"""A lean SSD1306 OLED driver over I2C that sends only the columns that changed.

Why our own and not micropython-lib's `ssd1306`: its package index is unreachable from our
machines, so the simulator could not install and run it; and its show() sends the whole
1,024-byte frame every time (about 24 ms of a 400 kHz bus), while a card draw changes only
part of the screen. This driver keeps the same shape (a framebuf.FrameBuffer subclass, the
same commands, those the device uses) and adds change detection down to the column span of
each page.

Change detection keeps a COPY of the last frame sent (1,024 bytes), not a per-page checksum:
- a copy is exact. A checksum can collide and then silently leave a stale page on screen;
- MicroPython compares two memoryviews at C speed (memcmp) with no allocation, when the
  views are made once here. A checksum would be a Python loop over 1,024 bytes
  (milliseconds on the RP2040 every frame) or binascii.crc32, whose results above 2**30 are
  not small ints and so allocate on every call;
- the copy also tells which columns of a changed page differ, in blocks of 16 columns: the
  page and its copy are copied into two scratch pages of 128 bytes, whose 8 blocks each
  have a view made once, and the blocks are compared (a memcmp each) from both ends to the
  first and the last that differ. The window sent runs from the one to the other. A card
  drawn in one corner costs that corner's columns, not the whole page. (The scan before
  read the two frames 2 bytes a step through uctypes views, a bytecode loop step a word,
  and spent as much on the chip as the bus time it saved; views of every block of every
  page would take 128 views, 4 KB of heap: these 16 stand for all of them.)

The SSD1306 is set to horizontal addressing, so a window of columns x0..x1 on one page is one
address command (one I2C write, 7 bytes) and one data write (control byte 0x40 then the
pixels). A page that did not change costs nothing; a frame that did not change costs nothing.

No Python loop copies pixels: on the RP2040 a bytecode loop costs microseconds a byte. Bytes
are moved by GS8 blits: any of the buffers seen as a GS8 FrameBuffer has its pages as rows
of bytes (a page's column is one byte), so a blit copies a page, or a window of one, in C.
A page is compared by memcmp first; a window narrower than the page is blitted to the
start of the scratch page of the old copy (compared by then) and sent from the view of its
width there; a whole page is sent
from its own view; a frame sent whole (at power-up, on waking, every page changed) is the
whole buffer in one write.

show() allocates nothing, changed or not: it runs on every frame the app draws, and garbage
made there would wake the collector in the middle of the loop (a pause of milliseconds that
the buttons and the timed draw would feel) and fragment the heap over hours of use. So
nothing in it slices (a new memoryview or a slice object is a heap object) or builds a
tuple: every view and FrameBuffer is made here, and the data write's vector is a list made
here whose second item is swapped in.

A bus error (OSError from the I2C write: a loose wire, a brown-out of the module) must not
leave a stale picture: the copy of a page is updated only once its data write returned, so
a page lost to the error still differs from the copy and is sent again by the next show().
The error itself goes up to the caller (the app shows the error or retries next pass).
"""
import framebuf
from micropython import const

# SSD1306 commands (datasheet section 10; the power-up ones and display off 0xAE / on 0xAF
# are written out where they are sent)
_CONTRAST = const(0x81)
_COLUMN_RANGE = const(0x21)
_PAGE_RANGE = const(0x22)

_COMMANDS = const(0x00)   # control byte: every byte after it is a command
_STEP = const(16)         # a sent span is a multiple of this many columns (see above)
CONTRAST = [4, 32, 96, 176, 255]   # brightness 1..5 -> contrast (a list: see config.py)


def _views(buffer, step):
    """Views of `buffer`, each `step` bytes, made once."""
    mv = memoryview(buffer)
    views = []
    for i in range(0, len(buffer), step):
        views.append(mv[i:i + step])
    return views


def _rows(buffer, width):
    """`buffer` seen as GS8: its pages as rows of bytes (see above)."""
    return framebuf.FrameBuffer(buffer, width, len(buffer) // width, framebuf.GS8)


class SSD1306(framebuf.FrameBuffer):
    """A width x height SSD1306 on `i2c` at `addr` (the device's OLED): draw with the
    FrameBuffer calls, then show(); brightness(), contrast() and sleep() as the app dims it."""
    asleep = False
    sent = None  # the contrast the module was last sent (None: not known)

    def __init__(self, i2c, width, height, addr):
        self.i2c = i2c
        self.addr = addr
        self.width = width
        self.height = height
        buf = self.buffer = bytearray(height // 8 * width)
        super().__init__(buf, width, height, framebuf.MONO_VLSB)
        sent = bytearray(len(buf))  # what the display holds now
        # One view per page, made once, so show() compares and copies without allocating.
        self._page = _views(buf, width)
        self._sent_page = _views(sent, width)
        self._rows = _rows(buf, width)
        self._sent_rows = _rows(sent, width)
        # The scratch pages of the scan for a page's changed blocks (see above), and a view
        # of each block of each, made once; a page is copied in and out by a GS8 blit.
        now = bytearray(width)
        was = bytearray(width)
        self._now_row = _rows(now, width)
        self._was_row = _rows(was, width)
        self._now_block = _views(now, _STEP)
        self._was_block = _views(was, _STEP)
        # A window narrower than the page is copied to the start of the scratch page `was`
        # (its blocks are compared by then) and sent from the view of its width there: one
        # view a width, made once.
        staged = memoryview(was)
        self._staged = views = []
        for n in range(0, width + 1, _STEP):
            views.append(staged[:n])
        self._data = [b"\x40", buf]  # the data write's vector: control byte 0x40, the pixels
        # [control, column range, first, last, page range, first, last]: one write per window.
        self._address = bytearray((_COMMANDS, _COLUMN_RANGE, 0, width - 1, _PAGE_RANGE, 0, 0))
        self._all = True       # every page dirty: the display RAM is random at power-up
        init = bytearray(  # the power-up commands, in one write
            b"\x00"        # control byte: commands follow
            b"\xae"        # display off
            b"\xd5\x80"    # clock: the reset divider and oscillator
            b"\xa8\x3f"    # multiplex: height - 1 (set below)
            b"\xd3\x00"    # display offset 0
            b"\x40"        # start line 0
            b"\x8d\x14"    # internal charge pump on
            b"\x20\x00"    # addressing: horizontal, pages follow each other
            b"\xa1"        # segment remap: column 127 at SEG0 ...
            b"\xc8"        # ... and COM scanned upwards: upright on the module
            b"\xda\x12"    # COM pins: alternate (sequential for a 128x32, set below)
            b"\x81\xcf"    # contrast
            b"\xd9\xf1"    # precharge
            b"\xdb\x30"    # VCOM deselect level
            b"\xa4"        # the pixels follow RAM (0xa5 lights every one)
            b"\xa6"        # normal, not inverted
            b"\x2e")       # scroll off
        init[5] = height - 1
        if width > 2 * height:
            init[16] = 0x02
        i2c.writeto(addr, init)
        self.fill(0)
        self.show()
        i2c.writeto(addr, b"\x00\xaf")  # display on

    def show(self):
        """Send the columns that differ from the last frame sent; return the data bytes sent.
        One function, no call a page: each call of a method with this many locals costs its
        frame taken from the heap and given back."""
        rows = self._rows
        sent_rows = self._sent_rows
        pages = self.height // 8
        changed = 0
        if not self._all:
            now = self._page
            was = self._sent_page
            for p in range(pages):
                if now[p] != was[p]:  # memcmp: a page that did not change costs no more
                    changed |= 1 << p
            if changed == (1 << pages) - 1:  # a new picture, the title bar too: the
                self._all = True             # whole frame in one write
        # A window is one address command (a), then its pixels in one data write (data).
        i2c = self.i2c
        a = self._address
        data = self._data
        if self._all:
            a[2] = 0
            a[3] = self.width - 1
            a[5] = 0
            a[6] = pages - 1
            i2c.writeto(self.addr, a)
            data[1] = self.buffer
            i2c.writevto(self.addr, data)
            sent_rows.blit(rows, 0, 0)
            self._all = False
            return len(self.buffer)
        sent = 0
        p = 0
        now = self._now_block
        was = self._was_block
        blocks = len(now)
        while changed:
            if changed & 1:
                # the changed blocks of page p, from the first to the last
                self._now_row.blit(rows, 0, -p)       # page p, as it is ...
                self._was_row.blit(sent_rows, 0, -p)  # ... and as it was sent
                b = 0
                while now[b] == was[b]:
                    b += 1
                e = blocks - 1
                while now[e] == was[e]:
                    e -= 1
                n = e - b + 1
                if n == blocks:
                    view = self._page[p]
                else:
                    self._was_row.blit(self._now_row, -b * _STEP, 0)  # columns b * 16 on
                    view = self._staged[n]
                a[2] = b * _STEP  # (no tuple: item by item)
                a[3] = (e + 1) * _STEP - 1
                a[5] = a[6] = p
                i2c.writeto(self.addr, a)
                data[1] = view
                i2c.writevto(self.addr, data)
                # Only now that the write returned: a page lost to a bus error goes next time.
                sent_rows.blit(self._now_row, 0, p)
                sent += n * _STEP
            changed >>= 1
            p += 1
        return sent

    def brightness(self, level):
        """Brightness step 1-5 (the "brightness" setting), clamped to them."""
        self.contrast(CONTRAST[max(0, min(4, int(level) - 1))])  # (CONTRAST's 5 steps)

    def contrast(self, level):
        """Contrast 0-255 (a brightness step's, or 0 dimmed), sent only when it is not the
        one the module has: the app applies the settings at every change of them (each
        set-up press), and a command write is about 1.5 ms of the chip's time. A write that
        fails is tried again."""
        if level != self.sent:
            self.sent = None
            self.i2c.writeto(self.addr, bytes((_COMMANDS, _CONTRAST, level)))
            self.sent = level

    def sleep(self, on):
        """Display off (True: sleep, about 10 uA; the module keeps its RAM) or back on
        (False); waking sends the whole frame and the contrast again, in case the module
        lost power while off."""
        if on != self.asleep:
            self.i2c.writeto(self.addr, b"\x00\xae" if on else b"\x00\xaf")  # off, on
            if not on:
                self._all = True
                self.sent = None
            self.asleep = on
