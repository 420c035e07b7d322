"""Simulator figures for `make bench`: the display traffic a draw costs, the heap after boot,
and how fast simulated time runs. All measured in the MicroPython VM on the stand-ins
(tools/sim), with the firmware as source and as the .mpy files `make deploy` copies.

- I2C per draw: SIM counts the bytes the SSD1306 driver sends; a draw is a DRAW press on the
  active screen (the card screen comes up). Budget: one full frame, 1,024 data bytes, at
  most, and half a frame (512) on average, plus the command bytes that address the changed
  column windows (6 a page). The return to the deck counts the other screens a DRAW leads
  to as well (success, set-up: text screens, drawn whole).
- Heap after boot: gc.mem_alloc() after Board(), Store(), App() and the loop's first
  pass (the first frame drawn), as app.main() boots on a fresh device (no files on flash),
  less the same steps with nothing booted. Measured twice: on the board's `machine`
  (tools/benchmarks/bare/machine.py: the calls the firmware makes, no name of its own, its
  objects made once, as the port's C objects are: the budget's figure), and on the
  simulator's stand-ins (tools/sim), which add about 140 names to the qstr pool and so
  push it into a chunk the board does not take (see below). Then the heap with an action
  on (a card on show), and back at set-up after it: what boot leaves out comes with the
  action and goes with it, but the names it brought stay in the qstr pool (MicroPython
  never frees an interned name), and the rng stays. Then where the boot figure goes (on the
  board's machine): each module boot loads, and each of main()'s steps, measured one by
  one (breakdown()); and what each module that boot does not load costs when it is
  imported later, and what stays once it is dropped. Each reading is a separate top-level
  VM call (tools/mpvm/run.mjs, `#--- step`): the VM's collector only frees what a finished
  call no longer reaches. The stand-ins are imported before the first reading: on the
  board they are built in. Not counted: asyncio, which main() imports for App.run (printed
  apart; frozen in flash on the board).
- ROMFS: heap after boot with the .mpy files in a ROMFS image against on the filesystem,
  under native MicroPython (the VM has no VfsRom).
Printed, not asserted: tests keep to behaviour.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import build_mpy  # noqa: E402

DRAWS = 50
SIM_LIB = os.path.join(ROOT, "tools", "sim")
BARE_LIB = os.path.join(HERE, "bare")
VMLIB = os.path.join(ROOT, "tools", "vmlib")  # handset.py: the device booted and driven
# what the heap scripts import before the first reading: the stand-ins, and the built-in
# modules the firmware uses (on the board these are in flash)
BEFORE = {SIM_LIB: "import machine, neopixel, framebuf, json, select",
          BARE_LIB: "import machine, framebuf, json, select"}

# the device's flash: a folder of the VM's filesystem, the current one as on the board
FLASH = """try:
    os.mkdir("/flash")
except OSError:
    pass
os.chdir("/flash")
"""

HEAP = """
import gc, os, random
IMPORTS
""" + FLASH + """gc.collect()
#--- step
before = gc.mem_alloc()
#--- step
BOOT
#--- step
gc.collect()
#--- step
RESULT = gc.mem_alloc() - before
"""

FIRMWARE_BOOT = """
from carddraw.board import Board
from carddraw.store import Store
from carddraw.app import App
board = Board()
app = App(board, Store(), None, 0)
app.loop_pass(0)
"""

# After boot (tools/vmlib/handset.py, imported before the first reading): start an action,
# draw a card (a reading), then on to its end and set-up again (a reading; Keys.to_setup).
ACTION_HEAP = HEAP.replace("IMPORTS", BEFORE[BARE_LIB] + "\nimport handset").replace(
    "BOOT", "keys = handset.boot()").replace("RESULT = gc.mem_alloc() - before", """
keys("DRAW", "DRAW")
#--- step
gc.collect()
#--- step
during = gc.mem_alloc() - before
#--- step
keys.to_setup()
#--- step
gc.collect()
#--- step
RESULT = [during, gc.mem_alloc() - before]""")

SIM_BOOT = """
import simhost
dev = simhost.Device(seed=1)
"""

TRAFFIC = """
import json, time
from machine import SIM
import simhost
dev = simhost.Device(seed=%d)
def screen():
    return json.loads(json.loads(dev.run_line("show"))["replies"][0])["screen"]
draw, back = [], []
while len(draw) < %d:
    s = screen()
    c0 = SIM.i2c_command_bytes
    SIM.end_frame()
    if s == "active":
        dev.run_line("press DRAW")
        draw.append((SIM.end_frame(), SIM.i2c_command_bytes - c0))
    elif s == "card":
        dev.run_line("press DRAW")
        back.append((SIM.end_frame(), SIM.i2c_command_bytes - c0))
    elif s == "success":
        dev.run_line("press HELP")   # chain a new action (R17)
        dev.run_line("press DRAW")
    else:                            # set-up, the outcome screens, a message
        dev.run_line("press DRAW")
t = time.ticks_ms()
t0 = dev.now
dev.advance(60000)                   # a minute of the set-up screen, idle
idle = time.ticks_diff(time.ticks_ms(), t)
RESULT = {"draw": draw, "back": back, "errors": SIM.i2c_errors, "idle_ms": idle,
          "step_ms": idle / ((dev.now - t0) / 20)}
"""


def vm(script, firmware=None, output=False, lib=SIM_LIB, more=()):
    """Run `script` in the VM (firmware from `firmware`, else the source; `machine` from
    `lib`; the folders `more` in /lib too) -> its RESULT, or (RESULT, what it printed)."""
    path = os.path.join(ROOT, "build", "bench_sim.py")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(script)
    cmd = ["node", os.path.join(ROOT, "tools", "mpvm", "run.mjs"), "--lib", lib]
    for folder in more:
        cmd += ["--lib", folder]
    if firmware:
        cmd += ["--firmware", firmware]
    done = subprocess.run(cmd + [path], capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        sys.exit("bench sim: the VM failed:\n" + done.stderr)
    printed, last = done.stdout.rstrip().rsplit("\n", 1)
    result = json.loads(last[len("RESULT "):])
    return (result, printed) if output else result


def heap(boot, firmware=None, lib=SIM_LIB, flash=None):
    """Heap `boot` leaves allocated; with `flash` (a folder made by used_flash()) the device's
    flash holds its files first."""
    script = HEAP.replace("IMPORTS", BEFORE[lib])
    more = ()
    if flash:
        script = script.replace('os.chdir("/flash")\n', 'os.chdir("/flash")\n' + FLASH_FILES)
        more = (flash,)
    return (vm(script.replace("BOOT", boot), firmware, lib=lib, more=more)
            - vm(script.replace("BOOT", "pass"), firmware, lib=lib, more=more))


# A device in use: its files written by the firmware's own store (under CPython) into a JSON
# of name -> text (the VM's file copy takes .json, not .jsonl), and put on the VM's flash
# before the first reading.
FLASH_FILES = """
import json
with open("/lib/used_flash.json") as f:
    files = json.load(f)
for name in files:
    with open(name, "w") as f:
        f.write(files[name])
files = None
"""


def used_flash(folder):
    """-> `folder`, holding used_flash.json: a device after an evening's play, as its own
    store leaves it: settings changed (ranks 3, a helper, +1 red, the referee code changed),
    no action in progress, and a log of 400 records in several segments."""
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    import tempfile
    from carddraw import config, lockcode
    from carddraw.store import Store
    with tempfile.TemporaryDirectory(prefix="carddraw_flash_") as tmp:
        store = Store(root=tmp + "/")
        settings = config.defaults()
        settings.update(ranks=3, helpers=1, red=1,
                        lock=lockcode.hashed("RRHH", "0123456789abcdef"))
        store.save_settings(settings)
        store.save_action(None)
        for n in range(400):
            store.log({"ev": "draw", "ms": n * 9000, "n": n % 9 + 1, "card": "green",
                       "deck": [5, 2, 1 + n % 3, 0], "timed": False})
        files = {}
        for name in os.listdir(tmp):
            with open(os.path.join(tmp, name)) as f:
                files[name] = f.read()
    with open(os.path.join(folder, "used_flash.json"), "w") as f:
        json.dump(files, f)
    return folder


# -- where the heap after boot goes ---------------------------------------------------------
# Each module that boot leaves in sys.modules is imported on its own, dependencies first, then
# app.main()'s steps run one by one; a reading (gc.mem_alloc() after gc.collect(), and the
# qstr pool's bytes from micropython.qstr_info()) follows each. A module's figure is its
# bytecode, constants, functions and classes, and the names it adds to the qstr pool (which
# grows in doubling chunks, so a module that starts a new chunk pays for the whole chunk).
# Then each module boot does not load is imported after boot, measured, and dropped again.
READING = """
#--- step
gc.collect()
#--- step
print("@reading", LABEL, gc.mem_alloc(), " ".join(k for k in sys.modules if k.startswith("carddraw.")))
micropython.qstr_info()
"""

BREAKDOWN_HEAD = """
import gc, os, sys, random, micropython
IMPORTS
""" + FLASH

BOOT_STEPS = (
    ("Board()", "from carddraw.board import Board\nboard = Board()"),
    ("Store()", "from carddraw.store import Store\nstore = Store()"),
    ("App()", "from carddraw.app import App\napp = App(board, store, None, 0)"),
    ("loop_pass(0)", "app.loop_pass(0)"),
)

DROP = """
for k in [k for k in sys.modules if k.startswith("carddraw.") and k not in KEEP]:
    del sys.modules[k]
    try:
        delattr(sys.modules["carddraw"], k[9:])
    except AttributeError:
        pass
"""

def imports_of(source):
    """carddraw modules a module's source imports at its top level (not inside functions)."""
    found = []
    for line in source.splitlines():
        words = line.replace(",", " ").split()
        if line.startswith("from carddraw.") and len(words) > 1:
            found.append(words[1][len("carddraw."):])
        elif line.startswith("from carddraw import"):
            found += [w for w in words[3:] if w not in ("as",) and not w.startswith("(")]
    return found


def dependency_order(names):
    """`names` with every module after the carddraw modules it imports at its top level."""
    deps = {}
    for name in names:
        with open(os.path.join(ROOT, "firmware", "carddraw", name + ".py")) as f:
            deps[name] = [d for d in imports_of(f.read()) if d in names]
    order = []

    def visit(name):
        if name not in order:
            for d in deps[name]:
                visit(d)
            order.append(name)
    for name in sorted(names):
        visit(name)
    return order


def readings(printed):
    """READING's printed lines -> [(label, gc.mem_alloc(), modules, qstr pool bytes, qstrs)]."""
    got = []
    for line in printed.splitlines():
        if line.startswith("@reading "):
            words = line.split()
            got.append([" ".join(words[1:-1]), 0, [], 0, 0])
            mods = [w for w in words if w.startswith("carddraw.")]
            # label words, the number, then the modules
            at = words.index(next(w for w in words[1:] if w.isdigit()))
            got[-1][:3] = [" ".join(words[1:at]), int(words[at]), sorted(mods)]
        elif "n_total_bytes=" in line:
            got[-1][3] = int(line.rsplit("n_total_bytes=", 1)[1])
            got[-1][4] = int(line.split("n_qstr=", 1)[1].split(",", 1)[0])
    return got


def breakdown(firmware, lib=BARE_LIB):
    """-> [(label, heap bytes, qstr pool bytes, modules it added)] for boot, then
    [(module, heap bytes while imported, heap bytes left once dropped)] for the rest."""
    head = BREAKDOWN_HEAD.replace("IMPORTS", BEFORE[lib])
    printed = vm(head + "\n".join(s for _, s in BOOT_STEPS) + READING.replace(
        "LABEL", "'boot'"), firmware, output=True, lib=lib)[1]
    booted = readings(printed)[0][2]
    every = sorted(n[:-3] for n in os.listdir(os.path.join(ROOT, "firmware", "carddraw"))
                   if n.endswith(".py"))
    boot = [m[len("carddraw."):] for m in booted]
    script = head + READING.replace("LABEL", "'start'")
    for name in dependency_order(boot):
        script += "#--- step\nimport carddraw.%s\n" % name + READING.replace("LABEL", repr(name))
    for label, code in BOOT_STEPS:
        script += "#--- step\n" + code + "\n" + READING.replace("LABEL", repr(label))
    script += "#--- step\nKEEP = set(sys.modules)\n"
    later = [n for n in every if n not in boot]
    for name in later:
        script += "#--- step\nimport carddraw.%s\n" % name + READING.replace("LABEL", repr(name))
        script += "#--- step\n" + DROP + READING.replace("LABEL", repr(name + " dropped"))
    got = readings(vm(script, firmware, output=True, lib=lib)[1])
    rows = []
    for i in range(1, len(got)):
        label, alloc, mods, qstr, names = got[i]
        added = [m[len("carddraw."):] for m in mods if m not in got[i - 1][2]]
        rows.append((label, alloc - got[i - 1][1], qstr - got[i - 1][3], names - got[i - 1][4],
                     added))
    return rows, len(boot) + len(BOOT_STEPS), got[len(boot) + len(BOOT_STEPS)][4]


# ROMFS (tools/deploy.py --romfs): on the board the .mpy files then run from flash, their
# bytecode and constants never copied into the heap. The VM has no VfsRom; native MicroPython
# 1.29 has, so both ways are measured there, the image (the "flash") read before the reading.
ROMFS_BOOT = """
import gc, os, sys, vfs
if IMAGE:
    with open(IMAGE, "rb") as f:
        rom = f.read()
    vfs.mount(vfs.VfsRom(rom), "/rom")
    sys.path.insert(0, "/rom")
import machine, neopixel, framebuf, json, select
os.mkdir(FLASH)
os.chdir(FLASH)
gc.collect()
before = gc.mem_alloc()

def boot():
    from carddraw.board import Board
    from carddraw.store import Store
    from carddraw.app import App
    app = App(Board(), Store(), None, 0)
    app.loop_pass(0)
    return app

app = boot()
gc.collect()
import carddraw.app
RESULT = [gc.mem_alloc() - before, carddraw.app.__file__]
"""


def romfs_heaps(mpy_dir):
    """-> (heap after boot from .mpy files, from ROMFS) under native MicroPython, or None."""
    import importlib.util  # by path: tools/benchmarks/native.py would shadow tools/native/
    spec = importlib.util.spec_from_file_location(
        "native_runner", os.path.join(ROOT, "tools", "native", "runner.py"))
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    if runner.missing():
        return None
    import contextlib
    import io
    import shutil
    import tempfile
    from mpremote.romfs import make_romfs
    with tempfile.TemporaryDirectory(prefix="carddraw_romfs_") as tmp:
        shutil.copytree(os.path.join(mpy_dir, "carddraw"), os.path.join(tmp, "src", "carddraw"))
        with contextlib.redirect_stdout(io.StringIO()):  # it lists every file
            image = make_romfs(os.path.join(tmp, "src"), mpy_cross=False)
        path = os.path.join(tmp, "romfs.img")
        with open(path, "wb") as f:
            f.write(image)
        got = []
        for n, img in enumerate(("None", repr(path))):
            script = ROMFS_BOOT.replace("IMAGE", img).replace(
                "FLASH", repr(os.path.join(tmp, "flash%d" % n)))
            heap_used, where = runner.run(script, [mpy_dir, runner.SIM_DIR])
            assert where.startswith("/rom/") == bool(n), where
            got.append(heap_used)
    return got


def print_breakdown(firmware, sizes):
    rows, n_boot, names = breakdown(firmware)
    print("  where the heap after boot goes (VM, .mpy, the board's machine; each module "
          "imported on its own, dependencies first, then main()'s steps):")
    print("    %-16s %6s %6s %6s %6s" % ("", ".mpy", "heap", "qstr B", "names"))
    total = 0
    for label, alloc, qstr, count, added in rows[:n_boot]:
        total += alloc
        size = sizes.get("carddraw/%s.mpy" % label, "")
        also = "  loads " + ", ".join(added) if added and label not in added else ""
        print("    %-16s %6s %6d %6d %6d%s" % (label, size, alloc, qstr, count, also))
    print("    %-16s %6s %6d" % ("total", "", total))
    print("    qstr pool: %d names after boot (the VM's own included; the names of modules "
          "imported for a call and dropped stay). The pool grows in chunks of 20, 40, ... "
          "320, then 640 names (about 7 B a name, taken whole): %d more names and it takes "
          "the 640 one (about 4.5 KB)" % (names, 620 - names))
    asyncio_heap = heap("import asyncio", firmware, BARE_LIB) - heap("pass", firmware, BARE_LIB)
    print("    not counted above: asyncio, which main() imports for App.run's sleep between "
          "passes: %d bytes in the VM (frozen there, as on the board)" % asyncio_heap)
    print("  loaded on demand (imported after boot, with what it pulls in; then dropped):")
    later = rows[n_boot:]
    for i in range(0, len(later), 2):
        label, alloc, qstr, count, added = later[i]
        left = alloc + later[i + 1][1]
        also = [a for a in added if a != label]
        print("    %-16s %6s %6d %6d  left after dropping: %5d%s" % (
            label, sizes.get("carddraw/%s.mpy" % label, ""), alloc, qstr, left,
            "  (with " + ", ".join(also) + ")" if also else ""))


def summary(pairs):
    data = [d for d, _ in pairs]
    cmds = [c for _, c in pairs]
    return "data avg %4d B, max %4d B; commands avg %2d B, max %2d B" % (
        round(sum(data) / len(data)), max(data), round(sum(cmds) / len(cmds)), max(cmds))


def main():
    print("== simulator: the firmware in the MicroPython VM on tools/sim ==")
    t = time.perf_counter()
    r = vm(TRAFFIC % (7, DRAWS))
    took = time.perf_counter() - t
    worst = max(d for d, _ in r["draw"])
    mean = sum(d for d, _ in r["draw"]) / len(r["draw"])
    print("  I2C per draw (%d draws, active -> card): %s   (budget: max 1024 data %s, "
          "average half a frame, 512, %s)" % (len(r["draw"]), summary(r["draw"]),
                                             "OK" if worst <= 1024 else "OVER",
                                             "OK" if mean <= 512 else "OVER"))
    print("  I2C per return to the deck (card -> active): %s" % summary(r["back"]))
    if r["errors"]:
        print("  I2C stream errors: %s" % r["errors"])

    mpy_dir = os.path.join(ROOT, "build", "mpy")
    sizes = build_mpy.build(mpy_dir)
    board = heap(FIRMWARE_BOOT, mpy_dir, BARE_LIB)
    print("  heap after boot, firmware as .mpy, on the board's machine: %6d bytes   (goal 32768: "
          "%s; at most 43008 by code structure: %s)" % (
              board, "OK" if board < 32768 else "OVER", "OK" if board <= 43008 else "OVER"))
    on_sim = heap(FIRMWARE_BOOT, mpy_dir)
    print("  ... on the simulator's stand-ins: %d bytes (%d more: their names take the qstr "
          "pool's 640-name chunk, and their pins are heap objects)" % (on_sim, on_sim - board))
    import tempfile
    with tempfile.TemporaryDirectory(prefix="carddraw_used_") as folder:
        used = heap(FIRMWARE_BOOT, mpy_dir, BARE_LIB, used_flash(folder))
    print("  ... on a device in use (settings changed, a log of 400 records, no action in "
          "progress): %d bytes" % used)
    print("  ... firmware as source, on the simulator's stand-ins: %d bytes (the compiler's "
          "leftovers)" % heap(FIRMWARE_BOOT))
    during, after = vm(ACTION_HEAP, mpy_dir, lib=BARE_LIB, more=(VMLIB,))
    print("  heap with an action on (a card on show, its code, the Action, odds, rng, the "
          "pictures): %d bytes; back at set-up after it: %d bytes (the rng stays)" % (
              during, after))
    print_breakdown(mpy_dir, sizes)
    rom = romfs_heaps(mpy_dir)
    if rom:
        print("  ROMFS (deploy --romfs), measured under native MicroPython 1.29 (64-bit: objects "
              "twice the board's size; the VM has no ROMFS): heap after boot from .mpy files "
              "%d bytes, from ROMFS %d bytes (%d less)" % (rom[0], rom[1], rom[0] - rom[1]))
    print("  heap after boot with the simulator's driver (simhost, source): %d bytes"
          % heap(SIM_BOOT))
    print("  speed: a loop pass (20 ms of device time) costs %.2f ms in the VM: an idle minute "
          "in %.2f s; the whole traffic run %.1f s" % (r["step_ms"], r["idle_ms"] / 1000, took))


if __name__ == "__main__":
    main()
