"""The device held in a test: a controller with default settings and chosen cards that keeps
its log, keys pressed by their initials, a power cut and a boot as the app's (the log's last
action played again), what a power cut must keep, and a copy of a controller for the
searches. Shared by the controller, set-up, timed, end-screen, referee and bench-mode tests
(CPython only; the VM scripts use tools/vmlib)."""
import copy
import json

from carddraw import config, playscreens, referee, saved, screens
from carddraw.controller import Controller
from carddraw.deck import COLOURS
from pick import Pick  # tools/vmlib, shared with the screen tour

NAME = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
# every screen's name (view.screen), from the firmware's screen classes
SCREENS = {cls.name for module in (screens, playscreens, referee) for cls in vars(module).values()
           if isinstance(cls, type) and issubclass(cls, screens.Screen) and cls.name}


class Kept(Controller):
    """A controller that keeps every record it makes in .log, as the store's log would: the
    tests without a store cut its power with reboot()."""

    def __init__(self, *args, **kwargs):
        self.log = []
        Controller.__init__(self, *args, **kwargs)

    def record(self, event, **fields):
        Controller.record(self, event, **fields)
        self.log.append(self._records.items[-1])  # the record just queued for the app


def dev(*colours, **settings):
    """A device with these settings whose draws come out as the given colours."""
    rng = Pick(*colours)
    c = Kept(settings=dict(config.defaults(), **settings), rng=rng, now_ms=0)
    rng.c = c
    return c


def since_start(log):
    """The records of the log's last action, from its start (Store.open_action's), as JSON."""
    starts = [i for i, r in enumerate(log) if r["ev"] == "start"]
    return json.loads(json.dumps(log[starts[-1]:])) if starts else None


def reboot(c, now=None, rng=None):
    """A power cut and a boot, as the app's: a new Kept controller on the settings as saved
    (JSON), the log's last action played again from its records, with the hint (R14: no
    escape). c is a Kept (dev() makes one); the clock `now` (c's if None), the rng c's unless
    given (a Pick's .c still c)."""
    n = Kept(settings=json.loads(json.dumps(c.settings)), rng=c.rng if rng is None else rng,
             now_ms=c.now if now is None else now, replay=(since_start(c.log), c.hint()))
    n.log[:0] = c.log
    return n


def play_state(c):
    """What a power cut must keep of the action in play, as JSON (None at set-up): its
    screen, the action, the undo, the card on show and whether its result applied, and the
    phase after its end."""
    p = c.play
    return p and json.loads(json.dumps({
        "screen": p.home(), "action": saved.to_dict(p.action), "undo": p.undo,
        "card": p.card, "applied": p.applied, "ended": p.ended}))


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
