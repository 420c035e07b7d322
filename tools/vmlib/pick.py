# The rng that chooses the cards for the screen tour (screen_tour.py, run in the MicroPython
# VM by tools/screenshots.py) and for the tests (host_tests/conftest.py puts tools/vmlib on
# sys.path): one helper, in the Python that CPython and MicroPython share.
from carddraw.deck import COLOURS


class Pick:
    """An rng that draws the colours asked for, in turn, from the controller's current deck:
    randrange returns the index of the first card of that colour (R9 index order). Set .c to
    the controller once it is built."""

    def __init__(self, *colours):
        self.want = list(colours)
        self.c = None

    def randrange(self, n):
        i = COLOURS.index(self.want.pop(0))
        counts = self.c.action.deck.counts()
        assert counts[i] > 0, "no %s card in %r" % (COLOURS[i], counts)
        assert sum(counts) == n
        return sum(counts[:i])

    def seed(self, n):
        pass
