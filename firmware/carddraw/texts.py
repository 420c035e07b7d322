# What the set-up and the action's screens both say, in one place: the skills' and colours'
# names, the deck, the chance and the risks, and text wrapped to the screen. Pure: no I/O.
# Screens import this module, never the controller. No rule numbers on a screen: they belong
# in the comments. What only the action's screens say (each card's result in the action's own
# words, R24; the tally) is in playscreens.py, out of the boot.
from .config import COLS
from .odds import fmt_chance


def capital(name):
    """A skill's or a colour's name on the screens, its id capitalised: "Surgery", "Green"."""
    return name[0].upper() + name[1:]


def wrap(text, width=COLS):
    """Words into lines of at most width characters (a longer word is cut)."""
    lines = []
    line = ""
    for word in text.split():
        while len(word) > width:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:width])
            word = word[width:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def deck_line(counts):
    """R20: the deck, each count before its colour's initial: "Deck 5G 2Y 1R 0B" (a count
    after it, "R1", would read as a rule's number), "38G 3Y 3R 13B" when long."""
    line = "%dG %dY %dR %dB" % counts
    return "Deck " + line if len(line) <= COLS - 5 else line


def pct(chance):
    # R26 by the one rule every screen and tool uses: "<0.1%", never "0%", for a long shot
    return "%6s" % fmt_chance(chance)


def risk_line(red, black):
    """The risks beside the chance, in R26's model (the whole action, not the next card):
    "Red 29% Black 3%": the chance that a red card (a complication, R13) comes before the
    action ends, and that a black ends it (R14). At most 16 columns: the spaces go first
    ("Red100%Black100%")."""
    line = "Red %s Black %s" % (fmt_chance(red, 0), fmt_chance(black, 0))
    for cut in ("Black ", "Red ", " "):
        if len(line) > COLS:
            line = line.replace(cut, cut.strip(), 1)
    return line


def odds_words(odds):
    """(the chance as shown, the risk line) of odds.Odds, or of odds not worked out yet
    (None): made once per odds and kept on them (a view is made again at every change)."""
    if not odds:  # None: "..." for each figure (the risk line cut to 16 columns as above)
        return "   ...", "Red ... Black..."
    words = odds.words
    if not words:  # None: not made yet
        words = odds.words = (pct(odds.chance), risk_line(odds.red, odds.black))
    return words
