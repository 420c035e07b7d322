"""An event's log files read and checked (the hash chain, or record continuity for a log
without hashes), and the actions in their records."""
import json
import os

from common import logchain  # and firmware/ on sys.path, for carddraw
from carddraw.odds import chance as deck_chance

# records after which an action is no longer what R26 predicts
OFF_R26 = {"redraw": "a redraw", "helper_leaves": "a helper left", "adjust": "deck adjusted",
           "undo": "a draw undone"}


class Refused(Exception):
    """A bad argument, path or file: one line, exit status 2, nothing changed."""


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
