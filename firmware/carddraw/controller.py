"""Button events and the clock -> engine calls -> what the device shows.

Pure: no machine, time, asyncio or os. Time comes in as now_ms, randomness as an rng with
randrange(n) (and seed(n) for the bench). Runs the same under CPython and MicroPython.

Buttons: RANK, HELP, DRAW, STOP; a long press (about 0.8 s) is a separate event and fires no
short press. In menus RANK moves up, HELP moves down, DRAW chooses, STOP goes back; on a
chosen number RANK lowers it, HELP raises it, DRAW or STOP is done. Hold STOP on any screen
for the referee lock (except on the lock and referee screens, where it leaves them). Other
long presses do something only on the set-up screen.

Screens and their buttons (view.screen in brackets):
  Set-up [setup]       RANK ranks +1, HELP helpers +1 (both wrap; hold to step down; rank 0
                       for scan only, R3), STOP next skill, DRAW start the action.
                       Shows skill, deck and chance to succeed (R26). Hold DRAW: options.
  Options [options]    added green/yellow/red/black cards (R6), successes needed (R7),
                       automatic successes (R11), redraws (R15), bonus greens (R5), referee
                       present, timed mode (R21), interval 30-60 s in 5 s steps, buzzer,
                       brightness 1-5. DRAW on an on/off item flips it. STOP: back to set-up.
  Active [active]      deck G/Y/R/B (R20), next-card odds (R25), chance to succeed (R26),
                       successes/needed, complications, draws, redraws left.
                       DRAW draw a card. STOP asks to confirm the stop.
                       Timed mode: a draw by itself every interval, after a 5 s warning
                       (LED blinks, a beep a second); STOP during the warning stops at once.
  Stop? [confirm]      DRAW stop (R16, a failed attempt: no retry today). Any other: back.
  Card [card]          the card, its colour on the LED (black shows purple), its result in
                       the action's words (R24). With redraws left (R15): DRAW accept,
                       HELP redraw; STOP refused (R16). With none left the card applies at
                       once: DRAW or STOP goes on (to the deck again, R20, or the outcome).
  Black card [referee] a black with a referee present (R14): only the referee menu decides.
  Success [success]    RANK/HELP move, DRAW picks: finish (R23) or chain a new action (R17).
  Finishing [finishing] 60 s roleplay countdown (R23), then the summary. No button skips it.
  Summary [summary]    successes, complications, outcome. DRAW: set-up.
  Stopped [stopped]    the R16 reminder. DRAW: set-up.
  Failed [failed]      the catastrophe (R14). DRAW: set-up.
  Referee lock [lock]  four presses of R/H/D/S (default config.DEFAULT_LOCK). A wrong code
                       says so and goes back. Hold STOP: cancel. 30 s idle: cancel.
  Referee [refmenu]    black: go on / black: fail (R14), helper leaves (R18), adjust deck
                       (R19), undo last draw, end action, change code. STOP: leave.
                       30 s idle leaves, so a player cannot pick up an open menu.
  Adjust deck [adjust] pick a colour with DRAW, then RANK removes one card, HELP adds one
                       (R8 settles). STOP: back to the referee menu.
  New code [newcode]   four presses, then DRAW saves, STOP cancels, RANK/HELP start over.
  Message [message]    a refusal or a note (e.g. R22 empty deck). Any button: back.

After a power cut resume_state() brings back the screen, the action, the card on show and
the undo snapshot; the finishing countdown and the timed interval start afresh.

Log records (take_log), each {"ev": ..., "ms": now_ms, ...}:
  start    the action's parameters, "deck", "chance" (R26), "chain" (true after R17)
  draw     "n" (draw number), "card", "deck" after the draw (the card is still in it until
           its result applies), "timed" (drawn by timed mode)
  redraw   "n", "card" (the new card), "left" (redraws left)
  accept   "n", "card", "deck" after the result, "state", "successes", "complications"
  referee  "decision": "continue" or "end" (R14)
  stop     "successes", "needed", "draws"
  end      "outcome": succeeded, failed, stopped or "ended by referee"; the counts
  helper_leaves, adjust ("colour", "delta"), undo: each with the "deck" after
  settings the options changed (name: value), or "lock": "changed" (never the code)
  seed, chain, error ("msg": a bug caught and shown instead of crashing)
"""
from carddraw import config, saved, settings as known
from carddraw.deck import COLOURS, check_colour
from carddraw.action import RuleError
from carddraw.odds import next_card, success_chance

WARN_MS = 5000         # R21 warning before a timed draw
FINISH_MS = 60000      # R23
IDLE_MS = 30000        # the lock and the referee menus close after this long untouched
SKILLS = config.SKILLS
# On the board a .mpy is loaded into RAM, and every separate string costs some 30 bytes on
# top of its characters: so the texts live in a few long strings, split where shown.
NAMES = "Surgery|Repair|Scan"                       # by SKILLS
CNAMES = "Green|Yellow|Red|Black"                   # by COLOURS
KINDS = "Success|Setback|Complication|Catastrophe"  # R1
WORDS = (  # R24: what each colour means in each action (SKILLS order; COLOURS order)
    "a clean stitch holds|the patient stirs|a nicked blood vessel|the heart stops",
    "a part clicks into place|a stripped bolt|an electrical discharge|the core overloads",
    "a clear reading|signal noise|particles destabilise|the field collapses",
)
OPTS = ("green", "yellow", "red", "black", "needed", "auto", "redraws", "bonus",
        "referee", "timed", "interval", "buzzer", "brightness")
OPT_LABELS = ("Add green|Add yellow|Add red|Add black|Needed|Auto succ|Redraws|Bonus grn|"
              "Referee|Timed|Interval|Buzzer|Brightness")
# referee menu items, by number: 0 go on, 1 fail, 2 helper, 3 adjust, 4 undo, 5 end, 6 code
REF_LABELS = ("Black: go on|Black: fail|Helper leaves|Adjust deck|Undo last draw|End action|"
              "Change code")
CONFIRM = "Stop?|Stopping short|of success is a|failed attempt:|no retry today|(R16).|" \
          "D:stop  S:back"
STOPPED = "Stopped|A failed|attempt: this|task cannot be|tried again|today (R16)."
FINISHING = "Finishing|Roleplay the|finish: at least|one minute (R23)|"
LOCK = "Referee lock|Enter the code|with R H D S:|"
LOCKED = ("lock", "refmenu", "adjust", "newcode")  # referee screens
SCREENS = ("setup", "options", "active", "confirm", "card", "referee", "success", "finishing",
           "summary", "stopped", "failed", "lock", "refmenu", "adjust", "newcode", "message")


class View:
    """What the device shows: a screen name, up to 8 lines of up to 16 characters (the first
    is the title), the LED colour (None = off) and whether it blinks (timed warning)."""

    def __init__(self, screen, lines, led=None, blink=False):
        self.screen = screen
        self.lines = lines
        self.led = led
        self.blink = blink

    def __eq__(self, other):
        return (isinstance(other, View) and self.screen == other.screen
                and self.lines == other.lines and self.led == other.led
                and self.blink == other.blink)


def part(text, i):
    return text.split("|")[i]


def words(skill, colour):
    """R24: a card's result in the action's own words."""
    return part(WORDS[SKILLS.index(skill)], COLOURS.index(colour))


def wrap(text, width=16):
    """Words into lines of at most width characters (a longer word is cut)."""
    lines = []
    cur = ""
    for w in text.split():
        while len(w) > width:
            if cur:
                lines.append(cur)
                cur = ""
            lines.append(w[:width])
            w = w[width:]
        if not cur:
            cur = w
        elif len(cur) + 1 + len(w) <= width:
            cur += " " + w
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    return lines


def deck_line(c):
    return "G%2d Y%2d R%2d B%2d" % c  # R20


def odds_line(c):
    return "".join(["%3d%%" % round(p * 100) for p in next_card(c)])  # R25


def pct(p):
    return "%5.1f%%" % (int(p * 1000) / 10)  # rounded down: never shows 100% unless certain


def tally(a):
    return "Succ %d/%d Comp %d" % (a.successes, a.needed, a.complications)


class Controller:
    def __init__(self, settings=None, rng=None, now_ms=0, resume=None):
        if rng is None:
            import random
            rng = random
        self.rng = rng
        self.settings = known.check(settings)[0]
        self.settings_version = 0
        self.resume_version = 0
        self.now = now_ms
        self.action = None
        self.undo = None        # saved.to_dict of the action before its last draw
        self.card = None        # the colour on the card screen
        self.applied = False    # ... and whether its result has applied (R15)
        self.ended = "success"  # after a success: "success", "finishing" or "summary"
        self.chained = False    # R17: the next action is chained
        self.due = None         # timed mode: when the next draw comes (R21)
        self.warn = 0           # seconds of warning on show, 0 = no warning
        self.fin_end = 0        # R23 countdown end
        self.screen = "setup"
        self.back = "setup"     # where the lock returns to
        self.cur = 0            # menu cursor
        self.editing = False
        self.code = ""
        self.idle = 0           # the last press
        self.msg = None         # (title, lines, screen to return to)
        self.before = None      # the settings when the options menu opened
        self._beeps = []
        self._log = []
        self._view = None
        self._sec = None
        self._ckey = None
        self._cval = 0.0
        if resume:
            self._restore(resume)
        self._rs = self.resume_state()

    # -- the API ------------------------------------------------------------------------------
    def press(self, name, now_ms):
        self._event(name, False, now_ms)

    def long(self, name, now_ms):
        self._event(name, True, now_ms)

    def tick(self, now_ms):
        self.now = now_ms
        s = self.screen
        try:
            if s == "active":
                self._timed()
            elif s == "finishing":
                if now_ms >= self.fin_end:
                    self.ended = "summary"
                    self._beep("success")
                    self._goto("summary")
            elif ((s in LOCKED or (s == "message" and self.msg[2] in LOCKED))
                  and now_ms - self.idle > IDLE_MS):
                self._leave()  # a referee screen left open closes itself
        except Exception as e:
            self._failsafe(e, s)
        sec = self._secs()
        if sec != self._sec:
            self._sec = sec
            self._view = None
        if self._view is None:
            self._saved()

    def view(self):
        if self._view is None:
            lines, led = self._lines()
            lines[0] = lines[0][:14]  # room for the battery icon
            self._view = View(self.screen, [x[:16] for x in lines[:8]], led,
                              self.screen == "active" and self.warn > 0)
        return self._view

    def take_beeps(self):
        b = self._beeps
        self._beeps = []
        return b

    def take_log(self):
        b = self._log
        self._log = []
        return b

    def resume_state(self):
        a = self.action
        if a is None:
            return None
        return {"v": 1, "screen": self._home(), "action": saved.to_dict(a), "undo": self.undo,
                "card": self.card, "applied": self.applied, "ended": self.ended}

    def seed(self, n):
        if self.screen != "setup":
            return "seed only on the set-up screen"
        try:
            self.rng.seed(n)
        except Exception as e:
            return "cannot seed: %s" % e
        self._rec("seed", n=n)
        return None

    def show(self):
        v = self.view()
        a = self.action
        d = {"screen": v.screen, "lines": list(v.lines), "led": v.led, "state": None,
             "deck": None, "successes": None, "needed": None, "complications": None,
             "draws": None}
        if a:
            d["state"] = a.state
            d["deck"] = list(a.deck.counts())
            d["successes"] = a.successes
            d["needed"] = a.needed
            d["complications"] = a.complications
            d["draws"] = a.draws
        return d

    # -- events -------------------------------------------------------------------------------
    def _event(self, b, long, now):
        self.now = now
        self._view = None
        if b not in config.BUTTONS:
            return
        s = self.screen
        self.idle = now
        try:
            if long and b == "STOP":
                if s in LOCKED or (s == "message" and self.msg[2] in LOCKED):
                    self._leave()
                else:  # the referee lock, from anywhere
                    self.back = self.msg[2] if s == "message" else s
                    self.code = ""
                    self.editing = False
                    self._goto("lock")
            elif s == "message":
                self._goto(self.msg[2])
            elif s == "setup":
                self._setup(b, long)
            elif long:
                pass  # other long presses mean something only on set-up
            elif s == "options" or s == "adjust":
                self._edit(b)
            elif s == "active":
                if b == "DRAW":
                    self._draw(False)
                elif b == "STOP":
                    if self.warn:  # R21: a stop during the warning needs no confirming
                        self._stop()
                    else:
                        self._beep("click")
                        self._goto("confirm")
            elif s == "confirm":
                if b == "DRAW":
                    self._stop()
                else:
                    self._beep("click")
                    self._goto("active")
            elif s == "card":
                self._card(b)
            elif s == "referee":
                self._beep("error")  # only the referee decides (R14)
            elif s == "success":
                if b == "DRAW":
                    if self.cur == 0:
                        self.ended = "finishing"  # R23
                        self.fin_end = now + FINISH_MS
                        self._goto("finishing")
                    else:
                        self._rec("chain")  # R17: a new deck; this finishing is skipped
                        self.chained = True
                        self._clear()
                elif b != "STOP":
                    self._move(b, 2)
            elif s == "lock" or s == "newcode":
                self._code(b)
            elif s == "refmenu":
                self._refmenu(b)
            elif s != "finishing" and b == "DRAW":  # summary, stopped, failed
                self._beep("click")
                self._clear()
            # finishing: at least a minute of roleplay (R23), nothing skips it
        except (RuleError, ValueError) as e:  # the engine refused: say why, change nothing
            self._say("Not possible", str(e), s)
        except Exception as e:
            self._failsafe(e, s)
        self._saved()

    def _setup(self, b, long):
        s = self.settings
        if b == "DRAW":
            if long:
                self.cur = 0
                self.editing = False
                self.before = dict(s)
                self._goto("options")
            else:
                self._start()
            return
        if b == "STOP":
            self._set("skill", SKILLS[(SKILLS.index(s["skill"]) + 1) % 3])  # R24
            if s["skill"] != "scan" and s["ranks"] == 0:
                self._set("ranks", 1)  # R3
        else:
            k = "ranks" if b == "RANK" else "helpers"
            low = 1 if k == "ranks" and s["skill"] != "scan" else 0  # R3
            v = s[k] + (-1 if long else 1)
            if v > 9:
                v = low
            elif v < low:
                v = 9
            self._set(k, v)
        self._beep("click")

    def _edit(self, b):
        """The options menu and the referee's deck adjustment: pick a row, then RANK/HELP."""
        adj = self.screen == "adjust"
        s = self.settings
        k = OPTS[self.cur]
        d = -1 if b == "RANK" else 1
        if self.editing:
            if b == "DRAW" or b == "STOP":
                self.editing = False
            elif adj:
                a = self.action
                c = COLOURS[self.cur]
                a.adjust(c, d)  # R19, R8 settles
                self._rec("adjust", colour=c, delta=d, deck=list(a.deck.counts()))
            else:
                r = config.NUMBERS[k]
                v = s[k] + (d * 5 if k == "interval" else d)
                if v < r[1] or v > r[2]:
                    self._beep("error")
                    return
                self._set(k, v)
        elif b == "STOP":
            if adj:
                self.cur = 0
                self._goto("refmenu")
            else:
                changed = {}
                for n in OPTS:
                    if s[n] != (self.before or {}).get(n):
                        changed[n] = s[n]
                if changed:
                    self._rec("settings", **changed)
                self._goto("setup")
        elif b == "DRAW":
            if not adj and k in config.FLAGS:
                self._set(k, not s[k])
            else:
                self.editing = True
        else:
            self._move(b, 4 if adj else len(OPTS))
        self._beep("click")

    def _card(self, b):
        a = self.action
        if self.applied:
            if b == "DRAW" or b == "STOP":
                self.card = None
                self._beep("click")
                self._goto(self._home())  # R20: the deck again before the next draw
        elif b == "DRAW":
            self._accept()
            self.card = None
            self._goto(self._home())
        elif b == "HELP":
            c = a.redraw(self.rng)  # R15
            self.card = c
            self._rec("redraw", n=a.draws, card=c, left=a.redraws_left)
            self._beep("black" if c == "black" else "card")
            if a.redraws_left == 0:
                self._accept()
        elif b == "STOP":
            self._say("Not now", "Accept the card first: no stop between a draw and "
                      "its result (R16).", "card")

    def _code(self, b):
        """The referee lock, and a new code: four presses of R/H/D/S."""
        self._beep("click")
        if len(self.code) < 4:
            self.code += b[0]
            if len(self.code) == 4 and self.screen == "lock":
                if self.code == self.settings["lock"]:
                    self.cur = 0
                    self._goto("refmenu")
                else:
                    self._say("Wrong code", "Wrong referee code.", self.back)
        elif b == "DRAW":
            self._set("lock", self.code)
            self._rec("settings", lock="changed")  # never the code itself: players read logs
            self.cur = 0
            self._say("Code saved", "The new referee code is saved.", "refmenu", "click")
        elif b == "STOP":
            self._goto("refmenu")
        else:
            self.code = ""

    def _ref_items(self):
        a = self.action
        items = []
        if a:
            if a.state == "referee":
                items = [0, 1]
            elif a.state == "active":
                items = [2, 3]
            if self.undo is not None:
                items.append(4)
            if a.state == "active" or a.state == "referee":
                items.append(5)
        items.append(6)
        return items

    def _refmenu(self, b):
        items = self._ref_items()
        if b == "STOP":
            self._leave()
            return
        self._beep("click")
        if b != "DRAW":
            self._move(b, len(items))
            return
        k = items[self.cur % len(items)]
        a = self.action
        if k == 0:
            a.referee_continue()  # R14: the black leaves the deck
            self.card = None      # ... and off the screen, if it was still on show (no redraws)
            self._rec("referee", decision="continue", deck=list(a.deck.counts()))
            self._rearm()
            self._goto("active")
        elif k == 1:
            a.referee_end()  # R14
            self.card = None
            self._rec("referee", decision="end")
            self._end("failed")
            self._beep("fail")
            self._goto("failed")
        elif k == 2:
            n = a.helper_leaves()  # R18
            c = a.deck.counts()
            self._rec("helper_leaves", helpers=n, deck=list(c))
            self._say("Helper left", "%d helping now. Deck %s" % (n, deck_line(c)), "refmenu",
                      "click")
        elif k == 3:
            if not a.referee:  # R19, as Action.adjust
                raise RuleError("No referee present: the deck cannot be adjusted (R19).")
            if a.pending is not None:
                raise RuleError("The deck can be adjusted only between draws (R19).")
            self.cur = 0
            self.editing = False
            self._goto("adjust")
        elif k == 4:
            self.action = a = saved.from_dict(self.undo)
            self.undo = None
            self.card = None
            self.applied = False
            self.ended = "success"
            self._rec("undo", draws=a.draws, state=a.state, deck=list(a.deck.counts()))
            self._rearm()
            self._say("Undone", "The last draw is undone.", self._home(), "click")
        elif k == 5:
            self._rec("end", outcome="ended by referee", successes=a.successes,
                      needed=a.needed, complications=a.complications, draws=a.draws)
            self._clear()
            self._say("Ended", "The referee ended the action.", "setup", "click")
        else:
            self.code = ""
            self._goto("newcode")

    # -- the action ---------------------------------------------------------------------------
    def _start(self):
        s = self.settings
        a = known.action_from(s)
        self.action = a
        self.undo = None
        self.card = None
        self.applied = False
        self.ended = "success"
        self._rearm()
        self._rec("start", skill=a.skill, ranks=a.ranks, helpers=a.helpers, bonus=a.bonus,
                  difficulty=list(a.difficulty), needed=a.needed, auto=a.auto,
                  redraws=a.redraws, referee=a.referee, timed=s["timed"],
                  interval=s["interval"], deck=list(a.deck.counts()),
                  chance=round(self._chance(a), 4), chain=self.chained)
        self.chained = False
        self._beep("click")
        self._goto("active")
        return a

    def _rearm(self):
        self.due = self.now + self.settings["interval"] * 1000

    def _timed(self):
        """R21: a draw by itself at the interval after the last draw, a 5 s warning first."""
        a = self.action
        if not self.settings["timed"] or a.state != "active" or a.pending is not None:
            return
        left = self.due - self.now
        if left > WARN_MS:
            return
        if not self.warn and left < WARN_MS - 1000:  # a late tick must not cut the warning
            self.due = self.now + WARN_MS
            left = WARN_MS
        if left <= 0:
            self._draw(True)
            return
        sec = (left + 999) // 1000
        if sec != self.warn:
            self.warn = sec
            self._beep("warn")
            self._view = None

    def _draw(self, timed):
        a = self.action
        snap = saved.to_dict(a)
        c = a.draw(self.rng)  # R9; R22 raises on an empty deck, changing nothing
        self.undo = snap
        self._rearm()
        self.card = c
        self.applied = False
        self._rec("draw", n=a.draws, card=c, deck=list(a.deck.counts()), timed=timed)
        self._beep("black" if c == "black" else "card")
        if a.redraws_left == 0:
            self._accept()  # R15: no redraw left, the card applies at once
        self._goto("card")

    def _accept(self):
        a = self.action
        c = a.pending
        st = a.accept()  # R10-R14
        self.applied = True
        self._rec("accept", n=a.draws, card=c, deck=list(a.deck.counts()), state=st,
                  successes=a.successes, complications=a.complications)
        if st == "succeeded":
            self._beep("success")
            self._end(st)
        elif st == "failed":
            self._beep("fail")
            self._end(st)

    def _stop(self):
        a = self.action
        a.stop()  # R16
        self._rec("stop", successes=a.successes, needed=a.needed, draws=a.draws)
        self._end("stopped")
        self._beep("fail")
        self._goto("stopped")

    def _end(self, outcome):
        a = self.action
        self._rec("end", outcome=outcome, successes=a.successes, needed=a.needed,
                  complications=a.complications, draws=a.draws)

    def _clear(self):
        self.action = None
        self.undo = None
        self.card = None
        self.applied = False
        self._goto("setup")

    def _restore(self, r):
        try:
            a = saved.from_dict(r["action"])
            # a damaged undo snapshot or card costs only itself, never the action
            undo = r.get("undo")
            try:
                saved.from_dict(undo)
            except Exception:
                undo = None
            card = r.get("card")
            applied = r.get("applied") is True
            if card is not None:
                try:
                    check_colour(card)
                except Exception:
                    card = None
                    applied = False
            if a.pending is not None or not applied:
                card = a.pending
                applied = False
            ended = r.get("ended")
            if ended not in ("success", "finishing", "summary"):
                ended = "success"
        except Exception as e:
            self._say("Not resumed", "The saved action is unreadable: %s" % e, "setup")
            return
        self.action = a
        self.undo = undo
        self.card = card
        self.applied = applied
        self.ended = ended
        self._rearm()
        self.fin_end = self.now + FINISH_MS
        self.screen = self._home()

    # -- plumbing -----------------------------------------------------------------------------
    def _failsafe(self, e, where):
        # never crash the device: a bug shows as a message and is logged
        self._rec("error", msg=str(e))
        self._say("Error", str(e), "setup" if where == "message" else where)

    def _saved(self):
        rs = self.resume_state()
        if rs != self._rs:
            self._rs = rs
            self.resume_version += 1

    def _beep(self, name):
        if self.settings["buzzer"]:
            if len(self._beeps) >= 16:  # the app takes them every loop; keep the newest
                self._beeps.pop(0)
            self._beeps.append(name)

    def _rec(self, ev, **kw):
        r = {"ev": ev, "ms": self.now}
        r.update(kw)
        if len(self._log) >= 64:  # the app takes the log every loop; never grow without end
            self._log.pop(0)
        self._log.append(r)

    def _set(self, k, v):
        if self.settings[k] != v:
            self.settings[k] = v
            self.settings_version += 1

    def _move(self, b, n):
        self.cur = (self.cur + (-1 if b == "RANK" else 1)) % n

    def _goto(self, s):
        if s == "active" and self.due is not None and self.due < self.now + WARN_MS:
            self.due = self.now + WARN_MS  # R21: never a timed draw without a full warning
        if s == "success" and self.screen != s:
            self.cur = 0  # the cursor starts on "finish"
        self.warn = 0
        self.screen = s
        self._view = None

    def _say(self, title, text, back, beep="error"):
        self.msg = (title, wrap(text)[:5], back)
        self._beep(beep)
        self._goto("message")

    def _leave(self):
        """Out of the referee screens."""
        if self.action is None and self.back in ("setup", "options"):
            self._goto(self.back)
        else:
            self._goto(self._home())

    def _home(self):
        """The screen the action's state calls for."""
        a = self.action
        if a is None:
            return "setup"
        if self.card is not None:
            return "card"
        if a.state == "succeeded":
            return self.ended
        return a.state  # active, referee, stopped, failed

    def _secs(self):
        if self.screen == "finishing":
            return max(0, (self.fin_end - self.now + 999) // 1000)
        if self.screen == "active" and self.settings["timed"]:
            return max(0, (self.due - self.now + 999) // 1000)
        return None

    def _chance(self, a, key=None):
        """R26, the costly part of a view: computed once per deck and progress."""
        if key is None:
            key = (a.deck.counts(), a.successes, a.auto_applied, a.state, a.pending)
        if key != self._ckey:
            self._cval = success_chance(a)
            self._ckey = key
        return self._cval

    # -- what the screen shows: (lines, led) ---------------------------------------------------
    def _lines(self):
        s = self.screen
        a = self.action
        st = self.settings
        if s == "setup":
            b = known.action_from(st)
            t = part(NAMES, SKILLS.index(st["skill"]))
            if st["referee"]:
                t += " REF"
            if st["timed"]:
                t += " T%d" % st["interval"]
            return ["Chain set-up" if self.chained else "Set-up", t,
                    "Ranks %d  Help %d" % (st["ranks"], st["helpers"]),
                    deck_line(b.deck.counts()),
                    "Chance  " + pct(self._chance(b, self.settings_version)),
                    "Need %d Redraw %d" % (st["needed"], st["redraws"]),
                    "S:skill  D:start", "hold D:opt S:ref"], None
        if s == "options" or s == "adjust" or s == "refmenu":
            edit = self.editing
            if s == "options":
                title = "Options"
                labels = OPT_LABELS.split("|")
                vals = []
                for k in OPTS:
                    v = st[k]
                    if k == "interval":
                        v = "%ds" % v
                    elif k == "referee":
                        v = "yes" if v else "no"
                    elif k in config.FLAGS:
                        v = "on" if v else "off"
                    vals.append(v)
                hint = "R/H:move D:pick"
            elif s == "adjust":
                title = "Adjust deck"
                labels = CNAMES.split("|")
                vals = a.deck.counts()
                hint = "D:pick  S:back"
            else:
                title = "Referee"
                items = self._ref_items()
                self.cur %= len(items)
                labels = [part(REF_LABELS, i) for i in items]
                vals = [""] * len(items)
                hint = "D:pick  S:back"
                edit = False
            rows = []
            for i in range(len(labels)):
                v = vals[i]
                if edit and i == self.cur:
                    v = "<%s>" % v
                rows.append("%s%-10s%5s" % (">" if i == self.cur else " ", labels[i], v))
            top = 0
            if len(rows) > 6:
                top = min(max(0, self.cur - 5), len(rows) - 6)
            return [title] + rows[top:top + 6] + ["RANK- HELP+ D:ok" if edit else hint], None
        if s == "active":
            c = a.deck.counts()
            lines = [part(NAMES, SKILLS.index(a.skill)) + (" timed" if st["timed"] else ""),
                     deck_line(c), odds_line(c), "Chance  " + pct(self._chance(a)), tally(a),
                     "Draws %-3d Redr %d" % (a.draws, a.redraws_left)]
            if self.warn:
                return lines + ["DRAW IN %ds!" % self.warn, "S:stop now"], "yellow"
            return lines + ["Auto draw in %ds" % self._secs() if st["timed"] else "",
                            "D:draw  S:stop"], None
        if s == "confirm":
            return CONFIRM.split("|"), None
        if s == "card":
            c = self.card
            i = COLOURS.index(c)
            lines = [part(CNAMES, i) + " card", "%s #%d" % (part(KINDS, i), a.draws)]
            lines += (wrap(words(a.skill, c)) + [""])[:2]
            if not self.applied:
                return lines + ["Redraws left %d" % a.redraws_left, "D:accept",
                                "H:redraw (R15)"], c
            r = a.state
            if r == "succeeded":
                r = "Success reached!"
            elif r == "failed":
                r = "The action fails"
            elif r == "referee":
                r = "Referee decides"
            else:
                r = tally(a)
            return lines + [r, "", "D:go on"], c
        if s == "referee" or s == "failed":
            lines = [s == "failed" and "Failed" or "Black card", "Catastrophe!"]
            lines += (wrap(words(a.skill, "black")) + [""])[:2]
            if s == "failed":
                # the LED keeps the black that ended it (purple): red would read as a complication
                return lines + [tally(a), "Successes may be", "void (R14)", "D:done"], "black"
            return lines + ["Referee decides", "(R14). Referee:", "hold STOP + code"], "black"
        if s == "success":
            c = self.cur
            return ["Success!", tally(a), "Draws %d" % a.draws, "",
                    (c == 0 and ">" or " ") + "Finish      R23",
                    (c == 1 and ">" or " ") + "Chain new   R17", "R/H:move D:pick"], "green"
        if s == "finishing":
            return (FINISHING + "   %d s left" % self._secs()).split("|"), None
        if s == "summary":
            return ["Summary", part(NAMES, SKILLS.index(a.skill)), "Outcome: success",
                    "Successes %d/%d" % (a.successes, a.needed),
                    "Complications %d" % a.complications, "Draws %d" % a.draws, "",
                    "D:new set-up"], None
        if s == "stopped":
            return STOPPED.split("|") + [tally(a), "D:done"], None
        if s == "lock" or s == "newcode":
            n = len(self.code)
            if s == "lock":
                code = "*" * n + "_" * (4 - n)
                return (LOCK + "|    " + " ".join(code) + "|||hold S: cancel").split("|"), None
            code = self.code + "_" * (4 - n)
            return ["New code", "Press 4 keys:", "", "    " + " ".join(code), "",
                    "D:save S:cancel" if n == 4 else "", "hold S: cancel"], None
        m = self.msg  # message
        return [m[0]] + m[1] + ["", "Any key: back"], None
