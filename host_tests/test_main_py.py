"""firmware/main.py at power-on, run under CPython in a fresh interpreter with stand-ins for
what the board has (micropython.kbd_intr, carddraw.app): the interrupt key off before
anything else, the frozen package first on sys.path (a /carddraw folder left by an earlier
`make deploy` must not hide a UF2's code), a deploy cut short after its copy finished, and the
one-shot maintenance flag. (The VM tests in test_maint_boot.py run it on MicroPython.)"""
import json
import os
import subprocess
import sys

from conftest import FIRMWARE

SCRIPT = r"""
import json, os, sys, types
calls = []
sys.modules["micropython"] = types.SimpleNamespace(kbd_intr=calls.append)
app = types.ModuleType("carddraw.app")
app.main = lambda: calls.append(("main", list(sys.path[:2]), sorted(os.listdir())))
pkg = types.ModuleType("carddraw")
pkg.app = app
sys.modules["carddraw"], sys.modules["carddraw.app"] = pkg, app
sys.path[:] = ["", ".frozen", "/lib"] + sys.path   # the rp2 port's, then CPython's own
said = []
exec(open(%r).read(), {"__name__": "__main__", "print": said.append})
print(json.dumps({"calls": calls, "said": said, "files": sorted(os.listdir()),
                  "path": sys.path[:3]}))
"""


def boot(folder, *files):
    for name in files:
        path = os.path.join(folder, name)
        if name.endswith("/"):
            os.makedirs(path, exist_ok=True)
        else:
            with open(path, "w") as f:
                f.write("x")
    done = subprocess.run([sys.executable, "-c", SCRIPT % os.path.join(FIRMWARE, "main.py")],
                          capture_output=True, text=True, cwd=str(folder), timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_interrupt_key_goes_off_first_and_the_frozen_package_comes_first(tmp_path):
    r = boot(tmp_path, "carddraw/", "carddraw/app.py")    # a folder left by `make deploy`
    assert r["calls"][0] == -1                              # before any import of ours
    assert r["calls"][1][0] == "main" and r["calls"][1][1] == [".frozen", ""]
    assert r["path"] == [".frozen", "", "/lib"]             # a UF2's frozen carddraw wins
    assert r["said"] == [] and len(r["calls"]) == 2         # the key stays off


def test_a_deploy_cut_after_its_copy_was_whole_is_finished(tmp_path):
    r = boot(tmp_path, "carddraw.new/", "carddraw.new/app.mpy")
    assert "carddraw" in r["files"] and "carddraw.new" not in r["files"]
    assert r["calls"][1][0] == "main"


def test_a_half_copied_deploy_is_left_for_the_next_deploy(tmp_path):
    r = boot(tmp_path, "carddraw/", "carddraw.tmp/")
    assert r["files"] == ["carddraw", "carddraw.tmp"]       # only a whole copy is renamed


def test_maintenance_turns_the_key_on_and_starts_no_app(tmp_path):
    r = boot(tmp_path, "maint.flag")
    assert r["calls"] == [-1, 3] and "maint.flag" not in r["files"]
    assert r["said"] == ["carddraw: maintenance, app and watchdog off until reset"]
    r = boot(tmp_path)                                      # the next reset: a normal boot
    assert r["calls"][0] == -1 and r["calls"][1][0] == "main"


CRASH = r"""
import json, sys, types
calls = []
sys.modules["micropython"] = types.SimpleNamespace(kbd_intr=calls.append)
sys.modules["machine"] = types.SimpleNamespace(reset=lambda: calls.append("reset"))
app = types.ModuleType("carddraw.app")

def main():
    raise MemoryError("memory allocation failed")
app.main = main
app.fatal = lambda e: calls.append(("fatal", type(e).__name__))
pkg = types.ModuleType("carddraw")
pkg.app = app
sys.modules["carddraw"], sys.modules["carddraw.app"] = pkg, app
if %r:   # carddraw.app itself does not import
    del sys.modules["carddraw.app"]
    pkg = types.ModuleType("carddraw")
    sys.modules["carddraw"] = pkg
exec(open(%r).read(), {"__name__": "__main__"})
print(json.dumps(calls))
"""


def test_an_exception_out_of_the_app_never_leaves_the_board_at_the_repl(tmp_path):
    """At boot or in the loop: main.py hands it to app.fatal (shown and logged where that
    works) and resets the board; no exception comes out of main.py, so the rp2 port never
    opens the REPL. The same when carddraw.app itself cannot be imported."""
    for broken in (False, True):
        done = subprocess.run(
            [sys.executable, "-c", CRASH % (broken, os.path.join(FIRMWARE, "main.py"))],
            capture_output=True, text=True, cwd=str(tmp_path), timeout=60)
        assert done.returncode == 0, done.stderr
        calls = json.loads(done.stdout.splitlines()[-1])
        assert calls[0] == -1 and calls[-1] == "reset"
        assert (["fatal", "MemoryError"] in calls) == (not broken)
