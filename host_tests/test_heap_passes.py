"""The heap in the loop passes, under native MicroPython on the deployed .mpy files (the
board's bare `machine`, a Pico-sized heap): a pass with nothing to do allocates nothing, and
garbage is collected in quiet passes, never in a pass that answers a press (a collection
there would hold a drawn card's LED back by a whole collection: about 30 ms on the chip).
The session runs in the heap the board's stands for (make bench's chip-time session's:
memory.chip_heap, the board's 245,888 B scaled by the firmware's own 64-bit/32-bit heap),
where it fills as the board's would; the 240 KB of the fit tests leaves the 64-bit objects
a third of the board's room.

Without native MicroPython these tests fail (never skip) with one line saying why."""
import os
import shutil
import sys
import tempfile

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
from native import runner  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "benchmarks", "device"))
import bench_session as bs  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "benchmarks"))
import memory  # noqa: E402

BARE = os.path.join(ROOT, "tools", "benchmarks", "bare")
DEVICE = os.path.join(ROOT, "tools", "benchmarks", "device")


@pytest.fixture(scope="module")
def path():
    why = runner.missing()
    if why:
        pytest.fail(why, pytrace=False)
    return [runner.compiled(), runner.compiled_py(BARE), runner.compiled_py(DEVICE)]


@pytest.fixture
def flash():
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    folder = tempfile.mkdtemp(prefix="carddraw_heap_", dir=base)
    yield os.path.join(folder, "flash")
    shutil.rmtree(folder, True)


QUIET = """
import gc, os
os.mkdir(FLASH)
os.chdir(FLASH)
from carddraw.app import App
from carddraw.board import Board
from carddraw.store import Store
board = Board()
app = App(board, Store(), None, 1000)
now = [1000]

def passes(n):
    for _ in range(n):
        now[0] += 20
        app.loop_pass(now[0])

def allocated(n=100):
    passes(300)              # the press's frames, the odds, the store's idle work: done
    gc.collect()
    gc.disable()
    before = gc.mem_free()
    passes(n)
    after = gc.mem_free()
    gc.enable()
    return before - after

out = {}
out["setup"] = allocated()
app.button("DRAW", "short", now[0])      # an action: the active screen
out["active"] = allocated()
app.button("DRAW", "short", now[0])      # a card on show
out[app.controller.screen] = allocated()
RESULT = out
"""


def test_a_pass_with_nothing_to_do_allocates_nothing(path, flash):
    got = runner.run("FLASH = %r\n" % flash + QUIET, path)
    assert set(got) == {"setup", "active", "card"}
    assert got == {"setup": 0, "active": 0, "card": 0}


SESSION = """
import array, gc, os
os.mkdir(FLASH)
os.chdir(FLASH)
from carddraw.board import Board
from carddraw.store import Store
import bench_session as bs
board = Board()
push = bs.pressed_through(board)
counts = {}
net = array.array("i")   # each press pass's net allocation (bytes), in order

def sink(kind, screen, start, led, s0, s1, end):
    c = counts.setdefault(bs.KINDS[kind], [0, 0])
    c[0] += 1
    if end < start:      # the heap in use went down: the collector ran in the pass
        c[1] += 1
    if kind in PRESSES:
        net.append(end - start)

Store().save_settings(bs.settings())
gc.collect()
if OFF:
    gc.disable()
s = bs.Session(board, Store(), gc.mem_alloc, sink, push)
s.play()
RESULT = [counts, list(net)]
"""


def test_garbage_is_collected_in_quiet_passes_never_in_a_press(path, flash):
    """The session twice: with the collector off (a large heap), and as on the board. A press
    pass that collected shows less net allocation than the same pass with the collector off
    (the garbage it freed); a pass that does not collect allocates the same either way (a
    list grown in place or moved may differ by a few blocks)."""
    presses = ("set-up press", "start", "draw", "other press")
    kinds = tuple(i for i, k in enumerate(bs.KINDS) if k in presses)
    head = "PRESSES = %r\n" % (kinds,)
    off = runner.run(head + "OFF = True\nFLASH = %r\n" % (flash + "off") + SESSION, path,
                     heap="8m")
    got, net = runner.run(head + "OFF = False\nFLASH = %r\n" % flash + SESSION, path,
                          heap=memory.chip_heap(path[0]))
    counts, net_off = off
    assert all(got[k][0] > 10 for k in presses)        # the session pressed all kinds
    assert got["idle"][1] > 10                         # and collected in its quiet passes
    assert len(net) == len(net_off) == sum(got[k][0] for k in presses)
    collected = [i for i, (a, b) in enumerate(zip(net_off, net)) if a - b > 256]
    assert collected == []


BUSY = """
import gc, os
os.mkdir(FLASH)
os.chdir(FLASH)
from carddraw import app as A
from carddraw.board import Board
from carddraw.store import Store
board = Board()
app = A.App(board, Store(), None, 1000)
pending = []
board.buttons.poll = lambda now, longs=(): pending and [pending.pop()] or ()
now = 1000
for _ in range(100):      # set-up, then quiet: the boot's garbage goes
    now += 20
    app.loop_pass(now)
gc.collect()
after = []
for i in range(60):       # a press in every pass: no quiet pass between
    pending.append(("RANK" if i % 3 else "HELP", "short"))
    now += 20
    app.loop_pass(now)
    after.append(gc.mem_alloc())
RESULT = [A.SWEEP_PASSES, after]
"""


def test_presses_with_no_quiet_pass_between_are_swept_every_few_passes(path, flash):
    """A press in every pass (fingers on every button, the soak): the heap is collected at
    the end of every SWEEP_PASSES-th busy pass, not left to fill (then to be collected in
    the middle of some pass, the heap fragmented)."""
    sweep, after = runner.run("FLASH = %r\n" % flash + BUSY, path)
    drops = [i for i in range(1, len(after)) if after[i] < after[i - 1]]
    assert 2 <= sweep <= 10
    assert len(drops) >= len(after) // sweep - 1
    assert all(b - a <= sweep for a, b in zip(drops, drops[1:]))
