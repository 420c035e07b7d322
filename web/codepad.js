// The referee code as the device takes it (4 to 8 presses of R H D S), entered in a dialog:
// its R H D S buttons, or the letters typed, shown as a * a press. Erase flash and Export log
// both ask for it; the firmware checks it (the bench protocol's `unlock CODE`, the lock
// screen's own check, with its count of wrong tries and its waits), never this page.
export const MAX_PRESSES = 8;

export class CodePad {
  // slot: where the pad goes (a copy of <template id="code-pad">); onEnter: Enter pressed.
  constructor(dialog, slot, onEnter) {
    slot.append(document.querySelector("#code-pad").content.cloneNode(true));
    this.dialog = dialog;
    this.ask = slot.querySelector(".code-ask");
    this.shown = slot.querySelector(".code-shown");
    this.saidEl = slot.querySelector(".code-said");
    this.keys = slot.querySelector(".code-keys");
    this.entered = "";
    for (const el of slot.querySelectorAll("[data-code]")) {
      el.addEventListener("click", () => this.enter(el.dataset.code));
    }
    slot.querySelector("[data-back]").addEventListener("click", () => this.takeBack());
    dialog.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.altKey || e.metaKey || this.keys.hidden) return;
      const letter = e.key.length === 1 ? e.key.toUpperCase() : "";
      if (letter && "RHDS".includes(letter)) {
        e.preventDefault();
        if (!e.repeat) this.enter(letter);
      } else if (e.key === "Backspace") {
        e.preventDefault();
        this.takeBack();
      } else if (e.key === "Enter" && (this.keys.contains(e.target)
                 || (e.target.tagName !== "BUTTON" && e.target.tagName !== "A"))) {
        e.preventDefault();   // Enter is OK, also on a code key (Escape is Cancel, the
        if (!e.repeat) onEnter();   // dialog's own); on Cancel or a link, their own
      }
    });
    this.show();
  }

  enter(letter) {
    if (this.entered.length < MAX_PRESSES) this.entered += letter;
    this.show();
  }

  takeBack() {
    this.entered = this.entered.slice(0, -1);
    this.show();
  }

  // The code entered (only R H D S: one protocol line, nothing more), the entry cleared.
  take() {
    const code = this.entered;
    this.entered = "";
    this.show();
    return code;
  }

  clear() {
    this.entered = "";
    this.say("");
    this.show();
  }

  say(text) {
    this.saidEl.textContent = text;
  }

  // Only the pad's own part: hidden once the code was taken (the export's next step).
  hide(hidden) {
    for (const el of [this.ask, this.shown, this.keys]) el.hidden = hidden;
  }

  show() {
    const n = this.entered.length;
    this.shown.textContent = "*".repeat(n);
    this.shown.setAttribute("aria-label", `${n} ${n === 1 ? "press" : "presses"}`);
  }
}

// The firmware's answer to `unlock CODE` (replies of runLine) -> null when unlocked, else what
// to say: the firmware's own words without the protocol's "unlock: " before them.
export function refusal(replies) {
  const reply = replies.find((r) => r.ok === "unlock" || r.error !== undefined);
  if (reply && reply.ok === "unlock") return null;
  return reply ? reply.error.replace(/^unlock: /, "") : "The device did not answer.";
}
