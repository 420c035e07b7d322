"""The referee lock against a player who tries codes: a growing wait after wrong tries (3 free,
then 30 s, doubling, 8 h at most) shown as a countdown and kept across a power cut, every wait
logged with the counts, without the code. test_lockout_code.py: the code kept as a salted hash
and the recovery code; test_lockout_app.py: under MicroPython and through the app's passes.
lockcode.py is the one place that checks a code; referee.py's lock and new-code screens use it."""
import json
import random

from carddraw import lockcode
from carddraw.app import App
from carddraw.store import Store
from fakeflash import FakeFlash

from lockoutkit import attempt, code_keys, dev, hardening_board, keys, lock_records, text, wrong


# -- the wait -----------------------------------------------------------------------------------
def test_the_wait_after_each_wrong_try_3_free_then_30_s_doubling_capped_at_8_h():
    waits = [lockcode.wait_for(n) for n in range(0, 20)]
    assert waits[:3] == [0, 0, 0]
    assert waits[3:8] == [30000, 60000, 120000, 240000, 480000]
    assert max(waits) == lockcode.MAX_WAIT_MS == 8 * 3600 * 1000
    assert waits[-1] == lockcode.MAX_WAIT_MS and waits == sorted(waits)


def test_three_wrong_codes_then_a_30_s_lockout_shown_as_a_countdown():
    c = dev()
    v = wrong(c, 1000)
    assert v.screen == "message" and "2 tries before a wait" in text(c)
    keys(c, "R", 1000)
    wrong(c, 2000)
    assert "1 try before a wait" in text(c)
    keys(c, "R", 2000)
    wrong(c, 3000)
    assert "wait 30 s" in text(c)
    assert c.settings["lock_fails"] == 3
    keys(c, "R", 3000)
    v = keys(c, "lS", 4000)
    assert v.screen == "lock" and "Wait 29 s" in v.lines
    c.tick(6500)
    assert "Wait 27 s" in c.view().lines                  # counting down on its own
    assert c.lockout.wait_ms() == 30000 - 3500


def test_nothing_is_accepted_during_the_lockout_not_even_the_right_code():
    c = dev()
    for t in (0, 1, 2):
        wrong(c, t)
        keys(c, "R", t)
    c.take_log()
    v = keys(c, "lS R H", 1000)
    assert v.screen == "lock" and "Wait 30 s" in v.lines and "* *" in text(c)
    v = keys(c, "R H", 1000)                              # the right code, too early
    assert v.screen == "message" and "Locked: wait 30 s" in text(c)   # 29.002 s left
    assert attempt(c, "RHRH") == "Locked: wait 30 s"   # refused unchecked
    assert lock_records(c) == [] and c.lockout.refused == 2   # counted, not logged
    assert c.settings["lock_fails"] == 3
    v = keys(c, code_keys("RHRH"), 30002)                 # the wait is over: it opens
    assert v.screen == "refmenu" and c.settings["lock_fails"] == 0   # and the count resets
    assert c.lockout.wait_ms() == 0


def test_each_further_wrong_try_doubles_the_wait():
    c = dev()
    t = 0
    for n in range(1, 7):
        wrong(c, t)
        assert c.settings["lock_fails"] == n
        assert c.lockout.wait_ms() == lockcode.wait_for(n)
        t += lockcode.wait_for(n)
        keys(c, "R", t)
    assert lockcode.wait_for(6) == 240000


def test_a_right_code_before_the_third_wrong_one_resets_the_count():
    c = dev()
    wrong(c, 0)
    keys(c, "R", 0)
    wrong(c, 0)
    keys(c, "R", 0)
    assert keys(c, code_keys("RHRH"), 0).screen == "refmenu"
    assert c.settings["lock_fails"] == 0
    keys(c, "lS", 0)
    wrong(c, 0)
    assert "2 tries before a wait" in text(c)


def test_tries_are_counted_and_a_wait_logged_with_the_counts_never_the_code():
    """A record when a wait starts (and when the lock opens after wrong tries), with the
    counts: a refused try during a wait is counted, never a record of its own."""
    c = dev()
    c.take_log()
    for t in range(4):
        wrong(c, t * 10, "SDSD")
        keys(c, "R", t * 10)
    log = c.take_log()
    recs = [r for r in log if r["ev"] == "lock"]
    assert [(r["result"], r["fails"], r["wait_s"]) for r in recs] == [("wait", 3, 30)]
    assert c.lockout.refused == 1 and c.settings["lock_fails"] == 3
    assert all(set(r) == {"ev", "ms", "result", "kind", "fails", "refused", "wait_s"}
               for r in recs)
    words = json.dumps(log)
    assert "SDSD" not in words and "RHRH" not in words and c.settings["lock"] not in words
    assert c.settings["lock"].split("$")[2] not in words


def test_the_lockout_survives_a_power_cut_and_restarts_in_full():
    """The Pico has no clock across a power cut: a lockout due at boot starts again in full.
    Played through the App and the store, as test_power_cuts.py does."""
    fs = FakeFlash()
    board = hardening_board.Board()
    app = App(board, Store(fs=fs), random.Random(1), 0, write=lambda s: None)
    now = 0
    for _ in range(3):
        for name, kind in [("STOP", "long")] + [(n, "short") for n in ("DRAW",) * 4] + [
                ("RANK", "short")]:
            board.buttons.push(name, kind)
            now += 300
            app.loop_pass(now)
    assert app.controller.settings["lock_fails"] == 3
    assert all(b"RHRH" not in data for data in fs.flash.values())  # the code: nowhere
    board = hardening_board.Board()                        # the power cut
    app = App(board, Store(fs=fs), random.Random(1), 5000, write=lambda s: None)
    c = app.controller
    assert c.settings["lock_fails"] == 3
    board.buttons.push("STOP", "long")
    app.loop_pass(5300)
    assert c.view().screen == "lock" and "Wait 30 s" in c.view().lines   # in full again
    for name in "RANK", "HELP", "RANK", "HELP":
        board.buttons.push(name)
        app.loop_pass(5400)
    assert c.view().screen == "message" and c.shown.back.name == "setup"  # refused, not
                                                    # checked: the presses went with the lock
    assert "Locked: wait 30 s" in " ".join(c.view().lines) and c.settings["lock_fails"] == 3
    assert c.lockout.wait_ms() == 30000 - 400               # from the boot, at 5000
