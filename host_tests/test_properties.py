"""Hypothesis properties of the engine: R8 caps, no negative counts, successes never fall,
only cards in the deck are drawn, and R26 agrees with a Monte Carlo run of the engine."""
import math
import random

from hypothesis import given, settings, strategies as st

from carddraw.deck import COLOURS, Deck, build_deck
from carddraw.action import Action, RuleError
from carddraw.odds import success_chance, action_chance
from carddraw import saved

counts = st.integers(min_value=0, max_value=60)
setting = st.integers(min_value=0, max_value=9)


@st.composite
def actions(draw):
    skill = draw(st.sampled_from(["surgery", "repair", "scan"]))
    ranks = draw(st.integers(min_value=0 if skill == "scan" else 1, max_value=9))
    return Action(skill=skill, ranks=ranks, helpers=draw(setting), bonus=draw(setting),
                  green=draw(setting), yellow=draw(setting), red=draw(setting), black=draw(setting),
                  needed=draw(st.integers(1, 9)), auto=draw(setting), redraws=draw(setting),
                  referee=draw(st.booleans()))


def assert_settled(c):
    assert len(c) == 4 and min(c) >= 0          # no count negative
    assert c[1] <= 3 and c[2] <= 3              # R8


@given(counts, counts, counts, counts)
def test_r8_any_deck_settles_and_keeps_its_weight(g, y, r, b):
    c = Deck(g, y, r, b).counts()
    assert_settled(c)
    assert c[0] == g
    # R8 swaps 3 yellow for 1 red and 3 red for 1 black: this weight is conserved
    assert c[1] + 3 * c[2] + 9 * c[3] == y + 3 * r + 9 * b


@given(setting, setting, setting, setting, setting, setting, setting)
def test_r2_r8_built_decks_are_settled(ranks, helpers, bonus, g, y, r, b):
    assert_settled(build_deck(ranks, helpers, bonus, g, y, r, b).counts())


OPS = ["draw", "draw", "draw", "accept", "accept", "redraw", "stop", "helper_leaves",
       "referee_continue", "referee_end", "adjust"]


@settings(max_examples=150, deadline=None)
@given(actions(), st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 10 ** 6),
                                     st.sampled_from(COLOURS), st.integers(-9, 9)),
                           max_size=60))
def test_random_play_keeps_every_invariant(a, ops):
    for op, n, colour, delta in ops:
        before = saved.to_dict(a)
        rng = random.Random(n)
        try:
            if op in ("draw", "redraw"):
                got = getattr(a, op)(rng)
                # a drawn colour had a non-zero count in the deck it came from
                assert before["deck"][COLOURS.index(got)] > 0
                assert a.pending == got
            elif op == "adjust":
                a.adjust(colour, delta)
            else:
                getattr(a, op)()
        except RuleError:
            assert saved.to_dict(a) == before  # a forbidden operation changes nothing
            continue
        assert_settled(a.deck.counts())
        assert a.successes >= before["successes"]              # successes never fall
        assert a.complications >= before["complications"]
        assert 0 <= a.redraws_left <= a.redraws
        assert 0.0 <= success_chance(a) <= 1.0
        # the saved form round-trips exactly
        assert saved.to_dict(saved.from_dict(saved.to_dict(a))) == saved.to_dict(a)


def monte_carlo(a, runs, rng):
    """Play copies of `a` to the end: draw and accept, no redraws, no referee pass (R26)."""
    wins = 0
    start = saved.to_dict(a)
    for _ in range(runs):
        b = saved.from_dict(start)
        b.referee = False
        while b.state == "active":
            if b.deck.total() == 0:
                break
            b.draw(rng)
            b.accept()
        wins += b.state == "succeeded"
    return wins / runs


@settings(max_examples=25, deadline=None)
@given(actions(), st.integers(0, 2 ** 32))
def test_r26_exact_chance_agrees_with_monte_carlo(a, seed):
    p, undecided, steps = action_chance(a)
    assert 0.0 <= p <= 1.0 and undecided < 1e-4 and steps <= 5000
    runs = 3000
    estimate = monte_carlo(a, runs, random.Random(seed))
    se = max(math.sqrt(p * (1 - p) / runs), 1.0 / runs)
    assert abs(estimate - p) <= 4 * se + undecided, (a.deck.counts(), p, estimate)


def test_r26_steps_bounded_over_every_deck_shape():
    """Every needed x auto x ranks the device allows, on the leanest and the largest decks."""
    worst = 0
    for needed in range(1, 10):
        for auto in (0, 9):
            for kw in (dict(skill="scan", ranks=0), dict(ranks=9, helpers=9, bonus=9, green=9),
                       dict(ranks=1, yellow=9, red=9), dict(ranks=9, helpers=9, bonus=9, green=9,
                                                            yellow=9, red=9, black=9)):
                a = Action(needed=needed, auto=auto, **kw)
                p, undecided, steps = action_chance(a)
                assert undecided < 1e-4
                worst = max(worst, steps)
    assert worst <= 5000
