"""The render test files' canvas (test_render*.py): a framebuf stand-in that records every
drawing call, the pixel bounds of those calls, and check_frame, every rule of a frame."""
from carddraw import render


class Canvas:
    """A framebuf stand-in that records every drawing call (CPython has no framebuf)."""

    def __init__(self):
        self.calls = []

    def fill(self, c):
        self.calls = [("fill", c)]  # a fill starts a new frame

    def text(self, s, x, y, c=1):
        self.calls.append(("text", s, x, y, c))

    def fill_rect(self, x, y, w, h, c):
        self.calls.append(("fill_rect", x, y, w, h, c))

    def rect(self, x, y, w, h, c):
        self.calls.append(("rect", x, y, w, h, c))

    def hline(self, x, y, w, c):
        self.calls.append(("hline", x, y, w, c))

    def vline(self, x, y, h, c):
        self.calls.append(("vline", x, y, h, c))

    def pixel(self, x, y, c):
        self.calls.append(("pixel", x, y, c))

    def line(self, x0, y0, x1, y1, c):
        self.calls.append(("line", x0, y0, x1, y1, c))


def boxes(calls):
    """(kind, x0, y0, x1, y1) exclusive bounds of each call's pixels."""
    out = []
    for call in calls:
        k = call[0]
        if k == "text":
            _, s, x, y, _ = call
            out.append((k, x, y, x + 8 * len(s), y + 8))
        elif k in ("fill_rect", "rect"):
            _, x, y, w, h, _ = call
            out.append((k, x, y, x + w, y + h))
        elif k == "hline":
            out.append((k, call[1], call[2], call[1] + call[3], call[2] + 1))
        elif k == "vline":
            out.append((k, call[1], call[2], call[1] + 1, call[2] + call[3]))
        elif k == "pixel":
            out.append((k, call[1], call[2], call[1] + 1, call[2] + 1))
        elif k == "line":
            _, x0, y0, x1, y1, _ = call
            out.append((k, min(x0, x1), min(y0, y1), max(x0, x1) + 1, max(y0, y1) + 1))
    return out


def overlap(a, b):
    return a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]


def check_frame(view, battery):
    """Render view and check every rule of the frame; return the text calls."""
    canvas = Canvas()
    render.render(view, canvas, battery)
    calls = canvas.calls
    assert calls[0] == ("fill", 0)
    # framebuf's own calls only: the View is drawn on any framebuf-like canvas
    allowed = {"fill", "text", "fill_rect", "rect", "hline", "vline", "pixel"}
    assert {c[0] for c in calls} <= allowed
    texts = [b for b in boxes(calls) if b[0] == "text"]
    for k, x0, y0, x1, y1 in boxes(calls):
        assert 0 <= x0 and x1 <= 128 and 0 <= y0 and y1 <= 64, (k, x0, y0, x1, y1, view)
    if view.picture is None:     # a text view: the 16 x 8 grid
        rows = [b[2] for b in texts]
        assert len(rows) == len(set(rows)), "two texts on one row"
        for b in texts:
            assert b[2] % 8 == 0 and b[1] == 0
    if battery is not None:
        plain = Canvas()
        render.render(view, plain, None)
        icon = [b for b in boxes(calls[len(plain.calls):])]
        assert icon, "no battery icon drawn"
        assert calls[:len(plain.calls)] == plain.calls   # the icon only adds to the frame
        for b in icon:
            assert b[1] >= 113 and b[4] <= 8, b            # inside the header, at its right
            for t in texts:
                assert not overlap(b, t), (t, b, view)
    return [c for c in calls if c[0] == "text"]
