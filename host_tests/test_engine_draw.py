"""The engine against docs/rules.md, one or more tests per rule: drawing and the action (R9-R20,
R22, R24); the deck and the odds are in test_engine.py."""
import pytest

from conftest import SeqRng
from carddraw.deck import GREEN, YELLOW, RED, BLACK, COLOURS, Deck
from carddraw.action import Action, RuleError
from carddraw.odds import success_chance
from carddraw import saved


def state_of(a):
    return saved.to_dict(a)


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
