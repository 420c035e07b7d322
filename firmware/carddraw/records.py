# The records of play, one constructor per kind: what the action log says of an action (the
# fields docs/bench.md lists). Each is a dict {"ev": kind, "ms": the controller's clock, ...}
# everywhere in RAM; only the journal packs them on the way to flash (pack(), PACKED: each
# kind's fields in order, beside its constructor), and a record with a field PACKED does not
# name (a seeded device's "seeded") goes as it is. Pure: no I/O.

PACKED = {
    "draw": ["ms", "n", "card", "deck", "timed"],
    "redraw": ["ms", "n", "card", "left"],
    "accept": ["ms", "n", "card", "deck", "state", "successes", "complications"],
    "end": ["ms", "outcome", "successes", "needed", "complications", "draws"],
    "stop": ["ms", "successes", "needed", "draws"],
    "start": ["ms", "skill", "ranks", "helpers", "bonus", "difficulty", "needed", "auto",
              "redraws", "referee", "timed", "interval", "chain", "chance", "deck"],
}


def pack(record):
    """A record as a journal entry holds it: a list of its event and its fields in PACKED's
    order when its fields are exactly those (a draw's pass then fits one page); else as it is."""
    names = PACKED.get(record.get("ev"))
    if names is None or len(record) != len(names) + 1:
        return record
    values = [record["ev"]]
    for name in names:
        if name not in record:  # the same number of fields, not the same ones
            return record
        values.append(record[name])
    return values


def unpack(values):
    """A record as an entry holds it, as a dict: a packed one (a list) as a new dict, an
    object as it is; ValueError for anything else (not a record PACKED knows)."""
    if type(values) is dict:
        return values
    names = PACKED.get(values[0]) if type(values) is list and values \
        and type(values[0]) is str else None
    if names is None or len(values) != len(names) + 1:
        raise ValueError  # not a record
    r = {"ev": values[0]}
    for i in range(len(names)):
        r[names[i]] = values[i + 1]
    return r


def deck(a):
    return list(a.deck.counts())


def start(ms, a, timed, interval, chain, chance):
    """An action begins (R2-R15): its parameters, the bench's chance (R26) and its deck."""
    return {"ev": "start", "ms": ms, "skill": a.skill, "ranks": a.ranks, "helpers": a.helpers,
            "bonus": a.bonus, "difficulty": list(a.difficulty), "needed": a.needed,
            "auto": a.auto, "redraws": a.redraws, "referee": a.referee, "timed": timed,
            "interval": interval, "chain": chain, "chance": chance, "deck": deck(a)}


def draw(ms, a, card, timed):
    """R9: card number n drawn, not yet applied (R15)."""
    return {"ev": "draw", "ms": ms, "n": a.draws, "card": card, "deck": deck(a),
            "timed": timed}


def redraw(ms, a, card):
    """R15: a redraw spent; `left` redraws remain."""
    return {"ev": "redraw", "ms": ms, "n": a.draws, "card": card, "left": a.redraws_left}


def accept(ms, a, card, state):
    """R10-R14: the card applied, and what the action is now."""
    return {"ev": "accept", "ms": ms, "n": a.draws, "card": card, "deck": deck(a),
            "state": state, "successes": a.successes, "complications": a.complications}


def end(ms, a, outcome):
    """The action's one final end (R14, R16, R17, or the referee's)."""
    return {"ev": "end", "ms": ms, "outcome": outcome, "successes": a.successes,
            "needed": a.needed, "complications": a.complications, "draws": a.draws}


def stop(ms, a):
    """R16: the lead stopped."""
    return {"ev": "stop", "ms": ms, "successes": a.successes, "needed": a.needed,
            "draws": a.draws}


def referee(ms, a, decision):
    """R14: the referee's decision on a black: "continue" (with the deck after) or "end"."""
    r = {"ev": "referee", "ms": ms, "decision": decision}
    if decision == "continue":
        r["deck"] = deck(a)
    return r


def helper_leaves(ms, a):
    """R18: a helper left; `helpers` still help."""
    return {"ev": "helper_leaves", "ms": ms, "helpers": a.helpers, "deck": deck(a)}


def adjust(ms, a, colour, delta):
    """R19: the referee added (or removed) cards."""
    return {"ev": "adjust", "ms": ms, "colour": colour, "delta": delta, "deck": deck(a)}


def undo(ms, a):
    """The referee undid the last draw: the action as it was before it."""
    return {"ev": "undo", "ms": ms, "draws": a.draws, "state": a.state, "deck": deck(a)}
