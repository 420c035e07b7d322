"""referee.py: the lock, the referee menu as a table, and the on-demand loading of the rare
screens' code (referee, options, the action's end), under CPython and in the MicroPython VM."""
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from conftest import FIRMWARE
from carddraw import config, controller, lockcode, referee
from carddraw.action import ACTIVE, REFEREE
from carddraw.controller import Controller, ON_DEMAND
from carddraw.deck import COLOURS
from handheld import AnyPick, keys
LABELS = [item[0] for item in referee.MENU]


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
    if a is not None and c.undo is not None and a.state in (ACTIVE, REFEREE):
        items.append("Undo last draw")                               # an ended action: never
    if a is not None and a.state in (ACTIVE, REFEREE):
        items.append("End action")
    items.append("Change code")
    if a is None:  # the referee's task: frozen or not, from set-up only (issue 10)
        items.append("Unfreeze task" if c.settings["frozen"] else "Freeze task")
    return items


def menu_rows(c):
    keys(c, "lS R H R H")
    assert c.view().screen == "refmenu"
    rows = []
    for _ in range(len(LABELS)):
        rows.append(next(x[1:].rstrip() for x in c.view().lines if x.startswith(">")))
        c.press("HELP", 0)
    keys(c, "lS")
    return sorted(set(rows), key=LABELS.index)


def test_the_menu_is_a_table_of_label_rule_and_deed():
    assert len(LABELS) == len(set(LABELS)) == 9
    for label, when, deed in referee.MENU:
        assert isinstance(label, str) and len(label) <= 15 and callable(when) and callable(deed)


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
    assert [item[0] for item in referee.offered(c)] == want
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
        assert [item[0] for item in referee.offered(c)] == expected_items(c)


def test_the_lock_opens_only_with_the_code_and_never_logs_it():
    c = device()
    assert lockcode.presses(c) == 4 and lockcode.matches(config.DEFAULT_LOCK, "RHRH")
    assert not lockcode.matches(config.DEFAULT_LOCK, "SSSS")
    assert keys(c, "lS S S S S").screen == "message" and "Wrong" in c.view().lines[0]
    keys(c, "D lS R H R H")
    assert c.view().screen == "refmenu"
    c.take_log()
    assert lockcode.keep(c, "DDSS") is None
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
    assert "S D S" in c.view().lines[3] and "hold D: save" not in c.view().lines
    keys(c, "D")
    assert "hold D: save" in c.view().lines
    keys(c, "lD")
    assert lockcode.matches(c.settings["lock"], "SDSD") and c.view().lines[0] == "Code saved"
    assert "SDSD" not in repr(c.take_log())


# -- loaded on demand ---------------------------------------------------------------------------
PROBE = """
import sys
from carddraw.controller import Controller, LOADED

def rare():
    # the on-demand modules in use (in the tables), and those in RAM (sys.modules); draws.py
    # (the action's code) comes with the action and stays while it lasts, the Action with it
    return [sorted(LOADED), sorted(m[9:] for m in sys.modules if m in
                                   ("carddraw.referee", "carddraw.options", "carddraw.outcome",
                                    "carddraw.draws", "carddraw.action"))]

c = Controller(settings=None)
seen = [rare()]
for name in ("RANK", "HELP", "DRAW", "DRAW"):   # set-up, start, a card
    c.press(name, 0)
    c.view()
seen.append(rare())
c.long("STOP", 0)
c.view()
seen.append(rare())                              # the lock: referee.py in
for name in ("RANK", "HELP", "RANK", "HELP"):
    c.press(name, 0)
    c.view()
seen.append([c.view().screen, rare()])
c.long("STOP", 0)
c.view()
seen.append([c.view().screen, rare()])         # left: dropped again
c = Controller(settings=None)
c.long("DRAW", 0)
c.view()
c.tick(10)          # a clock tick on a screen with no clock handler loads nothing again
c.tick(20)
seen.append([c.view().screen, rare()])
c.press("STOP", 0)
c.view()
seen.append([c.view().screen, rare()])
RESULT = seen
"""
NONE = [[], []]
PLAYING = [["draws"], ["action", "draws"]]
WITH_REFEREE = [["draws", "referee"], ["action", "draws", "referee"]]
WANT = [NONE, PLAYING, WITH_REFEREE, ["refmenu", WITH_REFEREE], ["card", PLAYING],
        ["options", [["options"], ["options"]]], ["setup", NONE]]


def test_rare_screens_load_on_demand_under_cpython():
    """Not imported by the controller, loaded when shown, out of the tables when closed
    (CPython keeps the module itself: see controller.unload)."""
    script = PROBE + "\nimport json; print(json.dumps(RESULT))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=FIRMWARE))
    assert done.returncode == 0, done.stderr
    kept = ["action", "draws", "options", "referee"]
    assert json.loads(done.stdout) == WANT[:4] + [
        ["card", [["draws"], ["action", "draws", "referee"]]],
        ["options", [["options"], kept]], ["setup", [[], kept]]]


def test_rare_screens_load_on_demand_and_leave_ram_after_in_micropython(vm):
    assert vm(PROBE) == WANT


def test_every_on_demand_screen_has_its_code_and_the_tables_stay_whole():
    c = device()
    for screen, name in ON_DEMAND.items():
        assert controller.code_for(controller.LINES, screen) is not None, screen
        module = sys.modules["carddraw." + name]
        assert screen in module.LINES
    for name in set(ON_DEMAND.values()):
        controller.unload(name)
    assert not set(ON_DEMAND) & set(controller.LINES) and not controller.LOADED
    assert c.view().screen == "setup"
