"""app.py: the loop wiring board -> controller -> LED/buzzer/display and the store, run inside
the MicroPython VM on the hardware stand-ins (tools/sim), and the USB console (protocol.py)
under CPython."""
import json
import os
import textwrap

from conftest import ROOT, run_in_vm
from carddraw.action import Action
from carddraw.deck import Deck
from storelog import read_log

SIM = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")

PRELUDE = "from app_harness import *\n"  # boot, run, send, tap on a virtual clock



def vm(body):
    return run_in_vm(PRELUDE + textwrap.dedent(body), libs=[SIM, VMLIB])


def test_bench_protocol_commands_and_errors():
    r = vm("""
        app = boot()
        send(app, "unlock RHRH")   # bench mode, the default code: seed answers for itself
        RESULT = send(app, "show", "press RANK", "long DRAW", "press HELP", "wait 60000", "show",
                      "seed 5", "bogus", "press", "press PINK", "wait -3", "wait", "seed x",
                      "show me", "press RANK now", "")
        RESULT.append(CLOCK.t)
    """)
    first, press, long, help_, wait = r[:5]
    assert first["screen"] == "setup" and first["state"] is None and len(first["lines"]) <= 8
    assert press == {"ok": "press", "button": "RANK", "screen": "setup"}
    assert long["screen"] == "options" and help_["ok"] == "press"
    assert wait == {"ok": "wait"}
    assert r[5]["screen"] == "options"
    assert "error" in r[6] and "set-up" in r[6]["error"]      # seed only on the set-up screen
    errors = r[7:16]
    assert all(list(e) == ["error"] for e in errors), errors
    assert "press NAME" in errors[0]["error"] and "seed N" in errors[0]["error"]
    assert "RANK, HELP, DRAW or STOP" in errors[1]["error"] and "RANK" in errors[2]["error"]
    assert "milliseconds" in errors[3]["error"] and "milliseconds" in errors[4]["error"]
    assert "whole number" in errors[5]["error"]
    assert r[-1] >= 60000  # the wait held the queue for simulated time


def test_a_played_action_matches_the_engine_and_the_log_has_every_draw():
    r = vm("""
        app = boot()
        send(app, "unlock RHRH", "seed 42", "press DRAW")
        shows = []
        for i in range(30):
            s = send(app, "show")[0]
            shows.append(s)
            if s["state"] != "active":
                break
            send(app, "press DRAW", "press DRAW")
        records, damaged = read_log(app.store)
        RESULT = {"shows": shows, "log": records, "damaged": damaged}
    """)
    shows = [s for s in r["shows"] if s["deck"] is not None]
    assert shows[0]["deck"] == [3, 2, 1, 0] and shows[0]["needed"] == 1
    draws = [rec for rec in r["log"] if rec["ev"] == "draw"]
    assert len(draws) == shows[-1]["draws"] >= 1
    assert r["log"][0]["ev"] in ("start", "seed", "bench") and r["damaged"] == 0
    # from one show to the next the deck changes exactly as the drawn card says (R10-R14)
    for before, rec in zip(shows, draws):
        a = Action(ranks=1)
        a.deck = Deck(*before["deck"])
        a.successes, a.complications = before["successes"], before["complications"]
        a.apply(rec["card"])
        after = next(s for s in shows if s["draws"] == before["draws"] + 1)
        assert list(a.deck.counts()) == after["deck"]
        assert a.successes == after["successes"] and a.complications == after["complications"]


def test_led_changes_before_the_display_and_display_redraws_only_on_change():
    r = vm("""
        app = boot()
        order = []
        led_show, disp_show = app.board.led.show, app.board.display.show
        def led(c):
            if c != app.board.led.colour:
                order.append(("led", c))
            led_show(c)
        def disp():
            order.append(("show", None))
            return disp_show()
        app.board.led.show = led
        app.board.display.show = disp
        run(app, 200)
        quiet = len(order)
        run(app, 2000)
        idle_shows = len(order) - quiet
        send(app, "unlock RHRH", "seed 3", "press DRAW", "press DRAW")
        RESULT = {"order": order[quiet:], "idle_shows": idle_shows, "rgb": SIM.led_rgb(),
                  "view": app.controller.view().led}
    """)
    assert r["idle_shows"] == 0
    order = r["order"]
    first_led = next(i for i, (kind, c) in enumerate(order) if kind == "led" and c)
    assert order[first_led + 1][0] == "show", order
    assert r["view"] in ("green", "yellow", "red", "black") and max(r["rgb"]) > 0


def test_a_draws_pass_reveals_led_frame_then_sound():
    """The pass that draws a card: LED, then the frame, then the buzzer (its sound a few ms
    after the frame, which comes the sooner); the card's picture is what the frame shows."""
    r = vm("""
        app = boot()
        send(app, "unlock RHRH", "seed 3", "press DRAW")
        run(app, 1000)
        order = []
        led_show, disp_show, play = app.board.led.show, app.board.display.show, app.board.buzzer.play
        def led(c):
            if c != app.board.led.colour:
                order.append("led")
            led_show(c)
        def disp():
            order.append("frame")
            return disp_show()
        def sound(pattern, now):
            order.append("buzzer")
            play(pattern, now)
        app.board.led.show, app.board.display.show, app.board.buzzer.play = led, disp, sound
        app.line("press DRAW")         # a press answered in the next pass, as a button's is
        app.loop_pass(CLOCK.t)
        RESULT = {"order": order, "screen": app.controller.screen,
                  "picture": app.face.drawn.picture.kind, "lines": app.face.drawn.lines}
    """)
    assert r["screen"] == "card" and r["order"][:3] == ["led", "frame", "buzzer"], r["order"]
    assert r["picture"] == "card"
    assert r["lines"][0].split()[0] in ("Green", "Yellow", "Red", "Black")


def test_idle_dims_then_turns_off_and_the_waking_press_does_nothing_else():
    r = vm("""
        app = boot()
        run(app, 1000)
        bright = SIM.contrast
        run(app, 30000)
        dim = SIM.contrast
        run(app, 90000)
        off = SIM.oled_on
        before = app.controller.show()
        tap(app, "RANK")
        after = app.controller.show()
        on = SIM.oled_on
        tap(app, "RANK")
        RESULT = {"bright": bright, "dim": dim, "off": off, "on": on, "same": before == after,
                  "lines_after": app.controller.show()["lines"], "lines_before": before["lines"]}
    """)
    assert r["bright"] > r["dim"] and r["off"] is False and r["on"] is True
    assert r["same"]                                   # the waking press changed nothing
    assert r["lines_after"] != r["lines_before"]       # the next press works


def test_a_press_on_a_dimmed_display_acts_and_a_screen_that_changes_by_itself_is_bright():
    """Every press counts: on a dimmed display (30 s idle at set-up) RANK wakes it and adds a
    rank at once. The finishing minute keeps the display awake, and the summary it comes to
    by itself shows at full brightness, its idle clock new: its DRAW acts at the first press."""
    r = vm("""
        app = boot()
        run(app, 1000)
        bright = SIM.contrast
        run(app, 31000)
        dim = SIM.contrast
        tap(app, "RANK")
        after_press = [SIM.contrast, app.controller.show()["lines"][1]]
        send(app, "press DRAW", "press STOP", "press DRAW")   # start, stop: the finishing
        screen = app.controller.screen
        run(app, 59000)
        during = [app.face.idle, SIM.contrast]
        run(app, 2000)                                       # the summary, by itself
        summary = [app.controller.screen, app.face.idle, SIM.contrast]
        run(app, 25000)                                      # under the dimming time
        tap(app, "DRAW")                                     # one press: set-up again
        RESULT = {"bright": bright, "dim": dim, "after_press": after_press, "screen": screen,
                  "during": during, "summary": summary, "end": app.controller.screen}
    """)
    assert r["dim"] < r["bright"]
    assert r["after_press"] == [r["bright"], "Rank 2 Helpers 0"]   # woke and acted
    assert r["screen"] == "finishing" and r["during"] == [0, r["bright"]]
    assert r["summary"] == ["summary", 0, r["bright"]] and r["end"] == "setup"


def test_power_cut_resumes_the_action_so_a_black_is_no_escape():
    r = vm("""
        app = boot()
        send(app, "long DRAW")
        # options: add a black card, then start
        app.controller.settings["black"] = 9
        app.controller.settings_version += 1
        send(app, "press STOP", "unlock RHRH", "seed 1", "press DRAW")
        for i in range(20):
            s = send(app, "press DRAW")
            if app.controller.action.state != "active":
                break
        before = app.controller.show()
        app2 = boot(seed=99)           # power cut: a new app on the same flash
        after = app2.controller.show()
        RESULT = {"before": before, "after": after}
    """)
    assert r["before"]["state"] in ("failed", "succeeded")
    for key in ("screen", "state", "deck", "successes", "complications", "draws"):
        assert r["after"][key] == r["before"][key], key


def test_damaged_files_give_a_notice_and_defaults():
    r = vm("""
        with open("settings.json", "w") as f:
            f.write("{not json")
        with open("action.json", "w") as f:
            f.write(json.dumps({"v": 1, "action": {"skill": "surgery", "ranks": 42}}))
        app = boot()
        run(app, 100)
        lines = app.controller.show()["lines"]
        shown = SIM.text_art()
        RESULT = {"notices": app.face.notices, "settings": app.controller.settings["ranks"],
                  "screen": app.controller.show()["screen"]}
    """)
    assert r["notices"] and r["settings"] == 1 and r["screen"] == "setup"


def test_an_exception_shows_an_error_screen_is_logged_and_the_loop_goes_on():
    r = vm("""
        import asyncio
        app = boot()
        tick = app.controller.tick
        state = {"n": 0}
        def broken(now, settle=True):
            state["n"] += 1
            if state["n"] == 3:
                raise RuntimeError("stuck card")
            tick(now, settle)
        app.controller.tick = broken
        seen = []
        async def main():
            task = asyncio.create_task(app.run())
            await asyncio.sleep_ms(300)
            seen.append(app.face.error.screen if app.face.error else None)
            seen.append(app.face.error.lines[1] if app.face.error else None)
            task.cancel()
        await main()   # the VM's asyncio runs on the JS event loop: no asyncio.run there
        records, _ = read_log(app.store)
        RESULT = {"seen": seen, "calls": state["n"], "feeds": SIM.wdt_feeds,
                  "timeout": SIM.wdt_timeout, "errors": [r for r in records if r["ev"] == "error"]}
    """)
    assert r["seen"][0] == "error" and "RuntimeError" in r["seen"][1]
    assert r["calls"] > 3                       # the loop went on after the exception
    assert r["feeds"] >= 3 and r["timeout"] == 5000
    assert "stuck card" in r["errors"][0]["why"]


# -- the USB console, under CPython with a pipe ------------------------------------------------
def test_console_reads_whole_lines_without_blocking_and_refuses_bad_ones():
    from carddraw.protocol import Console
    MAX_LINE = 80  # characters a protocol line holds at most (docs/bench.md)
    read_fd, write_fd = os.pipe()

    class Stdin:  # unbuffered, like MicroPython's sys.stdin on the board
        def fileno(self):
            return read_fd

        def read(self, n):
            return os.read(read_fd, n).decode("latin-1")
    stream = Stdin()
    replies = []
    con = Console(None, stream, None, replies.append)
    con.read()
    assert con.queue == []                            # nothing waiting: returns at once
    os.write(write_fd, b"show\npress RA")
    con.read()
    assert con.queue == ["show"]
    os.write(write_fd, b"NK\n" + b"x" * (MAX_LINE + 5) + b"\nseed \x037\n\r\nwait 10\n")
    # a control byte (a Ctrl-C while the interrupt key is off) is dropped: the line still works
    con.read()
    assert con.queue == ["show", "press RANK", "seed 7", "wait 10"]
    con.send()
    assert [json.loads(x)["error"][:10] for x in replies] == ["line longe"]
    os.close(write_fd)


def test_a_long_press_clicks_when_it_registers_and_fires_no_short_press():
    r = vm("""
        app = boot()
        run(app, 100)
        SIM.press("RANK")
        tones = []
        for i in range(60):          # hold 1.2 s, watching the buzzer
            run(app, 20)
            tones.append(SIM.tone)
        SIM.release("RANK")
        run(app, 200)
        RESULT = {"tones": tones, "lines": app.controller.show()["lines"]}
    """)
    first = next(i for i, t in enumerate(r["tones"]) if t)
    assert 35 <= first <= 45 and r["tones"][first] == 4000   # ~0.8 s in: the click
    # long RANK steps down (1 -> 9: rank 0 is for a scan only, R3); no short press added one
    assert "Rank 9" in r["lines"][1]


def test_an_error_repeating_every_pass_is_logged_once():
    r = vm("""
        app = boot()
        for i in range(50):
            app.fail(OSError(5))
        app.fail(ValueError("other"))
        run(app, 20)                         # the pass after commits what the fault logged
        records, _ = read_log(app.store)
        RESULT = [rec["why"] for rec in records if rec["ev"] == "error"]
    """)
    assert len(r) == 2 and r[0].startswith("OSError") and r[1] == "ValueError: other"


def test_no_self_test_while_a_timed_action_is_open():
    """R21: powering on with DRAW held would stop a timed action's clock for the self-test's
    length; with a timed action open the test does not start, the screen says why, and the
    timed draw comes when due. With no action open it runs."""
    r = vm("""
        app = boot()
        app.controller.settings["timed"] = True
        app.controller.settings["interval"] = 30
        app.controller.settings_version += 1
        send(app, "press DRAW")                         # the timed action starts
        run(app, 200)
        app2 = boot(seed=5)                             # a power cut, DRAW held at power-on
        ran = app2.begin_selftest(CLOCK.t)
        run(app2, 100)
        shown = app2.controller.show()
        run(app2, 40000)                                # the resume's warning, then the draw
        after = app2.controller.show()
        RESULT = {"ran": ran, "test": app2.selftest is None, "shown": shown, "after": after}
    """)
    assert r["ran"] is False and r["test"] is True
    assert r["shown"]["screen"] == "message" and "No self-test" in r["shown"]["lines"][0]
    assert "timed" in " ".join(r["shown"]["lines"])
    assert r["after"]["draws"] >= 1                      # the clock went on


def test_the_self_test_runs_when_no_timed_action_is_open():
    r = vm("""
        app = boot()
        RESULT = [app.begin_selftest(CLOCK.t), app.selftest is not None]
    """)
    assert r == [True, True]


def test_a_button_with_no_long_press_acts_as_it_goes_down():
    """DRAW on the active screen has no long press: the card comes while the finger is still
    down (a debounce and a pass after it went down); on set-up DRAW has one (the options), so
    it acts at its release, as RANK does there."""
    r = vm("""
        app = boot()
        run(app, 200)
        SIM.press("DRAW")
        run(app, 100)
        on_setup = app.controller.screen            # still down: set-up waits for the release
        SIM.release("DRAW")
        run(app, 100)
        started = app.controller.screen
        run(app, 300)
        SIM.press("DRAW")
        t0 = CLOCK.t
        while app.controller.screen == "active" and CLOCK.t - t0 < 500:
            run(app, 20)
        took = CLOCK.t - t0
        card = [app.controller.screen, app.board.led.colour is not None]
        SIM.release("DRAW")
        run(app, 200)
        RESULT = {"on_setup": on_setup, "started": started, "card": card, "took": took,
                  "after": app.controller.screen}
    """)
    assert r["on_setup"] == "setup" and r["started"] == "active"
    assert r["card"] == ["card", True] and r["took"] <= 60     # the finger still down
    assert r["after"] == "card"                                # the release did nothing more
