"""The board test files' runner (test_board*.py): a script run in the MicroPython VM on the
stand-ins in tools/sim, after a prelude that imports the board, its config and the SIM."""
import textwrap

from conftest import run_in_vm

PRELUDE = """
import gc
from machine import SIM, I2C, Pin
from carddraw import config
import carddraw.config as C
from carddraw import board as B
from carddraw.ssd1306 import SSD1306
"""


def vm(body, prelude=PRELUDE):
    return run_in_vm(prelude + textwrap.dedent(body), libs=["tools/sim"])
