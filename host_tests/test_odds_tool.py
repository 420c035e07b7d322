"""tools/odds.py, the referee's odds tool, run as a user would run it."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from carddraw.action import Action
from carddraw.odds import action_risk, fmt_chance, success_chance

TOOL = os.path.join(ROOT, "tools", "odds.py")


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, cwd=ROOT)


def test_r25_r26_single_action_report():
    done = run("--ranks", "2", "--helpers", "1", "--red", "1", "--needed", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "deck: 5 green, 2 yellow, 2 red, 0 black (9 cards)" in out
    assert "green   55.6%" in out and "black      0%" in out  # no black: impossible, "0%"
    assert "chance to succeed: 97.2%" in out
    # the risks beside the chance, whole percents by the same rule as the device
    a = Action(ranks=2, helpers=1, red=1, needed=2)
    _, red, black, _, _ = action_risk(a)
    assert "chance of a complication (a red card): %s\n" % fmt_chance(red, 0) in out
    assert "chance of a black card before success: %s\n" % fmt_chance(black, 0) in out


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
    assert "comp" in lines[1] and "complication" in lines[1] and "blk" in lines[1]
    assert "rank 0" in lines[2] and "rank 5" in lines[2]
    assert lines[3].split() == ["succeed", "comp", "blk"] * 6
    assert [l.split()[0] for l in lines[4:]] == ["none", "+1", "+2", "+1", "+2", "+1", "+2", "+1"]
    none_row = lines[4].split()[1:]
    scanner = Action(skill="scan", ranks=0, needed=2)  # rank 0 is a scan (R3)
    chance, red, black, _, _ = action_risk(scanner)
    assert len(none_row) == 18 and none_row[:3] == [
        fmt_chance(success_chance(scanner)), fmt_chance(red, 0), fmt_chance(black, 0)]
    assert chance == success_chance(scanner)


def test_plot_writes_a_png(tmp_path):
    path = tmp_path / "odds.png"
    done = run("--plot", str(path), "--red", "3")
    assert done.returncode == 0, done.stderr
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000


@pytest.mark.parametrize("args,words", [
    (["--ranks", "12"], ["--ranks", "0 to 9", "12"]),
    (["--needed", "0"], ["--needed", "1 to 9"]),
    (["--black", "x"], ["--black", "whole number"]),
    (["--ranks", "0"], ["ranks", "1 to 9", "scan"]),
    (["--skill", "cooking"], ["--skill", "surgery"]),
    (["--bogus"], ["--bogus", "odds --help"]),
    (["--table", "--ranks", "2"], ["--ranks", "0 to 5", "leave --ranks out"]),
    (["--plot", "odds.txt"], ["--plot", ".png", "odds.txt"]),
    (["--plot", "/nonexistent/dir/o.png"], ["--plot", "no folder", "/nonexistent/dir"]),
])
def test_bad_argument_one_line_exit_2(args, words):
    done = run(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    for word in words:
        assert word in done.stderr


def test_a_plot_into_a_missing_folder_or_onto_a_folder_says_so_in_one_line(tmp_path):
    # it once printed a traceback and exited 1
    folder = tmp_path / "chart.png"
    folder.mkdir()
    for target in [str(tmp_path / "no" / "o.png"), str(folder)]:
        done = run("--plot", target)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr.startswith("odds: --plot: ") and done.stderr.count("\n") == 1
        assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == [folder] and list(folder.iterdir()) == []


def test_table_header_names_every_card_and_setting_added_to_every_row():
    # once, --table --red 3 silently added 3 reds to every row
    plain = run("--table").stdout.splitlines()
    done = run("--table", "--red", "3", "--bonus", "1", "--black", "2", "--auto", "1", "--referee")
    assert done.returncode == 0, done.stderr
    head = done.stdout.splitlines()[0]
    for words in ["+3 reds", "+1 bonus green", "+2 blacks", "+1 automatic success",
                  "a referee present", "every row also has"]:
        assert words in head, head
    assert "every row also has" not in plain[0]
    assert done.stdout.splitlines()[4] != plain[4]  # and the rows do include them


def test_table_says_when_a_preset_was_held_at_nine_cards():
    done = run("--table", "--black", "9")
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == "(a row that would pass 9 cards of a colour holds 9)"
    assert "holds 9" not in run("--table", "--black", "7").stdout


FMT_CASES = [(0.0, "0%"), (1e-12, "<0.1%"), (0.000499, "<0.1%"), (0.0005, "0.1%"),
             (0.123449, "12.3%"), (0.5, "50.0%"), (0.99949, "99.9%"), (0.9995, ">99.9%"),
             (1 - 1e-12, ">99.9%"), (1.0, "100%")]


def test_fmt_chance_never_says_impossible_or_certain_unless_it_is():
    for p, text in FMT_CASES:
        assert fmt_chance(p) == text, p


def test_fmt_chance_prints_the_same_in_micropython(vm):
    got = vm("from carddraw.odds import fmt_chance\nRESULT = [fmt_chance(p) for p in %r]\n"
             % [p for p, _ in FMT_CASES])
    assert got == [text for _, text in FMT_CASES]


def test_help_is_the_odds_tools_own():
    out = run("--help").stdout
    assert out.startswith("usage: odds ") and "--table" in out and "--plot" in out
    assert "--auto-draw" not in out and "--seed" not in out
    assert "complication" in out and "black card before success" in out
