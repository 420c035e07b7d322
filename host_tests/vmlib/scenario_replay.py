# The bench scenarios (tools/scenarios/*.txt) played on the simulated device (tools/sim/
# simhost.py: the firmware on the hardware stand-ins), in the Python that the MicroPython
# WebAssembly VM and native MicroPython share. test_native.py compares the replies.
import json
import os

import simhost


def replay_file(path, flash_root, seed=1):
    """replay() of the scenarios in a JSON file."""
    with open(path) as f:
        scenarios = json.load(f)
    return replay(scenarios, flash_root, seed)


def replay(scenarios, flash_root, seed=1):
    """scenarios: [[name, [protocol line, ...]], ...]. Each starts on a freshly booted device
    with a flash of its own (as bench.py --sim runs them). -> {name: [[reply, ...] per line]}."""
    try:
        os.mkdir(flash_root)
    except OSError:
        pass
    out = {}
    for name, lines in scenarios:
        dev = simhost.Device(seed=seed, flash=flash_root + "/" + name)
        replies = []
        for line in lines:
            r = json.loads(dev.meta(line) if line.startswith("!") else dev.run_line(line))
            replies.append([json.loads(x) for x in r["replies"]])
        out[name] = replies
    return out
