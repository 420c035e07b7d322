"""The referee lock against a player who tries codes: codes of 4 to 8 presses kept
as a salted hash, a growing wait after wrong tries (3 free, then 30 s, doubling, 8 h at most)
shown as a countdown and kept across a power cut, every wait logged with the counts, without
the code. lockcode.py is the one place that checks a code; referee.py's lock and new-code
screens use it."""
import json
import os
import random
import sys
from hashlib import sha256

import pytest

from conftest import ROOT
from carddraw import config, lockcode
from carddraw.app import App
from carddraw.controller import Controller
from carddraw.settings import check, code_ok, lock_ok
from carddraw.store import Store
from fakeflash import FakeFlash

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
import hardening_board  # noqa: E402

NAME = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}


def attempt(c, code):
    """A try as the lock screen makes it: counted, then, once that is on flash, compared
    -> None if it opened the lock, else what the player is told."""
    said = []
    refused = c.lockout.attempt(code, said.append)
    if refused is not None:
        return refused
    c.lockout.settle(True)
    return said[0]


def dev(**settings):
    return Controller(settings=dict(config.defaults(), **settings), rng=random.Random(1))


def keys(c, seq, t=0):
    """Presses ("R", "lS" for a long one) at time t, the app's tick after each."""
    for tok in seq.split():
        (c.long if tok[0] == "l" else c.press)(NAME[tok[-1]], t)
        c.tick(t)
    return c.view()


def code_keys(code):
    return "lS " + " ".join(code)


def wrong(c, t, code="SSSS"):
    return keys(c, code_keys(code), t)


def text(c):
    return " ".join(" ".join(c.view().lines).split())


def lock_records(c):
    return [r for r in c.take_log() if r["ev"] == "lock"]


# -- the wait -----------------------------------------------------------------------------------
def test_the_wait_after_each_wrong_try_3_free_then_30_s_doubling_capped_at_8_h():
    waits = [lockcode.wait_for(n) for n in range(0, 20)]
    assert waits[:3] == [0, 0, 0]
    assert waits[3:8] == [30000, 60000, 120000, 240000, 480000]
    assert max(waits) == lockcode.MAX_WAIT_MS == 8 * 3600 * 1000
    assert waits[-1] == lockcode.MAX_WAIT_MS and waits == sorted(waits)


def test_three_wrong_codes_then_a_30_s_lockout_shown_as_a_countdown():
    c = dev()
    v = wrong(c, 1000)
    assert v.screen == "message" and "2 tries before a wait" in text(c)
    keys(c, "R", 1000)
    wrong(c, 2000)
    assert "1 try before a wait" in text(c)
    keys(c, "R", 2000)
    wrong(c, 3000)
    assert "wait 30 s" in text(c)
    assert c.settings["lock_fails"] == 3
    keys(c, "R", 3000)
    v = keys(c, "lS", 4000)
    assert v.screen == "lock" and "Wait 29 s" in v.lines
    c.tick(6500)
    assert "Wait 27 s" in c.view().lines                  # counting down on its own
    assert c.lockout.wait_ms() == 30000 - 3500


def test_nothing_is_accepted_during_the_lockout_not_even_the_right_code():
    c = dev()
    for t in (0, 1, 2):
        wrong(c, t)
        keys(c, "R", t)
    c.take_log()
    v = keys(c, "lS R H", 1000)
    assert v.screen == "lock" and "Wait 30 s" in v.lines and "* *" in text(c)
    v = keys(c, "R H", 1000)                              # the right code, too early
    assert v.screen == "message" and "Locked: wait 30 s" in text(c)   # 29.002 s left
    assert attempt(c, "RHRH") == "Locked: wait 30 s"   # refused unchecked
    assert lock_records(c) == [] and c.lockout.refused == 2   # counted, not logged
    assert c.settings["lock_fails"] == 3
    v = keys(c, code_keys("RHRH"), 30002)                 # the wait is over: it opens
    assert v.screen == "refmenu" and c.settings["lock_fails"] == 0   # and the count resets
    assert c.lockout.wait_ms() == 0


def test_each_further_wrong_try_doubles_the_wait():
    c = dev()
    t = 0
    for n in range(1, 7):
        wrong(c, t)
        assert c.settings["lock_fails"] == n
        assert c.lockout.wait_ms() == lockcode.wait_for(n)
        t += lockcode.wait_for(n)
        keys(c, "R", t)
    assert lockcode.wait_for(6) == 240000


def test_a_right_code_before_the_third_wrong_one_resets_the_count():
    c = dev()
    wrong(c, 0)
    keys(c, "R", 0)
    wrong(c, 0)
    keys(c, "R", 0)
    assert keys(c, code_keys("RHRH"), 0).screen == "refmenu"
    assert c.settings["lock_fails"] == 0
    keys(c, "lS", 0)
    wrong(c, 0)
    assert "2 tries before a wait" in text(c)


def test_tries_are_counted_and_a_wait_logged_with_the_counts_never_the_code():
    """A record when a wait starts (and when the lock opens after wrong tries), with the
    counts: a refused try during a wait is counted, never a record of its own."""
    c = dev()
    c.take_log()
    for t in range(4):
        wrong(c, t * 10, "SDSD")
        keys(c, "R", t * 10)
    log = c.take_log()
    recs = [r for r in log if r["ev"] == "lock"]
    assert [(r["result"], r["fails"], r["wait_s"]) for r in recs] == [("wait", 3, 30)]
    assert c.lockout.refused == 1 and c.settings["lock_fails"] == 3
    assert all(set(r) == {"ev", "ms", "result", "kind", "fails", "refused", "wait_s"}
               for r in recs)
    words = json.dumps(log)
    assert "SDSD" not in words and "RHRH" not in words and c.settings["lock"] not in words
    assert lockcode.split(c.settings["lock"])[2] not in words


def test_the_lockout_survives_a_power_cut_and_restarts_in_full():
    """The Pico has no clock across a power cut: a lockout due at boot starts again in full.
    Played through the App and the store, as test_power_cuts.py does."""
    fs = FakeFlash()
    board = hardening_board.Board()
    app = App(board, Store(fs=fs), random.Random(1), 0, write=lambda s: None)
    now = 0
    for _ in range(3):
        for name, kind in [("STOP", "long")] + [(n, "short") for n in ("DRAW",) * 4] + [
                ("RANK", "short")]:
            board.buttons.push(name, kind)
            now += 300
            app.loop_pass(now)
    assert app.controller.settings["lock_fails"] == 3
    assert all(b"RHRH" not in data for data in fs.flash.values())  # the code: nowhere
    board = hardening_board.Board()                        # the power cut
    app = App(board, Store(fs=fs), random.Random(1), 5000, write=lambda s: None)
    c = app.controller
    assert c.settings["lock_fails"] == 3
    board.buttons.push("STOP", "long")
    app.loop_pass(5300)
    assert c.view().screen == "lock" and "Wait 30 s" in c.view().lines   # in full again
    for name in "RANK", "HELP", "RANK", "HELP":
        board.buttons.push(name)
        app.loop_pass(5400)
    assert c.view().screen == "message" and c.shown.back.name == "setup"  # refused, not
                                                    # checked: the presses went with the lock
    assert "Locked: wait 30 s" in " ".join(c.view().lines) and c.settings["lock_fails"] == 3
    assert c.lockout.wait_ms() == 30000 - 400               # from the boot, at 5000


# -- the code ---------------------------------------------------------------------------------
@pytest.mark.parametrize("code", ["DSRH", "RRHHDDSS", "HDSRD"])
def test_codes_of_4_to_8_presses_are_kept_and_open_the_lock(code):
    c = dev()
    to_change_code(c)
    keys(c, " ".join(code))
    assert code in c.view().lines[3].replace(" ", "")    # the referee sees what goes in
    keys(c, "lD")
    assert c.view().lines[0] == "Code saved" and c.lockout.presses() == len(code)
    kept = json.loads(json.dumps(c.settings))               # as saved, and after a reboot
    assert keys(Controller(settings=kept), code_keys("RHRH")).screen != "refmenu"
    assert keys(Controller(settings=kept), code_keys("H" * len(code))).screen == "message"
    assert keys(Controller(settings=kept), code_keys(code)).screen == "refmenu"
    keys(c, "R lS")
    assert keys(c, code_keys(code)).screen == "refmenu"


def test_a_new_code_must_be_4_to_8_presses():
    c = dev()
    to_change_code(c)
    keys(c, "R H D")
    keys(c, "lD")                                          # 3 presses: too short
    assert c.view().screen == "message" and "4 to 8" in text(c)
    assert lockcode.matches(c.settings["lock"], "RHRH")
    keys(c, "R")
    assert c.view().screen == "newcode"
    keys(c, "S S S S S S S S S")                           # a 9th press is not taken
    assert c.shown.code == "SSSSSSSS"
    assert c.lockout.keep("RHX1")[0] is not None and c.lockout.keep("RHR")[0] is not None
    assert lockcode.matches(c.settings["lock"], "RHRH")


def test_the_code_is_kept_as_a_salted_hash_never_in_plain_text():
    c = dev()
    assert c.lockout.keep("SDSD")[0] is None
    kept = c.settings["lock"]
    presses, salt, digest = lockcode.split(kept)
    assert presses == 4 and "SDSD" not in kept and lock_ok(kept)
    assert digest == sha256((salt + "$SDSD").encode()).hexdigest()
    assert c.take_log()[-1] == {"ev": "settings", "ms": 0, "lock": "changed"}
    c.lockout.keep("SDSD")
    assert lockcode.split(c.settings["lock"])[1] != salt   # a new salt every time
    assert lockcode.matches(c.settings["lock"], "SDSD")


def test_the_default_code_is_RHRH_hashed():
    assert lock_ok(config.DEFAULT_LOCK) and "RHRH" not in config.DEFAULT_LOCK
    assert lockcode.matches(config.DEFAULT_LOCK, "RHRH")
    assert not lockcode.matches(config.DEFAULT_LOCK, "RHRHR")


@pytest.mark.parametrize("old", ["SDRH", "RHRH", "DDSS"])
def test_a_plain_code_from_older_firmware_is_migrated_to_the_hash(old):
    fixed, bad = check({"lock": old, "ranks": 3})
    assert bad == ["lock"] and old not in fixed["lock"] and lock_ok(fixed["lock"])
    assert lockcode.matches(fixed["lock"], old)
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps({"lock": old}).encode()})
    settings, _ = Store(fs=fs).load_settings()
    assert lockcode.matches(settings["lock"], old)
    assert old not in fs.flash[config.SETTINGS_FILE].decode()   # rewritten at once
    assert keys(Controller(settings=settings), code_keys(old)).screen == "refmenu"


def test_what_is_a_code_and_what_is_kept():
    for code in ("RHRH", "SSSSSSSS", "RHDSR"):
        assert code_ok(code) and not lock_ok(code)
    for code in ("RHR", "RHRHRHRHR", "rhrh", "RHX1", 1234, None, ""):
        assert not code_ok(code) and not lock_ok(code)
    presses, salt, digest = lockcode.split(config.DEFAULT_LOCK)
    for bad in ("9$%s$%s" % (salt, digest), "4$%s$%s" % (salt[:-1], digest),
                "4$%s$%s" % (salt, digest.upper()), "4$%s" % digest, "4$%s$%sx" % (salt, digest)):
        assert not lock_ok(bad)
    assert check({"lock_fails": -1})[1] == ["lock_fails"]
    assert check({"lock_fails": True})[1] == ["lock_fails"]
    assert check({"lock_fails": 12})[0]["lock_fails"] == 12


def test_a_bad_entry_from_the_console_is_named_and_counts_nothing():
    c = dev()
    c.take_log()
    for entered in ("RHR", "rhrh", "RHRHRHRHR", "", "12345"):
        said = attempt(c, entered)
        assert said == "A code is 4 to 8 presses of R H D S"
    assert c.settings["lock_fails"] == 0 and c.take_log() == []
    assert attempt(c, "RHRH") is None
    assert attempt(c, "RHRHR") == "Wrong code: 2 tries before a wait"


def to_change_code(c, code="RHRH"):
    assert keys(c, code_keys(code)).screen == "refmenu"
    for _ in range(8):
        if any(x.startswith(">Change code") for x in c.view().lines):
            break
        keys(c, "H")
    return keys(c, "D")


def test_no_code_is_readable_through_show_or_the_log():
    """What a player can read -- show (the bench's `show`: the screen's lines) and the log --
    holds neither the code nor its hash, whatever the lock went through. (The new-code screen
    shows the presses as the referee enters them: it is behind the lock.)"""
    c = dev()
    seen = []
    for seq in ("lS R H", "lS", "D", "lS S S S S", "R", "lS R H R", "lS"):
        keys(c, seq)
        seen.append(json.dumps(c.show()))
    to_change_code(c)
    keys(c, "D S R H D lD R")
    assert lockcode.matches(c.settings["lock"], "DSRHD")
    seen.append(json.dumps(c.show()))
    seen.append(json.dumps(c.take_log()))
    for s in seen:
        for secret in ("RHRH", "R H R H", "DSRHD", "D S R H D", lockcode.split(
                config.DEFAULT_LOCK)[2][:12], lockcode.split(c.settings["lock"])[2][:12]):
            assert secret not in s


# -- the recovery code: the referee can always get in --------------------------------------------
def new_code_and_recovery(c, code="DSHR"):
    """Change the code on the device (from the default) -> the recovery code, as the screen
    shows it that once."""
    to_change_code(c)
    view = keys(c, " ".join(code) + " lD")
    shown = text(c)
    assert view.screen == "message" and "Code saved" in view.lines[0], view.lines
    words = shown.split("wrong codes: ")[1].split()[:3]
    recovery = "".join(words)
    assert len(recovery) == lockcode.RECOVERY and set(recovery) <= set("RHDS"), shown
    assert recovery not in json.dumps(c.settings) and recovery not in json.dumps(c.take_log())
    keys(c, "D lS")                                   # the message read, out of the menu
    return recovery


def test_a_new_code_brings_a_recovery_code_shown_once_kept_hashed():
    c = dev()
    recovery = new_code_and_recovery(c)
    assert lockcode.matches(c.settings["recovery"], recovery)
    assert recovery not in json.dumps(c.show())
    to_change_code(c, "DSHR")
    keys(c, "S S H H lD")                             # another new code: a new recovery code
    assert not lockcode.matches(c.settings["recovery"], recovery)


def test_during_a_wait_the_recovery_code_opens_the_lock_and_ends_the_wait():
    """A player who enters wrong codes on purpose locks the code out for a wait (30 s, up to
    8 h): the 12-press recovery code still opens the lock, and the wait ends."""
    c = dev()
    recovery = new_code_and_recovery(c)
    for i in range(3):
        wrong(c, 1000 * i)
    assert c.lockout.wait_ms() > 0 and c.settings["lock_fails"] == 3
    keys(c, code_keys("DSHR"), 5000)                  # the right code: not even taken
    assert c.view().screen == "lock" and c.settings["lock_fails"] == 3
    keys(c, "lS", 6000)
    view = keys(c, code_keys(recovery), 6000)
    assert view.screen == "refmenu"
    assert c.settings["lock_fails"] == 0 and c.settings["recovery_fails"] == 0
    assert c.lockout.wait_ms() == 0


def test_wrong_recovery_codes_have_their_own_count_and_waits():
    """Wrong recovery codes count on their own (recovery_fails) with waits of their own; the
    right one is refused unchecked while its wait runs, and opens the lock after it, while the
    code's own wait still runs."""
    c = dev()
    recovery = new_code_and_recovery(c)
    for t in (0, 1000, 2000, 33000, 94000):           # 5 wrong tries, each after the wait
        wrong(c, t)
    assert c.settings["lock_fails"] == 5 and c.lockout.wait_ms() > 100000   # 120 s from 94 s
    wrong_recovery = "R" * 12 if recovery != "R" * 12 else "H" * 12
    for i in range(3):
        keys(c, code_keys(wrong_recovery), 100000 + 1000 * i)
        keys(c, "D", 100000 + 1000 * i)               # the message read
    assert c.settings["recovery_fails"] == 3 and c.settings["lock_fails"] == 5
    assert c.lockout.wait_ms("recovery") > 0 and c.view().screen == "setup"
    c.take_log()
    view = keys(c, code_keys(recovery), 103000)       # its own wait runs: refused unchecked
    assert view.screen == "message" and "Locked" in text(c)
    assert lock_records(c) == [] and c.lockout.refused == 1   # counted, not logged
    keys(c, "D", 103000)
    t = 103000 + c.lockout.wait_ms("recovery") + 1
    c.tick(t)
    assert c.lockout.wait_ms() > 0                    # the code's wait still runs ...
    assert keys(c, code_keys(recovery), t).screen == "refmenu"   # ... the recovery code opens
    assert c.settings["recovery_fails"] == 0 and c.settings["lock_fails"] == 0


def test_unlock_takes_the_recovery_code_during_a_wait():
    """The console's `unlock` as the lock: during a wait the 12-letter recovery code opens
    bench mode; the normal code is refused."""
    fs = FakeFlash()
    board = hardening_board.Board()
    app = App(board, Store(fs=fs), random.Random(3), 10_000, write=lambda s: None)
    c = app.controller
    c.now = 10_000
    recovery = new_code_and_recovery(c)
    for _ in range(3):
        attempt(c, "SSSS")
    assert c.lockout.wait_ms() > 0
    replies = []
    app.write = lambda text: replies.append(json.loads(text))
    t = 10_000
    for line in ("unlock DSHR", "unlock " + recovery):
        app.line(line)
        for _ in range(4):
            t += 20
            app.loop_pass(t)
    assert "Locked" in replies[0]["error"] and replies[1]["ok"] == "unlock"
    assert app.console.bench is not None and c.settings["lock_fails"] == 0


# -- under MicroPython ------------------------------------------------------------------------
def test_lockcode_runs_under_micropython(vm):
    got = vm("""
from carddraw import config, lockcode
from carddraw.controller import Controller
from carddraw.settings import check
c = Controller(settings=None)
def attempt(c, code):
    said = []
    refused = c.lockout.attempt(code, said.append)
    if refused is not None:
        return refused
    c.lockout.settle(True)
    return said[0]
out = [lockcode.matches(config.DEFAULT_LOCK, "RHRH")]
for t in (0, 10, 20, 30):
    c.now = t
    out.append(attempt(c, "SSSS"))
out.append(c.lockout.wait_ms())
c.now = 30030
out.append(attempt(c, "RHRH"))
out.append(c.lockout.keep("DDSSRRHH")[0])
out.append(lockcode.matches(c.settings["lock"], "DDSSRRHH"))
out.append(lockcode.matches(check({"lock": "SDRH"})[0]["lock"], "SDRH"))
out.append([[r["ev"], r.get("result"), r.get("fails")] for r in c.take_log()])
RESULT = out
""")
    assert got == [True, "Wrong code: 2 tries before a wait", "Wrong code: 1 try before a wait",
                   "Wrong code. Locked: wait 30 s", "Locked: wait 30 s", 29990, None, None,
                   True, True,
                   [["lock", "wait", 3], ["lock", "open", 3], ["settings", None, None]]]


def test_a_try_the_flash_did_not_count_waits_unjudged_until_it_does(monkeypatch):
    """Through the app's passes: a try is judged in the pass after the one that counted it,
    and only once nothing of that pass is held back. A flash that refuses the count leaves
    the try waiting on the lock screen (a reset then finds no try to undo); once the flash
    takes it, the next pass judges it."""
    judged = []
    real = lockcode.Lockout._judge
    monkeypatch.setattr(lockcode.Lockout, "_judge",
                        lambda self, code, kind: judged.append(code) or real(self, code, kind))
    fs = FakeFlash()
    board = hardening_board.Board()
    app = App(board, Store(fs=fs), random.Random(1), 0)
    now = [0]

    def step(ms=20):
        now[0] += ms
        assert app.loop_pass(now[0]), app.last_error

    step()
    board.buttons.push("STOP", "long")
    step(300)
    assert app.controller.screen == "lock"
    fs.failing = True
    for k in "RHRH":
        board.buttons.push(NAME[k], "short")
        step(300)
    for _ in range(5):
        step()
    c = app.controller
    assert judged == [] and c.screen == "lock" and app.committed != c.settings_version
    fs.failing = False
    step()          # the count goes on flash
    assert judged == [] and app.committed == c.settings_version and not app.store.waiting()
    step()          # and the try is judged: the default code opens the menu
    assert judged == ["RHRH"] and c.screen == "refmenu"


def test_a_console_unlock_is_never_compared_while_the_flash_refuses_its_count(monkeypatch):
    """The console's `unlock` goes the lock screen's way: its try is compared only once its
    count is on flash. With the flash refusing writes (a full filesystem), the try is never
    compared: the reply says so, bench mode stays closed, and a try per boot gains nothing."""
    judged = []
    real = lockcode.Lockout._judge
    monkeypatch.setattr(lockcode.Lockout, "_judge",
                        lambda self, code, kind: judged.append(code) or real(self, code, kind))
    fs = FakeFlash()
    replies = []
    app = App(hardening_board.Board(), Store(fs=fs), random.Random(1), 0, write=replies.append)
    now = 0
    for _ in range(3):
        now += 20
        app.loop_pass(now)
    fs.failing = True
    app.line("unlock RHRH")
    for _ in range(80):
        now += 20
        app.loop_pass(now)
    got = [json.loads(r) for r in replies]
    assert got == [{"error": "unlock: " + lockcode.NOT_SAVED}]
    assert judged == [] and app.console.bench is None
    fs.failing = False
    for _ in range(3):
        now += 20
        app.loop_pass(now)
    del replies[:]
    app.line("unlock RHRH")          # once the flash takes it, the same line opens bench mode
    for _ in range(5):
        now += 20
        app.loop_pass(now)
    assert json.loads(replies[-1])["ok"] == "unlock" and judged == ["RHRH"]
