# Engine scenarios that run unchanged under CPython and inside the MicroPython VM; the test
# compares the two transcripts. Written in the Python both interpreters share.
from carddraw.deck import Deck, build_deck
from carddraw.action import Action, RuleError
from carddraw.odds import next_card, action_chance


class Lcg:
    """A tiny deterministic rng with randrange(n), identical on both Pythons."""

    def __init__(self, seed):
        self.x = seed

    def randrange(self, n):
        self.x = (self.x * 1103515245 + 12345) % 2147483648
        return (self.x >> 8) % n


SCENARIOS = [
    ({"skill": "surgery", "ranks": 2, "helpers": 1, "red": 1, "needed": 2}, 1),
    ({"skill": "repair", "ranks": 1, "yellow": 6}, 2),
    ({"skill": "scan", "ranks": 0, "black": 1, "referee": True, "redraws": 2}, 3),
    ({"skill": "surgery", "ranks": 3, "auto": 2, "needed": 5, "redraws": 1}, 4),
    ({"skill": "surgery", "ranks": 9, "helpers": 9, "bonus": 9, "green": 9, "yellow": 9,
      "red": 9, "black": 9, "needed": 9, "auto": 9}, 5),
    ({"skill": "scan", "ranks": 0, "yellow": 3, "red": 3, "needed": 3}, 6),
]

BAD = [
    {"ranks": 10}, {"skill": "surgery", "ranks": 0}, {"skill": "cooking", "ranks": 1},
    {"ranks": 1, "needed": 0}, {"ranks": 1, "helpers": -1}, {"ranks": 1, "referee": 1},
]


def play(kwargs, seed):
    a = Action(**kwargs)
    rng = Lcg(seed)
    log = [list(a.deck.counts())]
    while a.state in ("active", "referee") and a.draws < 40:
        p = action_chance(a)
        log.append([round(x, 9) for x in next_card(a.deck.counts())] + [round(p[0], 9), p[2]])
        if a.state == "referee":
            a.referee_continue()
            continue
        colour = a.draw(rng)
        if a.redraws_left and colour != "green":
            colour = a.redraw(rng)
        try:
            a.draw(rng)
            log.append("no error")
        except RuleError as e:
            log.append("RuleError: " + str(e))
        a.accept()
        log.append([colour, a.state, a.successes, a.complications, list(a.deck.counts())])
        if a.state == "active" and a.draws == 3:
            if a.helpers:
                a.helper_leaves()
                log.append(["helper left", list(a.deck.counts())])
    try:
        a.stop()
    except RuleError as e:
        log.append("RuleError: " + str(e))
    return log


def run_all():
    out = {"decks": [list(build_deck(r, h, 0, 0, y, 0, 0).counts())
                     for r in range(10) for h in (0, 5) for y in (0, 4, 9)],
           "settle": list(Deck(1, 40, 13, 2).counts())}
    out["plays"] = [play(k, s) for k, s in SCENARIOS]
    errors = []
    for kwargs in BAD:
        try:
            Action(**kwargs)
            errors.append("no error")
        except ValueError as e:
            errors.append("ValueError: " + str(e))
    out["errors"] = errors
    return out
