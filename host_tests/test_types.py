"""mypy on the firmware modules that touch hardware, against the MicroPython rp2 stubs.

The stubs live in .stubs/ (`make` installs them with pip --target); mypy-firmware.ini points
mypy at them instead of CPython's standard library. Every module that touches the
board or the USB console (board, button, ssd1306, app, protocol, selftest, main) must exist
and pass.
"""
import os
import subprocess
import sys

from conftest import ROOT

CONFIG = os.path.join(ROOT, "mypy-firmware.ini")
REQUIRED = ["firmware/carddraw/board.py", "firmware/carddraw/button.py",
            "firmware/carddraw/ssd1306.py", "firmware/carddraw/app.py",
            "firmware/carddraw/protocol.py", "firmware/carddraw/selftest.py", "firmware/main.py"]
WHEN_PRESENT = []


def mypy(*paths):
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", CONFIG, *paths],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    return done.returncode, done.stdout + done.stderr


def test_stubs_are_installed():
    for name in ("machine.pyi", "framebuf.pyi", "neopixel.pyi", "time.pyi"):
        assert os.path.exists(os.path.join(ROOT, ".stubs", name)), \
            ".stubs/%s is missing: run `make setup`" % name


def test_firmware_type_checks_against_the_micropython_stubs():
    files = [f for f in REQUIRED]
    files += [f for f in WHEN_PRESENT if os.path.exists(os.path.join(ROOT, f))]
    for f in REQUIRED:
        assert os.path.exists(os.path.join(ROOT, f)), f
    code, out = mypy(*files)
    assert code == 0, "mypy on %s:\n%s" % (" ".join(files), out)


def test_the_check_has_teeth(tmp_path):
    # A misconfigured run (stubs not found, everything Any) would pass anything: make sure
    # mistakes against the MicroPython API are caught, and MicroPython-only names resolve.
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import time\n"
        "from machine import Pin, PWM\n"
        "time.sleep_ms(5)\n"                 # fine on MicroPython, absent from CPython
        "PWM(Pin(15)).duty_u16('half')\n"    # wrong type
        "Pin(1).no_such_method()\n"
    )
    code, out = mypy(str(bad))
    assert code == 1, out
    assert "duty_u16" in out and "no_such_method" in out, out
    assert "sleep_ms" not in out, out
