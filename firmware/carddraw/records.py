# The records of play packed for flash: what the action log says of an action (the fields
# docs/bench.md lists) is a dict {"ev": kind, "ms": the controller's clock, ...} everywhere in
# RAM (play.py makes them); only the journal packs them on the way to flash (pack(), PACKED:
# the commonest kinds' fields in order), and a record with a field PACKED does not name (a
# seeded device's "seeded") goes as it is. Pure: no I/O.

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
    try:  # a comprehension: MicroPython's quickest loop (a draw's pass packs its record)
        return [record["ev"]] + [record[name] for name in names]
    except KeyError:  # the same number of fields, not the same ones
        return record


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
