"""The controller's machinery from the buttons: unknown buttons and bugs shown not crashed, the
buzzer off, the bench's seed and show, every draw logged, and power cuts resumed (the log's
records played again with the hint, R16, R21, R23).
"""
import json
import random

import pytest

from carddraw import saved
from carddraw.action import Action
from carddraw.controller import Controller

from controllerkit import events, option, referee
from handheld import dev, keys, play_state, reboot
from pick import Pick  # tools/vmlib, shared with the screen tour


# -- never crash -------------------------------------------------------------------------------
def test_unknown_buttons_and_errors_never_crash():
    c = dev()
    c.press("POWER", 0)
    c.long("FOO", 0)
    assert c.view().screen == "setup"


def test_a_bug_shows_as_a_message_not_a_crash():
    class Broken:
        def randrange(self, n):
            raise TypeError("boom")

    c = Controller(rng=Broken())
    keys(c, "D D")
    v = c.view()
    assert v.screen == "message" and v.lines[0] == "Error" and c.action.draws == 0
    assert any(r["ev"] == "error" for r in c.take_log())
    assert keys(c, "D").screen == "active"


def test_buzzer_off_means_no_beeps():
    c = dev("red")
    option(c, "buzzer", False)
    c.take_beeps()
    keys(c, "D D")
    assert c.take_beeps() == []


def test_seed_only_on_setup_and_logged():
    c = Controller(rng=random.Random())
    assert c.seed(5) is None
    assert c.take_log()[-1] == {"ev": "seed", "ms": 0, "n": 5}
    keys(c, "D D")
    first = c.action.pending or c.view().led
    assert c.seed(6) == "seed only on the set-up screen"
    c2 = Controller(rng=random.Random())
    c2.seed(5)
    keys(c2, "D D")
    assert (c2.action.pending or c2.view().led) == first


def test_show_for_the_bench():
    c = dev("red")
    d = c.show()
    assert d["screen"] == "setup" and d["state"] is None and d["deck"] is None
    keys(c, "D D")
    d = c.show()
    assert d == {"screen": "card", "lines": c.view().lines, "led": "red", "state": "active",
                 "deck": [3, 3, 1, 0], "successes": 0, "needed": 1, "complications": 1,
                 "draws": 1}
    json.dumps(d)


def test_every_draw_is_logged_with_card_and_deck():
    c = dev("yellow", "red", "green")
    keys(c, "D D D D D D D")
    draws = [r for r in c.take_log() if r["ev"] in ("draw", "accept")]
    assert [(r["ev"], r["card"]) for r in draws] == [
        ("draw", "yellow"), ("accept", "yellow"), ("draw", "red"), ("accept", "red"),
        ("draw", "green"), ("accept", "green")]
    assert draws[0]["deck"] == [3, 2, 1, 0] and draws[1]["deck"] == [3, 3, 1, 0]
    assert [r["n"] for r in draws] == [1, 1, 2, 2, 3, 3]


# -- power cuts --------------------------------------------------------------------------------
def roundtrip(c, now=500000):
    c2 = reboot(c, now)
    assert c2.view().screen == c.view().screen
    assert play_state(c2) == play_state(c)
    assert saved.to_dict(c2.action) == saved.to_dict(c.action)
    assert c2.play.undo == c.play.undo and c2.play.card == c.play.card
    return c2


def test_resume_round_trips_every_screen_of_an_action():
    c = dev("red", "yellow", "black", "green", "green", redraws=1, referee=True, black=1,
            needed=2)
    assert play_state(c) is None
    seen = set()

    def check():
        c2 = roundtrip(c)
        seen.add(c.view().screen)
        if c.view().screen != "finishing":
            assert c2.view() == c.view()

    keys(c, "D")
    check()                                  # active
    keys(c, "D")
    check()                                  # a red pending, a redraw offered
    keys(c, "H")
    check()                                  # yellow, applied at once
    keys(c, "D D")
    check()                                  # black, none left: applied, card on show
    keys(c, "D")
    check()                                  # the referee decides
    referee(c, "Black: go on")
    keys(c, "D D D D")
    check()                                  # success
    keys(c, "D")
    check()                                  # finishing
    c.tick(10 ** 6)
    check()                                  # summary
    assert seen == {"active", "card", "referee", "success", "finishing", "summary"}


def test_resume_keeps_the_pending_card_and_undo():
    c = dev("red", "yellow", redraws=1)
    keys(c, "D D")
    c2 = roundtrip(c)
    assert c2.action.pending == "red" and c2.view().led == "red"
    assert saved.from_dict(c2.play.undo).draws == 0
    rng = Pick("yellow")
    c2.rng = rng
    rng.c = c2
    keys(c2, "H")                             # the redraw still works after the power cut
    assert c2.action.deck.counts()[1] == 3 and c2.action.state == "active"
    assert events(c2.take_log()) == ["redraw", "accept"]
    v = referee(c2, "Undo last draw")
    assert c2.action.draws == 0 and c2.action.state == "active"


def test_resume_stopped_and_failed_and_confirm():
    c = dev("black", black=1)
    keys(c, "D D D")
    assert roundtrip(c).view().screen == "failed"
    c = dev()
    keys(c, "D S")
    assert c.view().screen == "confirm"
    c2 = reboot(c)
    assert c2.view().screen == "active"       # the question is asked again
    keys(c, "D")
    assert roundtrip(c).view().screen == "finishing"   # R16, R23: a stop's finishing


def test_resume_in_timed_mode_starts_the_warning_at_once_R21():
    c = dev(timed=True, interval=30)
    keys(c, "D")
    c.tick(10000)
    c2 = reboot(c, 1000)
    c2.tick(1000)
    assert c2.view().blink and "Card in 5 s!" in c2.view().lines


def test_the_hint_says_what_no_record_says():
    """The journal keeps the log's records and this hint; together they bring a power-cut
    device back to the same screen (Play.replay)."""
    c = dev("yellow", "green")
    assert c.hint() == "x"                    # set-up: no action on show
    keys(c, "D")
    assert c.hint() == "d"                    # the deck: no card on show
    keys(c, "D")
    assert c.hint() == ""                     # the yellow on show
    keys(c, "D")
    assert c.hint() == "d"                    # put away
    keys(c, "D D")
    assert c.view().screen == "success" and c.hint() == "d"
    keys(c, "D")                              # finish (R23)
    assert c.view().screen == "finishing" and c.hint() == "df"
    c.tick(61000)
    assert c.view().screen == "summary" and c.hint() == "ds"
    keys(c, "D")
    assert c.hint() == "x"


def test_a_logged_card_of_a_colour_the_deck_has_none_of_is_refused_not_another_drawn():
    """Played again after a power cut (R9 order), a draw names its colour: a damaged log that
    names one the deck holds none of is refused, never drawn as the next colour's card."""
    from carddraw.deck import Deck
    deck = Deck(3, 2, 0, 1)                   # no red, a black after it
    assert saved.Known(deck, "black").randrange(6) == 5
    assert saved.Known(deck, "green").randrange(6) == 0
    with pytest.raises(ValueError):
        saved.Known(deck, "red")


def test_unreadable_records_are_said_not_crashed_and_closed_as_lost_R14():
    start = dict(saved.began(Action("repair", 2)), ev="start", ms=0)
    for bad in ([dict(start, skill="juggling")], [dict(start, difficulty=[1, 2])],
                [start, {"ev": "draw", "ms": 1, "timed": False, "card": "black"}],
                [start, {"ev": "draw", "ms": 1, "timed": False, "card": None}],  # no re-roll
                [start, {"ev": "redraw", "ms": 1, "card": None}],
                [start, {"ev": "draw", "ms": 1, "timed": False, "card": "red",
                         "deck": [9, 9, 9, 9]}]):
        c = Controller(replay=(bad, ""))
        v = c.view()
        assert v.screen == "message" and v.lines[0] == "Not resumed" and c.action is None
        assert c.take_log()[-1]["outcome"] == "lost"
        assert keys(c, "D").screen == "setup"
