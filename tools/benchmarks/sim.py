"""Simulator figures for `make bench`: the display traffic a draw costs, the heap after boot,
and how fast simulated time runs. All measured in the MicroPython VM on the stand-ins
(tools/sim), with the firmware as source and as the .mpy files `make deploy` copies.

- I2C per draw: SIM counts the bytes the SSD1306 driver sends; a draw is a DRAW press on the
  active screen (the card screen comes up). Budget: one full frame, 1,024 data bytes, at
  most, and half a frame (512) on average, plus the command bytes that address the changed
  column windows (6 a page). The return to the deck counts the other screens a DRAW leads
  to as well (success, set-up: text screens, drawn whole).
- Heap after boot: gc.mem_alloc() after Board(), Store(), App() and the loop's first pass (the
  first frame drawn), as app.main() boots, less the same steps with nothing booted. Each
  reading is a separate top-level VM call (tools/mpvm/run.mjs, `#--- step`): the VM's
  collector only frees what a finished call no longer reaches. The stand-ins (machine,
  neopixel) are imported before the first reading: on the board they are built in.
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

HEAP = """
import gc, os, random
import machine, neopixel, framebuf, json, select
try:
    os.mkdir("/flash")
except OSError:
    pass
os.chdir("/flash")
gc.collect()
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
app = App(board, Store(), random, 0)
app.loop_pass(0)
"""

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


def vm(script, firmware=None):
    path = os.path.join(ROOT, "build", "bench_sim.py")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(script)
    cmd = ["node", os.path.join(ROOT, "tools", "mpvm", "run.mjs"), "--lib", os.path.join(ROOT, "tools", "sim")]
    if firmware:
        cmd += ["--firmware", firmware]
    done = subprocess.run(cmd + [path], capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        sys.exit("bench sim: the VM failed:\n" + done.stderr)
    return json.loads(done.stdout.rstrip().rsplit("\n", 1)[-1][len("RESULT "):])


def heap(boot, firmware=None):
    return vm(HEAP.replace("BOOT", boot), firmware) - vm(HEAP.replace("BOOT", "pass"), firmware)


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
    build_mpy.build(mpy_dir)
    for label, firmware in (("source", None), (".mpy", mpy_dir)):
        h = heap(FIRMWARE_BOOT, firmware)
        print("  heap after boot, firmware as %-6s %6d bytes   (budget 32768: %s)" % (
            label + ":", h, "OK" if h < 32768 else "OVER"))
    print("  heap after boot with the simulator's driver (simhost, source): %d bytes"
          % heap(SIM_BOOT))
    print("  speed: a loop pass (20 ms of device time) costs %.2f ms in the VM: an idle minute "
          "in %.2f s; the whole traffic run %.1f s" % (r["step_ms"], r["idle_ms"] / 1000, took))


if __name__ == "__main__":
    main()
