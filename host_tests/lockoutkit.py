"""The lockout test files' shared steps (test_lockout*.py): a controller with the default
settings, presses with the app's tick after each, a code tried at the lock screen or through
lockout.attempt, the screen's text and the lock's log records; the hardened stand-in board."""
import os
import random
import sys

from conftest import ROOT
from carddraw import config
from carddraw.controller import Controller

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
import hardening_board  # noqa: E402,F401  (the test files' stand-in board)

NAME = {"R": "RANK", "H": "HELP", "D": "DRAW", "S": "STOP"}


def attempt(c, code):
    """A try as the lock screen makes it: counted, then, once that is on flash, compared
    -> None if it opened the lock, else what the player is told."""
    said = []
    refused = c.lockout.attempt(code, said.append)
    if refused is not None:
        return refused
    c.lockout.settle(True)
    return said[0]


def dev(**settings):
    return Controller(settings=dict(config.defaults(), **settings), rng=random.Random(1))


def keys(c, seq, t=0):
    """Presses ("R", "lS" for a long one) at time t, the app's tick after each."""
    for tok in seq.split():
        (c.long if tok[0] == "l" else c.press)(NAME[tok[-1]], t)
        c.tick(t)
    return c.view()


def code_keys(code):
    return "lS " + " ".join(code)


def wrong(c, t, code="SSSS"):
    return keys(c, code_keys(code), t)


def text(c):
    return " ".join(" ".join(c.view().lines).split())


def lock_records(c):
    return [r for r in c.take_log() if r["ev"] == "lock"]
