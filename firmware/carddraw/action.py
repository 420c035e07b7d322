# One Card Draw action (R9-R23). Pure: randomness comes in as any object with randrange(n).
from .deck import RuleError, build_deck, check_int, check_colour

SKILLS = ("surgery", "repair", "scan")  # R24

# An action's state: "active", then "succeeded", "stopped" or "failed"; ACTIVE and REFEREE
# by name for the tests that import them
ACTIVE = "active"
REFEREE = "referee"  # a black was drawn with a referee present; the referee decides (R14)


class Action:
    def __init__(self, skill="surgery", ranks=0, helpers=0, bonus=0,
                 green=0, yellow=0, red=0, black=0,
                 needed=1, auto=0, redraws=0, referee=False):
        name = skill.lower() if isinstance(skill, str) else None
        if name == "scanning":
            name = "scan"
        if name not in SKILLS:
            raise ValueError("skill must be surgery, repair or scan, not %r" % (skill,))
        self.skill = name
        # R2-R8; checks ranks, helpers, bonus and the difficulty cards first (whole, 0-9)
        self.deck = build_deck(ranks, helpers, bonus, green, yellow, red, black)
        if ranks == 0 and name != "scan":  # R3: only a scanner may work at rank 0
            raise ValueError("ranks must be from 1 to 9 for %s (0 only for a scan)" % name)
        check_int("needed", needed, 1, 9)    # R7
        check_int("auto", auto, 0, 9)        # R11
        check_int("redraws", redraws, 0, 9)  # R15
        if referee is not True and referee is not False:
            raise ValueError("referee must be True or False, not %r" % (referee,))
        self.ranks = ranks
        self.helpers = helpers
        self.bonus = bonus
        self.difficulty = (green, yellow, red, black)
        self.needed = needed
        self.auto = auto
        self.redraws = redraws
        self.referee = referee
        self.successes = 0
        self.complications = 0
        self.draws = 0
        self.redraws_left = redraws
        self.auto_applied = False  # R11: automatic successes apply once
        self.state = ACTIVE
        self.pending = None

    # -- guards -------------------------------------------------------------------------------
    def _between_draws(self, doing):
        if self.state != ACTIVE:
            raise RuleError("cannot %s: the action is %s" % (doing, self.state))
        if self.pending is not None:
            raise RuleError("cannot %s: the %s card drawn must be accepted first" % (doing, self.pending))

    def _pick(self, rng):
        deck = self.deck
        total = deck.total()
        if total == 0:
            raise RuleError("the deck is empty: no card to draw")  # R22
        return deck.colour_at(rng.randrange(total))  # R9

    # -- drawing ------------------------------------------------------------------------------
    def draw(self, rng):
        """R9: draw one card; it is pending until accept() (R15)."""
        self._between_draws("draw")
        colour = self._pick(rng)
        self.pending = colour
        self.draws += 1
        return colour

    def redraw(self, rng):
        """R15: the pending card goes back, the deck is reshuffled and a new card drawn."""
        if self.pending is None:
            raise RuleError("cannot redraw: no card drawn")
        if self.redraws_left <= 0:
            raise RuleError("cannot redraw: no redraws left")
        colour = self._pick(rng)  # the pending card never left the deck, so it is back in
        self.redraws_left -= 1
        self.pending = colour
        return colour

    def green_gain(self):
        """The successes the next green brings: one (R10), the first green also the automatic
        successes, at most the ranks (R11)."""
        return 1 if self.auto_applied else 1 + min(self.auto, self.ranks)

    def accept(self):
        """Apply the pending card (R10-R14) and return the state."""
        colour = self.pending
        if colour is None:
            raise RuleError("cannot accept: no card drawn")
        self.pending = None
        if colour == "green":                                 # R10
            self.deck.shift(0, -1)
            self.successes += self.green_gain()               # R11 with the first
            self.auto_applied = True
            if self.successes >= self.needed:                 # R17
                self.state = "succeeded"
        elif colour == "black":                               # R14: no card added
            self.state = REFEREE if self.referee else "failed"
        else:                                                 # R12, R13: a yellow joins
            if colour == "red":                               # R13: a complication
                self.complications += 1
            self.deck.shift(1, 1)
        return self.state

    def apply(self, colour):
        """Draw a known card (a physical deck) and accept it at once."""
        check_colour(colour)
        self._between_draws("draw")
        if self.deck.count(colour) == 0:
            raise RuleError("the deck holds no %s card to draw" % colour)
        self.pending = colour
        self.draws += 1
        return self.accept()

    # -- between draws ------------------------------------------------------------------------
    def stop(self):
        """R16: stop between draws. Short of success this is a failed attempt for today."""
        self._between_draws("stop")
        self.state = "stopped"
        return self.state

    def helper_leaves(self):
        """R18: an assistant leaves between draws and takes their green, if they gave one."""
        self._between_draws("let a helper leave")
        if self.helpers == 0:
            raise RuleError("no helper is assisting")
        self.helpers -= 1
        # R4: only min(helpers, ranks) assistants add a green; greens never go below 0
        if self.helpers < self.ranks and self.deck.counts()[0] > 0:
            self.deck.shift(0, -1)
        return self.helpers

    def referee_continue(self):
        """R14: the referee lets the action go on; the black card leaves the deck."""
        if self.state != REFEREE:
            raise RuleError("no black card is waiting for the referee")
        self.deck.add("black", -1)
        self.state = ACTIVE
        return self.state

    def referee_end(self):
        """R14: the referee ends the action in failure."""
        if self.state != REFEREE:
            raise RuleError("no black card is waiting for the referee")
        self.state = "failed"
        return self.state

    def adjust(self, colour, delta):
        """R19: the referee adds (delta > 0) or removes cards between draws; R8 applies."""
        have = self.deck.count(colour)  # ValueError for a colour that is none
        check_int("delta", delta, -9, 9)
        if not self.referee:
            raise RuleError("only a referee may adjust the deck")
        self._between_draws("adjust the deck")
        if have + delta < 0:
            raise RuleError("the deck holds only %d %s" % (have, colour))
        self.deck.add(colour, delta)
        return self.deck.counts()
