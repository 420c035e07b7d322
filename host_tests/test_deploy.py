"""tools/deploy.py (make deploy): finding the Pico, the mpremote plan, and no board at all."""
import os
import subprocess
import sys
from types import SimpleNamespace

from conftest import ROOT, run_in_vm

sys.path.insert(0, os.path.join(ROOT, "tools"))
import deploy  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "deploy.py")


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


def test_dry_run_plan_copies_every_module_compiled_and_resets():
    done = subprocess.run([sys.executable, TOOL, "--port", "/dev/ttyACM9", "--dry-run"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    modules = sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "firmware", "carddraw"))
                     if f.endswith(".py"))
    for name in modules:
        assert "carddraw/%s.mpy" % name in out
    assert ".py :carddraw/" not in out and "main.py :main.py" in out
    assert "connect /dev/ttyACM9" in out and out.rstrip().endswith("+ reset")


def test_prepare_step_clears_old_code_but_keeps_settings_log_and_action():
    r = run_in_vm(
        "import os\n"
        "os.chdir('/tmp') if 'tmp' in os.listdir('/') else None\n"
        "os.mkdir('board')\nos.chdir('board')\nos.mkdir('carddraw')\n"
        "for name in ('carddraw/app.py', 'carddraw/deck.mpy', 'settings.json', 'log.jsonl', 'action.json'):\n"
        "    open(name, 'w').write('x')\n"
        "exec(%r)\n"
        "exec(%r)\n"  # twice: an existing carddraw/ folder is fine
        "RESULT = [sorted(os.listdir('.')), os.listdir('carddraw')]\n" % (deploy.PREPARE, deploy.PREPARE))
    assert r == [["action.json", "carddraw", "log.jsonl", "settings.json"], []]


def test_romfs_plan_puts_the_package_in_rom_and_removes_the_shadowing_folder():
    done = subprocess.run([sys.executable, TOOL, "--port", "/dev/ttyACM9", "--romfs", "--dry-run"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "romfs deploy" in done.stdout and "main.py :main.py" in done.stdout
    package = os.path.join(ROOT, "build", "romfs", "carddraw")
    assert sorted(os.listdir(package)) == sorted(
        f[:-3] + ".mpy" for f in os.listdir(os.path.join(ROOT, "firmware", "carddraw")) if f.endswith(".py"))
    bad = subprocess.run([sys.executable, TOOL, "--port", "/dev/x", "--romfs", "--source"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--romfs" in bad.stderr


def test_unshadow_step_removes_the_code_folder_and_keeps_data():
    r = run_in_vm(
        "import os\nos.mkdir('board2')\nos.chdir('board2')\nos.mkdir('carddraw')\n"
        "for name in ('carddraw/app.mpy', 'settings.json', 'log.jsonl'):\n"
        "    open(name, 'w').write('x')\n"
        "exec(%r)\nexec(%r)\n"
        "RESULT = sorted(os.listdir('.'))\n" % (deploy.UNSHADOW, deploy.UNSHADOW))
    assert r == ["log.jsonl", "settings.json"]
