# An action as plain JSON-able data and back: the undo (the action as it was before its last
# draw); and what the log's records say of one when it is played again after a power cut
# (play.Play.replay). Kept apart from action.py so the engine stays small in RAM.
from .deck import COLOURS, Deck, check_colour
from .action import Action

# what an action changes as it goes, past what it began with (began())
CHANGES = ("successes", "complications", "draws", "redraws_left", "auto_applied", "state",
           "pending")


def began(a):
    """What `a` began with (begun() builds it again) and its deck now: the start record's
    fields (play.Play.start), and to_dict()'s first."""
    return {"skill": a.skill, "ranks": a.ranks, "helpers": a.helpers, "bonus": a.bonus,
            "difficulty": list(a.difficulty), "needed": a.needed, "auto": a.auto,
            "redraws": a.redraws, "referee": a.referee, "deck": list(a.deck.counts())}


def to_dict(a):
    """Everything needed to rebuild `a` (from_dict)."""
    data = began(a)
    for name in CHANGES:
        data[name] = getattr(a, name)
    return data


def begun(data):
    """The action as it began, from the undo or its start record (play.Play.replay)."""
    diff = data["difficulty"]
    if not isinstance(diff, list) or len(diff) != 4:
        raise ValueError("difficulty must be a list of 4 counts")
    return Action(data["skill"], data["ranks"], data["helpers"], data["bonus"], *diff,
                  needed=data["needed"], auto=data["auto"], redraws=data["redraws"],
                  referee=data["referee"])


def from_dict(data):
    """The action to_dict() made `data` of (the undo: never untrusted data)."""
    a = begun(data)
    a.deck = Deck(*data["deck"])
    for name in CHANGES:
        setattr(a, name, data[name])
    return a


class Known:
    """An rng that draws the card a record names: the first of its colour (R9 order)."""

    def __init__(self, deck, colour):
        counts = deck.counts()
        i = COLOURS.index(check_colour(colour))
        if not counts[i]:  # else the index would be the next colour's first card
            raise ValueError("the log names a card the deck does not hold")
        self.index = sum(counts[:i])

    def randrange(self, n):
        if self.index >= n:
            raise ValueError("the log names a card the deck does not hold")
        return self.index

