"""bench random N: N draws from the set-up screen's deck on the device (each put back), their
counts against the deck's odds (R9: every card equally likely) in a chi-square test."""
import json
import math
import sys

from common.chi2 import chi_square

COLOURS = ("green", "yellow", "red", "black")   # the firmware's order: counts are [g, y, r, b]
MAX_DRAWS = 10000        # per `test draws` line (the firmware's limit)
ALPHA = 0.001            # fails below this p-value


def arguments(p):
    p.add_argument("n", type=int, metavar="N")
    p.add_argument("--alpha", type=float, default=ALPHA,
                   help="fail below this p-value (default %g)" % ALPHA)


def run(link, args):
    n = args.n
    if n < 1:
        sys.stderr.write("random needs at least 1 draw\n")
        return 2
    probe = link.request("test draws 1")
    if probe.get("ok") != "draws":
        sys.stderr.write("the device refused: %s\n" % probe.get("error", json.dumps(probe)))
        return 2
    deck = probe["deck"]
    total = sum(deck)
    fewest = min(c for c in deck if c)
    if n * fewest / total < 5:
        least = COLOURS[deck.index(fewest)]
        sys.stderr.write(
            "%d draws are too few for this deck (%s): %s would expect only %.1f. The "
            "chi-square test needs at least 5 expected in every colour: use at least %d draws\n"
            % (n, deck_text(deck), least, n * fewest / total, math.ceil(5 * total / fewest)))
        return 2
    counts = [0, 0, 0, 0]
    left = n
    while left:
        k = min(left, MAX_DRAWS)
        r = link.request("test draws %d" % k)
        if r.get("ok") != "draws" or r.get("deck") != deck:
            sys.stderr.write("the device refused: %s\n" % r.get("error", json.dumps(r)))
            return 2
        counts = [a + b for a, b in zip(counts, r["counts"])]
        left -= k
    stat, df, p = chi_square(counts, deck)
    print("deck from the set-up screen's settings: %s (%d cards)" % (deck_text(deck), total))
    print("%d draws, each card put back (R9: every card equally likely)\n" % n)
    print("%-8s %6s %10s %10s" % ("colour", "cards", "expected", "observed"))
    for colour, cards, seen in zip(COLOURS, deck, counts):
        print("%-8s %6d %10.1f %10d" % (colour, cards, n * cards / total, seen))
    print("%-8s %6d %10.1f %10d\n" % ("total", total, n, sum(counts)))
    print("chi-square %.3f with %d degree%s of freedom: p = %.4g" % (stat, df, "" if df == 1 else "s", p))
    if p >= args.alpha:
        print("PASS: the draws fit the deck's odds (p >= %g)" % args.alpha)
        return 0
    print("FAIL: draws this far from the deck's odds happen with p < %g" % args.alpha)
    return 1


def deck_text(deck):
    return ", ".join("%s %d" % (c, k) for c, k in zip(COLOURS, deck))
