# An action as plain JSON-able data and back: the resume state after a power cut, and the
# undo (the action as it was before its last draw); and what the log's records say of one
# when it is played again after a power cut (play.Play.replay). Kept apart from action.py so
# the engine stays small in RAM.
from .deck import COLOURS, Deck, check_int, check_colour
from .action import Action

STATES = ("active", "succeeded", "stopped", "failed", "referee")


def began(a):
    """What `a` began with (begun() builds it again) and its deck now: the start record's
    fields (play.Play.start), and to_dict()'s first."""
    return {"skill": a.skill, "ranks": a.ranks, "helpers": a.helpers, "bonus": a.bonus,
            "difficulty": list(a.difficulty), "needed": a.needed, "auto": a.auto,
            "redraws": a.redraws, "referee": a.referee, "deck": list(a.deck.counts())}


def to_dict(a):
    """Everything needed to resume `a`."""
    data = began(a)
    data.update(successes=a.successes, complications=a.complications, draws=a.draws,
                redraws_left=a.redraws_left, auto_applied=a.auto_applied, state=a.state,
                pending=a.pending)
    return data


def _four(data, name):
    v = data[name]
    if not isinstance(v, list) or len(v) != 4:
        raise ValueError("%s must be a list of 4 counts" % name)
    return v


def begun(data):
    """The action as it began, from a saved action or its start record (play.Play.replay)."""
    diff = _four(data, "difficulty")
    return Action(data["skill"], data["ranks"], data["helpers"], data["bonus"], *diff,
                  needed=data["needed"], auto=data["auto"], redraws=data["redraws"],
                  referee=data["referee"])


def from_dict(data):
    """Rebuild an action from to_dict(); ValueError names the first field that is wrong."""
    if not isinstance(data, dict):
        raise ValueError("a saved action must be an object")
    try:
        a = begun(data)
        a.deck = Deck(*_four(data, "deck"))
        a.successes = check_int("successes", data["successes"], 0, 999)
        a.complications = check_int("complications", data["complications"], 0, 99999)
        a.draws = check_int("draws", data["draws"], 0, 99999)
        a.redraws_left = check_int("redraws_left", data["redraws_left"], 0, a.redraws)
        a.auto_applied = data["auto_applied"] is True
        state = data["state"]
        if state not in STATES:
            raise ValueError("state must be one of " + ", ".join(STATES))
        a.state = state
        pending = data["pending"]
        if pending is not None:
            check_colour(pending)
            if state != "active":
                raise ValueError("a card is pending in an action that is " + state)
        a.pending = pending
    except KeyError as e:
        raise ValueError("a saved action is missing %s" % e.args[0])
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

