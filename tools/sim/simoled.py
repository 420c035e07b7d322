"""The I2C bus and the SSD1306 on it, as the `machine` stand-in (machine.py) simulates them:
the part of machine.SIM that decodes the command and data stream into the display RAM and
shows what a person sees. machine.py's docstring says what SIM offers; _Sim inherits this."""
OLED_ADDR = 0x3C
EIO = 5

# SSD1306 command -> number of argument bytes that follow it (datasheet section 9).
_ARGS = {0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xDA: 1, 0xD5: 1,
         0xD9: 1, 0xDB: 1, 0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2}
_NO_ARGS = (0x2E, 0x2F, 0xA0, 0xA1, 0xA4, 0xA5, 0xA6, 0xA7, 0xAE, 0xAF, 0xC0, 0xC8, 0xE3)


class Oled:
    """SIM's I2C bus and OLED: their state (reset_bus) and the decoder; machine._Sim's base."""

    def reset_bus(self):
        self.i2c_devices = [OLED_ADDR]
        self.i2c_data_bytes = 0
        self.frame_data_bytes = 0
        self.i2c_command_bytes = 0
        self.i2c_writes = 0
        self.i2c_errors = []
        self.i2c_fail = 0
        # The SSD1306 as it comes out of reset (datasheet section 8.9).
        self.oled = bytearray(1024)
        self.oled_on = False
        self.contrast = 0x7F
        self.inverted = False
        self.entire_on = False
        self.charge_pump = False
        self.seg_remap = False
        self.com_reversed = False
        self.start_line = 0
        self.addressing = 2     # 0 horizontal, 1 vertical, 2 page
        self.col_lo, self.col_hi = 0, 127
        self.page_lo, self.page_hi = 0, 7
        self.col = self.page = 0
        self._cmd = None        # a command waiting for its argument bytes
        self._need = 0

    def end_frame(self):
        """Data bytes since the last call; the next frame starts from 0."""
        n = self.frame_data_bytes
        self.frame_data_bytes = 0
        return n

    def _i2c_write(self, addr, vector):
        # One I2C transaction made of the buffers in `vector`, read in place: copying them
        # would leave garbage that the VM's heap measurements would count.
        if self.i2c_fail > 0:
            self.i2c_fail -= 1
            raise OSError(EIO)
        if addr not in self.i2c_devices:
            raise OSError(EIO)   # no ACK, as the RP2040 reports it
        self.i2c_writes += 1
        if addr != OLED_ADDR:
            return
        state = 0       # 0: a control byte next, 1: one byte then a control byte, 2: all the rest
        is_data = 0
        for buf in vector:
            for b in buf:
                if state == 0:
                    if b & 0x3F:
                        self.i2c_errors.append("control byte 0x%02x" % b)
                        return
                    is_data = b & 0x40
                    state = 1 if b & 0x80 else 2
                    continue
                if state == 1:
                    state = 0
                if is_data:
                    self._ram(b)
                else:
                    self._command_byte(b)
        if state == 1:
            self.i2c_errors.append("a control byte with nothing after it")

    def _ram(self, b):
        if self._cmd is not None:
            self.i2c_errors.append("data while command 0x%02x waits for arguments" % self._cmd[0])
            self._cmd = None
        self.oled[self.page * 128 + self.col] = b
        if self.addressing == 0:
            if self.col >= self.col_hi:
                self.col = self.col_lo
                self.page = self.page_lo if self.page >= self.page_hi else self.page + 1
            else:
                self.col += 1
        elif self.addressing == 1:
            if self.page >= self.page_hi:
                self.page = self.page_lo
                self.col = self.col_lo if self.col >= self.col_hi else self.col + 1
            else:
                self.page += 1
        else:
            self.col = 0 if self.col >= 127 else self.col + 1
        self.i2c_data_bytes += 1
        self.frame_data_bytes += 1

    def _command_byte(self, b):
        self.i2c_command_bytes += 1
        if self._cmd is not None:
            self._cmd.append(b)
            if len(self._cmd) > self._need:
                cmd = self._cmd
                self._cmd = None
                self._execute(cmd)
            return
        if b in _ARGS:
            self._cmd = [b]
            self._need = _ARGS[b]
        elif b < 0x20 or 0x40 <= b < 0x80 or 0xB0 <= b < 0xB8 or b in _NO_ARGS:
            self._execute([b])
        else:
            self.i2c_errors.append("unknown command 0x%02x" % b)

    def _execute(self, cmd):
        c = cmd[0]
        if c == 0x81:
            self.contrast = cmd[1]
        elif c == 0xA4 or c == 0xA5:
            self.entire_on = c == 0xA5
        elif c == 0xA6 or c == 0xA7:
            self.inverted = c == 0xA7
        elif c == 0xAE or c == 0xAF:
            self.oled_on = c == 0xAF
        elif c == 0x20:
            if cmd[1] & 3 == 3:
                self.i2c_errors.append("addressing mode 3 is invalid")
            else:
                self.addressing = cmd[1] & 3
        elif c == 0x21:
            self.col_lo, self.col_hi = cmd[1] & 127, cmd[2] & 127
            self.col = self.col_lo
        elif c == 0x22:
            self.page_lo, self.page_hi = cmd[1] & 7, cmd[2] & 7
            self.page = self.page_lo
        elif 0xB0 <= c < 0xB8:
            self.page = c & 7
        elif c < 0x10:
            self.col = (self.col & 0xF0) | c
        elif c < 0x20:
            self.col = (self.col & 0x0F) | ((c & 7) << 4)
        elif 0x40 <= c < 0x80:
            self.start_line = c & 0x3F
        elif c == 0xA0 or c == 0xA1:
            self.seg_remap = c == 0xA1
        elif c == 0xC0 or c == 0xC8:
            self.com_reversed = c == 0xC8
        elif c == 0x8D:
            self.charge_pump = bool(cmd[1] & 0x04)
        # The rest (timing, multiplex, scrolling) does not change the picture here.

    def pixel(self, x, y):
        """1 if the pixel at (x, y) of the visible screen is lit."""
        if not (self.oled_on and self.charge_pump):
            return 0
        if self.entire_on:
            return 1
        # Our module is mounted so that remap + reversed COM scan is upright.
        if not self.seg_remap:
            x = 127 - x
        if not self.com_reversed:
            y = 63 - y
        lit = (self.oled[(y >> 3) * 128 + x] >> (y & 7)) & 1
        return lit ^ 1 if self.inverted else lit

    def screen(self):
        """The visible picture as a 1,024-byte MONO_VLSB buffer."""
        if (self.oled_on and self.charge_pump and not self.entire_on and self.seg_remap
                and self.com_reversed):
            # Mounted upright (the firmware's setting): the picture is the RAM itself, so
            # copy it at C speed instead of 8,192 pixel() calls (about 40 ms in the VM).
            out = bytearray(self.oled)
            if self.inverted:
                for i in range(1024):
                    out[i] ^= 0xFF
            return out
        out = bytearray(1024)
        for y in range(64):
            bit = 1 << (y & 7)
            row = (y >> 3) * 128
            for x in range(128):
                if self.pixel(x, y):
                    out[row + x] |= bit
        return out

    def text_art(self):
        """The visible picture as 32 lines of 128 half-block characters."""
        lines = []
        for y in range(0, 64, 2):
            line = []
            for x in range(128):
                top = self.pixel(x, y)
                bottom = self.pixel(x, y + 1)
                line.append(" \u2584\u2580\u2588"[top * 2 + bottom])
            lines.append("".join(line))
        return "\n".join(lines)
