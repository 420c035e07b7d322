"""make bench: the firmware's sizes, flash work, chip time, memory and speed, each budget of
the design printed with OK or OVER (figures are reported, never asserted).

    python tools/benchmarks/run.py              # every part, the soak short (about a minute)
    python tools/benchmarks/run.py --long       # the native soak of 100,000 events too
    python tools/benchmarks/run.py --only chip,display

Parts: sizes (the .mpy files make deploy copies), flash (programs and erases of each kind of
loop pass, counted on littlefs-python), chip (each event's time on the RP2040, estimated:
native MicroPython times a slowdown calibrated on this machine, x150 where fib(20)
takes 1.6 ms, plus the flash and I2C time), display (I2C per draw), heap (native
MicroPython with a Pico-sized heap; the engine's import heap in the VM), soak, odds, lock
(the referee lock against a brute-force search), presses (power-on to the first draw).

A figure that cannot be measured here (a tool missing, a timeout) is said in one line and the
rest still print. Exit status 0; 1 if any figure was not measured; 2 for a bad argument."""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
if TOOLS not in sys.path:
    sys.path.insert(1, TOOLS)   # common, native, build_mpy; this folder stays first

from common import cli  # noqa: E402  -- firmware/ on sys.path too
import lockbench  # noqa: E402
import memory  # noqa: E402
import oddsbench  # noqa: E402
import passes  # noqa: E402
import passfigures  # noqa: E402
import presses  # noqa: E402
from report import Report, why  # noqa: E402

PARTS = (
    ("sizes", "Sizes: the .mpy files make deploy copies", memory.sizes_part),
    ("flash", "Flash work per loop pass (littlefs-python, the board's geometry)",
     passfigures.flash_part),
    ("chip", "Chip time per event, estimated (ms)", passfigures.chip_part),
    ("display", "Display traffic per draw (the ssd1306 driver's I2C writes)",
     passfigures.display_part),
    ("heap", "Heap (native MicroPython, a Pico-sized heap; the MicroPython VM)",
     memory.heap_part),
    ("soak", "Soak (native MicroPython, the design's 200 KB heap)", memory.soak_part),
    ("odds", "Odds: the exact chance and risks (odds.py)", oddsbench.part),
    ("lock", "Referee lock against a brute-force search (simulated time)", lockbench.part),
    ("presses", "Presses from power-on to the first draw (the simulator)", presses.part),
)
NAMES = [name for name, _, _ in PARTS]


class Context:
    """What several parts share, made once when first asked for: the build, the sessions. A
    failure is kept and raised again to every part that asks."""

    def __init__(self, args):
        self.args = args
        self._made = {}

    def _get(self, name, make):
        if name not in self._made:
            try:
                self._made[name] = (make(), None)
            except Exception as e:  # noqa: BLE001 -- kept for each part that needs it
                self._made[name] = (None, e)
        value, error = self._made[name]
        if error is not None:
            raise error
        return value

    def lib(self):
        """The firmware as make deploy copies it, compiled once into a temporary folder."""
        from native import runner
        return self._get("lib", runner.compiled)

    def flash(self):
        return self._get("flash", passes.FlashSession)

    def native_heap(self):
        return self._get("native_heap", lambda: memory.native_heap(self.lib()))

    def vm_heap(self):
        return self._get("vm_heap", lambda: memory.vm_heap(self.lib()))

    def chip_heap(self):
        """(KB, ratio): the native heap the chip-time session runs in (memory.board_heap)."""
        return self._get("chip_heap", lambda: memory.board_heap(self.native_heap(),
                                                                self.vm_heap()[0]))

    def native(self):
        return self._get("native", lambda: passes.NativeSessions(
            self.lib(), heap="%dk" % self.chip_heap()[0]))

    def passes(self):
        return self._get("passes", lambda: passes.Passes(self.flash(), self.native()))


def parts_arg(text):
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in NAMES]
    if bad or not names:
        raise cli.argparse.ArgumentTypeError("no part %r: the parts are %s" % (
            ",".join(bad) or text, ", ".join(NAMES)))
    return names


def parser():
    p = cli.parser("tools/benchmarks/run.py", __doc__)
    p.add_argument("--long", action="store_true",
                   help="the long native soak (100,000 button events) instead of the short one")
    p.add_argument("--only", type=parts_arg, metavar="PARTS", default=NAMES,
                   help="these parts only, comma-separated: " + ", ".join(NAMES))
    return p


def main(argv=None, write=None):
    args = parser().parse_args(argv)
    out = Report(write)
    ctx = Context(args)
    start = time.monotonic()
    for name, title, part in PARTS:
        if name not in args.only:
            continue
        out.heading(title)
        t = time.monotonic()
        try:
            part(out, ctx)
        except Exception as e:  # noqa: BLE001 -- a timeout, a tool missing: one line, go on
            out.not_measured(name, why(e))
        out.note("(%.1f s)" % (time.monotonic() - t))
    out.line("")
    for label in out.over:
        out.line("OVER: " + label.strip())
    out.line("make bench: %d budget(s) OVER, %d figure(s) not measured, %.0f s" % (
        len(out.over), len(out.missing), time.monotonic() - start))
    return 1 if out.missing else 0


if __name__ == "__main__":
    sys.exit(main())
