"""The read-aloud test: every label on every screen is made of words or numbers a player knows.

The tour (tools/vmlib/screen_tour.py) visits every screen the device has; every line of every
view, and every text of its picture, is split into tokens, and each token must be a number
(a count, a percent, a time), a count with its colour's initial as the deck shows it (5G),
the referee code's letters on the code screens, the action's own words (playscreens.WORDS, R24),
or a word of WORDS below: the one list of the words the screens use. A word added to a screen
that is not in it fails here: say it plainly, or add it to the list if a player knows it.
"""
import re
import sys

from carddraw import playscreens
from conftest import ROOT

sys.path.insert(0, ROOT + "/tools/vmlib")
import screen_tour  # noqa: E402

WORDS = set("""
a accept action add adjust again after all an and any at attempt auto back be before between ref
black blood brightness buttons buzzer cancel card cards catastrophe chain chance change check
checked choose clean clear code codes complication complications continue deck decides done
difficulty down draw draws empty end ended enter error export fail failed fails finish finishing first
flash for freeze frozen go green has heart help helper helpers here hold holds in interval is
it its keep key last least leaves left lock locked may minute minutes more need needed new next
no none not now of ok on one options or other outcome possible present presses rank reached
red redraw redraws reds referee result retry roleplay save set set-up short skill start stop
stopped stopping stops success successes summary task the this timed to today tries try undo
void wait was wins won wrong yellow yes every saved recovery scan repair surgery your
""".split())
UNITS = {"s", "min", "h"}
NUMBER = re.compile(r"^[<>+-]?\d+(?:[./]\d+)?%?$|^\d+s$")
DECK_COUNT = re.compile(r"^\d+[gyrb]$")
CODE = re.compile(r"^[rhds]+$")
CODE_SCREENS = ("lock", "newcode", "message")


def tokens(text):
    """The words and numbers of a line: split at spaces and punctuation, a word apart from
    the number stuck to it ("Black40%" is "black" and "40%"), the menu's marks dropped."""
    out = []
    for part in re.split(r"[\s:,!?()*]+", text.lower()):
        part = part.strip("<>.")
        if DECK_COUNT.match(part) or part in ("+", "-"):
            out.append(part)
        elif part:
            out += re.findall(r"[a-z-]+|[<>+-]?\d+(?:[./]\d+)?%?s?", part) or [part]
    return out


def said(view):
    """Every text the view puts on the screen: its lines, and its picture's texts."""
    out = list(view.lines)
    if view.picture is not None:
        d = view.picture.__dict__
        out += [d["title"]] + list(d["foot"])
        out += list(d.get("side", ())) + [d.get("label", "")] + list(d.get("words", ()))
    return out


def known(token, screen, own):
    return (token in WORDS or token in own or token in ("+", "-") or token in UNITS or NUMBER.match(token)
            or DECK_COUNT.match(token) or screen in CODE_SCREENS and CODE.match(token))


def test_every_word_on_every_screen_is_one_a_player_knows():
    views = []

    class Canvas:
        def __getattr__(self, name):
            return lambda *args: None
    screen_tour.tour(Canvas(), views.append, 57)
    own = set()
    for phrases in playscreens.WORDS:  # R24: the action's own words, the game's page's
        for phrase in phrases:
            own.update(tokens(phrase))
    unknown = {}
    for view in views:
        for line in said(view):
            for token in tokens(line):
                if not known(token, view.screen, own):
                    unknown.setdefault(token, (view.screen, line))
    assert unknown == {}
    assert len({v.screen for v in views}) >= 16    # the tour saw every screen


def test_the_words_the_old_screens_used_are_gone():
    """The labels a person could not read without the manual (issue 35's list)."""
    views = []

    class Canvas:
        def __getattr__(self, name):
            return lambda *args: None
    screen_tour.tour(Canvas(), views.append, 57)
    shown = " ".join(line for view in views for line in said(view)) + " "
    for old in ("!code", "S:task", "Redr ", "Comp ", "Risk r", "REF T", "D:", "S:", "H:",
                "R/H", "Succ "):
        assert old not in shown, old
