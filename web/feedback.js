// What the phone gives besides the picture: the buzzer's sound, vibration, the screen kept
// awake while an action runs, and words for screen readers.
//
// Sound: the firmware's own buzzer (its tones, read off the PWM pin by the stand-in) played
// as a square wave, on unless switched off here (browsers start audio only after a gesture:
// the first touch of a button starts it). Vibration: for each card drawn (its colour's
// rhythm, so a glance is not needed) and each second of the timed warning (R21), when the
// device's own buzzer setting is on, as the device would beep. Wake Lock: while an action is
// in play the screen stays on (timed draws, the finishing minute); released at set-up, taken
// again when the page shows again (the browser drops it when hidden).
const SOUND_KEY = "carddraw.sound";
const BUZZ = { green: [60], yellow: [60, 60, 60], red: [60, 60, 60, 60, 60], black: [400, 100, 400] };
const WARN_BUZZ = [40];

export class Feedback {
  constructor() {
    this.audio = null;            // {ctx, osc, gain} once started
    this.soundOn = localStorage.getItem(SOUND_KEY) !== "off";
    this.prevT = 0;               // simulated time of the last tones handled
    this.noteUntil = 0;
    this.lock = null;             // the WakeLockSentinel while held
    this.asking = false;          // a request under way
    this.wanted = false;          // an action runs: the screen should stay on
    this.announcer = document.querySelector("#announce");
    document.addEventListener("visibilitychange", () => this.keepAwake(this.wanted));
  }

  // -- sound ------------------------------------------------------------------------------
  start() {                       // on a gesture: the audio may start now
    if (!this.soundOn || this.audio) return;
    try {
      const ctx = new AudioContext();
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "square";
      gain.gain.value = 0;
      osc.connect(gain).connect(ctx.destination);
      osc.start();
      this.audio = { ctx, osc, gain };
    } catch {
      this.audio = null;          // no audio here: the note on screen still shows
    }
  }

  toggleSound() {
    this.soundOn = !this.soundOn;
    localStorage.setItem(SOUND_KEY, this.soundOn ? "on" : "off");
    if (this.soundOn) this.start();
    else if (this.audio) {
      this.audio.ctx.close();
      this.audio = null;
    }
    return this.soundOn;
  }

  // The tones of a tick's readout (r.tones: [ms, hz] each change) replayed with their spacing,
  // a little behind real time; the note shows on screen while the buzzer sounds.
  tones(r) {
    const from = this.prevT;
    this.prevT = r.t;
    if (r.tones.some(([, hz]) => hz > 0)) {
      this.noteUntil = performance.now() + 250;
      document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
    }
    if (!this.audio) return;
    const start = this.audio.ctx.currentTime + 0.03;
    for (const [ms, hz] of r.tones) {
      const at = start + Math.max(0, ms - from) / 1000;
      if (hz) this.audio.osc.frequency.setValueAtTime(hz, at);
      this.audio.gain.gain.setValueAtTime(hz ? 0.04 : 0, at);
    }
  }

  noting() { return performance.now() < this.noteUntil; }

  // -- vibration --------------------------------------------------------------------------
  vibrate(pattern) {
    if (navigator.vibrate) navigator.vibrate(pattern);
  }

  card(colour) { this.vibrate(BUZZ[colour] || [60]); }

  warning() { this.vibrate(WARN_BUZZ); }

  // -- the screen kept awake while an action runs -----------------------------------------
  async keepAwake(wanted) {
    this.wanted = wanted;
    if (!("wakeLock" in navigator)) return;
    if (wanted && !this.lock && !this.asking && document.visibilityState === "visible") {
      this.asking = true;
      try {
        const lock = await navigator.wakeLock.request("screen");
        if (!this.wanted) { lock.release(); return; }
        this.lock = lock;
        document.body.dataset.awake = "true";
        lock.addEventListener("release", () => {
          if (this.lock === lock) this.lock = null;
          document.body.dataset.awake = "false";
        });
      } catch {
        this.lock = null;          // refused (battery saver, no gesture yet): tried again later
      } finally {
        this.asking = false;
      }
    } else if (!wanted && this.lock) {
      const lock = this.lock;
      this.lock = null;
      document.body.dataset.awake = "false";
      lock.release();
    }
  }

  // -- screen readers ---------------------------------------------------------------------
  // One message in the live region (a card and what it did, the warning, a new screen's
  // words); the same words twice in a row are said again (a second card alike).
  say(text) {
    const el = this.announcer;
    el.textContent = el.textContent === text ? `${text}\u00a0` : text;
  }
}
