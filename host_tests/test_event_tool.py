"""tools/event.py: an event's logs in one SQLite database, checked and reported.
The logs come from the firmware's own Controller and Store, played under CPython."""
import glob
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from conftest import ROOT

TOOLS = os.path.join(ROOT, "tools")
TOOL = os.path.join(TOOLS, "event.py")
sys.path.insert(0, TOOLS)
import event  # noqa: E402


def run(*args, stdin=""):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, cwd=ROOT,
                          input=stdin)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    out = tmp_path_factory.mktemp("event")
    done = run("--simulate", "3x60", "--seed", "5", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, done


def records_of(path):
    with open(path) as f:
        lines = f.read().splitlines()
    return [json.loads(ln) for ln in lines[1:]], lines


def test_simulated_event_fills_the_database_from_the_firmwares_records(simulated):
    out, done = simulated
    files = sorted(glob.glob(str(out / "simulated" / "*.jsonl")))
    assert len(files) == 3
    db = sqlite3.connect(str(out / "event.sqlite"))
    assert db.execute("SELECT COUNT(*) FROM devices WHERE verified = 1").fetchone()[0] == 3
    for path in files:
        records, lines = records_of(path)
        device = json.loads(lines[0])["device"]
        starts = [r for r in records if r["ev"] == "start"]
        ends = [r["outcome"] for r in records if r["ev"] == "end"]
        rows = db.execute("SELECT skill, chance, outcome, draws FROM actions WHERE device = ? "
                          "ORDER BY id", (device,)).fetchall()
        assert len(rows) == len(starts) == 60
        assert [r[0] for r in rows] == [s["skill"] for s in starts]
        assert [r[1] for r in rows] == [s["chance"] for s in starts]  # R26, as the device logged it
        assert [r[2] for r in rows] == ends
        draws = sum(1 for r in records if r["ev"] == "accept")
        assert sum(r[3] for r in rows) == draws
        assert db.execute("SELECT COUNT(*) FROM records WHERE device = ?", (device,)).fetchone()[0] == len(records)
    for name in ("database:", "report:", "chart:"):
        assert name in done.stdout
    png = (out / "calibration.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_answers_per_skill_and_lists_every_action(simulated):
    out, _ = simulated
    text = (out / "report.txt").read_text()
    db = sqlite3.connect(str(out / "event.sqlite"))
    for skill, s, st, f, other, total in event.per_skill(db):
        assert "  %-8s %9d %7d %6d %5d %6d" % (skill, s, st, f, other, total) in text
        assert s + st + f + other == total
    assert sum(row[-1] for row in event.per_skill(db)) == 180
    listed = text.split("every action:")[1].strip().splitlines()[1:]
    assert len(listed) == 180 and all("->" in line for line in listed)
    assert "chi-square" in text


def test_a_changed_record_fails_verification_and_is_named(simulated, tmp_path):
    out, _ = simulated
    path = sorted(glob.glob(str(out / "simulated" / "*.jsonl")))[0]
    lines = open(path).read().splitlines()
    i = next(k for k, ln in enumerate(lines) if '"card":"black"' in ln)
    lines[i] = lines[i].replace('"card":"black"', '"card":"green"')  # a player's wish
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    done = run(str(bad), "--out", str(tmp_path / "ev"))
    assert done.returncode == 1
    assert "FAIL" in done.stdout and "changed" in done.stdout


def test_a_log_without_hashes_gets_a_continuity_check(tmp_path):
    records = [{"ev": "start", "ms": 0, "skill": "repair", "ranks": 2, "helpers": 0, "bonus": 0,
                "difficulty": [0, 0, 0, 0], "needed": 1, "auto": 0, "redraws": 0, "referee": False,
                "deck": [4, 2, 1, 0], "chance": 0.9}]
    for n in (1, 2, 3):
        records.append({"ev": "draw", "ms": n, "n": n, "card": "yellow"})
        records.append({"ev": "accept", "ms": n, "n": n, "card": "yellow", "deck": [4, 3, 1, 0],
                        "successes": 0, "complications": 0})
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in records))
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(json.dumps(r) + "\n" for r in records[:3] + records[5:]))  # draw 2 gone
    ok = run(str(whole), "--out", str(tmp_path / "a"))
    assert ok.returncode == 0 and "record continuity checked" in ok.stdout
    gone = run(str(cut), "--out", str(tmp_path / "b"))
    assert gone.returncode == 1 and "draw 3 after draw 1" in gone.stdout


def test_the_same_device_twice_is_merged_not_doubled(simulated, tmp_path):
    out, _ = simulated
    path = sorted(glob.glob(str(out / "simulated" / "*.jsonl")))[0]
    first = run(path, "--out", str(tmp_path))
    again = run(path, path, "--out", str(tmp_path))
    assert first.returncode == again.returncode == 0
    db = sqlite3.connect(str(tmp_path / "event.sqlite"))
    assert db.execute("SELECT COUNT(*) FROM devices").fetchone()[0] == 1
    assert db.execute("SELECT COUNT(*) FROM actions").fetchone()[0] == 60


def calibration_of(rows):
    db = sqlite3.connect(":memory:")
    db.executescript(event.SCHEMA)
    db.executemany("INSERT INTO actions (chance, outcome, redraws, referee) VALUES (?, ?, 0, 0)", rows)
    return event.calibration(db, 10)


def test_the_calibration_chi_square_finds_dice_that_lie():
    fair = calibration_of([(0.5, "succeeded")] * 50 + [(0.5, "failed")] * 50
                          + [(0.9, "succeeded")] * 90 + [(0.9, "failed")] * 10)
    loaded = calibration_of([(0.5, "succeeded")] * 80 + [(0.5, "failed")] * 20
                            + [(0.9, "succeeded")] * 90 + [(0.9, "failed")] * 10)
    assert fair[2] == loaded[2] == 2 and fair[4] == loaded[4] == 200
    assert fair[3] > 0.99 and loaded[3] < 1e-6
    stopped = calibration_of([(0.5, "stopped")] * 20)  # a stop scores its chance then
    assert stopped[4] == 0  # no chance at the stop recorded: left out, never guessed


@pytest.mark.parametrize("args,words", [
    ([], ["nothing to read", "--simulate"]),
    (["no/such/file.jsonl"], ["no/such/file.jsonl", "no such log file"]),
    (["logs/none-here-*.jsonl"], ["none-here-*", "no such log file"]),
    (["--simulate", "5"], ["--simulate", "5x400"]),
    (["--simulate", "0x10"], ["--simulate", "devices 1-100"]),
    (["--bins", "1"], ["--bins", "2 to 20"]),
    (["--sim", "--simulate", "1x1"], ["--port and --sim are for --devices"]),
    (["README.md"], ["README.md", "not a log record"]),
])
def test_bad_arguments_get_one_line_and_exit_2(args, words, tmp_path):
    done = run(*args, "--out", str(tmp_path / "ev"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("event: ") and done.stderr.count("\n") == 1, done.stderr
    for word in words:
        assert word in done.stderr
    assert not (tmp_path / "ev" / "event.sqlite").exists()


def test_an_out_folder_that_cannot_be_made_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = run("--simulate", "1x1", "--out", str(blocker / "ev"))
    assert done.returncode == 2 and done.stderr.startswith("event: --out: ")
    assert done.stderr.count("\n") == 1


def test_devices_plugged_in_one_after_another_through_the_bench(tmp_path):
    # the simulator stands in for a board; bench.py's own `logs` command saves each one
    done = run("--devices", "2", "--sim", "--out", str(tmp_path), stdin="\n")
    assert done.returncode == 0, done.stderr
    assert "plug in device 1 of 2" in done.stdout and "plug in device 2 of 2" in done.stdout
    db = sqlite3.connect(str(tmp_path / "event.sqlite"))
    assert db.execute("SELECT COUNT(*) FROM devices").fetchone()[0] == 1  # input ended after one
