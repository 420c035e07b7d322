"""The referee lock's breadth-first search: every state a player reaches from a fresh action
with presses, long presses, clock jumps and power cuts, on copies of the controller, and what
must never happen on the way without the code. test_controller_fuzz.py runs it without the
code (R14, R19), test_lock_search.py with it."""
from collections import deque

from carddraw import config, lockcode, saved
from carddraw.controller import IDLE_MS
from carddraw.screens import MSG_MS
from carddraw.deck import COLOURS
import handheld

BUTTONS = config.BUTTONS
KEY = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
END_STATES = ("succeeded", "stopped", "failed")


class Chooser:
    """The BFS's rng: a draw takes the first card of the colour the search chose (R9 order),
    so every colour in the deck is a branch of its own."""

    def __init__(self, c):
        self.c = c
        self.want = None

    def randrange(self, n):
        counts = self.c.action.deck.counts()
        assert self.want is not None and sum(counts) == n, "an unplanned draw"
        i = COLOURS.index(self.want)
        assert counts[i] > 0
        return sum(counts[:i])


def clone(c):
    """A copy of a controller sharing nothing an event changes, drawing with a Chooser."""
    return handheld.clone(c, Chooser)


def clip(x, low, high):
    return max(low, min(high, x))


def freeze(d):
    """A flat dict of JSON values (lists inside) as a hashable tuple, in key order."""
    if d is None:
        return None
    return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in sorted(d.items()))


def state_key(c):
    """Everything that decides what a controller does next, each part only where it can:
    the lock's entered presses and where it returns to only on the lock (they are reset on
    the way in), the cursor only on menus (reset on the way in), the message and its age
    only on it, the idle time only on the referee screens (every press sets it, and the lock
    is entered by one), the timed draw only in timed mode (set at start, fixed while an
    action runs) and its warning (it goes on across screens), the
    finishing countdown only on its screen (set on the way in). Times are relative to now,
    clipped at the thresholds that matter."""
    s = c.screen
    shown = c.shown
    m = shown if s == "message" else None
    locked = shown.locked
    referee_screen = m.back if m is not None and locked else shown
    p = c.play
    return (s, p and (freeze(saved.to_dict(p.action)), freeze(p.undo), p.card, p.applied,
                      p.ended),
            freeze(c.settings),
            shown.code if s in ("lock", "newcode") else None,
            referee_screen.back.name if locked else None,
            shown.cur if s in ("success", "options", "refmenu", "adjust") else None,
            shown.editing if s in ("options", "adjust") else None,
            c.chained, p.warn if p else 0, m and (m.title, tuple(m.text), m.back.name),
            clip(c.now - m.since, 0, MSG_MS) if m else None,
            clip(p.due - c.now, -1, 61000) if c.settings["timed"] and p else None,
            clip(c.now - c.idle, 0, IDLE_MS + 1) if locked else None,
            clip(p.fin_end - c.now, -1, 60001) if s == "finishing" else None,
            clip(lock_until(c) - c.now, -1, lockcode.MAX_WAIT_MS + 1),
            freeze(shown.before) if s == "options" else None)


JUMPS_BFS = (5000, 31000, 61000)
EVENTS_BFS = ([("press", b) for b in BUTTONS] + [("long", b) for b in BUTTONS]
              + [("tick", ms) for ms in JUMPS_BFS] + [("power", None)])
REFEREE_ONLY = ("referee", "adjust", "undo", "helper_leaves")


def may_draw(c, kind, arg):
    a = c.action
    if a is None or a.state != "active":
        return False
    if kind == "tick":  # R21: the timed draw, on any screen but those the code opens
        return c.settings["timed"] and a.pending is None and not c.shown.held
    if kind == "power":  # R21: a warning a power cut broke draws at the boot's first tick
        return c.settings["timed"] and "w" in c.hint()
    return kind == "press" and (
        (c.screen == "active" and arg == "DRAW" and a.pending is None)
        or (c.screen == "card" and arg == "HELP" and a.pending is not None))


def deck_at_boot(c):
    """The deck the first tick after a power cut in the timed warning draws from: a card on
    show accepted first (R15, R21). () when that ended the action."""
    n = handheld.reboot(clone(c))
    if n.play.card:
        n.play.take_card()
    return n.action.deck.counts() if n.action.state == "active" else ()


def lock_until(c):
    """When the lockout after wrong codes ends (a lockout due at boot runs from the boot);
    just gone when there is none."""
    return c.lockout.until.get("lock", c.now - 1)


def waiting(c):
    return bool(lockcode.wait_for(c.settings["lock_fails"])) and lock_until(c) > c.now


def forms_code(c, kind, arg):
    """The press that would complete the referee code on the lock screen: never made -- but
    during a lockout, when the code must be refused unchecked, the search makes it too."""
    return (c.screen == "lock" and kind == "press" and not waiting(c)
            and len(c.shown.code) + 1 == c.lockout.presses()
            and lockcode.matches(c.settings["lock"], c.shown.code + arg[0]))


def step(c, kind, arg, colour):
    """One event on a copy of c -> (the new controller, its log)."""
    n = clone(c)
    n.rng.want = colour
    if kind == "press":
        n.press(arg, n.now)
    elif kind == "long":
        n.long(arg, n.now)
    elif kind == "tick":
        n.now += arg
    else:  # a power cut: the log's last action played again on the settings as saved
        n = handheld.reboot(n)
        n.rng = Chooser(n)
        n.rng.want = colour
        n.booted = handheld.play_state(n)  # before its first tick (which may draw, R21)
    n.tick(n.now)                 # the app ticks after every event
    return n, n.take_log()


def violations(before, after, kind, log):
    """What a player without the code must never manage, on one event."""
    bad = []
    evs = [r["ev"] for r in log]
    if after.screen in ("refmenu", "adjust", "newcode"):
        bad.append("referee screen " + after.screen)
    for r in log:
        if r["ev"] in REFEREE_ONLY or (r["ev"] == "settings" and "lock" in r):
            bad.append("referee function %s" % r)
        if r["ev"] == "error":
            bad.append("error %s" % r)
    if after.settings["lock"] != before.settings["lock"]:
        bad.append("lock code changed")
    if after.screen == "refmenu" and before.screen == "lock" and waiting(before):
        bad.append("code taken during the lockout")
    fails = after.settings["lock_fails"] - before.settings["lock_fails"]
    if fails < 0 and after.screen != "refmenu":
        bad.append("wrong tries forgotten")                        # only the code resets them
    tries = [r["result"] for r in log if r["ev"] == "lock"]
    if fails > 0 and tries != (["wait"] if lockcode.wait_for(after.settings["lock_fails"])
                               else []):  # counted; a record only when a wait starts
        bad.append("wrong try's wait not logged")
    if (before.screen == "lock" and waiting(before) and kind == "press"
            and len(before.shown.code) + 1 == before.lockout.presses()
            and (tries or after.lockout.refused != before.lockout.refused + 1)):
        bad.append("refused try not counted")  # counted, never a record a try
    if any(set(r) - {"ev", "ms", "result", "kind", "fails", "refused", "wait_s"}
           for r in log if r["ev"] == "lock"):
        bad.append("a try logged with more than its counts")  # never the code
    a, b = before.action, after.action
    if kind == "power":
        if after.booted != handheld.play_state(before):
            bad.append("power cut lost the action")
        return bad
    if a is None:
        return bad
    if b is None or "start" in evs:   # the action was cleared or replaced ...
        if a.state not in END_STATES:  # ... only once it had ended, and that was logged
            bad.append("action %s dropped" % a.state)
        return bad
    if a.state == "referee" and b.state != "referee":
        bad.append("black passed without the referee")             # R14
    if a.state not in END_STATES and b.state in END_STATES and "end" not in evs:
        bad.append("ended without an end record")
    if b.draws < a.draws:
        bad.append("draw undone")
    if b.deck.counts() != a.deck.counts() and "accept" not in evs:
        bad.append("deck changed without a card")                  # R19 is the referee's
    if b.helpers != a.helpers:
        bad.append("helper left")
    return bad


def explore(settings, depth, cap, code_known=False):
    """Breadth-first over the states reachable from a fresh action, without the code (or,
    to show the search finds what it looks for, with it)."""
    root = handheld.Kept(settings=settings, rng=None, now_ms=0)  # keeps its log: power cuts
    root.rng = Chooser(root)
    root.press("DRAW", 0)
    root.take_log()
    assert root.screen == "active"
    seen = {state_key(root): None}
    frontier = deque([(root, 0, None)])
    found = []
    screens = set()
    edges = 0
    pruned = 0
    reached = 0
    while frontier:
        c, d, path = frontier.popleft()
        reached = max(reached, d)
        screens.add(c.screen)
        if d >= depth or (c.action is None and c.screen in ("setup", "options")):
            continue  # back at set-up the action is over (its end logged): a fresh start
        for kind, arg in EVENTS_BFS:
            if forms_code(c, kind, arg) and not code_known:
                pruned += 1
                continue
            colours = [None]
            if may_draw(c, kind, arg):
                counts = c.action.deck.counts() if kind != "power" else deck_at_boot(c)
                colours = [x for x, k in zip(COLOURS, counts) if k] or [None]
            for colour in colours:
                n, log = step(c, kind, arg, colour)
                edges += 1
                bad = violations(c, n, kind, log)
                here = (path, (kind, arg, colour))
                if bad:
                    found.append((bad, here))
                k = state_key(n)
                if k not in seen and len(seen) < cap:
                    seen[k] = here
                    frontier.append((n, d + 1, here))
    return {"states": len(seen), "edges": edges, "depth": reached, "pruned code presses": pruned,
            "capped": len(seen) >= cap, "screens": sorted(screens)}, found, seen


def unroll(path):
    out = []
    while path:
        path, ev = path
        out.append(ev)
    return out[::-1]


def replay(settings, path):
    """The controller at the end of a path, played from a fresh action without clone()."""
    c = handheld.Kept(settings=settings, rng=None, now_ms=0)
    c.rng = Chooser(c)
    c.press("DRAW", 0)
    for kind, arg, colour in path:
        c, _ = step(c, kind, arg, colour)
    return c
