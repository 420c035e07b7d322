"""What the web app's phone view draws: the controller's View as data, with what the screens
themselves hold (a menu's rows and cursor, the action in play, the action set-up would
start), read after a loop pass and never changing anything.

The phone view is a second face on the same firmware: it shows what the screen on show
says (its View: screen name, lines, LED, blink, picture) in HTML instead of OLED pixels,
so every screen the device has has a phone form and the phone can do nothing the device
cannot. The View's lines stay the screen's own words; the extra fields here are the same
state in a form a phone can lay out (numbers as numbers, the chance and risks as the
firmware's own texts, the card's words unwrapped).

Nothing here calls what would work something out: the view is the controller's cached one
(the pass just revealed it; a view not yet built is built quick, odds as "..."), and the
odds are read only if a pass worked them out. simhost.Device.readout() sends data() only
when it changed.
"""
from carddraw.odds import fmt_chance
from carddraw.screens import Menu


def data(app):
    """The phone view's data: a dict of JSON-able values (see the module's docstring)."""
    face = app.face
    ctl = app.controller
    shown = ctl.shown
    error = face.error
    view = error or ctl.view(True)   # the cached view: nothing worked out here
    picture = view.picture
    return {
        "screen": view.screen,
        "lines": [line.rstrip() for line in view.lines],
        "led": view.led,
        "blink": bool(view.blink),
        # a picture's fields and its kind (render.py): a tuple goes into JSON as a list
        "picture": dict(picture.__dict__, kind=picture.kind) if picture is not None else None,
        "quick": bool(getattr(view, "quick", False)),
        "sec": ctl.seconds_left(),        # the countdown on show (timed, finishing, a wait)
        "longs": list(shown.longs),       # buttons with a long press on this screen
        "locked": bool(shown.locked),     # a referee screen (hold STOP leaves it)
        "error": error is not None,
        "notice": face.notices[0] if face.notices else None,
        "selftest": app.selftest is not None,
        "menu": menu(shown, view) if error is None and isinstance(shown, Menu) else None,
        "action": action(ctl),
        "plan": plan(ctl) if ctl.play is None else None,
        "timed": bool(ctl.settings["timed"]),
        "interval": ctl.settings["interval"],
        "referee": bool(ctl.settings["referee"]),
        "buzzer": bool(ctl.settings["buzzer"]),   # the phone vibrates when the device beeps
    }


def menu(shown, view):
    """A menu's rows (label, value: None for a row without one), the cursor, whether a number
    is being edited, the lines above the rows and the hint (the View's last line)."""
    rows = shown.rows()
    return {"title": view.lines[0].rstrip(), "head": [h.rstrip() for h in shown.head()],
            "rows": [[label, None if value is None else str(value)] for label, value in rows],
            "cur": shown.cur % len(rows) if rows else 0, "editing": bool(shown.editing),
            "hint": view.lines[-1].rstrip() if view.lines else ""}


def odds_texts(odds):
    """The odds as the screens write them (R25, R26), or None if not worked out yet."""
    if odds is None:
        return None
    return {"chance": fmt_chance(odds.chance), "red": fmt_chance(odds.red, 0),
            "black": fmt_chance(odds.black, 0)}


def action(ctl):
    """The action in play, as the bench's `show` gives it and a little more, or None."""
    play = ctl.play
    if play is None:
        return None
    from carddraw.playscreens import words  # the action's side: the firmware imported it by now
    a = play.action
    timed = ctl.settings["timed"] and a.state == "active" and a.deck.total() > 0
    return {
        "skill": a.skill, "state": a.state, "deck": list(a.deck.counts()),
        "successes": a.successes, "needed": a.needed, "complications": a.complications,
        "draws": a.draws, "redraws_left": a.redraws_left,
        "card": play.card, "applied": bool(play.applied),
        "words": words(a.skill, play.card) if play.card else None,   # R24, unwrapped
        "warn": play.warn,                                            # R21's seconds
        "next": play.seconds_left(ctl.now) if timed else None,        # to the timed draw
        "odds": odds_texts(play.odds_shown()),   # None until a pass worked them out
    }


def plan(ctl):
    """The action set-up would start: its settings, deck and odds (once worked out)."""
    s = ctl.settings
    p = ctl.plan
    current = p.version == ctl.settings_version
    return {"skill": s["skill"], "ranks": s["ranks"], "helpers": s["helpers"],
            "needed": s["needed"], "deck": list(p.deck) if current and p.deck else None,
            "odds": odds_texts(p.odds if current else None)}
