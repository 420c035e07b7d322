"""Every tool's command line: --help, a bad argument refused in one line naming it (exit
status 2), and no tool deletes a file it did not write (the refusals of a folder or a file that
is not the tools' are host_tests/test_tools_output.py's)."""
import glob
import os
import subprocess
import sys

import pytest

from conftest import ROOT

TOOLS = os.path.join(ROOT, "tools")
sys.path.insert(0, TOOLS)
import build_mpy  # noqa: E402
from common import output  # noqa: E402

OURS = ["bench", "build_mpy", "cards", "event", "odds", "pictures", "play", "screenshots",
        "termshot", "uf2", "webshot"]     # deploy and pins are tools too, with tests of their own


def tools():
    """tools/*.py that run as a program."""
    return sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(TOOLS, "*.py"))
                  if "if __name__ == \"__main__\":" in open(p).read())


def run(name, *args, cwd=ROOT):
    return subprocess.run([sys.executable, os.path.join(TOOLS, name + ".py"), *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def test_every_script_in_tools_is_a_tool_for_people():
    scripts = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(TOOLS, "*.py")))
    helpers = sorted(set(scripts) - set(tools()))
    assert not helpers, ("modules that are no tool for people belong beside what uses them "
                         "(tools/common/ or a folder of their own), not in tools/: %s" % helpers)
    assert set(OURS) <= set(tools()) and "logchain" not in scripts


@pytest.mark.parametrize("name", tools())
def test_help_and_a_bad_option_in_one_line(name, tmp_path):
    done = run(name, "--help", cwd=str(tmp_path))
    assert done.returncode == 0 and done.stderr == "" and len(done.stdout.splitlines()) > 3
    usage = "usage: %s " % name if name in OURS else "python tools/%s.py" % name
    assert usage in done.stdout, done.stdout[:80]        # pins writes its usage its own way
    bad = run(name, "--no-such-option", cwd=str(tmp_path))
    assert bad.returncode == 2 and bad.stdout == ""
    (line,) = bad.stderr.splitlines()
    assert line.startswith(name) and "--no-such-option" in line and "--help" in line, line
    assert os.listdir(str(tmp_path)) == []   # nothing made (once a folder named --help)


@pytest.mark.parametrize("args", [["--bogus"], ["--bogus", "logs"], ["logs", "--bogus"],
                                  ["--sim", "--bogus=3", "logs"], ["-q", "random", "5"]])
def test_bench_names_the_unknown_option_wherever_it_stands(args):
    """bench once said only that COMMAND was missing when given an option it did not know."""
    done = run("bench", *args)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    bad = [a.split("=")[0] for a in args if a.startswith("-") and a != "--sim"][0]
    assert line.startswith("bench: unrecognized arguments: " + bad) and "--help" in line, line


@pytest.mark.parametrize("name,args,says", [
    ("play", ["--seed", "2147483648"], "play: argument --seed: must be from 0 to 999999999, "
                                       "not 2147483648"),
    ("play", ["--seed", "-1"], "play: argument --seed: must be from 0 to 999999999, not -1"),
    ("bench", ["--sim", "--seed", "-1", "logs"], "bench: argument --seed: must be from 0 to "
                                                 "999999999, not -1"),
    ("bench", ["--sim", "flash"], "bench: argument COMMAND: invalid choice: 'flash'"),
    ("bench", [], "bench: the following arguments are required: COMMAND"),
    ("event", ["--bins", "1", "--simulate", "1x1"], "event: argument --bins: must be from 2 to 20"),
    ("event", ["--simulate", "5"], "event: argument --simulate: must be DEVICESxACTIONS"),
    ("odds", ["--ranks", "10"], "odds: argument --ranks: must be from 0 to 9, not 10"),
    ("termshot", ["--keys", "rdx"], "termshot: argument --keys: keys are 1 to 40 of r h d s"),
    ("pictures", ["--only", "film"], "pictures: argument --only: invalid choice: 'film'"),
    ("uf2", ["--jobs", "0"], "uf2: argument --jobs: must be from 1 to 256, not 0"),
    ("uf2", [], "uf2: --micropython DIR is needed (make uf2 MICROPY=DIR)"),
    ("build_mpy", ["a", "b"], "build_mpy: unrecognized arguments: b"),
])
def test_a_bad_value_is_refused_in_one_line_naming_it_and_what_is_allowed(name, args, says,
                                                                        tmp_path):
    done = run(name, *args, cwd=str(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(says), line
    assert os.listdir(str(tmp_path)) == []


def users_folder(path):
    """A folder holding a file of the user's own, at the top and one level down."""
    (path / "carddraw").mkdir(parents=True, exist_ok=True)
    (path / "notes.txt").write_text("mine")
    (path / "carddraw" / "mine.py").write_text("mine too")
    return path


def still_there(path):
    return ((path / "notes.txt").read_text() == "mine"
            and (path / "carddraw" / "mine.py").read_text() == "mine too")


def test_build_mpy_refuses_a_users_folder_and_touches_nothing_in_it(tmp_path):
    folder = users_folder(tmp_path / "notes")
    done = run("build_mpy", str(folder))
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("build_mpy: %s holds files that tools/build_mpy.py did not "
                                  "write" % folder)
    assert still_there(folder) and sorted(os.listdir(str(folder))) == ["carddraw", "notes.txt"]
    assert os.listdir(str(folder / "carddraw")) == ["mine.py"]
    (tmp_path / "file").write_text("x")
    done = run("build_mpy", str(tmp_path / "file"))
    assert done.returncode == 2 and "is a file, not a folder" in done.stderr
    assert (tmp_path / "file").read_text() == "x"


def test_build_mpy_builds_again_removing_only_what_it_wrote(tmp_path):
    out = tmp_path / "mpy"
    first = build_mpy.build(str(out))
    assert "carddraw/app.mpy" in first and "main.py" in first
    users_folder(out)                                   # the user's files put into the build
    listed = (out / output.MARKER).read_text()
    (out / output.MARKER).write_text(listed + "carddraw/gone.mpy\n../outside.txt\n")
    (out / "carddraw" / "gone.mpy").write_bytes(b"a module firmware/ no longer has")
    (tmp_path / "outside.txt").write_text("not the build's")
    again = build_mpy.build(str(out))
    assert again == first
    assert still_there(out) and (tmp_path / "outside.txt").read_text() == "not the build's"
    assert not (out / "carddraw" / "gone.mpy").exists()   # listed last time: the build's own
    on_disk = {os.path.relpath(os.path.join(b, f), str(out)) for b, _, fs in os.walk(str(out))
               for f in fs}
    assert on_disk == set(first) | {output.MARKER, "notes.txt", "carddraw/mine.py"}


def test_an_empty_folder_is_taken_and_a_build_cut_short_is_cleared(tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    output.prepare(str(out), ["a/b.mpy", "main.py"], "a test")
    (out / "a" / "b.mpy").write_text("half")            # cut short: main.py never written
    output.prepare(str(out), ["c.mpy"], "a test")
    assert sorted(os.listdir(str(out))) == [output.MARKER]  # a/ was the build's: gone
    assert output.listed(str(out)) == ["c.mpy"]


def test_the_web_build_refuses_a_users_folder_and_builds_again_only_over_its_own(tmp_path):
    """tools/web/build.py --out DIR once emptied DIR whatever it held."""
    build = os.path.join(TOOLS, "web", "build.py")
    folder = users_folder(tmp_path / "notes")
    done = subprocess.run([sys.executable, build, "--out", str(folder)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "holds files that tools/web/build.py did not write" in done.stderr
    assert still_there(folder) and sorted(os.listdir(str(folder))) == ["carddraw", "notes.txt"]
    site = tmp_path / "site"
    for _ in range(2):                                  # again: over its own files only
        done = subprocess.run([sys.executable, build, "--out", str(site)], capture_output=True,
                              text=True, cwd=ROOT, timeout=120)
        assert done.returncode == 0, done.stderr
        (site / "mine.txt").write_text("the user's")
    assert (site / "index.html").exists() and (site / "mine.txt").read_text() == "the user's"
    bad = subprocess.run([sys.executable, build, "--port", "x"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--port" in bad.stderr
