# What the screens say, in one place: the skills' and colours' names, each card's result in
# the action's own words (R24), and the lines every screen builds from them. Pure: no I/O.
# Screens import this module, never the controller. No rule numbers on a screen: they belong
# in the comments.
from carddraw.config import COLS, SKILLS
from carddraw.odds import fmt_chance, next_card

SKILL_NAMES = ("Surgery", "Repair", "Scan")          # by config.SKILLS
COLOUR_NAMES = ("Green", "Yellow", "Red", "Black")   # by deck.COLOURS
KINDS = ("Success", "Setback", "Complication", "Catastrophe")  # what each colour is (R1)
WORDS = (  # R24: what each colour means in each action (SKILLS order, then COLOURS order)
    ("a clean stitch holds", "the patient stirs", "a nicked blood vessel", "the heart stops"),
    ("a part clicks into place", "a stripped bolt", "an electrical discharge",
     "the core overloads"),
    ("a clear reading", "signal noise", "particles destabilise", "the field collapses"),
)
COLOUR_INDEX = {"green": 0, "yellow": 1, "red": 2, "black": 3}


def skill_name(skill):
    return SKILL_NAMES[SKILLS.index(skill)]


def words(skill, colour):
    """R24: a card's result in the action's own words."""
    return WORDS[SKILLS.index(skill)][COLOUR_INDEX[colour]]


_SAID = {}


def said(skill, colour, width=COLS):
    """words() wrapped into two lines of at most width characters (the second "" if one
    holds them), a tuple: each worked out the first time a card shows it, and kept: a
    card's pass has no time to wrap words (12 phrases, two widths: at most 24 tuples)."""
    key = (SKILLS.index(skill) << 3 | COLOUR_INDEX[colour]) * 32 + width
    lines = _SAID.get(key)
    if lines is None:
        lines = _SAID[key] = tuple((wrap(words(skill, colour), width) + ["", ""])[:2])
    return lines


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
    return "G%2d Y%2d R%2d B%2d" % counts  # R20


def odds_line(counts):
    # R25, whole percents by the one rule (fmt_chance): a card that can come is never "0%"
    return "".join(["%4s" % fmt_chance(p, 0) for p in next_card(counts)])


def pct(p):
    # R26 by the one rule every screen and tool uses: "<0.1%", never "0%", for a long shot;
    # None: not worked out yet
    return "%6s" % ("..." if p is None else fmt_chance(p))


def risk_line(red, black):
    """The risks beside the chance, in R26's model (the whole action, not the next card):
    "Risk r29% b3%", r the chance that a red card (a complication, R13) comes before the
    action ends, b that a black ends it (R14), by the deck's letters in lower case (an
    "R18%" would read as a rule number, an "R:" as a button); "..." not worked out yet. The
    word is "Risk" so it cannot be read as the tally's complications count ("Comp 1"). At
    most 16 columns: "Risk r100% b100%"."""
    return "Risk r%s b%s" % ("..." if red is None else fmt_chance(red, 0),
                             "..." if black is None else fmt_chance(black, 0))


def tally(action):
    return "Succ %d/%d Comp %d" % (action.successes, action.needed, action.complications)


def shown_code(entered, hidden):
    """A code as entered so far, centred: a * for each press (how many presses the code takes
    stays unsaid), or on the new-code screen the presses themselves."""
    marks = " ".join("*" * len(entered) if hidden else entered)
    return " " * ((COLS - len(marks)) // 2) + marks
