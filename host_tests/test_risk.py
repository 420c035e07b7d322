"""Risk beside the chance: the exact chance of at least one red card (a
complication, R13) and of a black card before success (R14), under R26's model: the lead
draws until success or a black, spends no redraws, no referee lets a black pass. Checked by
hand, by an independent enumeration, against Monte Carlo, in the MicroPython VM; and one
rounding rule wherever a chance is shown (device lines, large digits, odds and play tools)."""
import math
import os
import re
import random
import subprocess
import sys

from hypothesis import given, settings, strategies as st

from conftest import ROOT, SeqRng
from carddraw import config, render, saved
from carddraw.action import Action
from carddraw.controller import Controller
from carddraw.texts import pct, risk_line
from carddraw.deck import COLOURS, settle
from carddraw.odds import (MAX_STEPS, action_chance, action_risk, fmt_chance, next_card, risk,
                           success_chance)
from pick import Pick  # noqa: E402  (tools/vmlib)

# the largest deck the device can build (tools/benchmarks/oddsbench.py's LARGEST)
LARGEST = dict(skill="surgery", ranks=9, helpers=9, bonus=9, green=9, yellow=9, red=9, black=9,
               needed=9)
# this deck's chance to succeed, exactly 4.2e-5, was shown as "0.0%"
LONG_SHOT = dict(ranks=9, needed=9, yellow=9, red=9, black=9)
# the common task (surgery, ranks 2, one helper, one extra red)
COMMON = dict(ranks=2, helpers=1, red=1)


def enumerate_risk(counts, greens_needed, cutoff=1e-13):
    """Every path of draws, state by state, independent of odds.py's sweep: state (deck,
    greens still needed, a red seen) -> probability. -> (success, red, black, left over)."""
    live = {(settle(*counts), greens_needed, False): 1.0}
    won = red = black = 0.0
    while sum(live.values()) > cutoff:
        nxt = {}
        for ((g, y, r, b), need, seen), p in live.items():
            total = g + y + r + b
            if total == 0:
                continue                     # R22: an empty deck ends nothing
            black += p * b / total           # R14, no referee
            if r and not seen:
                red += p * r / total
            moves = [((g - 1, y, r, b), need - 1, seen, g),       # R10
                     (settle(g, y + 1, r, b), need, seen, y),     # R12, R8
                     (settle(g, y + 1, r, b), need, True, r)]     # R13, R8
            for deck, left, s, n in moves:
                if not n:
                    continue
                if left == 0:
                    won += p * n / total
                    continue
                key = (deck, left, s)
                nxt[key] = nxt.get(key, 0.0) + p * n / total
        live = nxt
    return won, red, black, sum(live.values())


# -- exact values --------------------------------------------------------------------------------
def test_by_hand_on_decks_small_enough_to_count():
    # 1 green, 1 black: a coin toss, and no red can come
    assert risk((1, 0, 0, 1), 1)[:3] == (0.5, 0.0, 0.5)
    # 3 green, 1 black, 2 needed: 3/4 * 2/3 = 1/2 either way
    won, red, black, undecided, _ = risk((3, 0, 0, 1), 2)
    assert math.isclose(won, 0.5) and red == 0.0 and math.isclose(black, 0.5)
    # 1 green, 1 red, 1 black: a red can only be the first card, so exactly 1/3 (R13)
    won, red, black, undecided, _ = risk((1, 0, 1, 1), 1)
    assert math.isclose(red, 1 / 3, rel_tol=1e-12)
    assert abs(won + black - 1) <= undecided + 1e-12
    # only blacks: a black at once; only greens but too few: the deck runs dry (R22), neither
    assert risk((0, 0, 0, 1), 1)[:3] == (0.0, 0.0, 1.0)
    assert risk((2, 0, 0, 0), 3)[:3] == (0.0, 0.0, 0.0)
    # nothing left to draw: no risk
    assert risk((5, 2, 1, 0), 0)[:3] == (1.0, 0.0, 0.0)


DECKS = [((2, 2, 1, 0), 1), ((2, 2, 1, 0), 2), ((1, 0, 1, 1), 1), ((4, 3, 3, 1), 3),
         ((1, 1, 0, 0), 1), ((3, 2, 1, 0), 4), ((0, 2, 1, 0), 1), ((5, 2, 2, 0), 1),
         ((6, 1, 3, 2), 5)]


def test_agrees_with_an_enumeration_of_every_path():
    for counts, needed in DECKS:
        won, red, black, undecided, steps = risk(counts, needed)
        e_won, e_red, e_black, _ = enumerate_risk(counts, needed)
        tol = undecided + 1e-9
        assert abs(won - e_won) <= tol, (counts, needed, won, e_won)
        assert abs(red - e_red) <= tol, (counts, needed, red, e_red)
        assert abs(black - e_black) <= tol, (counts, needed, black, e_black)
        assert won == action_chance_of(counts, needed)


def action_chance_of(counts, needed):
    from carddraw.odds import chance
    return chance(counts, needed)[0]


def test_the_chance_beside_the_risks_is_success_chance_exactly():
    for kw in (LARGEST, LONG_SHOT, COMMON, dict(skill="scan", ranks=0, needed=3, auto=2)):
        a = Action(**kw)
        assert action_risk(a)[0] == success_chance(a)


def test_a_pending_card_applies_first_as_r26_does():
    a = Action(ranks=2, helpers=1, red=1)               # deck (5, 2, 2, 0)
    a.draw(SeqRng(7))                                   # index 7: a red, pending (R15)
    chance, red, black, _, _ = action_risk(a)
    assert red == 1.0 and chance == success_chance(a)   # the red is drawn: a complication
    b = Action(ranks=2, helpers=1, red=1)
    b.draw(SeqRng(0))                                   # a green: no red in it
    assert action_risk(b)[1] < action_risk(Action(**COMMON))[1]
    c = Action(ranks=1, black=1)
    c.draw(SeqRng(c.deck.total() - 1))                  # a black, pending
    assert action_risk(c)[:3] == (0.0, 0.0, 1.0)


def test_a_decided_action_has_no_risk_left():
    a = Action(ranks=2)
    a.apply("green")
    assert a.state == "succeeded" and action_risk(a)[:3] == (1.0, 0.0, 0.0)
    b = Action(ranks=2)
    b.stop()
    assert action_risk(b)[:3] == (0.0, 0.0, 0.0)


def test_steps_within_the_budget_on_every_deck_shape():
    """The budget: under 5,000 basic steps on the largest deck; every (j, m) visited counts,
    in both the chance's sweep and the no-red-yet sweep beside it."""
    worst = 0
    for needed in range(1, 10):
        for auto in (0, 9):
            for kw in (dict(skill="scan", ranks=0), dict(ranks=9, helpers=9, bonus=9, green=9),
                       dict(ranks=1, yellow=9, red=9), dict(LARGEST, needed=needed),
                       dict(ranks=1, black=9, yellow=9)):
                a = Action(**dict(kw, needed=needed, auto=auto))
                _, red, black, undecided, steps = action_risk(a)
                assert undecided < 1e-4 and 0.0 <= red <= 1.0 and 0.0 <= black <= 1.0
                assert steps >= action_chance(a)[2]     # the chance's own steps are among them
                worst = max(worst, steps)
    assert 0 < worst < MAX_STEPS


# -- Monte Carlo ---------------------------------------------------------------------------------
@st.composite
def actions(draw):
    skill = draw(st.sampled_from(["surgery", "repair", "scan"]))
    ranks = draw(st.integers(min_value=0 if skill == "scan" else 1, max_value=9))
    s = st.integers(0, 9)
    a = Action(skill=skill, ranks=ranks, helpers=draw(s), bonus=draw(s), green=draw(s),
               yellow=draw(s), red=draw(s), black=draw(s), needed=draw(st.integers(1, 9)),
               auto=draw(s))
    rng = random.Random(draw(st.integers(0, 2 ** 20)))
    for _ in range(draw(st.integers(0, 3))):          # sometimes from the middle of an action
        if a.state != "active":
            break
        a.draw(rng)
        a.accept()
    return a


def simulate(a, runs, rng):
    """Play copies of `a` to the end as R26 assumes. -> (share with a red, share ended by a
    black); an action already decided draws nothing more."""
    if a.state != "active":
        return 0.0, 0.0
    start = saved.to_dict(a)
    reds = blacks = 0
    for _ in range(runs):
        b = saved.from_dict(start)
        b.referee = False
        before = b.complications
        while b.state == "active" and b.deck.total():
            b.draw(rng)
            b.accept()
        reds += b.complications > before
        blacks += b.state == "failed"
    return reds / runs, blacks / runs


@settings(max_examples=30, deadline=None)
@given(actions(), st.integers(0, 2 ** 32))
def test_risks_agree_with_monte_carlo(a, seed):
    _, red, black, undecided, _ = action_risk(a)
    runs = 2000
    got_red, got_black = simulate(a, runs, random.Random(seed))
    for p, got in ((red, got_red), (black, got_black)):
        se = max(math.sqrt(p * (1 - p) / runs), 1.0 / runs)   # the sample's standard error
        assert abs(got - p) <= 4.5 * se + undecided, (a.deck.counts(), p, got)


def test_the_common_task_against_a_long_simulation():
    # issue 11: surgery, ranks 2, 1 helper, one extra red: 99.5% to succeed hid a 29% risk
    for kw in (COMMON, dict(LARGEST, auto=0)):
        a = Action(**kw)
        _, red, black, undecided, _ = action_risk(a)
        runs = 20000
        got_red, got_black = simulate(a, runs, random.Random(11))
        for p, got in ((red, got_red), (black, got_black)):
            assert abs(got - p) <= 4.5 * math.sqrt(p * (1 - p) / runs) + undecided, (kw, p, got)
    assert fmt_chance(action_risk(Action(**COMMON))[1], 0) == "29%"


# -- the MicroPython VM --------------------------------------------------------------------------
VM_CASES = [LARGEST, LONG_SHOT, COMMON, dict(skill="scan", ranks=0, needed=4, auto=3, black=2)]


def test_the_risk_code_runs_in_micropython_with_the_same_figures(vm):
    got = vm("from carddraw.action import Action\n"
             "from carddraw.odds import action_risk, fmt_chance\n"
             "RESULT = []\n"
             "for kw in %r:\n"
             "    c, r, b, u, n = action_risk(Action(**kw))\n"
             "    RESULT.append([c, r, b, n, fmt_chance(r, 0), fmt_chance(b, 0)])\n" % VM_CASES)
    for kw, (c, r, b, n, red_text, black_text) in zip(VM_CASES, got):
        want = action_risk(Action(**kw))
        for x, y in zip((c, r, b), want[:3]):
            assert math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12), kw
        assert n == want[4]
        assert [red_text, black_text] == [fmt_chance(want[1], 0), fmt_chance(want[2], 0)]


def test_the_active_screen_is_the_same_in_micropython(vm):
    for kw in (COMMON, LONG_SHOT):
        v = device(**kw).view()
        got = vm("from carddraw import config\n"
                 "from carddraw.controller import Controller\n"
                 "s = config.defaults()\n"
                 "s.update(%r)\n"
                 "c = Controller(settings=s, now_ms=0)\n"
                 "c.press('DRAW', 0)\n"
                 "v = c.view()\n"
                 "RESULT = [v.screen, v.lines, v.picture.chance, list(v.picture.foot)]\n" % kw)
        assert got == [v.screen, list(v.lines), v.picture.chance, list(v.picture.foot)]


# -- one rounding rule ---------------------------------------------------------------------------
WHOLE = [(0.0, "0%"), (1e-9, "<1%"), (0.00499, "<1%"), (0.005, "1%"), (0.294, "29%"),
         (0.995, ">99%"), (1 - 1e-12, ">99%"), (1.0, "100%")]


def test_whole_percents_follow_the_same_rule(vm):
    assert [fmt_chance(p, 0) for p, _ in WHOLE] == [text for _, text in WHOLE]
    got = vm("from carddraw.odds import fmt_chance\nRESULT = [fmt_chance(p, 0) for p in %r]\n"
             % [p for p, _ in WHOLE])
    assert got == [text for _, text in WHOLE]


def risks(line):
    """The two risks a risk line says, "Red 29% Black<1%" -> ("29%", "<1%")."""
    m = re.match(r"^Red ?(\S+%) ?Black ?(\S+%)$", line)
    assert m, line
    return m.groups()


def test_the_risk_line_always_fits_the_screen():
    for red in (0.0, 1e-9, 0.5, 1 - 1e-9, 1.0):
        for black in (0.0, 1e-9, 0.5, 1 - 1e-9, 1.0):
            line = risk_line(red, black)
            assert len(line) <= config.COLS, line
            assert risks(line) == (fmt_chance(red, 0), fmt_chance(black, 0))
    assert risk_line(0.294, 0.03) == "Red 29% Black 3%"


def device(**kw):
    s = config.defaults()
    s.update(kw)
    rng = Pick()
    c = Controller(settings=s, rng=rng, now_ms=0)
    rng.c = c
    c.press("DRAW", 0)                                   # set-up -> the first draw's screen
    assert c.view().screen == "active"
    return c


def test_a_possible_long_shot_never_shows_as_zero_on_the_device():
    c = device(**LONG_SHOT)
    a = c.action
    assert 0 < success_chance(a) < 5e-5
    v = c.view()
    assert v.lines[2] == "Chance   <0.1%" == "Chance  " + pct(success_chance(a))
    assert v.picture.chance == "<0.1%"
    assert pct(1 - 1e-9) == ">99.9%" and pct(1.0) == "  100%" and pct(0.0) == "    0%"
    # R25: a next card that can come never shows as 0% (the tools' and the phone's form)
    assert [fmt_chance(p, 0) for p in next_card((997, 1, 1, 1))] == [">99%", "<1%", "<1%", "<1%"]
    assert [fmt_chance(p, 0) for p in next_card((1, 0, 0, 0))] == ["100%", "0%", "0%", "0%"]


def big_digit_squares(chance, x0, x1):
    """The 2x2 squares the large digits of `chance` light between x0 and x1."""
    canvas = Recorder()
    render.DeckPicture("surgery", "Surgery", (1, 1, 1, 1), chance, (), ()).draw(canvas)
    return sorted(c[1:3] for c in canvas.calls
                  if c[0] == "fill_rect" and c[3] == 2 and x0 <= c[1] < x1 and 33 <= c[2] < 47)


class Recorder:
    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *args: self.calls.append((name,) + args)

    def text(self, s, x, y, c=1):  # lit unless told, as framebuf's
        self.calls.append(("text", s, x, y, c))


def glyph_squares(ch, x):
    at = 5 * render._BIG.index(ch)
    return sorted((x + 2 * i, 33 + 2 * r) for i in range(5) for r in range(8)
                  if render._GLYPHS[at + i] >> r & 1)


def test_the_large_digits_draw_less_than_and_greater_than():
    less = big_digit_squares("<0.1%", 0, 10)
    more = big_digit_squares(">99.9%", 0, 10)
    assert less == glyph_squares("<", 0) and more == glyph_squares(">", 0)
    assert less and more and less != more and less != big_digit_squares("0.1%", 0, 10)


def test_the_active_screen_shows_the_risks_beside_the_chance():
    c = device(**COMMON)
    a = c.action
    chance, red, black, _, _ = action_risk(a)
    line = risk_line(red, black)
    v = c.view()
    assert line == "Red 29% Black<1%"                  # issue 11: 99.6% hid a 29% risk
    assert line in v.lines and v.lines[2] == "Chance  " + pct(chance)
    assert v.picture.chance == fmt_chance(chance) and v.picture.foot[0] == line   # under the large digits
    assert len(v.lines) <= 8 and all(len(x) <= 16 for x in v.lines)
    canvas = Recorder()
    render.render(v, canvas, 80)
    assert ("text", line, 0, 48, 1) in canvas.calls


def test_the_risk_line_follows_each_draw():
    c = device(**COMMON)
    for colour in ("red", "yellow", "red"):
        c.rng.want.append(colour)
        c.press("DRAW", 0)
        assert c.view().screen == "card"                         # drawn, applied (no redraws)
        c.press("DRAW", 0)                                       # back to the deck
        v = c.view()
        assert v.screen == "active"
        _, red, black, _, _ = action_risk(c.action)
        line = risk_line(red, black)
        assert line in v.lines and v.picture.foot[0] == line


def odds_tool(*args):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "odds.py"), *args],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def play_tool(*args):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "play.py"), *args],
                          capture_output=True, text=True, cwd=ROOT, input="s\n")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_device_and_tools_show_the_same_text_for_the_same_deck():
    for kw in (LONG_SHOT, COMMON, dict(ranks=3, helpers=1, black=2, needed=2)):
        v = device(**kw).view()
        chance = v.picture.chance
        comp, blk = risks(v.picture.foot[0])              # "Red 29% Black<1%"
        args = [x for k, n in kw.items() for x in ("--" + k, str(n))]
        out = odds_tool(*args)
        assert "chance to succeed: %s " % chance in out
        assert "complication (a red card): %s" % comp in out
        assert "black card before success: %s" % blk in out
        first = play_tool(*args).splitlines()[1]
        assert first.endswith("chance to succeed: %s, complication %s, black %s"
                              % (chance, comp, blk)), first
