"""tools/deploy.py (make deploy): finding the Pico, the mpremote plan, and no board at all; the
staged copy on MicroPython, a power cut at every step on a fake board, a board with carddraw
frozen in, --remove. --code (maintenance mode before mpremote): test_deploy_maint.py."""
import builtins
import os
import subprocess
import sys
from types import SimpleNamespace

from conftest import ROOT, run_in_vm
from deploykit import TOOL, FakeMpremote, deploy, port


def test_only_a_micropython_rp2040_counts_as_a_board():
    ports = [port("/dev/ttyS0"), port("/dev/ttyUSB0", 0x10C4, 0xEA60),
             port("/dev/ttyACM3", 0x2E8A, 0x0005), port("/dev/ttyACM4", 0x2E8A, 0x000A)]
    assert deploy.find_picos(ports) == ["/dev/ttyACM3"]
    assert deploy.pick_port(None, ports[:2]) is None
    assert deploy.pick_port("/dev/ttyX", ports[:2]) == "/dev/ttyX"


def test_no_board_is_a_clear_message_and_exit_2():
    if deploy.find_picos():
        return  # a real Pico is attached to this machine: nothing to prove here
    done = subprocess.run([sys.executable, TOOL], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == "no board found: connect the Pico running MicroPython by USB"
    make = subprocess.run(["make", "-s", "deploy"], capture_output=True, text=True, cwd=ROOT)
    assert make.returncode != 0 and "no board found" in make.stderr


def test_dry_run_plan_copies_every_module_compiled_and_resets(tmp_path):
    done = subprocess.run([sys.executable, TOOL, "--port", "/dev/ttyACM9", "--dry-run",
                           "--build", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert os.path.join(str(tmp_path), "mpy", "carddraw", "deck.mpy") in out  # built there
    modules = sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "firmware", "carddraw"))
                     if f.endswith(".py"))
    for name in modules:
        assert "carddraw/%s.mpy" % name in out
    assert ".py :carddraw/" not in out and "main.py :main.py" in out
    assert "connect /dev/ttyACM9" in out and out.rstrip().endswith("+ reset")


def test_staged_copy_on_micropython_replaces_old_code_and_keeps_settings_log_and_action():
    r = run_in_vm(
        "import os\n"
        "os.mkdir('board')\nos.chdir('board')\nos.mkdir('carddraw')\n"
        "for name in ('carddraw/app.py', 'carddraw/deck.mpy', 'settings.json', 'log.jsonl', 'action.json'):\n"
        "    open(name, 'w').write('x')\n"
        "out = []\n"
        "for _ in range(2):\n"   # twice: a board deployed before is fine
        "    exec(%r)\n"
        "    open('carddraw.tmp/app.mpy', 'w').write('new')\n"   # what fs cp puts there
        "    exec(%r)\n"
        "    out.append([sorted(os.listdir('.')), os.listdir('carddraw')])\n"
        "RESULT = out\n" % (deploy.stage(["carddraw"]), deploy.SWAP))
    assert r == [[["action.json", "carddraw", "log.jsonl", "settings.json"], ["app.mpy"]]] * 2


def test_a_deploy_cut_between_its_renames_is_completed_by_the_next_one_on_micropython():
    r = run_in_vm(
        "import os\n"
        "os.mkdir('board3')\nos.chdir('board3')\n"
        "for d in ('carddraw.new', 'carddraw.old', 'carddraw.tmp', 'carddraw.tmp/sub'):\n"
        "    os.mkdir(d)\n"
        "for name in ('carddraw.new/app.mpy', 'carddraw.old/app.mpy', 'carddraw.tmp/sub/x.mpy', 'log.jsonl'):\n"
        "    open(name, 'w').write(name)\n"
        "exec(%r)\n"
        "RESULT = [sorted(os.listdir('.')), os.listdir('carddraw'), open('carddraw/app.mpy').read(),\n"
        "          sorted(os.listdir('carddraw.tmp'))]\n" % deploy.stage(["carddraw", "carddraw/sub"]))
    assert r == [["carddraw", "carddraw.tmp", "log.jsonl"], ["app.mpy"], "carddraw.new/app.mpy",
                 ["sub"]]


def test_the_probe_runs_on_micropython_and_leaves_sys_path_as_it_was():
    r = run_in_vm(
        "import os, sys\n"
        "import carddraw.deck\n"          # from /lib: imported, but not frozen
        "before = list(sys.path)\n"
        "said = []\n"
        "def note(*words):\n"
        "    said.append(' '.join(str(w) for w in words))\n"
        "exec(%r, {'print': note})\n"
        "os.mkdir('carddraw')\n"
        "exec(%r, {'print': note})\n"
        "RESULT = [said, sys.path == before]\n" % (deploy.PROBE, deploy.PROBE))
    said, kept = r
    assert kept and said[1::2] == ["carddraw-layout 0 0", "carddraw-layout 0 1"]
    # the board's line first: the VM is MicroPython 1.27 and imports .mpy v6.3
    board = deploy.boardcheck.parse(said[0])
    assert board["version"] == (1, 27, 0) and said[2] == said[0]
    assert deploy.boardcheck.decode(board["mpy"]) == (6, 3, None)


def test_romfs_plan_puts_the_package_in_rom_and_removes_the_shadowing_folder(tmp_path):
    done = subprocess.run([sys.executable, TOOL, "--port", "/dev/ttyACM9", "--romfs", "--dry-run",
                           "--build", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "romfs deploy" in done.stdout and "main.py :main.py" in done.stdout
    package = os.path.join(str(tmp_path), "romfs", "carddraw")
    assert "romfs deploy %s " % os.path.dirname(package) in done.stdout
    assert sorted(os.listdir(package)) == sorted(
        f[:-3] + ".mpy" for f in os.listdir(os.path.join(ROOT, "firmware", "carddraw")) if f.endswith(".py"))
    bad = subprocess.run([sys.executable, TOOL, "--port", "/dev/x", "--romfs", "--source"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--romfs" in bad.stderr


def test_remove_step_removes_every_code_folder_and_keeps_data():
    r = run_in_vm(
        "import os\nos.mkdir('board2')\nos.chdir('board2')\n"
        "for d in ('carddraw', 'carddraw.tmp', 'carddraw.tmp/sub', 'carddraw.old'):\n"
        "    os.mkdir(d)\n"
        "for name in ('carddraw/app.mpy', 'carddraw.tmp/sub/x.mpy', 'settings.json', 'log.jsonl'):\n"
        "    open(name, 'w').write('x')\n"
        "exec(%r)\nexec(%r)\n"
        "RESULT = sorted(os.listdir('.'))\n" % (deploy.REMOVE, deploy.REMOVE))
    assert r == ["log.jsonl", "settings.json"]


# -- the plan on a fake board, with a power cut at every step --------------------------------
class PowerCut(Exception):
    pass


class FakeBoard:
    """A Pico's filesystem in a folder, with mpremote's steps played on it: `exec` runs the
    board-side code under CPython (it uses only os calls MicroPython has), `fs cp` copies,
    `reset` does nothing. The power goes before operation number `cut` (a folder made, a
    rename, a removal, a file copied); as on littlefs, a file copied when the power went
    keeps its old contents (a new one is left empty)."""

    def __init__(self, root, cut=None):
        self.root, self.cut, self.ops = root, cut, 0
        fake = SimpleNamespace(stat=lambda p: os.stat(self.at(p)),
                               listdir=lambda p: os.listdir(self.at(p)))
        for name in ("mkdir", "rename", "remove", "rmdir"):
            setattr(fake, name, self.counted(getattr(os, name)))
        self.os = fake

    def at(self, path):
        return os.path.join(self.root, path)

    def op(self):
        self.ops += 1
        if self.ops == self.cut:
            raise PowerCut

    def counted(self, call):
        def done(*paths):
            self.op()
            call(*(self.at(p) for p in paths))
        return done

    def copy(self, src, dest):
        target = self.at(dest)
        try:
            self.op()
        except PowerCut:
            if not os.path.exists(target):
                open(target, "wb").close()
            raise
        with open(src, "rb") as f, open(target, "wb") as g:
            g.write(f.read())

    def run(self, cmd):
        steps, step = [], []
        for word in cmd[cmd.index("connect") + 2:] + ["+"]:
            if word == "+":
                steps.append(step)
                step = []
            else:
                step.append(word)
        real_import = builtins.__import__
        scope = dict(vars(builtins), __import__=lambda name, *a, **k: (
            self.os if name == "os" else real_import(name, *a, **k)))
        for step in steps:
            if step[0] == "exec":
                exec(step[1], {"__builtins__": scope})
            elif step[:2] == ["fs", "cp"]:
                *sources, dest = step[2:]
                for src in sources:
                    self.copy(src, dest[1:] + os.path.basename(src) if dest.endswith("/")
                              else dest[1:])
            else:
                assert step == ["reset"], step


def tree(folder):
    """{relative path: bytes} of every file under folder."""
    out = {}
    for base, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(base, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = f.read()
    return out


DATA = {"settings.json": b"{}", "log.000001.jsonl": b"{\"ev\":\"start\"}\n", "action.json": b"{}"}


def old_board(root):
    """A board deployed before: older code, a module the new firmware no longer has, data."""
    os.makedirs(os.path.join(root, "carddraw"))
    for name, data in dict(DATA, **{"main.py": b"old main", "carddraw/app.py": b"old app",
                                    "carddraw/gone.py": b"old module"}).items():
        with open(os.path.join(root, name), "wb") as f:
            f.write(data)
    return tree(os.path.join(root, "carddraw"))


def test_a_power_cut_at_any_step_leaves_the_old_code_or_the_new_never_a_mix(tmp_path):
    folder = str(tmp_path / "src")
    names = deploy.source_folder(folder)
    new = tree(os.path.join(folder, "carddraw"))
    new_main = open(os.path.join(folder, "main.py"), "rb").read()
    cmd = deploy.plan("/dev/ttyACM9", folder, names)
    whole = FakeBoard(str(tmp_path / "count"))
    old_board(whole.root)
    whole.run(cmd)
    seen = []
    for cut in range(1, whole.ops + 1):
        board = FakeBoard(str(tmp_path / ("cut%d" % cut)), cut)
        old = old_board(board.root)
        try:
            board.run(cmd)
        except PowerCut:
            pass
        else:
            raise AssertionError("no cut at operation %d" % cut)
        files = tree(board.root)
        assert {k: files[k] for k in DATA} == DATA, cut                 # data never touched
        assert files["main.py"] in (b"old main", new_main), cut         # one or the other, whole
        code = os.path.join(board.root, "carddraw")
        if os.path.isdir(code):
            seen.append("old" if tree(code) == old else "new" if tree(code) == new else None)
        else:   # between the two renames: the complete new code waits in carddraw.new/
            assert tree(os.path.join(board.root, "carddraw.new")) == new, cut
            seen.append("between")
        assert seen[-1], (cut, sorted(tree(code)))                      # never a mix
        FakeBoard(board.root).run(cmd)                                  # deploying again mends
        assert tree(board.root) == dict(DATA, **{"main.py": new_main}, **{
            os.path.join("carddraw", k): v for k, v in new.items()}), cut
    assert seen[0] == "old" and seen[-1] == "new" and seen.count("between") == 1
    assert len(seen) == whole.ops > len(new) and tree(whole.root) == tree(str(tmp_path / "cut1"))


def test_a_board_with_carddraw_frozen_in_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    args = ["--port", "/dev/ttyACM9", "--source", "--build", str(tmp_path)]
    for layout, hint in (("carddraw-layout 1 0", False), ("carddraw-layout 1 1", True)):
        fake = FakeMpremote(layout)
        monkeypatch.setattr(deploy.subprocess, "run", fake)
        assert deploy.main(args) == 2 and fake.ran == []                # nothing copied
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("/dev/ttyACM9 runs the carddraw UF2")
        assert "make uf2" in err and "BOOTSEL" in err
        assert ("tools/deploy.py --remove deletes it" in err) == hint
    fake = FakeMpremote("carddraw-layout 0 1")                          # stock MicroPython
    monkeypatch.setattr(deploy.subprocess, "run", fake)
    assert deploy.main(args) == 0 and len(fake.ran) == 1 and fake.ran[0][-1] == "reset"
    fake = FakeMpremote("", probe_rc=1)                                 # no MicroPython there
    monkeypatch.setattr(deploy.subprocess, "run", fake)
    assert deploy.main(args) == 2 and fake.ran == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("deploy failed (mpremote exit 1)")


def test_remove_takes_only_the_code_folders_and_builds_nothing(tmp_path, monkeypatch, capsys):
    bad = subprocess.run([sys.executable, TOOL, "--port", "/dev/x", "--remove", "--romfs"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--remove" in bad.stderr
    fake = FakeMpremote()
    monkeypatch.setattr(deploy.subprocess, "run", fake)
    assert deploy.main(["--port", "/dev/ttyACM9", "--remove", "--build", str(tmp_path)]) == 0
    (cmd,) = fake.ran                                                   # no probe: any board
    assert cmd[cmd.index("exec") + 1] == deploy.REMOVE and cmd[-1] == "reset"
    assert os.listdir(str(tmp_path)) == []
    assert "without carddraw files" in capsys.readouterr().out


def test_a_build_folder_holding_a_users_file_is_refused_and_the_file_stays(tmp_path):
    mine = tmp_path / "mpy" / "notes.txt"
    mine.parent.mkdir()
    mine.write_text("mine")
    (tmp_path / "keep.txt").write_text("also mine")   # beside the build: never looked at
    done = subprocess.run([sys.executable, TOOL, "--port", "/dev/ttyACM9", "--dry-run",
                           "--build", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("deploy: %s holds files that tools/build_mpy.py did not write"
                                  % mine.parent)
    assert mine.read_text() == "mine" and sorted(os.listdir(str(mine.parent))) == ["notes.txt"]
    assert (tmp_path / "keep.txt").read_text() == "also mine"
    again = subprocess.run([sys.executable, TOOL, "--port", "/dev/ttyACM9", "--dry-run",
                            "--source", "--build", str(tmp_path)], capture_output=True, text=True)
    assert again.returncode == 0 and (tmp_path / "keep.txt").read_text() == "also mine"
