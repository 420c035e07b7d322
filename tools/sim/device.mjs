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
    this.flashSeen = new Map();        // name -> bytes as last mirrored
  }

  // Power on. flash: {name: Uint8Array} put on the simulated flash first (a previous session's
  // files: the firmware resumes from them). seed: the VM's random seed (power-on entropy).
  // held: buttons held down through power-on (["DRAW"] runs the self-test).
  boot({ seed = null, vsys = null, flash = {}, held = [] } = {}) {
    const FS = this.mp.FS;
    FS.mkdirTree(FLASH);
    for (const [name, bytes] of Object.entries(flash)) {
      FS.writeFile(`${FLASH}/${name}`, bytes);
      this.flashSeen.set(name, bytes);
    }
    const arg = (v) => (v === null || v === undefined ? "None" : String(Number(v)));
    const hold = JSON.stringify(held.map(String));
    this.mp.runPython(`import simhost\n_sim_device = simhost.Device(seed=${arg(seed)}, vsys=${arg(vsys)}, held=${hold})`);
    this.py = this.mp.globals.get("_sim_device");
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
    return r;
  }

  advance(ms) { return this._take(this.py.advance(Math.max(0, Math.floor(ms)))); }
  press(name) { return this._take(this.py.press(name)); }
  long(name) { return this._take(this.py.long(name)); }
  hold(name) { return this._take(this.py.hold(name)); }
  release(name) { return this._take(this.py.release(name)); }
  // One bench-protocol line, run to its end in simulated time (a `wait` included).
  line(text) { return this._take(this.py.run_line(text)); }
  // A simulator line ("!press DRAW", "!led", ...: simhost.META), never seen by the firmware.
  meta(text) { return this._take(this.py.meta(text)); }
  // A key from KEYS: -> [button, long] or null.
  key(ch) {
    const k = KEYS[ch];
    if (!k) return null;
    if (k[1]) this.long(k[0]);
    else this.press(k[0]);
    return k;
  }
  frame() { return this._take(this.py.frame()); }
  renderView() { return hexToBytes(this.py.render_view()); }
  stats() { return JSON.parse(this.py.stats()); }

  // 1 if the pixel at (x, y) of the visible screen is lit.
  pixel(x, y) { return (this.screen[(y >> 3) * 128 + x] >> (y & 7)) & 1; }

  // The files on the simulated flash that changed since the last call:
  // {changed: {name: Uint8Array}, removed: [name]}. The caller mirrors them (a host folder,
  // the browser's storage) so that the next boot resumes where this one was cut off.
  flashChanges() {
    const FS = this.mp.FS;
    const changed = {};
    const names = FS.readdir(FLASH).filter((n) => n !== "." && n !== "..");
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
  const known = { "0,255,0": "green", "255,160,0": "yellow", "255,0,0": "red", "160,0,255": "purple (black card)" };
  return known[rgb.join(",")] || `rgb(${r}, ${g}, ${b})`;
}
