"""Set-up shows exactly the deck, chance and risks the started action then has (R2-R8, R7,
R11, R26), whatever action came before it, and a start logs and shows the figures set-up
worked out (or works them out afresh when the settings changed in the same pass).
"""
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from carddraw.controller import Controller
from carddraw import settings as known
from carddraw.odds import action_odds, action_risk, success_chance
from carddraw.texts import deck_line, odds_words, pct, risk_line
from handheld import dev, keys
from pick import Pick


SETTINGS = dict(skill=st.sampled_from(["surgery", "repair", "scan"]), ranks=st.integers(0, 9),
                helpers=st.integers(0, 9), bonus=st.integers(0, 9),
                cards=st.tuples(*[st.integers(0, 9)] * 4), needed=st.integers(1, 9),
                auto=st.integers(0, 9), redraws=st.integers(0, 9), referee=st.booleans())


def raw_settings(skill, ranks, helpers, bonus, cards, needed, auto, redraws, referee):
    return dict(skill=skill, ranks=ranks, helpers=helpers, bonus=bonus, needed=needed,
                auto=auto, redraws=redraws, referee=referee,
                **dict(zip(("green", "yellow", "red", "black"), cards)))


def setup_chance(c):
    """The chance set-up shows, as the text after its label ("Chance", "Need N")."""
    return c.view().lines[5].split(None, 2)[-1].strip()


@hsettings(max_examples=300, deadline=None)
@given(**SETTINGS)
def test_set_up_shows_the_deck_and_chance_the_started_action_has(**drawn):
    c = Controller(settings=raw_settings(**drawn))
    action = known.action_from(c.settings)  # what DRAW starts (R3 has lifted rank 0 to 1)
    lines = c.view().lines
    assert deck_line(action.deck.counts()) in lines  # R2-R8
    needed = drawn["needed"]
    label = "Need %d  " % needed if needed > 1 else "Chance  "
    assert label + pct(success_chance(action)) in lines  # R7, R11, R26
    _, red, black, _, _ = action_risk(action)
    assert lines[5].startswith(label) and lines[6] == risk_line(red, black)  # under it
    assert len(lines) == 8 and all(len(x) <= 16 for x in lines) and len(lines[0]) <= 14
    c.press("DRAW", 0)
    v = c.view()
    assert v.screen == "active" and c.action.deck.counts() == action.deck.counts()
    assert v.lines[3] == lines[6] == v.picture.foot[0]         # the risks the action then shows


def test_set_up_shows_the_risks_under_the_chance_in_the_active_screens_words():
    """Set-up shows the risks beside the chance as the active screen does, in the cards' own
    names: "Red" the chance of a red card (a complication, R13) before the action ends,
    "Black" of a black (R14); the tally counts the reds drawn, in other words."""
    c = dev(ranks=2, helpers=1, red=1)               # issue 11's common task
    lines = c.view().lines
    assert lines[5] == "Chance   99.6%" and lines[6] == "Red 29% Black<1%"
    v = keys(c, "D")
    assert v.lines[3] == "Red 29% Black<1%" and v.lines[4] == "Won 0/1 Reds 0"
    assert v.picture.foot == ("Red 29% Black<1%", "Won 0/1 Reds 0")
    assert risk_line(1.0, 1.0) == "Red100%Black100%"
    assert odds_words(None) == ("   ...", "Red ... Black...")  # not worked out yet: 16 columns
    # the default referee code asks for a new one on the hint line, in the 8 lines
    assert lines[7] == "Set referee code" and len(lines) == 8
    frozen = dev(frozen=True, black=1).view().lines
    assert "Ref: +1 black" in frozen and frozen[6].startswith("Red ")


@hsettings(max_examples=200, deadline=None)
@given(**SETTINGS)
def test_the_first_active_screen_shows_set_ups_chance_after_another_action(**drawn):
    """Found by a referee: a new action whose deck equals the previous action's showed the
    previous action's chance and risks on its first active screen, even with other successes
    needed or automatic successes (default settings, one action played, then needed 3:
    set-up said 77.9%, the first active screen 99.7%). The odds belong to the action in play,
    worked out for everything they depend on (R7, R11, R26). Here the first action has the
    same deck and needs 1 success with no automatic ones; the second needs what was drawn.
    (A press shows the changes: ranks up, and down again.)"""
    raw = raw_settings(**drawn)
    c = Controller(settings=dict(raw, needed=1, auto=0), rng=Pick("yellow"))
    c.press("DRAW", 0)                     # an action with the same deck ...
    assert c.view().screen == "active"
    keys(c, "S D")                         # ... stopped (R16): the finishing, then set-up
    c.tick(61000)
    keys(c, "D")
    assert c.view().screen == "setup"
    for name in ("green", "yellow", "red", "black", "needed", "auto"):  # the same cards (R6
        c.change(name, raw[name])                                      # reset them), new needs
    keys(c, "R lR")
    want = setup_chance(c)
    c.press("DRAW", 0)
    v = c.view()
    assert v.screen == "active" and v.lines[2] == "Chance  " + "%6s" % want
    assert v.picture.chance == want                # the large digits too


@pytest.mark.parametrize("ranks,helpers,red,black,needed,auto", [
    (1, 0, 0, 0, 1, 0), (3, 2, 2, 1, 3, 0), (5, 1, 0, 2, 4, 2), (2, 2, 3, 0, 2, 1),
    (4, 0, 1, 1, 5, 3)])
def test_a_start_logs_and_shows_the_figures_set_up_worked_out(monkeypatch, ranks, helpers,
                                                               red, black, needed, auto):
    """R26: set-up's chance and risks are the started action's (the same sweep), so the
    start logs and its first screen shows them without working them out again."""
    import carddraw.play as play_module
    c = dev(ranks=ranks, helpers=helpers, red=red, black=black, needed=needed, auto=auto)
    c.view()                       # set-up on show: its figures worked out
    sweeps = []
    monkeypatch.setattr(play_module, "action_odds",
                        lambda a: sweeps.append(a) or action_odds(a))
    c.take_log()
    view = keys(c, "D")            # the start, and its first frame
    start = [r for r in c.take_log() if r["ev"] == "start"][0]
    assert view.screen == "active" and sweeps == []
    fresh = action_risk(c.action)[:3]
    assert start["chance"] == round(fresh[0], 4)
    odds = c.play.odds_shown()
    assert (odds.chance, odds.red, odds.black) == fresh and sweeps == []


def test_a_start_without_set_ups_figures_works_them_out():
    """Set-up's figures are for the settings as they were: a start in the same pass as a
    change (no frame between) works them out afresh."""
    c = dev(ranks=2, red=1)
    c.view()
    c.press("RANK", 0)             # ranks 3: set-up's figures are for ranks 2 now
    c.press("DRAW", 0)
    start = [r for r in c.take_log() if r["ev"] == "start"][0]
    assert c.action.ranks == 3
    assert start["chance"] == round(action_risk(c.action)[0], 4)
