# Draws a controller View onto any framebuf-like canvas: only fill, text, fill_rect, rect,
# hline, vline, pixel and line are used, so a framebuf.FrameBuffer, the SSD1306 driver or a
# test's recorder all work. Pure: no I/O, no allocation beyond a few small ints per call.
#
# A view with `art` is drawn as graphics; any other view as text, 16 columns x 8 rows of the
# 8x8 font. Both share the title bar (row 0: lit, the title dark in it, the battery icon at
# its right end). Graphics, on the 128x64 one-colour OLED:
#
#   y  0-7   title bar: the skill's icon, the title, the skill's mark, the battery
#   y  9-22  the deck: four card symbols, each colour its own pattern, with its letter and count
#   y 24-55  the stage: the chance in large digits (deck views) or the drawn card (card views)
#   y 56-63  the foot line
#
# The title bar, the deck and the foot line sit at the same pixels on the active and the
# card screens, so a draw changes the stage and a few digits: the SSD1306 driver then sends
# only those columns (see ssd1306.py).
#
# Art, by kind (what the controller's line-builders put in View.art):
#   (kind, skill, title, counts, ...): skill one of SKILLS (its look), title up to 10
#   characters, counts the deck (green, yellow, red, black); then by kind:
#   ("deck", ..., chance, side, foot)  set-up and active screens
#       chance: a short text such as "97.1%" (large digits: 0-9 . % < > only); side: up to
#       3 texts of up to 7 characters, right of the chance; foot: up to 2 lines of up to 16
#       characters (the first at y 48, the second at y 56)
#   ("card", ..., colour, label, words, foot)  a drawn card
#       label: what the card did ("Success 1 of 3"); words: up to 2 lines of up to 14
#       characters (the action's own words); foot: one line of up to 14 characters (all
#       drawn 7 px apart, beside the card)
W = 128
TITLE = 14        # title characters in a text view: 14 x 8 = 112 px, clear of the battery
BAT_X = 114       # battery icon: a 12x6 outline at x 114-125, y 1-6, and a nub at x 126
SKILLS = ("surgery", "repair", "scan")
COLOURS = ("green", "yellow", "red", "black")
LETTERS = "GYRB"
DECK_X = (0, 37, 66, 95)    # the deck's cells: green and black may reach two digits
BIG = "0123456789.%<>"
# Large digits: 5 columns each, bit 0 the top row of 7; drawn 2x (10x14 px, 12 px apart)
BIG_COLS = (b"\x3e\x51\x49\x45\x3e\x00\x42\x7f\x40\x00\x62\x51\x49\x49\x46\x22\x41\x49"
            b"\x49\x36\x18\x14\x12\x7f\x10\x2f\x49\x49\x49\x31\x3c\x4a\x49\x49\x30\x01"
            b"\x71\x09\x05\x03\x36\x49\x49\x49\x36\x06\x49\x49\x29\x1e\x00\x60\x60\x00"
            b"\x00\x63\x13\x08\x64\x63\x08\x14\x22\x41\x00\x00\x41\x22\x14\x08")


def render(view, canvas, battery=None):
    """Draw view (lines[0] is the title); battery: percent 0-100, or None for no icon."""
    canvas.fill(0)
    canvas.fill_rect(0, 0, W, 8, 1)
    art = getattr(view, "art", None)
    if art:
        skill = art[1]
        icon(canvas, skill, 1, 0)
        canvas.text(art[2][:10], 11, 0, 0)
        mark(canvas, skill, 11 + 8 * len(art[2][:10]) + 3)
        deck_bar(canvas, art[3])
        if art[0] == "card":
            card_stage(canvas, art)
        else:
            deck_stage(canvas, art)
    else:
        text_view(canvas, view.lines)
    if battery is not None:
        battery_icon(canvas, battery)


def text_view(canvas, lines):
    n = len(lines)
    if n:
        canvas.text(lines[0][:TITLE], 0, 0, 0)
    for i in range(1, min(n, 8)):
        if lines[i]:
            canvas.text(lines[i][:16], 0, 8 * i, 1)


def battery_icon(canvas, battery):
    p = min(100, max(0, int(battery)))
    canvas.rect(BAT_X, 1, 12, 6, 0)
    canvas.vline(BAT_X + 12, 3, 2, 0)
    w = (p + 5) // 10  # 0-10 px of charge inside the outline
    if w:
        canvas.fill_rect(BAT_X + 1, 2, w, 4, 0)


# -- the skill's look: an icon at the left of the title bar, a mark after the title -----------
def icon(canvas, skill, x, y):
    """An 8x8 icon, dark on the lit bar: a cross (surgery), a spanner (repair), a dish (scan)."""
    if skill == "surgery":
        canvas.fill_rect(x + 2, y + 1, 3, 7, 0)
        canvas.fill_rect(x, y + 3, 7, 3, 0)
    elif skill == "repair":
        canvas.line(x, y + 7, x + 4, y + 3, 0)
        canvas.line(x + 1, y + 7, x + 5, y + 3, 0)
        canvas.rect(x + 4, y + 1, 3, 3, 0)
        canvas.pixel(x + 6, y + 1, 1)       # the spanner's open jaw
    else:
        canvas.line(x, y + 2, x + 5, y + 7, 0)
        canvas.line(x, y + 2, x, y + 7, 0)
        canvas.hline(x, y + 7, 6, 0)
        canvas.line(x + 3, y + 4, x + 6, y + 1, 0)
        canvas.pixel(x + 6, y + 0, 0)


def mark(canvas, skill, x):
    """The skill's mark in the bar's free space up to the battery: a pulse trace (surgery),
    hazard stripes (repair), signal bars (scan)."""
    end = BAT_X - 4
    if end - x < 12:
        return
    if skill == "surgery":
        y = 4
        canvas.hline(x, y, end - x, 0)
        m = x + (end - x) // 2
        canvas.line(m - 4, y, m - 2, y - 3, 0)
        canvas.line(m - 2, y - 3, m, y + 3, 0)
        canvas.line(m, y + 3, m + 2, y, 0)
    elif skill == "repair":
        for i in range(x + ((end - x) % 4), end - 3, 4):
            canvas.line(i, 6, i + 3, 1, 0)
            canvas.line(i + 1, 6, i + 4, 1, 0)
    else:
        for i in range(4):
            h = 2 + i
            canvas.fill_rect(end - 16 + 4 * i, 7 - h, 2, h, 0)


# -- patterns: each colour its own, so the one-colour OLED (and a colour-blind eye) tells them
# apart: green solid, yellow diagonal stripes, red cross-hatch, black sparse dots ------------
def pattern(canvas, colour, x, y, w, h):
    """Fill the w x h box at x, y with colour's pattern (index 0-3, COLOURS order)."""
    if colour == 0:
        canvas.fill_rect(x, y, w, h, 1)
    elif colour == 3:
        for j in range(1, h, 3):
            for i in range(1 + (j // 3) % 2, w, 3):
                canvas.pixel(x + i, y + j, 1)
    else:
        step = 3 if colour == 1 else 4
        for d in range(0, w + h - 1, step):
            diagonal(canvas, x, y, w, h, d, 1)
            if colour == 2:
                diagonal(canvas, x, y, w, h, d, -1)


def diagonal(canvas, x, y, w, h, d, way):
    # The pixels with i + j == d (way 1: "/") or (w-1-i) + j == d (way -1: "\") in the box.
    i0 = min(d, w - 1)
    j0 = d - i0
    j1 = min(d, h - 1)
    i1 = d - j1
    if way < 0:
        i0, i1 = w - 1 - i0, w - 1 - i1
    canvas.line(x + i0, y + j0, x + i1, y + j1, 1)


def card(canvas, colour, x, y, w, h, dashed=False):
    """A card with rounded corners; its face is the colour's pattern. dashed: an empty slot."""
    if dashed:
        for i in range(x + 2, x + w - 2, 3):
            canvas.pixel(i, y, 1)
            canvas.pixel(i, y + h - 1, 1)
        for j in range(y + 2, y + h - 2, 3):
            canvas.pixel(x, j, 1)
            canvas.pixel(x + w - 1, j, 1)
        return
    canvas.hline(x + 1, y, w - 2, 1)
    canvas.hline(x + 1, y + h - 1, w - 2, 1)
    canvas.vline(x, y + 1, h - 2, 1)
    canvas.vline(x + w - 1, y + 1, h - 2, 1)
    pattern(canvas, colour, x + 2, y + 2, w - 4, h - 4)


def deck_bar(canvas, counts):
    """R20: the deck, each colour a card symbol (an empty slot when none) and its letter and
    count. The cells never move, so a changed count redraws only its own digits."""
    for c in range(4):
        x = DECK_X[c]
        n = counts[c]
        card(canvas, c, x, 9, 9, 14, n == 0)
        canvas.text("%s%d" % (LETTERS[c], min(n, 99)), x + 9, 12, 1)


# -- large digits ---------------------------------------------------------------------------
def big_text(canvas, text, x, y):
    """text in the large digits (BIG's characters; others are skipped) at x, y; returns the
    x after it. Each lit run of a glyph's column is one 2-px wide fill_rect."""
    for ch in text:
        g = BIG.find(ch)
        if g < 0:
            continue
        cols = 2 if ch == "." else 5
        at = g * 5 + (1 if ch == "." else 0)
        for c in range(cols):
            bits = BIG_COLS[at + c]
            r = 0
            while bits >> r:
                if bits >> r & 1:
                    top = r
                    while bits >> r & 1:
                        r += 1
                    canvas.fill_rect(x + 2 * c, y + 2 * top, 2, 2 * (r - top), 1)
                else:
                    r += 1
        x += 2 * cols + 2
    return x


# -- the stages -----------------------------------------------------------------------------
def deck_stage(canvas, art):
    chance, side, foot = art[4:7]
    canvas.text("Chance", 0, 24, 1)
    big_text(canvas, chance, 0, 33)
    for i in range(min(3, len(side))):
        canvas.text(side[i][:7], 72, 24 + 8 * i, 1)
    for i in range(min(2, len(foot))):
        canvas.text(foot[i][:16], 0, 48 + 8 * i, 1)


def narrow(canvas, text, x, y, n=14):
    """At most n characters 7 px apart (the 8x8 font leaves its last column blank for all but
    a few glyphs): 14 characters in 98 px, beside the card."""
    for i in range(min(n, len(text))):
        canvas.text(text[i], x + 7 * i, y, 1)


def card_stage(canvas, art):
    colour, label, words, foot = art[4:8]
    c = COLOURS.index(colour)
    card(canvas, c, 0, 24, 22, 40)
    canvas.fill_rect(4, 37, 14, 14, 0)   # the letter on the card, on a dark window
    canvas.rect(4, 37, 14, 14, 1)
    canvas.text(LETTERS[c], 7, 40, 1)
    narrow(canvas, colour.upper(), 26, 24)
    narrow(canvas, label, 26, 32)
    for i in range(min(2, len(words))):
        narrow(canvas, words[i], 26, 40 + 8 * i)
    if foot:
        narrow(canvas, foot[0], 26, 56)
