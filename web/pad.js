// The device's four buttons, touch first: a finger down is the button going down and a finger
// up lets it go, so a tap is a press and a hold is a long press, as on the prop (the firmware's
// own debounce and long-press times decide, on simulated time: device.mjs RealTime queues
// every press, so quick taps are never merged or lost). On a screen where a button has a long
// press, holding it fills the button as the long press comes, so a thumb feels when to let go.
// Each button says what it does on the screen on show, from the screen's own words
// (phone.js keysOf). The keyboard works too: r h d s tap, R H D S hold; Enter or Space on a
// focused button taps it.
import { KEYS } from "./device.mjs";

export class Pad {
  // host: {keys(): RealTime or null, busy(): a dialog open, vibrate(ms)}
  constructor(host) {
    this.host = host;
    this.held = new Set();           // buttons down under a finger or the mouse
    this.longMs = 800;               // the firmware's long press (config.LONG_PRESS_MS)
    this.longs = [];                 // the buttons with a long press on the screen on show
    this.fills = new Map();          // button -> the long press's timer while held
    for (const el of document.querySelectorAll("button.big")) this.wire(el);
    for (const el of document.querySelectorAll("wokwi-pushbutton")) {
      const name = el.dataset.button;
      el.addEventListener("button-press", () => { this.held.add(name); this.down(name); });
      el.addEventListener("button-release", () => { this.held.delete(name); this.up(name); });
    }
    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.altKey || e.metaKey || e.repeat || host.busy()) return;
      const keys = host.keys();
      if (keys && KEYS[e.key]) {
        e.preventDefault();
        keys.tap(...KEYS[e.key]);
      }
    });
  }

  wire(el) {
    const name = el.dataset.button;
    el.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      try { el.setPointerCapture(e.pointerId); } catch { /* a pointer already gone */ }
      this.held.add(name);
      this.down(name);
      this.fill(el, name);
    });
    const up = () => {
      if (!this.held.delete(name)) return;
      this.unfill(el, name);
      this.up(name);
    };
    el.addEventListener("pointerup", up);
    el.addEventListener("pointercancel", up);
    el.addEventListener("lostpointercapture", up);
    el.addEventListener("contextmenu", (e) => e.preventDefault());
    el.addEventListener("keydown", (e) => {
      const keys = this.host.keys();
      if ((e.key === "Enter" || e.key === " ") && !e.repeat && keys) {
        e.preventDefault();
        e.stopPropagation();
        keys.tap(name);
      }
    });
  }

  down(name) {
    const keys = this.host.keys();
    if (keys) keys.down(name, performance.now());
  }

  up(name) {
    const keys = this.host.keys();
    if (keys) keys.up(name, performance.now());
  }

  // The long press's fill: only where the button has one on the screen on show.
  fill(el, name) {
    if (!this.longs.includes(name)) return;
    el.style.setProperty("--long-ms", `${this.longMs}ms`);
    el.classList.add("filling");
    this.fills.set(name, setTimeout(() => {
      el.classList.add("long");          // registered: a click on the device, a buzz here
      this.host.vibrate(30);
    }, this.longMs));
  }

  unfill(el, name) {
    clearTimeout(this.fills.get(name));
    this.fills.delete(name);
    el.classList.remove("filling", "long");
  }

  // What each button does now (from phone.js keysOf: {NAME: {press, hold}}), and which have a
  // long press; held: the buttons the device has down (a key's press shows too).
  show(does, longs, held) {
    this.longs = longs;
    for (const el of document.querySelectorAll("button.big")) {
      const name = el.dataset.button;
      const d = does[name] || {};
      const words = [d.press, d.hold && `hold: ${d.hold}`].filter(Boolean).join(" \u00b7 ");
      // the button's name is its words as shown ("DRAW: next card", the colon for a screen
      // reader only), never a label that says other than what a person sees
      const span = el.querySelector(".does");
      if (span.textContent !== words) span.textContent = words;
      el.querySelector(".sep").hidden = !words;
      el.classList.toggle("has-long", longs.includes(name));
      el.classList.toggle("down", held.includes(name));
    }
  }
}
