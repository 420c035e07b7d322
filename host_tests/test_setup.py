"""The set-up screen as a table uses it (issue 11) and the referee-prepared task (issue 10).

- The set-up screen shows the whole deck being built: the base (R2), the team's greens from
  ranks, helpers and bonus (R3-R5), the task's difficulty cards (R6), the deck they settle
  into (R8) and the chance (R26).
- Each common difficulty is set in at most 2 presses from set-up, found by a search over
  every button gesture (not a hard-coded key list); the common surgery task takes at most 7
  presses from power-on to the first draw.
- The difficulty cards (R6) reset for each new action, unless the referee froze the task.
- A frozen task: only the referee menu (behind the lock) freezes or unfreezes it; the options
  screen refuses its rows with a message and no set-up press changes them.
(test_setup_chance.py: set-up shows exactly the deck and chance the started action has.)
"""
import itertools
import os

import pytest

from conftest import ROOT
from carddraw import config
from carddraw.controller import Controller
from carddraw import settings as known
from carddraw.settings import OPTIONS, check
from carddraw.texts import deck_line
from handheld import dev, keys
from pick import Pick
# every gesture a player has on set-up but hold STOP (the referee lock: tested apart)
GESTURES = ("R", "H", "D", "S", "lR", "lH", "lD")
COMMON = {"+1 red": (0, 0, 1, 0), "+2 red": (0, 0, 2, 0), "+1 black": (0, 0, 0, 1),
          "yellow": (0, 1, 0, 0)}   # the seed page's usual difficulty and risk cards (R6/R7)
# (the picker's own words: "hold RANK yellow" adds the one yellow, 16 columns)
TASK = ("green", "yellow", "red", "black", "needed", "auto", "redraws", "bonus", "referee",
        "timed", "interval")   # all a referee prepares: the player sets skill, ranks, helpers


def difficulty(c):
    return tuple(c.settings[x] for x in ("green", "yellow", "red", "black"))


def referee(c, label, code="R H R H"):
    keys(c, "lS " + code)
    assert c.view().screen == "refmenu"
    for _ in range(12):
        if any(x.startswith(">" + label) for x in c.view().lines):
            c.press("DRAW", 0)
            return c.view()
        c.press("HELP", 0)
    raise AssertionError("no %r in the referee menu:\n%s" % (label, "\n".join(c.view().lines)))


def finish_by_stopping(c):
    """Stop the running action and press on until set-up is back (R16, R23)."""
    keys(c, "S D")
    for t in range(0, 200000, 1000):
        c.tick(t)
        if c.view().screen == "setup":
            return
        c.press("DRAW", t)
    raise AssertionError("set-up never came back: %s" % c.view().screen)


# -- the deck being built ----------------------------------------------------------------------
def test_setup_shows_each_source_of_the_deck_and_the_difficulty_R2_R8():
    c = dev(ranks=2, helpers=1, red=1)
    lines = c.view().lines
    assert "Rank 2 Helpers 1" in lines          # R3 2 greens for the ranks, R4 1 for the helper
    assert "Task: +1 red" in lines              # R6 the difficulty card
    assert deck_line((5, 2, 2, 0)) in lines     # R2 base 2/2/1 + the above
    assert all(len(x) <= 16 for x in lines) and len(lines) <= 8


def test_setup_names_bonus_greens_and_several_difficulty_colours_R5_R6_R8():
    c = dev(ranks=1, helpers=3, bonus=1, yellow=2, red=3, black=1)
    lines = c.view().lines
    assert "Task: 6 cards" in lines             # a mix of colours: how many; the deck says which
    assert "Task: 5 cards" in dev(yellow=2, red=3).view().lines
    assert "Task: 7 cards" in dev(green=1, yellow=2, red=3, black=1).view().lines
    assert deck_line((5, 1, 2, 2)) in lines      # R5 a bonus green, min(3 helpers, 1 rank) + 1
    # rank; R8: 4 yellow -> 1 + a red; 5 red -> 2 + a black
    assert "Task: none" in dev().view().lines
    most = dev(ranks=9, helpers=9, bonus=9, green=9, yellow=9, red=9, black=9, needed=9)
    assert "Task: 36 cards" in most.view().lines and "Need 9" in most.view().lines[5]
    assert all(len(x) <= 16 for x in most.view().lines)


def test_the_hint_says_how_to_set_the_difficulty():
    c = dev()
    assert "Task: none" in c.view().lines
    v = keys(c, "S")
    assert v.screen == "task"
    shown = " ".join(v.lines)
    for name in COMMON:
        assert name in shown, name                 # every preset named beside its button
    assert all(len(x) <= 16 for x in v.lines) and len(v.lines) <= 8


# -- presses -----------------------------------------------------------------------------------
def reached_in(presses):
    """{difficulty: shortest key sequence} over every gesture sequence of up to `presses`,
    from a fresh set-up, ending back on set-up with nothing else changed."""
    found = {}
    for n in range(1, presses + 1):
        for seq in itertools.product(GESTURES, repeat=n):
            c = dev()
            keys(c, " ".join(seq))
            others = dict(c.settings, green=0, yellow=0, red=0, black=0)
            if c.view().screen == "setup" and others == config.defaults():
                found.setdefault(difficulty(c), seq)
    return found


def test_each_common_difficulty_takes_at_most_2_presses_R6():
    found = reached_in(2)
    for name, cards in COMMON.items():
        assert cards in found, "%s needs more than 2 presses" % name


def test_the_common_surgery_task_takes_at_most_7_presses_to_the_first_draw():
    """Surgery, ranks 2, 1 helper, one extra red (issue 11): from power-on, default settings."""
    found = reached_in(2)
    c = dev("green")
    presses = ["R", "H"] + list(found[COMMON["+1 red"]]) + ["D", "D"]
    keys(c, " ".join(presses))
    action = c.action
    assert (action.skill, action.ranks, action.helpers, action.difficulty) == (
        "surgery", 2, 1, (0, 0, 1, 0))
    assert action.draws == 1 and c.view().screen == "card"
    assert len(presses) <= 7


def test_a_wrong_preset_is_undone_in_the_picker_and_back_leaves_it_as_it_was():
    c = dev()
    keys(c, "S D")
    assert difficulty(c) == (0, 0, 0, 1)
    keys(c, "S lH")                              # none
    assert difficulty(c) == (0, 0, 0, 0) and c.view().screen == "setup"
    keys(c, "S R S S")                           # +1 red, then in and back out: kept
    assert difficulty(c) == (0, 0, 1, 0) and c.view().screen == "setup"
    v = keys(c, "S lD")                          # more: the options menu, skill among them
    assert v.screen == "options"


def test_presets_are_logged_as_settings():
    c = dev()
    c.take_log()
    keys(c, "S H")
    log = c.take_log()
    assert log[-1]["ev"] == "settings" and log[-1]["red"] == 2 and log[-1]["black"] == 0


def test_skill_is_on_the_options_menu_and_leaving_scan_lifts_rank_0_R3_R24():
    c = dev()
    v = keys(c, "lD R")                          # up from the top: the last row, the skill
    assert v.lines[-2].startswith(">Skill Surgery")
    keys(c, "D")
    assert c.settings["skill"] == "repair"
    keys(c, "D S lR")
    assert c.settings["skill"] == "scan" and c.settings["ranks"] == 0   # R3: a scanner at 0
    keys(c, "lD R D S")
    assert c.settings["skill"] == "surgery" and c.settings["ranks"] == 1


# -- the difficulty resets for each action -----------------------------------------------------
def test_difficulty_resets_after_an_action_R6():
    c = dev()
    keys(c, "S R D")                             # +1 red, start
    assert c.action.difficulty == (0, 0, 1, 0)
    finish_by_stopping(c)
    assert difficulty(c) == (0, 0, 0, 0) and "Task: none" in c.view().lines
    assert c.settings["ranks"] == 1              # the team's settings stay


def test_a_frozen_task_keeps_its_difficulty_for_every_action_until_unfrozen():
    c = dev(red=1, needed=2, redraws=1)
    referee(c, "Freeze task")
    assert c.settings["frozen"] is True
    keys(c, "D")                                 # the message, then set-up
    assert c.view().screen == "setup" and "Ref: +1 red" in c.view().lines
    for _ in range(2):
        keys(c, "D")
        assert c.action.difficulty == (0, 0, 1, 0) and c.action.needed == 2
        finish_by_stopping(c)
        assert difficulty(c) == (0, 0, 1, 0)
    referee(c, "Unfreeze task")
    assert c.settings["frozen"] is False
    keys(c, "D D")
    finish_by_stopping(c)
    assert difficulty(c) == (0, 0, 0, 0)


def test_freeze_and_unfreeze_are_logged_and_offered_only_at_setup():
    c = dev()
    c.take_log()
    referee(c, "Freeze task")
    assert {"ev": "settings", "frozen": True} in [
        {k: r[k] for k in r if k in ("ev", "frozen")} for r in c.take_log()]
    keys(c, "D D lS R H R H")                    # an action running: no freeze row
    assert not any("reeze" in x for x in c.view().lines)


# -- a frozen task: refused to anyone without the code -----------------------------------------
@pytest.mark.parametrize("name", TASK)
def test_options_refuse_a_frozen_row_with_a_message(name):
    c = dev(frozen=True)
    before = dict(c.settings)
    keys(c, "lD" + " H" * OPTIONS.index(name) + " D")
    v = c.view()
    assert v.screen == "message" and "referee" in " ".join(v.lines)
    assert keys(c, "H").screen == "options"      # any key: back to the menu
    keys(c, "S")
    assert c.settings == before


def test_options_still_change_the_rest_while_frozen():
    c = dev(frozen=True)
    keys(c, "lD" + " H" * OPTIONS.index("buzzer") + " D")
    assert c.settings["buzzer"] is False
    keys(c, "S lD R D S")                        # the skill: the last row
    assert c.settings["skill"] == "repair" and c.view().screen == "setup"


def test_no_setup_press_changes_a_frozen_task():
    """Every sequence of up to 4 gestures (hold STOP and the code aside): the task's rows and
    the freeze stay as the referee left them."""
    start = dict(config.defaults(), frozen=True, red=2, needed=2, auto=1, redraws=1,
                 referee=True, bonus=1, timed=True, interval=30)
    for n in range(1, 5):
        for seq in itertools.product(GESTURES, repeat=n):
            c = Controller(settings=start, rng=Pick())
            keys(c, " ".join(seq))
            for name in TASK + ("frozen",):
                assert c.settings[name] == start[name], (seq, name)


def test_setup_s_on_a_frozen_task_says_so():
    v = keys(dev(frozen=True, red=1), "S")
    assert v.screen == "message" and "referee" in " ".join(v.lines)


def test_frozen_is_a_setting_checked_like_the_others():
    assert known.FROZEN == TASK
    s, bad = check({"frozen": True})
    assert s["frozen"] is True and bad == []
    s, bad = check({"frozen": 1})
    assert s["frozen"] is False and bad == ["frozen"]
    assert config.defaults()["frozen"] is False


def test_picker_freeze_and_reset_run_in_the_micropython_vm(vm):
    """The same presses in the MicroPython VM: the picker, the difficulty resets for the next
    action, a frozen task keeps it."""
    script = r'''
from carddraw.controller import Controller
from pick import Pick
K = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}
def device():
    rng = Pick("green")
    c = Controller(settings={"ranks": 2, "helpers": 1}, rng=rng)
    rng.c = c
    return c
def keys(c, seq):
    for k in seq.split():
        (c.long if k[0] == "l" else c.press)(K[k[-1]], 0)
        c.settle()
    return c.view()
c = device()
seen = [list(keys(c, "S").lines), c.view().screen]
keys(c, "lR")
seen.append([c.settings["yellow"], c.view().screen])
keys(c, "S H D")
seen.append([list(c.action.difficulty), c.settings["red"]])
c = device()
keys(c, "S D lS R H R H H D D D")
seen.append([c.settings["frozen"], list(c.action.difficulty), c.settings["black"]])
RESULT = seen
'''
    lines, loaded, yellow, reset, frozen = vm(script, libs=[os.path.join(ROOT, "tools",
                                                                        "vmlib")])
    assert lines[0] == "Difficulty" and loaded == "task"
    assert yellow == [1, "setup"]                # +1 yellow, and back to set-up
    assert reset == [[0, 0, 2, 0], 0]            # +2 red for this action, reset for the next
    assert frozen == [True, [0, 0, 0, 1], 1]     # frozen by the referee: +1 black stays
