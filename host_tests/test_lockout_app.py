"""The referee lock beyond the controller: lockcode under MicroPython, and through the app's
passes a try (at the lock screen or the console's `unlock`) judged only once its count is on
flash."""
import json
import random

from carddraw import lockcode
from carddraw.app import App
from carddraw.store import Store
from fakeflash import FakeFlash

from lockoutkit import NAME, hardening_board


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
    assert got == [{"error": "unlock: The flash did not save the try: it was not checked."}]
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
