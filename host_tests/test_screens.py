"""screens.render on a recording canvas: every screen of the controller fits the 128x64 OLED
and nothing touches the battery icon. Then the same tour inside the MicroPython VM, rendered
onto a real framebuf.FrameBuffer, must show exactly what CPython showed."""
import json
import os
import sys

import pytest

from carddraw import screens
from carddraw.controller import SCREENS, View


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
    return out


def overlap(a, b):
    return a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]


def check_frame(view, battery):
    """Render view and check every rule of the frame; return the text calls."""
    canvas = Canvas()
    screens.render(view, canvas, battery)
    calls = canvas.calls
    assert calls[0] == ("fill", 0)
    allowed = {"fill", "text", "fill_rect", "rect", "hline", "vline", "pixel"}
    assert {c[0] for c in calls} <= allowed
    texts = [b for b in boxes(calls) if b[0] == "text"]
    for k, x0, y0, x1, y1 in boxes(calls):
        assert 0 <= x0 and x1 <= 128 and 0 <= y0 and y1 <= 64, (k, x0, y0, x1, y1, view)
    rows = [b[2] for b in texts]
    assert len(rows) == len(set(rows)), "two texts on one row"
    for b in texts:
        assert b[2] % 8 == 0 and b[1] == 0
    if battery is not None:
        plain = Canvas()
        screens.render(view, plain, None)
        icon = [b for b in boxes(calls[len(plain.calls):])]
        assert icon, "no battery icon drawn"
        assert calls[:len(plain.calls)] == plain.calls   # the icon only adds to the frame
        for b in icon:
            assert b[1] >= 113 and b[4] <= 8, b            # inside the header, at its right
            for t in texts:
                assert not overlap(b, t), (t, b, view)
    return [c for c in calls if c[0] == "text"]


def test_header_is_an_inverted_bar_with_the_title():
    canvas = Canvas()
    screens.render(View("setup", ["Set-up", "Surgery"]), canvas)
    assert canvas.calls == [("fill", 0), ("fill_rect", 0, 0, 128, 8, 1),
                            ("text", "Set-up", 0, 0, 0), ("text", "Surgery", 0, 8, 1)]


def test_battery_icon_shows_the_charge_and_clips_bad_values():
    widths = []
    for pct in (-5, 0, 4, 5, 50, 95, 100, 180):
        canvas = Canvas()
        screens.render(View("x", ["A very long title here"]), canvas, pct)
        assert ("text", "A very long ti", 0, 0, 0) in canvas.calls        # 14 characters
        fills = [c for c in canvas.calls if c[0] == "fill_rect" and c[1] == 115]
        widths.append(fills[0][3] if fills else 0)
        check_frame(View("x", ["A very long title here", "x" * 20]), pct)
    assert widths == [0, 0, 0, 1, 5, 10, 10, 10]


def test_long_lines_and_too_many_lines_are_cut():
    v = View("x", ["T"] + ["%d234567890123456789" % i for i in range(1, 12)])
    texts = check_frame(v, 80)
    assert len(texts) == 8 and all(len(t[1]) <= 16 for t in texts)


# The tour (tools/vmlib/screen_tour.py, also used by tools/screenshots.py) runs the same under
# CPython and MicroPython.
TOUR_LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "vmlib")
sys.path.insert(0, TOUR_LIB)
import screen_tour  # noqa: E402



def cpython_tour(battery):
    views = []
    canvas = Canvas()

    def snap(v):
        assert canvas.calls, "nothing rendered"
        views.append(v)

    screen_tour.tour(canvas, snap, battery)
    return views


@pytest.mark.parametrize("battery", [None, 0, 57, 100])
def test_every_screen_fits_and_clears_the_battery(battery):
    views = cpython_tour(battery)
    for v in views:
        check_frame(v, battery)
    assert {v.screen for v in views} == set(SCREENS)   # the tour reached every screen
    assert len(views) > 60


def test_tour_in_the_micropython_vm_renders_on_a_real_framebuffer(vm):
    script = r'''
from screen_tour import tour
import framebuf, gc
buf = bytearray(1024)
fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
out = []
lit = []

def snap(v):
    out.append([v.screen, v.lines, v.led, v.blink])
    lit.append(buf[0] == 0xFF and buf[127] == 0xFF and sum(buf[128:]) > 0)  # bar and body

c = tour(fb, snap, 57)
RESULT = {"views": out, "lit": lit, "log": c.take_log()}
'''
    got = vm(script, libs=[TOUR_LIB])
    want = [[v.screen, v.lines, v.led, v.blink] for v in cpython_tour(57)]
    assert got["views"] == want
    assert all(got["lit"][1:])
