"""What the PC tools share: where the project's parts are, and the one place that puts
firmware/ on sys.path, so `carddraw` imports under CPython as it does on the board.

Every tool module that imports carddraw imports this package first (any `from common...`
does). Its parts, each small:
    common.cli     the one-line refusal of a bad argument (exit 2), whole numbers, --code
    common.link    the link to a board (USB serial) or to the simulator: one protocol client
    common.chi2    the chi-square test (the bench's draws, the event's calibration)
    common.logchain  the device log's hash chain (the bench's export, the event's check)
    common.output  the folders a tool writes into: new, empty or the tools' own, and never
                   over a file that is not theirs
"""
import os
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)
FIRMWARE = os.path.join(ROOT, "firmware")
BUILD = os.path.join(ROOT, "build")   # gitignored; `make clean` removes it whole
MANIFEST = "manifest.py"   # firmware/'s one file that is not board code: what a UF2 freezes

if FIRMWARE not in sys.path:
    sys.path.insert(0, FIRMWARE)


def board_sources():
    """firmware/'s files as they go onto a board or into a UF2: paths relative to firmware/,
    '/'-separated, sorted; every .py but the manifest."""
    found = []
    for folder, dirs, files in os.walk(FIRMWARE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(folder, FIRMWARE)
        for name in files:
            path = name if rel == "." else os.path.join(rel, name).replace(os.sep, "/")
            if name.endswith(".py") and path != MANIFEST:
                found.append(path)
    return sorted(found)
