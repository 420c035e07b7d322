"""The device as a person uses it, past the cards themselves: a stop (R16), success and a chain
(R17), a helper leaving (R18), the referee's adjustment (R19), the deck after every card (R20),
timed mode (R21), the empty deck (R22), the finishing (R23), the cards' words (R24) and the
chance (R26), all from the buttons. The rng is a stand-in that draws the colours asked for.
"""
import pytest

from carddraw import config
from carddraw.playscreens import words
from carddraw.texts import deck_line, pct, wrap
from carddraw.deck import COLOURS
from carddraw.odds import success_chance

from controllerkit import events, joined, referee
from handheld import dev, keys, play_state, sit_out_the_finishing


def test_stop_asks_first_then_says_no_retry_today_R16_R23():
    c = dev()
    keys(c, "D")
    v = keys(c, "S")
    assert v.screen == "confirm" and "no retry today." in joined(c)
    v = keys(c, "S")                          # back: a mis-press does not end the action
    assert v.screen == "active" and c.action.state == "active"
    keys(c, "S R")
    assert c.view().screen == "active"
    c.take_log()
    v = keys(c, "S D")                        # a stop goes through the finishing (R23)
    assert v.screen == "finishing" and c.action.state == "stopped"
    assert "No retry today." in v.lines
    log = c.take_log()
    assert events(log) == ["stop", "end"] and log[1]["outcome"] == "stopped"
    assert keys(c, "D").screen == "finishing"  # nothing skips the minute
    c.tick(60000)
    v = c.view()
    assert v.screen == "summary" and "Outcome: stopped" in v.lines
    assert "No retry today." in v.lines
    assert keys(c, "D", t=60000).screen == "setup"


def test_no_stop_between_a_draw_and_its_result_R16():
    c = dev("red", redraws=1)
    keys(c, "D D")
    v = keys(c, "S")
    assert v.screen == "message" and "between a draw and its result." in joined(c)
    assert c.action.state == "active" and c.action.pending == "red"
    v = keys(c, "H")
    assert v.screen == "card" and c.action.pending == "red"


def test_success_then_chain_a_new_action_R17():
    c = dev("green")
    keys(c, "D D D")
    v = c.view()
    assert v.screen == "success" and v.led == "green"
    assert v.lines[4].startswith(">Finish")
    v = keys(c, "H")
    assert v.lines[5].startswith(">Chain")
    c.take_log()
    v = keys(c, "D")
    assert v.screen == "setup" and v.lines[0].startswith("Chain: ")  # finishing skipped
    assert c.action is None and play_state(c) is None
    assert events(c.take_log()) == ["chain"]
    keys(c, "D")
    start = c.take_log()[0]
    assert start["ev"] == "start" and start["chain"] is True
    assert c.view().screen == "active"


def test_helper_leaves_takes_their_green_R18():
    c = dev(ranks=2, helpers=2)
    keys(c, "D")
    assert c.action.deck.counts() == (6, 2, 1, 0)
    keys(c, "H")                              # no joining once drawing has started (R18)
    assert c.action.helpers == 2
    v = referee(c, "Helper leaves")
    assert v.screen == "message" and "1 helping now." in joined(c)
    assert c.action.deck.counts() == (5, 2, 1, 0) and c.action.helpers == 1
    log = c.take_log()
    assert log[-1]["ev"] == "helper_leaves" and log[-1]["deck"] == [5, 2, 1, 0]
    keys(c, "D")
    assert c.view().screen == "refmenu"
    keys(c, "S")
    assert c.view().screen == "active" and c.view().lines[1] == "Deck 5G 2Y 1R 0B"


def test_referee_adjusts_the_deck_R19_R8():
    c = dev(referee=True)
    keys(c, "D")
    v = referee(c, "Adjust deck")
    assert v.screen == "adjust"
    keys(c, "H H D")                          # red, edit
    keys(c, "H H H")                          # +3 red: 4 red -> 1 red + 1 black (R8)
    assert c.action.deck.counts() == (3, 2, 1, 1)
    keys(c, "R")                              # -1 red
    assert c.action.deck.counts() == (3, 2, 0, 1)
    log = [r for r in c.take_log() if r["ev"] == "adjust"]
    assert [(r["colour"], r["delta"]) for r in log] == [("red", 1)] * 3 + [("red", -1)]
    keys(c, "R")                              # no red left: refused, said, no crash
    assert c.view().screen == "message" and c.action.deck.counts() == (3, 2, 0, 1)
    keys(c, "D D S S")
    assert c.view().screen == "active" and c.view().lines[1] == "Deck 3G 2Y 0R 1B"


def test_adjust_not_offered_without_a_referee_R19():
    c = dev()
    keys(c, "D")
    with pytest.raises(AssertionError, match="no 'Adjust deck' in the referee menu"):
        referee(c, "Adjust deck")
    assert c.view().screen == "refmenu" and "Helper leaves" in joined(c)
    assert c.action.deck.counts() == (3, 2, 1, 0)


def test_deck_shown_again_after_every_card_R20():
    c = dev("yellow", "red", "yellow")
    keys(c, "D")
    for _ in range(3):
        keys(c, "D")
        assert c.view().screen == "card"
        v = keys(c, "D")
        assert v.screen == "active" and v.lines[1] == deck_line(c.action.deck.counts())


def test_timed_mode_warns_then_draws_R21():
    c = dev("red", "green", timed=True, interval=30, needed=2)
    keys(c, "D", t=1000)
    v = c.view()
    assert v.lines[0] == "Surgery timed" and "Next card in 30s" in v.lines
    c.take_beeps()
    c.tick(25000)
    assert not c.view().blink and "Next card in 6s" in c.view().lines
    for t in range(26000, 31000, 250):        # 5 s of warning: a beep a second
        c.tick(t)
        v = c.view()
        assert v.blink and v.led == "white" and v.screen == "active"
    assert c.take_beeps() == ["warn"] * 5
    assert "Card in 1 s!" in c.view().lines
    c.take_log()
    c.tick(31000)
    v = c.view()
    assert v.screen == "card" and v.led == "red" and not v.blink
    draw = c.take_log()[0]
    assert draw["ev"] == "draw" and draw["timed"] is True and draw["ms"] == 31000
    c.tick(90000)                             # a late tick, on the card: a full warning
    assert c.view().screen == "card" and c.action.draws == 1 and c.view().blink
    keys(c, "D", t=90000)                     # the warning goes on on the deck screen
    assert c.view().screen == "active" and c.action.draws == 1
    c.tick(90100)
    assert c.view().blink and "Card in 5 s!" in c.view().lines
    c.tick(95000)
    assert c.action.draws == 2


def test_timed_interval_counts_from_the_last_draw_R21():
    c = dev("yellow", timed=True, interval=40)
    keys(c, "D", t=0)
    keys(c, "D", t=10000)                     # a manual draw at 10 s
    keys(c, "D", t=12000)
    c.tick(44000)
    assert not c.view().blink
    c.tick(45000)
    assert c.view().blink                     # 50 s - 5 s
    c.tick(49999)
    assert c.action.draws == 1


def test_stop_during_the_warning_stops_at_once_R21_R16():
    c = dev(timed=True, interval=30)
    keys(c, "D")
    c.tick(26000)
    assert c.view().blink
    v = keys(c, "S", t=27000)
    assert v.screen == "finishing" and c.action.state == "stopped" and not v.blink  # R23
    c.tick(60000)
    assert c.action.draws == 0


def test_timed_mode_late_ticks_still_warn_R21():
    """A tick that comes late gives the full warning first (host_tests/test_timed.py: the
    countdown on every screen)."""
    c = dev("red", timed=True, interval=30)
    keys(c, "D")
    keys(c, "S", t=20000)                     # the stop question
    c.tick(40000)
    assert c.view().screen == "confirm" and c.action.draws == 0
    keys(c, "S", t=40000)
    c.tick(40020)
    assert c.view().blink and c.action.draws == 0
    c2 = dev("red", timed=True, interval=30)
    keys(c2, "D")
    c2.tick(200000)                           # a tick that comes very late still warns
    assert c2.view().blink and c2.action.draws == 0
    c2.tick(205000)
    assert c2.action.draws == 1


def test_empty_deck_cannot_be_drawn_from_R22():
    c = dev(referee=True, ranks=1)
    keys(c, "D")
    referee(c, "Adjust deck")
    keys(c, "D R R R")                        # green 3 -> 0
    keys(c, "D H D R R")                      # yellow 2 -> 0
    keys(c, "D H D R")                        # red 1 -> 0
    keys(c, "D S S")
    assert c.action.deck.counts() == (0, 0, 0, 0)
    v = c.view()
    assert v.screen == "active" and v.lines[1] == "Deck 0G 0Y 0R 0B" and "Deck empty:" in v.lines
    v = keys(c, "D")
    assert v.screen == "message" and "deck is empty" in joined(c)
    assert c.action.draws == 0 and c.action.state == "active"
    assert c.take_beeps()[-1] == "error"
    assert keys(c, "S").screen == "active"


def test_finishing_counts_down_a_minute_then_the_summary_R23():
    c = dev("green", "green", needed=2, auto=0, ranks=3)
    keys(c, "D D D D", t=0)
    assert c.view().screen == "card"
    keys(c, "D", t=1000)
    assert c.view().screen == "success"
    v = keys(c, "D", t=1000)
    assert v.screen == "finishing" and "   60 s left" in v.lines
    v = sit_out_the_finishing(c)
    assert v.screen == "summary" and "Outcome: success" in v.lines
    assert "Successes 2/2" in v.lines and "Complications 0" in v.lines
    v = keys(c, "D", t=62000)
    assert v.screen == "setup" and c.action is None


@pytest.mark.parametrize("skill", ["surgery", "repair", "scan"])
def test_every_card_named_in_the_actions_words_R24(skill):
    c = dev("green", "yellow", "red", "black", skill=skill, black=1, needed=2,
            ranks=1 if skill != "scan" else 0, referee=True)
    keys(c, "D")
    for colour in COLOURS:
        v = keys(c, "D")
        assert v.screen == "card" and v.led == colour
        w = words(skill, colour)
        assert w in joined(c), (skill, colour)
        assert len(wrap(w)) <= 2
        keys(c, "D")
    assert c.action.state == "referee"
    assert [words(s, "red") for s in config.SKILLS] == [
        "a nicked blood vessel", "an electrical discharge", "particles destabilise"]
    assert len({words(s, k) for s in config.SKILLS for k in COLOURS}) == 12


def test_chance_R26_and_the_deck_on_the_active_screen():
    c = dev("yellow", "red", ranks=3, helpers=1, red=1, needed=2)
    keys(c, "D")
    for _ in range(3):
        a = c.action
        v = c.view()
        assert v.lines[1] == deck_line(a.deck.counts())                     # R20
        assert v.lines[2] == "Chance  " + pct(success_chance(a))            # R26
        if a.draws < 2:
            keys(c, "D D")
    # one rounding rule (odds.fmt_chance); it rounded down and showed 4.2e-5 as 0.0%
    assert pct(1.0) == "  100%" and pct(0.99999) == ">99.9%" and pct(0.0) == "    0%"
    assert pct(4.2e-5) == " <0.1%" and pct(0.97149) == " 97.1%" and pct(0.9715) == " 97.2%"
