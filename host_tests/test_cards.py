"""The quick-start cards (tools/cards.py -> docs/quickstart-*.png) are made of the screens they
are given. That the committed cards and screens are what the firmware draws now is
test_pictures.py's (`make docs` makes them again)."""
import os
import sys

from PIL import ImageChops

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import cards  # noqa: E402


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
