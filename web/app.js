// The web app: the device's own firmware in the official MicroPython WebAssembly VM, on the
// same hardware stand-ins and driver as the terminal simulator (device.mjs, simhost.py),
// drawn with Wokwi's elements. Real time runs; the flash is kept in localStorage, so a
// reload (or "Power cycle") resumes the action as the device does after a power cut.
import { loadMicroPython } from "./micropython.mjs";
import { SimDevice, RealTime, KEYS, BUTTONS, GLASS, ledName, litColour } from "./device.mjs";

const TICK_MS = 20;
const FLASH_KEY = "carddraw.flash";     // localStorage: {name: base64}

const $ = (sel) => document.querySelector(sel);
const oled = $("#oled");
const led = $("#led");
const status = $("#status");
const eraseDialog = $("#erase-dialog");
const image = new ImageData(128, 64);

let dev = null;
let keys = null;                        // RealTime: the clock and the queue of presses
let timer = null;
let audio = null;                       // {ctx, osc, gain} once sound is switched on
let noteUntil = 0;
let prevT = 0;                          // simulated time of the last tones handled
let shownKey = "";
const pointerHeld = new Set();          // buttons held down by a finger or the mouse

// -- the flash, kept in localStorage ---------------------------------------------------------
function b64(bytes) {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}
function unb64(text) {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
function loadFlash() {
  try {
    const saved = JSON.parse(localStorage.getItem(FLASH_KEY) || "{}");
    return Object.fromEntries(Object.entries(saved).map(([k, v]) => [k, unb64(v)]));
  } catch {
    return {};
  }
}
function saveFlash() {
  const { changed, removed } = dev.flashChanges();
  if (!Object.keys(changed).length && !removed.length) {
    document.body.dataset.savedT = String(dev.t);     // nothing new: the flash is in step
    return;
  }
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(FLASH_KEY) || "{}"); } catch { saved = {}; }
  for (const [name, bytes] of Object.entries(changed)) saved[name] = b64(bytes);
  for (const name of removed) delete saved[name];
  try {
    localStorage.setItem(FLASH_KEY, JSON.stringify(saved));
    document.body.dataset.savedT = String(dev.t);
  } catch (e) {
    say(`The flash could not be saved: ${e.message}`, true);
  }
}

// -- power -----------------------------------------------------------------------------------
// Every boot loads a fresh MicroPython VM: a power cycle clears all RAM, as on the board. The
// VM's JavaScript side keeps its FinalizationRegistry in a global, made anew at each load, and
// its cleanups free a Python object by number through the global Module, the latest VM: a
// proxy of the previous VM collected after the next load freed an object of the new one (a
// reply with zeroed bytes, "memory access out of bounds", a few boots after a Power cycle or
// Erase flash). So a registry made while a VM loads cleans up only while that VM is the one
// running; a VM switched off is dropped whole.
let vmNumber = 0;
async function loadVm(options) {
  const mine = ++vmNumber;
  const Native = globalThis.FinalizationRegistry;
  globalThis.FinalizationRegistry = class extends Native {
    constructor(cleanup) {
      super((held) => { if (mine === vmNumber) cleanup(held); });
    }
  };
  try {
    return await loadMicroPython(options);
  } finally {
    globalThis.FinalizationRegistry = Native;
  }
}

async function boot() {
  say("Starting the device\u2026");
  const files = await (await fetch("sim-files.json")).json();
  const mp = await loadVm({ heapsize: 512 * 1024, linebuffer: false,
    stdout: (s) => console.log(s), stderr: (s) => console.error(s) });
  for (const [name, text] of Object.entries(files)) {
    const path = "/lib/" + name;
    mp.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    mp.FS.writeFile(path, text);
  }
  dev = new SimDevice(mp);
  const seed = crypto.getRandomValues(new Uint32Array(1))[0] % 1e9;
  dev.boot({ seed, flash: loadFlash() });
  prevT = dev.t;
  shownKey = "";
  keys = new RealTime(dev, performance.now());
  saveFlash();
  draw();
  timer = setInterval(tick, TICK_MS);
  say("");
  window.carddraw.ready = true;
  document.body.dataset.ready = "true";
  document.body.dataset.boots = String(Number(document.body.dataset.boots || 0) + 1);
}

function powerOff() {
  clearInterval(timer);
  timer = null;
  if (dev) saveFlash();
  dev = null;
  keys = null;
  window.carddraw.ready = false;
  document.body.dataset.ready = "false";
}

// -- the loop --------------------------------------------------------------------------------
function tick() {
  try {
    const r = keys.tick(performance.now());   // a tab in the background replays no minutes
    sound(r);
    saveFlash();
    draw();
  } catch (e) {
    powerOff();
    say(`The simulator stopped: ${e.message || e}`, true);
  }
}

function draw() {
  // the OLED: the visible picture (SIM.screen(): display RAM as the module shows it)
  const lit = litColour(dev.on, dev.contrast);
  const key = `${dev.frames} ${lit}`;
  if (key !== shownKey) {
    shownKey = key;
    const d = image.data;
    for (let y = 0; y < 64; y++) {
      for (let x = 0; x < 128; x++) {
        const c = dev.on && dev.pixel(x, y) ? lit : GLASS;
        const i = (y * 128 + x) * 4;
        d[i] = c[0]; d[i + 1] = c[1]; d[i + 2] = c[2]; d[i + 3] = 255;
      }
    }
    oled.imageData = image;
    oled.redraw();
    $("#screen-text").textContent = dev.text.join("\n");
  }
  // the LED
  const [r, g, b] = dev.led;
  if (led.ledRed !== r / 255 || led.ledGreen !== g / 255 || led.ledBlue !== b / 255) {
    led.ledRed = r / 255;
    led.ledGreen = g / 255;
    led.ledBlue = b / 255;
    $("#led-name").textContent = "LED " + ledName(dev.led);
    $("#glow").style.setProperty("--glow", r || g || b ? `rgba(${r}, ${g}, ${b}, 0.55)` : "transparent");
  }
  // buttons held by a key show pressed too
  for (const el of document.querySelectorAll("[data-button]")) {
    const down = dev.held.includes(el.dataset.button);
    if (el.tagName === "WOKWI-PUSHBUTTON") {
      if (!pointerHeld.has(el.dataset.button) && el.pressed !== down) el.pressed = down;
    } else {
      el.classList.toggle("down", down);
    }
  }
  $("#note").classList.toggle("on", performance.now() < noteUntil);
  // what the tests wait on: pictures drawn, simulated time shown, presses still queued
  const data = document.body.dataset;
  data.frames = String(dev.frames);
  data.t = String(dev.t);
  data.queued = String(keys.pending);
}

// -- the buzzer: a square wave, switched on by the user (browsers need a gesture) -------------
function sound(r) {
  const from = prevT;
  prevT = r.t;
  if (r.tones.some(([, hz]) => hz > 0)) noteUntil = performance.now() + 250;
  if (!audio) return;
  // replay the tone changes of the last tick with their spacing, a little behind real time
  const start = audio.ctx.currentTime + 0.03;
  for (const [ms, hz] of r.tones) {
    const at = start + Math.max(0, ms - from) / 1000;
    if (hz) audio.osc.frequency.setValueAtTime(hz, at);
    audio.gain.gain.setValueAtTime(hz ? 0.04 : 0, at);
  }
}

function toggleSound() {
  const btn = $("#sound");
  if (audio) {
    audio.ctx.close();
    audio = null;
  } else {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "square";
    gain.gain.value = 0;
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    audio = { ctx, osc, gain };
  }
  btn.textContent = audio ? "Sound on" : "Sound off";
  btn.setAttribute("aria-pressed", String(Boolean(audio)));
}

// -- input: every press queued (RealTime), played on simulated time by the ticks ------------
function hold(name) {
  if (keys) keys.down(name, performance.now());
}
function release(name) {
  if (keys) keys.up(name, performance.now());
}

for (const el of document.querySelectorAll("button.big")) {
  const name = el.dataset.button;
  el.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    try { el.setPointerCapture(e.pointerId); } catch { /* a pointer already gone */ }
    pointerHeld.add(name);
    hold(name);
  });
  const up = () => {
    if (!pointerHeld.delete(name)) return;
    release(name);
  };
  el.addEventListener("pointerup", up);
  el.addEventListener("pointercancel", up);
  el.addEventListener("lostpointercapture", up);
  el.addEventListener("contextmenu", (e) => e.preventDefault());
  // keyboard users: Enter or Space on a focused button is a tap
  el.addEventListener("keydown", (e) => {
    if ((e.key === "Enter" || e.key === " ") && !e.repeat && keys) {
      e.preventDefault();
      e.stopPropagation();
      keys.tap(name);
    }
  });
}

for (const el of document.querySelectorAll("wokwi-pushbutton")) {
  const name = el.dataset.button;
  el.addEventListener("button-press", () => { pointerHeld.add(name); hold(name); });
  el.addEventListener("button-release", () => { pointerHeld.delete(name); release(name); });
}

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.altKey || e.metaKey || e.repeat || !keys || eraseDialog.open) return;
  if (KEYS[e.key]) {
    e.preventDefault();
    keys.tap(...KEYS[e.key]);
  }
});

$("#sound").addEventListener("click", toggleSound);
const failedToStart = (e) => say(`The device did not start: ${e.message || e}`, true);
$("#power").addEventListener("click", () => {
  powerOff();
  boot().catch(failedToStart);
});

// -- Erase flash: only with the referee code, as the device keeps all it erases --------------
// The code is entered as the device takes it (4 to 8 presses of R H D S: the dialog's buttons
// or the letters typed, a * a press) and checked by the firmware itself: the bench protocol's
// `unlock CODE` is the lock screen's own check, with its count of wrong tries and its waits
// (the count is a setting on the flash, so a reload keeps it). Only {"ok": "unlock"} erases;
// an error's message (a wrong code, a wait, a code too short) is shown and nothing changes.
const MAX_PRESSES = 8;
let entered = "";                       // the presses so far, as letters
let erasing = false;

function showEntered() {
  const code = $("#erase-code");
  code.textContent = "*".repeat(entered.length);
  const n = entered.length;
  code.setAttribute("aria-label", `${n} ${n === 1 ? "press" : "presses"}`);
}
function enter(letter) {
  if (entered.length < MAX_PRESSES) entered += letter;
  showEntered();
}
function takeBack() {
  entered = entered.slice(0, -1);
  showEntered();
}
function eraseSaid(text) {
  $("#erase-said").textContent = text;
}

function openErase() {
  entered = "";
  erasing = false;
  showEntered();
  eraseSaid("");
  eraseDialog.showModal();
}

function checkAndErase() {
  if (!dev) {
    eraseSaid("The device is off: nothing erased. Power cycle it, then try again.");
    return;
  }
  const code = entered;                 // only R H D S: one protocol line, nothing more
  entered = "";
  showEntered();
  let replies;
  try {
    replies = runLine(`unlock ${code}`);
    saveFlash();                        // a wrong try counted is on the flash at once
  } catch (e) {
    eraseDialog.close();
    powerOff();
    say(`The simulator stopped: ${e.message || e}`, true);
    return;
  }
  const reply = replies.find((r) => r.ok === "unlock" || r.error !== undefined);
  if (!reply || reply.ok !== "unlock") {
    // the firmware's own words, without the protocol's "unlock: " before them
    eraseSaid(reply ? reply.error.replace(/^unlock: /, "")
      : "The device did not answer: nothing erased.");
    return;
  }
  erasing = true;
  eraseDialog.close();
  powerOff();
  localStorage.removeItem(FLASH_KEY);
  boot().then(() => say("Flash erased: the device starts afresh."), failedToStart);
}

$("#erase").addEventListener("click", openErase);
for (const el of eraseDialog.querySelectorAll("[data-code]")) {
  el.addEventListener("click", () => enter(el.dataset.code));
}
$("#erase-back").addEventListener("click", takeBack);
$("#erase-ok").addEventListener("click", checkAndErase);
$("#erase-cancel").addEventListener("click", () => eraseDialog.close());
eraseDialog.addEventListener("close", () => {
  entered = "";
  showEntered();
  if (!erasing) say("Nothing erased.");
});
eraseDialog.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.altKey || e.metaKey) return;
  const letter = e.key.length === 1 ? e.key.toUpperCase() : "";
  if (letter && "RHDS".includes(letter)) {
    e.preventDefault();
    if (!e.repeat) enter(letter);
  } else if (e.key === "Backspace") {
    e.preventDefault();
    takeBack();
  } else if (e.key === "Enter" && e.target !== $("#erase-cancel")) {
    e.preventDefault();                 // Enter is OK (Escape is Cancel, the dialog's own)
    if (!e.repeat) checkAndErase();
  }
});

// the OLED and the device's buttons as wide as the case allows
function fit() {
  const room = Math.min($(".oled-box").clientWidth, 440);
  $("#oled-zoom").style.zoom = Math.max(1, room / 150).toFixed(3);
  const pads = $(".pushbuttons");
  pads.style.zoom = "1";
  const natural = pads.scrollWidth;
  pads.style.zoom = Math.min(1.6, Math.max(0.8, (room - 8) / natural)).toFixed(3);
}
addEventListener("resize", fit);
fit();

// A bench-protocol line run to its end in simulated time -> its replies, parsed.
function runLine(text) {
  const r = dev.line(text);
  keys.sync();
  draw();
  return r.replies.map((x) => JSON.parse(x));
}

function say(text, error = false) {
  status.textContent = text;
  status.classList.toggle("error", error);
}

// For tests and the curious: the device in the console.
window.carddraw = {
  ready: false,
  get device() { return dev; },
  line: runLine,
  // the firmware's own rendering (render.render on a framebuf) of the view on the display
  renderView() { return Array.from(dev.renderView()); },
  screen() { return Array.from(dev.screen); },
  buttons: BUTTONS,
};

// Offline use needs a service worker, and browsers give one only to a secure context: a page
// from HTTPS, or from this machine (localhost). Served over plain HTTP to a phone, say so.
function offlineNote(why) {
  const note = $("#offline");
  note.textContent = `Offline use is not available: ${why}. Offline use needs HTTPS or localhost `
    + "(serve it with make web ARGS=--https).";
  note.hidden = false;
  document.body.dataset.offline = "unavailable";
}
if (!window.isSecureContext || !("serviceWorker" in navigator)) {
  offlineNote(window.isSecureContext ? "this browser has no service workers"
    : "this page came over plain HTTP from another machine");
} else {
  navigator.serviceWorker.register("sw.js").then(() => navigator.serviceWorker.ready)
    .then(() => { document.body.dataset.offline = "ready"; })
    .catch((e) => offlineNote(`the offline copy failed (${e.message || e})`));
}

boot().catch(failedToStart);
