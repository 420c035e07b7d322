"""The bad-input tests' healthy device and how they boot it: good settings, an action with a
card pending and its log records, the files as the store writes them, the App booted on them,
a few presses after; and tried(), the count of cases for docs/reliability.md's figures
(test_damaged_input.py, test_damaged_input_protocol.py, test_damaged_input_buttons.py)."""
import json
import os
import random
import sys

from conftest import ROOT
from carddraw import config, settings as known
from carddraw.app import App
from carddraw.controller import Controller
from carddraw.logfile import segment
from carddraw.logfile import OLDER_LOG
from carddraw.migrate import ACTION_FILE
from carddraw.store import Store
from fakeflash import FakeFlash
from handheld import play_state
from test_controller_fuzz import figure
from storelog import read_log
sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import logchain  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
import hardening_board  # noqa: E402

SIM = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")
SETTINGS, ACTION, LOG, LOG1 = (config.SETTINGS_FILE, ACTION_FILE, config.LOG_FILE,
                               OLDER_LOG)
SEG1 = segment(1)
CASES = {}  # kind -> cases tried, for the figures


def tried(kind, n=1):
    CASES[kind] = CASES.get(kind, 0) + n
    figure("bad input: cases", CASES)


# -- what a healthy device holds ------------------------------------------------------------
GOOD_SETTINGS = dict(config.defaults(), ranks=4, helpers=2, skill="repair",
                     lock=known.hashed("SDRH", config.LOCK_SALT),  # as settings keep a code
                     referee=True, redraws=1, black=1, brightness=5)


def good_action():
    """An action with a card pending and an undo (the richest there is): what a power cut must
    keep of it (handheld.play_state), and the log's records of it (the journal's hint for it
    is "")."""
    c = Controller(settings=GOOD_SETTINGS, rng=random.Random(3), now_ms=0)
    c.press("DRAW", 0)
    c.press("DRAW", 0)
    rs = play_state(c)
    assert rs["action"]["pending"] and rs["undo"] and rs["screen"] == "card"
    assert c.hint() == ""
    return rs, json.loads(json.dumps(c.take_log()))


GOOD_ACTION, GOOD_LOG = good_action()  # GOOD_LOG: the action's start and its draw
OLD_ACTION_FILE = json.dumps(dict(GOOD_ACTION, v=1)).encode()  # older firmware's action.json


def sealed(records, seq=1):
    """Log lines as the store writes them (seq, chained hash)."""
    out, prev = b"", ""
    for i, r in enumerate(records):
        line, prev = logchain.seal(prev, json.dumps(dict(r, seq=seq + i), separators=(",", ":")))
        out += line.encode() + b"\n"
    return out


def plain(records):
    """Older firmware's log lines: the records alone."""
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


FILES = {"settings": SETTINGS, "action": ACTION, "log": SEG1, "oldlog": LOG, "oldlog1": LOG1}


def good_files(**changes):
    """The settings and the log (the action's records, in its first segment); changes
    replace a file (None removes it): settings, log, action (older firmware's action.json),
    oldlog and oldlog1 (older firmware's log.jsonl and log.1.jsonl)."""
    files = {SETTINGS: json.dumps(GOOD_SETTINGS).encode(), SEG1: sealed(GOOD_LOG)}
    for k, v in changes.items():
        if v is None:
            files.pop(FILES[k], None)
        else:
            files[FILES[k]] = v
    return files


def boot(files, now=10_000):
    """The App booted on a chip holding `files` (a dict), or on a FakeFlash itself, and its
    first loop pass (which puts the boot's records on flash and shows its notices)."""
    fs = files if isinstance(files, FakeFlash) else FakeFlash(files)
    board = hardening_board.Board()
    store = Store(fs=fs)
    app = App(board, store, random.Random(5), now, write=lambda s: None)
    app.loop_pass(now + 20)
    return app, fs, board


def go_on(app, board, now=10_000):
    """A few presses and loop passes: the device works after the boot."""
    shown = []
    for i, name in enumerate(("RANK", "DRAW", "DRAW", "HELP", "DRAW")):
        board.buttons.push(name)
        app.loop_pass(now + 500 * (i + 1))
        shown.append(list(board.display.shown))
    return shown


def log_of(fs):
    return read_log(Store(fs=fs.reboot()))


def resumed_or_refused(app, want=None):
    """The action the log shows: played again (== want, if given; else valid as the engine
    sees it and on its own screen) with no notice, or refused, closed as lost and said so.
    -> "resumed" or "refused"."""
    c = app.controller
    a = c.action
    if a is not None:
        rs = play_state(c)
        assert a.state in ("active", "referee", "succeeded", "stopped", "failed")
        assert min(a.deck.counts()) >= 0 and (a.pending is None or a.state == "active")
        assert rs == want if want is not None else rs["screen"] == c.view().screen
        return "resumed"
    assert want is None, "the action was not resumed"
    v = c.view()
    assert v.screen == "message" and v.lines[0] == "Not resumed", v.lines
    return "refused"


NOISE = bytes(random.Random(11).randbytes(2000))
