"""The referee lock from the buttons: a wrong code, the menu and its time-out, a note's way back,
changing the code, undoing the last draw, ending the action, and a player without the code
reaching no referee function (R14's black decision untouched).
"""
import json
import random

from carddraw import config, lockcode, saved
from carddraw.controller import Controller

from controllerkit import joined, lines_fit, referee
from handheld import dev, keys, play_state


def test_lock_wrong_code_says_so_and_returns():
    c = dev()
    keys(c, "D")
    v = keys(c, "lS")
    assert v.screen == "lock" and "" == v.lines[4].strip()
    v = keys(c, "R H")
    assert "* *" == v.lines[4].strip()        # the code is never shown, nor its length
    v = keys(c, "D S")
    assert v.screen == "message" and v.lines[0] == "Wrong code"
    assert keys(c, "R").screen == "active"
    keys(c, "lS R H")
    assert keys(c, "lS").screen == "active"   # a long STOP cancels


def test_lock_right_code_opens_the_referee_menu_and_it_times_out():
    c = dev()
    v = keys(c, "lS R H R H", t=1000)
    assert v.screen == "refmenu" and any("Change code" in x for x in v.lines)
    c.tick(30000)
    assert c.view().screen == "refmenu"
    c.tick(31001)                             # left alone: it closes
    assert c.view().screen == "setup"
    keys(c, "lS R", t=40000)
    c.tick(71000)
    assert c.view().screen == "setup"


def test_a_note_from_the_referee_menu_leads_back_only_to_it_or_out():
    c = dev(ranks=2, helpers=1)
    keys(c, "D")
    referee(c, "Helper leaves", t=1000)
    assert c.view().screen == "message"
    keys(c, "lS", t=2000)                     # hold STOP leaves the referee's screens
    assert c.view().screen == "active"
    referee(c, "Helper leaves", t=3000)       # (no helper left: refused, said)
    c.tick(40000)                             # a note left open closes as the menu does
    assert c.view().screen == "active"


def test_lock_code_change():
    c = dev()
    v = referee(c, "Change code")
    assert v.screen == "newcode"
    v = keys(c, "D S D")
    assert "D S D" == v.lines[3].strip()      # the referee sees the new code as it goes in
    v = keys(c, "S")
    assert "hold DRAW: save" in v.lines
    c.take_log()
    ver = c.settings_version
    v = keys(c, "lD")
    assert v.screen == "message" and lockcode.matches(c.settings["lock"], "DSDS")
    assert c.settings_version > ver and c.settings["recovery"]   # and a recovery code
    log = c.take_log()
    assert log == [{"ev": "settings", "ms": 0, "lock": "changed"}]   # never the code
    keys(c, "D S")
    keys(c, "lS R H R H")
    assert c.view().screen == "message"       # the old code no longer opens it
    keys(c, "D lS D S D S")
    assert c.view().screen == "refmenu"
    keys(c, "S")
    c2 = Controller(settings=c.settings)
    keys(c2, "lS D S D S")
    assert c2.view().screen == "refmenu"


def test_code_change_can_be_cancelled_and_restarted():
    c = dev()
    referee(c, "Change code")
    keys(c, "R R R R R lR")                   # hold RANK starts over
    assert c.view().lines[3].strip() == "" and c.shown.code == ""
    keys(c, "H H H H lS")                     # hold STOP cancels
    assert c.view().screen != "newcode" and c.settings["lock"] == config.DEFAULT_LOCK


def test_undo_the_last_draw_through_the_lock():
    c = dev("red", "yellow", "black", black=1)
    keys(c, "D D D")
    before = saved.to_dict(c.action)
    keys(c, "D D")                            # a yellow, applied
    c.take_log()
    v = referee(c, "Undo last draw")
    assert v.screen == "message" and "undone" in joined(c)
    assert saved.to_dict(c.action) == before
    log = c.take_log()
    assert log[-1]["ev"] == "undo" and log[-1]["draws"] == 1 and log[-1]["state"] == "active"
    assert keys(c, "D").screen == "active"
    keys(c, "lS R H R H")
    assert not any("Undo" in x for x in c.view().lines)   # one step only
    keys(c, "lS D")                           # a black, no referee: the action has ended ...
    assert c.action.state == "failed" and c.play.undo is not None
    keys(c, "lS R H R H")
    assert not any("Undo" in x for x in c.view().lines)   # ... and its end is final


def test_referee_ends_the_action():
    c = dev("red")
    keys(c, "D D D")
    c.take_log()
    v = referee(c, "End action")
    assert v.screen == "message" and c.action is None and play_state(c) is None
    log = c.take_log()
    assert log[-1]["ev"] == "end" and log[-1]["outcome"] == "ended by referee"
    assert keys(c, "D").screen == "setup"


def test_a_player_without_the_code_reaches_no_referee_function():
    """Random walks of presses, long presses and ticks by someone who does not know the code
    (it is SSSS and STOP is pressed rarely): no referee screen, no referee function, R14's
    black decision untouched, every line fits, every log record is JSON."""
    seen = set()
    for walk in range(12):
        r = random.Random(walk)
        c = Controller(settings={"lock": "SSSS", "referee": walk % 2 == 0, "black": walk % 3,
                                 "redraws": walk % 3, "timed": walk % 4 == 1,
                                 "interval": 30, "needed": 1 + walk % 3},
                       rng=random.Random(100 + walk))
        t = 0
        for i in range(400):
            t += r.randrange(0, 3000)
            roll = r.random()
            before = c.action.state if c.action else None
            if roll < 0.04:
                c.long("STOP", t)
            elif roll < 0.08:
                c.long(r.choice(("RANK", "HELP", "DRAW")), t)
            elif roll < 0.11:
                c.press("STOP", t)
            elif roll < 0.9:
                c.press(r.choice(("RANK", "HELP", "DRAW")), t)
            else:
                c.tick(t)
            v = c.view()
            seen.add(v.screen)
            lines_fit(v)
            assert v.screen not in ("refmenu", "adjust", "newcode")
            if before == "referee" and c.action is not None:
                assert c.action.state == "referee"   # R14: only the referee decides
            for rec in c.take_log():
                assert rec["ev"] not in ("error", "referee", "adjust", "helper_leaves", "undo")
                json.dumps(rec)
            assert lockcode.matches(c.settings["lock"], "SSSS")
    assert {"setup", "options", "active", "card", "referee", "success", "lock",
            "message", "failed"} <= seen
