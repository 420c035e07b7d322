"""The device held in a test: a controller with default settings and chosen cards, keys
pressed by their initials, and a copy of a controller for the searches. Shared by the
controller, set-up, timed, end-screen, referee and bench-mode tests (CPython only; the VM
scripts use tools/vmlib)."""
import copy

from carddraw import config, playscreens, referee, screens
from carddraw.controller import Controller
from carddraw.deck import COLOURS
from pick import Pick  # tools/vmlib, shared with the screen tour

NAME = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
# every screen's name (view.screen), from the firmware's screen classes
SCREENS = {cls.name for module in (screens, playscreens, referee) for cls in vars(module).values()
           if isinstance(cls, type) and issubclass(cls, screens.Screen) and cls.name}


def dev(*colours, **settings):
    """A device with these settings whose draws come out as the given colours."""
    rng = Pick(*colours)
    c = Controller(settings=dict(config.defaults(), **settings), rng=rng, now_ms=0)
    rng.c = c
    return c


def keys(c, seq, t=0):
    """Press space-separated keys at time t: R H D S, or lR lH lD lS for long presses; after
    each, what waits for the flash settles, as the app does once it persisted (a code try)."""
    for tok in seq.split():
        (c.long if tok[0] == "l" else c.press)(NAME[tok[-1]], t)
        c.settle()
    return c.view()


def sit_out_the_finishing(c):
    """R23: on the finishing screen at 1 s, no key skips it; a countdown to 61 s, then the
    summary. -> the summary's view."""
    keys(c, "D S R H lD lR lH", t=2000)       # nothing skips the roleplay
    assert c.view().screen == "finishing"
    c.tick(31000)
    assert "   30 s left" in c.view().lines
    c.tick(60999)
    assert c.view().screen == "finishing"
    c.tick(61000)
    assert c.view().screen == "summary"
    return c.view()


class AnyPick(Pick):
    """Pick, but once its colours run out (or the one wanted is not in the deck), the first
    card the deck has: a random walk never runs dry."""

    def randrange(self, n):
        counts = self.c.action.deck.counts()
        if self.want and counts[COLOURS.index(self.want[0])]:
            return Pick.randrange(self, n)
        if self.want:
            self.want.pop(0)
        return sum(counts[:next(i for i in range(4) if counts[i])])


def clone(c, make_rng):
    """A copy of a controller sharing nothing with it (its screens and action point to the
    copy), its rng made by make_rng(copy)."""
    rng = c.rng
    c.rng = None
    try:
        n = copy.deepcopy(c)
    finally:
        c.rng = rng
    n.rng = make_rng(n)
    return n
