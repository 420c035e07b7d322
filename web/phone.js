// The phone view: the controller's View drawn in HTML, one form per kind of screen, from the
// data tools/sim/phoneview.py gives after each pass that changed it (the View: screen, lines,
// LED, blink, picture; a menu's rows; the action in play; the action set-up would start).
// It shows what the screen on show says and nothing the device cannot do: the device's
// words are its lines, shown as they are; the pictures (the deck, the card) are drawn from
// their own fields, large and in colour; the four buttons do what they do on the device.
import { COLOURS, card, colourWord, countdown, deck, h, odds, tally } from "./phoneparts.js";

const NAMES = "RANK|HELP|DRAW|STOP";
// "DRAW: draw a card", "hold STOP: back": a button's meaning in the screen's own words
const SAYS = new RegExp(`(hold\\s+)?\\b(${NAMES})\\s*:\\s*(.+?)(?=\\s+(?:hold\\s+)?\\b(?:${NAMES})\\s*:|$)`, "g");
const NAMES_A_BUTTON = new RegExp(`\\b(${NAMES})\\b`);
const FINISH_S = 60;   // R23: the finishing minute

// What each button does on this screen: {NAME: {press, hold}}. A menu's buttons by the Menu
// component's contract (RANK up, HELP down, DRAW chooses; editing a number RANK lowers it,
// HELP raises it, DRAW is done), then whatever the screen's lines say a button does, and hold
// STOP as the controller has it on every screen.
export function keysOf(view) {
  const does = {};
  const set = (name, kind, text) => { (does[name] ||= {})[kind] = text; };
  if (view.menu) {
    const m = view.menu;
    set("RANK", "press", m.editing ? "less" : "up");
    set("HELP", "press", m.editing ? "more" : "down");
    set("DRAW", "press", m.editing ? "done" : "choose");
  }
  for (const line of view.lines) {
    for (const [, hold, name, text] of line.matchAll(SAYS)) {
      set(name, hold ? "hold" : "press", text.trim());
    }
  }
  // hold STOP: the referee lock from every screen, out of the referee's screens (controller)
  if (!(does.STOP && does.STOP.hold)) set("STOP", "hold", view.locked ? "leave" : "referee");
  return does;
}

// The lines that tell what a button does (shown under a picture, which has no room for them).
function hints(view) {
  return view.lines.slice(1).filter((l) => NAMES_A_BUTTON.test(l));
}

function lineList(lines, cls = "lines") {
  const box = h("div", { class: cls });
  for (const line of lines) {
    if (!line.trim()) continue;
    const kind = NAMES_A_BUTTON.test(line) ? "hint" : /^\s*(\* ?)+$/.test(line) ? "code" : null;
    box.append(h("p", { class: kind }, line.trim()));
  }
  return box;
}

// -- one form per kind of screen ---------------------------------------------------------------
function deckScreen(view) {
  const a = view.action;
  const p = view.picture;
  const parts = [deck(p.counts)];
  if (a.warn) {
    parts.push(warning(view, a.warn));
  } else if (a.next !== null) {
    parts.push(countdown(a.next, view.interval, "until the next card is drawn"));
  }
  if (!p.counts.some(Boolean)) parts.push(h("p", { class: "empty" }, p.foot[0] || ""));
  parts.push(odds(a.odds, a.needed), tally(a));
  if (!a.warn) parts.push(lineList(hints(view), "lines hints"));   // the warning shows them
  return parts;
}

function cardScreen(view) {
  const a = view.action;
  const p = view.picture;
  const foot = p.foot.filter((l) => l.trim());
  const more = hints(view).filter((l) => !foot.includes(l));
  return [
    card(p.colour, p.label, a.words),
    a.warn ? warning(view, a.warn) : null,
    lineList([...foot, ...more], "lines hints"),
    deck(p.counts, "The deck now"),
    tally(a),
  ];
}

function warning(view, sec) {
  return h("div", { class: "warning" }, h("p", { class: "huge" }, `Next card in ${sec} s!`),
    lineList(hints(view), "lines hints"));
}

function menuScreen(view) {
  const m = view.menu;
  const list = h("ol", { class: "menu", "aria-label": m.title });
  m.rows.forEach(([label, value], i) => {
    const here = i === m.cur;
    const editing = here && m.editing;
    list.append(h("li", { class: `row${here ? " here" : ""}${editing ? " editing" : ""}`,
      "aria-current": here ? "true" : null },
    h("span", { class: "label" }, label),
    value === null || value === "" ? null : h("span", { class: "value" }, value),
    editing ? h("span", { class: "sr-only" }, " (being changed)") : null));
  });
  return [lineList(m.head), list, lineList([m.hint], "lines hints")];
}

function setupScreen(view) {
  const p = view.plan;
  const parts = [];
  if (p.deck) parts.push(deck(p.deck, "The deck it will start with"));
  parts.push(odds(p.odds, p.needed), lineList(notShown(view.lines.slice(1), p)));
  return parts;
}

// The lines but those that say again what the tiles and the odds above show: found by the
// values they carry (the four counts in order, the chance, both risks), not by their words.
function notShown(lines, { deck: counts, odds: o }) {
  return lines.filter((line) => {
    const numbers = (line.match(/\d+/g) || []).map(Number);
    if (counts && numbers.length === 4 && numbers.every((n, i) => n === counts[i])) return false;
    if (o && line.includes(o.chance)) return false;
    return !(o && line.includes(o.red) && line.includes(o.black));
  });
}

function finishingScreen(view) {
  return [countdown(view.sec ?? 0, FINISH_S, "of roleplay left"), lineList(view.lines.slice(1))];
}

function textScreen(view) {
  const parts = [];
  if (view.led && COLOURS.includes(view.led) && view.screen !== "setup") {
    parts.push(h("p", { class: `chip c-${view.led}` }, h("span", { class: "swatch",
      "aria-hidden": "true" }), `The LED shows ${colourWord(view.led)}`));
  }
  parts.push(lineList(view.lines.slice(1)));
  return parts;
}

// The stage for this view: a heading (the screen's title) and the screen's form.
export function stage(view) {
  let parts;
  if (view.selftest) {
    parts = [lineList(["The self-test runs on the device view."])];
  } else if (view.picture && view.picture.kind === "deck" && view.action) {
    parts = deckScreen(view);
  } else if (view.picture && view.picture.kind === "card" && view.action) {
    parts = cardScreen(view);
  } else if (view.menu) {
    parts = menuScreen(view);
  } else if (view.screen === "setup" && view.plan) {
    parts = setupScreen(view);
  } else if (view.screen === "finishing") {
    parts = finishingScreen(view);
  } else {
    parts = textScreen(view);
  }
  const title = (view.lines[0] || view.screen).trim();
  return [h("h1", { class: "title" }, title), ...parts.filter(Boolean)];
}

// What a screen reader hears when this view comes after `before` (null: nothing new): a card
// and what it did (and what the buttons do then), the timed warning as it starts, or a new
// screen's words.
export function announcement(view, before) {
  const a = view.action;
  if (view.screen === "card" && a && a.card && cardKey(view) !== cardKey(before)) {
    return [`${colourWord(a.card)} card`, view.picture ? view.picture.label : "", a.words,
      ...hints(view)]
      .filter(Boolean).join(". ");
  }
  if (a && a.warn && !(before && before.action && before.action.warn)) {
    return [`Next card in ${a.warn} seconds`, ...hints(view)].join(". ");
  }
  if (!before || before.screen !== view.screen || before.lines[0] !== view.lines[0]) {
    if (view.screen === "active" && a) {
      const [g, y, r, b] = a.deck;
      return `${view.lines[0]}. Deck: ${g} green, ${y} yellow, ${r} red, ${b} black. `
        + `Chance to succeed ${a.odds ? a.odds.chance : "being worked out"}.`;
    }
    return view.lines.filter((l) => l.trim()).map((l) => l.trim()).join(". ");
  }
  return null;
}

// A card on show, as one key: a new draw, a redraw or its result applying makes a new one.
export function cardKey(view) {
  const a = view && view.action;
  return view && view.screen === "card" && a
    ? `${a.draws}:${a.card}:${a.applied}:${a.redraws_left}` : "";
}

export class PhoneView {
  constructor() {
    this.stage = document.querySelector("#stage");
    this.notice = document.querySelector("#notice");
  }

  render(view) {
    this.stage.replaceChildren(...stage(view));
    this.stage.dataset.screen = view.screen;
    this.stage.classList.toggle("blink", Boolean(view.blink));
    this.stage.classList.toggle("locked", Boolean(view.locked));
    const here = this.stage.querySelector(".menu .here");
    if (here) here.scrollIntoView({ block: "nearest" });
    this.notice.hidden = !view.notice;
    this.notice.textContent = view.notice || "";
  }
}
