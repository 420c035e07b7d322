"""The terminal simulator's trust (issue 34, items 6 and 7), on the shared driver
(tools/sim/device.mjs) the web app runs too:

- its generator is keyed from 256 bits of Node's crypto, never a small seed: two boots whose
  VM `random` is seeded alike draw differently (`--seed N` stays, a developer's repeatable
  run, and draws alike);
- its time is real time: ten minutes missed at once (a laptop asleep, a stopped process) are
  caught up in one tick, drawing the timed cards that fell due (R21), and a terminal stopped
  with SIGSTOP shows the time it missed as soon as it runs again.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from carddraw import config, settings
from webpage import seed_where
from ptysim import PtySim

SIM = os.path.join(ROOT, "tools", "sim", "sim.mjs")
SCRIPT = """
import { bootVM, ROOT } from %s;
import { SimDevice, RealTime } from %s;
const result = {};
async function device(seed, pySeed) {
  const mp = await bootVM({ libs: [ROOT + "/tools/sim"], stdout: () => {} });
  if (pySeed !== null) mp.runPython("import random\\nrandom.seed(" + pySeed + ")");
  const dev = new SimDevice(mp);
  dev.boot({ seed });
  return dev;
}
function draws(dev) {
  dev.mp.runPython("import json\\n_d = json.dumps([_sim_device.app.controller.rng"
    + ".randrange(1 << 16) for i in range(24)])");
  return JSON.parse(dev.mp.globals.get("_d"));
}
const show = (dev) => JSON.parse(dev.line("show").replies[0]);
%s
process.stdout.write(JSON.stringify(result), () => process.exit(0));
"""


def node(body):
    url = lambda *p: json.dumps("file://" + os.path.join(ROOT, *p))  # noqa: E731
    script = SCRIPT % (url("tools", "mpvm", "vm.mjs"), url("tools", "sim", "device.mjs"), body)
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_generator_is_keyed_from_the_hosts_entropy_and_a_seed_is_a_developers_option():
    # one VM a process (the VM's JavaScript side keeps globals of the last one loaded)
    def boot(seed, py_seed):
        return node("""const dev = await device(%s, %s);
          result.entropy = dev.stats().entropy; result.draws = draws(dev);""" % (seed, py_seed))
    a, b = boot("null", 7), boot("null", 7)             # the VM's random seeded alike
    assert a["entropy"] == b["entropy"] == "host"
    assert a["draws"] != b["draws"] and len(set(a["draws"])) > 16
    c, d = boot(11, "null"), boot(11, "null")           # --seed 11, twice
    assert c["entropy"] == d["entropy"] == "seed" and c["draws"] == d["draws"]


def timed_setup():
    """Protocol lines: the options as a person sets them (timed mode on, 9 successes
    needed), back to set-up: by the rows' order in settings.OPTIONS."""
    timed, needed = settings.OPTIONS.index("timed"), settings.OPTIONS.index("needed")
    return (["long DRAW"] + ["press HELP"] * timed + ["press DRAW"]
            + ["press RANK"] * (timed - needed) + ["press DRAW"] + ["press HELP"] * 8
            + ["press DRAW", "press STOP"])


def test_ten_minutes_missed_draw_the_timed_cards_that_fell_due_at_once():
    seed = seed_where(lambda cards, a: a.state == "active", draws=15, needed=9)
    lines = timed_setup() + ["unlock RHRH", "seed %d" % seed, "lock", "press DRAW"]
    interval = config.NUMBERS["interval"][0] * 1000    # the default: 45 s
    r = node("""
      const dev = await device(null, null);
      for (const line of %s) dev.line(line);
      result.before = show(dev);
      const keys = new RealTime(dev, 0);
      const t = performance.now();
      keys.tick(600000);                        // ten minutes in one tick
      result.took = performance.now() - t;
      result.after = show(dev);
      keys.tick(600000 + %d);                   // and one interval more, in real time
      result.more = show(dev);""" % (json.dumps(lines), interval))
    assert r["before"]["screen"] == "active" and r["before"]["draws"] == 0
    assert r["before"]["needed"] == 9
    assert r["after"]["draws"] == 600_000 // interval          # R21: 13 at 45 s
    assert r["after"]["state"] == "active"
    assert r["more"]["draws"] == r["after"]["draws"] + 1
    assert r["took"] < 15_000, "ten minutes took %.1f s to catch up" % (r["took"] / 1000)


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_stopped_terminal_catches_up_the_time_it_missed():
    sim = PtySim("--full")
    started = time.monotonic()

    def shown():
        found = re.findall(rb"time (\d+) s", sim.out)
        return int(found[-1]) if found else None

    try:
        sim.read(2.0)
        assert shown() is not None, sim.out[-400:]
        os.kill(sim.pid, signal.SIGSTOP)    # our own child, by its id: stopped 5 s
        time.sleep(5)
        os.kill(sim.pid, signal.SIGCONT)
        sim.read(1.5)
        real = time.monotonic() - started
        sim.quit()
    finally:
        sim.close()
    # the simulated clock shown is real time since the boot (about a second of loading)
    assert shown() >= real - 2.5, (shown(), real)
