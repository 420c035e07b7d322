"""Shared test helpers: the firmware on sys.path, and a runner for the MicroPython VM."""
import json
import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
TOOLS_VMLIB = os.path.join(ROOT, "tools", "vmlib")
sys.path.insert(0, FIRMWARE)
sys.path.insert(1, TOOLS_VMLIB)   # helpers shared with the VM scripts and the tools (pick.Pick)
sys.path.append(os.path.join(ROOT, "host_tests", "vmlib"))  # the VM scripts' own (storelog)

RUN_MJS = os.path.join(ROOT, "tools", "mpvm", "run.mjs")


class SeqRng:
    """A stand-in for `random`: randrange returns the given indexes in turn."""

    def __init__(self, *indexes):
        self.indexes = list(indexes)

    def randrange(self, n):
        i = self.indexes.pop(0)
        assert 0 <= i < n, "index %d outside a deck of %d" % (i, n)
        return i


def run_in_vm(script, libs=(), firmware=None, timeout=120):
    """Run `script` (Python source) inside the MicroPython VM; return its global RESULT."""
    cmd = ["node", RUN_MJS]
    if firmware:
        cmd += ["--firmware", firmware]
    for lib in libs:
        cmd += ["--lib", lib]
    with tempfile.TemporaryDirectory(prefix="carddraw-vm-") as tmp:  # nothing in the tree
        path = os.path.join(tmp, "vm_script.py")
        with open(path, "w") as f:
            f.write(script)
        cmd.append(path)
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if done.returncode != 0:
        raise AssertionError("MicroPython VM failed:\n" + done.stderr + done.stdout)
    last = done.stdout.rstrip("\n").rsplit("\n", 1)[-1]
    assert last.startswith("RESULT "), done.stdout
    return json.loads(last[len("RESULT "):])


@pytest.fixture
def vm():
    return run_in_vm
