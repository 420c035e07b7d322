"""The chi-square test, for the bench's draws (every card equally likely, R9) and the event's
calibration (observed successes against the chances predicted, R26). Pure CPython: the
incomplete gamma function is written out, so no SciPy is needed."""
import math


def gamma_q(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a):
    a power series for P = 1 - Q below x = a + 1, a continued fraction for Q above."""
    if x <= 0:
        return 1.0
    front = math.exp(a * math.log(x) - x - math.lgamma(a))
    if x < a + 1:
        term = total = 1.0 / a
        k = a
        for _ in range(10000):
            k += 1
            term *= x / k
            total += term
            if term < total * 1e-16:
                break
        return max(0.0, 1.0 - front * total)
    tiny = 1e-300   # Lentz's method on the continued fraction
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return front * h


def chi2_sf(stat, df):
    """P(X >= stat) for X chi-square distributed with df degrees of freedom."""
    return gamma_q(df / 2, stat / 2)


def chi_square(counts, deck):
    """-> (statistic, degrees of freedom, p-value) of counts against the deck's odds (R9:
    every card equally likely). A colour with no card drawn anyway gives p = 0."""
    n = sum(counts)
    total = sum(deck)
    stat = 0.0
    cells = 0
    for seen, cards in zip(counts, deck):
        if cards == 0:
            if seen:
                return float("inf"), max(0, cells - 1), 0.0
            continue
        want = n * cards / total
        stat += (seen - want) ** 2 / want
        cells += 1
    df = cells - 1
    return stat, df, (chi2_sf(stat, df) if df > 0 else 1.0)
