# The action in play: starting it, drawing, redrawing and accepting cards (R9-R16), timed mode
# (R21), the deck and card screens, and bringing an action back after a power cut. Pure: no
# I/O. The controller loads this module when an action starts or is resumed and drops it when
# the action is cleared (controller.play), so the set-up screen the device idles on does not
# carry it: the heap after boot holds neither it nor the engine's Action.
# The screens here: active (the deck, R20, R25, R26) and card (R15, R24); their handlers join
# controller.PRESS, their line-builders controller.LINES, their graphics controller.ART.
from carddraw import settings as known
from carddraw.action import ACTIVE, SUCCEEDED, STOPPED, FAILED, REFEREE
from carddraw.config import COLS
from carddraw.controller import (NAMES, SKILLS, CNAMES, WARN_MS, FINISH_MS, HELD, part, wrap,
                                 deck_line)
from carddraw.deck import COLOURS, GREEN, RED, BLACK, check_colour
from carddraw.odds import next_card, fmt_chance, action_risk

# On the board every separate string costs some 30 bytes on top of its characters: the texts
# live in a few long strings, split where shown (controller.part).
KINDS = "Success|Setback|Complication|Catastrophe"  # R1
WORDS = (  # R24: what each colour means in each action (SKILLS order; COLOURS order)
    "a clean stitch holds|the patient stirs|a nicked blood vessel|the heart stops",
    "a part clicks into place|a stripped bolt|an electrical discharge|the core overloads",
    "a clear reading|signal noise|particles destabilise|the field collapses",
)
OUTCOMES = {SUCCEEDED: "Success reached!", FAILED: "The action fails",
            REFEREE: "Referee decides"}


# -- texts ------------------------------------------------------------------------------------
def words(skill, colour):
    """R24: a card's result in the action's own words."""
    return part(WORDS[SKILLS.index(skill)], COLOURS.index(colour))


def odds_line(counts):
    # R25, whole percents by the one rule (fmt_chance): a card that can come is never "0%"
    return "".join(["%4s" % fmt_chance(p, 0) for p in next_card(counts)])


def pct(p):
    # R26 by the one rule every screen and tool uses: "<0.1%", never "0%", for a long shot
    return "%6s" % fmt_chance(p)


def risk_line(red, black):
    """The risks beside the chance (odds.action_risk), 16 columns at most: "Comp 29% Blk 3%"."""
    red, black = fmt_chance(red, 0), fmt_chance(black, 0)
    line = "Comp %s Blk %s" % (red, black)
    return line if len(line) <= COLS else "Comp%s Blk%s" % (red, black)  # ">99%" both


def tally(action):
    return "Succ %d/%d Comp %d" % (action.successes, action.needed, action.complications)


# -- the action's life ------------------------------------------------------------------------
def start(ctl):
    """Set-up's DRAW: the action the settings describe (R2-R15), logged with its chance."""
    fresh = getattr(ctl._rng, "fresh", None)  # rng.Rng: fresh entropy into its key (R9); none
    if fresh:                                 # yet: the first draw makes it from fresh entropy
        fresh()
    settings = ctl.settings
    action = known.action_from(settings)
    ctl.action = action
    ctl.undo = None
    ctl.card = None
    ctl.applied = False
    ctl.ended = "success"
    ctl.rearm()
    ctl.record("start", skill=action.skill, ranks=action.ranks, helpers=action.helpers,
               bonus=action.bonus, difficulty=list(action.difficulty),
               needed=action.needed, auto=action.auto, redraws=action.redraws,
               referee=action.referee, timed=settings["timed"],
               interval=settings["interval"], deck=list(action.deck.counts()),
               chance=round(chance(ctl, action), 4), chain=ctl.chained)
    if not settings["frozen"]:  # R6: each action its own difficulty, unless the referee's
        for name in known.DIFFICULTY:
            ctl.change(name, 0)
    ctl.chained = False
    ctl.beep("click")
    ctl.goto("active")
    return action


def chance(ctl, action):
    """R26, the costly part of a view: computed once per deck and progress (the set-up
    screen's figure before the start is controller.planned_chance)."""
    key = (action.deck.counts(), action.successes, action.auto_applied, action.state,
           action.pending)
    if key != ctl._ckey:
        odds = action_risk(action)  # R26 and the risks beside it, in one sweep
        ctl._cval = odds[0]
        ctl._crisk = odds[1:3]
        ctl._ckey = key
    return ctl._cval


def risks(ctl, action):
    """(red, black): the chances of a complication and of a black, beside chance()."""
    chance(ctl, action)
    return ctl._crisk


def end(ctl, outcome):
    """The action's one and final end record (R14, R16, R17)."""
    action = ctl.action
    ctl.record("end", outcome=outcome, successes=action.successes, needed=action.needed,
               complications=action.complications, draws=action.draws)


def home(ctl):
    """The screen the action's state calls for (there is an action)."""
    action = ctl.action
    if ctl.card is not None:
        return "card"
    if action.state == SUCCEEDED:
        return ctl.ended
    if action.state == STOPPED:  # R16, R23: the finishing, then the summary
        return "summary" if ctl.ended == "summary" else "finishing"
    return action.state  # active, referee, failed: each a screen of that name


def running(ctl):
    """The action still draws (a timed warning on show goes on from screen to screen)."""
    return ctl.action.state == ACTIVE


def timed(ctl):
    """R21: a draw by itself an interval after the last, a 5 s warning first, whatever the
    screen (tick runs it on every one): on the stop question, a message or the lock the
    card is drawn all the same and shown. Only the referee menu, open with the code,
    holds the draw (then a full warning once it closes), and an empty deck (R22): no
    draw, the deck screen says so, and the interval starts when the referee adds cards."""
    action = ctl.action
    if not ctl.settings["timed"] or action.state != ACTIVE:
        if ctl.warn:  # the action ended on the card screen (a redraw applied at once)
            ctl.warn = 0
            ctl._view = None
        return
    if action.pending is None and action.deck.total() == 0:
        ctl.rearm()  # R22: nothing to draw, no error: wait for the referee (R19)
        return
    shown = ctl.msg[2] if ctl.screen == "message" else ctl.screen
    if shown in HELD:
        ctl.warn = 0
        ctl.due = max(ctl.due, ctl.now + WARN_MS)
        return
    left = ctl.due - ctl.now
    if left > WARN_MS:
        return
    if not ctl.warn and left < WARN_MS:  # none shown yet (a late tick, a power cut, the
        ctl.due = ctl.now + WARN_MS      # referee menu just closed): a full warning; one
        left = WARN_MS                   # on show goes on across screens, never anew
    if left <= 0:
        due(ctl)
        return
    sec = (left + 999) // 1000
    if sec != ctl.warn:
        ctl.warn = sec
        ctl.beep("warn")
        ctl._view = None


def due(ctl):
    """R21: the timed turn, the warning over. A card on show whose result applied (no
    decision left) goes, and the next is drawn. One with redraws left (R15) is accepted
    instead, as DRAW would: the lead did not decide in time. That acceptance takes this
    interval's turn: the next draw comes an interval later (rearm), after its own
    warning, the rhythm as after any draw."""
    if ctl.card is not None and not ctl.applied:
        press_card(ctl, "DRAW")
        ctl.rearm()
        return
    ctl.card = None
    draw(ctl, True)


def draw(ctl, timed):
    action = ctl.action
    from carddraw import saved
    snapshot = saved.to_dict(action)
    colour = action.draw(ctl.rng)  # R9; R22 raises on an empty deck, changing nothing
    ctl.undo = snapshot
    ctl.rearm()
    ctl.card = colour
    ctl.applied = False
    ctl.record("draw", n=action.draws, card=colour, deck=list(action.deck.counts()),
               timed=timed)
    ctl.beep("black" if colour == BLACK else "card")
    if action.redraws_left == 0:
        accept(ctl)  # R15: no redraw left, the card applies at once
    ctl.goto("card")


def redraw(ctl):
    action = ctl.action
    colour = action.redraw(ctl.rng)  # R15
    ctl.card = colour
    ctl.record("redraw", n=action.draws, card=colour, left=action.redraws_left)
    ctl.beep("black" if colour == BLACK else "card")
    if action.redraws_left == 0:
        accept(ctl)


def accept(ctl):
    action = ctl.action
    colour = action.pending
    state = action.accept()  # R10-R14
    ctl.applied = True
    ctl.record("accept", n=action.draws, card=colour, deck=list(action.deck.counts()),
               state=state, successes=action.successes,
               complications=action.complications)
    if state == SUCCEEDED:
        ctl.beep("success")
        end(ctl, state)
    elif state == FAILED:
        ctl.beep("fail")
        end(ctl, state)


def stop(ctl):
    action = ctl.action
    action.stop()  # R16
    ctl.record("stop", successes=action.successes, needed=action.needed, draws=action.draws)
    end(ctl, STOPPED)
    ctl.beep("fail")
    ctl.ended = "finishing"  # R16: a stop, like a success, goes to the finishing (R23)
    ctl.fin_end = ctl.now + FINISH_MS
    ctl.goto("finishing")


def restore(ctl, state):
    """After a power cut: the action, its undo snapshot, the card on show; an unreadable one
    is said on screen and the device goes on at set-up."""
    try:
        from carddraw import saved
        action = saved.from_dict(state["action"])
        undo, card, applied, ended = restored_extras(state, action)
    except Exception as e:
        ctl.say("Not resumed", "The saved action is unreadable: %s" % e, "setup")
        return
    ctl.action = action
    ctl.undo = undo
    ctl.card = card
    ctl.applied = applied
    ctl.ended = ended
    # R21: after a power cut the warning starts at once (a fresh interval at each boot
    # would let switching off every 40 s hold the draws back for ever)
    ctl.due = ctl.now + WARN_MS
    ctl.fin_end = ctl.now + FINISH_MS
    ctl.screen = home(ctl)


def restored_extras(state, action):
    """From a resume state: (undo, card, applied, ended). A damaged undo snapshot or card
    costs only itself, never the action."""
    from carddraw import saved
    undo = state.get("undo")
    try:
        saved.from_dict(undo)
    except Exception:
        undo = None
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
    ended = state.get("ended")
    if ended not in ("success", "finishing", "summary"):
        ended = "success"
    return undo, card, applied, ended


# -- the screens' buttons ---------------------------------------------------------------------
def press_active(ctl, button):
    if button == "DRAW":
        draw(ctl, False)
    elif button == "STOP":
        if ctl.warn:  # R21: a stop during the warning needs no confirming
            stop(ctl)
        else:
            ctl.beep("click")
            ctl.goto("confirm")


def press_card(ctl, button):
    if ctl.applied:
        if button == "DRAW" or button == "STOP":
            ctl.card = None
            ctl.beep("click")
            ctl.goto(home(ctl))  # R20: the deck again before the next draw
    elif button == "DRAW":
        accept(ctl)
        ctl.card = None
        ctl.goto(home(ctl))
    elif button == "HELP":
        redraw(ctl)
    elif button == "STOP":
        ctl.say("Not now", "Accept the card first: no stop between a draw and its result.",
                "card")  # R16


# -- what the screens show --------------------------------------------------------------------
def active_lines(ctl):
    action = ctl.action
    timed = ctl.settings["timed"]
    counts = action.deck.counts()
    lines = [part(NAMES, SKILLS.index(action.skill)) + (" timed" if timed else ""),
             deck_line(counts), odds_line(counts), "Chance  " + pct(chance(ctl, action)),
             risk_line(*risks(ctl, action)), tally(action)]
    draws = "Draws %-3d Redr %d" % (action.draws, action.redraws_left)
    if ctl.warn:  # R21: white, a colour no card has
        return lines + ["DRAW IN %ds!" % ctl.warn, "S:stop now"], "white"
    if not sum(counts):  # R22: nothing to draw until the referee adds cards (R19)
        return lines + ["Deck empty:", "call the referee"], None
    waiting = "Auto draw in %ds" % ctl.seconds_left() if timed else draws
    return lines + [waiting, "D:draw  S:stop"], None


def card_label(action, colour, applied):
    """What the card did: "Success 1 of 3" (successes after it, of those needed, R10, R11),
    "Setback" (R12), "Complication 2" (the action's count after it, R13), "Catastrophe"
    (R14). A card not yet applied (R15) says what it will do if accepted, the same label it
    keeps then: the lead decides on a redraw by exactly that."""
    kind = part(KINDS, COLOURS.index(colour))
    if colour == GREEN:
        won = action.successes
        if not applied:
            won += action.green_gain()  # R10, R11
        # automatic successes may pass those needed; the label stops at done
        return "%s %d of %d" % (kind, min(won, action.needed), action.needed)
    if colour == RED:
        return "%s %d" % (kind, action.complications + (0 if applied else 1))
    return kind


def card_lines(ctl):
    action = ctl.action
    colour = ctl.card
    index = COLOURS.index(colour)
    lines = [part(CNAMES, index) + " card", card_label(action, colour, ctl.applied)]
    lines += (wrap(words(action.skill, colour)) + [""])[:2]
    if not ctl.applied:
        return lines + ["Redraws left %d" % action.redraws_left, "D:accept",
                        "H:redraw"], colour  # R15
    outcome = OUTCOMES.get(action.state) or tally(action)
    return lines + [outcome, "", "D:go on"], colour


# -- graphics for the screens played most (pictures.py draws them; the lines stay) ----------
def active_art(ctl, lines):
    """The deck, the chance in large digits (R26), draws and redraws (or the time to the next
    timed draw); under the digits the risks (a complication, a black), or the timed warning,
    then the tally at the foot."""
    action = ctl.action
    side = ("Draw%2d" % action.draws, "Redr %d" % action.redraws_left)
    if ctl.warn:
        hint = "DRAW %ds  S:stop" % ctl.warn
    else:
        # the risks under the large digits (lines[4]); an empty deck's words instead
        hint = lines[4] if sum(action.deck.counts()) else lines[7]
        if ctl.settings["timed"]:  # no countdown to a draw an empty deck will not give (R22)
            side = ("in %2ds" % ctl.seconds_left() if sum(action.deck.counts()) else "Empty",
                    side[0])
    return ("deck", action.skill, part(NAMES, SKILLS.index(action.skill)),
            action.deck.counts(), pct(chance(ctl, action)).strip(), side, (hint, tally(action)))


def card_art(ctl, lines):
    """The drawn card, large, with its colour word, the label of what it did (lines[1]) and
    the action's words (R24); at the foot, where the active screen has its tally: the tally,
    the black's outcome, or the hint while a redraw is possible."""
    action = ctl.action
    if not ctl.applied:
        foot = "D:ok  H:redraw"
    else:
        # a success shows in the tally itself, in its place; a black's outcome replaces it
        foot = action.state != SUCCEEDED and OUTCOMES.get(action.state) or tally(action)
    label = lines[1]
    if len(label) > 14:  # beside the card only 14 fit: the number stays whole
        label = label[:5] + ". " + label.split(" ")[-1]  # "Complication 10" -> "Compl. 10"
    return ("card", action.skill, part(NAMES, SKILLS.index(action.skill)),
            action.deck.counts(), ctl.card, label,
            wrap(words(action.skill, ctl.card), 14)[:2], (foot,))


PRESS = {"active": press_active, "card": press_card}
LINES = {"active": active_lines, "card": card_lines}
ART = {"active": active_art, "card": card_art}
