"""The game team's questions: per skill how many succeeded, stopped and failed; every action;
and the dice's calibration (the observed success rate against the chance predicted at the
start, R26, in bins, with a chi-square), as report.txt and a chart."""
import datetime
import json

from common.chi2 import chi2_sf  # one incomplete gamma for the project
from carddraw.odds import fmt_chance

MIN_BIN = 10        # actions a bin needs to count in the chi-square
OUTCOMES = ("succeeded", "stopped", "failed")


def per_skill(db):
    """-> [(skill, succeeded, stopped, failed, other, total)]."""
    rows = db.execute("SELECT skill, outcome, COUNT(*) FROM actions GROUP BY skill, outcome").fetchall()
    table = {}
    for skill, outcome, n in rows:
        t = table.setdefault(skill, dict.fromkeys(OUTCOMES + ("other",), 0))
        t[outcome if outcome in OUTCOMES else "other"] += n
    return [(s,) + tuple(t[k] for k in OUTCOMES + ("other",)) + (sum(t.values()),)
            for s, t in sorted(table.items(), key=lambda kv: str(kv[0]))]


def calibration(db, bins):
    """-> (rows, stat, df, p, used, left_out). rows: (low, high, n, predicted mean, observed
    rate, expected successes, observed score, variance, counted)."""
    acts = db.execute("SELECT chance, outcome, chance_end, off_r26 FROM actions "
                      "WHERE redraws = 0 AND referee = 0").fetchall()
    left_out = db.execute("SELECT COUNT(*) FROM actions").fetchone()[0] - len(acts)
    sums = [[0, 0.0, 0.0, 0.0] for _ in range(bins)]  # n, expected, observed, variance
    used = 0
    for p, outcome, p_end, off in acts:
        score = {"succeeded": 1.0, "failed": 0.0, "stopped": p_end}.get(outcome)
        if off or p is None or score is None:
            left_out += 1  # never ended, or a referee's doing despite no referee set
            continue
        used += 1
        s = sums[min(bins - 1, int(p * bins))]
        s[0] += 1
        s[1] += p
        s[2] += score
        s[3] += p * (1 - p)
    rows, stat, df = [], 0.0, 0
    for k, (n, expected, observed, variance) in enumerate(sums):
        counted = n >= MIN_BIN and variance > 0
        if counted:
            stat += (observed - expected) ** 2 / variance
            df += 1
        rows.append((k / bins, (k + 1) / bins, n, expected / n if n else None,
                     observed / n if n else None, expected, observed, variance, counted))
    p_value = chi2_sf(stat, df) if df else None
    return rows, stat, df, p_value, used, left_out


# -- the report ----------------------------------------------------------------------------------
def report_text(db, cal, bins):
    rows, stat, df, p, used, left_out = cal
    out = ["Card Draw event report, %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), ""]
    devices = db.execute("SELECT device, records, verified, message FROM devices ORDER BY device").fetchall()
    n_actions = db.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    out.append("%d devices, %d records, %d actions" % (len(devices), sum(d[1] for d in devices), n_actions))
    for device, records, ok, message in devices:
        out.append("  %-18s %6d records  %s  %s" % (device, records, "OK  " if ok else "FAIL", message))
    out += ["", "per skill:", "  %-8s %9s %7s %6s %5s %6s" % ("skill", "succeeded", "stopped", "failed",
                                                               "other", "total")]
    for skill, s, st, f, other, total in per_skill(db):
        out.append("  %-8s %9d %7d %6d %5d %6d" % (skill, s, st, f, other, total))
    out += ["", "calibration: observed against the chance predicted at the start (R26)",
            "  %d actions used; %d left out (redraws allowed, a referee present, or never ended)"
            % (used, left_out),
            "  %-11s %7s %9s %9s %9s" % ("predicted", "actions", "expected", "observed", "in test")]
    for low, high, n, pred, obs, expected, observed, variance, counted in rows:
        out.append("  %3.0f-%3.0f%%   %7d %9s %9s %9s" % (
            100 * low, 100 * high, n, fmt_chance(pred) if n else "-", fmt_chance(obs) if n else "-",
            "yes" if counted else "no"))
    if df:
        out.append("  chi-square %.2f with %d degrees of freedom: p = %.3g (%s)" % (
            stat, df, p, "the dice match the predicted chances" if p >= 0.01 else
            "the outcomes are further from the predictions than chance explains (p < 0.01)"))
    else:
        out.append("  too few actions for a chi-square (a bin needs %d)" % MIN_BIN)
    out += ["", "every action:", "  %5s %-18s %-7s %5s %-9s %8s %s" % (
        "#", "device", "skill", "ranks", "deck", "chance", "draws -> outcome")]
    for row in db.execute("SELECT id, device, skill, ranks, deck_start, chance, cards, outcome, "
                          "off_r26 FROM actions ORDER BY id"):
        aid, device, skill, ranks, deck, chance, cards, outcome, off = row
        letters = "".join(c[0].upper() for c in cards.split(",") if c) or "-"
        out.append("  %5d %-18s %-7s %5s %-9s %8s %s -> %s%s" % (
            aid, device, skill, ranks, "/".join(str(x) for x in json.loads(deck or "[]")),
            fmt_chance(chance) if chance is not None else "?", letters, outcome,
            " (%s)" % off if off else ""))
    return "\n".join(out) + "\n"


def plot_calibration(cal, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, stat, df, p, used, _ = cal
    shown = [r for r in rows if r[2]]
    fig, ax = plt.subplots(figsize=(7, 6), dpi=110)
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", label="observed = predicted")
    xs = [r[3] for r in shown]
    ys = [r[4] for r in shown]
    errs = [1.96 * r[7] ** 0.5 / r[2] for r in shown]
    ax.errorbar(xs, ys, yerr=errs, fmt="o", color="tab:blue", capsize=4,
                label="observed success rate (95% band under fair dice)")
    for r in shown:
        ax.annotate("%d" % r[2], (r[3], r[4]), textcoords="offset points", xytext=(6, -12), fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("chance to succeed predicted at the start")
    ax.set_ylabel("observed (a stopped action scores its chance when stopped)")
    verdict = ("chi-square %.2f, %d d.f., p = %.3g" % (stat, df, p)) if df else "too few actions"
    ax.set_title("Card Draw calibration: %d actions; %s" % (used, verdict), fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    try:
        fig.savefig(path)
    finally:
        plt.close(fig)


def summary(cal, db_path, report_path, chart_path):
    _, stat, df, p, used, left_out = cal
    line = ("calibration: %d actions (%d left out), chi-square %.2f with %d degrees of freedom, p = %.3g"
            % (used, left_out, stat, df, p)) if df else "calibration: too few actions for a chi-square"
    return "%s\ndatabase: %s\nreport:   %s\nchart:    %s" % (line, db_path, report_path, chart_path)
