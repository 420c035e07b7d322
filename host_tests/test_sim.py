"""The simulator (tools/sim): the unmodified firmware in the MicroPython VM on the stand-ins.

Driven as a person or a bench would: bench-protocol scripts (simulated time), keys piped in,
the real-time terminal on a pseudo-terminal, the flash kept in a host folder across restarts,
and the I2C traffic a draw costs, counted by the stand-in's SSD1306 decoder.
"""
import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import ROOT, run_in_vm
from carddraw.action import Action
from ptysim import PtySim

SIM = os.path.join(ROOT, "tools", "sim", "sim.mjs")
# an action with something to it: 2 ranks, 1 helper, 1 red difficulty card, 2 successes needed
PARAMS = dict(skill="surgery", ranks=2, helpers=1, red=1, needed=2)
SETUP = """
press RANK
press HELP
# options: down to "Add red", raise it; down to "Needed", raise it; back to set-up
long DRAW
press HELP
press HELP
press DRAW
press HELP
press DRAW
press HELP
press HELP
press DRAW
press HELP
press DRAW
press STOP
"""


def sim(args=(), stdin="", timeout=60):
    done = subprocess.run(["node", SIM, *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)
    return done


def replies(done):
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def engine_runs():
    """In the VM, the engine alone with the device's generator (carddraw.rng) seeded 1, 2, ...:
    the first seed whose action takes 3+ draws, has a non-green and succeeds; -> (seed,
    [the action after each draw])."""
    return run_in_vm(textwrap.dedent("""
        from carddraw.action import Action
        from carddraw.rng import Rng
        RESULT = None
        for seed in range(1, 200):
            rng = Rng(seed)
            a = Action(**%r)
            steps = []
            while a.state == "active":
                c = a.draw(rng)
                a.accept()
                steps.append({"card": c, "deck": list(a.deck.counts()), "successes": a.successes,
                              "complications": a.complications, "draws": a.draws,
                              "state": a.state})
            if len(steps) >= 3 and a.state == "succeeded" and any(s["card"] != "green" for s in steps):
                RESULT = [seed, list(Action(**%r).deck.counts()), steps]
                break
    """ % (PARAMS, PARAMS)))


def test_scripted_action_plays_to_the_end_exactly_as_the_engine_draws(tmp_path):
    seed, deck0, steps = engine_runs()
    script = SETUP + "unlock RHRH\nseed %d\npress DRAW\nshow\n" % seed   # the default code
    script += "press DRAW\nshow\npress DRAW\nshow\n" * len(steps)
    # success: pick "finish" (R23), a minute of roleplay on simulated time, then the summary
    script += "press DRAW\nshow\nwait 61000\nshow\n"
    path = tmp_path / "action.txt"
    path.write_text(script)
    t = time.monotonic()
    out = replies(sim(["--script", str(path)]))
    took = time.monotonic() - t
    assert not [r for r in out if "error" in r], out
    shows = [r for r in out if "lines" in r]
    assert shows[0]["screen"] == "active" and shows[0]["deck"] == deck0
    assert shows[0]["needed"] == 2 and shows[0]["draws"] == 0

    # after each draw, the card screen reports what the engine, seeded alike, gives
    check = Action(**PARAMS)
    for i, step in enumerate(steps):
        card, after = shows[1 + 2 * i], shows[2 + 2 * i]
        assert card["screen"] == "card"
        assert card["led"] == step["card"]          # the LED shows the drawn card's colour
        for k in ("deck", "successes", "complications", "draws", "state"):
            assert card[k] == step[k], (i, k, card, step)
        # ... and R10-R14 on CPython, from the reported card, give the same next state
        check.apply(step["card"])
        assert card["deck"] == list(check.deck.counts())
        assert (card["successes"], card["complications"]) == (check.successes, check.complications)
        assert after["draws"] == step["draws"]
    assert check.state == "succeeded"
    finishing, summary = shows[-2], shows[-1]
    assert finishing["screen"] == "finishing"
    assert summary["screen"] == "summary"           # 61 s passed, simulated
    assert out[-2] == {"ok": "wait"}
    assert took < 30


def test_wait_runs_on_simulated_time():
    t = time.monotonic()
    out = replies(sim(["--protocol"], "wait 60000\nshow\nwait 600000\nshow\n"))
    took = time.monotonic() - t
    assert out[0] == {"ok": "wait"} and out[2] == {"ok": "wait"}
    assert out[1]["screen"] == "setup"
    assert took < 20, "11 simulated minutes took %.1f s" % took


def test_bad_protocol_lines_get_an_error_and_the_device_goes_on():
    bad = ["bogus", "press", "press FOO", "long 7", "wait", "wait x", "wait 9999999",
           "show 1", "seed", "seed -1", "seed 1234567890", "press DRAW DRAW",
           "show " + "x" * 90,          # the firmware's console refuses lines over 80 characters
           "pr\u00e9ss DRAW"]           # ... and bytes that are not text
    out = replies(sim(["--protocol"], "\n".join(bad + ["# a comment", "", "show"]) + "\n"))
    assert len(out) == len(bad) + 1
    for line, r in zip(bad, out):
        assert set(r) == {"error"} and r["error"], (line, r)
    assert out[-1]["screen"] == "setup"


def screen_lines(text):
    """The screen's text as the piped simulator prints it under the picture."""
    return [line[len("   | "):] for line in text.splitlines() if line.startswith("   | ")]


def numbers(line):
    return [int(n) for n in re.findall(r"\d+", line)]


def test_piped_keys_play_through_the_buttons_and_print_the_last_screen():
    done = sim(["--seed", "1"], "rdq")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "\x1b[" not in text                      # no colour into a pipe
    assert "\u2580" in text and "\u2584" in text    # the OLED in half-blocks
    lines = screen_lines(text)
    assert lines[0].startswith("Surgery")           # the action started: ranks 2, the deck
    assert [4, 2, 1, 0] in [numbers(line) for line in lines]
    assert "LED: off" in text
    art = [line for line in text.splitlines() if line.startswith("\u2502 \u2502")]
    assert len(art) == 32 and all(len(line) == 128 + 6 for line in art)


def test_piped_long_presses_and_the_compact_screen():
    # R held: ranks step down (1 -> 9, wrapping); D held: the options menu
    done = sim(["--seed", "1", "--compact"], "R")
    assert [9, 0] in [numbers(line) for line in screen_lines(done.stdout)]   # ranks, helpers
    art = [line for line in done.stdout.splitlines() if line.startswith("\u2502 \u2502")]
    assert len(art) == 16 and all(len(line) == 64 + 6 for line in art)
    assert any(0x2801 <= ord(c) <= 0x28FF for c in "".join(art))   # Braille
    done = sim([], "D x")
    assert screen_lines(done.stdout)[0] == "Options"
    assert "ignored" in done.stderr                 # x is no key


def test_flash_folder_keeps_the_action_across_a_restart(tmp_path):
    flash = str(tmp_path / "flash")
    first = replies(sim(["--protocol", "--flash", flash],
                        "unlock RHRH\nseed 3\npress DRAW\npress DRAW\nshow\n"))
    card = first[-1]
    assert card["screen"] == "card" and card["draws"] == 1
    files = sorted(os.listdir(flash))   # the journal (on flash before anything is shown)
    assert "action.json" not in files and "journal" in files, files
    assert [f for f in os.listdir(os.path.join(flash, "journal")) if f.startswith("j0")]
    # power comes back: the same card, the same deck; no escape from it
    again = replies(sim(["--protocol", "--flash", flash], "show\nlog\n"))
    # ... said seeded until the reboot, then no more (its next cards are random again)
    assert card["lines"][0].endswith("SEED") and "SEED" not in again[0]["lines"][0]
    assert dict(again[0], lines=again[0]["lines"][1:]) == dict(card, lines=card["lines"][1:])
    log = [json.loads(r["log"]) for r in again if "log" in r]
    assert [r["ev"] for r in log][-1] == "resume"
    assert "draw" in [r["ev"] for r in log]


def test_i2c_data_per_draw_is_at_most_one_frame_and_the_oled_shows_the_firmwares_rendering():
    r = run_in_vm(textwrap.dedent("""
        import json
        from machine import SIM
        import simhost
        dev = simhost.Device(seed=5)
        def show():
            return json.loads(json.loads(dev.run_line("show"))["replies"][0])
        data, cmds, same = [], [], []
        SIM.end_frame()
        while len(data) < 30:
            screen = show()["screen"]
            if screen == "setup" or screen == "card" or screen in ("summary", "stopped", "failed", "message"):
                dev.run_line("press DRAW")
            elif screen == "active":
                c0 = SIM.i2c_command_bytes
                SIM.end_frame()
                dev.run_line("press DRAW")
                data.append(SIM.end_frame())
                cmds.append(SIM.i2c_command_bytes - c0)
                same.append(dev.render_view() == json.loads(dev.frame())["screen"])
            elif screen == "success":
                dev.run_line("press HELP")      # chain a new action (R17)
                dev.run_line("press DRAW")
            else:
                raise Exception(screen)
        RESULT = {"data": data, "cmds": cmds, "same": same, "errors": SIM.i2c_errors}
    """), libs=["tools/sim"])
    assert r["errors"] == []
    assert all(r["same"])
    assert max(r["data"]) <= 1024, r["data"]
    # a typical draw: about half a frame (the stage's four pages, and the foot's hint)
    assert sum(r["data"]) / len(r["data"]) <= 640, r["data"]
    assert min(r["data"]) > 0
    assert max(r["cmds"]) <= 8 * 6, r["cmds"]   # one 6-byte window command per changed page


def test_buttons_go_through_the_pins_and_the_firmwares_debounce():
    r = run_in_vm(textwrap.dedent("""
        import json
        import simhost
        dev = simhost.Device(seed=1)
        def text():   # set-up's ranks and helpers, as the phone view has them
            plan = json.loads(dev.frame())["view"]["plan"]
            return [plan["ranks"], plan["helpers"]]
        out = {}
        dev.hold("RANK"); dev.release("RANK")     # the quickest tap is still a press
        dev.advance(300)
        out["tap"] = text()
        dev.hold("RANK"); dev.advance(500)
        out["held_500"] = text()                   # not long yet, no short either
        dev.advance(500); out["held_1000"] = text()   # long: ranks step down
        dev.release("RANK"); dev.advance(300)
        out["released"] = text()                   # the release of a long press is silent
        dev.press("HELP"); dev.press("HELP"); dev.press("HELP")   # typed fast: three taps
        dev.advance(1000)
        out["three_taps"] = text()
        tones = []
        dev.press("DRAW")
        for i in range(10):
            tones += json.loads(dev.advance(20))["tones"]
        out["tones"] = tones
        out["led"] = json.loads(dev.readout())["led"]
        RESULT = out
    """), libs=["tools/sim"])
    assert r["tap"] == [2, 0]
    assert r["held_500"] == [2, 0]
    assert r["held_1000"] == [1, 0]
    assert r["released"] == [1, 0]
    assert r["three_taps"] == [1, 3]
    assert any(hz for _, hz in r["tones"])        # the click of starting the action


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_real_time_terminal_on_a_pty():
    sim = PtySim("--seed", "2", "--full")
    try:
        sim.read(1.5)
        sim.keys(b"d")              # start the action: a click on the buzzer
        sim.read(0.7)
        sim.keys(b"d")              # draw a card
        sim.read(0.7)
        sim.quit()
    finally:
        sim.close()
    assert sim.ended[0] == sim.pid and os.waitstatus_to_exitcode(sim.ended[1]) == 0
    text = sim.out.decode("utf8", "replace")
    assert "\x1b[?1049h" in text and "\x1b[?1049l" in text   # alternate screen, restored
    assert "\x07" in text                                      # the buzzer rang the bell
    assert "\x1b[38;2;" in text                                # 24-bit colour
    assert "last key: press DRAW" in text
    assert "r h d s: press RANK HELP DRAW STOP" in text
