"""The firmware's module layout: no import cycle anywhere in firmware/ (every import, those
inside functions too, read with ast); the house rules (only board.py touches the hardware
modules, only the shell and the board the clock and asyncio; nothing loads or drops modules
by hand); every module imported once and kept: boot imports everything but the rare paths
(carddraw.protocol, the USB console and bench commands, on the first console byte;
carddraw.selftest, the power-on self-test and the bench's `test` lines; the log's export and
old-log repair), and playing
imports and drops nothing. Checked under CPython (a fresh interpreter) and in the MicroPython
VM (the simulator, which boots as app.main() does).
"""
import ast
import glob
import json
import os
import subprocess
import sys
import textwrap

from conftest import FIRMWARE, ROOT, run_in_vm

SIM = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")


def module_name(path, root):
    rel = os.path.relpath(path, root)[:-3]
    return rel.replace(os.sep, ".")


def imports_of(path, modules, name=""):
    """The modules of `modules` that the file (module `name`) imports, anywhere in it;
    relative imports (`from . import x`, `from .x import y`) resolved from `name`."""
    found = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = name.split(".")[:-node.level] if node.level else []
            module = ".".join(parts + ([node.module] if node.module else []))
            if module:
                found.add(module)
                found.update(module + "." + a.name for a in node.names)
    return sorted(found & modules)


def import_graph(root):
    paths = glob.glob(os.path.join(root, "**", "*.py"), recursive=True)
    modules = {module_name(p, root) for p in paths}
    return {module_name(p, root): imports_of(p, modules, module_name(p, root)) for p in paths}


def cycles(graph):
    """Every import cycle, each as the list of modules round it (depth-first search)."""
    found = []
    state = {}                       # module -> 1 on the current path, 2 done

    def visit(m, path):
        state[m] = 1
        for n in graph.get(m, ()):
            if state.get(n) == 1:
                found.append(path[path.index(n):] + [n])
            elif n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return found


def test_no_import_cycle_in_the_firmware():
    graph = import_graph(FIRMWARE)
    assert {"carddraw.app", "carddraw.protocol", "carddraw.selftest", "carddraw.button",
            "main"} <= set(graph)
    assert "carddraw.protocol" in graph["carddraw.app"]       # the lazy imports are seen too
    assert cycles(graph) == []


def imported_names(path):
    tree = ast.parse(open(path).read())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return names | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


HARDWARE = {"machine", "neopixel"}
CLOCK = {"time", "asyncio"}


def test_only_the_board_touches_the_hardware_and_only_the_shell_the_clock():
    """The house rule (docs/firmware.md): board.py is the one module that imports machine or
    neopixel (main.py too, for the reset), and only app.py and board.py import time or
    asyncio; every other module is pure, so CPython, the simulator and the board run it."""
    seen = {}
    for path in glob.glob(os.path.join(FIRMWARE, "**", "*.py"), recursive=True):
        name = module_name(path, FIRMWARE)
        seen[name] = imported_names(path)
        if name not in ("carddraw.board", "main"):
            assert not seen[name] & HARDWARE, (name, seen[name] & HARDWARE)
        if name not in ("carddraw.board", "carddraw.app"):
            assert not seen[name] & CLOCK, (name, seen[name] & CLOCK)
    assert "machine" in seen["carddraw.board"] and "asyncio" in seen["carddraw.app"]
    graph = import_graph(FIRMWARE)
    assert "carddraw.app" not in graph["carddraw.protocol"]
    assert "carddraw.app" not in graph["carddraw.selftest"]


def test_no_module_is_loaded_or_dropped_by_hand():
    """Modules import what they use; nothing reaches into sys.modules or __import__."""
    for path in glob.glob(os.path.join(FIRMWARE, "**", "*.py"), recursive=True):
        text = open(path).read()
        for word in ("sys.modules", "__import__"):
            assert word not in text, (path, word)


def test_the_cycle_check_finds_a_cycle(tmp_path):
    pkg = tmp_path / "carddraw"
    pkg.mkdir()
    (pkg / "a.py").write_text("from carddraw import b\n")
    (pkg / "b.py").write_text("def f():\n    from carddraw.c import x\n")
    (pkg / "c.py").write_text("import carddraw.a\n")
    (pkg / "d.py").write_text("from carddraw import a\n")
    found = cycles(import_graph(str(tmp_path)))
    assert found == [["carddraw.a", "carddraw.b", "carddraw.c", "carddraw.a"]]


# -- what boot loads -----------------------------------------------------------------------------
CPYTHON_BOOT = """
import json, os, random, sys
sys.path[:0] = [%r, %r]
import hardening_board
from carddraw.app import App
from carddraw.store import Store

def loaded():
    return [m in sys.modules for m in ("carddraw.protocol", "carddraw.selftest")]

out = {}
replies = []
app = App(hardening_board.Board(), Store(), random.Random(1), 0, write=replies.append)
read_fd, write_fd = os.pipe()

class Stdin:
    def fileno(self):
        return read_fd
    def read(self, n):
        return os.read(read_fd, n).decode("latin-1")

app.listen(Stdin())
for t in range(20, 200, 20):
    app.loop_pass(t)
out["boot"] = loaded()
os.write(write_fd, b"show\\n")
app.loop_pass(220)
out["line"] = loaded()
out["reply"] = json.loads(replies[0])["screen"]
print(json.dumps(out))
"""


def test_protocol_and_selftest_are_not_in_the_boot_heap_on_cpython(tmp_path):
    done = subprocess.run([sys.executable, "-c", CPYTHON_BOOT % (FIRMWARE, VMLIB)],
                          capture_output=True, text=True, cwd=str(tmp_path), timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["boot"] == [False, False]
    assert out["line"] == [True, False] and out["reply"] == "setup"


RARE = ("protocol", "selftest", "logexport", "migrate")
WARM = ("action", "play", "playscreens", "referee", "saved", "lockcode")


def test_every_module_is_imported_once_and_kept_in_the_vm():
    """Boot imports every module but the rare paths; the first console line brings the
    protocol; playing (set-up, the options, the difficulty, the lock and referee menu, an
    action's cards, its end) imports nothing and drops nothing; the self-test's module comes
    with a power-on holding DRAW and stays."""
    r = run_in_vm(textwrap.dedent("""
        import json, sys
        import simhost

        def loaded():
            return sorted(m[9:] for m in sys.modules if m.startswith("carddraw."))

        out = {"before": loaded()}
        dev = simhost.Device(seed=1)
        dev.advance(1000)
        out["boot"] = loaded()
        r = json.loads(dev.run_line("show"))
        out["line"] = loaded()
        out["reply"] = json.loads(r["replies"][0])["screen"]
        for line in ("long DRAW", "press STOP", "press STOP", "press RANK", "long STOP",
                     "press RANK", "press HELP", "press RANK", "press HELP", "long STOP",
                     "press DRAW", "press DRAW", "press DRAW", "press DRAW", "press STOP",
                     "press DRAW", "wait 61000", "press DRAW", "press DRAW"):
            dev.run_line(line)
        out["played"] = loaded()
        dev.run_line("unlock RHRH")   # bench mode: tests take over the display
        dev.run_line("test display")
        out["display"] = loaded()
        dev2 = simhost.Device(seed=1, flash="/flash2", held=["DRAW"])
        out["selftest"] = dev2.app.selftest is not None
        dev2.release("DRAW")
        while dev2.app.selftest is not None and dev2.now < 200000:
            dev2.advance(1000)
            dev2.press("DRAW")    # each button when asked; DRAW ends the result screen
            dev2.press("RANK")
            dev2.press("HELP")
            dev2.press("STOP")
        dev2.advance(200)
        out["after"] = [dev2.app.selftest is None, loaded()]
        RESULT = out
    """), libs=[SIM])
    firmware = sorted(module_name(p, FIRMWARE)[9:] for p in
                      glob.glob(os.path.join(FIRMWARE, "carddraw", "*.py")))
    assert r["boot"] == [m for m in firmware if m not in RARE]
    # simhost imports the app: all of it but the action's side and the referee's screens
    # (and their lockcode), which its idle passes import after the first frame (App.warm)
    assert r["before"] == [m for m in r["boot"] if m not in WARM]
    assert r["line"] == sorted(r["boot"] + ["protocol"]) and r["reply"] == "setup"
    assert r["played"] == r["line"]                     # nothing new, nothing dropped
    assert r["display"] == sorted(r["line"] + ["selftest"])  # the bench's tests
    assert r["selftest"] is True and r["after"][0]
    assert r["after"][1] == r["display"]                # it stays once imported
