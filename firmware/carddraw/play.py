# The action in play: the engine's Action and what the device keeps around it -- the card on
# show and whether its result applied (R15), the undo snapshot, the phase after a success or
# a stop (R16, R23), timed mode's next draw and its warning (R21), the finishing countdown
# and the odds on show (R25, R26). One object, made at the start (Play.start) or after a
# power cut (Play.replay) and dropped when the controller clears it. Pure: no I/O; the
# controller passes itself in for the clock, the settings, the rng, the log and the buzzer.
#
# Its operations change the action and log what they did; where the device goes next is the
# caller's: home() names the screen the state calls for. The log is the action's record:
# after a power cut the same operations run again on the records (replay), each checked
# against the deck it logged, and the hint (what no record says: a card put away, the
# finishing, the timed warning begun) brings back the rest. restore() takes a state() back,
# for the tests that power-cut a controller without a store.
from carddraw import saved, settings as known
from carddraw.action import ACTIVE, SUCCEEDED, STOPPED, FAILED, REFEREE, Action, RuleError
from carddraw.deck import BLACK, check_colour
from carddraw.odds import action_risk

WARN_MS = 5000    # R21: the warning before a timed draw
FINISH_MS = 60000  # R23: the minute of roleplay
ENDED = ("success", "finishing", "summary")
PHASES = {"finishing": "f", "summary": "s"}  # the hint's letter for each phase after the end


class _Aside:
    """The controller a draw worked out ahead (Play.ahead) sees: the rng a copy, the clock
    and settings the controller's, its records and sounds kept here until the press."""

    def __init__(self, ctl, rng):
        self.rng = rng
        self.now = ctl.now
        self.settings = ctl.settings
        self.records = []
        self.beeps = []

    def add(self, record):
        self.records.append(record)

    def beep(self, name):
        self.beeps.append(name)


class Play:
    def __init__(self, ctl, action):
        self.ctl = ctl
        self.action = action
        self.card = None        # the colour on the card screen
        self.applied = False    # ... and whether its result has applied (R15)
        self.undo = None        # saved.snapshot of the action before its last draw
        self.ended = "success"  # after a success or a stop: "success", "finishing", "summary"
        self.due = 0            # timed mode: when the next draw comes (R21)
        self.warn = 0           # seconds of warning on show, 0 = none
        self.fin_end = 0        # when the finishing countdown ends (R23)
        self.replaying = False  # the records are played again: nothing logged or heard
        self._odds = None       # (what they were worked out for, (chance, red, black))
        self._hint = None       # (its parts, the hint) last made
        self._next = None       # the next DRAW worked out ahead (ahead()), or None
        self.rearm()

    @classmethod
    def start(cls, ctl):
        """Set-up's DRAW: the action the settings describe (R2-R15), logged with its chance.
        Unseeded, the device's generator takes fresh entropy into its key first (R9: cards
        nobody can call from the log); a stand-in rng without fresh() is left alone."""
        fresh = getattr(ctl.rng, "fresh", None)
        if fresh:
            fresh()
        settings = ctl.settings
        play = cls(ctl, known.action_from(settings, Action))
        a = play.action
        planned = ctl.planned_odds(a.deck.counts())  # set-up's, by the same sweep: not twice
        if planned is not None:
            play._odds = (play._odds_key(), planned)
        ctl.add(["start", ctl.now, a.skill, a.ranks, a.helpers, a.bonus, list(a.difficulty),
                 a.needed, a.auto, a.redraws, a.referee, settings["timed"],
                 settings["interval"], ctl.chained, round(play.odds()[0], 4),
                 list(a.deck.counts())])  # saved.PACKED's order
        if not settings["frozen"]:  # R6: each action its own difficulty, unless the referee's
            for name in known.DIFFICULTY:
                ctl.change(name, 0)
        ctl.beep("click")
        return play

    @classmethod
    def restore(cls, ctl, state):
        """After a power cut: the action, its undo snapshot and the card on show, from the
        resume state (a damaged undo snapshot or card costs only itself, never the action).
        R21: a timed action gives its warning at once (a fresh interval at each boot would
        let switching off hold the draws back for ever); the finishing starts afresh.
        Raises ValueError (or another exception) when the action itself is unreadable."""
        play = cls(ctl, saved.from_dict(state["action"]))
        action = play.action
        undo = state.get("undo")
        try:
            play.undo = saved.snapshot(saved.from_dict(undo))
        except Exception:
            pass
        card = state.get("card")
        applied = state.get("applied") is True
        if card is not None:
            try:
                check_colour(card)
            except Exception:
                card = None
                applied = False
        if action.pending is not None or not applied:
            card = action.pending
            applied = False
        play.card = card
        play.applied = applied
        ended = state.get("ended")
        play.ended = ended if ended in ENDED else "success"
        play.due = ctl.now + WARN_MS
        play.fin_end = ctl.now + FINISH_MS
        return play

    @classmethod
    def replay(cls, ctl, records, hint):
        """After a power cut: the action from its records (the first its start), played
        again, then the hint. -> the Play, or None when the action is over and put away.
        Raises ValueError (or another exception) when the records do not make an action."""
        # an action already put away stays away, even when a record before its closing
        # record is spoilt: played again it would raise at that record on every boot
        for r in records:
            if saved.closes(r):
                return None
        start = records[0]
        play = cls(ctl, Action(start["skill"], start["ranks"], start["helpers"],
                               start["bonus"], *start["difficulty"], needed=start["needed"],
                               auto=start["auto"], redraws=start["redraws"],
                               referee=start["referee"]))
        play.check(start)
        play.replaying = True
        for record in records[1:]:
            if play.apply(record):
                return None  # ended by the referee, lost, or chained: put away (R17)
        play.replaying = False
        if "x" in hint:
            return None
        if "d" in hint and play.action.pending is None:
            play.card = None
        for phase in PHASES:
            if PHASES[phase] in hint:
                play.ended = phase
        # R21: after a power cut the warning starts at once, and a warning already begun
        # draws at once: switching off must hold no draw back
        play.due = ctl.now + (0 if "w" in hint else WARN_MS)
        play.warn = 1 if "w" in hint else 0
        play.fin_end = ctl.now + FINISH_MS
        return play

    def apply(self, r):
        """One record of the log played again. -> True when it puts the action away."""
        ev = r.get("ev")
        if ev == "draw":
            self.draw(r["timed"], r["card"])
        elif ev == "redraw":
            self.redraw(r["card"])
        elif ev == "accept":
            self.accept()
        elif ev == "stop":
            self.stop()
        elif ev == "referee":
            if r["decision"] == "continue":
                self.referee_continue()
            else:
                self.referee_fail()
        elif ev == "helper_leaves":
            self.helper_leaves()
        elif ev == "adjust":
            self.adjust(r["colour"], r["delta"])
        elif ev == "undo":
            self.undo_draw()
        elif saved.closes(r):
            return True
        self.check(r)
        return False

    def check(self, r):
        """A record's deck against the engine's: the log and the play must agree."""
        if "deck" in r and list(self.action.deck.counts()) != r["deck"]:
            raise ValueError("the log's deck %s is not the engine's %s" % (
                r["deck"], list(self.action.deck.counts())))

    def hint(self):
        """What no record says, for the journal: "d" the card put away, "f" the finishing
        or "s" the summary after the end, "w" the timed warning begun."""
        put, warned, ended = self.card is None, self.warn > 0, self.ended
        last = self._hint  # the string kept while its parts stay: asked every loop pass
        if last is None or last[0] != put or last[1] != warned or last[2] != ended:
            last = self._hint = (put, warned, ended, ("d" if put else "") + PHASES.get(ended, "")
                                 + ("w" if warned else ""))
        return last[3]

    def log(self, record):
        """A record of play, made whole here: a list in saved.PACKED's order for the records
        a draw makes before its LED (draw, redraw, accept, end, stop), else a dict
        {"ev": ..., "ms": now, ...}."""
        if not self.replaying:
            self.ctl.add(record)

    def beep(self, name):
        if not self.replaying:
            self.ctl.beep(name)

    def state(self):
        """The resume state: everything restore() needs, as JSON-able data."""
        undo = self.undo and saved.to_dict(saved.rewound(self.action, self.undo))
        return {"v": 1, "screen": self.home(), "action": saved.to_dict(self.action),
                "undo": undo, "card": self.card, "applied": self.applied,
                "ended": self.ended}

    # -- what it shows --------------------------------------------------------------------
    def home(self):
        """The screen the action's state calls for."""
        state = self.action.state
        if self.card is not None:
            return "card"
        if state == SUCCEEDED:
            return self.ended
        if state == STOPPED:  # R16, R23: the finishing, then the summary
            return "summary" if self.ended == "summary" else "finishing"
        return state  # active, referee, failed: each a screen of that name

    def odds(self):
        """(R26 chance, chance of a complication, chance of a black): the costly part of a
        view, worked out once for everything it depends on."""
        if not self.odds_ready():
            self._odds = (self._odds_key(), action_risk(self.action)[:3])  # in one sweep
        return self._odds[1]

    def odds_ready(self):
        return self._odds is not None and self._odds[0] == self._odds_key()

    def _odds_key(self):
        a = self.action
        return (a.deck.counts(), a.successes, a.auto_applied, a.state, a.pending, a.needed,
                a.auto, a.ranks)

    def seconds_left(self, now):
        """The timed countdown to the next draw, in whole seconds."""
        return max(0, (self.due - now + 999) // 1000)

    # -- drawing (R9-R15) -------------------------------------------------------------------
    def rearm(self):
        """R21: the next timed draw comes an interval from now (its warning still to come)."""
        self.due = self.ctl.now + self.ctl.settings["interval"] * 1000
        self.warn = 0

    def rng(self, card):
        """The device's rng, or when the records are played again the card they name."""
        return self.ctl.rng if card is None else saved.Known(self.action.deck, card)

    def ahead(self):
        """An idle pass's work: the next DRAW press's draw (and its accept and end, R15) worked
        out now by draw() itself, on a copy of the action and of the rng, its records and
        sounds kept aside, so that the press's pass only takes them (_take) before its LED.
        Nothing of it is shown, logged or kept on flash, and the press takes it only if
        neither the action nor the rng has changed since (else it draws as it would have):
        the same card, records and state either way. The controller's rng is an Rng (the
        app asks only then). -> whether it did the work."""
        action = self.action
        if self.replaying or self.card is not None or action.state != ACTIVE \
                or action.pending is not None:
            return False
        rng = self.ctl.rng  # (asked every idle pass: nothing allocated until there is work)
        nxt = self._next
        if nxt is not None and saved.same(action, nxt[0]) and rng.holds(nxt[2].rng):
            return False  # still the next draw's
        if not action.deck.total():
            return False
        snap = saved.snapshot(action)
        aside = _Aside(self.ctl, rng.copy())
        play = Play(aside, saved.rewound(action, snap))
        play.draw(False)
        self._next = (snap, play, aside)
        return True

    def _take(self, snapshot):
        """The draw ahead() worked out, if it is still this press's: its action, card and
        undo, its records with the press's time, its sounds. -> whether it was."""
        snap, play, aside = self._next
        self._next = None
        ctl = self.ctl
        if snap != snapshot or not ctl.rng.take(aside.rng):
            return False
        self.action = play.action
        self.undo = snapshot
        self.rearm()  # R21
        self.card = play.card
        self.applied = play.applied
        now = ctl.now
        for r in aside.records:  # packed: the time is each one's second field
            r[1] = now
            ctl.add(r)
        for name in aside.beeps:
            ctl.beep(name)
        return True

    def draw(self, timed, card=None):
        """R9: a card drawn (card: the one a record names, played again). Before a drawn
        card's LED: the helpers it would call (rng, rearm, log, beep) are written out, and
        a press's draw is the one ahead() worked out if it still holds."""
        ctl = self.ctl
        action = self.action
        snapshot = saved.snapshot(action)
        if self._next is not None and card is None and not timed and self._take(snapshot):
            return
        # R9; R22 raises on an empty deck: no change
        colour = action.draw(ctl.rng if card is None else saved.Known(action.deck, card))
        self.undo = snapshot
        self.due = ctl.now + ctl.settings["interval"] * 1000  # R21: rearm()
        self.warn = 0
        self.card = colour
        self.applied = False
        if not self.replaying:
            ctl.add(["draw", ctl.now, action.draws, colour, list(action.deck.counts()), timed])
            ctl.beep("black" if colour == BLACK else "card")
            if action.redraws_left == 0:
                self.accept()  # R15: no redraw left, the card applies at once (its record)

    def redraw(self, card=None):
        action = self.action
        colour = action.redraw(self.rng(card))  # R15
        self.card = colour
        self.log(["redraw", self.ctl.now, action.draws, colour, action.redraws_left])
        self.beep("black" if colour == BLACK else "card")
        if action.redraws_left == 0 and not self.replaying:
            self.accept()

    def accept(self):
        action = self.action
        colour = action.pending
        state = action.accept()  # R10-R14
        self.applied = True
        if self.replaying:  # played again: the log has its records, nobody hears it
            return
        ctl = self.ctl
        ctl.add(["accept", ctl.now, action.draws, colour, list(action.deck.counts()), state,
                 action.successes, action.complications])
        if state == SUCCEEDED:
            ctl.beep("success")
            self.end(state)
        elif state == FAILED:
            ctl.beep("fail")
            self.end(state)

    def take_card(self):
        """The card screen's DRAW: a card not yet applied is accepted (R15); either way it
        leaves the screen (R20: the deck again before the next draw)."""
        if not self.applied:
            self.accept()
        self.card = None

    def stop(self):
        action = self.action
        action.stop()  # R16
        self.log(["stop", self.ctl.now, action.successes, action.needed, action.draws])
        self.end(STOPPED)
        self.beep("fail")
        self.finish()  # R16: a stop, like a success, goes to the finishing (R23)

    def finish(self):
        """R23: the minute of roleplay starts."""
        self.ended = "finishing"
        self.fin_end = self.ctl.now + FINISH_MS

    def end(self, outcome):
        """The action's one and final end record (R14, R16, R17)."""
        a = self.action
        self.log(["end", self.ctl.now, outcome, a.successes, a.needed, a.complications,
                  a.draws])

    def timed(self, held):
        """R21: a draw by itself an interval after the last, a 5 s warning first, whatever
        the screen: on the stop question, a message or the lock the card is drawn all the same.
        Only the referee screens, open with the code (`held`), hold the draw (then a full
        warning once they close), and an empty deck (R22): no draw, and the interval starts
        when the referee adds cards. -> "drawn" when a card came or was accepted, True when
        the warning changed, else False."""
        ctl = self.ctl
        action = self.action
        if not ctl.settings["timed"] or action.state != ACTIVE:
            if self.warn:  # the action ended on the card screen (a redraw applied at once)
                self.warn = 0
                return True
            return False
        if action.pending is None and action.deck.total() == 0:
            self.rearm()  # R22: nothing to draw, no error: wait for the referee (R19)
            return False
        now = ctl.now
        if held:
            shown = self.warn
            self.warn = 0
            self.due = max(self.due, now + WARN_MS)
            return shown > 0
        left = self.due - now
        if left > WARN_MS:
            return False
        if not self.warn and left < WARN_MS:  # none shown yet (a late tick, a power cut,
            self.due = now + WARN_MS          # the referee menu just closed): a full
            left = WARN_MS                    # warning; one on show goes on, never anew
        if left <= 0:
            self.due_now()
            return "drawn"
        sec = (left + 999) // 1000
        if sec != self.warn:
            self.warn = sec
            self.beep("warn")
            return True
        return False

    def due_now(self):
        """R21: the timed turn, the warning over. A card on show whose result applied goes;
        one with redraws left (R15) is accepted, as DRAW would: the lead did not decide in
        time. Then the next card is drawn, so a lead who never decides draws at the same
        cadence as one who does: an interval after the last draw, whatever was pending. No
        draw when that acceptance ended the action or needs the referee (R14), or when the
        deck is empty (R22)."""
        if self.card is not None and not self.applied:
            self.take_card()
        self.card = None
        if self.action.state != ACTIVE or self.action.deck.total() == 0:
            self.rearm()
            return
        self.draw(True)

    # -- the referee's (R14, R18, R19; the screens behind the lock call these) ---------------
    def referee_continue(self):
        action = self.action
        action.referee_continue()  # R14: the black leaves the deck
        self.card = None           # ... and the screen, if it was still on show (no redraws)
        self.log({"ev": "referee", "ms": self.ctl.now, "decision": "continue",
                  "deck": list(action.deck.counts())})
        self.rearm()

    def referee_fail(self):
        self.action.referee_end()  # R14
        self.card = None
        self.log({"ev": "referee", "ms": self.ctl.now, "decision": "end"})
        self.end(FAILED)
        self.beep("fail")

    def helper_leaves(self):
        """R18 -> the helpers still helping."""
        action = self.action
        helping = action.helper_leaves()
        self.log({"ev": "helper_leaves", "ms": self.ctl.now, "helpers": helping,
                  "deck": list(action.deck.counts())})
        return helping

    def adjust(self, colour, delta):
        action = self.action
        action.adjust(colour, delta)  # R19, R8 settles; RuleError if not possible
        self.log({"ev": "adjust", "ms": self.ctl.now, "colour": colour, "delta": delta,
                  "deck": list(action.deck.counts())})

    def can_undo(self):
        # Only while the action runs: once it has ended (success, stop, a black with no
        # referee, R14, R16, R17) its end record is final, so one action never ends twice.
        return self.undo is not None and self.action.state in (ACTIVE, REFEREE)

    def undo_draw(self):
        if not self.can_undo():  # the menu does not offer it then; refused all the same
            if self.undo is None:
                raise RuleError("cannot undo: there is no draw to undo")
            raise RuleError("cannot undo: the action has ended, and its end is final")
        self.action = action = saved.rewound(self.action, self.undo)
        self.undo = None
        self.card = None
        self.applied = False
        self.ended = "success"
        self.log({"ev": "undo", "ms": self.ctl.now, "draws": action.draws,
                  "state": action.state, "deck": list(action.deck.counts())})
        self.rearm()

    def end_by_referee(self):
        a = self.action
        self.ctl.add(["end", self.ctl.now, "ended by referee", a.successes, a.needed,
                      a.complications, a.draws])
