"""make bench's driver (tools/benchmarks/run.py): --help, a bad argument refused in one line,
the output's format (a heading per part, every budget line ending in OK or OVER), and a figure
that cannot be measured (a tool missing, a timeout) said in one line while the rest still
print. Only the fast parts run here; the figures themselves are make bench's, never asserted
(no timing is asserted either)."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

BENCH = os.path.join(ROOT, "tools", "benchmarks")
RUN = os.path.join(BENCH, "run.py")
sys.path.insert(0, BENCH)
import run as bench_run  # noqa: E402
import passes  # noqa: E402
import report  # noqa: E402
from native import runner  # noqa: E402  -- run.py put tools/ on sys.path


def cli(*args):
    return subprocess.run([sys.executable, RUN, *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def bench(*args):
    lines = []
    status = bench_run.main(list(args), write=lines.append)
    return status, lines


def budget_lines(lines):
    return [x for x in lines if " budget " in x or x.rstrip().endswith((" OK", " OVER"))]


def check_format(lines):
    for x in budget_lines(lines):
        assert x.endswith(" OK") or x.endswith(" OVER"), x
        assert "\n" not in x


def test_help_lists_the_parts_and_the_long_soak():
    done = cli("--help")
    assert done.returncode == 0 and done.stderr == ""
    assert "--long" in done.stdout and "--only" in done.stdout
    for name in bench_run.NAMES:
        assert name in done.stdout


@pytest.mark.parametrize("args,word", [(["--no-such-option"], "--no-such-option"),
                                       (["--only", "sizes,nope"], "nope"),
                                       (["extra"], "extra")])
def test_a_bad_argument_is_refused_in_one_line(args, word):
    done = cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("tools/benchmarks/run.py: ") and word in line, line


def test_the_makefile_runs_the_driver_with_its_arguments():
    make = open(os.path.join(ROOT, "Makefile")).read()
    assert "$(PY) tools/benchmarks/run.py $(ARGS)" in make
    assert "tools/benchmarks/*.py" not in make


def test_the_fast_parts_print_headings_and_budgets_that_end_in_ok_or_over():
    done = cli("--only", "lock,odds")
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert sum(1 for x in lines if x.startswith("== ")) == 2
    check_format(lines)
    assert len(budget_lines(lines)) >= 4
    assert "Traceback" not in done.stdout
    assert lines[-1].startswith("make bench: ")
    assert done.returncode == (1 if ": not measured: " in done.stdout else 0)


def test_a_missing_tool_is_one_line_and_the_rest_still_print(monkeypatch):
    monkeypatch.setattr(runner, "missing", lambda: "native MicroPython is not installed: test")
    status, lines = bench("--only", "odds,soak,lock")
    missing = [x for x in lines if ": not measured: " in x]
    assert len(missing) == 2 and all("not installed: test" in x for x in missing), missing
    assert any(x.startswith("  soak: not measured: native MicroPython") for x in missing)
    check_format(lines)
    assert any("success_chance: steps" in x for x in lines)     # the odds on CPython
    assert any("4 presses: all 256 codes" in x for x in lines)  # the part after the soak
    assert status == 1 and lines[-1].startswith("make bench: ")
    assert "2 figure(s) not measured" in lines[-1]


def test_a_timeout_is_one_line_and_the_rest_still_print(monkeypatch):
    def slow(*args, **kwargs):
        raise subprocess.TimeoutExpired([runner.MICROPYTHON, "script.py"], 60)
    monkeypatch.setattr(runner, "missing", lambda: None)
    monkeypatch.setattr(runner, "run", slow)
    status, lines = bench("--only", "odds,lock")
    (missing,) = [x for x in lines if ": not measured: " in x]
    assert missing.endswith("not measured: timed out after 60 s (micropython)"), missing
    assert any("the worst of 504 built decks" in x for x in lines)
    check_format(lines)
    assert status == 1


def test_a_part_that_fails_is_one_line_and_the_next_part_runs(monkeypatch):
    def broken(out, ctx):
        out.figure("before the failure", 1, "B")
        raise ValueError("first line\nlast line of a long message")
    monkeypatch.setattr(bench_run, "PARTS", (("sizes", "Broken", broken),) + bench_run.PARTS[7:8])
    status, lines = bench("--only", "sizes,lock")
    assert "  sizes: not measured: ValueError: last line of a long message" in lines
    assert any("before the failure" in x for x in lines)
    assert any("4 presses" in x for x in lines) and status == 1


def test_budget_lines_say_ok_or_over_and_what_failed_is_said_in_one_line():
    lines = []
    out = report.Report(lines.append)
    assert out.budget("a", 5, "ms", 20) and not out.budget("b", 21.5, "ms", 20)
    assert out.budget("c", 40000, "B", 32768, at_least=True)
    assert not out.budget("d", 5000, "steps", 5000, under=True)
    assert [x.rsplit(" ", 1)[1] for x in lines] == ["OK", "OVER", "OK", "OVER"]
    assert "<= 20 ms" in lines[1] and ">= 32,768 B" in lines[2] and "< 5,000 steps" in lines[3]
    assert out.over == ["b", "d"]
    with out.measuring("a figure"):
        raise FileNotFoundError(2, "No such file", "node")
    with out.measuring("another"):
        raise report.Unmeasurable("why\nin two lines")
    assert lines[-2:] == ["  a figure: not measured: node not found",
                          "  another: not measured: in two lines"]
    assert len(out.missing) == 2


class FakeFlash:
    def __init__(self, kinds):
        self.rows = [(k, 0, (0,) * 5, (0,) * 5, (0,) * 5) for k in kinds]


class FakeNative:
    def __init__(self, *runs, factors=None):
        self.runs = [[(k, 0, 10 * n, 20, 30, 40, 0, 0) for k in kinds] for n, kinds in
                     enumerate(runs, 1)]
        self.factors = factors or [150] * len(runs)


def test_sessions_that_differ_pass_for_pass_are_not_added_up():
    same = passes.Passes(FakeFlash([0, 1, 4]), FakeNative([0, 1, 4], [0, 1, 4]))
    assert same.estimate(2, "led") == (1.5, 0.0, 0.0)   # the fastest run, x150
    # each run's time at its own slowdown: the second run took twice as long on a machine
    # running at half its speed (x60 against x150), so it is the faster on the chip
    slow = passes.Passes(FakeFlash([0, 1, 4]), FakeNative([0, 1, 4], [0, 1, 4], factors=[150, 60]))
    assert slow.estimate(2, "led") == (1.2, 0.0, 0.0)
    with pytest.raises(report.Unmeasurable, match="differ at pass 2"):
        passes.Passes(FakeFlash([0, 1, 4]), FakeNative([0, 1, 4], [0, 1, 3]))
    with pytest.raises(report.Unmeasurable, match="differ at pass 3"):
        passes.Passes(FakeFlash([0, 1, 4]), FakeNative([0, 1, 4, 1]))


def test_the_slowdown_is_the_larger_ratio_of_the_chip_to_this_machine():
    import model
    # the calibration's machine: fib(20) 1.6 ms and the loop 4.5 ms natively, 238 and 741 ms on
    # the rp2 port: x149 and x165, the larger kept
    assert round(model.slowdown(1600, 4500)) == 165
    # a machine twice as slow at both: half the factor; slower at one only: the other's
    assert round(model.slowdown(3200, 9000)) == 82
    assert round(model.slowdown(3200, 4500)) == 165


def test_the_fit_is_892aee1_s_pins_read_every_loop_pass_and_today_s_phase_is_a_debounce_s_end():
    import model
    # the fit's own figures for the measured firmware (which read the buttons in a pass every
    # LOOP_MS) are within 30% of the chip's measures, and each measured event's anchor is
    # the measure less that fit
    for event in model.PRESSES:
        cpu, rest = model.CALIBRATION[event]
        fit = model.press_ms(cpu, rest, model.POLLED_PHASE_MS)
        assert abs(fit - model.MEASURED[event]) <= 0.3 * model.MEASURED[event]
        assert model.residual(event) == pytest.approx(model.MEASURED[event] - fit)
    # today's firmware's pass comes as a debounce ends (App.run, board.Buttons.due): the same
    # pass's estimate is the polled phase less its own
    assert model.POLLED_PHASE_MS == model.config.LOOP_MS / 2 > model.PHASE_MS
    assert model.press_ms(10, 1) == pytest.approx(
        model.press_ms(10, 1, model.POLLED_PHASE_MS) - model.POLLED_PHASE_MS + model.PHASE_MS)


def test_the_calibration_runs_both_workloads_under_native_micropython():
    if runner.missing():
        pytest.fail(runner.missing())
    import model
    c = model.calibrate(reps=1, processes=1)
    assert c["fib(20)"] > 0 and c["loop"] > 0
    assert c["factor"] == model.slowdown(c["fib(20)"], c["loop"])
