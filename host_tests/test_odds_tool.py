"""tools/odds.py, the referee's odds tool, run as a user would run it."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

TOOL = os.path.join(ROOT, "tools", "odds.py")


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, cwd=ROOT)


def test_r25_r26_single_action_report():
    done = run("--ranks", "2", "--helpers", "1", "--red", "1", "--needed", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "deck: 5 green, 2 yellow, 2 red, 0 black (9 cards)" in out
    assert "green   55.6%" in out and "black    0.0%" in out
    assert "chance to succeed: 97.2%" in out


def test_every_action_parameter_is_accepted():
    done = run("--skill", "scan", "--ranks", "0", "--helpers", "3", "--bonus", "1", "--green", "1",
               "--yellow", "6", "--red", "0", "--black", "1", "--needed", "2", "--auto", "1",
               "--redraws", "2", "--referee")
    assert done.returncode == 0, done.stderr
    assert "deck: 4 green, 2 yellow, 3 red, 1 black" in done.stdout  # R8 compounding shown


def test_table_has_every_rank_and_preset():
    done = run("--table", "--needed", "2")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert "rank 0" in lines[1] and "rank 5" in lines[1]
    assert [l.split()[0] for l in lines[2:]] == ["none", "+1", "+2", "+1", "+2", "+1", "+2", "+1"]
    none_row = lines[2].split()[1:]
    assert len(none_row) == 6 and none_row[0] == "84%"


def test_plot_writes_a_png(tmp_path):
    path = tmp_path / "odds.png"
    done = run("--plot", str(path))
    assert done.returncode == 0, done.stderr
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000


@pytest.mark.parametrize("args,words", [
    (["--ranks", "12"], ["--ranks", "0 to 9", "12"]),
    (["--needed", "0"], ["--needed", "1 to 9"]),
    (["--black", "x"], ["--black", "whole number"]),
    (["--ranks", "0"], ["ranks", "1 to 9", "scan"]),
    (["--skill", "cooking"], ["--skill", "surgery"]),
    (["--bogus"], ["--bogus", "--help"]),
])
def test_bad_argument_one_line_exit_2(args, words):
    done = run(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    for word in words:
        assert word in done.stderr
