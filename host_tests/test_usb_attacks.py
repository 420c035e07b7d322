"""The attacks of a laptop on the USB cable, with a power cut or a reset at any moment: the
re-roll of a card seen in a reply, and code guesses hoping a reset forgets the tries (on the
console and on the lock screen). The Bench is powerbench.py's, as for test_power_cuts.py."""
import json

import pytest

from carddraw import config, protocol
from carddraw.store import Store
from fakeflash import FakeFlash
from powerbench import SEGMENT, START, Bench, boot
from storelog import read_log


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
            draws_logged = [r for r in read_log(store)[0] if r["ev"] == "draw"]
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
        recs = read_log(store)[0]
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
