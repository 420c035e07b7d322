"""The event's SQLite database: devices, their records and the actions in them. A device seen
again is merged record by record (by seq), so exports taken on different days add up."""
import datetime
import json

from common import logchain
from eventlog.records import actions_of, parse_records, verify


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
