"""Issue 34's boots: two boots in a row that failed with an exception come up safe (the log's
last action not played again, said on screen and logged), a boot that draws its first frame
puts the count back, and a power cut during a boot counts nothing (switching off is no way to
a safe start, so no way out of a black card)."""
import random
import sys

from carddraw import app as app_module, config
from carddraw.app import App
from carddraw.store import Store
from fakeflash import FakeFlash
from handheld import play_state
from conftest import ROOT
from storelog import read_log

sys.path.insert(0, ROOT + "/host_tests/vmlib")
import hardening_board  # noqa: E402


def boot(fs, safe=0):
    return App(hardening_board.Board(), Store(fs=fs), random.Random(1), 0, write=lambda s: None,
               safe=safe)


def test_the_count_of_failed_boots_is_raised_by_a_failure_and_cleared_by_a_frame():
    fs = FakeFlash()
    store = Store(fs=fs)
    assert store.boots() == 0
    store.boots(True)
    store.boots(True)
    assert Store(fs=FakeFlash(fs.flash)).boots() == 2      # on flash, across a reset
    assert store.boots(False) == 2 and store.boots() == 0
    fs.flash[config.BOOTS_FILE] = b"not a count"            # damaged: never stops a boot
    assert Store(fs=FakeFlash(fs.flash)).boots() == 0


def test_fatal_counts_the_failure_and_logs_it(monkeypatch):
    fs = FakeFlash()
    monkeypatch.setattr(app_module, "Store", lambda: Store(fs=fs))
    app_module.fatal(MemoryError("memory allocation failed"))
    store = Store(fs=FakeFlash(fs.flash))
    assert store.boots() == 1
    errors = [r for r in read_log(store)[0] if r["ev"] == "error"]
    assert errors and errors[-1]["fatal"] is True and "MemoryError" in errors[-1]["why"]


def test_a_safe_boot_leaves_the_action_says_so_and_logs_it():
    fs = FakeFlash()
    first = boot(fs)
    first.controller.settings["black"] = 9
    first.controller.settings_version += 1
    for t in range(20, 400, 20):
        first.loop_pass(t)
    first.button("DRAW", "short", 400)          # an action starts
    first.loop_pass(420)
    assert first.controller.play is not None
    resumed = boot(FakeFlash(fs.flash))          # a normal boot plays it again
    assert resumed.controller.play is not None
    safe = boot(FakeFlash(fs.flash), safe=2)     # two boots failed: set-up, said and logged
    assert safe.controller.play is None and safe.controller.screen == "message"
    assert safe.controller.view().lines[0] == "Safe start"
    safe.loop_pass(20)
    assert [r for r in read_log(safe.store)[0] if r["ev"] == "safe"] == [
        {"ev": "safe", "ms": 0, "boots": 2}]


def test_a_flood_of_refused_tries_over_the_console_adds_no_record_and_the_boot_holds():
    """Issue 34's flood, played as the attacker plays it: wrong codes until both waits run
    (the code's and the recovery code's), then a thousand `unlock` lines alternating a
    4-press and a 12-press wrong code. Each is refused unchecked and only counted: the log
    has one record a wait, the next boot plays the action again as it was."""
    from carddraw import lockcode
    settings = dict(config.defaults(), referee=True, black=9,
                    lock=lockcode.hashed("SDHR", "00ff00ff00ff00ff"),
                    recovery=lockcode.hashed("SDHRSDHRSDHR", "ff00ff00ff00ff00"))
    fs = FakeFlash()
    Store(fs=fs).save_settings(settings)
    app = boot(fs)
    t = [0]

    def run(n=1):
        for _ in range(n):
            t[0] += 20
            app.loop_pass(t[0])
    app.button("DRAW", "short", 0)          # an action, a black coming
    run(5)
    app.button("DRAW", "short", t[0])
    run(5)
    for code in ("RRRR", "HHHH", "DDDD") + ("R" * 12,) * 3:
        app.line("unlock " + code)
        run(5)
    for i in range(1000):
        app.line("unlock " + ("RHRH" if i % 2 else "RHRHRHRHRHRH"))
        run(2)
    records = read_log(app.store)[0]
    locks = [r for r in records if r["ev"] == "lock"]
    # one record a wait (the code's, the recovery's, and the longer ones a try starts as a
    # wait runs out over the flood's 40 s), never one a try
    assert {r["result"] for r in locks} == {"wait"} and 2 <= len(locks) <= 6
    assert sum(r["refused"] for r in locks) + app.controller.lockout.refused >= 990
    state = play_state(app.controller)
    again = boot(FakeFlash(fs.flash))                            # a power cut, a boot
    assert play_state(again.controller) == state and again.controller.action.draws == 1
