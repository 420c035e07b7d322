"""Timed mode (R21) that nobody can hold back, and R22 in timed mode.

R21: in timed mode the device draws by itself every interval, after a 5-second warning, and
nothing a player does (the stop question, messages, the lock, switching off, leaving a card
on screen) holds the next draw back past its time. What happens when a draw falls due:

  active, Stop?, a message, the lock   the card is drawn (the question, message or lock goes)
  a card on show, its result applied   the next card is drawn, from the card screen
  a card on show, redraws left (R15)   the card is accepted (the lead did not decide in time)
  the referee menu, code entered       the draw waits while it is open (30 s idle closes it);
                                       on leaving, a full warning, then the draw
  an empty deck (R22)                  no draw: the screen says so and waits for the referee

The warning blinks the LED white, a colour no card uses, never yellow. Controller tests
under CPython; the app's wake-up under the MicroPython VM on the hardware stand-ins.
"""
import json
import os
import subprocess
import textwrap

from conftest import ROOT, run_in_vm
from handheld import dev, keys, reboot

CARD_COLOURS = ("green", "yellow", "red", "black")


SIM = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")


def vm(body):
    return run_in_vm("from app_harness import *\n" + textwrap.dedent(body), libs=[SIM, VMLIB])


# the app booted in the VM, timed mode every 45 s, the action started at 100 ms
TIMED_ACTION = """
    app = boot()
    c = app.controller
    c.change("timed", True)
    c.change("interval", 45)
    run(app, 100)
    tap(app, "DRAW")                 # the action starts: the first timed draw in 45 s
"""


def ticks(c, start, end, step=250):
    """The app's clock ticking from start up to and including end; -> the views seen."""
    seen = []
    t = start
    while t <= end:
        c.tick(t)
        seen.append((t, c.view()))
        t += step
    return seen


def draws(c):
    return [r for r in c.take_log() if r["ev"] == "draw"]


def referee_menu(c, t):
    keys(c, "lS R H R H", t)  # the default code (config.DEFAULT_LOCK)
    assert c.view().screen == "refmenu", c.view().lines


def power_cut(c, t):
    """The device switched off and on at t: the log's last action played again."""
    new = reboot(c, t)
    new.rng.c = new
    new.tick(t)
    return new


# -- the countdown runs on every screen a player can reach -------------------------------------
def test_R21_the_stop_question_does_not_hold_the_draw_back():
    c = dev("yellow", timed=True, interval=30, needed=3)
    keys(c, "D", 0)
    assert keys(c, "S", 20000).screen == "confirm"
    c.take_log()
    seen = ticks(c, 20000, 29750)
    assert all(v.screen == "confirm" for _, v in seen)
    warned = [v for t, v in seen if t >= 25000]
    assert warned and all(v.blink and v.led == "white" for v in warned)  # the warning shows
    assert any("5s" in v.lines[-1] for v in warned)
    c.tick(30000)
    made = draws(c)
    assert c.view().screen == "card" and len(made) == 1 and made[0]["timed"]
    assert made[0]["ms"] == 30000


def test_R21_a_message_goes_away_after_10_s():
    c = dev("yellow", redraws=1, needed=3)
    keys(c, "D D", 0)                              # a card with a redraw left
    assert keys(c, "S", 1000).screen == "message"  # no stop before the card's result
    c.tick(10999)
    assert c.view().screen == "message"
    c.tick(11000)
    assert c.view().screen == "card"


def test_R21_a_draw_falling_due_on_a_message_is_made_on_time():
    c = dev("yellow", timed=True, interval=30, needed=3)
    keys(c, "D", 0)
    keys(c, "lS D D D D", 22000)                  # a wrong code: a message
    assert c.view().screen == "message"
    c.take_log()
    ticks(c, 22000, 29750)
    assert c.action.draws == 0 and c.view().blink
    c.tick(30000)
    made = draws(c)
    assert len(made) == 1 and made[0]["timed"] and c.view().screen == "card"


def test_R21_the_lock_does_not_hold_the_draw_back():
    c = dev("yellow", timed=True, interval=30, needed=3)
    keys(c, "D", 0)
    ticks(c, 0, 26000)
    assert c.warn == 4
    assert keys(c, "lS R", 26000).screen == "lock"
    seen = ticks(c, 26000, 29750)
    assert all(v.blink and v.led == "white" for _, v in seen)
    c.tick(30000)
    assert c.action.draws == 1 and c.view().screen == "card"


def test_R21_entering_and_leaving_the_lock_again_and_again_grants_no_new_warning():
    """The old stall: back from the lock every 4.4 s during the warning, a fresh 5 s each time."""
    c = dev("yellow", "yellow", timed=True, interval=30, needed=3)
    keys(c, "D", 0)
    t = 24000
    while c.action.draws == 0 and t < 60000:
        if t % 4400 == 0:
            keys(c, "lS", t)                      # into the lock ...
            c.tick(t)
            keys(c, "lS", t + 100)                # ... and straight out again
        c.tick(t + 100)
        t += 100
    assert c.action.draws == 1 and t <= 30100


def test_R21_leaving_the_lock_keeps_the_warning_running():
    c = dev("yellow", timed=True, interval=30, needed=3)
    keys(c, "D", 0)
    ticks(c, 0, 27000)
    assert c.warn == 3
    keys(c, "lS", 27000)
    c.tick(28000)
    keys(c, "lS", 28000)                          # back on the deck screen
    c.tick(28000)
    assert c.view().screen == "active" and c.warn == 2
    c.tick(30000)
    assert c.action.draws == 1


def test_R21_the_referee_menu_with_the_code_holds_the_draw_then_a_full_warning():
    c = dev("yellow", timed=True, interval=30, needed=3)
    keys(c, "D", 0)
    ticks(c, 0, 27000)
    assert c.warn == 3
    referee_menu(c, 27000)
    ticks(c, 27000, 50000, 1000)
    assert c.action.draws == 0 and c.view().screen == "refmenu" and not c.view().blink
    keys(c, "S", 50000)
    c.tick(50000)
    assert c.view().screen == "active" and c.warn == 5
    c.tick(54999)
    assert c.action.draws == 0
    c.tick(55000)
    assert c.action.draws == 1


def test_R21_a_referee_menu_left_open_holds_the_draw_only_until_it_closes_itself():
    c = dev("yellow", timed=True, interval=30, needed=3)
    keys(c, "D", 0)
    referee_menu(c, 20000)                        # the last press at 20 s
    ticks(c, 20000, 50000, 1000)
    assert c.view().screen == "refmenu" and c.action.draws == 0
    ticks(c, 51000, 55000, 1000)                  # 30 s untouched: the menu closes at 51 s
    assert c.view().screen == "active" and c.action.draws == 0 and c.view().blink
    c.tick(56000)
    assert c.action.draws == 1


# -- switching off ---------------------------------------------------------------------------
def test_R21_after_a_power_cut_the_warning_starts_at_once():
    c = dev("yellow", timed=True, interval=30, needed=3)
    keys(c, "D", 0)
    c.tick(10000)
    c = power_cut(c, 10000)
    v = c.view()
    assert v.screen == "active" and v.blink and c.warn == 5
    c.tick(14999)
    assert c.action.draws == 0
    c.tick(15000)
    assert c.action.draws == 1


def test_R21_switching_off_every_39_s_does_not_stall_the_draws():
    c = dev(*["yellow"] * 9, timed=True, interval=45, needed=9, redraws=0)
    keys(c, "D", 0)
    t = 0
    while t < 300000:
        t += 1000
        if t % 39000 == 0:
            c = power_cut(c, t)
        else:
            c.tick(t)
        if c.view().screen == "card":
            keys(c, "D", t)                       # the lead goes on at once
    assert c.action.draws >= 300000 // 39000


# -- a card left on the screen -----------------------------------------------------------------
def test_R21_a_card_with_no_decision_left_goes_on_by_itself():
    c = dev("yellow", "yellow", timed=True, interval=30, needed=3, redraws=0)
    keys(c, "D", 0)
    keys(c, "D", 1000)                            # drawn by hand; its result applies at once
    assert c.view().screen == "card" and c.play.applied
    c.take_log()
    seen = ticks(c, 1000, 30750)
    assert all(v.screen == "card" for _, v in seen)
    assert [v.led for t, v in seen if t < 26000] == ["yellow"] * len(
        [t for t, _ in seen if t < 26000])        # the card's colour until the warning
    assert all(v.blink and v.led == "white" for t, v in seen if t >= 26000)
    c.tick(31000)
    made = draws(c)
    assert len(made) == 1 and made[0]["timed"] and made[0]["n"] == 2
    assert c.view().screen == "card" and c.action.draws == 2


def test_R21_R15_a_card_with_redraws_left_is_accepted_and_the_next_drawn_when_due():
    """A lead who never decides draws at the same cadence as one who does (R21): at the due
    time the pending card is accepted (R15) and the next card drawn at once, an interval
    after the last draw; and again an interval later."""
    c = dev("yellow", "yellow", "green", timed=True, interval=30, needed=3, redraws=1)
    keys(c, "D", 0)
    keys(c, "D", 1000)
    assert c.view().screen == "card" and not c.play.applied
    c.take_log()
    ticks(c, 1000, 30750)
    assert c.action.pending == "yellow"
    c.tick(31000)
    log = c.take_log()
    assert [r["ev"] for r in log] == ["accept", "draw"] and log[0]["card"] == "yellow"
    assert log[1]["timed"] and log[1]["n"] == 2 and log[1]["card"] == "yellow"
    assert c.action.pending == "yellow" and c.view().screen == "card"
    ticks(c, 31000, 60999)
    assert c.action.draws == 2
    c.tick(61000)
    assert c.action.draws == 3 and [r["ev"] for r in c.take_log()][-2:] == ["accept", "draw"]


def test_R21_R14_an_acceptance_at_the_due_time_that_needs_the_referee_draws_nothing():
    """A pending black with redraws left, accepted at the due time, goes to the referee
    (R14): no card is drawn over it."""
    c = dev("black", timed=True, interval=30, referee=True, black=1, redraws=1)
    keys(c, "D", 0)                     # set-up: the action starts
    keys(c, "D", 1000)                  # the black, a redraw left
    assert c.action.pending == "black" and not c.play.applied
    c.take_log()
    ticks(c, 1000, 31000)
    assert [r["ev"] for r in c.take_log()] == ["accept"]
    assert c.action.state == "referee" and c.action.draws == 1


# -- R22: an empty deck in timed mode -----------------------------------------------------------
def adjust_deck(c, t):
    """Open the referee menu with the code and choose "Adjust deck"."""
    referee_menu(c, t)
    for _ in range(8):
        if any(line.startswith(">Adjust") for line in c.view().lines):
            break
        c.press("HELP", t)
    keys(c, "D", t)
    assert c.view().screen == "adjust", c.view().lines


def empty_the_deck(c, t):
    adjust_deck(c, t)
    keys(c, "D R R R D H D R R D H D R D S S", t)
    assert c.action.deck.counts() == (0, 0, 0, 0) and c.view().screen == "active"


def test_R22_timed_mode_never_draws_from_an_empty_deck_and_logs_no_error():
    c = dev("green", timed=True, interval=30, referee=True, ranks=1, needed=3)
    keys(c, "D", 0)
    empty_the_deck(c, 1000)
    c.take_log()
    seen = ticks(c, 1000, 300000, 1000)
    log = c.take_log()
    assert not [r for r in log if r["ev"] in ("error", "draw")], log
    assert all(v.screen == "active" and not v.blink for _, v in seen)
    assert "Deck empty" in " ".join(seen[-1][1].lines)
    # ... in the graphics too: no countdown beside the deck to a draw that will not come
    side = seen[-1][1].picture.side
    assert not any(text.startswith("in ") for text in side) and "Empty" in side, side
    # the referee puts a green back: the draws come again, after a full interval
    adjust_deck(c, 300000)
    keys(c, "D H D S S", 300000)
    assert c.action.deck.counts() == (1, 0, 0, 0) and c.view().screen == "active"
    ticks(c, 300000, 329000, 1000)
    assert c.action.draws == 0
    ticks(c, 329000, 331000, 1000)
    assert c.action.draws == 1


# -- the LED ---------------------------------------------------------------------------------
def test_R21_the_warning_blinks_white_a_colour_no_card_uses():
    c = dev(timed=True, interval=30)
    keys(c, "D", 0)
    warned = [v for _, v in ticks(c, 25000, 29750) if v.blink]
    assert len(warned) == 20 and {v.led for v in warned} == {"white"}
    # on the board (the VM, the stand-in pins): all three dies lit, unlike any card's colour
    rgb = vm("""
        from machine import SIM
        b = Board()
        out = {}
        for colour in %r + ("white",):
            b.led.show(colour)
            out[colour] = SIM.led_rgb()
        RESULT = out
    """ % (CARD_COLOURS,))
    white = rgb.pop("white")
    assert min(white) > 0 and white not in rgb.values(), (white, rgb)
    # the simulators (terminal and web page) name it
    device = os.path.join(ROOT, "tools", "sim", "device.mjs")
    script = ("import { ledName } from %s; process.stdout.write(ledName(%s));"
              % (json.dumps("file://" + device), json.dumps(white)))
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "white"


# -- the app: the warning wakes the display, and a press during it acts -----------------------
def test_R21_the_display_stays_awake_through_a_timed_action_and_stop_stops_in_the_warning():
    """The display never dims while an action draws (the cadence is a card every 30-60 s), the
    warning shows at full brightness, and STOP during it stops at once."""
    r = vm(TIMED_ACTION + """
    bright = SIM.contrast
    run(app, 36000)
    later = [app.face.idle, SIM.contrast]
    run(app, 5000)                   # the warning is on (from 40 s)
    woke = [app.face.idle, SIM.contrast, SIM.oled_on, c.view().blink]
    tap(app, "STOP")                 # during the warning: stops at once
    RESULT = {"bright": bright, "later": later, "woke": woke,
              "state": c.action and c.action.state, "draws": c.action and c.action.draws}
    """)
    assert r["later"] == [0, r["bright"]]
    idle, contrast, on, blink = r["woke"]
    assert blink and idle == 0 and on and contrast == r["bright"]
    assert r["state"] == "stopped" and r["draws"] == 0


def test_R21_a_press_on_a_dark_display_during_the_warning_acts_as_well_as_wakes():
    r = vm(TIMED_ACTION + """
    run(app, 39000)
    app.face.idle = 2                     # the display went dark just now
    app.board.display.sleep(True)
    t = CLOCK.t + 1500
    c.tick(t)                        # the warning begins in the same pass as the press
    app.button("STOP", "short", t)
    RESULT = {"idle": app.face.idle, "state": c.action and c.action.state}
    """)
    assert r["idle"] == 0 and r["state"] == "stopped"
