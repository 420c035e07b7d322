"""make bench's passes: the flash work and the chip time of each loop pass of one scripted
session (device/bench_session.py: actions, draws, a referee's blacks, a log export, idle time),
played twice with the same passes:
- under CPython on littlefs-python with the board's geometry (host_tests/littleflash.py), on
  the tests' stand-in board (host_tests/vmlib/hardening_board.py): the programs, pages and
  erases of each pass, before its LED, before its frame is sent, and in all;
- under native MicroPython on the deployed .mpy files (tools/native/runner.py) with the real
  Board, its ssd1306 driver and the board's `machine` (tools/benchmarks/bare), its files on
  MicroPython's VfsLfs2 over an image of the board's flash (HARNESS's Flash): the time of each
  pass to the same marks, and the bytes the driver sends over I2C (counting them, and reading
  and writing the image, take Python time the board's C machine.I2C and rp2.Flash do not
  spend: the clock leaves it out; the bus's own time is the I2C figure, the flash's its
  counts). Played RUNS times, each in a fresh process, which allocates alike and
  so collects garbage in the same passes: a pass's time is the fastest of its runs, since
  this machine's other work only ever adds time.
The two must agree pass for pass (kind and screen after each), else nothing is added up.
The parts that print their figures are in passfigures.py.
"""
import os
import shutil
import struct
import sys
import tempfile

import model
from report import Unmeasurable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEVICE = os.path.join(HERE, "device")
BARE = os.path.join(HERE, "bare")
HOST_TESTS = os.path.join(ROOT, "host_tests")
for _path in (DEVICE, HOST_TESTS, os.path.join(HOST_TESTS, "vmlib")):
    if _path not in sys.path:
        sys.path.append(_path)

import bench_session as bs  # noqa: E402

RUNS = 9
REPS = 5      # each calibration's runs of the two workloads (model.py)
RECORD = "<BBIIIIII"   # kind, screen, us to the LED, to show(), to show() returned, to the end,
NONE = 0xFFFFFFFF      # I2C clocks, pixel bytes (NONE: the pass did not reach that mark)
TIMEOUT = 120
BLOCKS = 352          # the rp2 port's filesystem: 352 blocks of 4 KB (measured)

# -- CPython: the flash's counts ------------------------------------------------------------------
COUNTED = ("progs", "pages", "erases", "reads", "read_bytes")


def _delta(a, b):
    return None if a is None or b is None else tuple(y - x for x, y in zip(a, b))


class FlashSession:
    """The session on littlefs-python: rows of (kind, screen, before the LED, before the frame
    was sent, the whole pass), each a tuple of COUNTED deltas (None: mark not reached)."""

    def __init__(self):
        from littleflash import LittleFlash
        import hardening_board
        from carddraw.store import Store
        fs = LittleFlash()
        store = Store(fs=fs)
        store.save_settings(bs.settings())
        self.rows = []
        self.session = self._session(fs, store, hardening_board.Board())
        self.session.play()
        self.passes = len(self.rows)
        self.draws = sum(1 for r in self.rows if r[0] == bs.DRAW)
        self.records = store.logfile.seq
        # the power-on of a device in use (the session's flash), and of a fresh one
        self.boot_used = self._boot(fs.reboot(), hardening_board.Board())
        self.boot_fresh = self._boot(LittleFlash(), hardening_board.Board())

    def _session(self, fs, store, board):
        chip = fs.chip

        def probe():
            return (chip.progs, chip.pages, chip.erases, chip.reads, chip.read_bytes)

        def sink(kind, screen, start, led, show0, show1, end):
            self.rows.append((kind, screen, _delta(start, led), _delta(start, show1),
                              _delta(start, end)))
        return bs.Session(board, store, probe, sink, board.buttons.push)

    def _boot(self, fs, board):
        from carddraw.store import Store
        keep = self.rows
        self.rows = []
        try:
            self._session(fs, Store(fs=fs), board)
            return self.rows[0]
        finally:
            self.rows = keep


# -- native MicroPython: the time ------------------------------------------------------------------
HARNESS = model.CALIBRATE + """
import gc, os, time, struct, machine, micropython
out = open(RECORDS, "wb")
rec = bytearray(struct.calcsize(%(fmt)r))
bus = [0, 0, 0, 0]   # I2C clocks and pixel bytes so far; at the last record

ticks = time.ticks_us
diff = time.ticks_diff
spent = [0]   # us inside the I2C stand-in: the board's machine.I2C is C, its bus time I2C's

# The stand-in's two writes, timed from their first line (no tuple made, no call on to a
# counter), compiled to machine code (@micropython.native): what is left of them in the pass
# is the call itself, as the board's machine.I2C makes a call into C.
@micropython.native
def writeto(self, addr, buf):
    t = ticks()
    bus[0] += 9 * (len(buf) + 1) + 2
    spent[0] += diff(ticks(), t)
    return len(buf)

@micropython.native
def writevto(self, addr, vector):
    t = ticks()
    n = 0
    for part in vector:
        n += len(part)
    bus[0] += 9 * (n + 1) + 2
    if len(vector) > 1:   # the ssd1306 driver's data write: the control byte, the pixels
        bus[1] += n - len(vector[0])
    spent[0] += diff(ticks(), t)

def clock():   # the pass's clock: time.ticks_us less the time counting I2C bytes took
    return time.ticks_add(ticks(), -spent[0])

machine.I2C.writeto = writeto
machine.I2C.writevto = writevto


# The board's pins and PWM channels are C as well: a button's level read each pass, the LED's
# three duty cycles for a card. As machine code their calls cost what a call into C costs.
@micropython.native
def pin_value(self, level=None):
    return 1

@micropython.native
def pwm_duty(self, duty=None):
    pass

machine.Pin.value = pin_value
machine.PWM.duty_u16 = pwm_duty
NONE = %(none)d

import vfs
SECTOR = 4096
ERASED = b"\\xff" * 256   # an erase written a page at a time: 4 KB would take the firmware's heap

# The board's rp2.Flash on an image file: littlefs (MicroPython's own VfsLfs2, the C code the
# board runs) calls it as it calls the board's. The board's is C (a read is a copy from the
# memory-mapped flash; a program or an erase is the flash's time, counted apart), so the time
# spent in here is left out of the pass, as the I2C stand-in's is, and its methods are
# machine code (@micropython.native): a compaction of a folder's metadata calls them about
# a thousand times, and as bytecode their calls alone were a quarter of its time.
class Flash:

    def __init__(self, path):
        self.f = open(path, "r+b")

    @micropython.native
    def readblocks(self, block, buf, offset=0):
        t = ticks()
        self.f.seek(block * SECTOR + offset)
        self.f.readinto(buf)
        spent[0] += diff(ticks(), t)

    @micropython.native
    def writeblocks(self, block, buf, offset=0):
        t = ticks()
        self.f.seek(block * SECTOR + offset)
        self.f.write(buf)
        spent[0] += diff(ticks(), t)

    @micropython.native
    def ioctl(self, op, arg):
        t = ticks()
        got = 0
        if op == 4:
            got = BLOCKS
        elif op == 5:
            got = SECTOR
        elif op == 6:
            self.f.seek(arg * SECTOR)
            for _ in range(SECTOR // 256):
                self.f.write(ERASED)
        elif op == 3:
            self.f.flush()
        spent[0] += diff(ticks(), t)
        return got

def mount(fresh):   # the image at FLASH mounted as the rp2 port mounts its own (a fresh one
                    # made as the port makes it), the current folder
    bdev = Flash(FLASH)
    if fresh:
        vfs.VfsLfs2.mkfs(bdev, readsize=32, progsize=256, lookahead=32)
    vfs.mount(vfs.VfsLfs2(bdev, readsize=32, progsize=256, lookahead=32, mtime=True), "/flash")
    os.chdir("/flash")
    return bdev

def sink(kind, screen, start, led, s0, s1, end):
    struct.pack_into(%(fmt)r, rec, 0, kind, screen,
                     NONE if led is None else diff(led, start),
                     NONE if s0 is None else diff(s0, start),
                     NONE if s1 is None else diff(s1, start),
                     diff(end, start), bus[0] - bus[2], bus[1] - bus[3])
    bus[2] = bus[0]
    bus[3] = bus[1]
    out.write(rec)

def boot(t0):
    from carddraw.board import Board
    from carddraw.store import Store
    import bench_session
    board = Board()
    push = bench_session.pressed_through(board)  # the pins as on the board, then the presses
    return bench_session.Session(board, Store(), clock, sink, push, start=t0)
""" % {"fmt": RECORD, "none": NONE}

SESSION = """
speed = calibrate(REPS)
bdev = mount(True)
from carddraw.store import Store
import bench_session
Store().save_settings(bench_session.settings())
gc.collect()
s = boot(clock())
s.play()
out.close()
vfs.umount("/flash")
after = calibrate(REPS)
RESULT = [s.passes, min(speed[0], after[0]), min(speed[1], after[1])]
"""

BOOT = """
bdev = mount(FRESH)
t0 = clock()    # power-on: nothing of the firmware imported yet
s = boot(t0)
out.close()
vfs.umount("/flash")
RESULT = s.passes
"""


def _records(path):
    with open(path, "rb") as f:
        return list(struct.iter_unpack(RECORD, f.read()))


def _erased(path):
    """A flash image of the board's filesystem size, every byte erased (0xFF) -> path."""
    with open(path, "wb") as f:
        f.write(b"\xff" * (BLOCKS * 4096))
    return path


def _given(flash, records):
    return "FLASH = %r\nRECORDS = %r\nBLOCKS = %d\n" % (flash, records, BLOCKS)


class NativeSessions:
    """The session under native MicroPython, RUNS times -> runs (lists of RECORD tuples), and
    the power-on of a fresh and a used device, RUNS times each."""

    def __init__(self, lib, runs=RUNS, heap=None):
        from native import runner
        why = runner.missing()
        if why:
            raise Unmeasurable(why)
        path = [lib, runner.compiled_py(BARE), runner.compiled_py(DEVICE)]
        self.heap = heap or runner.HEAP
        base = "/dev/shm" if os.path.isdir("/dev/shm") else None
        tmp = tempfile.mkdtemp(prefix="carddraw_bench_", dir=base)
        try:
            self.runs = []
            self.factors = []   # each run's slowdown (model.py), calibrated before and after it
            self.boot_fresh = []
            self.boot_used = []
            for n in range(runs):
                flash = _erased(os.path.join(tmp, "flash%d" % n))
                recs = os.path.join(tmp, "session%d.bin" % n)
                got = runner.run(_given(flash, recs) + "REPS = %d\n" % REPS + HARNESS + SESSION,
                                 path, heap=self.heap, timeout=TIMEOUT)
                self.factors.append(model.slowdown(got[1], got[2]))
                self.runs.append(_records(recs))
            used = os.path.join(tmp, "flash0")   # the session's flash: a device in use
            booted = os.path.join(tmp, "boot")
            for n in range(runs):
                for copy_of, into in ((None, self.boot_fresh), (used, self.boot_used)):
                    if copy_of:   # a copy: a boot writes to the flash it boots on
                        shutil.copyfile(copy_of, booted)
                    else:
                        _erased(booted)
                    recs = os.path.join(tmp, "boot.bin")
                    runner.run(_given(booted, recs) + "FRESH = %r\n" % (copy_of is None)
                               + HARNESS + BOOT, path, heap=self.heap, timeout=TIMEOUT)
                    into.append(_records(recs)[0])
        finally:
            shutil.rmtree(tmp, True)


# -- both: a pass's figures ------------------------------------------------------------------
class Passes:
    """The two sessions put together: for pass i, its kind and the estimates to each mark."""

    def __init__(self, flash, native):
        self.flash = flash
        self.native = native
        runs = native.runs
        want = [(r[0], r[1]) for r in flash.rows]
        for n, run in enumerate(runs):
            got = [(r[0], r[1]) for r in run]
            if got != want:
                at = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b),
                          min(len(want), len(got)))
                raise Unmeasurable(
                    "the CPython and native sessions differ at pass %d (%s) of %d/%d passes"
                    % (at, "%s/%s" % (describe(want[at]) if at < len(want) else "end",
                                      describe(got[at]) if at < len(got) else "end"),
                       len(want), len(got)))
        self.kinds = [r[0] for r in flash.rows]

    def ms(self, i, mark):
        """Chip ms of pass i to a mark (2 LED, 3 show, 4 shown, 5 end): each run's native us
        times that run's slowdown, the fastest run's."""
        values = [run[i][mark] for run in self.native.runs]
        if NONE in values:
            return None
        return min(us * x for us, x in zip(values, self.native.factors)) / 1000.0

    def estimate(self, i, to, case="typical"):
        """-> (CPU ms, flash ms, I2C ms) of pass i to `to`: "led", "frame", "pass"; None if
        the pass did not reach it. CPU: the fastest run; flash: typical, or the datasheet's
        worst."""
        mark, fl = {"led": (2, 2), "frame": (4, 3), "pass": (5, 4)}[to]
        cpu = self.ms(i, mark)
        counts = self.flash.rows[i][fl]
        if cpu is None or counts is None:
            return None
        i2c = 0.0 if to == "led" else model.i2c_ms(self.native.runs[0][i][6])
        return cpu, model.flash_ms(counts[1], counts[2], case), i2c


def describe(kind_screen):
    kind, screen = kind_screen
    return "%s on %s" % (bs.KINDS[kind], bs.SCREENS[screen] if screen < len(bs.SCREENS) else "?")


if __name__ == "__main__":
    sys.exit("passes.py is a part of tools/benchmarks/run.py")
