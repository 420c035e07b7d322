# Exact odds the device shows (R25, R26). Pure, iterative, cheap enough for an RP2040.
from .deck import settle

MAX_STEPS = 5000  # a hard ceiling; never reached for decks the device can build (see make bench)


def fmt_chance(p, places=1):
    """A chance as players read it, to `places` decimal places (1, or 0 for whole percents):
    "0%" only when impossible and "100%" only when certain; a possible long shot shows "<0.1%"
    ("<1%"), a near-certainty ">99.9%" (">99%") (R25, R26; one rule on every screen).
    Whole numbers only, so CPython and MicroPython print the same text."""
    if p <= 0:
        return "0%"
    if p >= 1:
        return "100%"
    if not places:
        n = int(p * 100 + 0.5)
        return "<1%" if n < 1 else ">99%" if n > 99 else "%d%%" % n
    tenths = int(p * 1000 + 0.5)
    if tenths < 1:
        return "<0.1%"
    if tenths > 999:
        return ">99.9%"
    return "%d.%d%%" % (tenths // 10, tenths % 10)


def next_card(counts):
    """R25: the chance of each colour on the next draw, (green, yellow, red, black)."""
    g, y, r, b = counts
    total = g + y + r + b
    if total == 0:
        return (0.0, 0.0, 0.0, 0.0)
    return (g / total, y / total, r / total, b / total)


def chance(counts, greens_needed):
    """R26 for a deck `counts` when `greens_needed` more greens win. -> (chance, undecided, steps)

    Why this is small: a yellow and a red draw both add exactly one yellow (R12, R13), so
    between greens the deck's yellow/red/black counts depend only on m, the number of yellow
    or red cards drawn so far, and compounding (R8) follows m deterministically. The chain's
    state is therefore (j greens drawn, m) and only moves forward. We sweep m upwards and keep,
    for each j, the probability of being at (j, m). Each sweep step is one "inner step" per
    live j. Every yellow/red draw adds a card that compounds into a black after at most nine
    more, so the surviving probability shrinks at least geometrically with m; we stop when it
    is below 1e-6, and return that undecided mass as the bound on the error.
    """
    if greens_needed > counts[0]:
        # not enough greens: the deck runs dry of greens and only blacks can end it (a fail),
        # or it empties outright (R22) -- either way no success is possible
        return 0.0, 0.0, 0
    won, _, _, undecided, steps = risk(counts, greens_needed, False)
    return won, undecided, steps


def risk(counts, greens_needed, risks=True):
    """The risks beside R26's chance, in R26's model: the lead draws until success or a black
    (no stop, no redraw, no referee pass). -> (chance, red, black, undecided, steps): red the
    chance that at least one red card (a complication, R13) is drawn before the action ends,
    black the chance that a black ends it (R14). Each is exact to within `undecided`.

    chance()'s sweep over (j, m), the one engine (chance() calls it with risks False); with
    `risks`, also the black mass and, beside alive[], clean[j]: the probability of being at
    (j, m) with no red drawn yet, whose red draws are the first complication. Both arrays only
    move forward, so the state is two lists of greens_needed + 1 floats. Steps: one per live
    (j, m), one more per live clean (j, m); the ceiling counts the first kind only, so the
    chance is the same with or without the risks."""
    if greens_needed == 0:
        return 1.0, 0.0, 0.0, 0.0, 0
    g0, y, r, b = counts
    # alive[j]: the probability of being at (j greens drawn, m); alive[greens_needed], where
    # the last green needed moves to, gathers the chance (never visited: the action is won)
    alive = [0.0] * (greens_needed + 1)
    alive[0] = 1.0
    clean = [0.0] * (greens_needed + 1) if risks else alive
    clean[0] = 1.0
    red = black = 0.0
    visits = steps = 0
    while True:
        undecided = 0.0
        ends = firsts = 0.0  # sum over j of p / total, and of clean's: y, r, b are j's alike
        for j in range(greens_needed):
            p = alive[j]
            if p == 0.0:
                continue
            visits += 1
            g = g0 - j
            total = g + y + r + b
            if total == 0:  # R22: only greens were left and too few: stuck, neither outcome
                alive[j] = clean[j] = 0.0
                continue
            # one division per state: on the board every float made is a heap allocation
            share = p / total
            # a green moves to (j + 1, m): processed in this same sweep, since j rises
            if g:
                alive[j + 1] += share * g
            # a yellow or red moves to (j, m + 1); a black ends it (no referee, R26)
            alive[j] = share * (y + r)
            undecided += alive[j]
            if risks:
                ends += share
                share = clean[j]
                if share != 0.0:
                    steps += 1
                    share /= total
                    firsts += share
                    if g:
                        clean[j + 1] += share * g
                    clean[j] = share * y
        if risks:
            if b:
                black += ends * b  # R14: a black ends it
            if r:
                red += firsts * r  # R13: the first red
        # R26 stops once the probability still undecided is below 1e-6: an exact bound on the
        # error, the true chance lies in [result, result + undecided]
        if undecided < 1e-6 or visits >= MAX_STEPS:
            return alive[greens_needed], red, black, undecided, steps + visits
        _, y, r, b = settle(0, y + 1, r, b)  # R12/R13 add a yellow, then R8


def remaining(a):
    """What R26 still draws for the Action `a`: (deck counts, greens still needed) once the
    pending card is applied (R10-R13, R8), the first green bringing the automatic successes
    (R11); None when no draw is to come (decided, or a black drawn: R26 allows no pass)."""
    pending = a.pending
    if a.state != "active" or pending == "black":
        return None
    g, y, r, b = a.deck.counts()
    left = greens_left(a.needed, a.successes, a.green_gain() - 1)
    if pending == "green":  # R10: one of them drawn (with the automatic successes, R11)
        g -= 1
        left = max(0, left - 1)
    elif pending is not None:  # a yellow or a red
        _, y, r, b = settle(0, y + 1, r, b)  # R12/R13 add a yellow, then R8
    return (g, y, r, b), left


def greens_left(needed, successes, auto_bonus):
    """Greens still to draw (R10) for `needed` successes with `successes` won, the first of
    them bringing `auto_bonus` automatic successes besides its own (R11; 0 once they came).
    remaining() uses it for an Action, the set-up screen for the action it would start."""
    left = needed - successes
    if left > 0 and auto_bonus:
        left = 1 + max(0, left - 1 - auto_bonus)
    return max(0, left)


def action_chance(a):
    """R26 for an Action, as (chance, undecided, steps). A pending card is applied first."""
    todo = remaining(a)
    if todo is None:  # stopped, failed, or a black drawn: R26 assumes no referee pass
        return (1.0 if a.state == "succeeded" else 0.0), 0.0, 0
    return chance(*todo)


def action_risk(a):
    """R26's chance and the risks beside it for an Action: (chance, red, black, undecided,
    steps), as risk() for the cards not yet applied: the pending card first (a pending red is a
    complication, a pending black the end), then the draws to come. A decided action has no
    risk left."""
    todo = remaining(a)
    if todo is None:
        pending_black = 1.0 if a.state == "active" else 0.0  # a black drawn, not yet accepted
        return (1.0 if a.state == "succeeded" else 0.0), 0.0, pending_black, 0.0, 0
    won, red, black, undecided, steps = risk(*todo)
    if a.pending == "red":
        red = 1.0
    return won, red, black, undecided, steps


def success_chance(a):
    """R26: the exact chance that `a` reaches its successes needed before a black."""
    return action_chance(a)[0]


class Odds:
    """The odds a screen shows of an action, from risk()'s or action_risk()'s five: R26's
    chance, and the risks beside it (red: at least one complication before the end; black: a
    black ends it)."""

    def __init__(self, risks):
        self.chance, self.red, self.black, _, _ = risks
        self.words = None  # how the screens say them (texts.odds_words), once made


def action_odds(a):
    """An Action's Odds."""
    return Odds(action_risk(a))


def planned_odds(counts, needed, auto, ranks):
    """The Odds of an action not yet begun: its deck, successes needed and automatic
    successes (R7, R11, R26), as its first active screen will show them."""
    return Odds(risk(counts, greens_left(needed, 0, min(auto, ranks))))
