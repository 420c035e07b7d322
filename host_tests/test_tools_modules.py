"""The PC tools' module layout: no import cycle anywhere in tools/ (every import,
those inside functions too, read with ast, as test_modules.py reads the firmware's), and
sys.path patched in one place only, tools/common/__init__.py, among the tools in tools/ and
their packages (the benchmark and native runners in tools/benchmarks/ and tools/native/ keep
their own lines for now)."""
import ast
import glob
import os

from conftest import ROOT
from test_modules import cycles, imports_of

TOOLS = os.path.join(ROOT, "tools")
PACKAGES = ("common", "benchcmd", "eventlog")   # the tools' own packages


def module_name(path, root):
    """tools/common/link.py -> common.link; a package's __init__.py is the package itself."""
    name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


def import_graph(root):
    paths = glob.glob(os.path.join(root, "**", "*.py"), recursive=True)
    modules = {module_name(p, root) for p in paths}
    return {module_name(p, root): imports_of(p, modules) for p in paths}


def test_no_import_cycle_among_the_tools():
    graph = import_graph(TOOLS)
    # the edges that replaced the old cycle (bench <-> deploy) and event's import of bench
    assert "common.link" in graph["bench"] and "common.link" in graph["deploy"]
    assert "deploy" not in graph["bench"] and "bench" not in graph["deploy"]
    assert "common.chi2" in graph["eventlog.report"] and "bench" not in graph["event"]
    assert "build_mpy" in graph["native.runner"]           # the whole of tools/ is read
    assert cycles(graph) == []


def test_the_tools_cycle_check_sees_through_packages(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("def f():\n    import tool\n")
    (tmp_path / "tool.py").write_text("from pkg import part\n")
    (pkg / "part.py").write_text("x = 1\n")
    graph = import_graph(str(tmp_path))
    assert graph["tool"] == ["pkg", "pkg.part"]
    assert cycles(graph) == [["pkg", "tool", "pkg"]]


def patches_sys_path(path):
    """Lines of the file that change sys.path (a call on it, an assignment to it or to a
    slice of it); text inside strings, such as code sent to a board, does not count."""
    def is_sys_path(node):
        return (isinstance(node, ast.Attribute) and node.attr == "path"
                and isinstance(node.value, ast.Name) and node.value.id == "sys")
    found = []
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and is_sys_path(node.func.value):
            found.append(node.lineno)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if is_sys_path(t) or isinstance(t, ast.Subscript) and is_sys_path(t.value):
                    found.append(node.lineno)
    return sorted(found)


def test_sys_path_is_set_in_one_place():
    files = glob.glob(os.path.join(TOOLS, "*.py"))
    for pkg in PACKAGES:
        files += glob.glob(os.path.join(TOOLS, pkg, "*.py"))
    patched = {os.path.relpath(f, TOOLS): patches_sys_path(f) for f in files}
    assert len(patched) >= 20
    assert [f for f, lines in patched.items() if lines] == [os.path.join("common", "__init__.py")]


def test_the_sys_path_check_finds_each_way_of_patching(tmp_path):
    path = tmp_path / "t.py"
    path.write_text("import sys\nsys.path.insert(0, 'x')\nsys.path[:0] = ['y']\n"
                    "sys.path = []\nsys.path += ['z']\nprint('sys.path.insert(0, 1)')\n")
    assert patches_sys_path(str(path)) == [2, 3, 4, 5]
