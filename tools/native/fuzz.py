"""`make fuzz RUNTIME=native`: the controller fuzz (tools/native/fuzz_driver.py) under native
MicroPython 1.29 on the .mpy files `make deploy` copies, with a fixed seed.

    python tools/native/fuzz.py [EVENTS] [SEED]     default 1,000,000 events, seed 1

Prints the figures; exit 1 if an invariant failed, 2 without native MicroPython."""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[0] = os.path.dirname(HERE)   # tools/, so `native` is this package
from native import runner  # noqa: E402

USAGE = "usage: python tools/native/fuzz.py [EVENTS 1-100000000] [SEED 0-1073741823]"


def main(argv):
    try:
        events = int(argv[0]) if argv else 1000000
        seed = int(argv[1]) if len(argv) > 1 else 1
        if not (1 <= events <= 100000000 and 0 <= seed < 2 ** 30) or len(argv) > 2:
            raise ValueError
    except ValueError:
        print(USAGE)
        return 2
    why = runner.missing()
    if why:
        print(why)
        return 2
    t = time.monotonic()
    r = runner.run("import fuzz_driver\nRESULT = fuzz_driver.run(%d, %d)\n" % (events, seed),
                   [runner.compiled(), HERE], timeout=24 * 3600)
    took = time.monotonic() - t
    print("native MicroPython 1.29 (.mpy, -X heapsize=%s), seed %d: %d events in %d examples, "
          "%d draws, %d power cuts, %.0f s (%.0f events/s)" % (
              runner.HEAP, seed, r["events"], r["examples"], r["draws"], r["power_cuts"], took,
              r["events"] / took))
    print("screens reached: %s" % ", ".join(r["screens"]))
    print("%s: %d failure(s)%s" % ("PASS" if not r["failures"] else "FAIL", r["failures"],
                                   "; first: " + r["first_failure"] if r["first_failure"] else ""))
    return 1 if r["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
