"""Every tool's command line: --help, a bad argument refused in one line naming it
(exit status 2), and no tool deletes a file it did not write: each tool that writes into a
folder is given one holding a file of its own, and the file is still there afterwards."""
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


def tools():
    """tools/*.py that run as a program."""
    return sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(TOOLS, "*.py"))
                  if "if __name__ == \"__main__\":" in open(p).read())


def run(name, *args, cwd=ROOT):
    return subprocess.run([sys.executable, os.path.join(TOOLS, name + ".py"), *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def test_every_tool_but_the_hash_chains_library_is_a_program():
    assert tools() == ["bench", "build_mpy", "cards", "deploy", "event", "odds", "pictures",
                       "pins", "play", "screenshots", "termshot", "webshot"]


NEEDED = {"bench": ["logs"]}   # the arguments a tool needs besides the bad one


@pytest.mark.parametrize("name", tools())
def test_help_and_a_bad_argument_in_one_line(name, tmp_path):
    done = run(name, "--help", cwd=str(tmp_path))
    assert done.returncode == 0 and done.stderr == "" and len(done.stdout.splitlines()) > 3
    bad = run(name, "--no-such-option", *NEEDED.get(name, []), cwd=str(tmp_path))
    assert bad.returncode == 2 and bad.stdout == ""
    (line,) = bad.stderr.splitlines()
    assert "--no-such-option" in line and "--help" in line, line
    assert os.listdir(str(tmp_path)) == []   # nothing made (once a folder named --help)


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


@pytest.mark.parametrize("name,args,made", [
    ("screenshots", [], "setup.png"),
    ("cards", [], "quickstart-players.png"),
    ("pictures", ["--only", "terminal", "--root"], "docs"),
    ("event", ["--simulate", "1x3", "--out"], "report.txt"),
    ("bench", ["--sim", "logs", "--out"], None),
])
def test_the_tools_that_write_into_a_folder_leave_the_users_files(name, args, made, tmp_path):
    folder = users_folder(tmp_path / "out")
    done = run(name, *(args or []), str(folder)) if args else run(name, str(folder))
    assert done.returncode == 0, done.stderr
    assert still_there(folder)
    written = set(os.listdir(str(folder))) - {"carddraw", "notes.txt"}
    assert made in written if made else any(f.endswith(".jsonl") for f in written), written


@pytest.mark.parametrize("name", ["termshot", "webshot"])
def test_the_picture_tools_write_the_one_file_given_and_refuse_a_folder(name, tmp_path):
    folder = users_folder(tmp_path / "out")
    done = run(name, str(folder))
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert "is no .png file name" in done.stderr or "is a folder" in done.stderr
    done = run(name, str(folder / "notes.txt"))
    assert done.returncode == 2 and "no .png file name" in done.stderr
    assert still_there(folder) and sorted(os.listdir(str(folder))) == ["carddraw", "notes.txt"]
    bad = run("termshot", "--keys", "rdx", str(tmp_path / "t.png"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "keys are" in bad.stderr
    assert not (tmp_path / "t.png").exists()


def test_termshot_writes_its_picture_beside_the_users_files(tmp_path):
    folder = users_folder(tmp_path / "out")
    done = run("termshot", str(folder / "shot.png"))
    assert done.returncode == 0, done.stderr
    assert still_there(folder) and (folder / "shot.png").stat().st_size > 1000


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
