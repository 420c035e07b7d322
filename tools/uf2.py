"""One UF2 for the Pico with the firmware frozen in: MicroPython's rp2 port built for RPI_PICO
with FROZEN_MANIFEST=firmware/manifest.py, checked, and copied to build/carddraw-pico.uf2.

    python tools/uf2.py --micropython DIR [--out FILE.uf2]   what `make uf2 MICROPY=DIR` runs
    python tools/uf2.py --check FILE.uf2                     only check an image

DIR is a MicroPython source checkout (v1.28) set up for the rp2 port: mpy-cross built, the
port's submodules fetched, CMake, the Arm GCC (arm-none-eabi-gcc), a host C/C++ compiler and
picotool 2.1.1 or newer (without it pico-sdk tries to fetch and build it with git).

It builds in a folder of this checkout's own, build/rp2-RPI_PICO (--build to change it), never
in the tree's ports/rp2/build-RPI_PICO, which every checkout shares: the rp2 Makefile runs
cmake only when its build folder has no Makefile, and the cmake cache keeps the first
FROZEN_MANIFEST it saw, so a shared folder hands out the stock firmware or another checkout's.
A build folder whose CMakeCache.txt names another manifest, another MicroPython tree or
another board is refused (remove it and build again). After the build the image is read: it
must be a UF2 for the RP2040 whose table of frozen modules (mp_frozen_names) holds every file
firmware/ puts on a board, main.py and carddraw/... alike, and no carddraw module firmware/ no
longer has; otherwise it is refused and not copied. The copy never goes over a file that is
not the tools' (a UF2 with carddraw frozen in, or one their list in its folder names).

Exit status: 0 built (or checked) and the image holds this firmware, 1 the rp2 build failed
(its output says why), 2 refused: a bad argument, a stale build folder, an image without the
firmware, an output name that is not the tools' (one line says which).
"""
import os
import re
import shutil
import struct
import subprocess
import sys

from common import BUILD, FIRMWARE, MANIFEST, board_sources, cli, output

TOOL = "tools/uf2.py"
BOARD = "RPI_PICO"
OUT = os.path.join(BUILD, "carddraw-pico.uf2")
RP2_BUILD = os.path.join(BUILD, "rp2-" + BOARD)
RP2040 = 0xE48BFF56                       # the UF2 family id of the RP2040
MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)
FAMILY_PRESENT, NOT_MAIN_FLASH = 0x2000, 0x0001
# mp_frozen_names, as MicroPython's mpy-tool.py lays it out: "name.py\0" ... then one more "\0"
NAMES_TABLE = re.compile(rb"(?:[!-~]{1,200}?\.py\x00)+\x00")
NEEDS = ("cmake", "arm-none-eabi-gcc", "c++", "picotool")


class Refused(Exception):
    """One line: why the build or the image is not what it must be."""


def image(data):
    """A UF2 file's bytes -> (family id, the flash bytes it writes, lowest address first;
    gaps 0xFF). Raises Refused for what is not a UF2."""
    if not data or len(data) % 512:
        raise Refused("is no UF2 image (its size is not a whole number of 512-byte blocks)")
    family, parts = None, []
    for at in range(0, len(data), 512):
        start0, start1, flags, addr, size = struct.unpack_from("<5I", data, at)
        family_id = struct.unpack_from("<I", data, at + 28)[0]
        end = struct.unpack_from("<I", data, at + 508)[0]
        if (start0, start1, end) != MAGIC or size > 476:
            raise Refused("is no UF2 image (block %d has no UF2 magic)" % (at // 512))
        if flags & NOT_MAIN_FLASH:
            continue
        if flags & FAMILY_PRESENT:
            family = family_id
        parts.append((addr, data[at + 32:at + 32 + size]))
    if not parts:
        raise Refused("is a UF2 image that writes nothing to flash")
    low = min(a for a, _ in parts)
    flash = bytearray(b"\xff" * (max(a + len(p) for a, p in parts) - low))
    for addr, part in parts:
        flash[addr - low:addr - low + len(part)] = part
    return family, bytes(flash)


def frozen_names(flash):
    """The table of frozen modules in the flash bytes that names carddraw's, as a set of
    names, or None. (A stock image has no carddraw module at all.)"""
    best = None
    for m in NAMES_TABLE.finditer(flash):
        names = {n.decode() for n in m.group(0).split(b"\x00") if n}
        ours = any(n.startswith("carddraw/") for n in names)
        if ours and (best is None or len(names) > len(best)):
            best = names
    return best


def check_image(path):
    """Whether the UF2 at path holds this checkout's firmware frozen in. -> the number of
    its modules. Raises Refused (the message starts after the path)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Refused("cannot be read (%s)" % (e.strerror or e))
    family, flash = image(data)
    if family != RP2040:
        raise Refused("is a UF2 for family %s, not the RP2040's (0x%08x)"
                      % ("(none)" if family is None else "0x%08x" % family, RP2040))
    names = frozen_names(flash)
    if names is None:
        raise Refused("holds no carddraw module among its frozen ones: the stock firmware (or a "
                      "build that did not freeze firmware/manifest.py)")
    wanted = set(board_sources())
    problems = []
    missing = sorted(wanted - names)
    if missing:
        problems.append("without " + few(missing))
    extra = sorted(n for n in names - wanted if n.startswith("carddraw/"))
    if extra:
        problems.append("with " + few(extra) + ", which firmware/ no longer has")
    if problems:
        raise Refused("is not this checkout's firmware: frozen " + "; ".join(problems))
    return len(wanted)


def few(names):
    return ", ".join(names[:4]) + (" and %d more" % (len(names) - 4) if names[4:] else "")


def ours(path):
    """output's test for a file already at --out: a UF2 with carddraw frozen in."""
    try:
        with open(path, "rb") as f:
            return frozen_names(image(f.read())[1]) is not None
    except (OSError, Refused):
        return False


def cache(build):
    """The build folder's CMakeCache.txt as {name: value}, or None without one."""
    try:
        with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    found = {}
    for line in lines:
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(?::[A-Z]+)?=(.*)$", line)
        if m:
            found[m.group(1)] = m.group(2).strip().strip('"')
    return found


def stale(build, rp2, manifest):
    """Why the build folder would not build this checkout's firmware, or None."""
    if not os.path.isdir(build) or not os.listdir(build):
        return None
    entries = cache(build)
    if entries is None:
        return "holds files but no CMakeCache.txt: it is no rp2 build folder"
    said = entries.get("MICROPY_FROZEN_MANIFEST")
    if not said or os.path.abspath(said) != manifest:
        return ("was configured with FROZEN_MANIFEST=%s, not this checkout's %s"
                % (said or "(none: the stock modules)", manifest))
    home = entries.get("CMAKE_HOME_DIRECTORY")
    if home and os.path.realpath(home) != os.path.realpath(rp2):
        return "was configured from another MicroPython tree (%s)" % home
    if entries.get("MICROPY_BOARD", BOARD) != BOARD:
        return "was configured for the board %s, not %s" % (entries["MICROPY_BOARD"], BOARD)
    return None


def build(micropython, build_dir, jobs):
    """Run the rp2 port's Makefile into build_dir. -> its exit status."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS")}
    rp2 = os.path.join(micropython, "ports", "rp2")
    return subprocess.run(["make", "-C", rp2, "-j%d" % jobs, "BOARD=" + BOARD,
                           "BUILD=" + build_dir,
                           "FROZEN_MANIFEST=" + os.path.join(FIRMWARE, MANIFEST)],
                          env=env).returncode


def parser():
    p = cli.parser("uf2", __doc__)
    p.add_argument("--micropython", metavar="DIR",
                   help="a MicroPython source checkout set up for the rp2 port (make uf2's "
                        "MICROPY)")
    p.add_argument("--out", default=OUT, metavar="FILE.uf2",
                   help="where the checked image goes (default: build/carddraw-pico.uf2)")
    p.add_argument("--build", default=RP2_BUILD, metavar="DIR",
                   help="the rp2 build folder, outside the MicroPython tree (default: "
                        "build/rp2-RPI_PICO in this checkout)")
    p.add_argument("--jobs", type=cli.whole("jobs", 1, 256), default=os.cpu_count() or 1,
                   help="parallel compile jobs (default: this machine's cores)")
    p.add_argument("--check", metavar="FILE.uf2",
                   help="build nothing: check that FILE.uf2 holds this checkout's firmware")
    return p


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if args.check:
        try:
            count = check_image(args.check)
        except Refused as e:
            p.error("%s %s" % (args.check, e))
        print("%s: this checkout's firmware frozen in (%d modules)" % (args.check, count))
        return 0
    if not args.micropython:
        p.error("--micropython DIR is needed (make uf2 MICROPY=DIR): a MicroPython source "
                "checkout (v1.28) with ports/rp2/Makefile")
    micropython = os.path.abspath(args.micropython)
    rp2 = os.path.join(micropython, "ports", "rp2")
    if not os.path.isfile(os.path.join(rp2, "Makefile")):
        p.error("--micropython %s is no MicroPython checkout (no ports/rp2/Makefile there): make "
                "uf2 needs MICROPY=path/to/micropython, a checkout (v1.28) set up for ports/rp2"
                % args.micropython)
    build_dir = os.path.abspath(args.build)
    if os.path.realpath(build_dir).startswith(os.path.realpath(micropython) + os.sep):
        p.error("--build %s is inside the MicroPython tree, which every checkout shares: give a "
                "folder of this checkout's own" % args.build)
    if not args.out.lower().endswith(".uf2") or os.path.isdir(args.out):
        p.error("--out: %s is no .uf2 file name" % args.out)
    manifest = os.path.join(FIRMWARE, MANIFEST)
    try:
        output.check_file(args.out, TOOL, mine=ours)
        why = stale(build_dir, rp2, manifest)
        if why:
            raise Refused("the build folder %s %s: remove it (rm -r %s) and build again"
                          % (build_dir, why, build_dir))
        done = build(micropython, build_dir, args.jobs)
        if done != 0:
            missing = [tool for tool in NEEDS if shutil.which(tool) is None]
            sys.stderr.write("uf2: the rp2 port's build failed (exit %d; its output above says "
                             "why)%s\n" % (done, "; not found here: " + ", ".join(missing)
                                           if missing else ""))
            return 1
        why = stale(build_dir, rp2, manifest) or (None if cache(build_dir) is not None
                                                  else "has no CMakeCache.txt")
        if why:
            raise Refused("after the build, %s %s: not copied" % (build_dir, why))
        built = os.path.join(build_dir, "firmware.uf2")
        try:
            count = check_image(built)
        except Refused as e:
            raise Refused("%s %s: not copied" % (built, e))
        shutil.copyfile(built, output.claim_file(args.out, TOOL, mine=ours))
    except (Refused, output.NotOurs) as e:
        p.error(str(e))
    print("%s: MicroPython's %s build with this checkout's firmware frozen in (%d modules, "
          "main.py among them), %d bytes: copy it onto the Pico in BOOTSEL mode"
          % (args.out, BOARD, count, os.path.getsize(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
