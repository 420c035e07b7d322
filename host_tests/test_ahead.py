"""The next DRAW worked out ahead in an idle pass (Play.ahead, Rng.copy/take): a press that
takes it gives the same card, records, sounds and state as one that draws then (R9-R15,
R17), anything that changes the action or uses the rng in between makes it draw live, and
working it out shows, logs and writes nothing (no card seen before its press)."""
import os
import random
import sys

import pytest

from conftest import ROOT, run_in_vm
from carddraw import config, saved
from carddraw.app import App
from carddraw.controller import Controller
from carddraw.rng import Rng
from carddraw.store import Store
from littleflash import LittleFlash

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from hardening_board import Board  # noqa: E402
from native import runner  # noqa: E402

KEYS = ("RANK", "HELP", "DRAW", "STOP")


def twins(seed, **settings):
    """Two devices alike, seeded alike, on the active screen of an action."""
    s = dict(config.defaults(), **settings)
    out = []
    for _ in range(2):
        c = Controller(settings=dict(s), rng=Rng(seed), now_ms=0)
        c.press("DRAW", 0)  # set-up's DRAW starts the action
        out.append(c)
    return out


def said(c):
    """Everything a device has shown or logged or will, and where its rng is."""
    play = c.play
    rng = c.rng.copy()
    return (c.take_records(), c.take_beeps(), c.hint(), c.view().lines, c.led(),
            play and play.state(), [rng.randrange(1000) for _ in range(4)])


def test_copy_draws_what_the_rng_would_and_take_goes_on_from_it():
    r, ref = Rng(7), Rng(7)
    for _ in range(5):
        r.randrange(9)
        ref.randrange(9)
    c = r.copy()
    ahead = [c.randrange(41) for _ in range(40)]  # across blocks: 16 draws a block
    assert ahead == [ref.randrange(41) for _ in range(40)]
    assert r.holds(c) and r.take(c)
    assert [r.randrange(41) for _ in range(20)] == [ref.randrange(41) for _ in range(20)]


def used_up(r):
    r._i = 32  # the block's bits all drawn: the next draw, or ready(), hashes a new one
    return r


@pytest.mark.parametrize("make, again", [
    (Rng, lambda r: r.randrange(5)),   # a draw of its own: the copy's would be a second card
    (Rng, lambda r: r.fresh()),        # a new key (an action's start)
    (lambda: Rng(3), lambda r: r.seed(3)),   # ... the same seed's again, a new key all the same
    (lambda: used_up(Rng(3)), lambda r: r.ready()),  # a new block hashed in an idle pass
])
def test_a_copy_is_not_taken_once_the_rng_drew_or_was_keyed_again(make, again):
    r = make()
    c = r.copy()
    assert r.holds(c)
    again(r)
    assert not r.holds(c) and not r.take(c)


def test_an_unseeded_copy_takes_its_own_entropy_for_a_new_block():
    r = Rng()
    c = r.copy()
    c.randrange(7)  # r's first block was never hashed: c hashes one with fresh entropy
    assert r._buf is None and c._buf is not None  # r itself is as it was
    assert r.take(c) and r._buf is c._buf


@pytest.mark.parametrize("seed", range(40))
def test_a_press_that_takes_the_draw_worked_out_ahead_is_a_press_that_draws(seed):
    """R9-R17 through the controller: random presses, long presses and clock jumps on two
    devices alike; one works the next draw out ahead before most events (as idle passes do),
    the other never. After every event both have shown, logged and kept the same."""
    rnd = random.Random(seed)
    settings = {"ranks": rnd.randint(1, 5), "helpers": rnd.randint(0, 3),
                "redraws": rnd.randint(0, 2), "needed": rnd.randint(1, 4),
                "auto": rnd.randint(0, 2), "red": rnd.randint(0, 3),
                "black": rnd.randint(0, 2), "referee": rnd.random() < 0.5,
                "timed": rnd.random() < 0.3}
    live, ahead = twins(seed, **settings)
    t = took = 0
    for _ in range(300):
        t += rnd.choice((20, 400, 1000, 5000, 61000))
        if ahead.play is not None and rnd.random() < 0.8:
            ahead.play.ahead()
            took += ahead.play._next is not None
        kind = "long" if rnd.random() < 0.1 else "press"
        key = rnd.choice(KEYS + ("DRAW",) * 3)
        for c in (live, ahead):
            c.tick(t)
            getattr(c, kind)(key, t)
            c.settle()
        assert said(live) == said(ahead)
    assert took  # the walk worked draws out ahead


def active(seed=11, **settings):
    live, ahead = twins(seed, referee=True, ranks=3, helpers=2, redraws=0, needed=9,
                        **settings)
    return live, ahead


@pytest.mark.parametrize("change", [
    lambda p: p.adjust("red", 1),        # R19: the referee adds a card
    lambda p: p.adjust("green", -1),     # ... or takes one out
    lambda p: p.helper_leaves(),         # R18
    lambda p: p.ctl.rng.randrange(3),    # the rng used by anything else
    lambda p: p.ctl.rng.seed(11),        # ... or keyed again (its own seed: the same cards)
])
def test_a_change_after_the_draw_was_worked_out_makes_the_press_draw_live(change):
    live, ahead = active()
    ahead.play.ahead()
    worked = ahead.play._next
    assert worked is not None
    for c in (live, ahead):
        change(c.play)
    assert said(live) == said(ahead)
    for c in (live, ahead):
        c.press("DRAW", 500)
    assert said(live) == said(ahead)
    assert ahead.play._next is None and ahead.play.action is not worked[1].action


def test_the_press_takes_it_and_an_undo_takes_the_draw_back():
    live, ahead = active()
    ahead.play.ahead()
    worked = ahead.play._next
    for c in (live, ahead):
        c.press("DRAW", 500)
    assert ahead.play.action is worked[1].action  # taken: the action it was worked out on
    assert said(live) == said(ahead)
    for c in (live, ahead):
        c.play.undo_draw()  # the referee's undo: the action as it was before the draw
    assert said(live) == said(ahead)


def test_it_is_worked_out_again_only_when_the_action_or_rng_changed():
    _, c = active()
    play = c.play
    assert play.ahead() is True
    first = play._next
    assert play.ahead() is False and play._next is first  # still the next draw's
    play.adjust("yellow", 1)
    assert play.ahead() is True and play._next is not first
    c.press("DRAW", 500)  # the card on show: no next draw to work out until it is put away
    assert play.ahead() is False and play._next is None


def test_working_it_out_shows_logs_and_beeps_nothing():
    _, c = active(buzzer=True)
    said(c)  # the start's record and click taken, as the app's pass takes them
    before = said(c)
    view = c.view()
    c.play.ahead()
    assert said(c) == before
    assert c.view() is view  # the view on show is not even made again


def test_an_idle_pass_works_it_out_and_writes_nothing_shows_nothing():
    """Through the App on littlefs: the idle pass that works the next draw out programs
    and erases nothing and changes neither the LED nor the display; the press that takes
    it commits its records before the LED as any draw does."""
    fs = LittleFlash()
    store = Store(fs=fs)
    s = config.defaults()
    s.update({"ranks": 3, "needed": 5})
    store.save_settings(s)
    board = Board()
    app = App(board, store, Rng(4), 0)
    now = 0
    app.loop_pass(now)
    board.buttons.push("DRAW")  # start
    worked = 0
    for _ in range(300):  # idle passes until the one that works the next draw out
        now += 20
        chip = fs.chip
        counts = (chip.progs, chip.erases)
        led, frames = board.led.colour, board.display.frames
        app.loop_pass(now)
        play = app.controller.play
        if play is not None and play._next is not None:
            worked += 1
            assert (chip.progs, chip.erases) == counts  # that pass wrote nothing
            assert board.led.colour == led and board.display.frames == frames
            break
    assert worked
    board.buttons.push("DRAW")
    now += 20
    app.loop_pass(now)
    assert play._next is None and play.card is not None
    assert board.led.colour == play.card
    # on flash before the LED: a power cut now boots on the same card
    again = App(Board(), Store(fs=fs.reboot()), Rng(4), now)
    again.loop_pass(now + 20)
    assert again.controller.play.card == play.card
    assert saved.snapshot(again.controller.play.action) == saved.snapshot(play.action)


# The twin walk again, as MicroPython runs it: the VM (WebAssembly, 32-bit as the RP2040) and
# native MicroPython on the .mpy files make deploy copies. Its own small generator for the
# walk (the same on every interpreter); each walk's count of draws worked out ahead, -1 at
# the first event after which the twins differ.
TWINS = """
from carddraw import config
from carddraw.controller import Controller
from carddraw.rng import Rng

def said(c):
    play = c.play
    rng = c.rng.copy()
    return (c.take_records(), c.take_beeps(), c.hint(), c.view().lines, c.led(),
            play and play.state(), [rng.randrange(1000) for _ in range(4)])

def walk(seed, n):
    x = [seed * 7919 + 1]
    def r(k):
        x[0] = (x[0] * 1103515245 + 12345) & 0x3FFFFFFF
        return (x[0] >> 8) % k
    s = config.defaults()
    s.update({"ranks": 1 + r(5), "helpers": r(4), "redraws": r(3), "needed": 1 + r(4),
              "auto": r(3), "red": r(4), "black": r(3), "referee": r(2) == 1})
    devs = []
    for _ in range(2):
        c = Controller(settings=dict(s), rng=Rng(seed), now_ms=0)
        c.press("DRAW", 0)
        devs.append(c)
    live, ahead = devs
    t = took = 0
    keys = ("RANK", "HELP", "DRAW", "STOP", "DRAW", "DRAW")
    for _ in range(n):
        t += (20, 400, 1000, 5000, 61000)[r(5)]
        if ahead.play is not None and r(5) < 4 and ahead.play.ahead():
            took += 1
        key = keys[r(6)]
        long = r(10) == 0
        for c in devs:
            c.tick(t)
            (c.long if long else c.press)(key, t)
            c.settle()
        if said(live) != said(ahead):
            return -1
    return took

RESULT = [walk(seed, 200) for seed in range(6)]
"""


def check_twins(got):
    assert len(got) == 6 and -1 not in got, got  # the twins never differed
    assert sum(got) > 20, got  # and draws were worked out ahead


def test_the_twins_agree_on_cpython_too():
    scope = {}
    exec(TWINS, scope)
    check_twins(scope["RESULT"])


def test_the_twins_agree_in_the_micropython_vm():
    check_twins(run_in_vm(TWINS))


def test_the_twins_agree_on_native_micropython_from_the_mpy_files():
    why = runner.missing()
    if why:
        pytest.fail(why)
    check_twins(runner.run(TWINS, [runner.compiled()]))


def test_same_says_what_comparing_snapshots_says():
    """saved.same (idle passes, no tuple made) against snapshot() == snap, after each kind
    of change an action takes: the two lists of fields must not drift apart."""
    _, c = active()
    a = c.play.action
    snap = saved.snapshot(a)
    changes = [lambda a: a.adjust("red", 1), lambda a: a.helper_leaves(),
               lambda a: a.draw(Rng(2)), lambda a: a.accept(),
               lambda a: setattr(a, "redraws_left", a.redraws_left + 1),
               lambda a: setattr(a, "auto_applied", not a.auto_applied),
               lambda a: setattr(a, "complications", a.complications + 1),
               lambda a: setattr(a, "successes", a.successes + 1),
               lambda a: setattr(a, "state", "stopped")]
    for change in changes:
        assert saved.same(a, snap)
        change(a)
        assert not saved.same(a, snap) and saved.snapshot(a) != snap
        snap = saved.snapshot(a)
