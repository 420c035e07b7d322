"""What the device holds in RAM while the set-up screen waits (issue 9's boot heap).

Boot loads only the shell (app, board, the display driver, the store's writing side), the
controller with the set-up screen, the deck and the log's line format. The action's code
(draws.py) comes with the action, with the engine's Action, the odds and the card picker,
and goes when the action is over; the set-up screen's chance (R26) is worked out with
odds.py imported for the sum and dropped; settings.py is imported for its checks and by the
screens that change settings. These tests hold that in the MicroPython VM (where dropped
modules really leave), and that the set-up screen shows exactly what the started action
then has: the deck (R2-R8) and the chance (R26).
"""
import textwrap

from hypothesis import given, settings as hsettings, strategies as st

from conftest import FIRMWARE, ROOT, TOOLS_VMLIB, run_in_vm
from carddraw import settings as known
from carddraw.controller import Controller, deck_line
from carddraw.odds import success_chance
from carddraw.draws import pct

SIM = ROOT + "/tools/sim"
BOOT = {"app", "board", "button", "config", "controller", "deck", "logline", "screens",
        "ssd1306", "store"}
ACTION = {"draws", "action", "odds", "rng", "saved", "settings"}


@hsettings(max_examples=300, deadline=None)
@given(skill=st.sampled_from(["surgery", "repair", "scan"]), ranks=st.integers(0, 9),
       helpers=st.integers(0, 9), bonus=st.integers(0, 9),
       cards=st.tuples(*[st.integers(0, 9)] * 4), needed=st.integers(1, 9),
       auto=st.integers(0, 9), redraws=st.integers(0, 9), referee=st.booleans())
def test_set_up_shows_the_deck_and_chance_the_started_action_has(
        skill, ranks, helpers, bonus, cards, needed, auto, redraws, referee):
    raw = dict(skill=skill, ranks=ranks, helpers=helpers, bonus=bonus, needed=needed,
               auto=auto, redraws=redraws, referee=referee,
               **dict(zip(("green", "yellow", "red", "black"), cards)))
    c = Controller(settings=raw)
    action = known.action_from(c.settings)  # what DRAW starts (R3 has lifted rank 0 to 1)
    lines = c.view().lines
    assert deck_line(action.deck.counts()) in lines  # R2-R8
    label = "Need %d " % needed if needed > 1 else "Chance  "
    assert label + pct(success_chance(action)) in lines  # R7, R11, R26
    c.press("DRAW", 0)
    assert c.view().screen == "active" and c.action.deck.counts() == action.deck.counts()


PLAY = textwrap.dedent("""
    import sys
    import handset
    keys = handset.boot()                    # as main() boots: the controller's own rng
    app = keys.app
    out = {"boot": handset.loaded(), "screen": app.controller.view().screen}
    v = keys("RANK")                         # set-up: ranks 2
    out["after_rank"] = handset.loaded()
    from carddraw.settings import action_from
    from carddraw.odds import success_chance, fmt_chance
    want = fmt_chance(success_chance(action_from(app.controller.settings)))
    out["chance"] = [v.lines[6], want]
    for m in ("settings", "odds", "action"):  # what this check itself loaded
        del sys.modules["carddraw." + m]
    out["started"] = [keys("DRAW").screen, handset.loaded()]
    out["drawn"] = [keys("DRAW").screen, handset.loaded()]   # a card
    keys.to_setup()
    out["back"] = [app.controller.view().screen, handset.loaded()]
    RESULT = out
""")


def test_set_up_idles_without_the_actions_code_which_comes_and_goes_with_the_action():
    r = run_in_vm(PLAY, libs=[SIM, TOOLS_VMLIB], firmware=FIRMWARE)
    assert r["screen"] == "setup"
    assert set(r["boot"]) == BOOT                 # no draws, Action, odds, rng, settings
    assert set(r["after_rank"]) == BOOT           # the chance worked out, odds dropped again
    shown, want = r["chance"]
    assert shown.endswith(want) and shown.startswith("Chance")   # R26 for ranks 2
    screen, modules = r["started"]
    assert screen == "active" and {"draws", "action", "odds"} <= set(modules)
    assert "rng" not in modules                   # the generator comes with the first card
    screen, modules = r["drawn"]
    assert screen == "card" and {"draws", "action", "odds", "rng", "saved"} <= set(modules)
    screen, modules = r["back"]
    assert screen == "setup"
    assert set(modules) - BOOT == {"rng"}         # the action's code went; the rng stays (R9)


def test_the_benchs_bare_machine_runs_the_firmware_as_the_board_would():
    """`make bench` measures the heap on tools/benchmarks/bare/machine.py (the board's machine:
    no names of its own, objects made once). It must carry every call the firmware makes, or
    the budget's figure would come from a harness that cannot boot and play."""
    script = PLAY.replace("RESULT = out",
                          "RESULT = [out['screen'], out['drawn'][0], out['back'][0]]")
    bare = ROOT + "/tools/benchmarks/bare"
    assert run_in_vm(script, libs=[bare, TOOLS_VMLIB], firmware=FIRMWARE) == [
        "setup", "card", "setup"]


def in_vm(body):
    """`body` run after handset.boot() (keys, app, sys at hand) in the VM -> its RESULT."""
    script = "import sys\nimport handset\nkeys = handset.boot()\napp = keys.app\n"
    return run_in_vm(script + textwrap.dedent(body), libs=[SIM, TOOLS_VMLIB], firmware=FIRMWARE)


def test_a_module_imported_for_a_call_stays_while_an_open_screen_holds_it():
    """The store's readers and the controller's checks drop settings.py after the call only
    if it came with the call: with the options screen open (which imports it), reading the
    log keeps it, so no second copy is loaded beside the one the screen holds."""
    screen, same, modules = in_vm("""
        keys("lDRAW")                            # the options screen: settings.py comes in
        held = sys.modules["carddraw.options"].known
        app.store.read_log()                     # storeread, for one call
        app.controller.planned()                 # odds, for one sum
        same = sys.modules.get("carddraw.settings") is held
        RESULT = [keys("STOP").screen, same, handset.loaded()]  # set-up: options, settings go
    """)
    assert screen == "setup" and same
    assert set(modules) == BOOT


def test_every_screen_opened_at_set_up_leaves_nothing_behind_when_closed():
    """The lock and referee menu, the options, the difficulty picker, each opened at set-up
    and closed: the modules in RAM are boot's again (what a screen brought goes with it)."""
    r = in_vm("""
        out = []
        for opened, closed in ((["lSTOP", "RANK", "HELP", "RANK", "HELP"], ["lSTOP"]),  # referee
                               (["lSTOP"], ["lSTOP"]),                               # the lock
                               (["lDRAW"], ["STOP"]),                                # options
                               (["STOP"], ["STOP"])):                                # the task
            shown = keys(*opened).screen
            out.append([shown, keys(*closed).screen, handset.loaded()])
        RESULT = out
    """)
    assert [row[0] for row in r] == ["refmenu", "lock", "options", "task"]
    for shown, back, modules in r:
        assert back == "setup" and set(modules) == BOOT, (shown, modules)


def test_closing_the_referee_menu_in_an_action_keeps_what_the_action_holds():
    """draws.py holds settings.py and the Action's module; the referee menu brings them too.
    Closed during the action, it leaves them in RAM (one copy, the action's), and the action
    goes on; cleared, the action takes them with it."""
    r = in_vm("""
        out = [keys("DRAW").screen]                                  # the action starts
        held = sys.modules["carddraw.draws"].known
        out.append(keys("lSTOP", "RANK", "HELP", "RANK", "HELP").screen)  # the referee menu
        out.append(keys("lSTOP").screen)                             # closed
        out.append(sys.modules.get("carddraw.settings") is held)
        out.append("carddraw.action" in sys.modules)
        keys.to_setup()
        out.append([m for m in ("settings", "action") if m in handset.loaded()])
        RESULT = out
    """)
    assert r == ["active", "refmenu", "active", True, True, []]
