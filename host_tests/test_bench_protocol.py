"""The protocol's bench commands through App in the MicroPython VM, on the simulator's hardware
stand-ins and a virtual clock: `test led`, `test display`, `test button`, `test draws`, and
`log` streaming the records over many passes, leaving flash work and collections to passes
of their own."""
import json
import os
import sys
import textwrap

import pytest

from conftest import ROOT, run_in_vm
from storelog import read_log

sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import logchain  # noqa: E402

SIMLIB = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")

# App in the VM on the stand-ins (tools/sim) and host_tests/vmlib/app_harness.py
PRELUDE = """
from app_harness import *   # boot, run, send, one, tap on a virtual clock
OUT = REPLIES
_boot = boot

def boot(seed=1):
    return _boot(seed, watchdog=True)

def lit():
    n = 0
    for b in SIM.screen():
        while b:
            b &= b - 1
            n += 1
    return n
"""


def vm(body):
    return run_in_vm(PRELUDE + textwrap.dedent(body), libs=[SIMLIB, VMLIB])


def test_test_led_sets_the_led_until_the_test_ends_and_the_display_says_so():
    r = vm("""
        app = boot()
        one(app, "unlock RHRH")          # test led can fake a card: bench mode
        out = {}
        for c in ("green", "yellow", "red", "black", "purple", "off"):
            reply = one(app, "test led " + c)
            run(app, 100)
            out[c] = [reply, list(SIM.led_rgb()), SIM.text_art().count("\\u2588") > 0,
                      app.controller.view().screen]
        one(app, "test led red")
        out["show"] = one(app, "show")
        out["end"] = one(app, "test end")
        run(app, 100)
        out["after"] = [list(SIM.led_rgb()), app.face.drawn.screen if app.face.drawn else None, app.console.test]
        RESULT = out
    """)
    rgb = {"green": [0, 255, 0], "yellow": [255, 160, 0], "red": [255, 0, 0],
           "black": [160, 0, 255], "purple": [160, 0, 255], "off": [0, 0, 0]}
    for c in rgb:
        reply, led, drawn, screen = r[c]
        name = "black" if c == "purple" else c
        assert reply == {"ok": "led", "colour": name, "rgb": rgb[c]}, c
        assert led == rgb[c], c                    # the pins drive what the reply says
        assert drawn                               # the test's screen is up
        assert screen == "setup"                   # the controller's view is only suspended
    assert r["show"]["screen"] == "setup"
    assert r["end"] == {"ok": "end"}
    assert r["after"] == [[0, 0, 0], "setup", None]


def test_test_display_shows_the_pattern_and_counts_its_pixels():
    r = vm("""
        app = boot()
        run(app, 100)
        one(app, "unlock RHRH")          # bench mode: a test takes the display over
        reply = one(app, "test display")
        run(app, 100)
        px = [SIM.pixel(x, y) for x, y in ((0, 0), (127, 63), (0, 30), (64, 0), (1, 1),
                                           (9, 1), (9, 9), (1, 9), (17, 17), (9, 17), (126, 62))]
        RESULT = {"reply": reply, "lit": lit(), "px": px}
    """)
    assert r["reply"] == {"ok": "display", "lit": 4286, "pixels": 8192}
    assert r["lit"] == 4286                          # what the OLED shows, read from the stand-in
    # the border, then the squares: (1,1) in a lit square, (9,1) beside it, rows alternate
    assert r["px"] == [1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1]


def test_test_button_answers_a_physical_press_which_does_nothing_else():
    r = vm("""
        app = boot()
        run(app, 100)
        one(app, "unlock RHRH")          # bench mode: `test button` holds every press
        out = {}
        del OUT[:]
        app.line("test button 5000")
        app.line("show")
        run(app, 1000)
        out["waiting"] = [list(OUT), len(app.console.queue)]    # show waits behind the test
        tap(app, "RANK")
        run(app, 60)
        out["short"] = [json.loads(x) for x in OUT]
        del OUT[:]
        app.line("test button 5000")
        run(app, 100)
        SIM.press("DRAW")
        run(app, 1000)
        out["long"] = [json.loads(x) for x in OUT]
        SIM.release("DRAW")
        run(app, 200)
        t0 = CLOCK.t
        out["none"] = send(app, "test button 1500")
        out["took"] = CLOCK.t - t0
        out["screen"] = app.controller.show()
        RESULT = out
    """)
    assert r["waiting"] == [[], 1]
    assert r["short"][0] == {"ok": "button", "button": "RANK", "kind": "short"}
    assert r["short"][1]["screen"] == "setup"
    assert r["long"] == [{"ok": "button", "button": "DRAW", "kind": "long"}]
    assert r["none"] == [{"error": "no button pressed in 1500 ms"}]
    assert 1500 <= r["took"] <= 1560
    # the test's presses reached nothing: still ranks 1 on the set-up screen, no options menu
    assert r["screen"]["screen"] == "setup" and r["screen"]["lines"][1] == "Rank 1 Helpers 0"


def test_any_press_ends_a_test_a_press_of_a_button_doing_nothing_else():
    r = vm("""
        app = boot()
        run(app, 100)
        one(app, "unlock RHRH")
        one(app, "test led green")
        tap(app, "HELP")                  # a press of the button: ends the test only
        a = [app.console.test, list(SIM.led_rgb()), app.controller.view().lines[1]]
        one(app, "test display")
        b = one(app, "press HELP")        # a press line: ends the test only, as the button
        run(app, 60)
        RESULT = [a, [app.console.test, b, lit() != 4286, app.controller.view().lines[1]]]
    """)
    assert r[0] == [None, [0, 0, 0], "Rank 1 Helpers 0"]
    assert r[1][0] is None and r[1][1]["ok"] == "press" and r[1][2]
    assert r[1][3] == "Rank 1 Helpers 0"


def test_test_draws_samples_the_setup_deck_with_the_controllers_rng_and_changes_nothing():
    r = vm("""
        from carddraw.action import Action
        from carddraw.deck import COLOURS
        from carddraw.rng import Rng
        app = boot()
        send(app, "press RANK", "press HELP")     # ranks 2, one helper: G5 Y2 R1
        run(app, 100)
        records = len(read_log(app.store)[0])
        send(app, "unlock RHRH", "seed 9")
        before = [app.controller.show(), dict(app.controller.settings),
                  app.controller.settings_version]
        got = one(app, "test draws 3000")
        after = [app.controller.show(), dict(app.controller.settings),
                 app.controller.settings_version]
        log = read_log(app.store)[0]
        # the engine alone, seeded alike
        rng = Rng(9)
        a = Action("surgery", 2, 1)
        want = [0, 0, 0, 0]
        for i in range(3000):
            want[COLOURS.index(a.draw(rng))] += 1
            a.pending = None
        import os
        refused = send(app, "press DRAW", "test draws 5")
        RESULT = {"got": got, "want": want, "same": before == after, "new_log": log[records:],
                  "action_file": "action.json" in os.listdir(), "refused": refused[1]}
    """)
    assert r["got"] == {"ok": "draws", "n": 3000, "deck": [5, 2, 1, 0], "counts": r["want"]}
    assert sum(r["want"]) == 3000 and r["want"][3] == 0
    assert r["same"]
    assert [x["ev"] for x in r["new_log"]] == ["bench", "seed"]   # the draws left no trace
    assert r["refused"] == {"error": "test draws only on the set-up screen"}


def test_log_streams_every_record_one_line_each_over_many_passes():
    r = vm("""
        app = boot()
        send(app, "unlock RHRH", "seed 3", "press DRAW", "press DRAW", "press DRAW")
        run(app, 1000)                 # idle passes: the journal's records into the log
        import os
        newest = "log/" + sorted(n for n in os.listdir("log") if n.startswith("log.0"))[-1]
        with open(newest, "a") as f:
            f.write("{torn line\\n")
        read_log(app.store)           # finds the torn line and logs {"ev": "damage"} once
        records = read_log(app.store)[0]
        per_pass = []
        write = app.console.write
        def counted(text):
            per_pass[-1] += 1
            write(text)
        app.console.write = counted
        app.line("log")
        del REPLIES[:]
        while not REPLIES or "ok" not in json.loads(REPLIES[-1]):
            per_pass.append(0)
            run(app, 20)
        out = [json.loads(x) for x in REPLIES]
        RESULT = {"out": out, "records": records, "per_pass": per_pass}
    """)
    out, records = r["out"], r["records"]
    lines = [x["log"] for x in out[:-1]]              # each line's text as on flash
    assert [{k: v for k, v in json.loads(x).items() if k not in ("seq", "h")} for x in lines] == records
    assert [x["ev"] for x in records] == ["bench", "seed", "start", "draw", "accept", "end", "damage"]
    assert logchain.verify(lines)[0]                  # the torn line is no record: the chain holds
    assert out[-1] == {"ok": "log", "records": len(records), "damaged": 1,
                       "device": "e6605838834a7b2c"}
    # a few lines a pass, never the whole log in one: a long log cannot hold up the loop
    assert len(r["per_pass"]) > 1 and max(r["per_pass"]) <= 8


QUIET = 8      # logexport's passes of lines before one left quiet for a collection
WAIT_MAX = 50  # logexport's passes left to the idle housekeeping before it moves records


@pytest.mark.parametrize("pressing", [False, True])
def test_the_export_leaves_flash_work_and_collections_to_passes_of_their_own(pressing):
    """An export started while the journal still holds the presses' records: the idle
    housekeeping moves them into the log, a step a pass, before a line is read; no pass
    both works the flash and collects garbage or sends lines (each is tens of ms on the
    chip), and the lines leave a quiet pass for a collection every QUIET passes. With
    presses in every pass (no idle pass), the export moves them itself after WAIT_MAX
    passes, still a step a pass."""
    r = vm("""
        PRESSING = @PRESSING@
        import carddraw.app as A
        app = boot()
        send(app, "unlock RHRH", "seed 3")
        run(app, 1000)
        for i in range(30):            # records enough for lines over more than QUIET passes
            send(app, "seed %d" % (4 + i))
        run(app, 1000)
        send(app, "press DRAW")        # the action starts
        run(app, 1000)
        send(app, "press DRAW", "press HELP")  # a draw's records, waiting in the journal
        passes = []
        real_collect, real_hk, write = A.COLLECT, app.store.housekeep, app.console.write
        def collect():
            passes[-1][0] += 1
            real_collect()
        def housekeep():
            worked = real_hk()
            passes[-1][1] += worked
            return worked
        def counted(text):
            passes[-1][2] += "log" in json.loads(text)
            write(text)
        A.COLLECT, app.store.housekeep, app.console.write = collect, housekeep, counted
        waiting = app.store.journal.waiting(app.store.logfile.seq)  # records not in the log
        app.line("log")
        del REPLIES[:]
        while not REPLIES or "ok" not in json.loads(REPLIES[-1]):
            passes.append([0, 0, 0])
            if PRESSING:
                app.busy = CLOCK.t + 20   # as if the pass about to run answered a press
            run(app, 20)
        RESULT = {"passes": passes, "waiting": waiting, "done": json.loads(REPLIES[-1]),
                  "records": len(read_log(app.store)[0])}
    """.replace("@PRESSING@", repr(pressing)))
    passes = r["passes"]
    assert r["waiting"] > 0 and r["done"]["records"] == r["records"] > 4
    assert sum(p[1] for p in passes) >= 2                    # records moved: written, closed
    first_work = next(i for i, p in enumerate(passes) if p[1])
    assert (first_work >= WAIT_MAX) == pressing              # the idle passes' work, else its
    first_line = next(i for i, p in enumerate(passes) if p[2])
    assert all(p[1] == 0 for p in passes[first_line:])      # all of them before a line
    for collected, worked, lines in passes:
        assert not (collected and worked) and not (collected and lines) \
            and not (worked and lines)
        assert worked <= 1                                   # one housekeeping step a pass
    sending = passes[first_line:]
    assert sum(p[2] for p in sending) == r["records"]
    run_of_busy = 0
    for collected, _, lines in sending:
        run_of_busy = run_of_busy + 1 if lines else 0
        assert run_of_busy <= QUIET
    assert any(p[0] for p in sending)                        # and a collection among them


def test_test_commands_wake_a_dark_display():
    r = vm("""
        app = boot()
        one(app, "unlock RHRH")
        run(app, 125000)
        off = SIM.oled_on
        one(app, "test led green")
        run(app, 40)
        RESULT = [off, SIM.oled_on, app.face.idle]
    """)
    assert r == [False, True, 0]
