"""Play one Card Draw action in the terminal, card by card, in the action's own words.

    python tools/play.py --ranks 2 --helpers 1 --red 1 --needed 2 [--seed 7] [--auto-draw]

Before every draw it shows the deck, the next-card odds, the chance to succeed and beside it
the chances of a complication (a red card) and of a black card before success (all three if
the lead draws on to the end, as the device shows them), and asks the lead: d to draw, s to stop (the end of input stops too). After a card, with redraws left,
it asks a to accept, r to redraw (the end of input accepts). A black card with a referee
present asks the referee: c to go on (the black leaves the deck), e to end the action.
--auto-draw answers for them: draw until the action ends, accept every card, end at a black.
The cards come from the device's own generator (firmware/carddraw/rng.py): with --seed N the
sequence the bench's `seed N` gives the device (0 to 999999999, as there), without it one
keyed from the machine's entropy.
Exit status: 0 played, 2 a bad argument (one line says which).
"""
import sys

import odds  # the same action settings as the odds tool
from common import cli
from carddraw.odds import next_card, action_risk, fmt_chance
from carddraw.deck import COLOURS
from carddraw.rng import Rng
# R24: the firmware's own words for each skill and colour, not a copy of them
from carddraw.playscreens import KINDS, words
from carddraw.texts import capital

LEAD_ASK = ("draw or stop? [d/s] ", {"d": "draw", "s": "stop"}, "stop")
CARD_ASK = ("accept or redraw? [a/r] ", {"a": "accept", "r": "redraw"}, "accept")
REFEREE_ASK = ("referee: go on or end? [c/e] ", {"c": "continue", "e": "end"}, "end")
MAX_SEED = 999999999   # what the device's `seed N` takes (carddraw.protocol); Rng takes 2**30 - 1


def parser():
    p = odds.action_parser("play", __doc__)
    p.add_argument("--seed", type=cli.whole("seed", 0, MAX_SEED),
                   help="repeatable shuffles: the device's generator seeded as the bench's "
                        "`seed N` (0 to %d)" % MAX_SEED)
    p.add_argument("--auto-draw", action="store_true",
                   help="no questions: draw until the action ends, accept every card, end at a black")
    return p


def ask(question, stdin, out):
    """Ask until the answer is one of the choices; the end of input takes the default."""
    prompt, choices, default = question
    while True:
        out.write(prompt)
        out.flush()
        line = stdin.readline()
        if not line:
            out.write("\n(end of input: %s)\n" % default)
            return default
        if not stdin.isatty():  # answers from a pipe: show them, so the transcript reads
            out.write(line if line.endswith("\n") else line + "\n")
        answer = line.strip().lower()
        if answer in choices:
            return choices[answer]
        out.write("answer %s, not %r\n" % (" or ".join(
            "%s to %s" % (k, v) for k, v in choices.items()), line.strip()))


def show_odds(a, out):
    counts = a.deck.counts()
    g, y, r, b = counts
    p, red, black = action_risk(a)[:3]
    out.write("deck: %d green, %d yellow, %d red, %d black | next: %s | chance to succeed: %s, "
              "complication %s, black %s\n" % (
                  g, y, r, b, ", ".join("%s %s" % (c, fmt_chance(n)) for c, n in zip(COLOURS, next_card(counts))),
                  fmt_chance(p), fmt_chance(red, 0), fmt_chance(black, 0)))


def say_card(a, colour, out):
    out.write("draw %d: %s -- %s: %s\n" % (a.draws, colour.upper(), KINDS[COLOURS.index(colour)],
                                          words(a.skill, colour)))


def draw_one(a, rng, answer, out):
    """One draw, its redraws (R15) and its result (R10-R14)."""
    colour = a.draw(rng)
    say_card(a, colour, out)
    while a.redraws_left and answer(CARD_ASK) == "redraw":
        colour = a.redraw(rng)
        out.write("redraw (%d left): " % a.redraws_left)
        say_card(a, colour, out)
    a.accept()
    out.write("successes %d/%d, complications %d\n" % (a.successes, a.needed, a.complications))
    if a.state == "referee":
        out.write("a black card with a referee present: the referee decides\n")
        if answer(REFEREE_ASK) == "continue":
            a.referee_continue()
            out.write("the referee lets the action go on; the black card leaves the deck\n")
        else:
            a.referee_end()


AFTERWORDS = {"stopped": ": a failed attempt, this task cannot be tried again today"}


def play(a, rng, answer, out):
    out.write("%s: %s\n" % (capital(a.skill), odds.plural(a.needed, "success")
                            + " needed"))
    while a.state == "active":
        show_odds(a, out)
        if a.deck.total() == 0:  # R22: reachable only through a referee's adjustment
            out.write("the deck is empty: nothing to draw\n")
            break
        if answer(LEAD_ASK) == "stop":
            a.stop()  # R16
            break
        draw_one(a, rng, answer, out)
    out.write("outcome: %s after %s%s\n" % (a.state, odds.plural(a.draws, "draw"),
                                            AFTERWORDS.get(a.state, "")))


def main(argv=None, stdin=None, out=None):
    p = parser()
    args = p.parse_args(argv)
    try:
        a = odds.action_from(args)
    except ValueError as e:  # a rule on the parameters, e.g. rank 0 outside scanning (R3)
        p.error(str(e))
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    if args.auto_draw:
        def answer(question):
            return "draw" if question is LEAD_ASK else question[2]
    else:
        def answer(question):
            return ask(question, stdin, out)
    play(a, Rng(args.seed), answer, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
