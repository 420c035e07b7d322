# The action in play: the engine's Action and what the device keeps around it -- the card on
# show and whether its result applied (R15), the undo, the phase after a success or a stop
# (R16, R23), timed mode's next draw and its warning (R21), the finishing countdown and the
# odds on show (R25, R26). One object, made at the start (Play.start) or after a power cut
# (Play.replay) and dropped when the controller clears it. Pure: no I/O; the controller passes
# itself in for the clock, the settings, the rng, the log and the buzzer.
#
# Its operations change the action and log what they did: each its record, a dict {"ev": kind,
# "ms": the clock, ...} with the fields docs/bench.md lists (records.py packs some for flash);
# where the device goes next is the caller's: home() names the screen the state calls for.
# The log is the action's record: after a power cut the same operations run again on its
# records (replay), each checked against the deck it logged, and the hint (what no record
# says: a card put away, the finishing, the timed warning begun) brings back the rest.
from . import saved, settings
from .action import Action, RuleError
from .odds import action_odds

WARN_MS = 5000    # R21: the warning before a timed draw
FINISH_MS = 60000  # R23: the minute of roleplay
ENDED = ("success", "finishing", "summary")  # the hint's letter for each: none, "f", "s"
HINTS = ("", "w", "f", "fw", "s", "sw", "d", "dw", "df", "dfw", "ds", "dsw")


class Play:
    def __init__(self, ctl, action):
        self.ctl = ctl
        self.action = action
        self.card = None        # the colour on the card screen
        self.applied = False    # ... and whether its result has applied (R15)
        self.undo = None        # the action before its last draw (saved.to_dict), or None
        self.ended = "success"  # after a success or a stop: "success", "finishing", "summary"
        self.fin_end = ctl.now + FINISH_MS  # when the finishing countdown ends (R23): an
        #                         action brought back after a power cut starts it afresh
        self.replaying = False  # the records are played again: nothing logged or heard
        self.odds_key = None    # what the odds were worked out for ...
        self.odds_got = None    # ... and they (odds.Odds)
        self.rearm()            # due: when the next timed draw comes (R21); warn: seconds of
        #                         warning on show, 0 = none

    @classmethod
    def start(cls, ctl):
        """Set-up's DRAW: the action the settings describe (R2-R15), logged with its chance.
        Unseeded, the device's generator takes fresh entropy into its key first (R9: cards
        nobody can call from the log); a stand-in rng without fresh() is left alone."""
        fresh = getattr(ctl.rng, "fresh", None)
        if fresh:
            fresh()
        chosen = ctl.settings
        a = settings.action_from(chosen, Action)
        play = cls(ctl, a)
        # set-up's odds if worked out (not twice), else now: the start logs R26's chance
        play.odds_got = ctl.plan.for_deck(a.deck.counts()) or action_odds(a)
        play.odds_key = play._key()
        ctl.record("start", timed=chosen["timed"], interval=chosen["interval"],
                   chain=ctl.chained, chance=round(play.odds_got.chance, 4), **saved.began(a))
        if not chosen["frozen"]:  # R6: each action its own difficulty, unless the referee's
            for name in settings.DIFFICULTY:
                ctl.change(name, 0)
        ctl.beep("click")
        return play

    @classmethod
    def replay(cls, ctl, stream, hint):
        """After a power cut: the action from its records (the first its start), played again
        one at a time as they stream from the store, each checked against the deck it logged,
        then the hint. -> the Play, or None when the action is over and put away. Raises
        ValueError (or another exception) when the records do not make an action."""
        play = spoilt = None
        for r in stream:
            ev = r.get("ev")
            # put away for good (R17): chained, ended by the referee, or closed as lost after
            # a power cut; even past a spoilt record: played again it would raise there on
            # every boot
            if ev == "chain" or ev == "end" and r.get("outcome") in ("ended by referee", "lost"):
                return None
            if spoilt:
                continue
            try:
                if not play:
                    play = cls(ctl, saved.begun(r))
                    play.replaying = True
                elif ev == "draw":
                    play.draw(r["timed"], r["card"])
                elif ev == "redraw":
                    play.redraw(r["card"])
                elif ev == "accept":
                    play.accept()
                elif ev == "stop":
                    play.stop()
                elif ev == "helper_leaves":
                    play.helper_leaves()
                elif ev == "referee":
                    if r["decision"] == "continue":
                        play.referee_continue()
                    else:
                        play.referee_fail()
                elif ev == "adjust":
                    play.adjust(r["colour"], r["delta"])
                elif ev == "undo":
                    play.undo_draw()
                deck = play.deck()  # the log and the play must agree
                if r.get("deck", deck) != deck:
                    raise ValueError("the log's deck %s is not the engine's %s" % (r["deck"], deck))
            except Exception as e:
                spoilt = e
        if spoilt:
            raise spoilt
        if not play:  # (a hint of "x", set-up, never comes here: the controller's)
            return None
        play.replaying = False
        if "d" in hint and play.action.pending is None:
            play.card = None
        if "f" in hint:
            play.ended = "finishing"
        elif "s" in hint:
            play.ended = "summary"
        # R21: after a power cut the warning starts at once, and a warning already begun
        # draws at once: switching off must hold no draw back
        warned = "w" in hint
        play.due = ctl.now + (0 if warned else WARN_MS)
        play.warn = 1 if warned else 0
        return play

    def hint(self):
        """What no record says, for the journal: "d" the card put away, "f" the finishing
        or "s" the summary after the end, "w" the timed warning begun."""
        # looked up, not put together: asked every loop pass, which must allocate nothing
        return HINTS[(self.card is None) * 6 + ENDED.index(self.ended) * 2 + (self.warn > 0)]

    def record(self, event, **fields):
        """The record of kind `event` with these fields, logged unless played again: the log
        has its records already."""
        if not self.replaying:
            self.ctl.record(event, **fields)

    def deck(self):  # the action's deck as a record has it
        return list(self.action.deck.counts())

    def beep(self, name):
        if not self.replaying:  # played again: nobody hears it
            self.ctl.beep(name)

    # -- what it shows --------------------------------------------------------------------
    def home(self):
        """The screen the action's state calls for."""
        state = self.action.state
        if self.card:
            return "card"
        if state == "succeeded":
            return self.ended
        if state == "stopped":  # R16, R23: the finishing, then the summary
            return "summary" if self.ended == "summary" else "finishing"
        return state  # active, referee, failed: each a screen of that name

    def odds_ready(self):  # worked out for everything the odds depend on
        return self.odds_key == self._key()

    def odds_shown(self):
        """The odds on show (odds.Odds: R26 and the risks) if worked out (a quick view shows
        "..."), else None."""
        return self.odds_got if self.odds_ready() else None

    def work(self):
        """The odds worked out now, if not yet: the costly part of a view (controller.view)."""
        if not self.odds_ready():
            self.odds_key, self.odds_got = self._key(), action_odds(self.action)

    def _key(self):
        a = self.action
        return (a.deck.counts(), a.successes, a.auto_applied, a.state, a.pending, a.needed)

    def seconds_left(self, now):
        """The timed countdown to the next draw, in whole seconds."""
        return max(0, (self.due - now + 999) // 1000)

    # -- drawing (R9-R15) -------------------------------------------------------------------
    def rearm(self):
        """R21: the next timed draw comes an interval from now (its warning still to come)."""
        self.due = self.ctl.now + self.ctl.settings["interval"] * 1000
        self.warn = 0

    def draw(self, timed, card=None):
        """R9: a card drawn (card: the one a record names, played again); with no redraw
        left it applies at once (R15)."""
        action = self.action
        before = saved.to_dict(action)
        action.draw(self.rng(card))  # R22 raises on an empty deck: no change
        self.undo = before
        self.rearm()  # R21
        self.applied = False
        self.record("draw", n=action.draws, card=action.pending, deck=self.deck(), timed=timed)
        self.shown()

    def redraw(self, card=None):
        action = self.action
        action.redraw(self.rng(card))  # R15
        self.record("redraw", n=action.draws, card=action.pending, left=action.redraws_left)
        self.shown()

    def rng(self, card):  # the device's, or played again one drawing the card its record
        #                   names (a record naming none, or no colour, is refused: no re-roll)
        return saved.Known(self.action.deck, card) if self.replaying else self.ctl.rng

    def shown(self):
        """The card just drawn (and logged) on show and heard; with no redraw left it applies
        at once (R15): its own record follows in the log, played again from there."""
        colour = self.action.pending
        self.card = colour
        self.beep("black" if colour == "black" else "card")
        if self.action.redraws_left == 0 and not self.replaying:
            self.accept()

    def accept(self):
        action = self.action
        colour = action.pending
        state = action.accept()  # R10-R14
        self.applied = True
        self.record("accept", n=action.draws, card=colour, deck=self.deck(), state=state,
                 successes=action.successes, complications=action.complications)
        if state == "succeeded":
            self.end(state, "success")
        elif state == "failed":
            self.end(state, "fail")

    def take_card(self):
        """The card screen's DRAW: a card not yet applied is accepted (R15); either way it
        leaves the screen (R20: the deck again before the next draw)."""
        if not self.applied:
            self.accept()
        self.card = None

    def stop(self):
        action = self.action
        action.stop()  # R16
        self.record("stop", successes=action.successes, needed=action.needed, draws=action.draws)
        self.end("stopped", "fail")
        self.finish()  # R16: a stop, like a success, goes to the finishing (R23)

    def finish(self):
        """R23: the minute of roleplay starts."""
        self.ended = "finishing"
        self.fin_end = self.ctl.now + FINISH_MS

    def end(self, outcome, sound):
        """The action's one and final end record (R14, R16, R17), and its sound."""
        action = self.action
        self.record("end", outcome=outcome, successes=action.successes, needed=action.needed,
                 complications=action.complications, draws=action.draws)
        if sound:  # none for the referee's own act
            self.beep(sound)

    def timed(self, held):
        """R21: a draw by itself an interval after the last, a 5 s warning first, whatever
        the screen. Only the referee screens, open with the code (`held`), hold the draw
        (then a full warning once they close), and an empty deck (R22): the interval starts
        when the referee adds cards. -> "drawn" when a card came or was accepted, True when
        the warning changed, else False."""
        ctl = self.ctl
        action = self.action
        now = ctl.now
        if ctl.settings["timed"] and action.state == "active":
            if action.pending is None and action.deck.total() == 0:
                self.rearm()  # R22: nothing to draw, no error: wait for the referee (R19)
                return False
            if held:
                self.due = max(self.due, now + WARN_MS)
            else:
                left = self.due - now
                if left > WARN_MS:
                    return False
                if not self.warn and left < WARN_MS:  # none shown yet (a late tick, a power
                    self.due = now + WARN_MS          # cut, the referee menu just closed): a
                    left = WARN_MS                    # full warning; one on show goes on
                if left <= 0:
                    # the timed turn, the warning over. A card still pending (R15) is
                    # accepted, as DRAW would: the lead did not decide in time; then the next
                    # card is drawn, one draw an interval whatever was pending; none when that
                    # ended the action or needs the referee (R14), or the deck is empty (R22)
                    if self.card:
                        self.take_card()
                    if action.state != "active" or action.deck.total() == 0:
                        self.rearm()
                    else:
                        self.draw(True)
                    return "drawn"
                sec = (left + 999) // 1000
                if sec != self.warn:
                    self.warn = sec
                    self.beep("warn")
                    return True
                return False
        # no draw to come (the action ended on the card screen: a redraw applied at once), or
        # held: the warning on show, if any, goes
        shown = self.warn
        self.warn = 0
        return shown > 0

    # -- the referee's (R14, R18, R19; the screens behind the lock call these) ---------------
    def referee_continue(self):
        self.action.referee_continue()  # R14: the black leaves the deck
        self.card = None                # ... and the screen, if it was still on show
        self.record("referee", decision="continue", deck=self.deck())
        self.rearm()

    def referee_fail(self):
        self.action.referee_end()  # R14
        self.card = None
        self.record("referee", decision="end")
        self.end("failed", "fail")

    def helper_leaves(self):
        """R18 -> the helpers still helping."""
        helping = self.action.helper_leaves()
        self.record("helper_leaves", helpers=helping, deck=self.deck())
        return helping

    def adjust(self, colour, delta):
        self.action.adjust(colour, delta)  # R19, R8 settles; RuleError if not possible
        self.record("adjust", colour=colour, delta=delta, deck=self.deck())

    def can_undo(self):
        # Only while the action runs: once it has ended (success, stop, a black with no
        # referee, R14, R16, R17) its end record is final, so one action never ends twice.
        return self.undo and self.action.state in ("active", "referee")

    def undo_draw(self):
        if not self.can_undo():  # the menu does not offer it then; refused all the same
            raise RuleError("no draw to undo: none made, or the action has ended")
        self.action = saved.from_dict(self.undo)
        self.undo = None
        self.card = None
        self.applied = False
        self.ended = "success"
        self.record("undo", draws=self.action.draws, state=self.action.state, deck=self.deck())
        self.rearm()

    def end_by_referee(self):
        self.end("ended by referee", None)
