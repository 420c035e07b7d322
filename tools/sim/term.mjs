// Draws the simulated device as terminal text: the OLED in Unicode half-blocks (128 x 64
// pixels -> 128 columns x 32 rows) or, compact, in Braille (2 x 4 pixels a character -> 64 x 16,
// no pixel lost), framed like the prop, the LED as a block in 24-bit colour, the buttons, a
// key legend. Pure string work: sim.mjs writes it out.
import { BUTTONS, LEGEND, GLASS, displayState, ledName, litColour } from "./device.mjs";

const ESC = "\x1b[";
const RESET = `${ESC}0m`;
const fg = (r, g, b) => `${ESC}38;2;${r};${g};${b}m`;
const bg = (r, g, b) => `${ESC}48;2;${r};${g};${b}m`;
const CASE = [70, 74, 84];         // the casing's frame colour

export const FULL_WIDTH = 128 + 6; // columns the full-size device needs
export const COMPACT_WIDTH = 64 + 6;

// The OLED's rows as strings. pixel(x, y) -> 0/1.
export function oledRows(pixel, compact) {
  const rows = [];
  if (compact) {
    // Braille dots: bit k of the code point for (dx, dy) as Unicode numbers them.
    const DOT = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]];
    for (let y = 0; y < 64; y += 4) {
      let line = "";
      for (let x = 0; x < 128; x += 2) {
        let bits = 0;
        for (let dy = 0; dy < 4; dy++) {
          for (let dx = 0; dx < 2; dx++) if (pixel(x + dx, y + dy)) bits |= DOT[dy][dx];
        }
        line += bits ? String.fromCodePoint(0x2800 + bits) : " ";
      }
      rows.push(line);
    }
  } else {
    const HALF = [" ", "\u2584", "\u2580", "\u2588"];
    for (let y = 0; y < 64; y += 2) {
      let line = "";
      for (let x = 0; x < 128; x++) line += HALF[pixel(x, y) * 2 + pixel(x, y + 1)];
      rows.push(line);
    }
  }
  return rows;
}

// The whole device as lines of text. dev: a SimDevice (screen, led, on, contrast, held).
// opts: compact, color (24-bit escapes), beep (the buzzer sounding: a note by the LED and a
// flash of the frame), status (a line under the device).
export function drawDevice(dev, { compact = false, color = true, beep = false, status = "" } = {}) {
  const w = compact ? 64 : 128;
  const paint = (rgb, text) => (color ? fg(...rgb) + text + RESET : text);
  const frameColour = beep ? [230, 200, 60] : CASE;
  const edge = (text) => paint(frameColour, text);

  // the LED: a coloured block, or a dim one when off
  const [r, g, b] = dev.led;
  const lit = r || g || b;
  let led;
  if (color) led = lit ? fg(r, g, b) + "\u2588\u2588" + RESET : fg(60, 60, 60) + "\u2591\u2591" + RESET;
  else led = lit ? "[" + ledName(dev.led).split(" ")[0].toUpperCase() + "]" : "[off]";
  const ledPlain = color ? 2 : ledPlainWidth(dev.led);
  const note = beep ? (color ? fg(250, 220, 80) + "\u266a" + RESET : "\u266a") : " ";

  const title = " CARD DRAW ";
  const right = ` ${note} LED ${led} `;
  const rightWidth = 1 + 1 + 5 + ledPlain + 1;
  const fill = Math.max(1, w + 2 - title.length - rightWidth);
  const lines = [];
  lines.push(edge("\u256d\u2500") + paint([220, 220, 220], title) + edge("\u2500".repeat(fill)) + right + edge("\u2500\u256e"));
  // the display's top edge says when it is dimmed or off, in words: colour alone (a dimmer
  // grey) is easy to miss, and a pipe has no colour at all
  const state = displayState(dev.on, dev.contrast);
  const said = STATE_WORDS[state];
  const top = said ? "\u2500".repeat(2) + said + "\u2500".repeat(Math.max(0, w - 2 - said.length))
    : "\u2500".repeat(w);
  lines.push(edge("\u2502 ") + edge("\u250c") + (said ? paint(STATE_COLOUR, top) : edge(top))
    + edge("\u2510") + edge(" \u2502"));

  // the glass: lit pixels dimmer at low contrast, nothing at all when the display is off
  const px = litColour(dev.on, dev.contrast);
  const rows = oledRows((x, y) => (dev.on ? dev.pixel(x, y) : 0), compact);
  if (state === "off") rows[rows.length >> 1] = centred(OFF_NOTE, w);
  for (const row of rows) {
    const ink = state === "off" ? STATE_COLOUR : px;
    const glass = color ? bg(...GLASS) + fg(...ink) + row + RESET : row;
    lines.push(edge("\u2502 \u2502") + glass + edge("\u2502 \u2502"));
  }
  lines.push(edge("\u2502 ") + edge("\u2514" + "\u2500".repeat(w) + "\u2518") + edge(" \u2502"));

  // the four buttons, lit while held
  const slot = Math.floor((w + 2) / 4);
  let row = "";
  let plain = 0;
  for (const name of BUTTONS) {
    const cap = compact ? `[${name[0]}] ${name}` : `( ${name} )`;
    const pad = Math.max(0, Math.floor((slot - cap.length) / 2));
    const down = dev.held.includes(name);
    const shown = color && down ? `${ESC}7m${cap}${RESET}` : down ? cap.replaceAll(" ", "*") : cap;
    row += " ".repeat(pad) + shown + " ".repeat(slot - pad - cap.length);
    plain += slot;
  }
  row += " ".repeat(Math.max(0, w + 2 - plain));
  lines.push(edge("\u2502 ") + row + edge(" \u2502"));
  lines.push(edge("\u2570" + "\u2500".repeat(w + 4) + "\u256f"));
  if (status) lines.push(" " + status);
  return lines;
}

// What the display's edge says when it is not plainly on (device.mjs displayState).
const STATE_WORDS = { dim: " display dimmed (idle): any key wakes it ",
  off: " display off (idle) " };
const OFF_NOTE = "(dark: any key wakes it)";
const STATE_COLOUR = [240, 200, 90];

function centred(text, w) {
  const pad = Math.max(0, Math.floor((w - text.length) / 2));
  return (" ".repeat(pad) + text).padEnd(w).slice(0, w);
}

function ledPlainWidth(rgb) {
  const [r, g, b] = rgb;
  return r || g || b ? ledName(rgb).split(" ")[0].length + 2 : 5;
}

// The key legend, wrapped for narrow terminals.
export function legend(width) {
  if (width >= LEGEND.length + 2) return [" " + LEGEND];
  return [" r h d s: press RANK HELP DRAW STOP", " R H D S: hold (long press)   q: quit"];
}
