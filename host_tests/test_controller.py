"""The device as a person uses it: button presses and clock ticks against the controller.

Every rule the device exposes is reached from the buttons (R3, R4, R8, R10-R26), here and in
test_controller_play.py (R16-R26), test_controller_lock.py (the referee lock) and
test_controller_resume.py (errors, the log, power cuts); each test names its rule. Here: set-up,
options, the cards drawn (R10-R15), the fuzz and a quick view. The rng is a stand-in that draws
the colours a test asks for.
"""
import json
import os
import random

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from carddraw import config
from carddraw.action import Action
from carddraw.controller import Controller
from carddraw.texts import deck_line, pct
from carddraw.odds import success_chance
from carddraw.settings import check

from controllerkit import events, joined, lines_fit, option, referee
from handheld import dev, keys, play_state, since_start

SKILL = "lD R D S"   # the next skill: options, up to the last row (the skill), next, back


# -- set-up ------------------------------------------------------------------------------------
def test_setup_shows_skill_deck_and_chance_R26():
    c = dev()
    v = c.view()
    assert v.screen == "setup" and v.led is None and not v.blink
    a = Action("surgery", 1)
    assert v.lines[0].startswith("Surgery")
    assert deck_line(a.deck.counts()) in v.lines                      # R2/R3: G3 Y2 R1
    assert v.lines[4] == "Deck 3G 2Y 1R 0B"
    assert "Chance  " + pct(success_chance(a)) in v.lines             # R26, live
    assert c.action is None and play_state(c) is None
    lines_fit(v)


def test_rank_steps_and_wraps_rank_0_only_for_scan_R3():
    c = dev()
    keys(c, "R")
    assert c.settings["ranks"] == 2 and "Deck 4G 2Y 1R 0B" in c.view().lines  # R3: +1 green
    keys(c, "R R R R R R R")
    assert c.settings["ranks"] == 9
    keys(c, "R")
    assert c.settings["ranks"] == 1          # R3: surgery wraps past 0
    keys(c, "lR")
    assert c.settings["ranks"] == 9          # a long press steps down
    keys(c, SKILL + " " + SKILL)
    assert c.settings["skill"] == "scan"
    keys(c, "R")
    assert c.settings["ranks"] == 0          # R3: a scanner may work at rank 0
    assert "Deck 2G 2Y 1R 0B" in c.view().lines
    keys(c, "D")
    assert c.action.ranks == 0 and c.view().screen == "active"


def test_leaving_scan_at_rank_0_lifts_rank_to_1_R3():
    c = dev(skill="scan", ranks=0)
    keys(c, SKILL)
    assert c.settings["skill"] == "surgery" and c.settings["ranks"] == 1
    c2 = Controller(settings={"skill": "repair", "ranks": 0})  # a bad saved setting
    assert c2.settings["ranks"] == 1


def test_helpers_add_at_most_ranks_greens_R4():
    c = dev(ranks=2)
    keys(c, "H")
    assert c.settings["helpers"] == 1 and "Deck 5G 2Y 1R 0B" in c.view().lines
    keys(c, "H H")
    assert c.settings["helpers"] == 3 and "Deck 6G 2Y 1R 0B" in c.view().lines  # min(3, 2)
    keys(c, "H H H H H H H")
    assert c.settings["helpers"] == 0        # wraps 9 -> 0
    keys(c, "lH")
    assert c.settings["helpers"] == 9


def test_skill_cycles_and_names_the_action_R24():
    c = dev()
    seen = []
    for _ in range(3):
        seen.append(c.view().lines[0].split()[0])
        keys(c, SKILL)
    assert seen == ["Surgery", "Repair", "Scan"] and c.settings["skill"] == "surgery"


def test_settings_version_bumps_on_each_change():
    c = dev()
    v0 = c.settings_version
    keys(c, "R")
    assert c.settings_version == v0 + 1
    keys(c, "D")                              # starting changes no setting
    assert c.settings_version == v0 + 1


def test_bad_settings_fall_back_to_defaults():
    s, _ = check({"ranks": 12, "helpers": "2", "timed": 1, "skill": "cooking", "lock": "RRX1",
                  "interval": 45, "needed": 3})
    d = config.defaults()
    assert s["ranks"] == d["ranks"] and s["helpers"] == d["helpers"]
    assert s["timed"] is False and s["skill"] == d["skill"] and s["lock"] == d["lock"]
    assert s["needed"] == 3
    assert Controller(settings=None).settings == config.defaults()


# -- options -----------------------------------------------------------------------------------
def test_options_menu_moves_edits_and_logs():
    c = dev()
    v = keys(c, "lD")
    assert v.screen == "options" and v.lines[1].startswith(">Add green")
    keys(c, "R")                              # up from the top wraps to the bottom
    assert any(x.startswith(">Skill Surgery") for x in c.view().lines)
    keys(c, "R")
    assert any(x.startswith(">Brightness") for x in c.view().lines)
    keys(c, "D H H H H")                      # brightness 3 -> 5, and no further
    assert c.settings["brightness"] == 5
    assert c.take_beeps()[-1] == "error"
    assert any(x.startswith(">Brightness") and x.endswith("<5>") for x in c.view().lines)
    keys(c, "D")
    keys(c, "R R")                            # interval
    keys(c, "D H")
    assert c.settings["interval"] == 50       # R21: 5 s steps
    keys(c, "H H")
    assert c.settings["interval"] == 60       # 60 is the most
    keys(c, "R R R R R R R")
    assert c.settings["interval"] == 30       # 30 the least
    keys(c, "S R")                            # done; up to Timed
    keys(c, "D")
    assert c.settings["timed"] is True
    c.take_log()
    v = keys(c, "S")
    assert v.screen == "setup" and "every 30s" in v.lines[3]
    log = c.take_log()
    assert log[-1]["ev"] == "settings" and log[-1]["interval"] == 30 and log[-1]["timed"]
    assert log[-1]["brightness"] == 5


def test_difficulty_cards_compound_R8():
    c = dev()
    option(c, "yellow", 6)                    # R6 + R8: 8 yellow -> 2 yellow, red 1 + 2 = 3
    assert "Deck 3G 2Y 3R 0B" in c.view().lines
    option(c, "red", 1)                       # 4 red -> 1 red + 1 black
    assert "Deck 3G 2Y 1R 1B" in c.view().lines
    keys(c, "D")
    assert c.action.deck.counts() == (3, 2, 1, 1)


def test_bonus_and_green_cards_R5_R6():
    c = dev()
    option(c, "bonus", 2)
    option(c, "green", 1)
    assert "Deck 6G 2Y 1R 0B" in c.view().lines


# -- drawing -----------------------------------------------------------------------------------
def test_green_adds_a_success_and_leaves_the_deck_R10():
    c = dev("green", needed=2, ranks=2)
    keys(c, "D")
    assert c.view().screen == "active"
    v = keys(c, "D")
    assert v.screen == "card" and v.led == "green"
    assert c.action.successes == 1 and c.action.deck.counts() == (3, 2, 1, 0)
    assert c.take_beeps() == ["click", "card"]
    v = keys(c, "D")
    assert v.screen == "active" and "Won 1/2 Reds 0" in v.lines      # R20: the deck again
    assert v.lines[1] == "Deck 3G 2Y 1R 0B"


def test_automatic_successes_on_the_first_green_R11():
    c = dev("yellow", "green", "green", ranks=2)
    option(c, "needed", 4)                    # R7
    option(c, "auto", 3)                      # R11: min(3, ranks 2) = 2
    keys(c, "D D D")
    assert c.action.successes == 0           # never before a green
    keys(c, "D D")
    assert c.action.successes == 3           # 1 + 2
    keys(c, "D")
    assert c.action.successes == 4 and c.view().screen == "card"
    assert "Success reached!" in c.view().lines
    keys(c, "D")
    assert c.view().screen == "success"


def test_yellow_adds_a_yellow_R12():
    c = dev("yellow", "yellow")
    keys(c, "D D")
    v = c.view()
    assert v.led == "yellow" and v.lines[1] == "Setback"   # what it did, not the draw number
    keys(c, "D")
    assert c.action.deck.counts() == (3, 3, 1, 0)
    keys(c, "D D")                            # 4 yellow -> 1 yellow, red 2 (R8)
    assert c.action.deck.counts() == (3, 1, 2, 0)


def test_red_is_a_complication_and_adds_a_yellow_R13():
    c = dev("red")
    v = keys(c, "D D")
    assert v.led == "red" and v.lines[1] == "Complication 1"   # the action's count
    assert c.action.complications == 1 and c.action.deck.counts() == (3, 3, 1, 0)
    v = keys(c, "D")
    assert "Won 0/1 Reds 1" in v.lines


def test_black_without_referee_fails_at_once_R14():
    c = dev("black", black=1)
    c.take_beeps()
    v = keys(c, "D D")
    assert v.screen == "card" and v.led == "black" and "The action fails" in v.lines
    assert c.action.state == "failed"
    assert c.take_beeps() == ["click", "black", "fail"]
    log = c.take_log()
    assert log[-1]["ev"] == "end" and log[-1]["outcome"] == "failed"
    v = keys(c, "D")
    assert v.screen == "failed" and v.led == "black" and "void." in v.lines  # purple (R14)
    assert "the heart stops" in joined(c)     # R24, surgery's black
    v = keys(c, "D")
    assert v.screen == "setup" and c.action is None


def test_black_with_referee_waits_for_the_referee_behind_the_lock_R14():
    c = dev("black", "black", black=2, referee=True)
    keys(c, "D D D")
    v = c.view()
    assert v.screen == "referee" and v.led == "black" and c.action.state == "referee"
    for k in "R H D S":                       # a player's presses decide nothing
        keys(c, k)
        assert c.view().screen == "referee" and c.action.state == "referee"
    keys(c, "lS R R R R")                     # a wrong code
    assert c.view().screen == "message" and "Wrong code" in c.view().lines[0]
    keys(c, "D")
    assert c.view().screen == "referee" and c.action.state == "referee"
    v = referee(c, "Black: go on")            # continue: the black leaves the deck
    assert v.screen == "active" and c.action.state == "active"
    assert c.action.deck.counts() == (3, 2, 1, 1)
    assert [r for r in c.take_log() if r["ev"] == "referee"][0]["decision"] == "continue"
    keys(c, "D D")
    v = referee(c, "Black: fail")             # end: failure
    assert v.screen == "failed" and c.action.state == "failed"
    log = c.take_log()
    assert [r["decision"] for r in log if r["ev"] == "referee"] == ["end"]
    assert log[-1]["ev"] == "end" and log[-1]["outcome"] == "failed"


def test_redraw_before_the_result_applies_R15():
    c = dev("red", "green", redraws=1)
    keys(c, "D D")
    v = c.view()
    assert v.screen == "card" and v.led == "red" and c.action.pending == "red"
    assert "Redraws left 1" in v.lines and "HELP: redraw" in v.lines
    assert c.action.complications == 0       # not applied yet
    v = keys(c, "H")                          # the red goes back; a new card
    assert v.led == "green" and c.action.redraws_left == 0
    assert c.action.successes == 1           # none left: applies at once
    assert c.action.complications == 0
    log = c.take_log()
    assert events(log) == ["start", "draw", "redraw", "accept", "end"]
    assert log[2]["card"] == "green" and log[2]["left"] == 0


def test_accept_keeps_the_card_and_redraws_stay_R15():
    c = dev("yellow", "red", redraws=2)
    keys(c, "D D")
    keys(c, "D")                              # accept the yellow
    assert c.view().screen == "active" and c.action.redraws_left == 2
    assert c.action.deck.counts() == (3, 3, 1, 0)
    v = keys(c, "D")
    assert v.screen == "card" and "Redraws left 2" in v.lines
    assert v.lines[1] == "Complication 1"     # not yet applied: what it will do if accepted
    keys(c, "D")
    assert c.action.complications == 1 and "Won 0/1 Reds 1" in c.view().lines


# -- fuzz: `make fuzz` runs this with FUZZ_EXAMPLES=20000 -------------------------------------
EVENT = st.one_of(
    st.tuples(st.sampled_from(("press", "long")), st.sampled_from(config.BUTTONS)),
    st.tuples(st.just("tick"), st.integers(0, 70000)),
    st.tuples(st.sampled_from(("code", "power cut")), st.just(None)),
)
SETUP = st.fixed_dictionaries({
    "skill": st.sampled_from(config.SKILLS), "ranks": st.integers(0, 9),
    "helpers": st.integers(0, 9), "black": st.integers(0, 2), "yellow": st.integers(0, 9),
    "needed": st.integers(1, 4), "auto": st.integers(0, 3), "redraws": st.integers(0, 2),
    "referee": st.booleans(), "timed": st.booleans(), "interval": st.sampled_from((30, 45))})
TRANSIENT = ("options", "task", "confirm", "lock", "refmenu", "adjust", "newcode", "message")


@hsettings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 150)), deadline=None)
@given(st.lists(EVENT, max_size=80), st.integers(0, 2 ** 32 - 1), SETUP)
def test_fuzz_controller_invariants(events, seed, setup):
    """Any presses, long presses, ticks, referee visits and power cuts: no crash, every view
    fits, the log is JSON, the settings' version bumps whenever they change, and a power
    cut (the log's records of the action played again, with the hint) comes back to the same
    place, card, undo and all."""
    rng = random.Random(seed)
    c = Controller(settings=setup, rng=rng)
    t = 0
    log = []
    sv, sd = c.settings_version, dict(c.settings)
    for kind, arg in events:
        if kind == "press":
            c.press(arg, t)
        elif kind == "long":
            c.long(arg, t)
        elif kind == "tick":
            t += arg
            c.tick(t)
        elif kind == "code":
            keys(c, "lS R H R H", t)                 # the default code (config.DEFAULT_LOCK)
        else:  # a power cut: the action played again from its records, and the hint
            state = play_state(c)
            screen = c.view().screen
            c = Controller(settings=json.loads(json.dumps(c.settings)), rng=rng, now_ms=t,
                           replay=(since_start(log), c.hint()))
            assert play_state(c) == state
            if screen not in TRANSIENT:
                assert c.view().screen == screen
            log += c.take_log()
            sv, sd = c.settings_version, dict(c.settings)
        v = c.view()
        lines_fit(v)
        for rec in c.take_log():
            assert rec["ev"] != "error", rec
            log.append(json.loads(json.dumps(rec)))
        # the version moves with every change (a code try raises the count before it is
        # compared, and a right code brings it back: moved, with nothing left changed)
        assert c.settings == sd or c.settings_version != sv
        sv, sd = c.settings_version, dict(c.settings)
        if c.action is not None:
            assert min(c.action.deck.counts()) >= 0
            if v.screen == "card":
                assert c.play.card is not None
            if c.action.pending is not None:
                assert c.play.card == c.action.pending and not c.play.applied


# -- a quick view: the odds left out, nothing else --------------------------------------------
@pytest.mark.parametrize("colours,steps,screen", [
    ((), "D", "active"),                                # the deck, its odds left out
    (("red",), "D D", "card"),                          # a card not applied yet
    (("green", "green"), "D D D D", "card"),            # one applied, the action ended
])
def test_a_quick_view_is_the_full_view_but_for_odds_not_worked_out(colours, steps, screen):
    """A press's pass asks for its view quick: the same screen, picture and LED as the view
    made at once, the odds not worked out yet shown as "..." (and worked out by the next full
    view())."""
    quick, full = (dev(*colours, redraws=1, needed=2) for _ in range(2))
    keys(quick, steps)
    keys(full, steps)
    quick.play.odds_key = quick._view = full._view = None  # as after a press: not worked out
    v, w = quick.view(quick=True), full.view()
    assert v.screen == w.screen == screen and v.led == w.led and v.picture is not None
    assert type(v.picture) is type(w.picture) and v.picture.counts == w.picture.counts
    assert v.quick and not w.quick
    if screen == "active":
        assert "Chance     ..." in v.lines and v.picture.chance == "..."
    assert not quick.play.odds_ready()
    assert quick.view() == w and quick.play.odds_ready()  # worked out: the view made at once
