"""The firmware's module layout: no import cycle anywhere in firmware/ (every import, those
inside functions too, read with ast), and the rare parts out of the boot heap: after App boots,
neither carddraw.protocol (the USB console and bench commands) nor carddraw.selftest (the
power-on self-test) is loaded; the first console line loads protocol; the self-test's module
is loaded while it runs and dropped after. Checked under CPython (a fresh interpreter) and
in the MicroPython VM (the simulator, which boots as app.main() does).
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


def imports_of(path, modules):
    """The modules of `modules` that the file imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(node.module + "." + a.name for a in node.names)
    return sorted(found & modules)


def import_graph(root):
    paths = glob.glob(os.path.join(root, "**", "*.py"), recursive=True)
    modules = {module_name(p, root) for p in paths}
    return {module_name(p, root): imports_of(p, modules) for p in paths}


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


def test_the_pure_modules_touch_no_hardware():
    graph = import_graph(FIRMWARE)
    for name in ("carddraw.button", "carddraw.protocol", "carddraw.selftest"):
        path = os.path.join(FIRMWARE, *name.split(".")) + ".py"
        tree = ast.parse(open(path).read())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not names & {"machine", "neopixel", "time", "asyncio"}, (name, names)
    assert "carddraw.app" not in graph["carddraw.protocol"]
    assert "carddraw.app" not in graph["carddraw.selftest"]


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


def test_protocol_and_selftest_are_not_in_the_boot_heap_in_the_vm():
    r = run_in_vm(textwrap.dedent("""
        import json, sys
        import simhost

        def loaded():
            return [m in sys.modules for m in ("carddraw.protocol", "carddraw.selftest")]

        out = {"before": loaded()}
        dev2 = simhost.Device(seed=1, flash="/flash2", held=["DRAW"])
        out["selftest"] = loaded()[1] and dev2.app.selftest is not None
        dev2.release("DRAW")
        while dev2.app.selftest is not None and dev2.now < 200000:
            dev2.advance(1000)
            dev2.press("DRAW")    # each button when asked; DRAW ends the result screen
            dev2.press("RANK")
            dev2.press("HELP")
            dev2.press("STOP")
        dev2.advance(200)
        out["after"] = loaded() + [dev2.app.selftest is None]
        dev = simhost.Device(seed=1)
        dev.advance(1000)
        out["boot"] = loaded()
        r = json.loads(dev.run_line("show"))
        out["line"] = loaded()
        out["reply"] = json.loads(r["replies"][0])["screen"]
        dev.run_line("test display")
        out["display"] = loaded()
        RESULT = out
    """), libs=[SIM])
    assert r["before"] == [False, False]
    assert r["selftest"] is True                   # loaded while the self-test runs ...
    assert r["after"] == [False, False, True]      # ... and dropped once it has ended
    assert r["boot"] == [False, False]
    assert r["line"] == [True, False] and r["reply"] == "setup"
    assert r["display"] == [True, True]            # `test display` borrows the self-test's pattern
