// The phone view's pieces in HTML: the deck as counts in colour, the chance and the risks in
// words, the card drawn, a countdown. Colour is never the only cue: every colour is named in
// words, carries its letter and a pattern of its own (the device's tiles: green solid,
// yellow stripes, red grid, black hatched), and black shows purple, as the device's LED.
export const COLOURS = ["green", "yellow", "red", "black"];
export const LETTERS = { green: "G", yellow: "Y", red: "R", black: "B" };

// A DOM element: h("p", {class: "x"}, "text", child...). Attributes set with setAttribute,
// except `text`; children strings become text (never HTML: the firmware's words are text).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// The colour as a person reads it: "black" says it shows purple.
export function colourWord(c) {
  return c === "black" ? "black (purple)" : c;
}

// The deck: four tiles, each a swatch (colour, pattern, letter), the count and the word.
export function deck(counts, label = "The deck") {
  const list = h("ul", { class: "deck", "aria-label": label });
  COLOURS.forEach((c, i) => {
    list.append(h("li", { class: `tile c-${c}`, "aria-label": `${counts[i]} ${colourWord(c)}` },
      h("span", { class: "swatch", "aria-hidden": "true" }, h("span", {}, LETTERS[c])),
      h("span", { class: "count", "aria-hidden": "true" }, counts[i]),
      h("span", { class: "word", "aria-hidden": "true" }, c)));
  });
  return list;
}

// The chance to succeed (R26), large, and the two risks in words; odds: the firmware's own
// texts ({chance, red, black}), or null while they are worked out.
export function odds(o, needed) {
  const dots = "\u2026";
  const goal = needed > 1 ? `Chance of ${needed} successes` : "Chance to succeed";
  return h("div", { class: "odds" },
    h("p", { class: "chance" }, h("span", { class: "huge" }, o ? o.chance : dots),
      h("span", { class: "what" }, goal)),
    h("ul", { class: "risks" },
      h("li", {}, "Chance of a complication (a red card) before the end: ",
        h("b", {}, o ? o.red : dots)),
      h("li", {}, "Chance a black card ends it: ", h("b", {}, o ? o.black : dots))));
}

// Where the action stands: successes of those needed, complications, draws, redraws left.
export function tally(a) {
  return h("ul", { class: "tally" },
    h("li", {}, "Successes ", h("b", {}, `${a.successes} of ${a.needed}`)),
    h("li", {}, "Complications ", h("b", {}, a.complications)),
    h("li", {}, "Draws ", h("b", {}, a.draws)),
    h("li", {}, "Redraws left ", h("b", {}, a.redraws_left)));
}

// The card drawn, large: its colour and pattern across the card with its letter, the colour
// in words, what it did (the firmware's label: "Success 1 of 3") and its result in the
// action's own words (R24).
export function card(colour, label, words) {
  const name = colourWord(colour);
  return h("div", { class: `card c-${colour}`, role: "group", "aria-label": `${name} card` },
    h("div", { class: "card-face", "aria-hidden": "true" },
      h("span", { class: "card-letter" }, LETTERS[colour])),
    h("div", { class: "card-text" },
      h("p", { class: "card-word" }, colour.toUpperCase(),
        colour === "black" ? h("span", { class: "card-shown" }, "shown purple") : null),
      h("p", { class: "card-label" }, label),
      words ? h("p", { class: "card-words" }, words) : null));
}

// A countdown in seconds, large, with a bar of the time left of `whole` seconds.
export function countdown(sec, whole, what) {
  const left = Math.max(0, Math.min(1, sec / whole));
  return h("div", { class: "countdown" },
    h("p", {}, h("span", { class: "huge" }, `${sec} s`), h("span", { class: "what" }, what)),
    h("div", { class: "timebar", role: "progressbar", "aria-label": what, "aria-valuemin": 0,
      "aria-valuemax": whole, "aria-valuenow": sec },
    h("span", { style: `width: ${(left * 100).toFixed(1)}%` })));
}
