"""The end of an action as the device plays it, and the card screens' labels.

- A stop, like a success, goes through the finishing phase: a 60-s countdown, then the
  summary with the outcome "stopped" and the no-retry-today reminder (R16, R23). The log keeps
  its `stop` and `end outcome=stopped` records, and a power cut anywhere in it comes back to it.
- A card screen says what the card did: "Success 1 of 3" (successes after the card, of those
  needed), for the first green with automatic successes what it brought, "Success +3: 3/4",
  "Setback", "Complication 2" (the action's complications after it), "Catastrophe"; a card
  not yet applied (redraws left, R15) says what it will do if accepted.
- Undo after the action has ended is refused: the referee menu does not offer it, and the
  log never holds an `undo` after its action's `end` (one action, one end; no `reopen`).
- No rule number on any of these screens.
"""
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from carddraw import config, saved
from carddraw.action import ACTIVE, REFEREE, RuleError
from carddraw.controller import Controller
from carddraw.deck import COLOURS
from handheld import AnyPick, dev, keys, play_state, reboot, since_start, sit_out_the_finishing
from fakeflash import FakeFlash
from test_power_cuts import Bench, boot

RULE_NUMBER = re.compile(r"\bR[0-9]{1,2}\b")


def events(log):
    return [r["ev"] for r in log]


def menu(c):
    """The referee menu's labels, seen through the lock with the default code."""
    keys(c, "lS R H R H")
    assert c.view().screen == "refmenu"
    labels = c.shown.offered()
    keys(c, "lS")
    return labels


# -- a stop goes through the finishing phase (R16, R23) ---------------------------------------
def stop(c, t=1000):
    """From the active screen: STOP asks, DRAW stops."""
    keys(c, "S", t)
    assert c.view().screen == "confirm"
    return keys(c, "D", t)


def test_a_stop_counts_down_the_finishing_minute_then_the_summary_R16_R23():
    c = dev("yellow", needed=2)
    keys(c, "D D D")                          # start, a yellow, back to the deck
    c.take_log()
    v = stop(c, t=1000)
    assert v.screen == "finishing" and c.action.state == "stopped"
    assert "   60 s left" in v.lines
    log = c.take_log()
    assert events(log) == ["stop", "end"] and log[1]["outcome"] == "stopped"
    assert log[1]["draws"] == 1 and log[1]["successes"] == 0
    v = sit_out_the_finishing(c)
    assert v.screen == "summary" and "Outcome: stopped" in v.lines
    assert "No retry today." in v.lines       # R16: the lead may not try this task today
    assert "Successes 0/2" in v.lines and "Draws 1" in v.lines
    assert c.take_log() == []                 # the end was written once, at the stop
    v = keys(c, "D", t=62000)
    assert v.screen == "setup" and c.action is None


def test_the_finishing_screen_after_a_stop_says_no_retry_today_R16_R23():
    c = dev()
    keys(c, "D")
    v = stop(c)
    assert v.screen == "finishing" and "No retry today." in v.lines
    assert v.led is None                      # no card's colour: the risky part is over
    c = dev("green", "green", needed=2)       # after a success it is not said
    keys(c, "D D D D D D")
    v = c.view()
    assert v.screen == "finishing" and "No retry today." not in v.lines


def test_a_success_summary_has_no_retry_reminder_R17_R23():
    c = dev("green")
    keys(c, "D D D D")
    c.tick(60000)
    v = c.view()
    assert v.screen == "summary" and "Outcome: success" in v.lines
    assert "No retry today." not in v.lines


def test_a_stop_in_the_timed_warning_also_goes_through_the_finishing_R21_R16_R23():
    c = dev(timed=True, interval=30)
    keys(c, "D")
    c.tick(26000)
    assert c.view().blink
    v = keys(c, "S", t=27000)                 # no question during the warning
    assert v.screen == "finishing" and not v.blink and c.action.state == "stopped"
    c.tick(60000)                             # no timed draw comes in the finishing
    assert c.action.draws == 0 and c.view().screen == "finishing"
    c.tick(87000)
    assert c.view().screen == "summary" and "Outcome: stopped" in c.view().lines


def test_a_power_cut_in_a_stopped_actions_finishing_comes_back_to_it_R16_R23():
    c = dev()
    keys(c, "D")
    stop(c, t=1000)
    assert play_state(c)["screen"] == "finishing" and play_state(c)["ended"] == "finishing"
    c2 = reboot(c, 500000)
    v = c2.view()
    assert v.screen == "finishing" and c2.action.state == "stopped"
    assert "   60 s left" in v.lines             # the minute starts afresh
    c2.tick(559999)
    assert c2.view().screen == "finishing"
    c2.tick(560000)
    assert c2.view().screen == "summary" and "Outcome: stopped" in c2.view().lines
    c3 = reboot(c2, 900000)                # and a cut on the summary comes back to it
    assert c3.view().screen == "summary" and "No retry today." in c3.view().lines
    assert "end" not in events(c2.take_log() + c3.take_log())   # it ended once, at the stop


def test_a_stopped_action_saved_before_the_finishing_existed_resumes_in_it_R16_R23():
    """A stop whose hint was written by the earlier firmware (no finishing in it, `ended`
    the success default) comes back to the finishing, never to the success menu."""
    c = dev()
    keys(c, "D")
    stop(c)
    assert c.hint() == "df"
    c2 = Controller(settings=c.settings, now_ms=0, replay=(since_start(c.log), "d"))
    assert c2.view().screen == "finishing" and c2.action.state == "stopped"


def test_a_power_cut_at_every_flash_operation_of_a_stop_R16_R23():
    """Through the whole App on the board's filesystem: a cut at any program or erase of the
    chip from the stop to the summary boots into the action (never set-up, never the success
    menu), in the finishing or on the summary once that was on flash."""
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(
        dict(config.defaults(), needed=9, ranks=1)).encode()})
    b = Bench(fs)
    b.press("DRAW")                           # start
    fs.chip.record()
    b.press("STOP", "DRAW")                   # stop
    assert b.screen() == "finishing"
    b.step(61000)
    assert b.screen() == "summary"
    for _ in range(20):
        b.step(300)                           # idle passes: the journal into the log
    seen = set()
    for n, mode, image in fs.chip.cuts():
        app, _, _ = boot(image, now=7000000)
        c = app.controller
        v = c.view()
        seen.add(v.screen)
        assert v.screen in ("active", "finishing", "summary"), (n, mode, v.screen)
        if v.screen != "active":
            assert c.action.state == "stopped"
        if v.screen == "finishing":
            assert "No retry today." in v.lines
            c.tick(7060000)
            assert c.view().screen == "summary" and "Outcome: stopped" in c.view().lines
    assert seen == {"active", "finishing", "summary"}


def test_no_rule_number_on_the_end_screens():
    shown = []
    for sequence in ("D S", "D S D"):
        c = dev()
        keys(c, sequence)
        shown += c.view().lines
        c.tick(60000)
        shown += c.view().lines
    assert "Outcome: stopped" in shown
    assert [line for line in shown if RULE_NUMBER.search(line)] == []


# -- the card labels ----------------------------------------------------------------------------
def card_label(c):
    v = c.view()
    assert v.screen == "card"
    assert v.picture.label == v.lines[1] or len(v.lines[1]) > 14   # the picture shows the same label
    return v.lines[1]


def test_a_green_says_which_success_it_is_of_those_needed_R10():
    c = dev("yellow", "yellow", "green", "green", needed=3)
    keys(c, "D D")
    assert card_label(c) == "Setback"         # no number: it is not the draw number
    keys(c, "D D")
    assert card_label(c) == "Setback"
    keys(c, "D D")
    assert card_label(c) == "Success 1 of 3"  # the third draw, the first success
    keys(c, "D D")
    assert card_label(c) == "Success 2 of 3"
    assert not any("#" in line for line in c.view().lines)


def test_automatic_successes_count_in_the_label_and_never_past_those_needed_R11():
    c = dev("green", "green", ranks=2, needed=4, auto=3)
    keys(c, "D D")
    assert card_label(c) == "Success +3: 3/4"  # 1 + min(3, ranks 2): what the card brought
    keys(c, "D D")
    assert card_label(c) == "Success 4 of 4"   # R11: they apply once, the next green is one
    c = dev("green", ranks=3, needed=2, auto=3)
    keys(c, "D D")
    assert c.action.successes == 4 and card_label(c) == "Success +4: 2/2"  # the count at done


def test_a_first_green_says_what_it_brought_with_the_automatic_successes_R11():
    """Found by a player: with one success needed and automatic successes, the first green
    said "Success 1 of 1" though it brought 2. It says what it brought, and the picture keeps
    both numbers whole in its 14 columns."""
    c = dev("green", ranks=1, needed=1, auto=1)
    keys(c, "D D")
    v = c.view()
    assert c.action.successes == 2 and v.lines[1] == "Success +2: 1/1"
    assert v.picture.label == "Won +2: 1/1"
    c = dev("green", ranks=9, needed=9, auto=9)             # the most a green brings: 10
    keys(c, "D D")
    v = c.view()
    assert v.lines[1] == "Success +10: 9/9" and v.picture.label == "Won +10: 9/9"
    assert len(v.lines[1]) <= 16 and len(v.picture.label) <= 14
    c = dev("green", ranks=2, needed=2, auto=0)             # none: a green brings one
    keys(c, "D D")
    assert card_label(c) == "Success 1 of 2"


def test_a_red_says_the_actions_complication_count_R13():
    c = dev("red", "yellow", "red", needed=2)
    keys(c, "D D")
    assert card_label(c) == "Complication 1"
    keys(c, "D D D D")
    assert card_label(c) == "Complication 2" and c.action.draws == 3
    assert c.view().led == "red"


def test_a_black_says_catastrophe_R14():
    c = dev("black", black=1)
    keys(c, "D D")
    assert card_label(c) == "Catastrophe" and c.view().led == "black"
    c = dev("black", black=1, referee=True)
    keys(c, "D D")
    assert card_label(c) == "Catastrophe"


def test_a_card_not_yet_accepted_says_what_it_will_do_if_accepted_R15():
    c = dev("red", "red", "green", ranks=2, auto=2, needed=4, redraws=2)
    keys(c, "D D D")                          # a red, accepted: one complication
    keys(c, "D")
    assert c.action.pending == "red" and c.action.complications == 1
    assert card_label(c) == "Complication 2"  # what it will be once accepted
    keys(c, "H")                              # a redraw: the green instead
    assert c.action.pending == "green" and c.action.successes == 0
    assert card_label(c) == "Success +3: 3/4"  # with the automatic successes (R11)
    keys(c, "D")
    assert c.view().screen == "active" and c.action.successes == 3


def test_a_long_label_keeps_its_number_whole_in_the_picture():
    c = dev("red")
    keys(c, "D")
    c.action.complications = 9
    keys(c, "D")
    v = c.view()
    assert v.lines[1] == "Complication 10" and v.picture.label == "Complication10"
    assert len(v.picture.label) <= 14                # pictures.narrow draws at most 14 characters


@hsettings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(COLOURS[:3]), min_size=1, max_size=8),
       st.integers(1, 3), st.integers(0, 3), st.integers(1, 4))
def test_a_pending_cards_label_is_the_label_it_has_once_applied_R15(colours, ranks, auto, needed):
    rng = AnyPick(*colours)
    c = Controller(settings=dict(config.defaults(), ranks=ranks, auto=auto, needed=needed,
                                 redraws=1), rng=rng, now_ms=0)
    rng.c = c
    keys(c, "D")
    for _ in colours:
        if c.view().screen != "active":
            break
        keys(c, "D")
        colour = c.play.card
        before = card_label(c)
        a = c.action
        successes, complications = a.successes, a.complications
        c.press("DRAW", 0)                    # accept
        if c.view().screen == "card":         # a success or a black stays on show
            assert card_label(c) == before
        if colour == "green":
            gain = a.successes - successes    # R10, R11: what this green brought
            if gain > 1:
                assert before == "Success +%d: %d/%d" % (gain, min(a.successes, a.needed),
                                                         a.needed)
            else:
                assert before == "Success %d of %d" % (min(a.successes, a.needed), a.needed)
            assert a.successes > successes
        elif colour == "red":
            assert before == "Complication %d" % a.complications
            assert a.complications == complications + 1
        else:
            assert before == "Setback"


# -- undo once the action has ended: refused -----------------------------------------------------
def test_undo_is_not_offered_once_a_black_has_ended_the_action_R14():
    c = dev("red", "black", black=1)
    keys(c, "D D D")                          # a red: undo is offered while the action runs
    assert "Undo last draw" in menu(c)
    keys(c, "D")                              # a black, no referee: the action ends at once
    assert c.action.state == "failed"
    log = c.take_log()
    assert events(log)[-1] == "end" and log[-1]["outcome"] == "failed"
    assert "Undo last draw" not in menu(c)
    before = saved.to_dict(c.action)
    with pytest.raises(RuleError, match="ended"):
        c.play.undo_draw()                    # not even called from elsewhere
    assert saved.to_dict(c.action) == before and c.play.undo is not None
    assert "undo" not in events(c.take_log())


@pytest.mark.parametrize("colours,settings,seq", [
    (("green",), {}, "D D D"),                                # succeeded: the success menu
    (("green",), {}, "D D D D"),                              # ... its finishing
    (("yellow",), {}, "D D D S D"),                           # stopped: the finishing
    (("black",), {"black": 1}, "D D D"),                      # failed, its card
])
def test_undo_is_not_offered_after_any_end_R16_R17_R23(colours, settings, seq):
    c = dev(*colours, **settings)
    keys(c, seq)
    assert c.action.state in ("succeeded", "stopped", "failed") and c.play.undo is not None
    assert "Undo last draw" not in menu(c)
    c.tick(60000)                             # the summary, where there is one
    assert "Undo last draw" not in menu(c)


def test_undo_still_takes_back_a_black_the_referee_has_not_decided_R14():
    c = dev("black", black=1, referee=True)
    keys(c, "D D D")
    assert c.action.state == REFEREE          # not ended: the referee decides
    assert "Undo last draw" in menu(c)
    keys(c, "lS R H R H")
    c.shown.cur = c.shown.offered().index("Undo last draw")
    keys(c, "D")
    assert c.action.state == ACTIVE and c.action.draws == 0
    assert events(c.take_log())[-1] == "undo"


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(COLOURS + ("black", "black")), max_size=10),
       st.lists(st.sampled_from(["D", "D", "D", "S", "H", "undo", "undo", "tick", "fail",
                                 "go on"]), max_size=24),
       st.booleans(), st.integers(0, 2))
def test_one_action_ends_once_and_nothing_is_undone_after_its_end(colours, moves, present,
                                                                   redraws):
    rng = AnyPick(*colours)
    c = Controller(settings=dict(config.defaults(), referee=present, redraws=redraws, black=1,
                                 needed=2), rng=rng, now_ms=0)
    rng.c = c
    t = 0
    log = []
    for move in moves:
        t += 1000
        if move in ("undo", "fail", "go on"):
            keys(c, "lS R H R H", t)
            label = {"undo": "Undo last draw", "fail": "Black: fail", "go on": "Black: go on"}
            labels = c.shown.offered()
            if label[move] in labels:
                c.shown.cur = labels.index(label[move])
                keys(c, "D", t)
            if c.shown.locked:
                keys(c, "lS", t)
            elif c.view().screen == "message":
                keys(c, "R", t)
        elif move == "tick":
            t += 60000
            c.tick(t)
        else:
            keys(c, move, t)
        log += c.take_log()
    ended = False
    for record in log:
        if record["ev"] == "start":
            ended = False
        elif record["ev"] == "end":
            assert not ended, "one action ended twice"
            ended = True
        elif record["ev"] == "undo":
            assert not ended, "an ended action was reopened"
    assert "reopen" not in events(log)
