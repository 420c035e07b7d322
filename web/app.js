// The web app: the device's own firmware in the official MicroPython WebAssembly VM, on the
// same hardware stand-ins and driver as the terminal simulator (device.mjs, simhost.py), with
// two faces: the phone view (phone.js: the controller's View in HTML, for players) and the
// device view (deviceview.js: the prop's OLED in pixels, for makers and the bench), one tap
// apart, and the device's four buttons under both (pad.js).
//
// Real time runs, and is caught up at once after the page was hidden or asleep (RealTime),
// so timed draws fall due as they would on the prop (R21). The device's generator is keyed
// from the browser's crypto.getRandomValues, never from a seed (device.mjs). The flash is
// kept in localStorage between passes (flash.js), so a reload, or Power cycle, resumes the
// action as the prop does after a power cut.
import { loadMicroPython } from "./micropython.mjs";
import { SimDevice, RealTime, BUTTONS, ledName } from "./device.mjs";
import { loadFlash, saveFlash, eraseFlash } from "./flash.js";
import { DeviceView } from "./deviceview.js";
import { Pad } from "./pad.js";
import { Feedback } from "./feedback.js";
import { PhoneView, announcement, cardKey, keysOf } from "./phone.js";
import { setupErase } from "./erase.js";
import { setupExport } from "./export.js";

const TICK_MS = 20;
const VIEW_KEY = "carddraw.view";      // localStorage: "phone" or "device", the last one shown
const $ = (sel) => document.querySelector(sel);
const data = document.body.dataset;    // what the tests wait on

let dev = null;
let keys = null;                        // RealTime: the clock and the queue of presses
let timer = null;
let shownViews = -1;                    // dev.views drawn in the phone view
let lastView = null;
const listeners = new Set();            // console replies wanted (the log export)

const feedback = new Feedback();
const phone = new PhoneView();
const deviceView = new DeviceView();
const pad = new Pad({ keys: () => keys, busy: () => Boolean(document.querySelector("dialog[open]")),
  vibrate: (ms) => feedback.vibrate(ms) });

function say(text, error = false) {
  const status = $("#status");
  status.textContent = text;
  status.classList.toggle("error", error);
}

// -- power: every boot loads a fresh MicroPython VM, as a power cycle clears all RAM ----------
// The VM's JavaScript side keeps its FinalizationRegistry in a global, made anew at each load,
// and its cleanups free a Python object by number through the latest VM: a proxy of the
// previous VM collected after the next load freed an object of the new one ("memory access
// out of bounds" a few boots later). So a registry made while a VM loads cleans up only while
// that VM is the one running; a VM switched off is dropped whole.
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
  dev.boot({ flash: loadFlash() });       // no seed: the generator takes the browser's entropy
  pad.longMs = dev.timing.longpress;
  feedback.prevT = dev.t;
  shownViews = -1;
  deviceView.again();
  keys = new RealTime(dev, performance.now());
  save();
  draw();
  timer = setInterval(tick, TICK_MS);
  say("");
  window.carddraw.ready = true;
  data.ready = "true";
  data.boots = String(Number(data.boots || 0) + 1);
}

function powerOff() {
  clearInterval(timer);
  timer = null;
  if (dev) save();
  dev = null;
  keys = null;
  feedback.keepAwake(false);
  window.carddraw.ready = false;
  data.ready = "false";
}

function stopped(e) {
  powerOff();
  say(`The simulator stopped: ${e.message || e}`, true);
}

const failedToStart = (e) => say(`The device did not start: ${e.message || e}`, true);

// -- the loop: real time caught up, then the flash saved, then drawn --------------------------
function tick() {
  if (!dev) return;
  try {
    const r = keys.tick(performance.now());
    feedback.tones(r);
    if (r.replies.length && listeners.size) {
      for (const text of r.replies) {
        const reply = JSON.parse(text);
        for (const fn of [...listeners]) fn(reply);
      }
    }
    save();
    draw();
  } catch (e) {
    stopped(e);
  }
}

function save() {
  const error = saveFlash(dev);
  if (error) say(`The flash could not be saved: ${error.message}`, true);
  else data.savedT = String(dev.t);
}

function draw() {
  const view = dev.view;
  if (view && dev.views !== shownViews) {
    shownViews = dev.views;
    phone.render(view);
    pad.show(keysOf(view), view.longs, dev.held);
    react(view, lastView);
    lastView = view;
    data.screen = view.screen;
    data.views = String(dev.views);
  } else if (view) {
    pad.show(keysOf(view), view.longs, dev.held);
  }
  deviceView.draw(dev, data.view === "device", pad.held);
  const lamp = ledName(dev.led);
  if ($("#lamp-name").textContent !== `LED ${lamp}`) {
    $("#lamp-name").textContent = `LED ${lamp}`;
    $("#lamp").setAttribute("aria-label", `LED ${lamp}`);
    const [r, g, b] = dev.led;
    $("#lamp").style.setProperty("--lamp", r || g || b ? `rgb(${r}, ${g}, ${b})` : "transparent");
  }
  $("#note").classList.toggle("on", feedback.noting());
  data.frames = String(dev.frames);
  data.t = String(dev.t);
  data.queued = String(keys.pending);
  data.played = String(keys.played);      // presses played since this boot
}

// What a new view means beyond the picture: words for a screen reader, a buzz for a card or
// the timed warning (when the device's buzzer is on), the screen kept awake while in play.
function react(view, before) {
  const words = announcement(view, before);
  if (words) feedback.say(words);
  const a = view.action;
  if (view.buzzer && a && a.card && view.screen === "card" && cardKey(view) !== cardKey(before)) {
    feedback.card(a.card);
  }
  if (view.buzzer && a && a.warn && a.warn !== (before && before.action && before.action.warn)) {
    feedback.warning();
  }
  feedback.keepAwake(Boolean(a && (a.state === "active" || a.state === "referee"
    || view.screen === "finishing")));
}

// -- the two views, one tap apart -------------------------------------------------------------
function showView(name) {
  data.view = name;
  $("#phone").hidden = name !== "phone";
  $("#device").hidden = name !== "device";
  const toggle = $("#view-toggle");
  toggle.textContent = name === "phone" ? "Device view" : "Phone view";
  toggle.setAttribute("aria-pressed", String(name === "device"));
  toggle.setAttribute("aria-label", name === "phone"
    ? "Device view: the prop's own display and buttons" : "Phone view: the screen for players");
  localStorage.setItem(VIEW_KEY, name);
  if (name === "device") {
    deviceView.load().then(() => { if (dev) draw(); },
      (e) => say(`${e.message}: reload the page`, true));
  }
  deviceView.again();
  if (dev) draw();
}
$("#view-toggle").addEventListener("click", () => showView(data.view === "phone" ? "device" : "phone"));
showView(localStorage.getItem(VIEW_KEY) === "device" ? "device" : "phone");

// a touch screen has no keyboard to hint at (the device view's key legend)
if (navigator.maxTouchPoints > 0 || matchMedia("(pointer: coarse)").matches) data.touch = "true";

// a page hidden or asleep catches up the moment it shows again, not at the next tick
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") tick();
});
addEventListener("pageshow", tick);

// sound: started by the first touch of a button (browsers need a gesture), switched here
document.addEventListener("pointerdown", () => feedback.start(), { capture: true });
function showSound() {
  $("#sound").textContent = feedback.soundOn ? "Sound on" : "Sound off";
  $("#sound").setAttribute("aria-pressed", String(feedback.soundOn));
}
$("#sound").addEventListener("click", () => { feedback.toggleSound(); showSound(); });
showSound();

$("#power").addEventListener("click", () => {
  powerOff();
  boot().catch(failedToStart);
});

// A bench-protocol line run to its end in simulated time -> its replies, parsed.
function runLine(text) {
  const r = dev.line(text);
  keys.sync();
  draw();
  return r.replies.map((x) => JSON.parse(x));
}

const running = () => dev !== null;
setupErase({ running, runLine, stopped, say, saveFlash: save,
  erase() {
    powerOff();
    eraseFlash();
    boot().then(() => say("Flash erased: the device starts afresh."), failedToStart);
  } });
setupExport({ running, runLine,
  send: (text) => dev.send(text),
  listen(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  checkLog: (lines) => dev.checkLog(lines) });

// For tests and the curious: the device in the console.
window.carddraw = {
  ready: false,
  get device() { return dev; },
  get view() { return dev && dev.view; },
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
  data.offline = "unavailable";
}
if (!window.isSecureContext || !("serviceWorker" in navigator)) {
  offlineNote(window.isSecureContext ? "this browser has no service workers"
    : "this page came over plain HTTP from another machine");
} else {
  navigator.serviceWorker.register("sw.js").then(() => navigator.serviceWorker.ready)
    .then(() => { data.offline = "ready"; })
    .catch((e) => offlineNote(`the offline copy failed (${e.message || e})`));
}

boot().catch(failedToStart);
