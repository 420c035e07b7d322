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

from conftest import FIRMWARE, ROOT, run_in_vm
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
    import gc, os, sys
    try:
        os.mkdir("/flash")
    except OSError:
        pass
    os.chdir("/flash")
    from carddraw.board import Board
    from carddraw.store import Store
    from carddraw.app import App

    def loaded():
        return sorted(m[9:] for m in sys.modules if m.startswith("carddraw."))

    app = App(Board(), Store(), None, 0)     # as main() boots: the controller's own rng
    t = 0
    def press(name):
        global t
        t += 100
        app.button(name, "short", t)
        app.loop_pass(t)
        return app.controller.view()

    app.loop_pass(0)
    out = {"boot": loaded(), "screen": app.controller.view().screen}
    v = press("RANK")                        # set-up: ranks 2
    out["after_rank"] = loaded()
    from carddraw.settings import action_from
    from carddraw.odds import success_chance, fmt_chance
    want = fmt_chance(success_chance(action_from(app.controller.settings)))
    out["chance"] = [v.lines[6], want]
    for m in ("settings", "odds", "action", "deck"):   # what this check itself loaded
        if m != "deck":
            del sys.modules["carddraw." + m]
    v = press("DRAW")                        # start
    out["started"] = [v.screen, loaded()]
    v = press("DRAW")                        # a card
    out["drawn"] = [v.screen, loaded()]
    for _ in range(40):                      # on to the end, and back to set-up
        s = app.controller.view().screen
        if s == "setup":
            break
        if s == "finishing":
            t += 61000
            app.loop_pass(t)
        elif s == "active":
            press("STOP")
            press("DRAW")                    # stop (R16): the finishing, then the summary
        else:
            press("DRAW")                    # card: go on; success: finish; summary, failed: done
    out["back"] = [app.controller.view().screen, loaded()]
    RESULT = out
""")


def test_set_up_idles_without_the_actions_code_which_comes_and_goes_with_the_action():
    r = run_in_vm(PLAY, libs=[SIM], firmware=FIRMWARE)
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
    assert run_in_vm(script, libs=[ROOT + "/tools/benchmarks/bare"], firmware=FIRMWARE) == [
        "setup", "card", "setup"]


def test_a_module_imported_for_a_call_stays_while_an_open_screen_holds_it():
    """The store's readers and the controller's checks drop settings.py after the call only
    if it came with the call: with the options screen open (which imports it), reading the
    log keeps it, so no second copy is loaded beside the one the screen holds."""
    r = run_in_vm(textwrap.dedent("""
        import os, sys
        try:
            os.mkdir("/flash")
        except OSError:
            pass
        os.chdir("/flash")
        from carddraw.board import Board
        from carddraw.store import Store
        from carddraw.app import App
        app = App(Board(), Store(), None, 0)
        app.loop_pass(0)
        app.button("DRAW", "long", 100)          # the options screen: settings.py comes in
        app.loop_pass(100)
        held = sys.modules["carddraw.options"].known
        app.store.read_log()                     # storeread, for one call
        app.controller.planned()                 # odds, for one sum
        same = sys.modules.get("carddraw.settings") is held
        app.button("STOP", "short", 200)         # back to set-up: options and settings go
        app.loop_pass(200)
        RESULT = [app.controller.view().screen, same,
                  sorted(m[9:] for m in sys.modules if m.startswith("carddraw."))]
    """), libs=[SIM], firmware=FIRMWARE)
    screen, same, modules = r
    assert screen == "setup" and same
    assert set(modules) == BOOT


def test_every_screen_opened_at_set_up_leaves_nothing_behind_when_closed():
    """The lock and referee menu, the options, the difficulty picker, each opened at set-up
    and closed: the modules in RAM are boot's again (what a screen brought goes with it)."""
    r = run_in_vm(textwrap.dedent("""
        import os, sys
        try:
            os.mkdir("/flash")
        except OSError:
            pass
        os.chdir("/flash")
        from carddraw.board import Board
        from carddraw.store import Store
        from carddraw.app import App
        app = App(Board(), Store(), None, 0)
        t = 0
        def go(*keys):
            global t
            for key in keys:
                t += 100
                long = key.startswith("l")
                app.button(key[long:], "long" if long else "short", t)
                app.loop_pass(t)
            return app.controller.view().screen

        def loaded():
            return sorted(m[9:] for m in sys.modules if m.startswith("carddraw."))
        app.loop_pass(0)
        out = []
        for keys, back in ((["lSTOP", "RANK", "HELP", "RANK", "HELP"], ["lSTOP"]),  # referee
                           (["lSTOP"], ["lSTOP"]),                               # the lock
                           (["lDRAW"], ["STOP"]),                                # options
                           (["STOP"], ["STOP"])):                                # the task
            shown = go(*keys)
            out.append([shown, go(*back), loaded()])
        RESULT = out
    """), libs=[SIM], firmware=FIRMWARE)
    assert [row[0] for row in r] == ["refmenu", "lock", "options", "task"]
    for shown, back, modules in r:
        assert back == "setup" and set(modules) == BOOT, (shown, modules)


def test_closing_the_referee_menu_in_an_action_keeps_what_the_action_holds():
    """draws.py holds settings.py and the Action's module; the referee menu brings them too.
    Closed during the action, it leaves them in RAM (one copy, the action's), and the action
    goes on; cleared, the action takes them with it."""
    r = run_in_vm(textwrap.dedent("""
        import os, sys
        try:
            os.mkdir("/flash")
        except OSError:
            pass
        os.chdir("/flash")
        from carddraw.board import Board
        from carddraw.store import Store
        from carddraw.app import App
        app = App(Board(), Store(), None, 0)
        t = 0
        def go(*keys):
            global t
            for key in keys:
                t += 100
                long = key.startswith("l")
                app.button(key[long:], "long" if long else "short", t)
                app.loop_pass(t)
            return app.controller.view().screen
        app.loop_pass(0)
        out = [go("DRAW")]                                           # the action starts
        held = sys.modules["carddraw.draws"].known
        out.append(go("lSTOP", "RANK", "HELP", "RANK", "HELP"))      # the referee menu
        out.append(go("lSTOP"))                                      # closed
        out.append(sys.modules.get("carddraw.settings") is held)
        out.append("carddraw.action" in sys.modules)
        RESULT = out
    """), libs=[SIM], firmware=FIRMWARE)
    assert r == ["active", "refmenu", "active", True, True]
