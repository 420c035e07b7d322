"""The engine against RULES.md, one or more tests per rule (R1-R19, R22, R24-R26)."""
import pytest

from conftest import SeqRng
from carddraw.deck import GREEN, YELLOW, RED, BLACK, COLOURS, Deck, build_deck
from carddraw.action import Action, RuleError
from carddraw.odds import next_card, success_chance, action_chance, chance
from carddraw import saved


def state_of(a):
    return saved.to_dict(a)


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
    with pytest.raises(ValueError, match="colour must be one of"):
        Deck(1, 1, 1, 0).add("purple")
    with pytest.raises(ValueError, match="yellow"):
        Deck(1, -1, 0, 0)
    d = Deck(1, 1, 1, 0)
    with pytest.raises(ValueError):
        d.add(RED, -2)
    assert d.counts() == (1, 1, 1, 0)


# -- drawing: R9-R16 -------------------------------------------------------------------------
def test_r9_draw_index_order_green_yellow_red_black():
    deck = (2, 2, 1, 1)
    expected = [GREEN, GREEN, YELLOW, YELLOW, RED, BLACK]
    for index, colour in enumerate(expected):
        a = Action(ranks=1, black=1, referee=True)
        a.deck = Deck(*deck)
        assert a.draw(SeqRng(index)) == colour
        assert a.pending == colour


def test_r9_draw_asks_for_the_deck_total():
    seen = []

    class Rng:
        def randrange(self, n):
            seen.append(n)
            return 0
    Action(ranks=2, helpers=1).draw(Rng())
    assert seen == [8]  # 5 green + 2 yellow + 1 red


def test_r10_green_is_a_success_and_leaves_the_deck():
    a = Action(ranks=1, needed=2)
    assert a.draw(SeqRng(0)) == GREEN
    assert a.accept() == "active"
    assert a.successes == 1 and a.deck.counts() == (2, 2, 1, 0) and a.draws == 1


def test_r11_automatic_successes_after_first_green_capped_by_ranks():
    a = Action(ranks=1, auto=3, needed=5)
    a.apply(YELLOW)
    assert a.successes == 0  # never before a green
    a.apply(GREEN)
    assert a.successes == 2  # 1 + min(3, 1)
    a.apply(GREEN)
    assert a.successes == 3  # applied once only


def test_r11_auto_can_complete_the_action():
    a = Action(ranks=3, auto=3, needed=4)
    assert a.apply(GREEN) == "succeeded" and a.successes == 4


def test_r12_yellow_stays_and_adds_a_yellow():
    a = Action(ranks=1)
    assert a.apply(YELLOW) == "active"
    assert a.deck.counts() == (3, 3, 1, 0) and a.complications == 0


def test_r12_fourth_yellow_compounds():
    a = Action(ranks=1, yellow=1)
    a.apply(YELLOW)
    assert a.deck.counts() == (3, 1, 2, 0)


def test_r13_red_is_a_complication_and_adds_a_yellow():
    a = Action(ranks=1)
    assert a.apply(RED) == "active"
    assert a.complications == 1 and a.deck.counts() == (3, 3, 1, 0)


def test_r14_black_without_referee_fails_at_once():
    a = Action(ranks=1, black=1)
    assert a.apply(BLACK) == "failed"
    assert a.deck.counts() == (3, 2, 1, 1)  # no card added
    with pytest.raises(RuleError):
        a.draw(SeqRng(0))


def test_r14_black_with_referee_continue_removes_the_black():
    a = Action(ranks=1, black=1, referee=True)
    assert a.apply(BLACK) == "referee"
    with pytest.raises(RuleError):
        a.draw(SeqRng(0))
    assert a.referee_continue() == "active"
    assert a.deck.counts() == (3, 2, 1, 0)


def test_r14_black_with_referee_end():
    a = Action(ranks=1, black=1, referee=True)
    a.apply(BLACK)
    assert a.referee_end() == "failed"
    with pytest.raises(RuleError):
        a.referee_continue()


def test_r14_referee_decision_only_after_a_black():
    a = Action(ranks=1, referee=True)
    with pytest.raises(RuleError, match="no black"):
        a.referee_continue()
    with pytest.raises(RuleError):
        a.referee_end()


def test_r15_redraw_replaces_pending_card_and_is_limited():
    a = Action(ranks=1, black=1, redraws=2)
    assert a.draw(SeqRng(6)) == BLACK
    assert a.redraw(SeqRng(5)) == RED       # the black went back; a redrawn card
    assert a.redraw(SeqRng(0)) == GREEN     # R15: a redraw may be spent on a redrawn card
    assert a.redraws_left == 0
    before = state_of(a)
    with pytest.raises(RuleError, match="no redraws left"):
        a.redraw(SeqRng(0))
    assert state_of(a) == before
    assert a.accept() == "succeeded" and a.draws == 1


def test_r15_result_applies_only_on_accept():
    a = Action(ranks=1, redraws=1)
    assert a.draw(SeqRng(5)) == RED
    assert a.complications == 0 and a.deck.counts() == (3, 2, 1, 0)
    a.accept()
    assert a.complications == 1


def test_r15_redraw_needs_a_pending_card():
    a = Action(ranks=1, redraws=1)
    with pytest.raises(RuleError, match="no card"):
        a.redraw(SeqRng(0))
    assert a.redraws_left == 1


def test_r16_stop_between_draws_only():
    a = Action(ranks=1, redraws=1)
    assert a.draw(SeqRng(3)) == YELLOW
    with pytest.raises(RuleError, match="accepted first"):
        a.stop()
    a.accept()
    assert a.stop() == "stopped"
    with pytest.raises(RuleError):
        a.draw(SeqRng(0))


def test_r17_success_when_successes_reach_needed():
    a = Action(ranks=2, needed=2)
    assert a.apply(GREEN) == "active"
    assert a.apply(GREEN) == "succeeded"
    with pytest.raises(RuleError, match="succeeded"):
        a.draw(SeqRng(0))


def test_r18_contributing_helper_takes_their_green():
    a = Action(ranks=2, helpers=3)          # 2 contribute
    assert a.deck.counts()[0] == 6
    a.helper_leaves()                       # 3 -> 2: still 2 contribute
    assert a.deck.counts()[0] == 6
    a.helper_leaves()                       # 2 -> 1: one green leaves
    assert a.deck.counts()[0] == 5 and a.helpers == 1


def test_r18_greens_never_below_zero_and_none_left_to_leave():
    a = Action(ranks=1, helpers=1)
    a.deck = Deck(0, 2, 1, 0)
    a.helper_leaves()
    assert a.deck.counts() == (0, 2, 1, 0)
    with pytest.raises(RuleError, match="no helper"):
        a.helper_leaves()


def test_r18_helper_cannot_leave_mid_draw():
    a = Action(ranks=1, helpers=1, redraws=1)
    a.draw(SeqRng(0))
    with pytest.raises(RuleError):
        a.helper_leaves()
    assert a.helpers == 1


def test_r19_referee_adjusts_then_r8():
    a = Action(ranks=1, referee=True)
    assert a.adjust(YELLOW, 2) == (3, 1, 2, 0)
    assert a.adjust(GREEN, -3) == (0, 1, 2, 0)


def test_r19_adjust_needs_a_referee_and_valid_input():
    a = Action(ranks=1)
    with pytest.raises(RuleError, match="referee"):
        a.adjust(RED, 1)
    r = Action(ranks=1, referee=True)
    with pytest.raises(ValueError, match="colour"):
        r.adjust("blue", 1)
    with pytest.raises(ValueError, match="delta"):
        r.adjust(RED, 10)
    with pytest.raises(RuleError, match="only 1 red"):
        r.adjust(RED, -2)
    assert r.deck.counts() == (3, 2, 1, 0)


def test_r20_deck_makeup_visible_before_every_draw():
    a = Action(ranks=1)
    for colour in (YELLOW, RED, GREEN):
        counts = a.deck.counts()
        assert len(counts) == 4 and sum(counts) == a.deck.total()
        a.apply(colour)


def test_r22_empty_deck_cannot_be_drawn():
    a = Action(ranks=1, referee=True)
    for colour, n in zip(COLOURS, a.deck.counts()):
        if n:
            a.adjust(colour, -n)
    before = state_of(a)
    with pytest.raises(RuleError, match="empty"):
        a.draw(SeqRng(0))
    assert state_of(a) == before
    assert success_chance(a) == 0.0


def test_rule_errors_leave_the_action_unchanged():
    a = Action(ranks=1, redraws=1)
    a.draw(SeqRng(0))
    before = state_of(a)
    for op in (lambda: a.draw(SeqRng(0)), a.stop, a.helper_leaves, a.referee_end,
               lambda: a.apply(GREEN)):
        with pytest.raises(RuleError):
            op()
        assert state_of(a) == before


def test_apply_refuses_a_colour_the_deck_lacks():
    a = Action(ranks=1)
    with pytest.raises(RuleError, match="no black"):
        a.apply(BLACK)
    assert a.draws == 0


@pytest.mark.parametrize("skill,expected", [("surgery", "surgery"), ("Repair", "repair"),
                                            ("scan", "scan"), ("scanning", "scan")])
def test_r24_three_uses_same_rules(skill, expected):
    a = Action(skill=skill, ranks=1)
    assert a.skill == expected and a.deck.counts() == (3, 2, 1, 0)


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
