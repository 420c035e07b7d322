"""A simulated event: devices playing actions on the firmware's own Controller, Store and
random generator under CPython, each device's log written as `make logs` writes an export."""
import datetime
import json
import os
import random
import tempfile

from common import logchain, output  # and firmware/ on sys.path, for carddraw

TOOL = "tools/event.py --simulate"


def random_settings(lead):
    skill = lead.choice(("surgery", "repair", "scan"))
    s = {"skill": skill, "ranks": lead.randint(0 if skill == "scan" else 1, 5),
         "helpers": lead.choice((0, 0, 1, 2, 3)), "bonus": lead.choice((0, 0, 0, 1)),
         "yellow": lead.choice((0, 0, 1, 2)), "red": lead.choice((0, 0, 1, 2)),
         "black": lead.choice((0, 0, 1, 1, 2)), "needed": lead.choice((1, 1, 2, 2, 3, 4)),
         "auto": lead.choice((0, 0, 0, 1)), "redraws": lead.choice((0, 0, 0, 1))}
    return s


def lead_stops(action, lead):
    """A lead who sees a poor chance on the screen stops half the time, and now and then one
    stops for no reason the dice know of."""
    from carddraw.odds import success_chance
    return (success_chance(action) < 0.15 and lead.random() < 0.5) or lead.random() < 0.02


def play_action(store, dice, lead, t):
    """One action through the Controller's buttons, its records into the Store. -> the time."""
    from carddraw.controller import Controller
    c = Controller(settings=random_settings(lead), rng=dice, now_ms=t)
    c.press("DRAW", t)  # set-up: start the action
    for _ in range(200):
        for record in c.take_log():
            store.log(record)
        a = c.action
        if a is None or (a.state != "active" and a.pending is None):
            break
        t += lead.randint(30000, 60000)  # R21: a draw every 30-60 s
        if c.screen == "active" and lead_stops(a, lead):
            c.press("STOP", t)   # asks to confirm ...
            c.press("DRAW", t)   # ... and stops (R16)
        elif c.screen == "card" and a.pending == "black" and a.redraws_left:
            c.press("HELP", t)   # spend the redraw on a black (R15)
        else:
            c.press("DRAW", t)   # draw, or accept the card on show
    for record in c.take_log():
        store.log(record)
    return t + 60000


def simulate(devices, actions, folder, seed):
    """Simulated devices, each playing `actions` actions with its own dice (the firmware's
    Rng). -> the export files written into folder, one per device. Raises output.NotOurs
    (nothing written) for a folder or file that is not the tools'."""
    from carddraw.store import Store
    from carddraw.rng import Rng
    ids = random.Random(seed)
    names = ["%016x" % ids.getrandbits(64) for _ in range(devices)]  # like machine.unique_id()
    output.claim(folder, [export_name(device) for device in names], TOOL)
    paths = []
    for d, device in enumerate(names):
        lead = random.Random("%d lead %d" % (seed, d))
        dice = Rng((seed * 7919 + d) % (1 << 30))
        with tempfile.TemporaryDirectory() as flash:
            store = Store(root=flash + os.sep, log_limit=1 << 40)  # exported before it rotates
            t = 0
            for _ in range(actions):
                t = play_action(store, dice, lead, t)
            lines = flash_lines(store)
        paths.append(write_export(folder, device, lines))
    return paths


def flash_lines(store):
    """The log's lines as they are on flash, the way the bench exports them (logexport.py)."""
    from carddraw.logread import each
    store.flush()
    lines = []
    for name in store.logfile.files():
        each(store.fs, store.root + name, lines.append, True)
    return lines


def export_name(device):
    return "carddraw-log-%s.jsonl" % device


def write_export(folder, device, lines):
    """The file `make logs` writes: the export header, then the device's lines as they are."""
    ok, _, _ = logchain.verify(lines) if any(logchain.split(ln) for ln in lines[:1]) else (False, 0, "")
    header = {"export": logchain.HEADER_KIND, "device": device, "records": len(lines), "damaged": 0,
              "saved": datetime.datetime.now().isoformat(timespec="seconds"), "verified": ok,
              "head": logchain.head(lines)}
    path = os.path.join(folder, export_name(device))
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for line in lines:
            f.write(line + "\n")
    return path
