"""What the PC tools share: where the project's parts are, and the one place that puts
firmware/ on sys.path, so `carddraw` imports under CPython as it does on the board.

Every tool module that imports carddraw imports this package first (any `from common...`
does). Its parts, each small:
    common.cli     the one-line refusal of a bad argument (exit 2), whole numbers, --code
    common.link    the link to a board (USB serial) or to the simulator: one protocol client
    common.chi2    the chi-square test (the bench's draws, the event's calibration)
"""
import os
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)
FIRMWARE = os.path.join(ROOT, "firmware")

if FIRMWARE not in sys.path:
    sys.path.insert(0, FIRMWARE)

