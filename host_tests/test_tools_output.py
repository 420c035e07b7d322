"""No tool writes over a file it did not write, nor into a folder that is not the tools' own
(tools/common/output.py): each tool that writes is given a folder of a person's own, and a
tools' folder holding a person's file under the very name the tool writes; it refuses in one
line (exit status 2) and every byte there stays as it was. Given a new folder it writes, and
given it again it writes over its own files, leaving a person's others beside them."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

TOOLS = os.path.join(ROOT, "tools")
sys.path.insert(0, TOOLS)
from common import output  # noqa: E402

MINE = b"a person's own file, not the tools'\n"


def run(name, *args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, name + ".py"), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def snapshot(folder):
    """Every file under folder with its bytes."""
    found = {}
    for base, _, names in os.walk(str(folder)):
        for name in names:
            path = os.path.join(base, name)
            with open(path, "rb") as f:
                found[os.path.relpath(path, str(folder))] = f.read()
    return found


def refused(done, name, *words):
    """The tool's one line (bench logs names its subcommand too), exit status 2."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "" and "copy it onto the Pico" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(name + (" logs: " if name == "bench" else ": ")), line
    for word in words:
        assert word in line, line
    return line


# (tool, its arguments with {out} for the folder it writes into, the file it writes there)
WRITERS = [
    ("screenshots", ["{out}"], "setup.png"),
    ("cards", ["{out}"], "quickstart-players.png"),
    ("termshot", ["{out}/terminal.png"], "terminal.png"),
    ("webshot", ["{out}/web.png"], "web.png"),
    ("event", ["--simulate", "1x2", "--out", "{out}"], "report.txt"),
    ("build_mpy", ["{out}"], "carddraw/app.mpy"),
    ("uf2", ["--micropython", "{mp}", "--build", "{build}", "--out", "{out}/pico.uf2"], "pico.uf2"),
]


def argv(args, out, tmp_path):
    """A micropython tree that is one as far as a path goes: the refusals come first."""
    (tmp_path / "mp" / "ports" / "rp2").mkdir(parents=True, exist_ok=True)
    (tmp_path / "mp" / "ports" / "rp2" / "Makefile").write_text("all:\n\tfalse\n")
    return [a.format(out=out, mp=tmp_path / "mp", tmp=tmp_path, build=tmp_path / "rp2-build")
            for a in args]


@pytest.mark.parametrize("name,args,writes", WRITERS + [
    ("pictures", ["--only", "terminal", "--root", "{out}"], "docs/img/terminal.png"),
    ("bench", ["--sim", "logs", "--out", "{out}"], "carddraw-x.jsonl")])
def test_a_folder_of_a_persons_own_is_refused_and_left_byte_for_byte(name, args, writes,
                                                                     tmp_path):
    out = tmp_path / "mine"
    (out / os.path.dirname(writes)).mkdir(parents=True, exist_ok=True)
    (out / writes).write_bytes(MINE)                 # the very name the tool would write
    (out / "notes.txt").write_bytes(MINE)
    before = snapshot(out)
    line = refused(run(name, *argv(args, out, tmp_path)), name)
    assert "did not write" in line and ("give a new or empty folder" in line
                                        or "move it away" in line), line
    assert snapshot(out) == before
    assert not (tmp_path / "rp2-build").exists()     # uf2: refused before any build


@pytest.mark.parametrize("name,args,writes", WRITERS + [
    ("pictures", ["--only", "terminal", "--root", "{tmp}"], "img/terminal.png")])
def test_a_persons_file_in_the_tools_own_folder_is_not_written_over(name, args, writes,
                                                                    tmp_path):
    """The folder is the tools' (its list names a file they wrote), but the file under the
    name the tool writes now is the person's: refused, nothing there changed."""
    out = tmp_path / "docs" if name == "pictures" else tmp_path / "built"
    folder = out if name == "build_mpy" else out / os.path.dirname(writes)   # the list's
    (out / os.path.dirname(writes)).mkdir(parents=True, exist_ok=True)
    (folder / output.MARKER).write_text("# the tools' list\nold.png\n")
    (folder / "old.png").write_bytes(b"the tools' own")
    (out / writes).write_bytes(MINE)
    before = snapshot(tmp_path / "docs" if name == "pictures" else out)
    line = refused(run(name, *argv(args, out, tmp_path)), name, str(out / writes),
                   "did not write it", "move it away or give another folder")
    assert "Traceback" not in line
    assert snapshot(tmp_path / "docs" if name == "pictures" else out) == before


def test_a_file_given_for_the_folder_is_refused(tmp_path):
    (tmp_path / "file").write_bytes(MINE)
    for name, args in (("screenshots", [str(tmp_path / "file")]),
                       ("cards", [str(tmp_path / "file")]),
                       ("event", ["--simulate", "1x1", "--out", str(tmp_path / "file")]),
                       ("pictures", ["--only", "cards", "--root", str(tmp_path / "file")])):
        refused(run(name, *args), name, "is a file, not a folder")
    assert (tmp_path / "file").read_bytes() == MINE and os.listdir(str(tmp_path)) == ["file"]


@pytest.mark.parametrize("name,args,made", [
    ("screenshots", ["{out}"], "setup.png"),
    ("termshot", ["{out}/shot.png"], "shot.png"),
    ("event", ["--simulate", "1x3", "--out", "{out}"], "report.txt"),
    ("bench", ["--sim", "logs", "--out", "{out}"], None),
])
def test_a_new_folder_is_written_and_written_again_leaving_a_persons_files(name, args, made,
                                                                          tmp_path):
    out = tmp_path / "new"
    for turn in range(2):
        done = run(name, *[a.replace("{out}", str(out)) for a in args])
        assert done.returncode == 0, done.stderr
        listed = output.listed(str(out))
        assert listed and set(listed) <= set(os.listdir(str(out))) | {"simulated"}, listed
        assert made in listed if made else any(n.endswith(".jsonl") for n in listed), listed
        (out / ("mine-%d.txt" % turn)).write_bytes(MINE)   # a person's file put in beside
    assert (out / "mine-0.txt").read_bytes() == MINE == (out / "mine-1.txt").read_bytes()


# output's rules, played in this process on folders of a temporary git repository


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git checkout standing in for this one (output.ROOT) with docs/a.png committed."""
    root = tmp_path / "checkout"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.png").write_bytes(b"committed")
    (root / "docs" / "notes.md").write_bytes(b"the docs' own text")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "docs"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "docs"], check=True)
    monkeypatch.setattr(output, "ROOT", str(root))
    monkeypatch.setattr(output, "BUILD", str(root / "build"))
    return root


def writer(data):
    def write(path):
        with open(path, "wb") as f:
            f.write(data)
    return write


def test_a_file_git_holds_as_it_is_is_the_tools_to_replace_and_then_listed(repo):
    docs = str(repo / "docs")
    assert output.committed(os.path.join(docs, "a.png"))
    assert not output.committed(os.path.join(docs, "absent.png"))
    output.write({os.path.join(docs, "a.png"): writer(b"drawn again")}, "a test")
    assert (repo / "docs" / "a.png").read_bytes() == b"drawn again"
    assert not output.committed(os.path.join(docs, "a.png"))     # changed: git's is older
    assert output.listed(docs) == ["a.png"]                      # but the tools wrote it
    output.write({os.path.join(docs, "a.png"): writer(b"and again")}, "a test")
    assert (repo / "docs" / "notes.md").read_bytes() == b"the docs' own text"


def test_a_committed_file_changed_by_a_person_or_one_git_does_not_hold_is_refused(repo):
    docs = str(repo / "docs")
    (repo / "docs" / "a.png").write_bytes(b"a person's edit, not committed")
    (repo / "docs" / "b.png").write_bytes(MINE)
    for name in ("a.png", "b.png"):
        with pytest.raises(output.NotOurs, match="did not write"):
            output.write({os.path.join(docs, name): writer(b"x")}, "a test")
    assert (repo / "docs" / "a.png").read_bytes() == b"a person's edit, not committed"
    assert (repo / "docs" / "b.png").read_bytes() == MINE
    assert output.listed(docs) is None                           # nothing claimed either
    with pytest.raises(output.NotOurs, match="holds files that a test did not write"):
        output.write({os.path.join(docs, "c.png"): writer(b"x")}, "a test")  # not git's name


def test_the_checkouts_build_folder_is_the_tools_but_not_a_file_in_it(repo):
    build = repo / "build"
    build.mkdir()
    (build / "mpy").mkdir()                                      # another tool's build
    (build / "theirs.uf2").write_bytes(MINE)
    output.write({str(build / "carddraw.uf2"): writer(b"uf2")}, "a test")
    assert output.listed(str(build)) == ["carddraw.uf2"]
    with pytest.raises(output.NotOurs, match="theirs.uf2 is there"):
        output.claim(str(build), ["theirs.uf2"], "a test")
    assert output.claim(str(build), ["theirs.uf2"], "a test", mine=lambda p: True)
    assert (build / "theirs.uf2").read_bytes() == MINE            # claimed, not yet written


def test_every_folder_is_checked_before_any_file_is_written(tmp_path):
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "x.png").write_bytes(MINE)
    with pytest.raises(output.NotOurs):
        output.write({str(tmp_path / "new" / "a.png"): writer(b"a"),
                      str(tmp_path / "theirs" / "b.png"): writer(b"b")}, "a test")
    assert not (tmp_path / "new").exists()
    assert os.listdir(str(tmp_path / "theirs")) == ["x.png"]


def test_a_build_refuses_a_persons_file_under_a_name_it_builds_now(tmp_path):
    out = tmp_path / "mpy"
    output.prepare(str(out), ["main.py"], "a test")
    (out / "main.py").write_text("built")
    (out / "app.mpy").write_bytes(MINE)                          # not in the build's list
    with pytest.raises(output.NotOurs, match="app.mpy is there and a test did not write it"):
        output.prepare(str(out), ["main.py", "app.mpy"], "a test")
    assert (out / "main.py").read_text() == "built" and (out / "app.mpy").read_bytes() == MINE


def test_a_named_file_goes_beside_a_persons_files_and_only_over_the_tools_own(tmp_path):
    """odds --plot (and termshot, webshot, uf2 --out) write the one file a person names: any
    folder will do, no list is added to a person's folder, and a file already there is
    replaced only when the tools drew it (its PNG text says so)."""
    from PIL import Image
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_bytes(MINE)
    for _ in range(2):                                   # again: over its own chart
        done = run("odds", "--plot", str(home / "odds.png"))
        assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(str(home))) == ["notes.txt", "odds.png"]
    assert output.marked_png(str(home / "odds.png"))
    Image.new("RGB", (4, 4)).save(str(home / "holiday.png"))      # a person's own picture
    before = snapshot(home)
    line = refused(run("odds", "--plot", str(home / "holiday.png")), "odds")
    assert "holiday.png is there and tools/odds.py did not write it" in line
    assert snapshot(home) == before and not output.marked_png(str(home / "holiday.png"))


def test_claim_file_lists_the_file_only_in_the_tools_folders(tmp_path):
    new = tmp_path / "new" / "a.png"
    assert output.claim_file(str(new), "a test") == str(new)
    assert output.listed(str(new.parent)) == ["a.png"]            # a folder it made: listed
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_bytes(MINE)
    output.claim_file(str(theirs / "b.png"), "a test")
    assert os.listdir(str(theirs)) == ["notes.txt"]                # no list in a person's folder
    (new.parent / "c.png").write_bytes(MINE)
    with pytest.raises(output.NotOurs, match="c.png is there and a test did not write it"):
        output.claim_file(str(new.parent / "c.png"), "a test")
    output.claim_file(str(new.parent / "c.png"), "a test", mine=lambda p: True)
    assert output.listed(str(new.parent)) == ["a.png", "c.png"]
    with pytest.raises(output.NotOurs, match="is a folder, not a file"):
        output.claim_file(str(theirs), "a test")


def test_a_picture_the_tools_drew_says_so_in_its_png_text(tmp_path):
    from PIL import Image, PngImagePlugin
    info = PngImagePlugin.PngInfo()
    for key, value in output.png_text("tools/x.py").items():
        info.add_text(key, value)
    Image.new("RGB", (2, 2)).save(str(tmp_path / "ours.png"), pnginfo=info)
    other = PngImagePlugin.PngInfo()
    other.add_text("Software", "another program")
    Image.new("RGB", (2, 2)).save(str(tmp_path / "theirs.png"), pnginfo=other)
    (tmp_path / "text.png").write_bytes(b"Software\0carddraw but no PNG")
    assert output.marked_png(str(tmp_path / "ours.png"))
    assert not output.marked_png(str(tmp_path / "theirs.png"))
    assert not output.marked_png(str(tmp_path / "text.png"))
    assert not output.marked_png(str(tmp_path / "absent.png"))


def test_a_folder_holding_only_the_tools_folders_is_theirs(tmp_path):
    """make event first makes logs/event/; make logs then adds its export to logs/."""
    logs = tmp_path / "logs"
    output.claim(str(logs / "event"), ["report.txt"], "a test")
    output.claim(str(logs), ["carddraw-1.jsonl"], "a test")
    assert output.listed(str(logs)) == ["carddraw-1.jsonl"]
    (tmp_path / "other" / "sub").mkdir(parents=True)               # a folder not the tools'
    with pytest.raises(output.NotOurs, match="holds files that a test did not write"):
        output.claim(str(tmp_path / "other"), ["x.jsonl"], "a test")
