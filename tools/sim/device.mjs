// The simulated device as JavaScript sees it: one MicroPython VM running tools/sim/simhost.py
// (the unmodified firmware on the machine/neopixel stand-ins). Shared by the terminal
// simulator (sim.mjs, under Node) and the web app (web/app.js, in a browser), so it uses
// nothing of Node's: the caller loads MicroPython and puts firmware + stand-ins in /lib.

export const BUTTONS = ["RANK", "HELP", "DRAW", "STOP"];

// Keys, as in the terminal and the web app: lower case taps a button, upper case holds it.
export const KEYS = {
  r: ["RANK", false], h: ["HELP", false], d: ["DRAW", false], s: ["STOP", false],
  R: ["RANK", true], H: ["HELP", true], D: ["DRAW", true], S: ["STOP", true],
};
export const LEGEND = "r h d s: press RANK HELP DRAW STOP   R H D S: hold (long press)   q: quit";

export const FLASH = "/flash";

export function hexToBytes(hex) {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

// The host's entropy for the device's generator (simhost.Device.generator): n bytes of the
// browser's or Node's crypto.getRandomValues, as hex (a string crosses into the VM whole).
export function entropyHex(n) {
  const bytes = new Uint8Array(n);
  globalThis.crypto.getRandomValues(bytes);
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return hex;
}

function sameBytes(a, b) {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class SimDevice {
  // mp: a loaded MicroPython (loadMicroPython) whose /lib holds firmware/ and tools/sim.
  constructor(mp) {
    this.mp = mp;
    this.py = null;
    this.t = 0;                        // simulated ms since power-on
    this.screen = new Uint8Array(1024); // the visible picture, MONO_VLSB
    this.text = [];                    // the screen's 8 lines, read back from its pixels
    this.led = [0, 0, 0];
    this.on = false;
    this.contrast = 0;
    this.held = [];
    this.frames = 0;                   // pictures received: a change means redraw
    this.view = null;                  // the phone view's data (tools/sim/phoneview.py)
    this.views = 0;                    // ... received: a change means redraw
    this.flashSeen = new Map();        // name -> bytes as last mirrored
  }

  // Power on. flash: {name: Uint8Array} put on the simulated flash first (a previous session's
  // files: the firmware resumes from them). The device's generator is keyed from this host's
  // crypto (entropyHex); seed: a developer's repeatable run instead (sim.mjs --seed, tests,
  // make docs), never the web app's. held: buttons held through power-on (["DRAW"]: self-test).
  boot({ seed = null, vsys = null, flash = {}, held = [] } = {}) {
    const FS = this.mp.FS;
    this.mp.registerJsModule("carddrawhost", { entropy: entropyHex });
    FS.mkdirTree(FLASH);
    for (const [name, bytes] of Object.entries(flash)) {
      if (name.includes("/")) FS.mkdirTree(`${FLASH}/${name.slice(0, name.lastIndexOf("/"))}`);
      FS.writeFile(`${FLASH}/${name}`, bytes);
      this.flashSeen.set(name, bytes);
    }
    const arg = (v) => (v === null || v === undefined ? "None" : String(Number(v)));
    const hold = JSON.stringify(held.map(String));
    this.mp.runPython(`import simhost\n_sim_device = simhost.Device(seed=${arg(seed)}, vsys=${arg(vsys)}, held=${hold})`);
    this.py = this.mp.globals.get("_sim_device");
    // a tap's and a long press's length, and the gap between two presses: simhost's, so the
    // firmware's debounce and long-press times are met the same way from every front end
    this.mp.runPython("import json\nfrom carddraw import config\n_sim_timing = json.dumps("
      + "{'tap': simhost.SHORT_MS, 'long': simhost.LONG_MS, 'gap': simhost.GAP_MS, "
      + "'longpress': config.LONG_PRESS_MS})");
    this.timing = JSON.parse(this.mp.globals.get("_sim_timing"));
    return this._take(this.py.frame());
  }

  _take(json) {
    const r = JSON.parse(json);
    this.t = r.t;
    this.led = r.led;
    this.on = r.on;
    this.contrast = r.contrast;
    this.held = r.held;
    if (r.screen !== undefined) {
      this.screen = hexToBytes(r.screen);
      this.text = r.text;
      this.frames++;
    }
    if (r.view !== undefined) {
      this.view = r.view;
      this.views++;
    }
    return r;
  }

  advance(ms) { return this._take(this.py.advance(Math.max(0, Math.floor(ms)))); }
  // Missed time caught up in coarse passes (simhost catch_up): no button may be in flight.
  catchUp(ms) { return this._take(this.py.catch_up(Math.max(0, Math.floor(ms)))); }
  // A protocol line typed in, run by the passes to come (its replies in later readouts).
  send(text) { return this._take(this.py.send(text)); }
  // Record lines of a `log` export checked in the VM -> {ok, message, head, seq}.
  checkLog(lines) { return JSON.parse(this.py.export_log(JSON.stringify(lines))); }
  press(name) { return this._take(this.py.press(name)); }
  long(name) { return this._take(this.py.long(name)); }
  hold(name) { return this._take(this.py.hold(name)); }
  release(name) { return this._take(this.py.release(name)); }
  // One bench-protocol line, run to its end in simulated time (a `wait` included).
  line(text) { return this._take(this.py.run_line(text)); }
  // A simulator line ("!press DRAW", "!led", ...: simhost.META), never seen by the firmware.
  meta(text) { return this._take(this.py.meta(text)); }
  frame() { return this._take(this.py.frame()); }   // everything again, picture and view
  renderView() { return hexToBytes(this.py.render_view()); }
  stats() { return JSON.parse(this.py.stats()); }

  // 1 if the pixel at (x, y) of the visible screen is lit.
  pixel(x, y) { return (this.screen[(y >> 3) * 128 + x] >> (y & 7)) & 1; }

  // Every file on the simulated flash, by name: a folder's (the journal's) as "folder/name".
  flashNames() {
    const FS = this.mp.FS;
    const list = (dir) => FS.readdir(dir).filter((n) => n !== "." && n !== "..");
    const names = [];
    const walk = (prefix) => {   // folders in folders: the journal's are in journal/
      for (const name of list(`${FLASH}/${prefix}`)) {
        if (FS.isDir(FS.stat(`${FLASH}/${prefix}${name}`).mode)) walk(`${prefix}${name}/`);
        else names.push(prefix + name);
      }
    };
    walk("");
    return names;
  }

  // The files on the simulated flash that changed since the last call:
  // {changed: {name: Uint8Array}, removed: [name]}. The caller mirrors them (a host folder,
  // the browser's storage) so that the next boot resumes where this one was cut off.
  flashChanges() {
    const FS = this.mp.FS;
    const changed = {};
    const names = this.flashNames();
    for (const name of names) {
      const bytes = FS.readFile(`${FLASH}/${name}`);
      if (!sameBytes(bytes, this.flashSeen.get(name))) {
        changed[name] = bytes;
        this.flashSeen.set(name, bytes);
      }
    }
    const removed = [...this.flashSeen.keys()].filter((n) => !names.includes(n));
    for (const name of removed) this.flashSeen.delete(name);
    return { changed, removed };
  }
}

// The LED as words, for a screen reader or a piped transcript.
export function ledName(rgb) {
  const [r, g, b] = rgb;
  if (!r && !g && !b) return "off";
  const known = { "0,255,0": "green", "255,160,0": "yellow", "255,0,0": "red",
    "160,0,255": "purple (black card)", "255,255,255": "white" };  // white: the timed warning
  return known[rgb.join(",")] || `rgb(${r}, ${g}, ${b})`;
}

// -- how the device looks: the one source for the terminal and the web app --------------------
export const LIT = [215, 238, 255];   // a lit OLED pixel at full contrast
export const GLASS = [6, 8, 12];      // the OLED's glass: an unlit pixel, or the display off

// How bright lit pixels are, 0-1: the SSD1306's contrast (0-255), from 30 % at 0 (the panel
// never goes dark on contrast alone) rising as the eye sees it (a square root), so the idle
// dimming (contrast 0, after 30 s) reads plainly against the normal level (96: 73 %); a
// display switched off shows nothing.
export function brightness(on, contrast) {
  return on ? 0.3 + 0.7 * Math.sqrt(Math.min(255, Math.max(0, contrast)) / 255) : 0;
}

// The display's state in a word, for a label beside it (the terminal, the web's device view):
// "off" (switched off: the firmware's Face does so after 2 minutes idle), "dim" (the idle
// dimming, contrast 0, or the lowest brightness setting), else "on".
export const DIM_CONTRAST = 8;
export function displayState(on, contrast) {
  if (!on) return "off";
  return contrast < DIM_CONTRAST ? "dim" : "on";
}

// The colour of a lit pixel at this state of the display: [r, g, b].
export function litColour(on, contrast) {
  const k = brightness(on, contrast);
  return LIT.map((c) => Math.round(c * k));
}

// -- simulated time catching up with real time, and the buttons on it -------------------------
// Real time is the device's time (R21: the cadence of timed draws, R23: the finishing minute).
// A page hidden or frozen, a laptop asleep, a terminal stopped: the next tick finds real time
// far ahead, and the whole gap is played at once, the part before the last CATCH_UP_AFTER_MS
// in the coarse passes of simhost's catch_up (fast, nothing drawn or sounded in between), so
// the timed draws that fell due are drawn, one an interval.
export const CATCH_UP_AFTER_MS = 1000;

// Two readouts in a row as one: the tones and replies of both, the rest from the later.
function joinReadouts(earlier, later) {
  if (!earlier) return later;
  return { ...later, tones: [...earlier.tones, ...later.tones],
    replies: [...earlier.replies, ...later.replies] };
}

// The device in real time with the buttons as a person uses them. Every press (a finger down
// then up, a tap, a key) is queued and played on simulated time behind the one before it, at
// least a tap long (over the firmware's debounce) and a gap apart: quick taps are never merged
// into one press or lost. tick(now) lets simulated time catch up with real time (ms, e.g.
// performance.now()), pressing and releasing the pins at their simulated moments.
export class RealTime {
  constructor(dev, now) {
    this.dev = dev;
    this.last = now;           // real time of the last tick
    this.carry = 0;            // real ms not yet whole simulated ms
    this.clock = dev.t;        // simulated time the device has been asked to reach
    this.presses = [];         // {name, queuedAt, downAt, len, realDown}, played in order
    this.freeAt = dev.t;       // the next press starts no sooner (simulated ms)
    this.played = 0;           // presses played to their end: let go a gap ago, so the
    this.settling = [];        // firmware has seen the release (a long press acts then)
  }

  // Presses queued or still settling (let go less than a gap ago).
  get pending() { return this.presses.length + this.settling.length; }

  // A finger goes down on a button (real time now); its length comes with up().
  down(name, now) {
    this.presses.push({ name, queuedAt: this.clock, downAt: null, len: null, realDown: now });
  }

  // The finger comes up: the press lasts as long as the finger held, a tap at least.
  up(name, now) {
    const open = this.presses.find((p) => p.name === name && p.len === null);
    if (open) open.len = Math.max(this.dev.timing.tap, Math.round(now - open.realDown));
  }

  // A tap (or a long press) of a known length: a key, Enter on a focused button.
  tap(name, long = false) {
    const len = long ? this.dev.timing.long : this.dev.timing.tap;
    this.presses.push({ name, queuedAt: this.clock, downAt: null, len, realDown: null });
  }

  // Simulated time catches up with real time `now`, however far behind; -> the readout (all
  // replies; the tones of the last CATCH_UP_AFTER_MS only).
  tick(now) {
    this.carry += Math.max(0, now - this.last);
    this.last = now;
    const whole = Math.floor(this.carry);
    this.carry -= whole;
    let out = null;
    let left = whole;
    if (left > CATCH_UP_AFTER_MS && this.presses.length) {
      // presses made before the page slept play first, at the loop's own pace, when they
      // fell due; a finger still down holds the whole gap to that pace
      const ms = Math.min(left, Math.max(0, this._queueEnd() - this.clock));
      out = this.advance(ms);
      left -= ms;
    }
    if (left > CATCH_UP_AFTER_MS && !this.presses.length) {
      const coarse = left - CATCH_UP_AFTER_MS;
      out = joinReadouts(out, this.dev.catchUp(coarse));
      this.clock += coarse;
      left = CATCH_UP_AFTER_MS;
    }
    return joinReadouts(out, this.advance(left));
  }

  // When the presses queued will all have been played (simulated ms), or Infinity while a
  // finger holds one down (its length unknown).
  _queueEnd() {
    let free = this.freeAt;
    for (const p of this.presses) {
      if (p.len === null) return Infinity;
      const start = p.downAt ?? Math.max(p.queuedAt, free);
      free = start + p.len + this.dev.timing.gap;
    }
    return free;
  }

  // ms of simulated time pass, the queued presses played as they fall due; -> the readout.
  advance(ms) {
    const end = this.clock + Math.max(0, Math.floor(ms));
    let out = null;
    for (let at = this._due(); at !== null && at <= end; at = this._due()) {
      out = joinReadouts(out, this.dev.advance(at - this.clock));
      this.clock = at;
      out = joinReadouts(out, this._act(at));
    }
    out = joinReadouts(out, this.dev.advance(end - this.clock));
    this.clock = end;
    while (this.settling.length && this.settling[0] <= end) {
      this.settling.shift();
      this.played++;
    }
    return out;
  }

  // After something moved simulated time itself (a protocol line run to its end).
  sync() { this.clock = Math.max(this.clock, this.dev.t); }

  // When the first queued press next changes a pin (simulated ms), or null (held, or none).
  _due() {
    const first = this.presses[0];
    if (!first) return null;
    if (first.downAt === null) return Math.max(first.queuedAt, this.freeAt);
    return first.len === null ? null : first.downAt + first.len;
  }

  _act(at) {
    const first = this.presses[0];
    if (first.downAt === null) {
      first.downAt = at;
      return this.dev.hold(first.name);
    }
    this.presses.shift();
    this.freeAt = at + this.dev.timing.gap;
    this.settling.push(this.freeAt);
    return this.dev.release(first.name);
  }
}
