#!/usr/bin/env node
// The device on any PC: the unmodified firmware in the MicroPython VM on the hardware
// stand-ins (tools/sim/simhost.py), shown in the terminal or driven by the bench protocol.
//
//   node tools/sim/sim.mjs                 the device in this terminal, in real time
//   echo rdq | node tools/sim/sim.mjs      keys from stdin, each then 0.5 s; prints the last screen
//   node tools/sim/sim.mjs --script FILE   bench-protocol lines -> JSON replies, simulated time
//   node tools/sim/sim.mjs --protocol      the same, lines from stdin
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { bootVM, ROOT } from "../mpvm/vm.mjs";
import { SimDevice, RealTime, KEYS, BUTTONS, ledName } from "./device.mjs";
import { drawDevice, legend, FULL_WIDTH } from "./term.mjs";

const USAGE = `usage: node tools/sim/sim.mjs [options]
  (no option)       the device in this terminal, in real time; keys:
                    r h d s press RANK HELP DRAW STOP, R H D S hold them (long press), q quits.
                    With stdin not a terminal: plays the keys read from it (each then 0.5 s
                    of simulated time) and prints the last screen, e.g. echo rdq | make sim
  --script FILE     run bench-protocol lines (press, long, wait, show, seed) from FILE and
                    print the JSON replies, one a line; time is simulated (wait 60000 is quick)
  --protocol        the same, with the lines read from stdin. Lines starting with ! act on the
                    simulated hardware and never reach the firmware: !press NAME, !long NAME,
                    !hold NAME, !release NAME (a tap plays out in the time of the lines after
                    it), !advance MS, !led, !screen; each answers one {"sim": ...} line
  --hold NAME       power on with this button held (DRAW: the self-test); !release NAME lets go
  --flash DIR       keep the device's flash (settings, action, log) in DIR: a restarted
                    simulator resumes the action, as the device does after a power cut
  --seed N          a developer's repeatable run: the cards drawn from seed N (tests, make
                    docs); default: the device's generator keyed from this machine's entropy
  --battery VOLTS   the supply voltage the battery gauge reads (default 4.0)
  --compact         the OLED in Braille, 64 columns x 16 rows (default when the terminal is
                    narrower than ${FULL_WIDTH} columns)
  --full            the OLED in half-blocks, 128 columns x 32 rows
  --color, --no-color   24-bit colour (default: only when stdout is a terminal)
  --no-bell         no terminal bell for the buzzer (the frame still flashes)
  --help            this text`;

const KEY_MS = 500;        // piped keys: simulated time after each key
const TICK_MS = 20;        // real-time mode: the simulator catches up this often
const BEEP_SHOW_MS = 250;  // real time a beep shows on the frame

function fail(msg) {
  process.stderr.write(`sim: ${msg} (node tools/sim/sim.mjs --help lists the options)\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { color: null, bell: true, compact: null };
  const need = (i, what) => {
    if (i + 1 >= argv.length) fail(`${argv[i]} needs ${what}`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h") {
      process.stdout.write(USAGE + "\n");
      process.exit(0);
    } else if (a === "--script") o.script = need(i++, "a file");
    else if (a === "--protocol") o.protocol = true;
    else if (a === "--hold") {
      const v = need(i++, "a button").toUpperCase();
      if (!BUTTONS.includes(v)) fail(`--hold needs a button: ${BUTTONS.join(", ")}`);
      (o.held ??= []).push(v);
    }
    else if (a === "--flash") o.flash = need(i++, "a folder");
    else if (a === "--seed") {
      const v = need(i++, "a whole number");
      if (!/^\d{1,9}$/.test(v)) fail("--seed needs a whole number, 0 to 999999999");
      o.seed = Number(v);
    } else if (a === "--battery") {
      const v = Number(need(i++, "volts"));
      if (!(v >= 0 && v <= 5.5)) fail("--battery needs volts, 0 to 5.5");
      o.vsys = v;
    } else if (a === "--compact") o.compact = true;
    else if (a === "--full") o.compact = false;
    else if (a === "--color") o.color = true;
    else if (a === "--no-color") o.color = false;
    else if (a === "--no-bell") o.bell = false;
    else fail(`unknown option ${a}`);
  }
  if (o.script && o.protocol) fail("--script and --protocol: choose one");
  return o;
}

// -- the flash mirror ------------------------------------------------------------------------
// The device's files, a folder's as "folder/name" (the journal's: journal/jNNNNNN/slot).
function loadFlash(dir, prefix = "", files = {}) {
  if (!dir || !fs.existsSync(dir)) return files;
  for (const name of fs.readdirSync(path.join(dir, prefix))) {
    const p = path.join(dir, prefix, name);
    if (!fs.statSync(p).isFile()) loadFlash(dir, `${prefix}${name}/`, files);
    else if (!name.endsWith(".mirror")) files[prefix + name] = new Uint8Array(fs.readFileSync(p));
  }
  return files;
}

function mirror(dev, dir) {
  if (!dir) return;
  const { changed, removed } = dev.flashChanges();
  for (const [name, bytes] of Object.entries(changed)) {
    const to = path.join(dir, name);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    const tmp = `${to}.mirror`;
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, to);   // atomic, as littlefs commits a file whole
  }
  for (const name of removed) {
    fs.rmSync(path.join(dir, name), { force: true });
    let folder = path.dirname(path.resolve(dir, name));   // and the folders it leaves empty
    while (folder !== path.resolve(dir) && fs.existsSync(folder)
           && !fs.readdirSync(folder).length) {
      fs.rmdirSync(folder);
      folder = path.dirname(folder);
    }
  }
}

async function boot(o) {
  let vmOut = "";
  const mp = await bootVM({
    libs: [path.join(ROOT, "tools", "sim")],
    stdout: (s) => { vmOut += s; },   // the firmware prints nothing we show; keep it for errors
  });
  if (o.flash) fs.mkdirSync(o.flash, { recursive: true });
  const dev = new SimDevice(mp);
  // the generator keyed from Node's crypto, as the board's from its hardware; --seed: a
  // developer's repeatable run (tests, make docs)
  dev.boot({ seed: o.seed ?? null, vsys: o.vsys, flash: loadFlash(o.flash), held: o.held ?? [] });
  mirror(dev, o.flash);
  dev.vmOut = () => vmOut;
  return dev;
}

// -- protocol: lines in, JSON replies out, on simulated time ---------------------------------
async function protocol(o) {
  const dev = await boot(o);
  const input = o.script ? fs.createReadStream(o.script) : process.stdin;
  input.on("error", (e) => {
    process.stderr.write(`sim: ${e.message}\n`);
    process.exit(1);
  });
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  for await (const raw of rl) {
    const text = raw.trim();
    if (!text || text.startsWith("#")) continue;
    const r = text.startsWith("!") ? dev.meta(text) : dev.line(text);
    for (const reply of r.replies) process.stdout.write(reply + "\n");
    mirror(dev, o.flash);
  }
}

// -- keys from a pipe ------------------------------------------------------------------------
async function piped(o) {
  const dev = await boot(o);
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const keys = new RealTime(dev, 0);
  for (const ch of input) {
    if (ch === "q") break;
    const k = KEYS[ch];
    if (k) {
      keys.tap(...k);
      keys.advance(k[1] ? dev.timing.long + KEY_MS : KEY_MS);
      mirror(dev, o.flash);
    } else if (!/\s/.test(ch)) {
      process.stderr.write(`sim: key ${JSON.stringify(ch)} ignored (keys: r h d s R H D S q)\n`);
    }
  }
  const color = o.color ?? Boolean(process.stdout.isTTY);
  const compact = o.compact ?? false;
  const out = drawDevice(dev, { compact, color });
  out.push("", " Screen text (read from the pixels):");
  for (const line of dev.text) out.push("   | " + line);
  out.push(` LED: ${ledName(dev.led)}    display: ${dev.on ? "on" : "off"}    simulated time: ${(dev.t / 1000).toFixed(1)} s`);
  process.stdout.write(out.join("\n") + "\n");
}

// -- the device in this terminal, in real time -----------------------------------------------
async function interactive(o) {
  const dev = await boot(o);
  const out = process.stdout;
  const color = o.color ?? true;
  const keys = new RealTime(dev, performance.now());
  let beepUntil = 0;
  let lastBell = 0;
  let lastKey = "";
  let drawn = [];
  let done = false;
  let timer = null;

  const compactNow = () => o.compact ?? (out.columns || 200) < FULL_WIDTH;
  const restore = () => {
    out.write("\x1b[0m\x1b[?25h\x1b[?1049l");
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
  };
  const quit = (code = 0) => {
    if (done) return;
    done = true;
    clearInterval(timer);
    mirror(dev, o.flash);
    restore();
    process.exit(code);
  };
  const onBeeps = (r) => {
    if (!r.tones.some(([, hz]) => hz > 0)) return;
    const now = performance.now();
    beepUntil = now + BEEP_SHOW_MS;
    if (o.bell && now - lastBell > 150) {   // one bell per pattern, not per note
      out.write("\x07");
      lastBell = now;
    }
  };
  const render = () => {
    const compact = compactNow();
    const lines = drawDevice(dev, {
      compact, color, beep: performance.now() < beepUntil,
      status: `${lastKey ? "last key: " + lastKey + "   " : ""}time ${(dev.t / 1000).toFixed(0)} s`
        + (o.flash ? `   flash: ${o.flash}` : ""),
    });
    lines.push(...legend(out.columns || 200));
    // only the lines that changed: a ticking clock rewrites one line, not the device
    let text = "";
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] !== drawn[i]) text += `\x1b[${i + 1};1H${lines[i]}\x1b[K`;
    }
    if (lines.length !== drawn.length) text += `\x1b[${lines.length + 1};1H\x1b[J`;
    if (text) out.write(text);
    drawn = lines;
  };
  const tick = () => {
    try {
      const r = keys.tick(performance.now());
      onBeeps(r);
      mirror(dev, o.flash);
      render();
    } catch (e) {
      restore();
      process.stderr.write(`sim: ${e.message || e}\n${dev.vmOut()}`);
      process.exit(1);
    }
  };

  out.write("\x1b[?1049h\x1b[?25l\x1b[2J");
  process.on("SIGTERM", () => quit(0));
  process.on("SIGHUP", () => quit(0));
  process.on("exit", () => { if (!done) restore(); });
  out.on("resize", () => { drawn = []; out.write("\x1b[2J"); render(); });
  process.stdin.setRawMode(true);
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    for (const ch of chunk) {
      if (ch === "q" || ch === "\x03" || ch === "\x04") return quit(0);
      const k = KEYS[ch];
      if (!k) continue;
      keys.tap(...k);
      lastKey = `${k[1] ? "hold" : "press"} ${k[0]}`;
    }
    render();
  });
  render();
  timer = setInterval(tick, TICK_MS);
}

const o = parseArgs(process.argv.slice(2));
if (o.script || o.protocol) await protocol(o);
else if (process.stdin.isTTY) await interactive(o);
else await piped(o);
