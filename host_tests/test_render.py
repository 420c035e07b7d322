"""render.render on a recording canvas: every screen of the controller fits the 128x64 OLED
and nothing touches the battery icon. Then the same tour inside the MicroPython VM, rendered
onto a real framebuf.FrameBuffer, must show exactly what CPython showed. (The pictures, the
deck and the card: test_render_pictures.py.)"""
import json
import os
import sys

import pytest

from carddraw import render
from carddraw.render import View
from handheld import SCREENS
from renderkit import Canvas, check_frame


def test_header_is_an_inverted_bar_with_the_title():
    canvas = Canvas()
    render.render(View("setup", ["Set-up", "Surgery"]), canvas)
    assert canvas.calls == [("fill", 0), ("fill_rect", 0, 0, 128, 8, 1),
                            ("text", "Set-up", 0, 0, 0), ("text", "Surgery", 0, 8, 1)]


def test_battery_icon_shows_the_charge_and_clips_bad_values():
    widths = []
    for pct in (-5, 0, 4, 5, 50, 95, 100, 180):
        canvas = Canvas()
        render.render(View("x", ["A very long title here"]), canvas, pct)
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


def test_no_rule_numbers_on_any_screen():
    """Rule numbers belong in code and tests; players read words."""
    import re
    views = cpython_tour(None)
    shown = [(v.screen, line) for v in views for line in v.lines
             if re.search(r"\bR[0-9]{1,2}\b", line)]
    assert shown == []
    assert {v.screen for v in views} == set(SCREENS)  # every screen was looked at


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
    p = v.picture
    out.append([v.screen, v.lines, v.led, v.blink, p and dict(p.__dict__, kind=p.kind)])
    lit.append(buf[0] == 0xFF and buf[127] == 0xFF and sum(buf[128:]) > 0)  # bar and body

c = tour(fb, snap, 57)
RESULT = {"views": out, "lit": lit, "log": c.take_log()}
'''
    got = vm(script, libs=[TOUR_LIB])
    want = json.loads(json.dumps([[v.screen, v.lines, v.led, v.blink,
                                   v.picture and dict(v.picture.__dict__, kind=v.picture.kind)]
                                  for v in cpython_tour(57)]))
    assert got["views"] == want
    assert all(got["lit"][1:])
