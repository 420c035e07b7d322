"""The bench over USB (tools/bench.py) against the simulator, the protocol's `log` and `test`
commands through App in the MicroPython VM, and the power-on self-test on simulated time.

tools/bench.py --sim drives the unmodified firmware in the simulator (node tools/sim/sim.mjs
--protocol); its "!" lines press the simulated buttons before the firmware sees anything.
"""
import csv
import glob
import hashlib
import json
import math
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, run_in_vm
from carddraw import config
from carddraw.store import Store

sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench  # noqa: E402
from common import logchain  # noqa: E402
import deploy  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "bench.py")
SCENARIOS = sorted(glob.glob(os.path.join(ROOT, "tools", "scenarios", "*.txt")))
SIMLIB = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")


def tool(*args, stdin=None, timeout=120):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True,
                          input=stdin, timeout=timeout, cwd=ROOT)


# -- bench.py against the simulator ----------------------------------------------------------
def test_every_scenario_passes_in_the_simulator():
    assert len(SCENARIOS) >= 4
    done = tool("--sim", "run", *SCENARIOS)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert not [x for x in lines if x.startswith("FAIL")]
    assert lines[-1].startswith("PASS: ") and "0 failed in %d scenarios" % len(SCENARIOS) in lines[-1]
    # one PASS per protocol line of every file
    steps = sum(len(bench.parse_scenario(p)) for p in SCENARIOS)
    assert sum(x.startswith("PASS  ") for x in lines) == steps


def test_a_wrong_expectation_is_reported_fail_with_exit_1(tmp_path):
    path = tmp_path / "wrong.txt"
    path.write_text("show\n=> {\"screen\": \"active\"}\npress RANK\n=> {\"ok\": \"press\"}\n"
                    "bogus\nshow\n=> {\"lines\": [\"Surgery set-up\", \"Rank 2*\", \"*\", \"*\", "
                    "\"*\", \"*\", \"*\", \"*\"]}\n")
    done = tool("--sim", "run", str(path))
    assert done.returncode == 1
    out = done.stdout
    assert "FAIL  " in out and 'screen is "setup", expected "active"' in out
    assert "wrong.txt:3  press RANK" in out and "PASS  " in out
    assert "an error: unknown command 'bogus'" in out     # an error nobody expected fails too
    assert out.splitlines()[-1] == "FAIL: 2 lines passed, 2 failed in 1 scenario"


def test_a_malformed_scenario_is_refused_before_anything_runs(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("=> {\"ok\": \"press\"}\n")
    done = tool("--sim", "run", str(path))
    assert done.returncode == 2 and "must follow a protocol line" in done.stderr
    path.write_text("show\n=> {screen: setup}\n")
    done = tool("--sim", "run", str(path))
    assert done.returncode == 2 and "bad.txt:2: the expectation is not JSON" in done.stderr


def test_subset_match_and_the_star():
    assert bench.differences({"a": 1}, {"a": 1, "b": 2}) == []
    assert bench.differences({"a": 1}, {"a": True}) == ['a is true, expected 1']
    assert bench.differences({"c": 1}, {"a": 1}) == ['no "c" in the reply']
    assert bench.same({"x": {"y": [1, "a*c"]}}, {"x": {"y": [1, "abbc"], "z": 0}})
    assert not bench.same([1, 2], [1, 2, 3]) and not bench.same(None, 0)
    assert bench.glob("*", "") and bench.glob("a*", "abc") and bench.glob("*c", "abc")
    assert bench.glob("a*b*c", "a-b-c") and not bench.glob("a*b*c", "a-c-b")
    assert not bench.glob("ab*ba", "aba")   # the two ends may not overlap


def test_selftest_passes_in_the_simulator():
    done = tool("--sim", "selftest")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [x.split("  ")[1] for x in lines[:-1]] == [
        "LED green", "LED yellow", "LED red", "LED purple (a black card)", "LED off",
        "display pattern", "button RANK", "button HELP", "button DRAW", "button STOP"]
    assert all(x.startswith("PASS") for x in lines[:-1])
    assert "the pins light rgb(160, 0, 255)" in done.stdout
    assert lines[-1] == "PASS: 10 of 10 checks passed"


def test_random_prints_the_table_and_a_p_value():
    done = tool("--sim", "--seed", "1", "random", "2000")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    rows = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) == 4 and w[0] in bench.COLOURS + ("total",):
            rows[w[0]] = (int(w[1]), float(w[2]), int(w[3]))
    deck = [rows[c][0] for c in bench.COLOURS]
    counts = [rows[c][2] for c in bench.COLOURS]
    assert deck == [3, 2, 1, 0]                      # the default set-up deck
    assert sum(counts) == 2000 == rows["total"][2]
    assert rows["green"][1] == 1000.0 and counts[3] == 0
    stat, df, p = bench.chi_square(counts, deck)
    assert "chi-square %.3f with 2 degrees of freedom: p = %.4g" % (stat, p) in out
    assert p >= 0.001 and "PASS: the draws fit" in out


def test_random_refuses_too_few_draws_for_the_test():
    done = tool("--sim", "random", "10")
    assert done.returncode == 2
    assert "red would expect only 1.7" in done.stderr and "use at least 30 draws" in done.stderr


def test_chi_square_survival_function_against_known_values():
    for x in (0.1, 1.0, 5.0, 20.0):
        assert math.isclose(bench.chi2_sf(x, 2), math.exp(-x / 2), rel_tol=1e-12)
    # the textbook 5 % critical values, and a large df
    for x, df in ((3.841458820694124, 1), (5.991464547107979, 2), (7.814727903251178, 3),
                  (11.070497693516351, 5), (124.34211340400407, 100)):
        assert math.isclose(bench.chi2_sf(x, df), 0.05, rel_tol=1e-9), (x, df)
    assert bench.chi2_sf(0, 3) == 1.0
    assert math.isclose(bench.chi2_sf(6.6348966010212145, 1), 0.01, rel_tol=1e-9)
    # df 1: the normal's two tails, P(|Z| >= sqrt(x)) = erfc(sqrt(x / 2))
    for x in (0.01, 0.5, 2.0, 30.0):
        assert math.isclose(bench.chi2_sf(x, 1), math.erfc(math.sqrt(x / 2)), rel_tol=1e-9)
    # a card of a colour the deck does not hold: impossible, p = 0
    assert bench.chi_square([5, 5, 0, 1], [3, 2, 1, 0])[2] == 0.0
    assert bench.chi_square([7, 0, 0, 0], [4, 0, 0, 0]) == (0.0, 0, 1.0)


def test_logs_are_saved_as_jsonl_and_csv_matching_the_devices_log(tmp_path):
    flash, out = str(tmp_path / "flash"), str(tmp_path / "out")
    play = tool("--sim", "--flash", flash, "run", os.path.join(ROOT, "tools", "scenarios",
                                                                "surgery.txt"))
    assert play.returncode == 0, play.stdout
    done = tool("--sim", "--flash", flash, "logs", "--out", out)
    assert done.returncode == 0, done.stderr
    files = sorted(n for n in os.listdir(out) if n != ".carddraw-files")  # and the tools' list
    device = "e6605838834a7b2c"  # the simulator's machine.unique_id()
    assert len(files) == 2 and files[0].endswith(".csv") and files[1].endswith(".jsonl")
    assert files[0][:-4] == files[1][:-6] and files[0].startswith("carddraw-%s-20" % device)
    for f in files:
        assert os.path.join(out, f) in done.stdout
    on_flash = []   # the log as the device's own store reads it back from its files
    Store(root=flash + "/").read_log(on_flash.append, raw=True)
    with open(os.path.join(out, files[1])) as f:
        header, lines = logchain.read_export(f.read().splitlines())
    assert lines == on_flash[:-1]  # byte for byte, hashes kept; then the tool's `lock`:
    assert json.loads(on_flash[-1])["mode"] == "off"
    # the scenario's bench mode (on, off) and the tool's own `unlock` before `log`
    assert header["device"] == device and header["verified"] is True and header["records"] == 12
    assert header["head"] == logchain.head(lines) and logchain.verify(lines)[0]
    records = [json.loads(line) for line in lines]
    assert [r["ev"] for r in records] == (["bench", "seed", "start"] + ["draw", "accept"] * 3
                                          + ["end", "bench", "bench"])
    # seeded from the seed on, until the reboot (the simulator started again for `logs`)
    assert [r.get("seeded") for r in records] == [None, None] + [True] * 9 + [None]
    assert done.stdout.startswith("12 log records from device %s saved to:" % device)
    assert "verified: 12 records, seq 1 to 12" in done.stdout
    assert "acknowledged: the device may drop records up to 12" in done.stdout
    with open(os.path.join(flash, config.LOG_EXPORTED_FILE)) as f:
        assert f.read() == "12"
    with open(os.path.join(out, files[0]), newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(records)
    assert list(rows[0])[:2] == ["ev", "ms"]
    keys = set().union(*records)
    assert set(rows[0]) == keys
    for row, rec in zip(rows, records):
        for k in keys:
            v = rec.get(k)
            if v is None:
                assert row[k] == ""
            elif isinstance(v, str):
                assert row[k] == v
            else:
                assert json.loads(row[k]) == v, (k, row[k], v)
    # a second download in the same second gets its own names
    again = tool("--sim", "--flash", flash, "logs", "--out", out)
    assert again.returncode == 0 and len(os.listdir(out)) == 5


def test_no_board_is_a_clear_message_and_exit_2():
    if deploy.find_picos():
        pytest.skip("a real Pico is attached to this machine")
    for sub in (["logs"], ["random", "100"], ["selftest"], ["run", SCENARIOS[0]]):
        done = tool(*sub)
        assert done.returncode == 2, sub
        assert done.stderr.strip() == deploy.NO_BOARD == \
            "no board found: connect the Pico running MicroPython by USB"
    make = subprocess.run(["make", "-s", "logs"], capture_output=True, text=True, cwd=ROOT)
    assert make.returncode != 0 and "no board found" in make.stderr


def test_a_port_that_cannot_be_opened_exits_2():
    done = tool("--port", "/dev/no-such-pico", "logs")
    assert done.returncode == 2 and done.stderr.startswith("cannot open /dev/no-such-pico")


def test_serial_link_skips_lines_that_are_not_json_and_streams_the_log():
    class FakeSerial(bench.SerialLink):
        def __init__(self, data):
            self.buf = b""
            self.data = data
            self.sent = []

        def send(self, line):
            self.sent.append(line)

        def _line(self, timeout):
            if not self.data:
                return None
            line, _, self.data = self.data.partition("\n")
            return line

    link = FakeSerial('MicroPython v1.29 on 2026-01-01; Raspberry Pi Pico\r\n>>> \r\n'
                      '{"log": "{\\"ev\\":\\"seed\\"}"}\r\n{not json\r\n[1]\r\n'
                      '{"log": "{\\"ev\\":\\"start\\"}"}\r\n'
                      '{"ok": "log", "records": 2, "damaged": 0}\r\n')
    got = []
    assert link.request("log", each=got.append) == {"ok": "log", "records": 2, "damaged": 0}
    assert got == ['{"ev":"seed"}', '{"ev":"start"}'] and link.sent == ["log"]
    with pytest.raises(bench.NoReply):
        link.request("show")
    assert bench.line_seconds("wait 60000") == 60 and bench.line_seconds("test button 5000") == 5


# -- bench mode: --code --------------------------------------------------------------------------
class ScriptedLink(bench.Link):
    """A board on the other end of the serial line: replies by command, every line kept."""

    def __init__(self, replies):
        self.replies = replies
        self.sent = []

    def request(self, line, each=None):
        self.sent.append(line)
        r = self.replies.get(line.split(" ")[0], {"ok": line.split(" ")[0]})
        return r(line) if callable(r) else r


def test_code_is_sent_as_unlock_before_the_work_and_lock_after_it(monkeypatch):
    link = ScriptedLink({"test": {"error": "test draws needs bench mode: unlock CODE first"}})
    monkeypatch.setattr(bench, "connect", lambda args: link)
    assert bench.main(["--port", "/dev/x", "--code", "rhds", "random", "100"]) == 2
    assert link.sent == ["unlock RHDS", "test draws 1", "lock"]
    link = ScriptedLink({})
    monkeypatch.setattr(bench, "connect", lambda args: link)
    bench.main(["--port", "/dev/x", "--code", "RHDS", "selftest", "--yes"])
    assert link.sent[0] == "unlock RHDS" and link.sent[-1] == "lock"
    assert "test led green" in link.sent
    link = ScriptedLink({})                        # no code: nothing is unlocked
    monkeypatch.setattr(bench, "connect", lambda args: link)
    bench.main(["--port", "/dev/x", "selftest", "--yes"])
    assert not [x for x in link.sent if x.startswith(("unlock", "lock"))]


def test_a_refused_code_stops_the_tool_with_the_devices_reason(capsys):
    done = tool("--sim", "--code", "SSSS", "random", "100")
    assert done.returncode == 2
    assert done.stderr.startswith("bench mode refused: unlock: Wrong code: 2 tries before a wait")
    bad = tool("--sim", "--code", "RHX", "random", "100")
    assert bad.returncode == 2 and "--code: the referee code is 4 to 8 letters of R, H, D, S" \
        in bad.stderr


def test_a_scenarios_default_unlock_is_sent_with_the_code_given(tmp_path):
    path = tmp_path / "unlock.txt"
    path.write_text("unlock RHRH\n=> {\"ok\": \"unlock\"}\nseed 3\n=> {\"ok\": \"seed\"}\n"
                    "unlock SSSS\n=> {\"error\": \"unlock: Wrong code*\"}\n")
    assert tool("--sim", "run", str(path)).returncode == 0         # --sim: the default code
    done = tool("--sim", "--code", "DDDD", "run", str(path))       # sent as unlock DDDD
    assert done.returncode == 1
    assert "unlock.txt:1  unlock DDDD" in done.stdout and "Wrong code" in done.stdout
    assert "error\": \"seed needs bench mode" in done.stdout


def test_logs_without_a_code_saves_but_does_not_acknowledge(tmp_path, monkeypatch, capsys):
    text = '{"ev":"start","ms":0,"seq":1}'      # one record, chained as the device chains it
    h = hashlib.sha256(text.encode()).hexdigest()[:12]
    lines = [text[:-1] + ',"h":"%s"}' % h]
    assert logchain.verify(lines)[0]
    link = ScriptedLink({"log": {"error": "log ack needs bench mode: unlock CODE first"}})
    real = link.request

    def request(line, each=None):
        if line == "log":
            real(line)
            each(lines[0])
            return {"ok": "log", "records": 1, "damaged": 0, "device": "abc"}
        return real(line, each)
    link.request = request
    monkeypatch.setattr(bench, "connect", lambda args: link)
    assert bench.main(["--port", "/dev/x", "logs", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "not acknowledged: log ack needs bench mode: unlock CODE first" in out
    saved = [n for n in os.listdir(tmp_path) if n != ".carddraw-files"]
    assert link.sent == ["log", "log ack 1 %s" % h] and len(saved) == 2


# -- the protocol additions, through App in the VM ---------------------------------------------
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
        records = len(app.store.read_log()[0])
        send(app, "unlock RHRH", "seed 9")
        before = [app.controller.show(), dict(app.controller.settings),
                  app.controller.settings_version]
        got = one(app, "test draws 3000")
        after = [app.controller.show(), dict(app.controller.settings),
                 app.controller.settings_version]
        log = app.store.read_log()[0]
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
        app.store.read_log()           # finds the torn line and logs {"ev": "damage"} once
        records = app.store.read_log()[0]
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


@pytest.mark.parametrize("pressing", [False, True])
def test_the_export_leaves_flash_work_and_collections_to_passes_of_their_own(pressing):
    """An export started while the journal still holds the presses' records: the idle
    housekeeping moves them into the log, a step a pass, before a line is read; no pass
    both works the flash and collects garbage or sends lines (each is tens of ms on the
    chip), and the lines leave a quiet pass for a collection every logexport.QUIET passes.
    With presses in every pass (no idle pass), the export moves them itself after
    logexport.WAIT_MAX passes, still a step a pass."""
    r = vm("""
        PRESSING = @PRESSING@
        import carddraw.app as A
        from carddraw import logexport
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
        RESULT = {"passes": passes, "waiting": waiting, "quiet": logexport.QUIET,
                  "wait": logexport.WAIT_MAX,
                  "done": json.loads(REPLIES[-1]), "records": len(app.store.read_log()[0])}
    """.replace("@PRESSING@", repr(pressing)))
    passes = r["passes"]
    assert r["waiting"] > 0 and r["done"]["records"] == r["records"] > 4
    assert sum(p[1] for p in passes) >= 2                    # records moved: written, closed
    first_work = next(i for i, p in enumerate(passes) if p[1])
    assert (first_work >= r["wait"]) == pressing             # the idle passes' work, else its
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
        assert run_of_busy <= r["quiet"]
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


# -- the power-on self-test, on simulated time -------------------------------------------------
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
    return [r for r in Store().read_log()[0] if r["ev"] == "selftest"]
"""


def st(body):
    return run_in_vm(SELFTEST + textwrap.dedent(body), libs=[SIMLIB])


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
        for k in ("LED_MS", "PATTERN_MS", "GAP_MS", "BATTERY_MS", "PROMPT_MS", "MISS_MS", "END_MS"):
            setattr(selftest, k, 30)
        selftest.BUZZER = ("click",)
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
        RESULT = [SIM.wdt_timeout, SIM.wdt_feeds, [r["ev"] for r in app.store.read_log()[0]],
                  during, "carddraw.selftest" in sys.modules, app.selftest is None,
                  app.face.drawn is not None and app.face.drawn.screen]
    """), libs=[SIMLIB])
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
