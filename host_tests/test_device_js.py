"""tools/sim/device.mjs, the one JavaScript module the terminal simulator and the web app share:
the pixel colours, the contrast curve and real time catching up with simulated time, with
every press queued (quick taps never merged or lost). Unit tests under Node with a stand-in
device, and checks that neither front end keeps a copy of its own."""
import json
import os
import re
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "web"))
import build as webbuild  # noqa: E402

DEVICE = os.path.join(ROOT, "tools", "sim", "device.mjs")
TERM = os.path.join(ROOT, "tools", "sim", "term.mjs")
TIMING = {"tap": 120, "long": 1000, "gap": 80}

# A stand-in SimDevice: records every call on its simulated clock, as the real one's readouts.
RUN = """
import { RealTime, brightness, displayState, litColour, LIT, GLASS, CATCH_UP_AFTER_MS } from %s;
import { drawDevice } from %s;
class Stand {
  constructor() { this.t = 0; this.timing = %s; this.calls = []; }
  out() { return { t: this.t, tones: [[this.t, 1]], replies: [] }; }
  advance(ms) { this.t += ms; return this.out(); }
  catchUp(ms) { this.calls.push(["catch up", ms, this.t]); this.t += ms; return this.out(); }
  hold(name) { this.calls.push(["down", name, this.t]); return this.out(); }
  release(name) { this.calls.push(["up", name, this.t]); return this.out(); }
}
const dev = new Stand();
const keys = new RealTime(dev, 0);
const result = {};
%s
process.stdout.write(JSON.stringify(result));
"""


def node(body):
    script = RUN % (json.dumps("file://" + DEVICE), json.dumps("file://" + TERM),
                    json.dumps(TIMING), body)
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_contrast_curve_and_colours():
    r = node("""
      result.full = litColour(true, 255); result.none = litColour(true, 0);
      result.off = litColour(false, 255);
      result.k = [0, 4, 96, 255].map((c) => brightness(true, c));
      result.lit = LIT; result.glass = GLASS;
      result.states = [[true, 96], [true, 0], [false, 96]].map(([on, c]) => displayState(on, c));""")
    assert r["full"] == r["lit"]
    assert r["off"] == [0, 0, 0]
    assert r["k"][0] < r["k"][1] < r["k"][2] < r["k"][3] == 1
    assert r["k"][0] <= 0.5 * r["k"][2]          # dimmed (contrast 0) plainly, against 96
    assert sum(r["glass"]) < sum(r["none"])      # a lit pixel still shows on the glass
    assert r["states"] == ["on", "dim", "off"]


def test_the_terminal_says_when_the_display_is_dimmed_or_off():
    r = node("""
      const face = { led: [0, 0, 0], on: true, contrast: 96, held: [], pixel: () => 1 };
      const frame = (on, contrast, compact) => drawDevice({ ...face, on, contrast },
        { compact, color: false }).join("\\n");
      result.on = frame(true, 96, false); result.dim = frame(true, 0, true);
      result.off = frame(false, 96, false);""")
    assert "dimmed" not in r["on"] and "off (idle)" not in r["on"]
    assert "display dimmed" in r["dim"] and "\u2588" not in r["dim"]   # Braille, labelled
    assert "display off" in r["off"] and "wakes it" in r["off"]
    assert "\u2588" not in r["off"]                                     # nothing lit


def test_five_taps_40_ms_apart_are_five_presses_queued_one_behind_another():
    r = node("""
      let now = 0;
      for (let i = 0; i < 5; i++) {
        keys.down("RANK", now); keys.up("RANK", now + 20); now += 40;
        keys.tick(now);
      }
      while (keys.pending) { now += 20; keys.tick(now); }
      result.calls = dev.calls; result.t = dev.t;""")
    calls = r["calls"]
    assert [c[0] for c in calls] == ["down", "up"] * 5
    downs = [c[2] for c in calls if c[0] == "down"]
    ups = [c[2] for c in calls if c[0] == "up"]
    for down, up in zip(downs, ups):
        assert up - down >= TIMING["tap"]                       # each a whole press
    for up, next_down in zip(ups, downs[1:]):
        assert next_down - up >= TIMING["gap"]                  # and apart: never merged


def test_a_finger_held_long_is_a_long_press_and_keys_queue_behind_it():
    r = node("""
      keys.down("DRAW", 0);
      keys.tap("STOP");                         // a key while the finger is down: waits
      keys.tick(500);
      result.during = dev.calls.slice();
      keys.up("DRAW", 1300);
      keys.tick(1300);
      keys.tick(3000);
      result.calls = dev.calls;""")
    assert r["during"] == [["down", "DRAW", 0]]
    assert r["calls"][1] == ["up", "DRAW", 1300]
    assert r["calls"][2][:2] == ["down", "STOP"] and r["calls"][2][2] >= 1300 + TIMING["gap"]
    assert r["calls"][3][2] - r["calls"][2][2] == TIMING["tap"]


def test_time_missed_is_caught_up_at_once_in_coarse_passes_and_joins_the_tones():
    r = node("""
      const first = keys.tick(600000);          // a page asleep ten minutes
      result.t = dev.t; result.calls = dev.calls.slice(); result.after = CATCH_UP_AFTER_MS;
      keys.tap("RANK");
      const out = keys.tick(600500);            // the tap's down and up fall in this tick
      result.tones = out.tones.length; result.fraction = keys.tick(600500.6).t;""")
    assert r["t"] == 600000                     # all of it, none dropped
    assert r["calls"] == [["catch up", 600000 - r["after"], 0]]   # the last second finely
    assert r["tones"] >= 3                      # advance, down, advance, up, advance: all kept
    assert r["fraction"] == 600500              # part of a millisecond waits for the next tick


def test_no_coarse_catch_up_while_a_finger_holds_a_button():
    r = node("""
      keys.down("DRAW", 0);
      keys.tick(20);                            // the button goes down
      keys.tick(5000);                          // a stall with the finger still down
      result.calls = dev.calls; result.t = dev.t; result.pending = keys.pending;""")
    assert [c[0] for c in r["calls"]] == ["down"]   # no catch up: the loop's own pace
    assert r["t"] == 5000 and r["pending"] == 1


def test_terminal_and_web_app_use_device_mjs_and_keep_no_colours_of_their_own(tmp_path):
    with open(DEVICE) as f:
        device = f.read()
    for rel in ("tools/sim/term.mjs", "web/app.js", "web/deviceview.js", "tools/sim/sim.mjs"):
        with open(os.path.join(ROOT, rel)) as f:
            source = f.read()
        assert re.search(r'from "\./device\.mjs"', source), rel
        assert not re.search(r"const (LIT|DARK|GLASS)\b", source), rel
        assert not re.search(r"contrast\s*/\s*255|0\.55\s*\+|Math\.sqrt", source), rel
        assert "MAX_CATCH_UP" not in source, rel                         # no catch-up cap
    for rel, names in (("tools/sim/term.mjs", ("litColour", "GLASS", "displayState")),
                       ("web/deviceview.js", ("litColour", "GLASS", "displayState")),
                       ("web/app.js", ("RealTime", "SimDevice")),
                       ("tools/sim/sim.mjs", ("RealTime",))):
        with open(os.path.join(ROOT, rel)) as f:
            imported = re.search(r"import \{([^}]*)\} from \"\./device\.mjs\"", f.read()).group(1)
        for name in names:
            assert name in imported, (rel, name)
    # the web build serves device.mjs itself, and the icon's lit pixel is its LIT
    webbuild.build(str(tmp_path))
    with open(tmp_path / "device.mjs") as f:
        assert f.read() == device
    lit = re.search(r"export const LIT = \[(\d+), (\d+), (\d+)\]", device).groups()
    assert webbuild.LIT == tuple(int(c) for c in lit)
