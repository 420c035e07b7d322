"""The pictures in docs/ are the firmware's own screens as they are now: the README's screen
pictures (tools/screenshots.py -> docs/screens/) and the quick-start cards (tools/cards.py ->
docs/quickstart-*.png). Both scripts run (into a temporary folder) and what they make equals,
pixel for pixel, the committed files; when a screen changes, run the two scripts again."""
import os
import sys

from PIL import Image, ImageChops

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import cards  # noqa: E402
import screenshots  # noqa: E402


def same(made, path):
    """made (a PIL image or a PNG path) has the pixels of the PNG at path."""
    if isinstance(made, str):
        made = Image.open(made)
    with Image.open(path) as committed:
        if committed.size != made.size:
            return False
        diff = ImageChops.difference(committed.convert("RGB"), made.convert("RGB"))
        return diff.getbbox() is None


def test_the_pictures_in_docs_are_made_from_the_current_screens(tmp_path):
    shots = screenshots.write(str(tmp_path / "screens"))
    stale = [name for name in sorted(shots)
             if not same(str(tmp_path / "screens" / (name + ".png")),
                         os.path.join(ROOT, "docs", "screens", name + ".png"))]
    assert not stale, "run tools/screenshots.py: docs/screens/ differs for %s" % stale
    pages = cards.build(shots)
    assert sorted(pages) == ["quickstart-players.png", "quickstart-referees.png"]
    for name, page in pages.items():
        assert page.width < page.height          # a portrait page
        assert same(page, os.path.join(ROOT, "docs", name)), "run tools/cards.py: %s" % name


def test_each_card_shows_the_screens_it_names():
    # A page is made of the screens it is given: a different screen, a different page.
    blank = {name: [[0] * 1024, None] for name in (
        "active", "card", "success", "confirm", "referee", "finishing", "setup", "options",
        "lock", "refmenu", "adjust", "summary")}
    lit = dict(blank, active=[[255] * 1024, "green"])
    before, after = cards.build(blank), cards.build(lit)
    diff = ImageChops.difference(before["quickstart-players.png"], after["quickstart-players.png"])
    assert diff.getbbox() is not None
    name = "quickstart-referees.png"
    diff = ImageChops.difference(before[name], after[name])
    assert diff.getbbox() is None                # the referees' card has no active screen
