# The View: what the controller makes of its screen on show (build), and how it is drawn
# (render). Pure: reads the controller, changes nothing; no I/O.
#
# build(): the screen's lines and picture (its lines() and art()), with the marks every
# screen carries: the bench's seed (SEED in the title: the cards were chosen) and the timed
# warning (R21: on any screen but the active one, which shows its own). show(): the bench's
# `show`. Queue: the records and sounds the app takes each pass.
#
# render() draws a View onto any framebuf-like canvas: only fill, text, fill_rect, rect, hline,
# vline and pixel are used, so a framebuf.FrameBuffer, the SSD1306 driver (a FrameBuffer
# itself) or a test's recorder all work (text is lit unless given 0: framebuf's default).
# A view with a picture (the active and card screens) is drawn as graphics; any other view
# as text, 16 columns x 8 rows of the 8x8 font.
# Both share the title bar (row 0: lit, the title dark in it, the battery icon at its right).
#
#   y  0-7   title bar: the skill's icon, the title, the skill's mark, the battery
#   y  9-22  the deck: four card symbols, each colour its own pattern, with letter and count
#   y 24-55  the stage: the chance in large digits (DeckPicture) or the drawn card (CardPicture)
#   y 56-63  the foot line, at the same place on both (the tally, as a rule)
#
# One path per picture. What changes between two frames is drawn again and nothing else: a
# picture under the same title bar redraws its stage and the deck's cells that changed; a
# text view under the same title its lines that changed. The SSD1306 driver then sends only
# the columns that changed (ssd1306.py): a draw sends about half a frame.
from .config import COLS, ROWS, SKILLS, TITLE_COLS
from .deck import COLOURS

try:
    from micropython import const
except ImportError:  # CPython (the tests, the tools): const(x) is x
    def const(x):  # type: ignore[no-redef]
        return x

_W = const(128)
_LETTERS = const("GYRB")
_MARK_X = const(94)  # the skill's mark, left of the battery icon
_BAT_X = const(114)  # battery icon: a 12x6 outline at x 114-125, y 1-6, and a nub at x 126
_CARD_W = const(22)  # the drawn card's width (32 px high, at x 0, y 24)
_DECK_X = const((0, 37, 66, 95))  # the deck's cells: green and black may reach two digits
_DECK_W = const((37, 29, 29, 33))  # their widths, to the next cell (the last to x 128)
_STAGE_Y = const(23)  # the stage and the foot lines: from here down (the deck ends at y 22)
_BIG = const("0123456789.%<>")
# The pictures' columns (bit 0 the top pixel): _BIG's glyphs, 5 columns each (drawn 2x: 10x14
# px, 12 px apart); then per skill an 8-column icon (a cross, a spanner, a scope) and a
# 16-column mark (a pulse trace, hazard stripes, signal bars). Data, not code: RAM.
_ICONS = const(70)
_MARKS = const(94)
_GLYPHS = const(b"\x3e\x51\x49\x45\x3e\x00\x42\x7f\x40\x00\x62\x51\x49\x49\x46\x22\x41\x49\x49\x36"
          b"\x18\x14\x12\x7f\x10\x2f\x49\x49\x49\x31\x3c\x4a\x49\x49\x30\x01\x71\x09\x05\x03"
          b"\x36\x49\x49\x49\x36\x06\x49\x49\x29\x1e\x00\x60\x60\x00\x00\x63\x13\x08\x64\x63"
          b"\x08\x14\x22\x41\x00\x00\x41\x22\x14\x08"
          b"\x1c\x1c\x7f\x7f\x7f\x1c\x1c\x00\x80\xc0\x60\x30\x18\x0f\x0c\x07"
          b"\x1c\x22\x41\x49\x45\x22\x1c\x00"
          b"\x10\x10\x10\x10\x08\x04\x02\x3c\x40\x20\x10\x10\x10\x10\x10\x10"
          b"\x32\x18\x4c\x66\x32\x18\x4c\x66\x32\x18\x4c\x66\x32\x18\x4c\x66"
          b"\x60\x60\x00\x00\x70\x70\x00\x00\x78\x78\x00\x00\x7e\x7e\x00\x00")
# Each colour's face, a 4x4 tile (bit 4*row + column), so the one-colour OLED (and a
# colour-blind eye) tells them apart: green solid, yellow stripes, red a grid, black sparse
# dots; the fifth, a dotted line, outlines an empty slot. _LINES says how each is drawn in
# lines, a call each: 15 solid, else the columns its rows that are not solid share (drawn
# as vlines), -1 where they differ (those rows pixel by pixel).
_TILES = const((0xFFFF, 0x0F0F, 0x111F, 0x0020, 0xA5A5))
_LINES = const((15, 0, 1, -1, -1))


class View:
    """What the device shows: a screen name, up to ROWS lines of up to COLS characters (the
    first is the title), the LED colour (None = off), whether it blinks (timed warning), and a
    picture (DeckPicture, CardPicture) drawn instead of the lines, or None. The lines stay the
    screen's words: the bench protocol's show, the phone view and the tests read them.
    quick: the odds were not worked out yet and show "..." (controller.view)."""

    def __init__(self, screen, lines, led=None, blink=False, picture=None, quick=False):
        self.screen = screen
        self.lines = lines
        self.led = led
        self.blink = blink
        self.picture = picture
        self.quick = quick

    def __eq__(self, other):
        return (isinstance(other, View) and self.screen == other.screen
                and self.lines == other.lines and self.led == other.led
                and self.blink == other.blink and self.picture == other.picture)


_MOST_WAITING = const(64)  # records or sounds held for the app, which takes them every pass


class Queue:
    """Records or sounds for the app: at most _MOST_WAITING (the oldest go first), handed over
    by take(); an empty one stays (a quiet pass allocates nothing here)."""

    def __init__(self):
        self.items = []

    def add(self, value):
        items = self.items
        if len(items) >= _MOST_WAITING:
            items.pop(0)
        items.append(value)

    def take(self):
        items = self.items
        if items:
            self.items = []
        return items


def build(ctl):
    """The View of the controller's screen on show: its lines as shown (the seed's and the
    warning's marks, ROWS lines, COLS wide, the title short of the battery icon)."""
    shown = ctl.shown
    play = ctl.play
    blink = play is not None and play.warn > 0
    warn = blink and shown.name != "active"
    lines, led = shown.lines()
    if ctl.seeded:  # the bench's seed chose the cards: every screen says so
        title = lines[0]
        if len(title) > TITLE_COLS - 5:  # its first words, as many as fit whole
            title = title[:TITLE_COLS - 5]
            if " " in title:
                title = title[:title.rfind(" ")]
        lines[0] = "%-*sSEED" % (TITLE_COLS - 4, title)  # the title padded: SEED at the right
    if warn:  # R21: the timed warning, the last line (a card pending: "Accept in 4s!")
        warning = "%s in %ds!" % ("Accept" if play.card and not play.applied  # (a colour,
                                  else "Draw", play.warn)                      # or None)
        lines = (lines + [""] * ROWS)[:ROWS - 1] + [warning]
    if len(lines) > ROWS:
        lines = lines[:ROWS]
    for i in range(len(lines)):  # a slice is a new string: only where a line is too long
        most = TITLE_COLS if i == 0 else COLS
        if len(lines[i]) > most:
            lines[i] = lines[i][:most]
    got = shown.art()
    picture = None
    if got:  # (picture, led)
        picture, led = got
        if ctl.seeded:  # the picture's title (its icon and mark name the skill)
            picture.title = "SEEDED"
        if warn:  # the warning at the picture's foot
            picture.foot = (warning,)
    if warn:
        led = "white"  # R21: the warning shows on any screen
    v = View(shown.name, lines, led, blink, picture, not (play or ctl.plan).odds_ready())
    v.sec = ctl.seconds_left()  # the countdown it shows: a new view each second
    return v



def show(ctl):
    """The bench protocol's `show`: the view, and the action's state, deck and tally."""
    view, a = ctl.view(), ctl.action
    out = {"screen": view.screen, "lines": view.lines, "led": view.led}
    for name in ("state", "successes", "needed", "complications", "draws"):
        out[name] = a and getattr(a, name)  # (None: no action)
    out["deck"] = a and list(a.deck.counts())
    return out


class Picture:
    """What both pictures share: the skill (its icon and mark), the title (up to 10
    characters), the deck's counts (green, yellow, red, black) and the lines at the foot, the
    last at y 56. Its fields are its data: equal pictures have equal fields."""

    def __init__(self, skill, title, counts, foot):
        self.skill = skill
        self.title = title
        self.counts = counts
        self.foot = foot

    def __eq__(self, other):
        return isinstance(other, Picture) and other.__dict__ == self.__dict__

    def draw(self, canvas, before=None):
        """The picture under the lit title bar; before: the picture drawn there now, under the
        same title bar, so that only what differs is drawn again."""
        if not before:  # (a Picture, or None)
            skill = SKILLS.index(self.skill)
            cols(canvas, _ICONS + 8 * skill, 8, 1, 0, 1, 0)
            cols(canvas, _MARKS + 16 * skill, 16, _MARK_X, 0, 1, 0)
            canvas.text(self.title[:10], 11, 0, 0)
        else:
            canvas.fill_rect(0, _STAGE_Y, _W, 64 - _STAGE_Y, 0)
        deck(canvas, self.counts, before and before.counts)
        self.draw_stage(canvas)
        y = 64 - 8 * len(self.foot)  # the last foot line at y 56
        for line in self.foot:
            canvas.text(line[:COLS], 0, y)
            y += 8


class DeckPicture(Picture):
    """The active screen: the chance in large digits (chance: a short text such as "97.1%",
    of _BIG's characters), up to 2 side texts of up to 6 characters right of the digits, and
    up to 2 foot lines (the risks, then the tally)."""
    kind = "deck"

    def __init__(self, skill, title, counts, chance, side, foot):
        Picture.__init__(self, skill, title, counts, foot)
        self.chance = chance
        self.side = side

    def draw_stage(self, canvas):
        canvas.text("Chance", 0, 24)
        x = 0
        for ch in self.chance:       # the large digits, 12 px apart (the point 6)
            at = 5 * _BIG.find(ch)  # (-5: not one of them, skipped)
            if ch == ".":
                cols(canvas, at + 1, 2, x, 33, 2, 1)
                x += 6
            elif at >= 0:
                cols(canvas, at, 5, x, 33, 2, 1)
                x += 12
        y = 32
        for text in self.side[:2]:
            narrow(canvas, text[:6], 66, y)
            y += 8


class CardPicture(Picture):
    """A drawn card, large, with its colour's name; label: what it did ("Success 1 of 3"),
    up to 14 characters; words: up to 2 lines of up to 14 characters (the action's own
    words) beside the card; one foot line."""
    kind = "card"

    def __init__(self, skill, title, counts, colour, label, words, foot):
        Picture.__init__(self, skill, title, counts, foot)
        self.colour = colour
        self.label = label
        self.words = words

    def draw_stage(self, canvas):
        c = COLOURS.index(self.colour)
        card(canvas, c, 0, 24, _CARD_W, 32)
        canvas.fill_rect(4, 33, 14, 14, 0)   # the colour's letter on a dark window
        canvas.rect(4, 33, 14, 14, 1)
        canvas.text(_LETTERS[c], 7, 36)
        narrow(canvas, self.colour.upper(), 26, 24)  # its name beside it
        narrow(canvas, self.label, 26, 32)
        y = 40
        for text in self.words[:2]:
            narrow(canvas, text, 26, y)
            y += 8


def cols(canvas, at, n, x, y, scale, c):
    """n columns of _GLYPHS from at, each lit bit a scale x scale square of colour c: a run
    of lit bits is one fill_rect."""
    for i in range(at, at + n):
        bits = _GLYPHS[i]
        top = y  # of the bit's square
        while bits:
            if bits & 1:
                run = 0  # px
                while bits & 1:
                    bits >>= 1
                    run += scale
                canvas.fill_rect(x, top, scale, run, c)
                top += run
            else:
                bits >>= 1
                top += scale
        x += scale


def card(canvas, colour, x, y, w, h):
    """A card with rounded corners, its face the colour's tile (colour 0-3, see _LINES); colour
    4 is an empty slot, a dotted outline."""
    if colour != 4:
        canvas.rect(x, y, w, h, 1)
        for cx in (x, x + w - 1):
            canvas.pixel(cx, y, 0)
            canvas.pixel(cx, y + h - 1, 0)
        x += 2  # the face, inside the outline
        y += 2
        w -= 4
        h -= 4
    tile, lines = _TILES[colour], _LINES[colour]
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
    if colour == 4:  # the slot's inside cleared: its dotted outline stays
        canvas.fill_rect(x + 1, y + 1, w - 2, h - 2, 0)


def narrow(canvas, text, x, y):
    """Up to 14 characters on a clear row: in one call when they fit 8 px apart, else 7 px
    apart, a call each (the 8x8 font leaves its last column blank for all but a few glyphs):
    98 px beside the card."""
    if x + 8 * len(text) <= _W:
        canvas.text(text, x, y)
        return
    text_at = canvas.text  # looked up once: a call on the driver goes through its class
    for ch in text[:14]:
        text_at(ch, x, y)
        x += 7


def deck(canvas, counts, before):
    """R20: the deck, a card symbol (or an empty slot), letter and count per colour. before:
    the counts drawn there now (None: nothing is), so only the cells that differ are drawn."""
    # a count of two digits reaches past the yellow and red cells (and only past them)
    if before and max(counts[1], counts[2], before[1], before[2]) > 9:
        canvas.fill_rect(0, 9, _W, 14, 0)  # into its neighbour's cell: the whole row again
        before = None
    for c in range(4):  # the symbols, then the counts over them (a count may reach the next)
        if before:
            if before[c] == counts[c]:
                continue
            canvas.fill_rect(_DECK_X[c], 9, _DECK_W[c], 14, 0)
        card(canvas, c if counts[c] else 4, _DECK_X[c], 9, 9, 14)
    for c in range(4):
        if not before or before[c] != counts[c]:
            canvas.text("%s%d" % (_LETTERS[c], min(counts[c], 99)), _DECK_X[c] + 9, 12)


def render(view, canvas, battery=None, last=None):
    """Draw view (lines[0] is the title); battery: percent 0-100, or None for no icon. last:
    the View the canvas shows now, drawn with the same battery (None: not known), so that
    only what differs is drawn again (the same pixels as drawn whole)."""
    picture = view.picture
    lines = view.lines
    drawn = ()  # a text view's lines on the canvas under the same title: only others drawn
    if last:
        before = last.picture
        if picture and before and before.skill == picture.skill \
                and before.title == picture.title:  # the same title bar: a card over the deck
            picture.draw(canvas, before)
            return
        if not (picture or before) and last.lines[:1] == lines[:1]:
            drawn = last.lines
    if not drawn:  # a new frame: the lit title bar, the picture or the title
        canvas.fill(0)
        canvas.fill_rect(0, 0, _W, 8, 1)
        if picture:
            picture.draw(canvas)
        elif lines and lines[0]:
            canvas.text(lines[0][:TITLE_COLS], 0, 0, 0)
    if not picture:
        for i in range(1, ROWS):
            line = lines[i] if i < len(lines) else ""
            if line != (drawn[i] if i < len(drawn) else ""):
                if drawn:
                    canvas.fill_rect(0, 8 * i, _W, 8, 0)
                canvas.text(line[:COLS], 0, 8 * i)
    if battery is not None and not drawn:
        canvas.rect(_BAT_X, 1, 12, 6, 0)
        canvas.vline(_BAT_X + 12, 3, 2, 0)
        w = min(10, max(0, (int(battery) + 5) // 10))  # 0-10 px of charge inside the outline
        if w:
            canvas.fill_rect(_BAT_X + 1, 2, w, 4, 0)
