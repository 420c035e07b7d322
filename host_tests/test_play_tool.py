"""tools/play.py, one action played in the terminal, run as a user would run it."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from carddraw.action import Action
from carddraw.rng import Rng
from carddraw.playscreens import words
from carddraw.odds import action_risk, fmt_chance, success_chance

TOOL = os.path.join(ROOT, "tools", "play.py")


def run(*args, answers=""):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, cwd=ROOT,
                          input=answers)


def test_help_is_plays_own():
    out = run("--help").stdout
    assert out.startswith("usage: play ")
    assert "--auto-draw" in out and "--seed" in out
    assert "d to draw, s to stop" in out.replace("\n", " ")
    assert "--table" not in out and "--plot" not in out


@pytest.mark.parametrize("args,words_", [
    (["--plot", "x.png"], ["play: ", "--plot", "play --help"]),
    (["--table"], ["play: ", "--table"]),
    (["--ranks", "12"], ["play: ", "--ranks", "0 to 9"]),
    (["--ranks", "0"], ["play: ", "1 to 9", "scan"]),
    (["--seed", "-1"], ["play: ", "--seed", "from 0 to 999999999, not -1"]),
    (["--seed", "1000000000"], ["play: ", "--seed", "from 0 to 999999999, not 1000000000"]),
    (["--seed", "x"], ["play: ", "--seed", "whole number"]),
])
def test_bad_argument_one_line_exit_2_in_plays_name(args, words_):
    done = run(*args)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr.count("\n") == 1, done.stderr
    assert "odds:" not in done.stderr
    for word in words_:
        assert word in done.stderr


def expected_cards(seed, **settings):
    """The cards the engine draws on the device's generator seeded as the bench's `seed N`,
    when every draw is accepted (R9-R14)."""
    a = Action(**settings)
    rng = Rng(seed)
    cards = []
    while a.state == "active":
        cards.append(a.draw(rng))
        a.accept()
    return cards, a.state


@pytest.mark.parametrize("skill,ranks", [("surgery", 2), ("repair", 1), ("scan", 0)])
def test_auto_draw_plays_to_the_end_in_the_skills_own_words(skill, ranks):
    # R24: each card's result in the firmware's words for this skill
    cards, state = expected_cards(11, skill=skill, ranks=ranks, needed=3, black=1)
    done = run("--skill", skill, "--ranks", str(ranks), "--needed", "3", "--black", "1",
               "--seed", "11", "--auto-draw")
    assert done.returncode == 0, done.stderr
    lines = [l for l in done.stdout.splitlines() if re.match(r"draw \d+:", l)]
    assert len(lines) == len(cards)
    for n, (line, colour) in enumerate(zip(lines, cards), 1):
        assert line.startswith("draw %d: %s" % (n, colour.upper()))
        assert line.endswith(words(skill, colour))
    assert done.stdout.splitlines()[0].startswith(skill.capitalize())
    assert done.stdout.splitlines()[-1].startswith("outcome: %s" % state)
    assert "?" not in done.stdout  # no questions asked


def test_each_step_shows_deck_and_chance_then_asks_and_a_stop_ends_it():
    # once, with --needed 9 it drew on at 0% until a black; now the lead may stop
    done = run("--ranks", "2", "--needed", "9", "--seed", "4", answers="d\ns\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    a = Action(ranks=2, needed=9)
    assert out[1].startswith("deck: 4 green, 2 yellow, 1 red, 0 black")
    _, red, black, _, _ = action_risk(a)
    assert out[1].endswith("chance to succeed: %s, complication %s, black %s" % (
        fmt_chance(success_chance(a)), fmt_chance(red, 0), fmt_chance(black, 0)))
    assert out[2] == "draw or stop? [d/s] d"
    assert out.count("draw or stop? [d/s] s") == 1
    assert sum(l.startswith("draw 1:") for l in out) == 1 and not any(l.startswith("draw 2:") for l in out)
    assert out[-1] == "outcome: stopped after 1 draw: a failed attempt, this task cannot be tried again today"


def test_end_of_input_stops_before_any_draw():
    done = run("--ranks", "2")
    assert done.returncode == 0
    assert "(end of input: stop)" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("outcome: stopped after 0 draws")


def test_a_bad_answer_gets_one_line_and_the_question_again():
    done = run("--ranks", "2", "--seed", "1", answers="x\nDRAW\ns\n")
    out = done.stdout.splitlines()
    i = out.index("draw or stop? [d/s] x")
    assert out[i + 1] == "answer d to draw or s to stop, not 'x'"
    assert out[i + 2] == "draw or stop? [d/s] DRAW"
    assert out[i + 3] == "answer d to draw or s to stop, not 'DRAW'"
    assert out[i + 4] == "draw or stop? [d/s] s"
    assert "outcome: stopped after 0 draws" in out[-1]


def test_answers_drive_the_same_cards_as_auto_draw():
    cards, state = expected_cards(5, ranks=1, needed=2, black=1)
    done = run("--needed", "2", "--black", "1", "--seed", "5", answers="d\n" * len(cards))
    drawn = [l.split()[2].lower() for l in done.stdout.splitlines() if re.match(r"draw \d+:", l)]
    assert drawn == cards and done.stdout.splitlines()[-1].startswith("outcome: " + state)


def test_redraws_are_offered_and_spent_as_the_lead_answers():
    # R15: with a redraw left, the lead is asked to accept or redraw
    done = run("--ranks", "2", "--redraws", "1", "--seed", "2", answers="d\nr\n")
    out = done.stdout.splitlines()
    assert "accept or redraw? [a/r] r" in out
    assert any(l.startswith("redraw (0 left): draw 1:") for l in out)
    assert out.count("accept or redraw? [a/r] r") == 1  # none left: not asked again


def test_a_black_with_a_referee_asks_the_referee():
    # R14: a referee present decides; "c" lets the action go on without the black
    a = Action(skill="scan", ranks=0, black=9, referee=True)
    seed = next(s for s in range(100) if a.deck.colour_at(Rng(s).randrange(a.deck.total())) == "black")
    done = run("--skill", "scan", "--ranks", "0", "--black", "9", "--referee", "--seed", str(seed),
               answers="d\nc\ns\n")
    out = done.stdout.splitlines()
    assert "referee: go on or end? [c/e] c" in out
    assert "the referee lets the action go on; the black card leaves the deck" in out
    assert out[-1].startswith("outcome: stopped after 1 draw")


def test_the_highest_seed_the_device_takes_is_taken_and_plays_its_cards():
    cards, state = expected_cards(999999999, ranks=1, needed=2)
    done = run("--needed", "2", "--seed", "999999999", "--auto-draw")
    assert done.returncode == 0, done.stderr
    drawn = [l.split()[2].lower() for l in done.stdout.splitlines() if re.match(r"draw \d+:", l)]
    assert drawn == cards and done.stdout.splitlines()[-1].startswith("outcome: %s" % state)
