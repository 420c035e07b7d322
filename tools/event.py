"""An event's records in one SQLite database: the logs of many devices, checked and reported.

    python tools/event.py logs/*.jsonl               log files saved by `make logs`
    python tools/event.py --devices 5                devices plugged in one after another (USB)
    python tools/event.py --simulate 5x400           5 simulated devices, 400 actions each
    make event ARGS="logs/*.jsonl"

Each log is identified by its board's unique id (the "device" in the export's first line;
a file without one is named after the file), its hash chain is verified (tools/logchain.py;
a log without hashes gets a record-continuity check instead), and its records and actions go
into OUT/event.sqlite (default OUT: logs/event). A device already in the database is merged by
record number, so exports taken at different times add up. Then the report, OUT/report.txt:
every action with its lead skill, deck, draws, outcome and device; per skill how many
succeeded, stopped and failed; and the calibration of the dice: the observed success rate
against the chance the device predicted at the start (R26), in bins, with a chi-square, drawn
in OUT/calibration.png.

Calibration: the predicted chance assumes the lead draws to the end, spends no redraw, and no
referee lets a black pass or changes the deck (R26). So only actions with no redraws and no
referee present are used: leaving out just those where a redraw was spent or a black let pass
would keep the lucky ones and drop the unlucky (redraws and referees are chosen after the
card). Actions that never ended (a log cut short) are left out too. A stopped action counts as its chance at the moment it stopped (what it
would score on average had the lead drawn on): under fair dice the expected score of every
action is then its start chance, however the leads decide to stop. Per bin the statistic is
(observed - expected)^2 / variance, the variance sum(p (1 - p)) (an upper bound when some
stopped), summed over bins holding at least MIN_BIN actions, with that many degrees of freedom.
Exit status: 0 done, 1 a log failed verification, 2 a bad argument, path or file.
"""
import argparse
import datetime
import glob
import json
import os
import random
import sqlite3
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "firmware"))

import logchain  # noqa: E402
from bench import chi2_sf  # noqa: E402  -- one incomplete gamma for the project
from odds import whole  # noqa: E402
from carddraw.odds import chance as deck_chance, fmt_chance  # noqa: E402

MIN_BIN = 10        # actions a bin needs to count in the chi-square
OUTCOMES = ("succeeded", "stopped", "failed")
# records after which an action is no longer what R26 predicts
OFF_R26 = {"redraw": "a redraw", "helper_leaves": "a helper left", "adjust": "deck adjusted",
           "undo": "a draw undone"}


class Refused(Exception):
    """A bad argument, path or file: one line, exit status 2, nothing changed."""


# -- reading logs --------------------------------------------------------------------------------
def read_log_file(path, empty_ok=False):
    """-> (device id, header or None, record lines). Raises Refused for what is not a log."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [ln.rstrip("\r\n") for ln in f if ln.strip()]
    except (OSError, UnicodeError) as e:
        raise Refused("%s: cannot be read (%s)" % (path, getattr(e, "strerror", None) or e))
    header, lines = logchain.read_export(lines)
    device = (header or {}).get("device")
    if not device:
        device = os.path.splitext(os.path.basename(path))[0]
    if not lines and header is None and not empty_ok:
        raise Refused("%s: no log records in it (a .jsonl file from make logs is needed)" % path)
    for n, line in enumerate(lines[:3], 1):
        if not line.startswith("{") or "\"ev\"" not in line:
            raise Refused("%s: line %d is not a log record (a .jsonl file from make logs is needed)"
                          % (path, n + (header is not None)))
    return str(device), header, lines


def parse_records(lines):
    """-> [(index, record dict)] for every line that parses (damage is the chain's to report)."""
    out = []
    for i, line in enumerate(lines):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if isinstance(r, dict):
            out.append((i, r))
    return out


def continuity(records):
    """For logs without hashes: draws numbered one by one within each action, every accept
    for the card drawn, seq (if any) without gaps. -> (ok, first bad index or None, message)."""
    draws = seq = None
    for i, r in records:
        ev = r.get("ev")
        if r.get("seq") is not None and seq is not None and r["seq"] != seq + 1:
            return False, i, "line %d: seq %s after %s (records missing or moved)" % (i + 1, r["seq"], seq)
        seq = r.get("seq", seq)
        if ev == "start":
            draws = 0
        elif ev == "draw" and draws is not None:
            if r.get("n") != draws + 1:
                return False, i, "line %d: draw %s after draw %d (records missing)" % (i + 1, r.get("n"), draws)
            draws += 1
        elif ev == "undo" and draws is not None:
            draws = r.get("draws", draws)
        elif ev == "accept" and draws is not None and r.get("n") != draws:
            return False, i, "line %d: accept of draw %s after draw %d" % (i + 1, r.get("n"), draws)
    return True, None, "no hash chain in this log: record continuity checked, %d records" % len(records)


def verify(lines, records):
    if any(logchain.split(ln) for ln in lines):
        return logchain.verify(lines)
    return continuity(records)


# -- actions from records ------------------------------------------------------------------------
def new_action(device, i, r):
    return {"device": device, "line": i + 1, "skill": r.get("skill"), "ranks": r.get("ranks"),
            "helpers": r.get("helpers"), "bonus": r.get("bonus"), "needed": r.get("needed"),
            "auto": r.get("auto"), "redraws": r.get("redraws"), "referee": r.get("referee"),
            "difficulty": r.get("difficulty"), "deck_start": r.get("deck"), "chance": r.get("chance"),
            "cards": [], "deck": r.get("deck"), "successes": 0, "complications": 0,
            "outcome": "unfinished", "off_r26": None, "chance_end": None}


def follow(a, r):
    """One record of an open action. -> True when it ends the action."""
    ev = r.get("ev")
    if ev == "accept":
        a["cards"].append(r.get("card"))
        a["deck"] = r.get("deck", a["deck"])
        a["successes"] = r.get("successes", a["successes"])
        a["complications"] = r.get("complications", a["complications"])
    elif ev in OFF_R26:
        a["off_r26"] = a["off_r26"] or OFF_R26[ev]
        if ev == "undo" and a["cards"]:
            a["cards"].pop()
        a["deck"] = r.get("deck", a["deck"])
    elif ev == "referee":
        a["off_r26"] = a["off_r26"] or ("a black let pass" if r.get("decision") == "continue"
                                        else "ended by the referee")
        a["deck"] = r.get("deck", a["deck"])
    elif ev == "stop":
        a["chance_end"] = chance_at_stop(a)
    elif ev == "end":
        a["outcome"] = r.get("outcome")
        if a["outcome"] == "ended by referee":
            a["off_r26"] = a["off_r26"] or "ended by the referee"
        return True
    return False


def chance_at_stop(a):
    """R26 from the deck and successes when the lead stopped (as carddraw.odds does it)."""
    try:
        left = a["needed"] - a["successes"]
        bonus = min(a["auto"], a["ranks"])
        if left > 0 and bonus and "green" not in a["cards"]:  # R11 not yet applied
            left = 1 + max(0, left - 1 - bonus)
        return deck_chance(tuple(a["deck"]), max(0, left))[0]
    except (TypeError, ValueError):
        return None


def actions_of(device, records):
    out = []
    a = None
    for i, r in records:
        if r.get("ev") == "start":
            if a is not None:
                out.append(a)  # no end: a power cut, resumed under the next start, or cut off
            a = new_action(device, i, r)
        elif a is not None and follow(a, r):
            out.append(a)
            a = None
    if a is not None:
        out.append(a)
    return out


# -- the database --------------------------------------------------------------------------------
SCHEMA = """
CREATE TABLE IF NOT EXISTS devices (device TEXT PRIMARY KEY, files TEXT, records INTEGER,
    verified INTEGER, message TEXT, head TEXT, added TEXT);
CREATE TABLE IF NOT EXISTS records (device TEXT, n INTEGER, seq INTEGER, ev TEXT, ms INTEGER,
    line TEXT, PRIMARY KEY (device, n));
CREATE TABLE IF NOT EXISTS actions (id INTEGER PRIMARY KEY, device TEXT, line INTEGER,
    skill TEXT, ranks INTEGER, helpers INTEGER, bonus INTEGER, difficulty TEXT, needed INTEGER,
    auto INTEGER, redraws INTEGER, referee INTEGER, deck_start TEXT, chance REAL, draws INTEGER,
    cards TEXT, successes INTEGER, complications INTEGER, outcome TEXT, off_r26 TEXT,
    chance_end REAL);
"""
ACTION_COLUMNS = ("device", "line", "skill", "ranks", "helpers", "bonus", "difficulty", "needed",
                  "auto", "redraws", "referee", "deck_start", "chance", "draws", "cards",
                  "successes", "complications", "outcome", "off_r26", "chance_end")


def merged_lines(db, device, lines):
    """A device seen before: its stored lines and these, merged by seq (exports taken at
    different times); without seq the new export replaces the old."""
    old = [row[0] for row in db.execute("SELECT line FROM records WHERE device = ? ORDER BY n", (device,))]
    if not old:
        return lines
    by_seq = {}
    for line in old + lines:
        seq = seq_of(line)
        if seq is None:
            return lines
        by_seq[seq] = line
    return [by_seq[k] for k in sorted(by_seq)]


def seq_of(line):
    parts = logchain.split(line)
    try:
        seq = json.loads(parts[0] if parts else line).get("seq")
    except (ValueError, AttributeError):
        return None
    return seq if type(seq) is int else None


def add_device(db, device, path, lines):
    """Verify one device's log and put its records and actions in the database. -> (ok, message)."""
    lines = merged_lines(db, device, lines)
    records = parse_records(lines)
    ok, _, message = verify(lines, records)
    actions = actions_of(device, records)
    old_files = db.execute("SELECT files FROM devices WHERE device = ?", (device,)).fetchone()
    files = sorted(set((old_files[0].split("\n") if old_files else []) + [path]))
    db.execute("DELETE FROM records WHERE device = ?", (device,))
    db.execute("DELETE FROM actions WHERE device = ?", (device,))
    db.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?)", [
        (device, n, seq_of(line), r.get("ev"), r.get("ms"), line)
        for n, (line, r) in enumerate(zip_records(lines, records))])
    db.executemany("INSERT INTO actions (%s) VALUES (%s)" % (", ".join(ACTION_COLUMNS),
                                                              ", ".join("?" * len(ACTION_COLUMNS))),
                   [action_row(a) for a in actions])
    db.execute("INSERT OR REPLACE INTO devices VALUES (?, ?, ?, ?, ?, ?, ?)", (
        device, "\n".join(files), len(lines), int(ok), message, logchain.head(lines),
        datetime.datetime.now().isoformat(timespec="seconds")))
    return ok, message


def zip_records(lines, records):
    parsed = dict(records)
    return [(line, parsed.get(i, {})) for i, line in enumerate(lines)]


def action_row(a):
    row = dict(a, draws=len(a["cards"]), cards=",".join(str(c) for c in a["cards"]),
               difficulty=json.dumps(a["difficulty"]), deck_start=json.dumps(a["deck_start"]),
               referee=None if a["referee"] is None else int(bool(a["referee"])))
    return tuple(row[k] for k in ACTION_COLUMNS)


# -- the game team's questions -------------------------------------------------------------------
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


# -- a simulated event: the firmware's own Controller and Store under CPython -------------------
def random_settings(lead):
    skill = lead.choice(("surgery", "repair", "scan"))
    s = {"skill": skill, "ranks": lead.randint(0 if skill == "scan" else 1, 5),
         "helpers": lead.choice((0, 0, 1, 2, 3)), "bonus": lead.choice((0, 0, 0, 1)),
         "yellow": lead.choice((0, 0, 1, 2)), "red": lead.choice((0, 0, 1, 2)),
         "black": lead.choice((0, 0, 1, 1, 2)), "needed": lead.choice((1, 1, 2, 2, 3, 4)),
         "auto": lead.choice((0, 0, 0, 1)), "redraws": lead.choice((0, 0, 0, 1))}
    return s


def lead_stops(action, lead):
    """A lead who sees a poor chance on the screen stops half the time, and now and then one
    stops for no reason the dice know of."""
    from carddraw.odds import success_chance
    return (success_chance(action) < 0.15 and lead.random() < 0.5) or lead.random() < 0.02


def play_action(store, dice, lead, t):
    """One action through the Controller's buttons, its records into the Store. -> the time."""
    from carddraw.controller import Controller
    c = Controller(settings=random_settings(lead), rng=dice, now_ms=t)
    c.press("DRAW", t)  # set-up: start the action
    for _ in range(200):
        for record in c.take_log():
            store.log(record)
        a = c.action
        if a is None or (a.state != "active" and a.pending is None):
            break
        t += lead.randint(30000, 60000)  # R21: a draw every 30-60 s
        if c.screen == "active" and lead_stops(a, lead):
            c.press("STOP", t)   # asks to confirm ...
            c.press("DRAW", t)   # ... and stops (R16)
        elif c.screen == "card" and a.pending == "black" and a.redraws_left:
            c.press("HELP", t)   # spend the redraw on a black (R15)
        else:
            c.press("DRAW", t)   # draw, or accept the card on show
    for record in c.take_log():
        store.log(record)
    return t + 60000


def simulate(devices, actions, folder, seed):
    """Simulated devices, each playing `actions` actions with its own dice (the firmware's
    Rng). -> the export files written into folder, one per device."""
    from carddraw.store import Store
    from carddraw.rng import Rng
    os.makedirs(folder, exist_ok=True)
    ids = random.Random(seed)
    paths = []
    for d in range(devices):
        device = "%016x" % ids.getrandbits(64)  # like machine.unique_id() in hex
        lead = random.Random("%d lead %d" % (seed, d))
        dice = Rng((seed * 7919 + d) % (1 << 30))
        with tempfile.TemporaryDirectory() as flash:
            store = Store(root=flash + os.sep, log_limit=1 << 40)  # exported before it rotates
            t = 0
            for _ in range(actions):
                t = play_action(store, dice, lead, t)
            lines = flash_lines(store)
        paths.append(write_export(folder, device, lines))
    return paths


def flash_lines(store):
    """The log's lines as they are on flash, the way the bench exports them."""
    lines, _ = store.read_log(raw=True)
    return [ln.decode() if isinstance(ln, bytes) else ln for ln in lines]


def write_export(folder, device, lines):
    """The file `make logs` writes: the export header, then the device's lines as they are."""
    ok, _, _ = logchain.verify(lines) if any(logchain.split(ln) for ln in lines[:1]) else (False, 0, "")
    header = {"export": logchain.HEADER_KIND, "device": device, "records": len(lines), "damaged": 0,
              "saved": datetime.datetime.now().isoformat(timespec="seconds"), "verified": ok,
              "head": logchain.head(lines)}
    path = os.path.join(folder, "carddraw-log-%s.jsonl" % device)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for line in lines:
            f.write(line + "\n")
    return path


# -- devices plugged in one after another -------------------------------------------------------
def collect(count, folder, bench_args, stdin=None):
    """Ask for each device in turn and save its log with tools/bench.py's own `logs` command
    (its device-finding code and export format). -> the files written."""
    import bench
    stdin = stdin or sys.stdin
    paths = []
    while len(paths) < count:
        sys.stdout.write("plug in device %d of %d and press Enter (end of input: stop) " % (len(paths) + 1, count))
        sys.stdout.flush()
        if not stdin.readline():
            print()
            break
        before = set(glob.glob(os.path.join(folder, "*.jsonl")))
        if bench.main(bench_args + ["logs", "--out", folder]) != 0:
            print("that device's log was not saved: try it again")
            continue
        paths += sorted(set(glob.glob(os.path.join(folder, "*.jsonl"))) - before)
    return paths


# -- the command line ----------------------------------------------------------------------------
class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        raise Refused(message)


def simulate_spec(text):
    try:
        devices, actions = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("must be DEVICESxACTIONS, e.g. 5x400, not %r" % text)
    if not (1 <= devices <= 100 and 1 <= actions <= 100000):
        raise argparse.ArgumentTypeError("devices 1-100 and actions 1-100000 each, not %r" % text)
    return devices, actions


def bounded(low, high):
    return whole("number", low, high)  # odds.py's: one whole-number check for the tools


def parser():
    p = OneLineParser(prog="event", description=__doc__.split("\n\n")[0],
                      formatter_class=argparse.RawDescriptionHelpFormatter,
                      epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("logs", nargs="*", metavar="LOG.jsonl", help="log files saved by make logs")
    p.add_argument("--out", default=os.path.join("logs", "event"),
                   help="folder for event.sqlite, report.txt, calibration.png (default logs/event)")
    p.add_argument("--devices", type=bounded(1, 100), metavar="N",
                   help="collect N devices plugged in one after another over USB")
    p.add_argument("--port", help="--devices: this serial port (default: found by USB id)")
    p.add_argument("--sim", action="store_true", help="--devices: the simulator instead of a board")
    p.add_argument("--simulate", type=simulate_spec, metavar="DxA",
                   help="simulate D devices playing A actions each (firmware under CPython)")
    p.add_argument("--seed", type=bounded(0, 2 ** 30 - 1), default=1, help="--simulate: seed (default 1)")
    p.add_argument("--bins", type=bounded(2, 20), default=10, help="calibration bins (default 10)")
    return p


def gather(args):
    """The log files to read, every one checked before anything is written: -> [(path, device,
    lines)]. Raises Refused."""
    if not (args.logs or args.devices or args.simulate):
        raise Refused("nothing to read: give log files, --devices N or --simulate DxA (event --help)")
    if (args.port or args.sim) and not args.devices:
        raise Refused("--port and --sim are for --devices")
    paths = []
    for pattern in args.logs:
        found = sorted(glob.glob(pattern)) if any(ch in pattern for ch in "*?[") else [pattern]
        if not found or not os.path.isfile(found[0]):
            raise Refused("%s: no such log file" % pattern)
        paths += found
    logs = [(path,) + read_log_file(path)[::2] for path in paths]
    make_folder(args.out)
    if args.simulate:
        for path in simulate(args.simulate[0], args.simulate[1], os.path.join(args.out, "simulated"),
                             args.seed):
            logs.append((path,) + read_log_file(path)[::2])
    if args.devices:  # a device with nothing in its log yet is no error
        bench_args = ["--sim"] if args.sim else (["--port", args.port] if args.port else [])
        for path in collect(args.devices, os.path.join(args.out, "collected"), bench_args):
            logs.append((path,) + read_log_file(path, empty_ok=True)[::2])
    return logs


def make_folder(folder):
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise Refused("--out: cannot make the folder %s (%s)" % (folder, e.strerror or e))
    if not os.access(folder, os.W_OK):
        raise Refused("--out: the folder %s cannot be written" % folder)


def main(argv=None):
    try:
        args = parser().parse_args(argv)
        logs = gather(args)
    except Refused as e:
        sys.stderr.write("event: %s\n" % e)
        return 2
    db_path = os.path.join(args.out, "event.sqlite")
    db = sqlite3.connect(db_path)
    all_ok = True
    with db:
        db.executescript(SCHEMA)
        for path, device, lines in logs:
            ok, message = add_device(db, device, path, lines)
            all_ok = all_ok and ok
            print("%s  %s: %s" % ("OK  " if ok else "FAIL", device, message))
    cal = calibration(db, args.bins)
    report_path = os.path.join(args.out, "report.txt")
    chart_path = os.path.join(args.out, "calibration.png")
    with open(report_path, "w", encoding="utf-8") as f:
        f.write(report_text(db, cal, args.bins))
    plot_calibration(cal, chart_path)
    db.close()
    print(summary(cal, db_path, report_path, chart_path))
    return 0 if all_ok else 1


def summary(cal, db_path, report_path, chart_path):
    _, stat, df, p, used, left_out = cal
    line = ("calibration: %d actions (%d left out), chi-square %.2f with %d degrees of freedom, p = %.3g"
            % (used, left_out, stat, df, p)) if df else "calibration: too few actions for a chi-square"
    return "%s\ndatabase: %s\nreport:   %s\nchart:    %s" % (line, db_path, report_path, chart_path)


if __name__ == "__main__":
    sys.exit(main())
