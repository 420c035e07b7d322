"""Buttons in the MicroPython VM, through board.Buttons and App: chatter of 0-20 ms at press
and release makes exactly one event, several buttons at once one event each, and a button held
through boot nothing until it is pressed again."""
from conftest import run_in_vm
from carddraw import config
from badinput import SIM, VMLIB, tried


# -- buttons in the VM: chatter, several at once, held through boot -----------------------------
BUTTON_SCRIPT = """
from app_harness import *
from carddraw import config
import random as R

rng = R.Random(4) if hasattr(R, "Random") else None

def chatter(name, bounce_in, hold, bounce_out, seed):
    # the pin for each ms: a press with bounce_in ms of chatter, held, then bounce_out ms of
    # chatter, then up; the app's loop polls every 20 ms (app_harness.run)
    random.seed(seed)
    levels = [random.randrange(2) for _ in range(bounce_in)] + [0] * hold
    levels += [random.randrange(2) for _ in range(bounce_out)] + [1] * 300
    t0 = CLOCK.t
    for ms, level in enumerate(levels):
        SIM.set_level(name, level)
        CLOCK.t = t0 + ms
        if ms % 20 == 0:
            app.loop_pass(CLOCK.t)
    SIM.release(name)

app = boot()
run(app, 200)
out = {"chatter": [], "bad": []}
# RANK on the set-up screen steps the ranks by one per press: count the steps
for bounce in range(0, 21):
    for k in range(3):
        r0 = app.controller.settings["ranks"]
        h0 = app.controller.settings["helpers"]
        chatter("RANK" if k != 1 else "HELP", bounce, 60 + 47 * k, (bounce * 7 + k) % 21, bounce * 3 + k)
        run(app, 100)
        dr = (app.controller.settings["ranks"] - r0) % 9
        dh = (app.controller.settings["helpers"] - h0) % 10
        n = dh if k == 1 else dr
        out["chatter"].append(n)
        if n != 1 or app.controller.view().screen != "setup":
            out["bad"].append([bounce, k, dr, dh, app.controller.view().screen])
#--- step
# several buttons at once, short: each is one event (RANK and HELP both step on set-up)
r0, h0 = app.controller.settings["ranks"], app.controller.settings["helpers"]
SIM.press("RANK"); SIM.press("HELP")
run(app, 200)
SIM.release("RANK"); SIM.release("HELP")
run(app, 200)
out["two"] = [(app.controller.settings["ranks"] - r0) % 9, (app.controller.settings["helpers"] - h0) % 10]
# all four at once and held long: four long events, once each, no short ones after
got = []
press = app.controller.press  # the one event path: long ones come through it too
app.controller.press = lambda b, t, long=False: (got.append(("long" if long else "short", b)),
                                                 press(b, t, long))
for b in config.BUTTONS:
    SIM.press(b)
run(app, 3000)
for b in config.BUTTONS:
    SIM.release(b)
run(app, 300)
out["four"] = got
app.controller.press = press
#--- step
# held through boot: a new App with DRAW (then STOP) down from power-on; nothing until a new press
import os

def gone(path):
    for name in os.listdir(path):
        if os.stat(path + "/" + name)[0] & 0x4000:
            gone(path + "/" + name)
        else:
            os.remove(path + "/" + name)
    os.rmdir(path)

def wipe():
    # a fresh device: the store's files gone (settings, the journal's folders, the log)
    for name in os.listdir():
        if name == "journal":
            gone(name)
        elif name in ("settings.json", "action.json") or name.startswith("log."):
            os.remove(name)

wipe()
out["held"] = {}
for name in config.BUTTONS:
    SIM.reset()
    SIM.press(name)
    app = boot()
    before = app.controller.show()
    run(app, 5000)                 # held 5 s: well past the long press
    after_hold = app.controller.show()
    SIM.release(name)
    run(app, 500)
    after_release = app.controller.show()
    tap(app, "DRAW")               # the next press is a press
    out["held"][name] = [before == after_hold == after_release, app.controller.view().screen,
                         after_release["screen"]]
    wipe()
#--- step
# held through boot with an action in progress (a card on show): the held DRAW neither
# accepts it nor draws
SIM.reset()
app = boot()
run(app, 100)
with open("settings.json", "w") as f:
    f.write(json.dumps(dict(config.defaults(), redraws=2)))
app = boot()
run(app, 100)
tap(app, "DRAW"); tap(app, "DRAW")
card = app.controller.show()
SIM.reset()
SIM.press("DRAW")
app = boot()
run(app, 4000)
SIM.release("DRAW")
run(app, 300)
out["held_card"] = [card["screen"], app.controller.show() == card]
RESULT = out
"""


def test_buttons_chatter_several_at_once_and_held_through_boot():
    r = run_in_vm(BUTTON_SCRIPT, libs=[SIM, VMLIB])
    assert r["bad"] == [] and len(r["chatter"]) == 63
    assert r["two"] == [1, 1]
    assert sorted(r["four"]) == sorted([["long", b] for b in config.BUTTONS]), r["four"]
    for name, (same, screen_after_tap, screen) in r["held"].items():
        assert same, name                     # nothing at all while held, nor at release
        assert screen == "setup"
    assert r["held"]["DRAW"][1] == "active"   # and the next press of DRAW starts the action
    assert r["held_card"] == ["card", True]
    tried("button chatter presses (0-20 ms)", len(r["chatter"]))
    tried("buttons at once", 2)
    tried("buttons held through boot", len(r["held"]) + 1)
