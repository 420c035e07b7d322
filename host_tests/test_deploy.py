"""tools/deploy.py (make deploy): finding the Pico, the mpremote plan, and no board at all."""
import builtins
import json
import os
import subprocess
import sys
from types import SimpleNamespace

from conftest import ROOT, run_in_vm

sys.path.insert(0, os.path.join(ROOT, "tools"))
import deploy  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "deploy.py")


# what the stock v1.28.0 RPI_PICO build answers to the probe: _mpy 4870 is v6.3 for armv6m
BOARD_LINE = "carddraw-board 1.28.0 4870 Raspberry Pi Pico with RP2040"
PICO = deploy.boardcheck.parse(BOARD_LINE)


def port(device, vid=None, pid=None):
    return SimpleNamespace(device=device, vid=vid, pid=pid)


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


# -- --code: maintenance mode before mpremote ---------------------------------------------------
sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench  # noqa: E402


class KeptSim(bench.SimLink):
    """The simulator, left running when deploy closes its link, to look at it after."""

    def close(self):
        pass

    def really_close(self):
        bench.SimLink.close(self)


def test_code_opens_maintenance_on_the_simulated_device(tmp_path):
    link = KeptSim(flash=str(tmp_path))
    try:
        assert deploy.open_maintenance("sim", "RHRH", link=link) is None
        shown = link.request("show")
        assert shown["screen"] == "message" and shown["lines"][1:3] == ["USB open until",
                                                                        "next restart"]
        assert link.request("test led green")["ok"] == "led"     # bench mode is on
        link.request("test end")
        link.request("!advance 300")       # the reset comes (the simulated board carries on)
        flash = sorted(os.listdir(str(tmp_path)))
        assert "maint.flag" in flash       # what the next power-on's main.py finds
        lines = []
        assert link.request("log", lines.append)["ok"] == "log"
        log = [json.loads(x) for x in lines]
        assert [r.get("mode") for r in log if r["ev"] == "bench"] == ["on", "maint"]
    finally:
        link.really_close()


def test_a_wrong_code_is_refused_and_nothing_is_opened():
    link = KeptSim()
    try:
        why = deploy.open_maintenance("sim", "SSSS", link=link)
        assert why == "the device refused the code: unlock: Wrong code: 2 tries before a wait"
        assert link.request("maint") == {"error": "maint needs bench mode: unlock CODE first"}
        assert link.request("show")["screen"] == "setup"
    finally:
        link.really_close()


def test_no_app_on_the_port_is_a_clear_message():
    class Silent(bench.Link):
        def send(self, line):
            pass

        def _line(self, timeout):
            return None
    Silent.slack = 0.05
    why = deploy.open_maintenance("/dev/ttyACM9", "RHRH", link=Silent())
    assert why.startswith("no reply within")
    assert "is the carddraw app running on /dev/ttyACM9" in why
    assert deploy.open_maintenance("/dev/no-such-pico", "RHRH").startswith(
        "cannot open /dev/no-such-pico")


def test_deploy_with_code_opens_maintenance_waits_for_the_restart_then_runs_mpremote(
        tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(deploy, "probe", lambda port: (0, (False, True), PICO))
    monkeypatch.setattr(deploy, "open_maintenance",
                        lambda port, code: calls.append(("maint", port, code)))
    monkeypatch.setattr(deploy, "wait_for_restart", lambda port, look=None: calls.append(
        ("wait", port, look is None)) or ("/dev/ttyACM9", None))
    monkeypatch.setattr(deploy.subprocess, "run",
                        lambda cmd: calls.append(("mpremote", cmd[3:5], cmd[-1])) or
                        SimpleNamespace(returncode=0))
    args = ["--port", "/dev/ttyACM9", "--source", "--build", str(tmp_path)]
    assert deploy.main(args + ["--code", "rhds"]) == 0
    assert calls == [("maint", "/dev/ttyACM9", "RHDS"), ("wait", "/dev/ttyACM9", True),
                     ("mpremote", ["connect", "/dev/ttyACM9"], "reset")]   # the app runs again
    assert os.path.isfile(os.path.join(str(tmp_path), "src", "carddraw", "app.py"))
    del calls[:]
    monkeypatch.setattr(deploy, "wait_for_restart", lambda port, look=None: (
        None, "the board did not restart within 5 s of `maint` on /dev/ttyACM9"))
    capsys.readouterr()
    assert deploy.main(args + ["--code", "RHDS"]) == 2
    assert calls == [("maint", "/dev/ttyACM9", "RHDS")]          # mpremote never ran
    assert capsys.readouterr().err == ("the board did not restart within 5 s of `maint` on "
                                       "/dev/ttyACM9\n")
    del calls[:]
    monkeypatch.setattr(deploy, "open_maintenance", lambda port, code: "the device refused "
                        "the code: unlock: Locked: wait 30 s")
    assert deploy.main(args + ["--code", "RHDS"]) == 2
    assert calls == []                                  # mpremote never ran
    assert "Locked: wait 30 s" in capsys.readouterr().err
    assert deploy.main(args) == 0 and calls == [("mpremote", ["connect", "/dev/ttyACM9"], "reset")]


def test_a_port_found_by_usb_id_is_found_again_after_the_restart(monkeypatch):
    """Without --port the board is looked for by its USB id after the restart too: the
    system may give it another name."""
    seen = []
    monkeypatch.setattr(deploy, "open_maintenance", lambda port, code: None)
    monkeypatch.setattr(deploy, "pick_port", lambda port=None, ports=None: "/dev/ttyACM1")
    monkeypatch.setattr(deploy, "wait_for_restart", lambda port, look=None: seen.append(
        look()) or (look(), None))
    assert deploy.maintenance_boot("/dev/ttyACM0", "RHRH", found=True) == ("/dev/ttyACM1", None)
    assert seen == ["/dev/ttyACM1"]
    monkeypatch.setattr(deploy, "open_maintenance", lambda port, code: "the device refused "
                        "the code: unlock: Wrong code")
    assert deploy.maintenance_boot("/dev/ttyACM0", "SSSS") == (
        None, "the device refused the code: unlock: Wrong code")


class FakeTime:
    """A clock that moves only when slept on; the port is there or not at given times."""

    def __init__(self, present):
        self.t = 0.0
        self.present = present    # t -> whether the port is there

    def clock(self):
        return self.t

    def sleep(self, s):
        self.t += s

    def look(self):
        return "/dev/ttyACM0" if self.present(self.t) else None


def test_wait_for_restart_waits_for_the_port_to_go_and_come_back():
    ft = FakeTime(lambda t: t < 0.3 or t >= 1.5)          # gone at 0.3 s, back at 1.5 s
    port, why = deploy.wait_for_restart("/dev/ttyACM0", ft.look, ft.clock, ft.sleep)
    assert (port, why) == ("/dev/ttyACM0", None)
    assert 1.5 + deploy.SETTLE_S <= ft.t < 1.5 + deploy.SETTLE_S + 2 * deploy.POLL_S


def test_a_board_that_never_restarts_or_never_comes_back_is_one_clear_line():
    ft = FakeTime(lambda t: True)                         # the port never goes
    port, why = deploy.wait_for_restart("/dev/ttyACM0", ft.look, ft.clock, ft.sleep)
    assert port is None and why == "the board did not restart within 5 s of `maint` on /dev/ttyACM0"
    assert deploy.GONE_S <= ft.t < deploy.GONE_S + 2 * deploy.POLL_S
    ft = FakeTime(lambda t: t < 0.2)                      # gone, and never back
    port, why = deploy.wait_for_restart("/dev/ttyACM0", ft.look, ft.clock, ft.sleep)
    assert port is None and why == ("the board's port did not come back within 20 s of its "
                                    "restart (mpremote connect list shows the ports)")
    assert "\n" not in why


def test_port_present_reads_the_port_list_or_the_path(tmp_path):
    link = tmp_path / "usb-MicroPython_Board-if00"
    link.write_text("")
    listed = [port("/dev/ttyACM0", 0x2E8A, 0x0005)]
    assert deploy.port_present("/dev/ttyACM0", listed)
    assert not deploy.port_present("/dev/ttyACM7", listed)
    assert deploy.port_present(str(link), [])             # a /dev/serial/by-id link given as --port


def test_a_failed_copy_after_maint_says_the_board_waits_in_maintenance(tmp_path, monkeypatch,
                                                                       capsys):
    monkeypatch.setattr(deploy, "maintenance_boot", lambda port, code, found: (port, None))
    monkeypatch.setattr(deploy, "probe", lambda port: (0, (False, True), PICO))
    monkeypatch.setattr(deploy.subprocess, "run", lambda cmd: SimpleNamespace(returncode=1))
    assert deploy.main(["--port", "/dev/ttyACM9", "--source", "--build", str(tmp_path),
                        "--code", "RHRH"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "stays in maintenance until reset" in err


def test_bad_code_and_the_help_say_what_is_allowed():
    bad = subprocess.run([sys.executable, TOOL, "--port", "/dev/x", "--code", "RHQ"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "the referee code is 4 to 8 letters of R, H, D, S" in bad.stderr
    out = subprocess.run([sys.executable, TOOL, "--help"], capture_output=True, text=True).stdout
    assert "--code CODE" in out and "--build DIR" in out and "BOOTSEL" in out


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


class FakeMpremote:
    """subprocess.run for deploy.main: the probe answers `layout`, other commands are kept."""

    def __init__(self, layout="carddraw-layout 0 1", probe_rc=0, board=None):
        board = BOARD_LINE if board is None else board
        self.layout = board + "\n" + layout if board and layout else layout
        self.probe_rc, self.ran = probe_rc, []

    def __call__(self, cmd, capture_output=False, text=False):
        if capture_output:
            assert cmd[cmd.index("exec") + 1] == deploy.PROBE
            return SimpleNamespace(returncode=self.probe_rc, stdout=self.layout + "\n")
        self.ran.append(cmd)
        return SimpleNamespace(returncode=0)


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


def test_a_frozen_board_after_maintenance_is_told_it_stays_in_maintenance(tmp_path, monkeypatch,
                                                                           capsys):
    monkeypatch.setattr(deploy, "maintenance_boot", lambda port, code, found: (port, None))
    monkeypatch.setattr(deploy.subprocess, "run", FakeMpremote("carddraw-layout 1 0"))
    assert deploy.main(["--port", "/dev/ttyACM9", "--source", "--build", str(tmp_path),
                        "--code", "RHRH"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "stays in maintenance until reset" in err


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
