"""bench logs: the device's action log saved as .jsonl (byte for byte, hashes kept) and .csv,
its hash chain verified, then the export acknowledged so the device may drop those records
once its log is full. The folder must be new, empty or the tools' own (they list what they
wrote there in its .carddraw-files): any other is refused in one line before the device is
asked for its log."""
import csv
import datetime
import json
import os
import sys

from common import logchain, output  # the log's hash chain, shared with tools/event.py

TOOL = "tools/bench.py logs"


def csv_cell(value):
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def write_logs(header, lines, out, stamp):
    """-> (jsonl path, csv path): carddraw-<device>-<stamp>.jsonl holds the header line, then
    each record's line as the device sent it (hashes kept: logchain.read_export reads it back);
    the .csv one row per record, columns ev, ms, then every other key as first seen.
    Raises output.NotOurs for a folder that is not the tools'."""
    name = "carddraw-%s-%s" % (safe_name(header["device"]), stamp)
    base = os.path.join(out, name)
    n = 1
    while os.path.lexists(base + ".jsonl") or os.path.lexists(base + ".csv"):
        n += 1
        base = os.path.join(out, "%s-%d" % (name, n))
    output.claim(out, [os.path.basename(base) + ".jsonl", os.path.basename(base) + ".csv"], TOOL)
    with open(base + ".jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for line in lines:
            f.write(line + "\n")
    records = [parse_record(line) for line in lines]
    columns = ["ev", "ms"]
    for r in records:
        for k in r:
            if k not in columns:
                columns.append(k)
    with open(base + ".csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in records:
            w.writerow([csv_cell(r.get(k)) for k in columns])
    return base + ".jsonl", base + ".csv"


def safe_name(text):
    """The device id as a file-name part: letters and digits only."""
    return "".join(c for c in str(text) if c.isascii() and c.isalnum())[:32] or "unknown"


def parse_record(line):
    try:
        r = json.loads(line)
    except ValueError:
        return {"ev": "(not json)", "line": line}
    return r if isinstance(r, dict) else {"ev": "(not an object)", "line": line}


def log_text(item):
    """A streamed log line: its text as on flash (older firmware sent the record itself)."""
    return item if isinstance(item, str) else json.dumps(item, separators=(",", ":"))


def arguments(p):
    p.add_argument("--out", default="logs", help="folder (default: logs/)")
    p.add_argument("--no-ack", action="store_true",
                   help="do not acknowledge: the device keeps counting these records as not "
                        "exported")


def refusal(args):
    """Why --out cannot take the export, or None: asked before the device is."""
    try:
        output.check(args.out, None, TOOL)
    except output.NotOurs as e:
        return "--out: %s" % e
    return None


def run(link, args):
    lines = []
    r = link.request("log", each=lambda item: lines.append(log_text(item)))
    if r.get("ok") != "log":
        sys.stderr.write("the device refused: %s\n" % r.get("error", json.dumps(r)))
        return 2
    if r.get("records") != len(lines):
        sys.stderr.write("warning: the device sent %d records, received %d\n"
                         % (r.get("records"), len(lines)))
    ok, first_bad, message = logchain.verify(lines)
    now = datetime.datetime.now()
    header = {"export": logchain.HEADER_KIND, "device": r.get("device", "unknown"),
              "records": len(lines), "damaged": r.get("damaged", 0),
              "saved": now.isoformat(timespec="seconds"), "verified": ok,
              "head": logchain.head(lines)}
    if not ok:
        header["problem"] = message
    try:
        jsonl, csv_path = write_logs(header, lines, args.out, now.strftime("%Y%m%d-%H%M%S"))
    except output.NotOurs as e:
        sys.stderr.write("bench logs: --out: %s\n" % e)
        return 2
    print("%d log record%s from device %s%s saved to:\n  %s\n  %s" % (
        len(lines), "" if len(lines) == 1 else "s", header["device"],
        " (%d damaged lines skipped on the device)" % r["damaged"] if r.get("damaged") else "",
        jsonl, csv_path))
    print(message if ok else "NOT VERIFIED: " + message)
    if lines and not args.no_ack:
        acknowledge(link, lines[-1])
    return 0 if ok else 1


def acknowledge(link, line):
    """Tell the device the log is saved up to its last record, so that when its log is full
    it may drop segments holding only saved records (never any other)."""
    parts = logchain.split(line)
    seq = parts and parse_record(parts[0]).get("seq")
    if not isinstance(seq, int):
        print("not acknowledged: the last record has no seq and hash (older firmware)")
        return
    r = link.request("log ack %d %s" % (seq, parts[1]))
    if r.get("ok") == "ack":
        print("acknowledged: the device may drop records up to %d once its log is full" % seq)
    else:
        print("not acknowledged: %s" % r.get("error", json.dumps(r)))
