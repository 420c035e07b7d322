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
from carddraw import config, protocol
from carddraw.app import App
from carddraw.rng import Rng
from carddraw.store import Store
from fakeflash import FakeFlash, PowerCut
from test_controller_fuzz import figure

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
import hardening_board  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import logchain  # noqa: E402

SEGMENT = 4096            # small segments: the event below starts a dozen of them
SEED = 20261129
ACTIONS = 50
START = dict(config.defaults(), referee=True, black=1, redraws=1, needed=3, ranks=3, helpers=2,
             yellow=2, interval=30)
EVERY = int(os.environ.get("POWER_CUT_EVERY", 1))  # 1: every operation (make test's run)


class Bench:
    """The App on a stand-in board and a recording chip; after each pass, what had reached
    flash (the chip's operation count when the pass's commit returned) and what it showed."""

    def __init__(self, fs):
        self.fs = fs
        self.board = hardening_board.Board()
        self.store = Store(fs=fs, segment=SEGMENT)
        self.commits = []     # (ops when commit returned, its records) for each commit
        self.passes = []      # (ops when the commit returned, state shown) after each pass
        keep = self.store.commit

        def commit(records, settings=None, hint=None):
            ok = keep(records, settings, hint)
            assert ok
            self.commits.append((self.ops(), json.loads(json.dumps(records))))
            return ok
        self.store.commit = commit
        self.now = 1000
        self.out = []
        # the device's own generator, seeded; its next block hashed in idle passes
        self.app = App(self.board, self.store, Rng(SEED), self.now, write=self.out.append)
        self.c = self.app.controller
        self.policy = random.Random(7)
        self.counts = {"actions": 0, "redraws": 0, "referee": 0, "stops": 0, "chains": 0,
                       "settings": 0, "undo": 0, "adjust": 0, "helper": 0, "exports": 0}

    def ops(self):
        return self.fs.chip.progs + self.fs.chip.erases

    # -- input -------------------------------------------------------------------------------
    def step(self, ms=300):
        self.now += ms
        assert self.app.loop_pass(self.now), self.app.last_error
        self.passes.append((self.commits[-1][0], self.c.resume_state()))

    def press(self, *names, kind="short"):
        for name in names:
            self.board.buttons.push(name, kind)
            self.step()

    def line(self, text):
        """A console line, run to its last reply."""
        self.app.line(text)
        for _ in range(2000):
            self.step(20)
            if not self.app.console.busy():
                break
        return json.loads(self.out[-1])

    def screen(self):
        return self.c.view().screen

    def code(self):
        self.press("STOP", kind="long")
        self.press(*[config.BUTTONS["RHDS".index(k)] for k in "RHRH"])  # config.DEFAULT_LOCK
        self.step(20)  # the next pass compares the try, its count on flash
        assert self.screen() == "refmenu"

    def choose(self, label):
        """On a menu, move the cursor to the row starting `label` and press DRAW."""
        for _ in range(16):
            if any(x.startswith(">" + label) for x in self.c.view().lines):
                self.press("DRAW")
                return
            self.press("HELP")
        raise AssertionError("no %r on %s" % (label, self.c.view().lines))

    def option(self, index, presses):
        """From set-up: options, move to OPTS[index], DRAW, `presses`, back to set-up."""
        self.press("DRAW", kind="long")
        self.press(*["HELP"] * index)
        self.press("DRAW", *presses)
        if presses:
            self.press("DRAW")
        self.press("STOP")
        assert self.screen() == "setup"
        self.counts["settings"] += 1

    def export(self):
        """The bench's `make logs`: unlock, the log, its acknowledgement, lock."""
        assert self.line("unlock RHRH")["ok"] == "unlock"
        done = self.line("log")
        assert done["ok"] == "log"
        last = json.loads(json.loads(self.out[-2])["log"])
        assert self.line("log ack %d %s" % (last["seq"], last["h"]))["ok"] == "ack"
        self.line("lock")
        self.counts["exports"] += 1

    # -- the event -----------------------------------------------------------------------------
    def play(self, actions):
        p = self.policy
        c = self.c
        for _ in range(6000):
            s = self.screen()
            a = c.action
            if s == "setup":
                if self.counts["actions"] >= actions:
                    return
                n = self.counts["actions"]
                if n == actions // 2:
                    self.export()
                if n % 4 == 1:
                    self.option(9, [])                       # timed mode on/off
                elif n % 5 == 2:
                    self.option(6, ["HELP" if n % 2 else "RANK"])  # redraws +-1
                elif n % 3 == 0:
                    self.press("RANK")
                self.press("DRAW")
                self.counts["actions"] += 1
            elif s == "active":
                r = p.random()
                if r < 0.05:
                    self.press("STOP", "DRAW")
                    self.counts["stops"] += 1
                elif r < 0.16 and a.referee:
                    self.code()
                    k = p.choice(("Helper", "Adjust", "Undo", "Leave"))
                    rows = " ".join(c.view().lines)
                    if k == "Helper" and "Helper" in rows and a.helpers:
                        self.choose("Helper")
                        self.press("DRAW")
                        self.counts["helper"] += 1
                    elif k == "Adjust" and "Adjust" in rows:
                        self.choose("Adjust")
                        self.press("HELP", "DRAW", "HELP", "DRAW", "STOP")  # one yellow more
                        self.counts["adjust"] += 1
                    elif k == "Undo" and "Undo" in rows:
                        self.choose("Undo")
                        self.press("DRAW")
                        self.counts["undo"] += 1
                    self.press("STOP", kind="long")
                    if self.screen() == "message":
                        self.press("DRAW")
                elif c.settings["timed"] and r < 0.5:
                    before = a.draws
                    for _ in range(40):                      # wait for the timed draw
                        self.step(2000)
                        if a.draws != before or self.screen() != "active":
                            break
                else:
                    if r > 0.6:  # a pause first: idle passes (the generator's block)
                        for _ in range(6):
                            self.step(300)
                    self.press("DRAW")
            elif s == "card":
                if not c.play.applied and a.redraws_left and p.random() < 0.5:
                    self.press("HELP")
                    self.counts["redraws"] += 1
                else:
                    self.press("DRAW")
            elif s == "referee":
                self.code()
                self.choose("Black: go on" if p.random() < 0.6 else "Black: fail")
                self.counts["referee"] += 1
                if self.screen() == "refmenu":
                    self.press("STOP")
            elif s == "success":
                if p.random() < 0.4:
                    self.press("HELP", "DRAW")
                    self.counts["chains"] += 1
                else:
                    self.press("DRAW")
            elif s == "finishing":
                self.step(61000)
            else:  # summary, failed, message
                self.press("DRAW")
        raise AssertionError("the scripted event did not finish")


def boot(image, now=5_000_000):
    fs = FakeFlash(image=image)
    board = hardening_board.Board()
    store = Store(fs=fs, segment=SEGMENT)
    app = App(board, store, random.Random(1), now, write=lambda s: None)
    return app, store, fs


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
    store.read_log(lines.append, raw=True)
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
    behind = app.controller.resume_state() not in (seen, later)
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
        rs = app.controller.resume_state()
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
        found = first.controller.resume_state()
        first.loop_pass(5_000_020)
        left = first.controller.resume_state()
        for m, mode2, image2 in second.chip.cuts():
            tried += 1
            app, store, _ = boot(image2, 6_000_000)
            lost, _ = check_boot(app, store, event, n, booted=True)
            assert lost == 0, (n, m, mode2)
            assert app.controller.resume_state() in (found, left), (n, m, mode2)
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
                rs = b.c.resume_state()
                led = board.led.colour
                app, store, _ = boot(bytes(fs.chip.data))
                assert app.controller.resume_state() == rs          # what was shown is held
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
            assert app.controller.resume_state() == b.c.resume_state()
            replied.append(reply)
        keep(text)
    b.app.write = write
    b.app.line("press DRAW")
    b.app.line("show")
    for _ in range(5):
        b.step(20)
    assert replied and replied[-1]["draws"] == 1
    assert protocol.MAX_QUEUE >= 2


# -- the attacks of a laptop on the USB cable, a cut or a reset at any moment ------
def attack(lines, settings, pause=False):
    """A Bench at an action's start, on a recording chip, sent `lines` in one write with a
    reply recorder: -> (the bench, [(chip operations done when the reply was written, the
    reply)]). Operations are counted from the recording's start, as cuts() numbers them.
    pause: idle passes first (the store's work, the generator's next block)."""
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(settings).encode()})
    b = Bench(fs)
    b.press("DRAW")                                   # the action starts
    for _ in range(20 if pause else 0):
        b.step(300)
    fs.chip.record()
    fs.chip.reset_counts()
    seen = []
    keep = b.app.write

    def write(text):
        seen.append((b.ops(), json.loads(text)))
        keep(text)
    b.app.write = write
    for text in lines:
        b.app.line(text)
    for _ in range(40):
        b.step(20)
    return b, seen


def done_by(n, mode):
    """Chip operations done when a cut at operation n in `mode` left the chip."""
    return n if mode == "after" else n - 1


@pytest.mark.parametrize("pause", [False, True], ids=["at once", "after a pause"])
def test_the_usb_re_roll_attack_finds_no_fresh_card(pause):
    """The re-roll: `press DRAW` and 14 `show` lines in one write; the laptop sees the card in a
    reply and, when it is unwanted, cuts the power (or stops reading so the watchdog resets
    the board) to draw again. A cut at every program and erase of those passes, in each torn
    mode: whenever a reply had shown the card, the device comes back with that same card on
    show and its draw record on flash; when none had, nothing of the card was seen. No cut
    gives the laptop a second card for the same draw, whether idle passes came first or not."""
    b, seen = attack(["press DRAW"] + ["show"] * 14, START, pause)
    card, draws = b.c.play.card, b.c.action.draws
    assert draws == 1 and card is not None
    shown_at = min(at for at, r in seen if r.get("draws") == 1)  # the first reply showing it
    cuts = revealed = 0
    for n, mode, image in b.fs.chip.cuts():
        cuts += 1
        app, store, _ = boot(image)
        c = app.controller
        if done_by(n, mode) >= shown_at:                # the laptop saw the card
            revealed += 1
            assert c.action.draws == 1 and c.play.card == card, (n, mode)
            draws_logged = [r for r in store.read_log()[0] if r["ev"] == "draw"]
            assert [r["card"] for r in draws_logged] == [card]
        elif c.action.draws == 1:                       # on flash, not yet seen: the same card
            assert c.play.card == card
    assert cuts > 3 and revealed > 0 and shown_at > 0   # the draw's commit came first


def test_the_usb_code_guess_attack_leaves_every_try_counted(monkeypatch):
    """The uncounted guess: per boot, `unlock` two wrong guesses and then the right code, `maint` and 12
    `show` lines in one write, hoping a reset before the save forgets the tries. Every try is
    on flash, its count raised, before it is compared (the Lockout's judging checks the flash
    as it starts); a cut at every program and erase of those passes, in each torn mode: the
    wrong tries whose replies were seen are counted on flash (or the lock's opening record
    says them), and the maintenance flag is never on flash without that record and bench
    mode's."""
    from carddraw import lockcode
    fs_of = {}
    judged = []
    real_judge = lockcode.Lockout._judge

    def judge(self, entered, kind):
        on_flash = Store(fs=fs_of["fs"].reboot(), segment=SEGMENT).load_settings()[0]
        assert on_flash["lock_fails"] == self.ctl.settings["lock_fails"] >= 1   # counted first
        judged.append(entered)
        return real_judge(self, entered, kind)
    monkeypatch.setattr(lockcode.Lockout, "_judge", judge)
    settings = dict(START, lock=lockcode.hashed("SDHR", "00ff00ff00ff00ff"))
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(settings).encode()})
    fs_of["fs"] = fs
    lines = ["unlock SDHH", "unlock SDRR", "unlock SDHR", "maint"] + ["show"] * 12
    b = Bench(fs)
    b.press("DRAW")
    fs.chip.record()
    fs.chip.reset_counts()
    seen = []
    keep = b.app.write
    b.app.write = lambda text: (seen.append((b.ops(), json.loads(text))), keep(text))
    for text in lines:
        b.app.line(text)
    for _ in range(40):
        b.step(20)
    assert judged == ["SDHH", "SDRR", "SDHR"]
    wrong_at = [at for at, r in seen if "Wrong code" in r.get("error", "")]
    assert len(wrong_at) == 2 and any(r.get("ok") == "maint" for _, r in seen)
    cuts = flagged = 0
    for n, mode, image in fs.chip.cuts():
        cuts += 1
        app, store, fs2 = boot(image)
        recs = store.read_log()[0]
        opened = [r["fails"] for r in recs if r["ev"] == "lock" and r["result"] == "open"]
        counted = max([app.controller.settings["lock_fails"]] + opened)
        assert counted >= sum(1 for at in wrong_at if at <= done_by(n, mode)), (n, mode)
        if protocol.MAINT_FLAG in fs2.listdir(""):
            flagged += 1
            assert opened == [2] and any(r["ev"] == "bench" and r["mode"] == "on" for r in recs)
    assert cuts > 10 and flagged > 0


def test_a_code_try_on_the_lock_screen_is_on_flash_before_it_is_compared(monkeypatch):
    """The buttons' way to the same guess: the lock screen, through the app's passes. Each
    try's raised count is on flash when the Lockout judges it, wrong or right; so a reset at
    any moment of a try leaves it counted."""
    from carddraw import lockcode
    judged = []
    real_judge = lockcode.Lockout._judge
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(dict(START, lock=lockcode.hashed(
        "SDHR", "00ff00ff00ff00ff"))).encode()})

    def judge(self, entered, kind):
        on_flash = Store(fs=fs.reboot(), segment=SEGMENT).load_settings()[0]
        judged.append((entered, on_flash["lock_fails"], self.ctl.settings["lock_fails"]))
        return real_judge(self, entered, kind)
    monkeypatch.setattr(lockcode.Lockout, "_judge", judge)
    b = Bench(fs)
    for code in ("SDHH", "SDRR", "SDHR"):
        b.press("STOP", kind="long")
        b.press(*[config.BUTTONS["RHDS".index(k)] for k in code])
        b.step(20)
        if b.screen() == "message":
            b.press("DRAW")
    assert [j[0] for j in judged] == ["SDHH", "SDRR", "SDHR"]
    assert all(on_flash == in_ram >= 1 for _, on_flash, in_ram in judged), judged
    assert b.screen() == "refmenu" and b.c.settings["lock_fails"] == 0
