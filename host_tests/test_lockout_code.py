"""The referee lock's code: 4 to 8 presses kept as a salted hash (older plain codes migrated),
never readable through show or the log, and the recovery code a new code brings, with its own
count and waits, so the referee can always get in."""
import json
import random
from hashlib import sha256

import pytest

from carddraw import config, lockcode
from carddraw.app import App
from carddraw.controller import Controller
from carddraw.settings import check, code_ok, lock_ok
from carddraw.store import Store
from fakeflash import FakeFlash

from lockoutkit import (attempt, code_keys, dev, hardening_board, keys, lock_records, text,
                        wrong)


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
    presses, salt, digest = kept.split("$")
    assert presses == "4" and "SDSD" not in kept and lock_ok(kept)
    assert digest == sha256((salt + "$SDSD").encode()).hexdigest()
    assert c.take_log()[-1] == {"ev": "settings", "ms": 0, "lock": "changed"}
    c.lockout.keep("SDSD")
    assert c.settings["lock"].split("$")[1] != salt   # a new salt every time
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
    presses, salt, digest = config.DEFAULT_LOCK.split("$")
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
        for secret in ("RHRH", "R H R H", "DSRHD", "D S R H D", config.DEFAULT_LOCK.split(
                "$")[2][:12], c.settings["lock"].split("$")[2][:12]):
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
