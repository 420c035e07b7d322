"""The OLED's picture read back as text, for the simulator's tests, transcripts and the
terminal: 16 x 8 cells of the firmware's 8x8 font (framebuf's own glyphs), the title row lit
with its text dark, the battery icon's cells skipped. A cell that is no glyph reads '?'."""
import framebuf

from carddraw import config

_glyphs = None   # cell bytes -> character, made on first use


def glyphs():
    global _glyphs
    if _glyphs is None:
        _glyphs = {}
        cell = bytearray(8)
        fb = framebuf.FrameBuffer(cell, 8, 8, framebuf.MONO_VLSB)
        for c in range(32, 127):
            fb.fill(0)
            fb.text(chr(c), 0, 0, 1)
            _glyphs[bytes(cell)] = chr(c)
    return _glyphs


def read(pic):
    """The 1,024-byte MONO_VLSB picture's 8 lines of text."""
    known = glyphs()
    lines = []
    for row in range(config.ROWS):
        chars = []
        for col in range(config.TITLE_COLS if row == 0 else config.COLS):
            at = row * 128 + col * 8
            cell = bytes(pic[at:at + 8])
            if row == 0:
                cell = bytes(b ^ 0xFF for b in cell)
            chars.append(known.get(cell, "?"))
        lines.append("".join(chars).rstrip())
    return lines
