"""A referee's odds tool: the deck an action starts with, the next-card odds, the chance to
succeed (R25, R26) and the risks beside it (the chance of a complication, i.e. at least one
red card, and of a black card before success), a table of them by rank and difficulty, and
the chances to succeed as a chart.

    python tools/odds.py --ranks 2 --helpers 1 --red 1 --needed 2
    python tools/odds.py --table [--needed 2 --red 1 ...]
    python tools/odds.py --plot odds.png

All three chances assume, as the device does, that the lead draws on until success or a
black card: no stop, no redraw, no referee letting a black pass (R26).
Chances are shown as the device shows them: one decimal place, "<0.1%" for a long shot that is
still possible, ">99.9%" for a near-certainty; "0%" and "100%" only when it is sure. The risks
are whole percents by the same rule ("<1%", ">99%"), as on the device's screen.
--plot writes FILE.png and nothing else; a FILE.png already there must be a chart or picture
the tools drew (its PNG text says so) or one they list in its folder: any other is refused.
Exit status: 0 done, 2 a bad argument or a file that cannot be written (one line says which).
"""
import os
import sys
import textwrap

from common import cli, output

TOOL = "tools/odds.py"
from carddraw.action import Action, SKILLS
from carddraw.deck import COLOURS
from carddraw.odds import next_card, action_risk, fmt_chance

# (label, extra difficulty cards) for the table's rows
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
MAX_CARDS = 9  # of one colour set by a task (R6)
DEFAULT_RANKS = 1
NUMBER_ARGS = [  # (name, low, high, default, help)
    ("ranks", 0, 9, DEFAULT_RANKS, "lead's skill ranks (R3; 0 for a scanner only)"),
    ("helpers", 0, 9, 0, "assistants with the skill (R4)"),
    ("bonus", 0, 9, 0, "bonus greens from other modifiers (R5)"),
    ("green", 0, 9, 0, "difficulty green cards (R6)"),
    ("yellow", 0, 9, 0, "difficulty or environment yellow cards (R6, R7)"),
    ("red", 0, 9, 0, "difficulty or environment red cards (R6, R7)"),
    ("black", 0, 9, 0, "difficulty black cards (R6)"),
    ("needed", 1, 9, 1, "successes needed (R7)"),
    ("auto", 0, 9, 0, "automatic successes (R11)"),
    ("redraws", 0, 9, 0, "redraws (R15)"),
]
# what each added setting is called in the table's header, in the order shown
ADDED_WORDS = [("bonus", "bonus green"), ("green", "green"), ("yellow", "yellow"),
               ("red", "red"), ("black", "black"), ("auto", "automatic success"),
               ("redraws", "redraw")]


def action_parser(prog, doc, ranks_default=DEFAULT_RANKS):
    """A parser with every action setting (R3-R15, R24): shared by odds and play."""
    p = cli.parser(prog, doc)
    p.add_argument("--skill", choices=SKILLS, default="surgery", help="the action (R24)")
    for name, low, high, default, text in NUMBER_ARGS:
        if name == "ranks":
            default = ranks_default
        shown = (" (default %d)" % default if default is not None
                 else " (default %d; not with --table or --plot)" % DEFAULT_RANKS)
        p.add_argument("--" + name, type=cli.whole(name, low, high), default=default,
                       help="%s, %d-%d%s" % (text, low, high, shown))
    p.add_argument("--referee", action="store_true", help="a referee is present (R14)")
    return p


def parser():
    p = action_parser("odds", __doc__, ranks_default=None)
    p.add_argument("--table", action="store_true",
                   help="chance to succeed, of a complication and of a black card, ranks 0-5 x "
                        "difficulty presets (--ranks not allowed)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the table as a chart into FILE.png")
    return p


def action_from(args, **changes):
    kwargs = {name: getattr(args, name) for name, *_ in NUMBER_ARGS}
    kwargs.update(skill=args.skill, referee=args.referee)
    kwargs.update(changes)
    return Action(**kwargs)


def plural(n, word):
    if n == 1:
        return "%d %s" % (n, word)
    return "%d %s" % (n, word + ("es" if word.endswith("ss") else "s"))


def deck_line(counts):
    g, y, r, b = counts
    return "deck: %d green, %d yellow, %d red, %d black (%d cards)" % (g, y, r, b, g + y + r + b)


def next_card_lines(counts):
    return ["  %-6s %6s" % (colour, fmt_chance(p)) for colour, p in zip(COLOURS, next_card(counts))]


def describe(a):
    p, red, black, undecided, _ = action_risk(a)
    lines = ["%s, rank %d, %s, %s needed" % (a.skill, a.ranks, plural(a.helpers, "helper"),
                                            plural(a.needed, "success")),
             deck_line(a.deck.counts()), "next card:"]
    lines += next_card_lines(a.deck.counts())
    lines.append("chance to succeed: %s (exact, error under %.0e)" % (fmt_chance(p), max(undecided, 1e-9)))
    lines.append("chance of a complication (a red card): %s" % fmt_chance(red, 0))
    lines.append("chance of a black card before success: %s" % fmt_chance(black, 0))
    return "\n".join(lines)


def table(args):
    """-> (rows, capped): rows are ranks 0-5, columns the presets, each cell (chance to succeed,
    chance of a complication, chance of a black); capped is True when a preset would have
    passed 9 cards of a colour and was held at 9. Rank 0 is a scanner (R3)."""
    rows = []
    capped = False
    for ranks in TABLE_RANKS:
        row = []
        for _, extra in PRESETS:
            changes = {"ranks": ranks, "skill": "scan" if ranks == 0 else args.skill}
            for colour, n in extra.items():
                changes[colour] = min(MAX_CARDS, getattr(args, colour) + n)
                capped = capped or getattr(args, colour) + n > MAX_CARDS
            row.append(action_risk(action_from(args, **changes))[:3])
        rows.append(row)
    return rows, capped


def added_text(args):
    """Every card and setting the user added, which every row of the table includes."""
    added = ["+" + plural(getattr(args, name), word) for name, word in ADDED_WORDS
             if getattr(args, name)]
    if args.referee:
        added.append("a referee present")
    return ", ".join(added)


def table_title(args):
    head = "chance to succeed at %s, %s needed, %s" % (
        args.skill, plural(args.needed, "success"), plural(args.helpers, "helper"))
    added = added_text(args)
    return head + ("; every row also has " + added if added else "")


CELL = "%8s%5s%5s"  # one rank's columns: succeed, a complication, a black


def format_table(rows, capped, args):
    width = max(len(label) for label, _ in PRESETS)
    out = [table_title(args) + " (rank 0: a scan)",
           "beside each chance: comp, the chance of a complication (a red card), and blk, of a "
           "black card before success",
           ("%-*s" % (width, "difficulty") + "".join(("rank %d" % r).center(18)
                                                   for r in TABLE_RANKS)).rstrip(),
           " " * width + CELL % ("succeed", "comp", "blk") * len(TABLE_RANKS)]
    for j, (label, _) in enumerate(PRESETS):
        out.append("%-*s" % (width, label) + "".join(
            CELL % (fmt_chance(p), fmt_chance(red, 0), fmt_chance(black, 0))
            for p, red, black in (rows[i][j] for i in range(len(rows)))))
    if capped:
        out.append("(a row that would pass %d cards of a colour holds %d)" % (MAX_CARDS, MAX_CARDS))
    return "\n".join(out)


def check_plot_path(path):
    """-> None if a PNG can be written at path, else what is wrong (one line)."""
    if not path.lower().endswith(".png"):
        return "--plot: the chart is a PNG, so the file name must end in .png, not %r" % path
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return "--plot: no folder %s to write %s into" % (folder, os.path.basename(path))
    if os.path.isdir(path):
        return "--plot: %s is a folder, not a file" % path
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return "--plot: %s cannot be written (no permission)" % path
    try:
        output.check_file(path, TOOL, mine=output.marked_png)
    except output.NotOurs as e:
        return "--plot: %s" % e
    return None


def plot(rows, capped, args, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = [[rows[i][j][0] for i in range(len(rows))] for j in range(len(PRESETS))]
    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=120)
    ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(TABLE_RANKS)), ["rank %d" % r for r in TABLE_RANKS])
    ax.set_yticks(range(len(PRESETS)), [label for label, _ in PRESETS])
    for j in range(len(PRESETS)):
        for i in range(len(rows)):
            v = grid[j][i]
            ax.text(i, j, fmt_chance(v), ha="center", va="center", fontsize=11,
                    fontweight="bold", color="black" if 0.25 < v < 0.85 else "white")
    ax.set_title(textwrap.fill("Card Draw: " + table_title(args), 80), fontsize=10)
    ax.set_xlabel("lead's skill ranks (rank 0: a scan)" + (
        "\n(a row that would pass %d cards of a colour holds %d)" % (MAX_CARDS, MAX_CARDS) if capped else ""))
    fig.tight_layout()
    try:
        fig.savefig(output.claim_file(path, TOOL, mine=output.marked_png),
                    metadata=output.png_text(TOOL))
    finally:
        plt.close(fig)


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if args.table or args.plot is not None:
        if args.ranks is not None:
            p.error("--ranks: the table shows every rank from 0 to 5, so leave --ranks out")
        bad = check_plot_path(args.plot) if args.plot is not None else None
        if bad:
            p.error(bad)
    elif args.ranks is None:
        args.ranks = DEFAULT_RANKS
    try:
        if not (args.table or args.plot is not None):
            print(describe(action_from(args)))
            return 0
        rows, capped = table(args)
        if args.table:
            print(format_table(rows, capped, args))
        if args.plot is not None:
            plot(rows, capped, args, args.plot)
            print("chart saved to %s" % args.plot)
    except ValueError as e:  # a rule on the parameters, e.g. rank 0 outside scanning (R3)
        p.error(str(e))
    except OSError as e:  # the disk filled up, the folder went away
        p.error("--plot: %s cannot be written: %s" % (args.plot, e.strerror or e))
    except output.NotOurs as e:
        p.error("--plot: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
