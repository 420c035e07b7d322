# Draws a controller View onto any framebuf-like canvas: only fill, text, fill_rect, rect,
# hline, vline and pixel are used, so a framebuf.FrameBuffer, the SSD1306 driver or a test's
# recorder all work. Pure: no I/O. A view with `art` (the active and card screens) is drawn
# as graphics; any other view as text, 16 columns x 8 rows of the 8x8 font. Both share the
# title bar (row 0: lit, the title dark in it, the battery icon at its right end).
#
# The graphics of the active and card screens, on the 128x64 one-colour OLED:
#
#   y  0-7   title bar: the skill's icon, the title, the skill's mark (the battery: render)
#   y  9-22  the deck: four card symbols, each colour its own pattern, with letter and count
#   y 24-55  the stage: the chance in large digits (deck views) or the drawn card (card views)
#   y 56-63  the foot line, at the same place on both (the tally, as a rule)
#
# Bytes per draw: the title bar, the deck and the foot line are the same pixels on the active
# and the card screens, and every count, digit and text has a place of its own, so a draw
# changes the 4 pages of the stage and a few digits; the SSD1306 driver sends only the
# changed columns of each page (see ssd1306.py). The stage's row at y 24 is short on both
# screens ("Chance", the colour word), so that page's span ends near x 70.
# Canvas calls: text, fill_rect, rect and pixel. Pure: no I/O.
#
# Art, by kind (what the screens' art() puts in View.art):
#   (kind, skill, title, counts, ...): skill one of SKILLS (its look), title up to 10
#   characters, counts the deck (green, yellow, red, black); then by kind:
#   ("deck", ..., chance, side, foot)  the active screen (a set-up screen could use it too)
#       chance: a short text such as "97.1%" (large digits: 0-9 . % < > only); side: up to
#       2 texts of up to 6 characters, right of the digits (ending by x 108); foot: up to 2
#       lines of up to 16 characters (the first at y 48, the second at y 56): on the active
#       screen the risks under the digits ("Risk r29% b3%", in whole percents: "<1%" for a
#       risk that can happen, never "0%"), then the tally
#   ("card", ..., colour, label, words, foot)  a drawn card
#       label: what the card did ("Success 1 of 3", "Succ +3: 3/4"), up to 14 characters;
#       words: up to 2 lines of up to 14 characters (the action's own words), drawn 7 px
#       apart beside the card; foot: one line of up to 16 characters at y 56
#
# RAM: on the board this module's bytecode sits in the heap, so the pictures are data, not
# code: one 142-byte table of columns (bit 0 the top pixel) drawn by one routine, cols().
#
# Two ways to draw, the same pixels (host_tests/test_render.py compares them):
# - on any canvas, with the drawing calls above (a test's recorder, a plain FrameBuffer);
# - given the canvas's bytes (`pixels`: the display's 128-wide MONO_VLSB frame, as the app
#   draws), by bytes: a page's column is one byte, so the frame seen as a GS8 FrameBuffer
#   128 x 8 is its pages, and a GS8 blit or fill moves whole bytes (memset and byte copies in
#   C). The pictures (the cards, the deck's symbols, the large digits, the title bar's icon
#   and mark) are drawn once each by the first way into a little frame of their own, at
#   power-on (prepare()), and kept (_tile); from then on a picture is one blit of a few
#   dozen bytes. Why: framebuf's C costs a few ns a pixel on the host and the chip's model
#   charges it at the bytecode's slowdown, so a card's frame drawn pixel by pixel (a stage of
#   5,248 pixels cleared, 704 of card, 3,000 of narrow text) took 40 us natively, 13 ms on
#   the chip's estimate; by bytes, a few us. The pictures and the places kept take 5,984 B
#   of the heap (the MicroPython VM, 32-bit as the board).
from carddraw.config import COLS, ROWS, SKILLS, TITLE_COLS

try:
    import framebuf
except ImportError:  # CPython (the tests' recording canvas): a character at a time
    framebuf = None


class View:
    """What the device shows: a screen name, up to ROWS lines of up to COLS characters (the
    first is the title), the LED colour (None = off), whether it blinks (timed warning), and
    art: None, or what render() draws as graphics instead of the lines. The lines stay the
    screen's words: the bench protocol's show and the tests read them. A picture's lines
    are not drawn, so they may come as make(), called the first time they are read (lines
    None): a press's pass that shows a picture never makes them."""

    quick = False  # the odds left out ("..."): controller.view(quick=True)

    def __init__(self, screen, lines, led=None, blink=False, art=None, make=None):
        self.screen = screen
        self._lines = lines
        self._make = make
        self.led = led
        self.blink = blink
        self.art = art

    @property
    def lines(self):
        if self._lines is None:
            self._lines = self._make()
        return self._lines

    def __eq__(self, other):
        return (isinstance(other, View) and self.screen == other.screen
                and self.lines == other.lines and self.led == other.led
                and self.blink == other.blink and self.art == other.art)


MARK_X = 94       # the skill's mark, left of the battery icon
COLOURS = ("green", "yellow", "red", "black")
LETTERS = "GYRB"
NAMES = ("GREEN", "YELLOW", "RED", "BLACK")   # on the drawn card, beside it
CARD_W = 22       # the drawn card's width (32 px high, at x 0, y 24)
DECK_X = (0, 37, 66, 95)    # the deck's cells: green and black may reach two digits
DECK_END = (37, 66, 95, 128)
STAGE_Y = 23      # the stage and the foot lines: from here down (the deck ends at y 22)
BIG = "0123456789.%<>"
# The table: BIG's glyphs, 5 columns each (drawn 2x: 10x14 px, 12 px apart); then per skill
# an 8-column icon (a cross, a spanner, a scope) and a 16-column mark (a pulse trace, hazard
# stripes, signal bars)
ICONS = 70
MARKS = 94
GLYPHS = (b"\x3e\x51\x49\x45\x3e\x00\x42\x7f\x40\x00\x62\x51\x49\x49\x46\x22\x41\x49\x49\x36"
          b"\x18\x14\x12\x7f\x10\x2f\x49\x49\x49\x31\x3c\x4a\x49\x49\x30\x01\x71\x09\x05\x03"
          b"\x36\x49\x49\x49\x36\x06\x49\x49\x29\x1e\x00\x60\x60\x00\x00\x63\x13\x08\x64\x63"
          b"\x08\x14\x22\x41\x00\x00\x41\x22\x14\x08"
          b"\x1c\x1c\x7f\x7f\x7f\x1c\x1c\x00\x80\xc0\x60\x30\x18\x0f\x0c\x07"
          b"\x1c\x22\x41\x49\x45\x22\x1c\x00"
          b"\x10\x10\x10\x10\x08\x04\x02\x3c\x40\x20\x10\x10\x10\x10\x10\x10"
          b"\x32\x18\x4c\x66\x32\x18\x4c\x66\x32\x18\x4c\x66\x32\x18\x4c\x66"
          b"\x60\x60\x00\x00\x70\x70\x00\x00\x78\x78\x00\x00\x7e\x7e\x00\x00")
# Each colour's pattern, a 4x4 tile (bit 4*row + column), so the one-colour OLED (and a
# colour-blind eye) tells them apart: green solid, yellow stripes, red a grid, black sparse
# dots; the fifth, a dotted line, outlines an empty slot. Stripes and the grid are lines, a
# call each: a card's face is most of a draw's render, and a face of single pixels took
# five times as long on the chip as these.
TILES = (0xFFFF, 0x0F0F, 0x111F, 0x0020, 0xA5A5)


def cols(canvas, at, n, x, y, scale=1, c=1):
    """n columns of GLYPHS from at, each lit bit a scale x scale square of colour c: a run
    of lit bits is one fill_rect."""
    for i in range(n):
        bits = GLYPHS[at + i]
        r = 0
        while bits:
            if bits & 1:
                run = 0
                while bits & 1:
                    bits >>= 1
                    run += 1
                canvas.fill_rect(x + i * scale, y + r * scale, scale, run * scale, c)
                r += run
            else:
                bits >>= 1
                r += 1


# How each tile is drawn as lines where it can: 15 for a solid tile, else the bits its rows
# that are not solid share (bit i: columns i, i + 4, ...), drawn as vlines, or -1 where they
# differ. Written out, not worked out at import: no garbage between the modules' code.
LINES = (15, 0, 1, -1, -1)


def pattern(canvas, kind, x, y, w, h):
    """Fill the w x h box at x, y with tile TILES[kind]: a solid tile is one fill_rect; a
    solid row is one hline; rows that are alike are one vline for each lit column; other
    rows their lit pixels one by one."""
    tile, lines = TILES[kind], LINES[kind]
    if lines == 15:
        canvas.fill_rect(x, y, w, h, 1)
        return
    for j in range(h):
        m = tile >> ((j & 3) << 2) & 15  # this row's 4 bits
        if m == 15:
            canvas.hline(x, y + j, w, 1)
        elif lines < 0:
            for b in range(4):
                if m >> b & 1:
                    for i in range(x + b, x + w, 4):
                        canvas.pixel(i, y + j, 1)
    if lines > 0:
        for b in range(4):
            if lines >> b & 1:
                for i in range(x + b, x + w, 4):
                    canvas.vline(i, y, h, 1)


def card(canvas, colour, x, y, w, h):
    """A card with rounded corners, its face the colour's pattern (colour 0-3); colour 4 is an
    empty slot, a dotted outline."""
    if colour == 4:
        pattern(canvas, 4, x, y, w, h)
        canvas.fill_rect(x + 1, y + 1, w - 2, h - 2, 0)
        return
    canvas.rect(x, y, w, h, 1)
    for cx in (x, x + w - 1):
        canvas.pixel(cx, y, 0)
        canvas.pixel(cx, y + h - 1, 0)
    pattern(canvas, colour, x + 2, y + 2, w - 4, h - 4)


def letter(canvas, colour, x, y):
    """The colour's letter on a dark window, on the drawn card at x, y."""
    canvas.fill_rect(x + 4, y + 9, 14, 14, 0)
    canvas.rect(x + 4, y + 9, 14, 14, 1)
    canvas.text(LETTERS[colour], x + 7, y + 12, 1)


def big_card(canvas, colour, x, y):
    """The drawn card, 22 x 32, its letter on a dark window."""
    card(canvas, colour, x, y, CARD_W, 32)
    letter(canvas, colour, x, y)


def symbol(canvas, colour, x, y):
    """A deck's card symbol, 9 x 14 (colour 4: an empty slot)."""
    card(canvas, colour, x, y, 9, 14)


def digit(canvas, ch, x, y):
    """One of BIG's large digits (10 x 14; the point, its 2 lit columns only, 4 x 14)."""
    at = 5 * BIG.find(ch)
    if ch == ".":
        cols(canvas, at + 1, 2, x, y, 2)
    else:
        cols(canvas, at, 5, x, y, 2)


def digit_width(ch):
    return 4 if ch == "." else 10


def icon(canvas, skill, x, y):
    """The skill's icon, dark on the lit title bar (8 columns)."""
    cols(canvas, ICONS + 8 * skill, 8, x, y, 1, 0)


def mark(canvas, skill, x, y):
    """The skill's mark, dark on the lit title bar (16 columns)."""
    cols(canvas, MARKS + 16 * skill, 16, x, y, 1, 0)


def narrow(canvas, text, x, y, pixels=None):
    """Up to 14 characters 7 px apart (the 8x8 font leaves its last column blank for all but
    a few glyphs, which overlap the next one's first): 98 px, beside the card; on a clear
    row. pixels: the canvas's own bytes (a 128-wide MONO_VLSB frame), for y a multiple of
    8: then in four C calls, not one a character (see _LINE)."""
    n = min(14, len(text))
    spot = None
    if pixels is not None and framebuf is not None and not y & 7:
        spot = _frame(pixels).spot(x, y >> 3)
    if spot is None or n > spot[2]:
        text_at = canvas.text  # looked up once: a line is up to 14 calls (text() clips
        for ch in text[:14]:   # what passes the right edge)
            text_at(ch, x, y, 1)
            x += 7
        return
    if n:
        _narrow(spot, text)


def _narrow(spot, text):
    """text (at most spot[2] characters) at a place of the frame's (_Frame.spot), by bytes."""
    if len(text) > spot[2]:
        text = text[:spot[2]]
    _LINE_BYTES.fill(0)
    _ACROSS.text(text, 0, 0, 1)
    spot[0].blit(_SEVENS, 0, 0)      # bytes: the rest of the spot is dark, as the row was
    spot[1].blit(_EIGHTHS, 0, 0, 0)  # pixels, lit ones only: onto the next glyph's first


# A line of up to 14 characters drawn 8 px apart by one text() call into _LINE, then put 7 px
# apart by two blits: _LINE's bytes are its columns (MONO_VLSB), so a GS8 FrameBuffer 7 wide
# with a stride of 8 over them has glyph k's first 7 columns as its row k, and one 7 wide
# with a stride of 7 over the frame's page at x has its row k at columns x + 7k: a blit moves
# 98 bytes. The glyphs' eighth columns go on top of the next one's first, lit pixels only
# (key 0), as text() draws them, by a MONO_VLSB blit of 1 x 112 pixels.
if framebuf is not None:
    _LINE = bytearray(8 * 14)
    _LINE_BYTES = framebuf.FrameBuffer(_LINE, 8 * 14, 1, framebuf.GS8)
    _ACROSS = framebuf.FrameBuffer(_LINE, 8 * 14, 8, framebuf.MONO_VLSB)
    _SEVENS = framebuf.FrameBuffer(_LINE, 7, 14, framebuf.GS8, 8)
    _EIGHTHS = framebuf.FrameBuffer(memoryview(_LINE)[7:], 1, 8 * 14, framebuf.MONO_VLSB, 8)


class _Frame:
    """The frame's bytes as GS8 pages (`pages`, 128 x 8: a byte a column of a page), and the
    spots narrow() writes to, made the first time (a FrameBuffer and a memoryview are heap
    objects, and a draw's pass must not make any): kept with the bytes they are over."""

    def __init__(self, pixels):
        self.pixels = pixels
        self.pages = framebuf.FrameBuffer(pixels, W, len(pixels) // W, framebuf.GS8)
        self.spots = {}
        # the card's four lines and the deck view's two side texts (draw)
        self.card = [self.spot(26, page) for page in range(3, 7)]
        self.side = [self.spot(66, page) for page in (4, 5)]

    def spot(self, x, page):
        """-> (the GS8 FrameBuffer of the glyphs' 7 columns, the MONO_VLSB one of their eighth
        columns, how many glyphs fit) at column x of a page, or None where none does."""
        key = page * W + x
        spot = self.spots.get(key)
        if spot is None:
            # glyphs whose eighth column stays on the page, and whose bytes are in the frame
            n = min(14, (W - 1 - x) // 7, (len(self.pixels) - key - 7) // 7)
            if n < 1:
                return None
            at = memoryview(self.pixels)[key:]
            spot = self.spots[key] = (framebuf.FrameBuffer(at, 7, n, framebuf.GS8, 7),
                                      framebuf.FrameBuffer(at[7:], 1, 8 * n,
                                                           framebuf.MONO_VLSB, 7), n)
        return spot


# The pictures' tiles, by key: each drawn the first time by the first way into w x pages of
# its own (dark, or lit for the title bar's pictures: key 64 and up), then kept as the GS8
# FrameBuffer of its bytes. prepare() draws them all (the app, at power-on): a press's pass
# only blits them.
_TILES = {}
_LAST = [None]   # the _Frame of the bytes drawn last


def _tile(key, w, pages, picture, what, y0):
    """The tile of picture(canvas, what, 0, y0)."""
    got = _TILES.get(key)
    if got is None:
        buf = bytearray(w * pages)
        mono = framebuf.FrameBuffer(buf, w, 8 * pages, framebuf.MONO_VLSB)
        if key >= 64:
            mono.fill(1)
        picture(mono, what, 0, y0)
        got = _TILES[key] = framebuf.FrameBuffer(buf, w, pages, framebuf.GS8)
    return got


def symbol_tile(kind):
    """A deck's symbol: rows 8 to 23, whose first and last are dark in the frame there."""
    return _tile(16 + kind, 9, 2, symbol, kind, 1)


def card_tile(colour):
    """The drawn card: pages 3 to 6 at x 0."""
    return _tile(24 + colour, CARD_W, 4, big_card, colour, 0)


def digit_tile(g):
    """BIG[g], large: rows 32 to 47, whose first and last are dark in the frame there."""
    ch = BIG[g]
    return _tile(32 + g, digit_width(ch), 2, digit, ch, 1)


def icon_tile(skill):
    return _tile(64 + skill, 8, 1, icon, skill, 0)


def mark_tile(skill):
    return _tile(72 + skill, 16, 1, mark, skill, 0)


def prepare(pixels=None):
    """Every picture's tile drawn now, and the places narrow text goes in the frame `pixels`
    (the display's bytes) made: the app does it at power-on, so that no press's pass makes
    one (a start's frame would draw a dozen)."""
    if framebuf is None:
        return
    if pixels is not None:
        _frame(pixels)  # and its places for narrow text
    for kind in range(5):
        symbol_tile(kind)
    for colour in range(4):
        card_tile(colour)
    for g in range(len(BIG)):
        digit_tile(g)
    for skill in range(len(SKILLS)):
        icon_tile(skill)
        mark_tile(skill)


def _frame(pixels):
    frame = _LAST[0]
    if frame is None or frame.pixels is not pixels:
        frame = _LAST[0] = _Frame(pixels)
    return frame


def deck(canvas, counts, before=None, frame=None):
    """R20: the deck, a card symbol (or an empty slot), letter and count per colour. before:
    the counts already drawn there (None: nothing is), so only the cells that differ are
    drawn again. frame: the canvas's _Frame, for the symbols' tiles."""
    # a count of two digits reaches past the yellow and red cells (and only past them)
    if before is not None and max(counts[1], counts[2], before[1], before[2]) > 9:
        canvas.fill_rect(0, 9, W, 14, 0)  # into its neighbour's cell: the whole row again
        before = None
    for c in range(4):  # the symbols, then the counts over them (a count may reach the next)
        n = counts[c]
        if before is not None:
            if before[c] == n:
                continue
            canvas.fill_rect(DECK_X[c], 9, DECK_END[c] - DECK_X[c], 14, 0)
        kind = c if n else 4
        if frame is None:
            symbol(canvas, kind, DECK_X[c], 9)
        else:
            frame.pages.blit(symbol_tile(kind), DECK_X[c], 1)
    for c in range(4):
        n = counts[c]
        if before is None or before[c] != n:
            canvas.text("%s%d" % (LETTERS[c], min(n, 99)), DECK_X[c] + 9, 12, 1)


def draw(canvas, art, before=None, pixels=None):
    """Draw art (see above) under the lit title bar, the title bar's own pictures included
    unless before (the counts of the art drawn there, under the same title bar) is given:
    then only what differs, the stage and the foot lines cleared first."""
    frame = None if pixels is None or framebuf is None else _frame(pixels)
    if before is None:  # the skill's icon, the title and the skill's mark, dark in the bar
        skill = SKILLS.index(art[1])
        if frame is None:
            icon(canvas, skill, 1, 0)
            mark(canvas, skill, MARK_X, 0)
        else:
            frame.pages.blit(icon_tile(skill), 1, 0)
            frame.pages.blit(mark_tile(skill), MARK_X, 0)
        canvas.text(_cut(art[2], 10), 11, 0, 0)
    elif frame is None:
        canvas.fill_rect(0, STAGE_Y, W, 64 - STAGE_Y, 0)
    else:  # the row at STAGE_Y, then pages 3 to 7 by bytes
        canvas.fill_rect(0, STAGE_Y, W, 1, 0)
        frame.pages.fill_rect(0, 3, W, 5, 0)
    deck(canvas, art[3], before, frame)
    if art[0] == "card":
        colour, label, words, foot = art[4:8]
        c = COLOURS.index(colour)
        if frame is None:
            big_card(canvas, c, 0, 24)
        else:
            frame.pages.blit(card_tile(c), 0, 3)
        if frame is None:
            narrow(canvas, NAMES[c], 26, 24)
            narrow(canvas, label, 26, 32)
            for i in range(min(2, len(words))):
                narrow(canvas, words[i], 26, 40 + 8 * i)
        else:  # the places made at power-on (prepare): no lookups, no frame from the heap
            spots = frame.card
            _narrow(spots[0], NAMES[c])
            _narrow(spots[1], label)
            for i in range(min(2, len(words))):
                _narrow(spots[2 + i], words[i])
        foot = foot[:1]
    else:
        chance, side, foot = art[4:7]
        canvas.text("Chance", 0, 24, 1)
        x = 0
        for ch in chance:       # the large digits, 12 px apart (the point 6)
            g = BIG.find(ch)
            if g >= 0:
                if frame is None:
                    digit(canvas, ch, x, 33)
                else:
                    frame.pages.blit(digit_tile(g), x, 4)
                x += digit_width(ch) + 2
        for i in range(min(2, len(side))):
            if frame is None:
                narrow(canvas, _cut(side[i], 6), 66, 32 + 8 * i)
            else:
                _narrow(frame.side[i], _cut(side[i], 6))
        foot = foot[:2]
    for i in range(len(foot)):
        canvas.text(_cut(foot[i], 16), 0, 56 - 8 * (len(foot) - 1 - i), 1)


W = 128
TITLE = TITLE_COLS  # title characters in a text view: 14 x 8 = 112 px, clear of the battery
BAT_X = 114       # battery icon: a 12x6 outline at x 114-125, y 1-6, and a nub at x 126


def _cut(text, n):
    """text to n characters: sliced only if longer (a slice is a new string, in the heap;
    the controller's lines already fit)."""
    return text if len(text) <= n else text[:n]


def render(view, canvas, battery=None, last=None, pixels=None):
    """Draw view (lines[0] is the title); battery: percent 0-100, or None for no icon. last:
    (art, battery, lines) of the frame the canvas holds now (None: not known), so that a
    picture with the same title bar draws only what differs, and a text view with the same
    title only its lines that differ (the same pixels as drawn whole: the title bar is a
    dozen calls, a draw changes one cell of the deck, a set-up press two or three lines of
    eight: 9 us against 22-26 on native MicroPython). pixels: the canvas's bytes, for
    drawing by bytes (see above)."""
    pages = None if pixels is None or framebuf is None else _frame(pixels).pages
    art = view.art
    if last is not None and last[1] == battery:
        if art and last[0] and last[0][1] == art[1] and last[0][2] == art[2]:
            draw(canvas, art, last[0][3], pixels)
            return
        before = last[2]
        if not art and not last[0] and before and view.lines and before[0] == view.lines[0]:
            lines = view.lines
            n, m = len(lines), len(before)
            for i in range(1, ROWS):
                line = lines[i] if i < n else ""
                if line != (before[i] if i < m else ""):
                    if pages is None:
                        canvas.fill_rect(0, 8 * i, W, 8, 0)
                    else:
                        pages.fill_rect(0, i, W, 1, 0)
                    if line:
                        canvas.text(_cut(line, COLS), 0, 8 * i, 1)
            return
    if pages is None:
        canvas.fill(0)
        canvas.fill_rect(0, 0, W, 8, 1)
    else:  # by bytes: the frame dark, the title bar's page lit
        pages.fill(0)
        pages.fill_rect(0, 0, W, 1, 255)
    if art:
        draw(canvas, art, None, pixels)
    else:
        lines = view.lines
        for i in range(min(len(lines), ROWS)):
            if lines[i]:
                canvas.text(_cut(lines[i], COLS if i else TITLE), 0, 8 * i, 1 if i else 0)
    if battery is not None:
        p = min(100, max(0, int(battery)))
        canvas.rect(BAT_X, 1, 12, 6, 0)
        canvas.vline(BAT_X + 12, 3, 2, 0)
        w = (p + 5) // 10  # 0-10 px of charge inside the outline
        if w:
            canvas.fill_rect(BAT_X + 1, 2, w, 4, 0)
