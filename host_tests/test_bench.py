"""The bench over USB (tools/bench.py) against the simulator: scenarios, the self-test, random
draws and their chi-square, the logs saved, no board, the serial link, and bench mode's --code.
The protocol's `log` and `test` commands through App in the VM: test_bench_protocol.py; the
power-on self-test on simulated time: test_power_on_selftest.py.

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

import pytest

from conftest import ROOT
from carddraw import config
from carddraw.store import Store
from storelog import read_log

sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench  # noqa: E402
from common import logchain  # noqa: E402
import deploy  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "bench.py")
SCENARIOS = sorted(glob.glob(os.path.join(ROOT, "tools", "scenarios", "*.txt")))


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
    read_log(Store(root=flash + "/"), on_flash.append, raw=True)
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
