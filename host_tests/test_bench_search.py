"""Bench mode against a player without the code: a breadth-first search over protocol lines,
buttons, clock jumps and power cuts finds no way to a referee power (R14, R19), a chosen or
early-seen card, the code, or a lost log record; and a random walk on the whole app loses no
record."""
import copy
import json
import random
import types
from collections import deque

import pytest

from carddraw import config, lockcode, protocol
from carddraw.deck import COLOURS
from carddraw.store import Store
from fakeflash import FakeFlash
from handheld import Kept, play_state, reboot
from benchkit import BENCH_MS, Bench, Board, REFUSED, logchain  # logchain: tools/common's, as benchkit finds it
from storelog import read_log



# -- the search: protocol lines and buttons, without the code ------------------------------------
class Chooser:
    """The search's rng: a draw takes the first card of the colour the search chose, so every
    colour in the deck is a branch; seed() is there so that a seed that got through shows."""

    def __init__(self, c):
        self.c = c
        self.want = None
        self.seeded = None

    def randrange(self, n):
        if self.c.action is None:    # `test draws` on the set-up screen (with the code only)
            return 0
        counts = self.c.action.deck.counts()
        assert self.want is not None and sum(counts) == n, "an unplanned draw"
        return sum(counts[:COLOURS.index(self.want)])

    def seed(self, n):
        self.seeded = n


def one_record_store():
    """A store on the fake flash holding one record: `log ack 1 HASH` names it exactly."""
    store = Store(fs=FakeFlash())
    store.log({"ev": "start", "ms": 0})
    out = []
    read_log(store, out.append, raw=True)
    return store, logchain.split(out[0])[1]


STORE, FIRST_HASH = one_record_store()


class Shell:
    """What protocol.Console needs of App, on the fake board; the store is one shared record
    (only `log ack`, gated, would touch it). Replies are kept as the dicts they were (the
    text of an error as {"error": text}, as Console.reply sends it)."""
    store = STORE

    def __init__(self, controller):
        self.controller = controller
        self.board = Board()
        self.usb = []
        self.face = types.SimpleNamespace(drawn=None)
        self.console = protocol.Console(self, None, None, print)
        self.replies = []
        self.console.reply = self.reply

    def reply(self, out):
        self.replies.append({"error": out} if isinstance(out, str) else out)

    def persist(self):  # the shell's records are the controller's log: nothing to write
        return True

    def wake(self, now):
        pass

    def usb_interrupt(self, on):
        self.usb.append(on)
        return True


BUTTON_EVENTS = ([("press", n) for n in config.BUTTONS] + [("long", n) for n in config.BUTTONS])
TICKS = [("tick", 31000), ("tick", BENCH_MS)]
WRONG_CODES = ("RHRH", "SSSS", "RHRHRH")       # the default a player would try first, and others
SEARCH_LINES = (["seed 7", "test draws 3", "test led black", "test led green",
                 "log ack 1 " + FIRST_HASH, "maint", "lock", "test display", "test end", "show"]
                + ["unlock " + code for code in WRONG_CODES])
GATE_OK = {"seed": "seed", "test draws": "draws", "test led": "led", "log ack": "ack",
           "maint": "maint"}
REFEREE_ONLY = ("referee", "adjust", "undo", "helper_leaves")
END_STATES = ("stopped", "failed", "succeeded")


def fresh(settings, start):
    c = Kept(settings=settings, rng=None, now_ms=0)  # keeps its log: power cuts
    c.rng = Chooser(c)
    if start:
        c.rng.want = None
        c.press("DRAW", 0)
    c.take_log()
    return Shell(c)


def clone(s):
    """A copy of the shell and its controller sharing nothing that an event changes in place
    (an unlock's job and the try it waits for are copied together)."""
    c = s.controller
    rng, c.rng = c.rng, None
    try:
        n, job = copy.deepcopy((c, s.console.job))
    finally:
        c.rng = rng
    n.rng = Chooser(n)
    n.rng.seeded = rng.seeded
    t = Shell(n)
    con, was = t.console, s.console
    con.bench, con.maint, con.test, con.job, t.usb = was.bench, was.maint, was.test, job, \
        list(s.usb)
    return t


def forms_code(c, kind, arg):
    return (c.screen == "lock" and kind == "press"
            and lockcode.matches(c.settings["lock"], c.shown.code + arg[0]))


def event(s, kind, arg, colour):
    """One event on a copy of s -> (the new shell, the controller's records, the replies)."""
    n = clone(s)
    c = n.controller
    c.rng.want = colour
    con = n.console
    if con.job is not None and kind != "power":  # the pass after an unlock: the try judged,
        job, con.job = con.job, None             # counted on flash since the pass before
        n.reply(job.step(con, c.now))            # (a power cut first: never judged)
    if kind == "press":
        c.press(arg, c.now)
    elif kind == "long":
        c.long(arg, c.now)
    elif kind == "tick":
        c.now += arg
    elif kind == "line":
        n.reply(con.command(arg, c.now))
    else:  # a power cut: the log's last action played again; bench mode was only in RAM
        c = reboot(c)
        c.rng = Chooser(c)
        n = Shell(c)
    c.tick(c.now)
    return n, c.take_log(), n.replies


def broken(before, after, kind, arg, log, replies):
    """What a player without the code must never manage, in one event."""
    bad = []
    b, a = before.controller, after.controller
    for r in replies:
        if r is None:
            continue
        for name, ok in GATE_OK.items():
            if kind == "line" and (arg + " ").startswith(name + " ") and r.get("ok") == ok:
                bad.append("%s worked" % name)
        text = json.dumps(r)
        kept = a.settings["lock"].split("$")
        if kept[1] in text or kept[2] in text or '"lock":' in text or '"lock_fails":' in text:
            bad.append("the code shown: %s" % text)
    if after.console.bench is not None:
        bad.append("bench mode")
    if a.seeded or a.rng.seeded is not None:
        bad.append("the cards seeded")
    if True in after.usb:
        bad.append("USB opened")
    if after.console.test is not None and after.console.test.name == "led":
        bad.append("the LED faked")
    if len(log) >= 64:
        bad.append("records may have been lost")
    if a.screen in ("refmenu", "adjust", "newcode"):
        bad.append("referee screen " + a.screen)
    if a.settings["lock"] != b.settings["lock"]:
        bad.append("the code changed")
    for r in log:
        if r["ev"] in REFEREE_ONLY + ("error",) or (r["ev"] == "settings" and "lock" in r):
            bad.append("record %s" % r)
    return bad + action_broken(b.action, a.action, kind, [r["ev"] for r in log])


def action_broken(a, b, kind, evs):
    if a is None or kind == "power":
        return []
    if b is None or "start" in evs:
        return [] if a.state in END_STATES else ["action %s dropped" % a.state]
    bad = []
    if a.state == "referee" and b.state != "referee":
        bad.append("black passed")                                   # R14
    if a.state not in END_STATES and b.state in END_STATES and "end" not in evs:
        bad.append("ended without an end record")
    if b.draws < a.draws or b.helpers != a.helpers:
        bad.append("draw undone or helper sent away")
    if b.deck.counts() != a.deck.counts() and "accept" not in evs:
        bad.append("deck changed without a card")                   # R19
    return bad


def key(s):
    c = s.controller
    a = c.action
    shown = c.shown
    m = shown if c.screen == "message" else None
    referee_screen = m.back if m is not None and shown.locked else shown
    return (c.screen, a and (json.dumps(play_state(c), sort_keys=True)),
            json.dumps(c.settings, sort_keys=True),
            shown.code if c.screen in ("lock", "newcode") else None,
            referee_screen.back.name if shown.locked else None,
            getattr(shown, "cur", None), getattr(shown, "editing", None),
            m and json.dumps([m.title, m.text, m.back.name]), s.console.bench is not None,
            s.console.maint, s.console.test and s.console.test.name, c.seeded,
            s.console.job and (s.console.job.said,),  # "": not judged yet
            min(c.lockout.wait_ms(), 1) if c.settings["lock_fails"] else 0)


def search(settings, start, depth, lines, cap=200_000):
    """Breadth-first over buttons, clock jumps, power cuts and protocol lines from set-up (or
    a fresh action) -> (states, edges, what was found)."""
    root = fresh(settings, start)
    seen = {key(root)}
    frontier = deque([(root, 0, ())])
    found = []
    edges = 0
    events = BUTTON_EVENTS + TICKS + [("power", None)] + [("line", x) for x in lines]
    while frontier:
        s, d, path = frontier.popleft()
        if d >= depth:
            continue
        c = s.controller
        for kind, arg in events:
            if kind in ("press", "long") and forms_code(c, kind, arg):
                continue
            colours = [None]
            a = c.action
            draws = (a is not None and a.state == "active" and (
                (c.screen == "active" and (kind == "tick" or (kind, arg) == ("press", "DRAW")))
                or (c.screen == "card" and (kind, arg) == ("press", "HELP"))))
            if draws:
                colours = [x for x, k in zip(COLOURS, a.deck.counts()) if k] or [None]
            for colour in colours:
                n, log, replies = event(s, kind, arg, colour)
                edges += 1
                here = path + ((kind, arg, colour),)
                bad = broken(s, n, kind, arg, log, replies)
                if bad:
                    found.append((bad, here))
                k = key(n)
                if k not in seen and len(seen) < cap:
                    seen.add(k)
                    frontier.append((n, d + 1, here))
    return len(seen), edges, found


SEARCHES = [  # (name, settings, start an action first, depth)
    ("set-up, code SDHR", dict(lock="SDHR"), False, 5),
    ("a black with a referee, code DSRH", dict(referee=True, black=2, redraws=1, lock="DSRH"),
     True, 5),
]


@pytest.mark.parametrize("name,changes,start,depth", SEARCHES, ids=[s[0] for s in SEARCHES])
def test_no_line_or_press_without_the_code_chooses_sees_or_fakes_a_card(name, changes, start,
                                                                        depth):
    settings = dict(config.defaults(), **changes)
    states, edges, found = search(settings, start, depth, SEARCH_LINES)
    print("bench search %s: depth %d, %d states, %d events" % (name, depth, states, edges))
    assert not found, found[:3]
    assert states > 500


def test_the_search_finds_every_gated_power_when_it_knows_the_code():
    """The same search with the right code among its lines: the checks are not vacuous."""
    settings = dict(config.defaults(), lock="SDHR")
    _, _, found = search(settings, False, 3, SEARCH_LINES + ["unlock SDHR"])
    kinds = {b.split(":")[0] for bad, _ in found for b in bad}
    assert {"seed worked", "test draws worked", "test led worked", "maint worked", "bench mode",
            "log ack worked",
            "the cards seeded", "USB opened", "the LED faked"} <= kinds, kinds


def test_a_random_walk_over_lines_and_buttons_loses_no_log_record():
    """Thousands of random lines (floods of seed tries, wrong unlocks, acks with the right
    seq and hash read from the log) and presses on the whole app and store, without the code:
    every record the controller made is on flash, numbered from 1 without a gap, the chain
    holds, and nothing was acknowledged, so nothing can be dropped."""
    b = Bench(referee=True, black=1)
    rnd = random.Random(10)
    pool = ["seed 1", "seed 2", "test draws 5", "maint", "lock", "show", "test led red",
            "unlock SSSS", "test end", "wait 1000"]
    for i in range(1000):
        roll = rnd.random()
        if roll < 0.45:
            b.button(rnd.choice(config.BUTTONS), rnd.choice(("short", "short", "long")))
        elif roll < 0.55 and b.lines():
            seq, h = b.last_seq_hash()
            assert b.one("log ack %d %s" % (seq, h)) == {"error": REFUSED % "log ack"}
        elif roll < 0.6:
            b.run(rnd.choice((1000, 31000)))
        else:
            b.send(rnd.choice(pool))
    b.run(100)
    lines = b.lines()
    seqs = [json.loads(x)["seq"] for x in lines]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 30  # (tries: counted)
    assert logchain.verify(lines)[0]
    assert b.app.store.logfile.exported == 0
    assert not [x for x in lines if '"ev":"dropped"' in x]
    assert b.app.console.bench is None and not b.app.controller.seeded
