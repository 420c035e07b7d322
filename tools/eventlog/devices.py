"""Devices plugged in one after another over USB (or the simulator), each log saved by the
bench's own `logs` command."""
import glob
import os
import sys

import bench


def collect(count, folder, bench_args, stdin=None):
    """Ask for each device in turn and save its log with tools/bench.py's own `logs` command
    (its device-finding code and export format). -> the files written."""
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
