# The controller fuzz in the Python that native MicroPython and CPython share (run under
# native MicroPython by tools/native/fuzz.py, `make fuzz RUNTIME=native`, on the .mpy files).
# Random set-ups and random events (presses, long presses, clock ticks, the referee's code,
# power cuts), from the device's own generator with a fixed seed, and after every event the
# invariants test_controller.py's CPython fuzz checks: no exception, every view fits the
# screen, log records are JSON and never an error, the settings version changes exactly when
# the settings change, a power cut (the log's last action played again, as at a boot) comes
# back to the same action, card, undo and screen, the deck never goes below zero, a card on
# show is the pending card.
import json

from carddraw import config, saved
from carddraw.controller import Controller
from carddraw.rng import Rng

NAME = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
TRANSIENT = ("options", "task", "confirm", "lock", "refmenu", "adjust", "newcode", "message")
BUTTONS = ("RANK", "HELP", "DRAW", "STOP")


def setup(r):
    return {"skill": config.SKILLS[r.randrange(len(config.SKILLS))], "ranks": r.randrange(10),
            "helpers": r.randrange(10), "black": r.randrange(3), "yellow": r.randrange(10),
            "needed": 1 + r.randrange(4), "auto": r.randrange(4), "redraws": r.randrange(3),
            "referee": r.randrange(2) == 1, "timed": r.randrange(2) == 1,
            "interval": (30, 45)[r.randrange(2)]}


class Kept(Controller):
    """A controller that keeps every record it makes, as the store's log would."""

    def __init__(self, settings, rng, now_ms=0, replay=None):
        self.log = []
        Controller.__init__(self, settings, rng, now_ms, replay)

    def record(self, event, **fields):
        Controller.record(self, event, **fields)
        self.log.append(self._records.items[-1])  # the record just queued for the app


def since_start(log):
    """The records of the log's last action, from its start, as JSON (None: no action)."""
    start = None
    for i in range(len(log)):
        if log[i]["ev"] == "start":
            start = i
    return None if start is None else json.loads(json.dumps(log[start:]))


def play_state(c):
    """What a power cut must keep of the action in play, as JSON (None at set-up)."""
    p = c.play
    return p and json.loads(json.dumps({
        "screen": p.home(), "action": saved.to_dict(p.action), "undo": p.undo,
        "card": p.card, "applied": p.applied, "ended": p.ended}))


def check_view(v):
    if not 1 <= len(v.lines) <= 8:
        return "%d lines on screen %s" % (len(v.lines), v.screen)
    if len(v.lines[0]) > 14:
        return "title too long: %r" % v.lines[0]
    for x in v.lines:
        if len(x) > 16:
            return "line too long: %r" % x
    return None


class Fuzz:
    def __init__(self, seed):
        self.r = Rng(seed)
        self.events = 0
        self.examples = 0
        self.draws = 0
        self.cuts = 0
        self.screens = {}
        self.failures = 0
        self.first = None

    def fail(self, why, history):
        self.failures += 1
        if self.first is None:
            self.first = "%s after %s" % (why, history[-12:])

    def example(self, n):
        """One example: a fresh controller on a random set-up, then n random events."""
        r = self.r
        self.examples += 1
        c = Kept(setup(r), Rng(r.randrange(0x3FFFFFFF)))
        t = 0
        history = []
        sv, sd = c.settings_version, dict(c.settings)
        for _ in range(n):
            k = r.randrange(20)
            before = c.action.draws if c.action is not None else 0
            started = c.action
            try:
                if k < 10:
                    ev = ("press", BUTTONS[k % 4])
                    c.press(ev[1], t)
                elif k < 13:
                    ev = ("long", BUTTONS[k % 4])
                    c.long(ev[1], t)
                elif k < 18:
                    ev = ("tick", r.randrange(70001))
                    t += ev[1]
                    c.tick(t)
                elif k == 18:
                    ev = ("code",)
                    c.long("STOP", t)
                    for ch in "RHRH":  # the default code (settings keep only its hash)
                        c.press(NAME[ch], t)
                else:
                    ev = ("power cut",)
                    c, why = self.power_cut(c, t)
                    if why:
                        self.fail(why, history + [ev])
                    sv, sd = c.settings_version, dict(c.settings)
                history.append(ev)
                self.events += 1
                why = self.check(c, sv, sd)
            except Exception as e:  # noqa: BLE001 -- a crash is a failure to report
                why = "%s: %s" % (type(e).__name__, e)
            if why:
                self.fail(why, history)
                return
            sv, sd = c.settings_version, dict(c.settings)
            a = c.action
            if a is not None and (a is not started or a.draws > before):
                self.draws += a.draws - (before if a is started else 0)

    def power_cut(self, c, t):
        """The controller rebuilt as at a boot: the settings as saved, the log's last action
        played again from its records, with the hint."""
        self.cuts += 1
        state = play_state(c)
        screen = c.view().screen
        c2 = Kept(json.loads(json.dumps(c.settings)), c.rng, t, (since_start(c.log), c.hint()))
        c2.log = c.log + c2.log
        if play_state(c2) != state:
            return c2, "the action changed across a power cut"
        if screen not in TRANSIENT and c2.view().screen != screen:
            return c2, "a power cut on %s came back on %s" % (screen, c2.view().screen)
        return c2, None

    def check(self, c, sv, sd):
        v = c.view()
        self.screens[v.screen] = self.screens.get(v.screen, 0) + 1
        why = check_view(v)
        if why:
            return why
        for rec in c.take_log():
            if rec.get("ev") == "error":
                return "an error logged: %r" % rec
            json.dumps(rec)
        if c.settings != sd and c.settings_version == sv:  # (a code try counted, then a
            return "the settings version does not follow the settings"  # right code: moved)
        a = c.action
        if a is not None:
            if min(a.deck.counts()) < 0:
                return "a count below zero: %r" % (a.deck.counts(),)
            if v.screen == "card" and c.play.card is None:
                return "the card screen with no card"
            if a.pending is not None and (c.play.card != a.pending or c.play.applied):
                return "the card on show is not the pending card"
        return None


def run(events, seed=1, per_example=80):
    f = Fuzz(seed)
    while f.events < events:
        f.example(min(per_example, events - f.events))
    screens = sorted(f.screens)
    return {"events": f.events, "examples": f.examples, "draws": f.draws, "power_cuts": f.cuts,
            "screens": screens, "failures": f.failures, "first_failure": f.first, "seed": seed}
