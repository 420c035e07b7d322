# The deck: colours, building (R2-R7) and compounding (R8), and RuleError, which every part of
# the engine raises (action.py imports it from here, and the engine contract from action.py),
# so that the controller can catch it at set-up without loading the Action.
# Pure: no I/O, no time, no randomness. Runs the same under CPython and MicroPython.

GREEN = "green"    # R1 success
YELLOW = "yellow"  # R1 setback
RED = "red"        # R1 complication
BLACK = "black"    # R1 catastrophe, shown as purple on the device
COLOURS = (GREEN, YELLOW, RED, BLACK)  # also the index order of a draw (R9)



class RuleError(Exception):
    """An operation the rules forbid at this moment. The action is left unchanged."""


def check_int(name, value, low, high):
    """Return value if it is a whole number in [low, high], else raise ValueError naming it."""
    # type() rather than isinstance: bool is an int subclass, and a rank of True is a mistake
    if type(value) is not int or value < low or value > high:
        raise ValueError("%s must be a whole number from %d to %d, not %r" % (name, low, high, value))
    return value


def check_colour(colour):
    if colour not in COLOURS:
        raise ValueError("colour must be green, yellow, red or black, not %r" % (colour,))
    return colour


def settle(green, yellow, red, black):
    """R8: 4+ yellow -> remove 3, add a red; then 4+ red -> remove 3, add a black.

    Closed form rather than a loop so a huge count costs nothing: each conversion removes 3,
    so (n - 1) // 3 conversions bring n (>= 4) down to 1..3.
    """
    if yellow >= 4:
        n = (yellow - 1) // 3
        yellow -= 3 * n
        red += n
    if red >= 4:
        n = (red - 1) // 3
        red -= 3 * n
        black += n
    return green, yellow, red, black


class Deck:
    """Counts of each colour, always settled by R8."""

    def __init__(self, green=0, yellow=0, red=0, black=0):
        for name, value in zip(COLOURS, (green, yellow, red, black)):
            check_int(name, value, 0, 999)  # of one colour: far beyond any deck the rules build
        self._counts = settle(green, yellow, red, black)

    def counts(self):
        """(green, yellow, red, black)."""
        return self._counts

    def count(self, colour):
        return self._counts[COLOURS.index(check_colour(colour))]

    def total(self):
        return sum(self._counts)

    def add(self, colour, delta=1):
        """Add (or with a negative delta remove) cards, then settle (R8).

        Removing more cards than the deck holds raises ValueError and changes nothing.
        """
        check_int(colour, self.count(colour) + delta, 0, 999)  # as __init__
        self.shift(COLOURS.index(colour), delta)

    def shift(self, i, delta):
        """add() for colour number i (COLOURS' order), delta known to leave a count in range:
        the engine's own (a card applied, R10-R13), on the way to a drawn card's LED."""
        counts = list(self._counts)
        counts[i] += delta
        self._counts = settle(*counts)

    def colour_at(self, index):
        """R9: the colour of card number index; green first, then yellow, red, black."""
        counts = self._counts
        for i in range(4):
            if index < counts[i]:
                return COLOURS[i]
            index -= counts[i]
        raise ValueError("card index out of range for a deck of %d" % self.total())


def build_deck(ranks, helpers=0, bonus=0, green=0, yellow=0, red=0, black=0):
    """R2-R8: the deck a task starts with."""
    for name, value in zip(("ranks", "helpers", "bonus") + COLOURS,
                           (ranks, helpers, bonus, green, yellow, red, black)):
        check_int(name, value, 0, 9)  # ranks, helpers, bonus and difficulty cards are 0-9
    # R2: the base deck of 2 green, 2 yellow, 1 red; R3 a green a rank, R4 one a helper up to
    # the ranks, R5 the bonus greens, R6 and R7 the task's cards; Deck settles them (R8)
    return Deck(2 + ranks + min(helpers, ranks) + bonus + green, 2 + yellow, 1 + red, black)
