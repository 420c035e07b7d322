"""render.render of a view with a picture (render.DeckPicture, render.CardPicture): on the
recording canvas every picture fits and leaves the battery alone, and on a real framebuf in the
MicroPython VM each colour, skill and digit has its own pixels, what does not change between
draws stays in place, and a frame drawn over the last is the frame drawn whole."""
import json

import pytest

from carddraw import render
from carddraw.render import View
from renderkit import Canvas, boxes, check_frame


# -- Graphics: a view with a picture (render.DeckPicture, render.CardPicture) ----------------
# A picture as a spec: its kind and its fields, JSON-able, so the same pictures are made here
# and in the MicroPython VM (make(), MAKE).
def make(spec):
    spec = dict(spec)
    kind = spec.pop("kind")
    return (render.DeckPicture if kind == "deck" else render.CardPicture)(**spec)


MAKE = r'''
def make(spec):
    spec = dict(spec)
    kind = spec.pop("kind")
    return (render.DeckPicture if kind == "deck" else render.CardPicture)(**spec)
'''


def art_view(art, screen="active", lines=("Title",)):
    return View(screen, list(lines), picture=art and make(art))


def deck_art(skill="surgery", counts=(5, 2, 1, 0), chance="97.1%", side=("Red 29%", "Blk 2%"),
             foot=("Won 0/1 Reds 0", "D:draw  S:stop"), title="Surgery"):
    return {"kind": "deck", "skill": skill, "title": title, "counts": list(counts),
            "chance": chance, "side": list(side), "foot": list(foot)}


def card_art(colour="green", skill="surgery", counts=(5, 2, 1, 0), label="Success 1 of 3",
             words=("a clean stitch", "holds"), foot=("DRAW: go on",), title="Surgery"):
    return {"kind": "card", "skill": skill, "title": title, "counts": list(counts),
            "colour": colour, "label": label, "words": list(words), "foot": list(foot)}


ARTS = [deck_art(skill, counts, chance, side, foot, title)
        for skill in render.SKILLS
        for counts, chance, side, foot, title in (
            ((5, 2, 1, 0), "97.1%", ("Red 29%", "Blk 2%"), ("Succ 0/1", "D:draw"), "Surgery"),
            ((38, 3, 3, 12), ">99.9%", ("x" * 20,) * 5, ("y" * 30,) * 2, "A long title here"),
            ((0, 0, 0, 0), "<0.1%", (), (), ""),
            ((2, 2, 1, 0), "100%?abc", ("a",), ("b",), "Scan"))]
ARTS += [card_art(colour, skill, label=label, words=words, foot=foot)
         for skill in render.SKILLS for colour in render.COLOURS
         for label, words, foot in (("Success 1 of 3", ("a clean stitch", "holds"), ("DRAW: go on",)),
                                    ("Complication 12 more text", ("w" * 30,) * 2, ("f" * 30,)),
                                    ("", (), ()))]


@pytest.mark.parametrize("battery", [None, 0, 57, 100])
def test_every_picture_fits_and_leaves_the_battery_alone(battery):
    for art in ARTS:
        check_frame(art_view(art), battery)
        canvas = Canvas()
        render.render(art_view(art), canvas, None)
        for b in boxes(canvas.calls[2:]):                 # after the fill and the lit bar
            assert not (b[2] < 8 and b[3] > render._BAT_X - 1), (b, art)


def test_a_picture_is_its_fields_and_equal_to_one_with_the_same():
    for art in ARTS:
        p = make(art)
        assert json.loads(json.dumps(dict(p.__dict__, kind=p.kind))) == art and p == make(art)
    assert make(deck_art()) != make(deck_art(chance="97.2%"))
    assert make(card_art()) != make(card_art(label="Success 2 of 3"))
    assert make(deck_art()) != make(card_art())


def test_a_view_without_a_picture_is_drawn_as_text():
    plain, none = Canvas(), Canvas()
    render.render(View("active", ["Surgery", "G 5 Y 2"]), plain, 50)
    render.render(art_view(None, lines=["Surgery", "G 5 Y 2"]), none, 50)
    assert plain.calls == none.calls
    assert ("text", "G 5 Y 2", 0, 8, 1) in plain.calls


def test_an_unknown_card_colour_is_refused():
    with pytest.raises(ValueError):
        render.render(art_view(card_art("purple")), Canvas())


# Pixels: the same pictures on a real framebuf in the MicroPython VM.
PIXELS = MAKE + r'''
out = []
for art in ARTS:
    buf = bytearray(1024)
    render.render(render.View("x", ["x"], picture=make(art)), framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB), 57)
    out.append(list(buf))
RESULT = out
'''


def render_in_vm(vm, arts):
    """Render each art in the VM; return (buffer, pixel(x, y)) pairs."""
    bufs = vm("import framebuf, json\nfrom carddraw import render\nARTS = json.loads(%r)\n"
              % json.dumps(arts) + PIXELS)
    return [(b, lambda x, y, b=b: b[(y >> 3) * 128 + x] >> (y & 7) & 1) for b in bufs]


def region(px, x0, y0, x1, y1):
    return tuple(px(x, y) for y in range(y0, y1) for x in range(x0, x1))


def changed_columns(a, b, page):
    return [x for x in range(128) if a[page * 128 + x] != b[page * 128 + x]]


def test_each_colour_has_its_own_pattern_and_an_empty_colour_an_empty_slot(vm):
    (full, px), (some, qx) = render_in_vm(vm, [deck_art(counts=(3, 3, 3, 3)),
                                           deck_art(counts=(3, 0, 1, 0))])
    faces = [region(px, x + 2, 11, x + 7, 21) for x in render._DECK_X]
    assert all(any(f) for f in faces)
    assert len(set(faces)) == 4                       # four different patterns
    assert region(qx, 39, 11, 44, 21) == (0,) * 50    # no yellow: an empty slot
    assert region(qx, 97, 11, 102, 21) == (0,) * 50   # no black
    assert region(qx, 2, 11, 7, 21) == faces[0] and region(qx, 68, 11, 73, 21) == faces[2]
    # the big card's face wears the same pattern as its deck symbol, one picture per colour
    cards = render_in_vm(vm, [card_art(c) for c in render.COLOURS])
    big = [region(p, 2, 26, 20, 36) for _, p in cards]
    assert len(set(big)) == 4 and all(any(f) for f in big)


def test_each_skill_has_its_own_title_bar(vm):
    arts = [deck_art(skill=s, title="Title") for s in render.SKILLS]
    bars = [region(p, 0, 0, render._BAT_X - 2, 8) for _, p in render_in_vm(vm, arts)]
    assert len(set(bars)) == 3


def test_large_digits_are_distinct_and_2x_the_small_font(vm):
    shots = render_in_vm(vm, [deck_art(chance=ch) for ch in render._BIG])
    glyphs = [region(p, 0, 33, 12, 47) for _, p in shots]
    assert len(set(glyphs)) == len(render._BIG) and all(any(g) for g in glyphs)
    for _, p in shots:
        assert not any(region(p, 0, 47, 60, 48))               # 14 px tall: nothing below
        for y in range(33, 47, 2):                             # 2x2 blocks: each row twice
            assert region(p, 0, y, 12, y + 1) == region(p, 0, y + 1, 12, y + 2)


def test_what_does_not_change_between_draws_stays_in_place(vm):
    active, card, more_yellow, other_chance = [b for b, _ in render_in_vm(vm, [
        deck_art(), card_art(), deck_art(counts=(5, 3, 1, 0)), deck_art(chance="97.4%")])]
    # a draw: the title bar and the deck are the same pixels, only the stage changes
    for page in (0, 1, 2):
        assert changed_columns(active, card, page) == []
    # a yellow more: only the yellow cell's columns change
    cols = [x for p in range(8) for x in changed_columns(active, more_yellow, p)]
    assert cols and render._DECK_X[1] <= min(cols) and max(cols) < render._DECK_X[2]
    # the chance 97.1% -> 97.4%: only the last digit's columns
    cols = [x for p in range(8) for x in changed_columns(active, other_chance, p)]
    assert cols and min(cols) >= 30 and max(cols) < 40      # "97." is 30 px wide


def test_each_tiles_lines_are_the_tiles():
    """render._LINES, written out: the lines each tile is drawn with."""
    assert len(render._LINES) == len(render._TILES)
    for tile, lines in zip(render._TILES, render._LINES):
        rows = [tile >> (4 * r) & 15 for r in range(4)]
        others = {m for m in rows if m != 15}
        assert lines == (15 if not others else others.pop() if len(others) == 1 else -1)


# A frame drawn over the one before it (render's `last`: the view on the canvas, drawn with
# the same battery) must be the very pixels of the same frame drawn whole: the app draws each
# frame over the last, and a stale pixel would stay on screen. A random walk over pictures,
# counts of one and two digits (a two-digit yellow or red reaches into its neighbour's cell),
# batteries, titles and text views (of any number of lines, some empty, some too long: only
# the lines that differ are drawn again).
OVER = MAKE + r'''
import random
random.seed(SEED)
buf = bytearray(1024)
canvas = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
fresh = bytearray(1024)
whole = framebuf.FrameBuffer(fresh, 128, 64, framebuf.MONO_VLSB)
last = None
battery_was = None
out = {"steps": 0, "differ": [], "kept": 0, "lines": 0}
art = ARTS[0]
for step in range(300):
    r = random.randrange(10)
    if r < 5:   # text views: a title of two, lines of a few words that change, short or long
        view = render.View("x", [random.choice(("Set-up", "Options"))] + [
            random.choice(("", "Ranks %d" % random.randrange(12), "Team  +3 green",
                           "a line of sixteen chars+")) for _ in range(random.randrange(9))])
    else:
        if r == 5:  # now and then another picture
            art = dict(ARTS[random.randrange(len(ARTS))])
        counts = list(art["counts"])
        c = random.randrange(4)   # a draw, an adjustment: one count moves
        counts[c] = max(0, min(120, counts[c] + random.choice((-11, -1, -1, 1, 1, 10))))
        art["counts"] = counts
        view = render.View("x", ["x"], picture=make(art))
    battery = random.choice((50, 50, 50, 60, None))
    over = last if battery == battery_was else None
    out["kept"] += over is not None and view.picture is not None and over.picture is not None \
        and (over.picture.skill, over.picture.title) == (view.picture.skill, view.picture.title)
    out["lines"] += over is not None and view.picture is None and over.picture is None \
        and over.lines[:1] == view.lines[:1]
    render.render(view, canvas, battery, over)
    last = view
    battery_was = battery
    render.render(view, whole, battery)
    out["steps"] += 1
    if buf != fresh:
        out["differ"].append(step)
RESULT = out
'''


def test_a_frame_drawn_over_the_last_is_the_frame_drawn_whole(vm):
    arts = ARTS + [deck_art(counts=(12, 10, 11, 3)), card_art(counts=(9, 12, 10, 10))]
    for seed in (1, 2):
        r = vm("import framebuf, json\nfrom carddraw import render\nSEED = %d\nARTS = json.loads(%r)\n"
               % (seed, json.dumps(arts)) + OVER)
        assert r["steps"] == 300
        assert r["differ"] == []
        assert r["kept"] > 20             # many pictures were drawn over the last one
        assert r["lines"] > 10            # text views too, their changed lines only
