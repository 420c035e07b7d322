"""A referee's odds tool: the deck an action starts with, the next-card odds and the chance to
succeed (R25, R26), a table of chances by rank and difficulty, and that table as a chart.

    python tools/odds.py --ranks 2 --helpers 1 --red 1 --needed 2
    python tools/odds.py --table [--needed 2 ...]
    python tools/odds.py --plot odds.png
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "firmware"))

from carddraw.action import Action, SKILLS  # noqa: E402
from carddraw.deck import COLOURS  # noqa: E402
from carddraw.odds import next_card, action_chance  # noqa: E402

# (label, extra difficulty cards) for the table's columns
PRESETS = [
    ("none", {}),
    ("+1 yellow", {"yellow": 1}),
    ("+2 yellow", {"yellow": 2}),
    ("+1 red", {"red": 1}),
    ("+2 red", {"red": 2}),
    ("+1 black", {"black": 1}),
    ("+2 black", {"black": 2}),
    ("+1 red +1 black", {"red": 1, "black": 1}),
]
TABLE_RANKS = range(0, 6)
NUMBER_ARGS = [  # (name, low, high, default, help)
    ("ranks", 0, 9, 1, "lead's skill ranks (R3; 0 for a scanner only)"),
    ("helpers", 0, 9, 0, "assistants with the skill (R4)"),
    ("bonus", 0, 9, 0, "bonus greens from other modifiers (R5)"),
    ("green", 0, 9, 0, "difficulty green cards (R6)"),
    ("yellow", 0, 9, 0, "difficulty or environment yellow cards (R6, R7)"),
    ("red", 0, 9, 0, "difficulty or environment red cards (R6, R7)"),
    ("black", 0, 9, 0, "difficulty black cards (R6)"),
    ("needed", 1, 9, 1, "successes needed (R7)"),
    ("auto", 0, 9, 0, "automatic successes (R11)"),
    ("redraws", 0, 9, 0, "redraws (R15); R26 assumes none are spent"),
]


class OneLineParser(argparse.ArgumentParser):
    """Bad input: one line naming the argument and what is allowed, exit status 2."""

    def error(self, message):
        if message.startswith("unrecognized arguments"):
            message += " (odds --help lists the arguments)"
        sys.stderr.write("odds: %s\n" % message)
        sys.exit(2)


def whole(name, low, high):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("must be a whole number from %d to %d, not %r" % (low, high, text))
        if not low <= value <= high:
            raise argparse.ArgumentTypeError("must be from %d to %d, not %d" % (low, high, value))
        return value
    parse.__name__ = name
    return parse


def parser():
    p = OneLineParser(prog="odds", description=__doc__.split("\n\n")[0])
    p.add_argument("--skill", choices=SKILLS, default="surgery", help="the action (R24)")
    for name, low, high, default, text in NUMBER_ARGS:
        p.add_argument("--" + name, type=whole(name, low, high), default=default,
                       help="%s, %d-%d (default %d)" % (text, low, high, default))
    p.add_argument("--referee", action="store_true", help="a referee is present (R14)")
    p.add_argument("--table", action="store_true", help="chance to succeed, ranks 0-5 x difficulty presets")
    p.add_argument("--plot", metavar="FILE.png", help="draw the table as a chart into FILE.png")
    return p


def action_from(args, **changes):
    kwargs = {name: getattr(args, name) for name, *_ in NUMBER_ARGS}
    kwargs.update(skill=args.skill, referee=args.referee)
    kwargs.update(changes)
    return Action(**kwargs)


def describe(a):
    g, y, r, b = a.deck.counts()
    p, undecided, steps = action_chance(a)
    lines = ["%s, rank %d, %d helper%s, %d success%s needed" % (
        a.skill, a.ranks, a.helpers, "" if a.helpers == 1 else "s", a.needed,
        "" if a.needed == 1 else "es"),
        "deck: %d green, %d yellow, %d red, %d black (%d cards)" % (g, y, r, b, g + y + r + b),
        "next card:"]
    for colour, chance in zip(COLOURS, next_card(a.deck.counts())):
        lines.append("  %-6s %5.1f%%" % (colour, 100 * chance))
    lines.append("chance to succeed: %.1f%% (exact, error under %.0e)" % (100 * p, max(undecided, 1e-9)))
    return "\n".join(lines)


def table(args):
    """rows: ranks 0-5; columns: presets. Rank 0 is a scanner (R3)."""
    rows = []
    for ranks in TABLE_RANKS:
        row = []
        for _, extra in PRESETS:
            changes = {"ranks": ranks, "skill": "scan" if ranks == 0 else args.skill}
            for colour, n in extra.items():
                changes[colour] = min(9, getattr(args, colour) + n)
            row.append(action_chance(action_from(args, **changes))[0])
        rows.append(row)
    return rows


def pct(v):
    """Whole percent, but never round a near-certainty up to 100% or a long shot down to 0%."""
    if 0.995 <= v < 1:
        return "%.1f%%" % min(99.9, 100 * v)
    if 0 < v < 0.005:
        return "%.1f%%" % max(0.1, 100 * v)
    return "%.0f%%" % (100 * v)


def format_table(rows, args):
    width = max(len(label) for label, _ in PRESETS)
    head = "chance to succeed, %d needed, %d helpers (rank 0: scanner)" % (args.needed, args.helpers)
    out = [head, "%-*s" % (width, "difficulty") + "".join("  rank %d" % r for r in TABLE_RANKS)]
    for j, (label, _) in enumerate(PRESETS):
        out.append("%-*s" % (width, label) + "".join("%8s" % pct(rows[i][j]) for i in range(len(rows))))
    return "\n".join(out)


def plot(rows, args, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = [[rows[i][j] for i in range(len(rows))] for j in range(len(PRESETS))]
    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=120)
    ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(TABLE_RANKS)), ["rank %d" % r for r in TABLE_RANKS])
    ax.set_yticks(range(len(PRESETS)), [label for label, _ in PRESETS])
    for j in range(len(PRESETS)):
        for i in range(len(rows)):
            v = grid[j][i]
            ax.text(i, j, pct(v), ha="center", va="center", fontsize=12,
                    fontweight="bold", color="black" if 0.25 < v < 0.85 else "white")
    ax.set_title("Card Draw: chance to succeed (%d needed, %d helpers)" % (args.needed, args.helpers))
    ax.set_xlabel("lead's skill ranks (rank 0: scanner only)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    try:
        if args.table or args.plot:
            rows = table(args)
            if args.table:
                print(format_table(rows, args))
            if args.plot:
                plot(rows, args, args.plot)
                print("chart saved to %s" % args.plot)
        else:
            print(describe(action_from(args)))
    except ValueError as e:  # a rule on the parameters, e.g. rank 0 outside scanning (R3)
        p.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
