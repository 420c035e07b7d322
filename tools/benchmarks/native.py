"""Native MicroPython 1.29 with a Pico-sized heap (-X heapsize=240k, a little under the board's 245,888 B), on the .mpy files that
`make deploy` copies: free heap after boot and after a soak (100,000 button events, 10,000 of
them draws), the largest free block (fragmentation), and a gc.collect() against a loop pass.

The unix port is 64-bit: its objects are bigger than the RP2040's (a GC block is 32 bytes
here, 16 on the board), so these heaps are an upper bound for the board's."""
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# this file's own folder (sys.path[0]) would shadow the tools/native package with this module
sys.path[0] = os.path.join(ROOT, "tools")
from native import runner  # noqa: E402

VMLIB = os.path.join(ROOT, "host_tests", "vmlib")

SCRIPT = """
import gc, micropython
gc.collect()
START = gc.mem_free()
import native_soak
R = native_soak.run(FLASH, 10000, 100000, 10000, measure=True)
print("--- mem_info at the soak's end, the app still running")
micropython.mem_info()
RESULT = {"start": START, "soak": R}
"""


def blocks(text):
    """'max free sz' of each mem_info print, in blocks."""
    return [int(n) for n in re.findall(r"max free sz: (\d+)", text)]


def main():
    why = runner.missing()
    if why:
        print(why)
        return 1
    lib = runner.compiled()
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    flash = tempfile.mkdtemp(prefix="carddraw_bench_", dir=base)
    try:
        r, out = runner.run("FLASH = %r\n" % (flash + "/f") + SCRIPT,
                            [lib, runner.compiled_py(runner.SIM_DIR), runner.compiled_py(VMLIB)],
                            timeout=900, output=True)
    finally:
        shutil.rmtree(flash, True)
    soak = r["soak"]
    big = blocks(out)
    print("native MicroPython 1.29, -X heapsize=%s (%d bytes), the deployed .mpy files" % (
        runner.HEAP, soak["heap_total"]))
    print("  free before importing anything         %7d bytes" % r["start"])
    print("  free after boot (stand-ins included)   %7d bytes" % soak["boot"])
    print("  largest free block after boot          %7d bytes" % soak["boot_largest"])
    print("  soak: %d button events, %d draws, %.0f s, %s, %d failed loop passes" % (
        soak["events"], soak["draws"], soak["ms"] / 1000.0,
        soak["error"] or "no MemoryError", soak["failed"]))
    print("  free after the soak                    %7d bytes (every 10,000 events: %d..%d)"
          % (soak["readings"][-1], min(soak["readings"]), max(soak["readings"])))
    print("  largest free block after the soak      %7d bytes (mem_info: %s blocks of 32 bytes)"
          % (soak["largest"], big[-1] if big else "?"))
    print("  loop pass with an event (redraw)  %6d us; idle loop pass %6d us" % (
        soak["pass_us"], soak["idle_pass_us"]))
    print("  set-up press that changes the deck    %6d us (odds.py imported for its chance and "
          "dropped); starting an action %6d us (draws.py, the Action, odds loaded)" % (
              soak["setup_press_us"], soak["start_us"]))
    print("  gc.collect() after boot           %6d us = %.1f event passes = %.1f idle passes"
          % (soak["collect_us"], soak["collect_us"] / max(1, soak["pass_us"]),
             soak["collect_us"] / max(1, soak["idle_pass_us"])))
    print("  gc.collect() after the soak       %6d us" % soak["collect_us_after"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
