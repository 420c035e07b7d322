# Draws a controller View onto any framebuf-like canvas: only fill, text, fill_rect, rect,
# hline, vline and pixel are used, so a framebuf.FrameBuffer, the SSD1306 driver or a test's
# recorder all work. Pure: no I/O.
#
# A view with `art` (the active and card screens) is drawn as graphics by
# pictures.py; any other view as text, 16 columns x 8 rows of the 8x8 font. Both share the
# title bar (row 0: lit, the title dark in it, the battery icon at its right end).
#
# pictures.py is imported at the first view with art, not with this module: on the board a
# module's bytecode sits in the heap (pictures.mpy costs some 2 KB there), and the screens
# shown at boot (set-up, or a resumed action's) need it only when an action is on.
from carddraw.config import COLS, ROWS, TITLE_COLS

W = 128
TITLE = TITLE_COLS  # title characters in a text view: 14 x 8 = 112 px, clear of the battery
BAT_X = 114       # battery icon: a 12x6 outline at x 114-125, y 1-6, and a nub at x 126


def render(view, canvas, battery=None):
    """Draw view (lines[0] is the title); battery: percent 0-100, or None for no icon."""
    canvas.fill(0)
    canvas.fill_rect(0, 0, W, 8, 1)
    art = view.art
    if art:
        from carddraw import pictures
        pictures.draw(canvas, art)
    else:
        lines = view.lines
        for i in range(min(len(lines), ROWS)):
            if lines[i]:
                canvas.text(lines[i][:TITLE if i == 0 else COLS], 0, 8 * i, 1 if i else 0)
    if battery is not None:
        p = min(100, max(0, int(battery)))
        canvas.rect(BAT_X, 1, 12, 6, 0)
        canvas.vline(BAT_X + 12, 3, 2, 0)
        w = (p + 5) // 10  # 0-10 px of charge inside the outline
        if w:
            canvas.fill_rect(BAT_X + 1, 2, w, 4, 0)
