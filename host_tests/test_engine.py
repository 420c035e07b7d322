"""The engine against docs/rules.md, one or more tests per rule: the deck (R1-R8) and the odds
(R25, R26) here, drawing and the action (R9-R19, R22, R24) in test_engine_draw.py."""
import pytest

from conftest import SeqRng
from carddraw.deck import GREEN, YELLOW, RED, BLACK, COLOURS, Deck, build_deck
from carddraw.action import Action
from carddraw.odds import next_card, success_chance, action_chance, chance


# -- deck: R1-R8 ------------------------------------------------------------------------------
def test_r1_four_colours_are_strings():
    assert (GREEN, YELLOW, RED, BLACK) == ("green", "yellow", "red", "black")
    assert COLOURS == (GREEN, YELLOW, RED, BLACK)


def test_r2_base_deck():
    assert build_deck(0).counts() == (2, 2, 1, 0)


@pytest.mark.parametrize("ranks", range(10))
def test_r3_one_green_per_rank(ranks):
    assert build_deck(ranks).counts() == (2 + ranks, 2, 1, 0)


def test_r3_rank_zero_only_for_scanning():
    assert Action(skill="scan", ranks=0).deck.counts() == (2, 2, 1, 0)
    for skill in ("surgery", "repair"):
        with pytest.raises(ValueError, match="ranks must be from 1 to 9 for"):
            Action(skill=skill, ranks=0)


@pytest.mark.parametrize("helpers,ranks,greens", [(0, 2, 4), (1, 2, 5), (2, 2, 6), (5, 2, 6), (3, 0, 2)])
def test_r4_assistants_capped_by_ranks(helpers, ranks, greens):
    assert build_deck(ranks, helpers=helpers).counts()[0] == greens


def test_r5_bonus_greens():
    assert build_deck(1, bonus=1).counts() == (4, 2, 1, 0)  # Steel Viscera


def test_r6_difficulty_cards_of_each_colour():
    assert build_deck(1, green=1, yellow=1, red=1, black=2).counts() == (4, 3, 2, 2)


def test_r7_environment_adds_cards_and_successes_needed():
    a = Action(skill="repair", ranks=1, yellow=1, red=1, needed=3)
    assert a.deck.counts() == (3, 3, 2, 0) and a.needed == 3
    with pytest.raises(ValueError, match="needed"):
        Action(ranks=1, needed=0)


def test_r8_compounding_example_from_rules():
    # base + 6 difficulty yellow = 8 yellow -> 5 -> 2 yellow, and red 1 + 2 = 3
    assert build_deck(0, yellow=6).counts() == (2, 2, 3, 0)


def test_r8_red_compounds_into_black():
    assert build_deck(0, red=3).counts() == (2, 2, 1, 1)
    assert Deck(0, 10, 3, 0).counts() == (0, 1, 3, 1)  # 10y -> 1y +3r; 6r -> 3r +1b


def test_r8_applies_after_every_change():
    d = Deck(1, 3, 3, 0)
    d.add(YELLOW)
    assert d.counts() == (1, 1, 1, 1)


@pytest.mark.parametrize("kwargs,word", [
    ({"ranks": 10}, "ranks"), ({"ranks": -1}, "ranks"), ({"ranks": 1, "helpers": 10}, "helpers"),
    ({"ranks": 1, "bonus": 99}, "bonus"), ({"ranks": 1, "black": 10}, "black"),
    ({"ranks": 1.5}, "ranks"), ({"ranks": "2"}, "ranks"), ({"ranks": True}, "ranks"),
])
def test_bad_deck_parameters_name_the_parameter_and_range(kwargs, word):
    with pytest.raises(ValueError) as e:
        build_deck(**kwargs)
    assert word in str(e.value) and "0" in str(e.value) and "9" in str(e.value)


@pytest.mark.parametrize("kwargs,word", [
    ({"skill": "cooking", "ranks": 1}, "skill"), ({"ranks": 1, "needed": 10}, "needed"),
    ({"ranks": 1, "auto": -1}, "auto"), ({"ranks": 1, "redraws": 10}, "redraws"),
    ({"ranks": 1, "referee": "yes"}, "referee"), ({"ranks": 1, "yellow": 10}, "yellow"),
])
def test_bad_action_parameters_name_the_parameter(kwargs, word):
    with pytest.raises(ValueError, match=word):
        Action(**kwargs)


def test_deck_rejects_bad_colour_and_negative_counts():
    with pytest.raises(ValueError, match="colour must be green, yellow, red or black"):
        Deck(1, 1, 1, 0).add("purple")
    with pytest.raises(ValueError, match="yellow"):
        Deck(1, -1, 0, 0)
    d = Deck(1, 1, 1, 0)
    with pytest.raises(ValueError):
        d.add(RED, -2)
    assert d.counts() == (1, 1, 1, 0)


# -- odds: R25, R26 ---------------------------------------------------------------------------
def test_r25_next_card_odds():
    assert next_card((3, 2, 1, 0)) == (0.5, 2 / 6, 1 / 6, 0.0)
    assert next_card((0, 0, 0, 0)) == (0.0, 0.0, 0.0, 0.0)


def test_r26_trivial_chances():
    assert success_chance(Action(ranks=1, black=1)) > 0
    a = Action(ranks=1)
    a.apply(GREEN)
    assert success_chance(a) == 1.0
    b = Action(ranks=1, black=1)
    b.apply(BLACK)
    assert success_chance(b) == 0.0
    c = Action(ranks=1)
    c.stop()
    assert success_chance(c) == 0.0


def test_r26_hand_computed_small_deck():
    # 1 green, 1 black, nothing else: a coin toss
    assert chance((1, 0, 0, 1), 1)[0] == pytest.approx(0.5)
    # 2 greens and 1 black, needing 2: 2/3 * 1/2
    assert chance((2, 0, 0, 1), 2)[0] == pytest.approx(1 / 3)
    # more greens needed than the deck holds
    assert chance((1, 3, 3, 0), 2)[0] == 0.0


def test_r26_recursive_reference_agrees():
    """A direct recursive evaluation (CPython only) gives the same number."""
    import functools

    @functools.lru_cache(maxsize=None)
    def p(g, y, r, b, s, auto_used, needed, auto, depth):
        if s >= needed:
            return 1.0
        total = g + y + r + b
        if total == 0 or depth > 400:
            return 0.0
        out = 0.0
        if g:
            bonus = 0 if auto_used else auto
            out += g / total * p(g - 1, y, r, b, s + 1 + bonus, True, needed, auto, depth + 1)
        if y + r:
            d = Deck(g, y + 1, r, b).counts()
            out += (y + r) / total * p(*d, s, auto_used, needed, auto, depth + 1)
        return out

    for kwargs in [dict(ranks=1), dict(ranks=2, helpers=1, red=1, needed=2), dict(ranks=3, auto=2, needed=4, black=1),
                   dict(skill="scan", ranks=0, yellow=3, red=2, needed=2)]:
        a = Action(**kwargs)
        expected = p(*a.deck.counts(), 0, False, a.needed, min(a.auto, a.ranks), 0)
        assert success_chance(a) == pytest.approx(expected, abs=2e-6)


def test_r26_pending_card_counts_as_applied():
    a = Action(ranks=1, redraws=1, needed=2)
    a.draw(SeqRng(0))
    pending = success_chance(a)
    a.accept()
    assert success_chance(a) == pytest.approx(pending)


def test_r26_tail_bound_and_steps_on_the_largest_deck():
    a = Action(skill="surgery", ranks=9, helpers=9, bonus=9, green=9, yellow=9, red=9, black=9,
               needed=9, auto=9)
    p, undecided, steps = action_chance(a)
    assert 0 < p < 1 and undecided < 1e-4 and steps <= 5000
    b = Action(skill="surgery", ranks=9, helpers=9, bonus=9, green=9, yellow=9, red=9, black=9,
               needed=9, auto=0)
    p, undecided, steps = action_chance(b)
    assert undecided < 1e-4 and steps <= 5000
