"""The power-on self-test (a button held at power-on) on simulated time: its walk through the
LED, the display, the buzzer and the buttons, passed or failed, the watchdog fed throughout;
through the board's loop and the simulator's command line, whose "!" lines it checks."""
import json
import os
import subprocess
import sys
import textwrap

from conftest import ROOT, run_in_vm

sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench  # noqa: E402

SIMLIB = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")  # storelog


SELFTEST = """
import json
from machine import SIM
import simhost

def screen(dev):
    return json.loads(dev.frame())["text"]

def until(dev, text, limit=60000):
    # advance in 100 ms steps until a screen line is `text`; -> the time it appeared
    end = dev.now + limit
    while dev.now < end:
        if text in screen(dev):
            return dev.now
        dev.advance(100)
        assert not SIM.wdt_expired(dev.now)
    raise Exception("never saw %r; last %r" % (text, screen(dev)))

def selftest_log():
    from carddraw.store import Store
    from storelog import read_log
    return [r for r in read_log(Store())[0] if r["ev"] == "selftest"]
"""


def st(body):
    return run_in_vm(SELFTEST + textwrap.dedent(body), libs=[SIMLIB, VMLIB])


def test_power_on_self_test_walks_the_hardware_and_passes_with_every_button():
    r = st("""
        dev = simhost.Device(seed=1, held=["DRAW"])
        out = {"app_at_boot": dev.app.selftest is None}
        walk, tones, lits = [], [], []
        for i in range(130):                     # the first 13 s, sampled every 100 ms
            r = json.loads(dev.advance(100))
            tones += [hz for _, hz in r["tones"] if hz]
            text = r.get("text")
            if text:
                walk.append((text[3], list(SIM.led_rgb())))
                pic = SIM.screen()
                lits.append(sum(bin(b).count("1") for b in pic))
        dev.release("DRAW")
        out["walk"] = walk
        out["tones"] = len(set(tones))
        out["lits"] = lits
        asked = {}
        for name in ("RANK", "HELP", "DRAW", "STOP"):
            asked[name] = until(dev, "press " + name)
            dev.press(name)
            until(dev, name + " ok", 1000)
        out["result"] = [until(dev, "self-test passed", 3000), list(SIM.led_rgb())]
        out["app_before_draw"] = dev.app.selftest is None
        dev.advance(2000)
        out["still"] = dev.app.selftest is not None
        dev.press("DRAW")
        dev.advance(400)
        out["app"] = dev.app.selftest is None and dev.app.controller.view().screen
        out["screen"] = screen(dev)[:3]
        out["log"] = selftest_log()
        out["feeds"] = [SIM.wdt_feeds, dev.now]
        RESULT = out
    """)
    assert r["app_at_boot"] is False
    names = [w[0] for w in r["walk"]]
    order = []
    for n in names:
        if n and (not order or order[-1] != n):
            order.append(n)
    assert order[:5] == ["green", "yellow", "red", "purple", "off"]
    leds = dict(r["walk"])
    assert leds["green"] == [0, 255, 0] and leds["purple"] == [160, 0, 255] and leds["off"] == [0, 0, 0]
    assert 4286 in r["lits"] and 8192 - 4286 + 380 in r["lits"]   # the pattern, then its inverse
    assert "VSYS 4.00 V" in names and {"click", "card", "warn", "black", "error"} <= set(names)
    assert r["tones"] >= 8                                        # every buzzer pattern played
    assert r["result"][1] == [0, 255, 0]                          # passed: the LED green
    assert r["app_before_draw"] is False and r["still"] is True   # waits for a fresh DRAW
    assert r["app"] == "setup" and r["screen"][0] == "Surgery set-up"
    assert r["log"] == [{"ev": "selftest", "ms": r["log"][0]["ms"], "result": "passed",
                         "missing": [], "vsys_mv": 4000}]
    assert r["feeds"][0] >= r["feeds"][1] // 20      # the watchdog fed every pass, test or app


def test_power_on_self_test_reports_each_unpressed_button_then_starts_the_app_by_itself():
    r = st("""
        dev = simhost.Device(seed=1, held=["DRAW"])    # DRAW stays held: no button is pressed
        times = {}
        for name in ("RANK", "HELP", "DRAW", "STOP"):
            asked = until(dev, "press " + name)
            times[name] = until(dev, name + ": no press", 25000) - asked
        end = until(dev, "self-test FAILED", 5000)
        text = screen(dev)
        while dev.app.selftest is not None:
            dev.advance(100)
            assert not SIM.wdt_expired(dev.now)
        RESULT = {"times": times, "text": text, "waited": dev.now - end, "led": list(SIM.led_rgb()),
                  "log": selftest_log(), "screen": dev.app.controller.view().screen}
    """)
    assert all(20000 <= t <= 20100 for t in r["times"].values()), r["times"]
    assert r["text"][2:6] == ["self-test FAILED", "no press:", "RANK HELP DRAW", "STOP"]
    assert 29900 <= r["waited"] <= 30100
    assert r["screen"] == "setup"
    assert r["log"][0]["result"] == "failed" and r["log"][0]["missing"] == ["RANK", "HELP", "DRAW", "STOP"]


def test_self_test_loop_of_the_board_feeds_the_watchdog_and_ends():
    # app.main()'s way: App.run(), the board's loop, with the self-test begun; on the VM's
    # real clock, with the waits shortened. Every pass is App.loop_pass, fed or not.
    r = run_in_vm(textwrap.dedent("""
        import asyncio, os, random, sys
        from machine import SIM
        from carddraw import selftest
        from carddraw.app import App
        from carddraw.board import Board
        from carddraw.store import Store
        from storelog import read_log
        for k in selftest.WAIT:
            selftest.WAIT[k] = 30
        selftest.BUZZER = ["click"]
        os.mkdir("/flash3")
        os.chdir("/flash3")
        board = Board()
        app = App(board, Store(), random, board.ticks_ms(), write=lambda s: None)
        app.begin_selftest(app.face.last_input)
        during = "carddraw.selftest" in sys.modules
        task = asyncio.create_task(app.run())
        for _ in range(200):
            await asyncio.sleep_ms(20)
            if app.selftest is None:
                break
        await asyncio.sleep_ms(100)
        task.cancel()
        await asyncio.sleep_ms(0)
        RESULT = [SIM.wdt_timeout, SIM.wdt_feeds, [r["ev"] for r in read_log(app.store)[0]],
                  during, "carddraw.selftest" in sys.modules, app.selftest is None,
                  app.face.drawn is not None and app.face.drawn.screen]
    """), libs=[SIMLIB, VMLIB])
    assert r[0] == 5000 and r[1] > 10
    assert r[2] == ["selftest"] and r[3] is True and r[4] is True  # imported once, kept
    assert r[5] is True and r[6] == "setup"        # then the app's own passes: set-up drawn


def test_self_test_through_the_simulator_command_line():
    link = bench.SimLink(seed=1, hold=["DRAW"])
    try:
        first = link.request("!screen")
        link.request("!release DRAW")
        link.request("!advance 14000")
        asked = link.request("!screen")
        for name in ("RANK", "HELP", "DRAW", "STOP"):
            link.request("!press " + name)
            link.request("!advance 1000")
        result = link.request("!screen")
        link.request("!press DRAW")
        show = link.request("show")       # typed during the self-test, answered once the app runs
        log = []
        final = link.request("log", each=log.append)
    finally:
        link.close()
    assert first["text"][:4] == ["Self-test", "LED", "", "green"]
    assert asked["text"][3] == "press RANK"
    assert result["text"][2] == "self-test passed"
    assert show["screen"] == "setup"
    assert [json.loads(x)["ev"] for x in log] == ["selftest"] and final["records"] == 1


def test_meta_lines_are_checked_by_the_simulator():
    done = subprocess.run(["node", os.path.join(SIMLIB, "sim.mjs"), "--protocol"],
                          input="!press PINK\n!advance x\n!led 1\n!\n", capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(out) == 4 and all(set(x) == {"error"} for x in out)
    assert "no button 'PINK'" in out[0]["error"] and "!advance needs milliseconds" in out[1]["error"]
    assert all("simulator lines: !press NAME" in x["error"] for x in out)
    bad = subprocess.run(["node", os.path.join(SIMLIB, "sim.mjs"), "--hold", "PINK"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and "--hold needs a button" in bad.stderr
