"""The controller test files' shared steps (test_controller*.py but the fuzz file): a view's
text, the log's events, the referee menu reached through the lock, one option set, a view
that fits the screen."""
from carddraw import config
from carddraw.render import View
from carddraw.settings import OPTIONS as OPTS

from handheld import keys


def text(c):
    return "\n".join(c.view().lines)


def joined(c):
    return " ".join(" ".join(c.view().lines).split())


def events(log):
    return [r["ev"] for r in log]


def referee(c, label, t=0, code="R H R H"):
    """Open the lock with the code, move to the menu item `label` and choose it."""
    keys(c, "lS " + code, t)
    assert c.view().screen == "refmenu"
    for _ in range(12):
        if any(x.startswith(">" + label[:15]) for x in c.view().lines):
            c.press("DRAW", t)
            return c.view()
        c.press("HELP", t)
    raise AssertionError("no %r in the referee menu:\n%s" % (label, text(c)))


def option(c, key, value):
    """From set-up, through the options menu, set one option, and come back."""
    keys(c, "lD")
    assert c.view().screen == "options"
    for _ in range(OPTS.index(key)):
        c.press("HELP", 0)
    if key in config.FLAGS:
        if c.settings[key] != value:
            c.press("DRAW", 0)
    else:
        c.press("DRAW", 0)
        for _ in range(20):
            if c.settings[key] == value:
                break
            c.press("HELP" if c.settings[key] < value else "RANK", 0)
        c.press("DRAW", 0)
    assert c.settings[key] == value
    keys(c, "S")
    assert c.view().screen == "setup"

def lines_fit(v):
    assert isinstance(v, View)
    assert 1 <= len(v.lines) <= 8
    assert len(v.lines[0]) <= 14  # the title leaves room for the battery icon
    for x in v.lines:
        assert isinstance(x, str) and len(x) <= 16, repr(x)
