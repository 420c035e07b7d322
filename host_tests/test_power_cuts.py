"""Power cuts at every program and erase of the flash chip during a whole event, on the board's
real filesystem (littlefs, through littleflash), through the whole App (controller, store and
the loop's order: inputs, controller, persist, reveal), on a stand-in board.

The event (50 actions: starts, draws, redraws, referee decisions, timed draws, stops, chains,
undo, deck adjustments, helpers leaving, settings, a log export and its acknowledgement) is
played once while the chip records every program and erase; a cut at operation N in each of
the chip's torn modes (the operation not done, half done, done) then leaves an image that the
chip's recording rebuilds (littleflash.Flash.cuts). After every cut a new App boots on it and
must:
  - boot without an exception or a notice of damage;
  - hold every record whose commit had returned before the cut (those of every pass that
    showed anything: a pass shows only after its commit), in order, once, hash chain whole;
  - come back to what the player last saw, or to the pass in flight: never an older one;
  - close each action that ended with exactly one end record.
A second cut during the boot after a sample of first cuts, and a kill of the pass right after
each of its outputs (as a watchdog reset would), come last.
"""
import json
import os
import random
import sys

import pytest

from conftest import ROOT
from carddraw import config
from carddraw.app import App
from carddraw.store import Store
from fakeflash import FakeFlash, PowerCut
from handheld import play_state
from powerbench import SEGMENT, START, Bench, boot, hardening_board  # test_end_screens: Bench, boot
from test_controller_fuzz import figure
from storelog import read_log

sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import logchain  # noqa: E402

ACTIONS = 50
EVERY = int(os.environ.get("POWER_CUT_EVERY", 1))  # 1: every operation (make test's run)


@pytest.fixture(scope="module")
def event():
    """The scripted event, played once on a recording chip."""
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(START).encode()})
    fs.chip.record()
    fs.chip.reset_counts()  # operations counted from the recording's start, as cuts() numbers them
    b = Bench(fs)
    b.play(actions=ACTIONS)
    for _ in range(20):
        b.step(300)  # idle passes: the journal's records into the log
    return b


def records_after(store):
    lines = []
    read_log(store, lines.append, raw=True)
    return lines


def test_the_scripted_event_covers_what_it_should(event):
    c = event.counts
    lines = records_after(event.store)
    recs = [json.loads(x) for x in lines]
    evs = [r["ev"] for r in recs]
    assert c["actions"] == ACTIONS and evs.count("draw") >= 120
    for k in ("redraws", "referee", "stops", "chains", "settings", "undo", "adjust", "helper",
              "exports"):
        assert c[k] >= 1, k
    assert any(r["ev"] == "draw" and r["timed"] for r in recs)
    assert any(r["ev"] == "draw" and r["card"] == "black" for r in recs)
    assert len([f for f in event.fs.listdir("log") if f.startswith("log.0")]) >= 4
    assert logchain.verify(lines)[0]
    committed = [r for _, records in event.commits for r in records]
    assert [{k: v for k, v in r.items() if k not in ("seq", "h")} for r in recs] == committed
    figure("power: event", dict(c, **{"chip operations": event.ops(), "log records": len(recs),
                                       "passes": len(event.passes)}))


def check_boot(app, store, event, ops, full=True, booted=False):
    """What a boot on the flash a cut at chip operation `ops` left must show. -> (records
    lost, resumed behind what was shown). Not full: the records counted, not read back (the
    log's last seq and the journal's records after it). booted: a
    boot before this one may have logged records of its own (its resume, a timed draw)."""
    assert app.face.notices == [] and store.take_notices() == [], app.face.notices
    done = [r for at, records in event.commits if at < ops for r in records]
    flight = [r for at, records in event.commits if at >= ops for r in records][:8]
    if full:
        lines = records_after(store)
        assert logchain.verify(lines)[0], logchain.verify(lines)
        have = [json.loads(x) for x in lines]
        have = [{k: v for k, v in r.items() if k not in ("seq", "h")} for r in have]
        # every record a commit had put on flash, in order, once
        lost = 0 if have[:len(done)] == done else sum(1 for r in done if r not in have)
        if not booted:  # after the commits, at most the one in flight (whole or not at all)
            assert have[len(done):] in [flight[:k] for k in range(len(flight) + 1)], ops
        starts = [i for i, r in enumerate(have) if r["ev"] == "start"] + [len(have)]
        for a, b in zip(starts, starts[1:]):  # an action ends once at most
            assert sum(1 for r in have[a:b] if r["ev"] == "end") <= 1, have[a:b]
    else:  # the records on flash: the log's, then the journal's not yet moved into it
        seq = store.logfile.seq + store.journal.waiting(store.logfile.seq)
        lost = max(0, len(done) - seq)
        assert seq <= len(done) + len(flight), ops
    # what the player saw last (the last pass whose commit was on flash), or the one after
    shown = [state for at, state in event.passes if at < ops]
    seen = shown[-1] if shown else None
    later = event.passes[len(shown)][1] if len(shown) < len(event.passes) else seen
    behind = play_state(app.controller) not in (seen, later)
    return lost, behind


def test_a_power_cut_at_every_program_and_erase_loses_nothing(event):
    cuts = lost = behind = blacks = 0
    screens = set()
    for n, mode, image in event.fs.chip.cuts():
        if n % EVERY:
            continue
        cuts += 1
        app, store, fs = boot(image)
        # a cut at operation n: the commits that had returned were done by operation n - 1,
        # and in "after" mode the operation itself is done too
        got = check_boot(app, store, event, n + (mode == "after"), full=not cuts % 10)
        lost += got[0]
        behind += got[1]
        v = app.controller.view()
        screens.add(v.screen)
        rs = play_state(app.controller)
        if rs and (rs["action"]["state"] == "referee" or rs["card"] == "black"):
            blacks += 1
            assert v.led == "black" or v.screen == "failed"   # no escape from a black
    figure("power: cuts", {"cuts made (every program and erase, 3 ways)": cuts,
                           "records lost": lost, "resumes behind what was shown": behind,
                           "cuts with a black on show, still there on boot": blacks,
                           "screens resumed": sorted(screens)})
    assert lost == 0 and behind == 0
    assert blacks > 0 and {"active", "card", "referee", "setup"} <= screens


def test_a_second_cut_during_the_boot_after_a_cut(event):
    """The power may go again while the device boots after a cut (it moves the journal into
    the log and logs its resume then): cut at every operation of that boot and its first
    pass, after every 100th first cut, in each mode, and boot once more: the records all
    there, and the device as that boot found it or as its first pass left it."""
    tried = 0
    for n, mode, image in event.fs.chip.cuts(("before",)):
        if n % 100:
            continue
        second = FakeFlash(image=image)
        second.chip.record()
        first = App(hardening_board.Board(), Store(fs=second, segment=SEGMENT),
                    random.Random(1), 5_000_000, write=lambda s: None)
        found = play_state(first.controller)
        first.loop_pass(5_000_020)
        left = play_state(first.controller)
        for m, mode2, image2 in second.chip.cuts():
            tried += 1
            app, store, _ = boot(image2, 6_000_000)
            lost, _ = check_boot(app, store, event, n, booted=True)
            assert lost == 0, (n, m, mode2)
            assert play_state(app.controller) in (found, left), (n, m, mode2)
    figure("power: second cuts during the boot", tried)
    assert tried > 100


def test_nothing_is_shown_that_the_flash_does_not_hold():
    """Persist, then reveal: after an output (the LED, the display, the buzzer, a console
    reply), a boot on the flash as it is at that moment (what a watchdog reset right there
    leaves: a reset stops the pass, it tears nothing) comes back to what that output showed."""
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(START).encode()})
    b = Bench(fs)
    shown = {"kills": 0, "outputs": 0}
    board = b.board

    def after(output):
        def wrapped(*args):
            result = output(*args)
            shown["outputs"] += 1
            if shown["outputs"] % 7 == 3:   # now and then, right after this output: a reset
                rs = play_state(b.c)
                led = board.led.colour
                app, store, _ = boot(bytes(fs.chip.data))
                assert play_state(app.controller) == rs          # what was shown is held
                if led in ("green", "yellow", "red", "black"):      # a card on the LED
                    assert app.controller.view().led in (led, None) or rs is None
                shown["kills"] += 1
            return result
        return wrapped
    board.led.show = after(board.led.show)
    board.display.show = after(board.display.show)
    board.buzzer.play = after(board.buzzer.play)
    b.app.write = after(b.app.write)
    b.play(actions=12)
    figure("power: resets right after an output", shown)
    assert shown["kills"] > 100


def test_a_console_reply_waits_for_the_flash():
    """A `show` sent in the same write as `press DRAW` answers only after the draw's commit:
    a host that stops reading (so the port blocks and the watchdog resets) or a power cut can
    no longer see a card the flash does not hold, and re-roll it."""
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(START).encode()})
    b = Bench(fs)
    b.press("DRAW")                                   # an action
    replied = []
    keep = b.app.write

    def write(text):
        reply = json.loads(text)
        if reply.get("screen") == "card":             # the card revealed over USB ...
            app, _, _ = boot(bytes(fs.chip.data))     # ... is on flash already
            assert play_state(app.controller) == play_state(b.c)
            replied.append(reply)
        keep(text)
    b.app.write = write
    b.app.line("press DRAW")
    b.app.line("show")
    for _ in range(5):
        b.step(20)
    assert replied and replied[-1]["draws"] == 1
