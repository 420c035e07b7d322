"""An event's records in one SQLite database: the logs of many devices, checked and reported.

    python tools/event.py logs/*.jsonl               log files saved by `make logs`
    python tools/event.py --devices 5                devices plugged in one after another (USB)
    python tools/event.py --simulate 5x400           5 simulated devices, 400 actions each
    make event ARGS="logs/*.jsonl"

Each log is identified by its board's unique id (the "device" in the export's first line;
a file without one is named after the file), its hash chain is verified
(tools/common/logchain.py; a log without hashes gets a record-continuity check instead), and
its records and actions go into OUT/event.sqlite (default OUT: logs/event). A device already in the database is merged by
record number, so exports taken at different times add up. Then the report, OUT/report.txt:
every action with its lead skill, deck, draws, outcome and device; per skill how many
succeeded, stopped and failed; and the calibration of the dice: the observed success rate
against the chance the device predicted at the start (R26), in bins, with a chi-square, drawn
in OUT/calibration.png. OUT must be new, empty or the tools' own (they list what they wrote
there in its .carddraw-files): a folder of other files, or one of those names there that they
did not write, is refused in one line before anything is written (so is --simulate's or
--devices' folder under OUT, simulated/ or collected/).

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
import glob
import os
import sqlite3
import sys

from common import cli, output
from eventlog import devices, simulated
from eventlog.database import SCHEMA, add_device
from eventlog.records import Refused, read_log_file
# per_skill: the report's table of outcomes, which the tests read through this module too
from eventlog.report import calibration, per_skill, plot_calibration, report_text, summary  # noqa: F401


TOOL = "tools/event.py"
WRITES = ("event.sqlite", "report.txt", "calibration.png")


def number(low, high):
    return cli.whole("number", low, high)


def simulate_spec(text):
    try:
        devices, actions = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("must be DEVICESxACTIONS, e.g. 5x400, not %r" % text)
    if not (1 <= devices <= 100 and 1 <= actions <= 100000):
        raise argparse.ArgumentTypeError("devices 1-100 and actions 1-100000 each, not %r" % text)
    return devices, actions


def simulated_logs(args, folder):
    return simulated.simulate(args.simulate[0], args.simulate[1], folder, args.seed)


def collected_logs(args, folder):
    bench_args = ["--sim"] if args.sim else (["--port", args.port] if args.port else [])
    return devices.collect(args.devices, folder, bench_args)


# Where logs come from beside files, as mpremote keeps its commands in a table: the option ->
# (the source, writing its logs into this folder under --out, -> their paths; whether a log
# may be empty: a device with nothing logged yet is no error)
SOURCES = {"simulate": (simulated_logs, "simulated", False),
           "devices": (collected_logs, "collected", True)}


def parser():
    p = cli.parser("event", __doc__)
    p.add_argument("logs", nargs="*", metavar="LOG.jsonl", help="log files saved by make logs")
    p.add_argument("--out", default=os.path.join("logs", "event"),
                   help="folder for event.sqlite, report.txt, calibration.png (default logs/event)")
    p.add_argument("--devices", type=number(1, 100), metavar="N",
                   help="collect N devices plugged in one after another over USB")
    p.add_argument("--port", help="--devices: this serial port (default: found by USB id)")
    p.add_argument("--sim", action="store_true", help="--devices: the simulator instead of a board")
    p.add_argument("--simulate", type=simulate_spec, metavar="DxA",
                   help="simulate D devices playing A actions each (firmware under CPython)")
    p.add_argument("--seed", type=number(0, 2 ** 30 - 1), default=1, help="--simulate: seed (default 1)")
    p.add_argument("--bins", type=number(2, 20), default=10, help="calibration bins (default 10)")
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
    try:
        output.claim(args.out, list(WRITES), TOOL)
    except output.NotOurs as e:
        raise Refused("--out: %s" % e)
    for name, (source, folder, empty_ok) in SOURCES.items():
        if getattr(args, name):
            for path in source(args, os.path.join(args.out, folder)):
                logs.append((path,) + read_log_file(path, empty_ok=empty_ok)[::2])
    return logs


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    try:
        logs = gather(args)
    except output.NotOurs as e:       # --simulate's folder under OUT
        p.error("--out: %s" % e)
    except Refused as e:
        p.error(str(e))
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


if __name__ == "__main__":
    sys.exit(main())
