# Exact odds the device shows (R25, R26). Pure, iterative, cheap enough for an RP2040.
from carddraw.deck import GREEN, YELLOW, RED, BLACK, settle

# R26 stops iterating once the probability still undecided is below this. That undecided mass
# is an exact bound on the error: the true chance lies in [result, result + undecided].
TAIL = 1e-6
MAX_STEPS = 5000  # a hard ceiling; never reached for decks the device can build (see make bench)


def fmt_chance(p):
    """A chance as players read it, one decimal place: "0%" only when impossible and "100%"
    only when certain; a possible long shot shows "<0.1%", a near-certainty ">99.9%" (R25, R26).
    Whole numbers only, so CPython and MicroPython print the same text."""
    if p <= 0:
        return "0%"
    if p >= 1:
        return "100%"
    tenths = int(p * 1000 + 0.5)
    if tenths < 1:
        return "<0.1%"
    if tenths > 999:
        return ">99.9%"
    return "%d.%d%%" % (tenths // 10, tenths % 10)


def next_card(counts):
    """R25: the chance of each colour on the next draw, (green, yellow, red, black)."""
    total = sum(counts)
    if total == 0:
        return (0.0, 0.0, 0.0, 0.0)
    return tuple(n / total for n in counts)


def chance(counts, greens_needed, tail=TAIL):
    """R26 for a deck `counts` when `greens_needed` more greens win. -> (chance, undecided, steps)

    Why this is small: a yellow and a red draw both add exactly one yellow (R12, R13), so
    between greens the deck's yellow/red/black counts depend only on m, the number of yellow
    or red cards drawn so far, and compounding (R8) follows m deterministically. The chain's
    state is therefore (j greens drawn, m) and only moves forward. We sweep m upwards and keep,
    for each j, the probability of being at (j, m). Each sweep step is one "inner step" per
    live j. Every yellow/red draw adds a card that compounds into a black after at most nine
    more, so the surviving probability shrinks at least geometrically with m; we stop when it
    is below `tail`, and return that undecided mass as the bound on the error.
    """
    g0, y, r, b = counts
    if greens_needed == 0:
        return 1.0, 0.0, 0
    if greens_needed > g0:
        # not enough greens: the deck runs dry of greens and only blacks can end it (a fail),
        # or it empties outright (R22) -- either way no success is possible
        return 0.0, 0.0, 0
    alive = [0.0] * greens_needed  # alive[j]: probability of being at (j greens drawn, m)
    alive[0] = 1.0
    won = 0.0
    steps = 0
    while True:
        undecided = 0.0
        for j in range(greens_needed):
            p = alive[j]
            if p == 0.0:
                continue
            steps += 1
            g = g0 - j
            total = g + y + r + b
            # a green moves to (j + 1, m): processed in this same sweep, since j rises
            if g:
                moved = p * g / total
                if j + 1 == greens_needed:
                    won += moved
                else:
                    alive[j + 1] += moved
            # a yellow or red moves to (j, m + 1); a black ends it (no referee, R26)
            alive[j] = p * (y + r) / total
            undecided += alive[j]
        if undecided < tail or steps >= MAX_STEPS:
            return won, undecided, steps
        _, y, r, b = settle(0, y + 1, r, b)  # R12/R13 add a yellow, then R8


def action_chance(a, tail=TAIL):
    """R26 for an Action, as (chance, undecided, steps). A pending card is applied first."""
    state = a.state
    if state == "succeeded":
        return 1.0, 0.0, 0
    if state != "active":
        return 0.0, 0.0, 0  # stopped, failed, or a black waiting: R26 assumes no referee pass
    g, y, r, b = a.deck.counts()
    successes = a.successes
    auto_bonus = min(a.auto, a.ranks)
    auto_applied = a.auto_applied
    pending = a.pending
    if pending == BLACK:
        return 0.0, 0.0, 0
    if pending == GREEN:
        g -= 1
        successes += 1 if auto_applied else 1 + auto_bonus
        auto_applied = True
    elif pending == YELLOW or pending == RED:
        _, y, r, b = settle(0, y + 1, r, b)  # R12/R13 add a yellow, then R8
    # greens still to draw (R10), the first of them bringing the automatic successes (R11)
    left = a.needed - successes
    if left > 0 and not auto_applied and auto_bonus:
        left = 1 + max(0, left - 1 - auto_bonus)
    return chance((g, y, r, b), max(0, left), tail)


def success_chance(a):
    """R26: the exact chance that `a` reaches its successes needed before a black."""
    return action_chance(a)[0]
