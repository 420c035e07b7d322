// The device view: the prop as makers and the bench know it, drawn with Wokwi's elements: the
// OLED's own pixels (the stand-in decodes what the firmware's driver sends), the RGB LED, the
// four pushbuttons. One tap from the phone view (app.js switches them). Wokwi's bundle (a
// third of the page's weight) is loaded when the view is first shown, not before a player's
// first card; until its elements are defined nothing is set on them (a property set on an
// element before its class is defined would hide the class's own).
import { GLASS, displayState, ledName, litColour } from "./device.mjs";

const $ = (sel) => document.querySelector(sel);
const image = new ImageData(128, 64);
const STATE_WORDS = { dim: "display dimmed (idle)", off: "display off (idle)", on: "" };

export class DeviceView {
  constructor() {
    this.oled = $("#oled");
    this.led = $("#led");
    this.shown = "";          // the picture drawn: frames and the lit colour
    this.loading = null;      // Wokwi's elements: a promise once asked for
    this.ready = false;       // ... and defined
    addEventListener("resize", () => this.fit());
  }

  // Wokwi's elements loaded and defined (once). -> a promise.
  load() {
    this.loading ||= new Promise((done, failed) => {
      const script = document.createElement("script");
      script.src = "wokwi-elements.bundle.min.js";
      script.onload = done;
      script.onerror = () => failed(new Error("the device view's elements did not load"));
      document.head.append(script);
    }).then(() => Promise.all(["wokwi-ssd1306", "wokwi-rgb-led", "wokwi-pushbutton"]
      .map((name) => customElements.whenDefined(name))))
      .then(() => { this.ready = true; this.again(); });
    return this.loading;
  }

  // Redraw what changed. visible: the view is on show (the picture is drawn only then).
  draw(dev, visible, pointerHeld) {
    $("#screen-text").textContent = dev.text.join("\n");
    if (!this.ready) return;
    const lit = litColour(dev.on, dev.contrast);
    const key = `${dev.frames} ${lit}`;
    if (visible && key !== this.shown) {
      this.shown = key;
      const d = image.data;
      for (let y = 0; y < 64; y++) {
        for (let x = 0; x < 128; x++) {
          const c = dev.on && dev.pixel(x, y) ? lit : GLASS;
          const i = (y * 128 + x) * 4;
          d[i] = c[0]; d[i + 1] = c[1]; d[i + 2] = c[2]; d[i + 3] = 255;
        }
      }
      this.oled.imageData = image;
      this.oled.redraw();
      $("#oled-state").textContent = STATE_WORDS[displayState(dev.on, dev.contrast)];
      document.body.dataset.oled = "drawn";
    }
    const [r, g, b] = dev.led;
    const led = this.led;
    if (led.ledRed !== r / 255 || led.ledGreen !== g / 255 || led.ledBlue !== b / 255) {
      led.ledRed = r / 255;
      led.ledGreen = g / 255;
      led.ledBlue = b / 255;
      $("#led-name").textContent = "LED " + ledName(dev.led);
      $("#glow").style.setProperty("--glow", r || g || b ? `rgba(${r}, ${g}, ${b}, 0.55)` : "transparent");
    }
    // a pushbutton held by a key or the pad shows pressed too
    for (const el of document.querySelectorAll("wokwi-pushbutton")) {
      const down = dev.held.includes(el.dataset.button);
      if (!pointerHeld.has(el.dataset.button) && el.pressed !== down) el.pressed = down;
    }
  }

  // The picture again at the next draw (the view came back on show).
  again() {
    this.shown = "";
    this.fit();
  }

  // The OLED and the pushbuttons as wide as the case allows.
  fit() {
    const box = $(".oled-box");
    if (!box || !box.clientWidth) return;   // hidden: fitted when it shows
    const room = Math.min(box.clientWidth, 440);
    $("#oled-zoom").style.zoom = Math.max(1, room / 150).toFixed(3);
    const pads = $(".pushbuttons");
    pads.style.zoom = "1";
    const natural = pads.scrollWidth;
    pads.style.zoom = Math.min(1.6, Math.max(0.8, (room - 8) / natural)).toFixed(3);
  }
}

// The firmware's own rendering and the visible picture, for the tests.
export function pictureBytes(dev) { return Array.from(dev.screen); }
