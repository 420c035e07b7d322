"""What test_deploy.py and test_deploy_maint.py share: tools/deploy.py (make deploy) imported,
the probe's line from a stock Pico, a serial port as pyserial lists it, and mpremote's stand-in."""
import os
import sys
from types import SimpleNamespace

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import deploy  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "deploy.py")


# what the stock v1.28.0 RPI_PICO build answers to the probe: _mpy 4870 is v6.3 for armv6m
BOARD_LINE = "carddraw-board 1.28.0 4870 Raspberry Pi Pico with RP2040"
PICO = deploy.boardcheck.parse(BOARD_LINE)


def port(device, vid=None, pid=None):
    return SimpleNamespace(device=device, vid=vid, pid=pid)


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
