"""The referee lock: a decision taken on the card screen (found by the fuzz, R14), and the lock's
search allowed the code, so that test_controller_fuzz.py's search without it is not vacuous."""
import pytest

from carddraw import config
from handheld import Kept, play_state, reboot
from locksearch import KEY, explore, unroll


class Black:
    """An rng whose every draw is the first black card of the deck."""

    def __init__(self):
        self.c = None

    def randrange(self, n):
        g, y, r, b = self.c.action.deck.counts()
        assert b
        return g + y + r


@pytest.mark.parametrize("decision,after", [("Black: go on", "active"), ("Black: fail", "failed")])
def test_a_referee_decision_taken_on_the_card_screen_clears_the_black_card(decision, after):
    """Found by the fuzz. With no redraws the black applies at once and stays on the card
    screen; a referee who opens the lock right there and decides (R14) must leave the black
    card behind: before the fix the card stayed set, so the hint said a card was on show, and a
    power cut (or leaving a later lock) brought the black card back on the screen."""
    rng = Black()
    c = Kept(settings={"referee": True, "black": 1, "redraws": 0}, rng=rng)
    rng.c = c
    c.press("DRAW", 0)
    c.press("DRAW", 0)
    assert c.view().screen == "card" and c.view().led == "black" and c.action.state == "referee"
    c.long("STOP", 0)
    for k in "RHRH":  # the default code, compared once its try is counted (settle)
        c.press(KEY[k], 0)
        c.settle()
    assert c.view().screen == "refmenu"
    for _ in range(20):  # the menu's rows, down to the decision
        if any(x.startswith(">" + decision) for x in c.view().lines):
            break
        c.press("HELP", 0)
    assert any(x.startswith(">" + decision) for x in c.view().lines), c.view().lines
    c.press("DRAW", 0)
    assert c.view().screen == after and c.action.state == after
    assert c.play.card is None and play_state(c)["screen"] == after
    rebooted = reboot(c)
    assert rebooted.view().screen == after and rebooted.view().led in (None, "black")
    c.long("STOP", 1000)                      # the lock again, and cancelled
    c.long("STOP", 1000)
    assert c.view().screen == after


def test_the_lock_search_finds_the_referee_functions_with_the_code():
    """The same search, allowed to enter the code, reaches the referee menu and its functions
    at once: the checks above are not vacuous."""
    settings = dict(config.defaults(), referee=True, black=1, redraws=0)
    stats, found, _ = explore(settings, 7, cap=20000, code_known=True)
    kinds = set(b.split(" ")[0] + " " + b.split(" ")[1] for bad, _ in found for b in bad)
    assert "referee screen" in kinds and "referee function" in kinds, kinds
    assert any("black passed" in b for bad, _ in found for b in bad)


def test_during_a_lockout_even_the_code_is_refused():
    """The search allowed to enter the code, from a lockout due at boot (3 wrong tries counted,
    30 s): it reaches the referee menu only on paths that let the wait run out first (a
    clock jump of 31 or 61 s), never while it runs -- the code entered then is refused and
    counted as refused."""
    settings = dict(config.defaults(), referee=True, black=1, redraws=0, lock_fails=3)
    stats, found, seen = explore(settings, 7, cap=40000, code_known=True)
    problems = [b for bad, _ in found for b in bad]
    assert "referee screen refmenu" in problems                  # the search gets there ...
    assert not [b for b in problems if "lockout" in b or "logged" in b or "forgotten" in b
                or "counted" in b]
    for bad, path in found:
        if "referee screen refmenu" in bad:                      # ... only after the wait
            assert any(ev[0] == "tick" and ev[1] > 30000 for ev in unroll(path)), unroll(path)
    assert any(k[0] == "message" and "Locked" in " ".join(k[9][1]) for k in seen)
