"""referee.py: the lock, the referee menu as the rules offer it, a new code."""
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from carddraw import config, lockcode, referee
from carddraw.action import ACTIVE, REFEREE
from carddraw.controller import Controller
from carddraw.deck import COLOURS
from handheld import AnyPick, keys
# every item the referee menu has, in its order
LABELS = ["Black: go on", "Black: fail", "Helper leaves", "Adjust deck", "Undo last draw",
          "End action", "Change code", "Freeze task", "Unfreeze task"]


def device(colours=(), **settings):
    rng = AnyPick(*colours)
    c = Controller(settings=dict(config.defaults(), **settings), rng=rng)
    rng.c = c
    return c


def expected_items(c):
    """The referee menu as the rules allow it now, written out apart from referee.py."""
    a = c.action
    items = []
    if a is not None and a.state == REFEREE:
        items += ["Black: go on", "Black: fail"]                     # R14
    if a is not None and a.state == ACTIVE and a.pending is None:
        items.append("Helper leaves")                                # R18: between draws
        if a.referee:
            items.append("Adjust deck")                              # R19: referee present
    if a is not None and c.play.undo is not None and a.state in (ACTIVE, REFEREE):
        items.append("Undo last draw")                               # an ended action: never
    if a is not None and a.state in (ACTIVE, REFEREE):
        items.append("End action")
    items.append("Change code")
    if a is None:  # the referee's task: frozen or not, from set-up only
        items.append("Unfreeze task" if c.settings["frozen"] else "Freeze task")
    return items


def offered(c):
    """The items the firmware's referee menu offers now."""
    return referee.RefMenu(c, None).offered()


def menu_rows(c):
    keys(c, "lS R H R H")
    assert c.view().screen == "refmenu"
    rows = []
    for _ in range(len(LABELS)):
        rows.append(next(x[1:].rstrip() for x in c.view().lines if x.startswith(">")))
        c.press("HELP", 0)
    keys(c, "lS")
    return sorted(set(rows), key=LABELS.index)


def test_each_item_is_a_label_that_fits():
    for c in (device(), device(frozen=True), device(("black",), referee=True, black=1)):
        keys(c, "D D D" if c.settings["referee"] else "")
        for label in offered(c):
            assert label in LABELS and len(label) <= 15


@pytest.mark.parametrize("colours,settings,seq,want", [
    ((), {}, "", ["Change code", "Freeze task"]),                                # no action
    ((), {"frozen": True}, "", ["Change code", "Unfreeze task"]),
    ((), {}, "D", ["Helper leaves", "End action", "Change code"]),
    (("green",), {"referee": True, "needed": 2}, "D D D",
     ["Helper leaves", "Adjust deck", "Undo last draw", "End action", "Change code"]),
    (("yellow",), {"referee": True, "redraws": 1}, "D D",                         # card pending
     ["Undo last draw", "End action", "Change code"]),
    (("black",), {"referee": True, "black": 1}, "D D D",                          # R14
     ["Black: go on", "Black: fail", "Undo last draw", "End action", "Change code"]),
    (("black",), {"black": 1}, "D D D", ["Change code"]),       # failed: its end is final
    (("green",), {}, "D D D", ["Change code"]),                 # succeeded: the same
])
def test_each_item_is_offered_exactly_when_its_rule_allows(colours, settings, seq, want):
    c = device(colours, **settings)
    keys(c, seq)
    assert expected_items(c) == want
    assert offered(c) == want
    assert menu_rows(c) == want                                  # and on the screen


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(COLOURS), max_size=8),
       st.lists(st.sampled_from(["D", "D", "D", "H", "S", "R", "lS R H R H D", "lS"]),
                max_size=14),
       st.booleans(), st.integers(0, 2))
def test_the_menu_follows_the_rules_in_any_state(colours, presses, present, redraws):
    c = device(colours, referee=present, redraws=redraws, black=1, needed=3)
    for seq in presses:
        keys(c, seq)
        assert offered(c) == expected_items(c)


def test_the_lock_opens_only_with_the_code_and_never_logs_it():
    c = device()
    assert c.lockout.presses() == 4 and lockcode.matches(config.DEFAULT_LOCK, "RHRH")
    assert not lockcode.matches(config.DEFAULT_LOCK, "SSSS")
    assert keys(c, "lS S S S S").screen == "message" and "Wrong" in c.view().lines[0]
    keys(c, "D lS R H R H")
    assert c.view().screen == "refmenu"
    c.take_log()
    assert c.lockout.keep("DDSS")[0] is None
    assert "DDSS" not in c.settings["lock"] and c.take_log()[-1] == {
        "ev": "settings", "ms": 0, "lock": "changed"}
    assert not lockcode.matches(c.settings["lock"], "RHRH")
    assert lockcode.matches(c.settings["lock"], "DDSS")


def test_a_new_code_is_entered_shown_and_kept():
    c = device()
    keys(c, "lS R H R H")
    while not any(x.startswith(">Change code") for x in c.view().lines):
        c.press("HELP", 0)
    keys(c, "D S D S")
    assert "S D S" in c.view().lines[3] and "hold DRAW: save" not in c.view().lines
    keys(c, "D")
    assert "hold DRAW: save" in c.view().lines
    keys(c, "lD")
    assert lockcode.matches(c.settings["lock"], "SDSD") and c.view().lines[0] == "Code saved"
    assert "SDSD" not in repr(c.take_log())


def test_the_recovery_code_s_presses_stay_on_the_screen():
    """During a wait the lock takes the 12-press recovery code: its stars, spaced while they
    fit, stay within the 16 columns (the display would cut the last off)."""
    c = device()
    c.lockout.keep("RHRH")
    c = device(**dict(c.settings, lock_fails=5))   # wrong tries enough for a wait at boot
    keys(c, "lS")
    for n in range(1, lockcode.RECOVERY):
        keys(c, "R")
        stars = c.view().lines[5]
        assert stars.strip().replace(" ", "") == "*" * n and len(stars.rstrip()) <= 16, n
