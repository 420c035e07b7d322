# The action's screens (see screens.py for the interface): the deck (active), the card, the
# stop question, a black awaiting the referee, success, the finishing countdown, the summary
# and failed. They show and drive the action in play (ctl.play, play.py), in the action's own
# words (R24: WORDS, said) and with its tally. Pure: no I/O.
from .config import COLS, SKILLS
from .deck import COLOURS
from .render import CardPicture, DeckPicture
from .screens import Menu, Screen
from .texts import capital, deck_line, odds_words, wrap

KINDS = ("Success", "Setback", "Complication", "Catastrophe")  # what each colour is (R1)
WORDS = (  # R24: what each colour means in each action (SKILLS order, then COLOURS order)
    ("a clean stitch holds", "the patient stirs", "a nicked blood vessel", "the heart stops"),
    ("a part clicks into place", "a stripped bolt", "an electrical discharge",
     "the core overloads"),
    ("a clear reading", "signal noise", "particles destabilise", "the field collapses"),
)


def words(skill, colour):
    """R24: a card's result in the action's own words."""
    return WORDS[SKILLS.index(skill)][COLOURS.index(colour)]


_SAID = {}


def said(skill, colour, width=COLS):
    """words() wrapped into two lines of at most width characters (the second "" if one
    holds them), a tuple: each worked out the first time a card shows it, and kept: a
    card's pass has no time to wrap words (12 phrases, two widths: at most 24 tuples)."""
    key = (skill, colour, width)
    lines = _SAID.get(key)
    if not lines:  # not worked out yet
        lines = _SAID[key] = tuple((wrap(words(skill, colour), width) + ["", ""])[:2])
    return lines


def tally(action):
    """Successes won of those needed, and the red cards that made complications."""
    return "Won %d/%d Reds %d" % (action.successes, action.needed, action.complications)


# the action's states (action.py) and colours (deck.py) by their names
OUTCOMES = {"succeeded": "Success reached!", "failed": "The action fails",
            "referee": "Referee decides"}


class Active(Screen):
    """The deck (R20), the chance to succeed (R26) and the risks beside it, the tally, draws
    and redraws left; timed mode's countdown and warning (R21). DRAW draws; STOP asks to
    confirm (during the timed warning it stops at once)."""
    name = "active"

    def press(self, button):
        ctl = self.ctl
        play = ctl.play
        if button == "DRAW":
            play.draw(False)
            ctl.goto(Card(ctl))  # home after a draw (play.home()), straight
        elif button == "STOP":
            if play.warn:  # R21: a stop during the warning needs no confirming
                play.stop()
                ctl.go_home()
            else:
                ctl.beep("click")
                ctl.goto(Confirm(ctl))

    def seconds(self):
        ctl = self.ctl
        return ctl.play.seconds_left(ctl.now) if ctl.settings["timed"] else None

    def lines(self):
        play = self.ctl.play
        action = play.action
        left = self.seconds()  # None: not timed
        counts = action.deck.counts()
        chance, risk = odds_words(play.odds_shown())
        lines = [capital(action.skill) + ("" if left is None else " timed"),
                 deck_line(counts), "Chance  " + chance, risk, tally(action),
                 "Draw %d Redraw %d" % (action.draws, action.redraws_left)]  # 16 wide to 99 draws
        if play.warn:  # R21: white, a colour no card has
            return lines + ["Card in %d s!" % play.warn, "STOP: stop now"], "white"
        if not sum(counts):  # R22: nothing to draw until the referee adds cards (R19)
            return lines + ["Deck empty:", "call the referee"], None
        if left is not None:
            return lines + ["Next card in %ds" % left, "STOP: stop"], None
        return lines + ["DRAW: next card", "STOP: stop"], None

    def art(self):
        """The deck, the chance in large digits (R26), draws and redraws (or the time to the
        next timed draw); under the digits the risks, or the timed warning, then the tally;
        the LED: white during the warning (R21), else off."""
        play = self.ctl.play
        action = play.action
        left = self.seconds()
        counts = action.deck.counts()
        side = ("Draw %d" % action.draws, "Redraw %d" % action.redraws_left)
        chance, hint = odds_words(play.odds_shown())
        if play.warn:
            hint = "Card in %d s!" % play.warn
        elif not sum(counts):  # R22: nothing to draw until the referee adds cards (R19)
            hint = "call the referee"
        if left is not None:  # no countdown to a draw an empty deck won't give
            side = ("Next %ds" % left if sum(counts) else "Empty", side[0])
        return DeckPicture(action.skill, capital(action.skill), counts,
                           chance.strip(), side, (hint, tally(action))), \
            "white" if play.warn else None


def card_label(action, colour, applied):
    """What the card did: "Success 1 of 3" (successes after it, of those needed, R10), and for
    the first green with automatic successes what it brought, then where that leaves the
    action: "Success +3: 3/4" (R11); "Setback" (R12), "Complication 2" (the action's count
    after it, R13), "Catastrophe" (R14). A card not yet applied (R15) says what it will do if
    accepted, the same label it keeps then: the lead decides on a redraw by exactly that."""
    kind = KINDS[COLOURS.index(colour)]
    if colour == "green":
        won = action.successes
        if applied:
            # only greens bring successes, so the first green is the one whose successes
            # are exactly what a first green brings (R10, R11)
            first = 1 + min(action.auto, action.ranks)
            gain = first if won == first else 1
        else:
            gain = action.green_gain()  # R10, R11
            won += gain
        # automatic successes may pass those needed; the count stops at done, the gain not
        won = min(won, action.needed)
        if gain > 1:
            return "%s +%d: %d/%d" % (kind, gain, won, action.needed)
        return "%s %d of %d" % (kind, won, action.needed)
    if colour == "red":
        return "%s %d" % (kind, action.complications + (0 if applied else 1))
    return kind


class Card(Screen):
    """The card drawn, its colour on the LED (black shows purple), what it did and its result
    in the action's words (R24). With redraws left (R15): DRAW accepts, HELP redraws, STOP
    is refused (R16). Applied: DRAW or STOP goes on."""
    name = "card"

    def press(self, button):
        ctl = self.ctl
        play = ctl.play
        applied = play.applied
        if button == "DRAW" or applied and button == "STOP":
            play.take_card()  # accepts a card not yet applied (R15)
            if applied:
                ctl.beep("click")
            ctl.go_home()  # R20: the deck again before the next draw
        elif applied:
            pass
        elif button == "HELP":
            play.redraw()
        elif button == "STOP":
            ctl.say("Not now", "Accept the card first: no stop between a draw and its result.")

    def lines(self):
        play = self.ctl.play
        action = play.action
        colour = play.card
        lines = [capital(colour) + " card", card_label(action, colour, play.applied)]
        lines += said(action.skill, colour)  # (a tuple: kept for the next card)
        if not play.applied:
            return lines + ["Redraws left %d" % action.redraws_left, "DRAW: keep it",
                            "HELP: redraw"], colour  # R15
        return lines + [OUTCOMES.get(action.state) or tally(action), "", "DRAW: go on"], colour

    def art(self):
        """The card, large, with its colour word, the label of what it did and the action's
        words (R24); at the foot, where the active screen has its tally: the hint while a
        redraw is possible (R15: keep it, or a new card), else the action's outcome or the
        next press. The LED: the card's colour."""
        play = self.ctl.play
        action = play.action
        colour = play.card
        if not play.applied:
            foot = "DRAW ok HELP new"
        else:
            foot = OUTCOMES.get(action.state) or "DRAW: go on"
        label = card_label(action, colour, play.applied)
        if len(label) > 14:  # beside the card only 14 fit: the numbers stay whole
            if colour == "green":  # "Success +3: 3/4" -> "Won +3: 3/4", as the tally has it
                label = "Won" + label[7:]
            else:  # "Complication 10" -> "Complication10"
                label = label.replace(" ", "")
        words = said(action.skill, colour, 12)  # beside the card 12 fit 8 px apart
        if not words[1]:
            words = words[:1]
        return CardPicture(action.skill, capital(action.skill), action.deck.counts(),
                           colour, label, words, (foot,)), colour


class Confirm(Screen):
    """Stop? DRAW stops (R16, a failed attempt: no retry today), then the finishing and the
    summary as after a success (R23). Any other key: back."""
    name = "confirm"

    def press(self, button):
        ctl = self.ctl
        if button == "DRAW":
            ctl.play.stop()
        else:
            ctl.beep("click")
        ctl.go_home()

    def lines(self):
        # one constant tuple, copied into the list build() may change: fewer bytes than a list
        return list(("Stop?", "Stopping short", "of success is a", "failed attempt:",
                     "no retry today.", "", "DRAW: yes, stop", "other: go back")), None


class Black(Screen):
    """A black with a referee present (R14): only the referee menu decides."""
    name = "referee"

    def press(self, button):
        self.ctl.beep("error")

    def lines(self):
        return ["Black card", "Catastrophe!"] + list(said(self.ctl.play.action.skill, "black")) \
            + ["Referee decides:", "hold STOP and", "enter the code"], "black"  # R14


class Failed(Screen):
    """The catastrophe (R14). DRAW: set-up."""
    name = "failed"

    def press(self, button):  # (the summary's too) DRAW puts the action away: set-up
        if button == "DRAW":
            self.ctl.beep("click")
            self.ctl.clear()

    def lines(self):
        action = self.ctl.play.action
        # the LED keeps the black that ended it (purple): red would read as a complication
        return ["Failed", "Catastrophe!"] + list(said(action.skill, "black")) + [
            tally(action), "Successes may be", "void.", "DRAW: done"], "black"  # R14


class Success(Menu):
    """The successes reached: finish (R23), or chain straight into a new action (R17)."""
    name = "success"
    title = "Success!"
    quiet = True
    led = "green"

    def head(self):
        action = self.ctl.play.action
        return [tally(action), "Draws %d" % action.draws, ""]

    def rows(self):
        return ("Finish", None), ("Chain new task", None)

    def choose(self, index):
        ctl = self.ctl
        if index == 0:
            ctl.play.finish()  # R23
            ctl.go_home()
        else:
            ctl.chain()  # R17: a new deck; this finishing is skipped


class Finishing(Screen):
    """R23 after a success or a stop (R16): 60 s of roleplay, then the summary. No button
    skips it."""
    name = "finishing"

    def tick(self, now):
        ctl = self.ctl
        play = ctl.play
        if now >= play.fin_end:  # R23: the minute of roleplay is over
            play.ended = "summary"
            # the success chime only for a success: a stop had its own sound when it was made
            ctl.beep("click" if play.action.state == "stopped" else "success")
            ctl.go_home()

    def seconds(self):
        play = self.ctl.play
        return max(0, (play.fin_end - self.ctl.now + 999) // 1000)  # R23: whole seconds

    def lines(self):
        return ["Finishing", "Roleplay the", "finish: at least", "one minute.",
                "   %d s left" % self.seconds(), "",
                "No retry today." if self.ctl.play.action.state == "stopped" else ""], None  # R16


class Summary(Screen):
    """Successes, complications, outcome (a stop with the no-retry reminder, R16). DRAW:
    set-up."""
    name = "summary"
    press = Failed.press  # an end screen, as the failed one

    def lines(self):
        action = self.ctl.play.action
        stopped = action.state == "stopped"
        return ["Summary", capital(action.skill),
                "Outcome: " + ("stopped" if stopped else "success"),
                "Successes %d/%d" % (action.successes, action.needed),
                "Complications %d" % action.complications, "Draws %d" % action.draws,
                "No retry today." if stopped else "", "DRAW: new set-up"], None


SCREENS = {"active": Active, "card": Card, "referee": Black, "failed": Failed,
           "success": Success, "finishing": Finishing, "summary": Summary}
