"""Play one Card Draw action in the terminal, drawing until it ends (no redraws spent, R26).
Before every draw it prints the deck and the odds (R20, R25, R26); then the card and its result.

    python tools/play.py --ranks 2 --helpers 1 --red 1 --needed 2 [--seed 7]
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import odds  # noqa: E402  (same arguments as the odds tool)
from carddraw.odds import next_card, success_chance  # noqa: E402

RESULT = {"green": "success", "yellow": "setback: a yellow joins the deck",
          "red": "complication: a yellow joins the deck", "black": "CATASTROPHE"}


def main(argv=None):
    p = odds.parser()
    p.prog = "play"
    p.add_argument("--seed", type=odds.whole("seed", 0, 2 ** 31), help="repeatable shuffles")
    args = p.parse_args(argv)
    try:
        a = odds.action_from(args)
    except ValueError as e:
        p.error(str(e))
    rng = random.Random(args.seed)
    print("%s: %d success%s needed" % (a.skill, a.needed, "" if a.needed == 1 else "es"))
    while a.state == "active":
        g, y, r, b = a.deck.counts()
        pg, py, pr, pb = next_card(a.deck.counts())
        print("deck G%d Y%d R%d B%d | next G%.0f%% Y%.0f%% R%.0f%% B%.0f%% | succeed %.1f%%" % (
            g, y, r, b, 100 * pg, 100 * py, 100 * pr, 100 * pb, 100 * success_chance(a)))
        if a.deck.total() == 0:
            print("the deck is empty: nothing to draw (R22)")
            break
        colour = a.draw(rng)
        a.accept()
        print("draw %d: %s -- %s (successes %d/%d, complications %d)" % (
            a.draws, colour.upper(), RESULT[colour], a.successes, a.needed, a.complications))
        if a.state == "referee":
            print("black with a referee present: the referee decides (R14); this tool ends it")
            a.referee_end()
    print("outcome: %s after %d draws" % (a.state, a.draws))
    return 0


if __name__ == "__main__":
    sys.exit(main())
