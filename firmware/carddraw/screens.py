# Draws a controller View onto any framebuf-like canvas: only fill, text, fill_rect, rect and
# vline are used, so a framebuf.FrameBuffer, the SSD1306 driver or a test's recorder all work.
# Pure: no I/O. The 8x8 font gives 16 columns x 8 rows on the 128x64 OLED.
#
#   row 0     the title, dark on a lit bar; the battery icon sits at its right end
#   rows 1-7  the view's other lines
W = 128
TITLE = 14        # title characters: 14 x 8 = 112 px, clear of the battery icon
BAT_X = 114       # battery icon: a 12x6 outline at x 114-125, y 1-6, and a nub at x 126


def render(view, canvas, battery=None):
    """Draw view (lines[0] is the title); battery: percent 0-100, or None for no icon."""
    canvas.fill(0)
    canvas.fill_rect(0, 0, W, 8, 1)
    lines = view.lines
    n = len(lines)
    if n:
        canvas.text(lines[0][:TITLE], 0, 0, 0)
    for i in range(1, min(n, 8)):
        if lines[i]:
            canvas.text(lines[i][:16], 0, 8 * i, 1)
    if battery is not None:
        p = min(100, max(0, int(battery)))
        canvas.rect(BAT_X, 1, 12, 6, 0)
        canvas.vline(BAT_X + 12, 3, 2, 0)
        w = (p + 5) // 10  # 0-10 px of charge inside the outline
        if w:
            canvas.fill_rect(BAT_X + 1, 2, w, 4, 0)
