"""Hardening, part 3: bad input. Every kind of damaged settings file, resume state and log
booting the whole App (not just the Store); bad bench-protocol lines through App.line and
app.Console; button chatter, several buttons at once and a button held through boot through
board.Buttons and App in the MicroPython VM.

What must hold for a damaged file: the App boots without an exception; the damage gives a
clear notice (on the screen's bottom line, at most 16 characters, and a "damage" record in
the log) or is ignored harmlessly; nothing else is lost (the other files' contents are used
and kept); the device goes on working; a repaired file does not nag at the next boot.
"""
import json
import os
import random
import sys

import pytest

from conftest import ROOT, run_in_vm
from carddraw import config, saved, settings as known
from carddraw.app import App
from carddraw.protocol import Console, MAX_LINE
from carddraw.controller import Controller
from carddraw.settings import check
from carddraw.logline import SEGMENT
from carddraw.store import Store, older
from fakeflash import FakeFlash
from test_controller_fuzz import figure
sys.path.insert(0, os.path.join(ROOT, "tools"))
import logchain  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
import hardening_board  # noqa: E402

SIM = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")
SETTINGS, ACTION, LOG, LOG1 = (config.SETTINGS_FILE, config.ACTION_FILE, config.LOG_FILE,
                               older(config.LOG_FILE))
CASES = {}  # kind -> cases tried, for the figures


def tried(kind, n=1):
    CASES[kind] = CASES.get(kind, 0) + n
    figure("bad input: cases", CASES)


# -- what a healthy device holds ------------------------------------------------------------
GOOD_SETTINGS = dict(config.defaults(), ranks=4, helpers=2, skill="repair",
                     lock=known.hashed("SDRH", config.LOCK_SALT),  # as settings keep a code
                     referee=True, redraws=1, black=1, brightness=5)


def good_action():
    """A resume state with a card pending and an undo: the richest there is."""
    c = Controller(settings=GOOD_SETTINGS, rng=random.Random(3), now_ms=0)
    c.press("DRAW", 0)
    c.press("DRAW", 0)
    rs = json.loads(json.dumps(c.resume_state()))
    assert rs["action"]["pending"] and rs["undo"] and rs["screen"] == "card"
    return rs


GOOD_ACTION = good_action()
GOOD_LOG = [{"ev": "start", "ms": 1, "n": 0}, {"ev": "draw", "ms": 2, "n": 1, "card": "red"},
            {"ev": "accept", "ms": 3, "n": 1}]


def good_files(**changes):
    files = {SETTINGS: json.dumps(GOOD_SETTINGS).encode(),
             ACTION: json.dumps(GOOD_ACTION).encode(),
             LOG: b"".join(json.dumps(r).encode() + b"\n" for r in GOOD_LOG)}
    for k, v in changes.items():
        name = {"settings": SETTINGS, "action": ACTION, "log": LOG, "log1": LOG1}[k]
        if v is None:
            files.pop(name, None)
        else:
            files[name] = v
    return files


def boot(files, now=10_000):
    fs = FakeFlash(files)
    board = hardening_board.Board()
    store = Store(fs=fs)
    app = App(board, store, random.Random(5), now, write=lambda s: None)
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
    return Store(fs=fs.reboot()).read_log()


# -- damaged files ---------------------------------------------------------------------------
NOISE = bytes(random.Random(11).randrange(256) for _ in range(2000))
BROKEN_FILES = {
    "empty": b"",
    "one space": b" ",
    "newlines": b"\n\n\n",
    "truncated": json.dumps(GOOD_SETTINGS).encode()[:37],
    "truncated resume": json.dumps(GOOD_ACTION).encode()[:-9],
    "half a key": b'{"ran',
    "trailing junk": json.dumps(GOOD_SETTINGS).encode() + b"}}",
    "two objects": b'{"ranks": 3}{"ranks": 4}',
    "binary noise": NOISE,
    "NUL bytes": b"\x00" * 300,
    "0xFF bytes (erased flash)": b"\xff" * 4096,
    "invalid UTF-8": b'{"skill": "\xc3\x28"}',
    "UTF-16": json.dumps(GOOD_SETTINGS).encode("utf-16"),
    "UTF-8 BOM": b"\xef\xbb\xbf" + json.dumps(GOOD_SETTINGS).encode(),
    "deep nesting": b"[" * 5000 + b"]" * 5000,
    "deep objects": b'{"a":' * 3000 + b"1" + b"}" * 3000,
    "huge 1 MB": b"7" * (1 << 20),
    "huge valid JSON": b'{"ranks": 3,' + b" " * (1 << 20) + b'"helpers": 1}',
    "huge string": json.dumps({"skill": "x" * 100000}).encode(),
    "number": b"42",
    "string": b'"surgery"',
    "list": b"[1, 2, 3]",
    "true": b"true",
    "NaN": b"NaN",
    "null": b"null",
    "big int": b"1" + b"0" * 5000,
}
WRONG = [None, True, False, 1.5, -1, 10 ** 12, 2 ** 64, "x", "", [], [1, 2, 3, 4], {}, {"a": 1},
         "NaN"]


def settings_cases():
    cases = [("file: " + k, v) for k, v in BROKEN_FILES.items()]
    for key in sorted(config.defaults()):
        for w in WRONG:
            cases.append(("%s=%r" % (key, w), json.dumps(dict(GOOD_SETTINGS, **{key: w})).encode()))
    for key, (_, lo, hi) in sorted(config.NUMBERS.items()):
        for w in (lo - 1, hi + 1):
            cases.append(("%s=%r" % (key, w), json.dumps(dict(GOOD_SETTINGS, **{key: w})).encode()))
    cases += [("unknown keys", json.dumps(dict(GOOD_SETTINGS, colour="pink", x=[1])).encode()),
              ("missing keys", json.dumps({"ranks": 4}).encode()),
              ("every value wrong", json.dumps({k: "?" for k in GOOD_SETTINGS}).encode()),
              ("NaN and Infinity", b'{"ranks": NaN, "helpers": Infinity, "bonus": -Infinity}'),
              ("keys not strings", b'{1: 2}'),
              ("duplicate keys", b'{"ranks": 4, "ranks": 99}')]
    return cases


SETTINGS_CASES = settings_cases()


@pytest.mark.parametrize("name,data", SETTINGS_CASES, ids=[c[0][:40] for c in SETTINGS_CASES])
def test_damaged_settings_boot_the_app(name, data):
    app, fs, board = boot(good_files(settings=data))
    c = app.controller
    s = dict(c.settings)
    assert check(s) == (s, [])                                    # every setting valid
    notices = list(app.notices)
    assert all(isinstance(n, str) and 0 < len(n) <= 16 for n in notices)
    if notices:
        assert notices == [n for n in ("settings reset", "settings fixed") if n in notices]
        assert len(notices) == 1
        damage = [r for r in log_of(fs)[0] if r["ev"] == "damage"]
        assert damage and damage[-1]["file"] == SETTINGS and damage[-1]["why"]
        shown = go_on(app, board)
        assert notices[0] in shown[0][-1]                     # on the bottom line
    else:
        go_on(app, board)
    # whatever could be kept was kept
    try:
        data_obj = json.loads(data.decode())
    except Exception:  # noqa: BLE001 -- ValueError, RecursionError: not a file to keep from
        data_obj = None
    if isinstance(data_obj, dict) and len(data) <= 4096:  # store.SETTINGS_MAX
        for k, v in data_obj.items():
            if k in config.defaults() and check({k: v})[0][k] == v and type(v) is type(config.defaults()[k]):
                assert s[k] == v or k == "ranks", (k, v)
    # nothing else lost: the action came back (as it was before any press) and the log
    assert Controller(settings=s, resume=GOOD_ACTION).resume_state() == GOOD_ACTION
    recs, bad = log_of(fs)
    assert recs[:len(GOOD_LOG)] == GOOD_LOG and bad == 0
    assert not any(r["ev"] == "error" for r in recs)
    # repaired: the next boot is quiet
    app2, _, _ = boot(fs.reboot().flash)
    assert app2.notices == [] and app2.controller.settings == c.settings
    tried("settings files")


def test_the_resume_survives_every_damaged_settings_file():
    """The settings and the action are separate files: a damaged settings file never costs
    the action in progress (checked here once on the real boot path, per case above by
    rebuilding the controller)."""
    for name, data in SETTINGS_CASES:
        app, fs, board = boot(good_files(settings=data))
        rs = app.controller.resume_state()
        assert rs["action"] == GOOD_ACTION["action"] and rs["card"] == GOOD_ACTION["card"], name


def action_cases():
    cases = [("file: " + k, v) for k, v in BROKEN_FILES.items() if k != "null"]
    a = GOOD_ACTION["action"]
    for key in sorted(a):
        for w in WRONG:
            cases.append(("action.%s=%r" % (key, w),
                          json.dumps(dict(GOOD_ACTION, action=dict(a, **{key: w}))).encode()))
    for key in ("deck", "difficulty"):
        for w in ([1, 2, 3], [1, 2, 3, 4, 5], [-1, 0, 0, 0], [1000, 0, 0, 0], ["1", 2, 3, 0],
                  [1.0, 2, 3, 0], [None] * 4):
            cases.append(("action.%s=%r" % (key, w),
                          json.dumps(dict(GOOD_ACTION, action=dict(a, **{key: w}))).encode()))
    for key in ("card", "applied", "ended", "undo", "screen", "v"):
        for w in WRONG + ["purple", "black", {"skill": "surgery"}, dict(a, state="odd")]:
            cases.append(("%s=%r" % (key, w)[:60], json.dumps(dict(GOOD_ACTION, **{key: w})).encode()))
    odd = [
        ("no action key", {"v": 1}),
        ("action null", dict(GOOD_ACTION, action=None)),
        ("an empty object", {}),
        ("unsettled deck 9 yellow", dict(GOOD_ACTION, action=dict(a, deck=[3, 9, 1, 0]))),
        ("empty deck", dict(GOOD_ACTION, action=dict(a, deck=[0, 0, 0, 0], pending=None),
                             card=None)),
        ("pending in a failed action", dict(GOOD_ACTION, action=dict(a, state="failed"))),
        ("successes past needed, still active",
         dict(GOOD_ACTION, action=dict(a, successes=999, pending=None), card=None)),
        ("draws 99999", dict(GOOD_ACTION, action=dict(a, draws=99999, complications=99999))),
        ("redraws_left > redraws", dict(GOOD_ACTION, action=dict(a, redraws_left=9))),
        ("referee state, no referee",
         dict(GOOD_ACTION, action=dict(a, state="referee", pending=None, referee=False),
              card=None)),
        ("succeeded, ended finishing",
         dict(GOOD_ACTION, action=dict(a, state="succeeded", pending=None), card=None,
              ended="finishing")),
        ("extra keys", dict(GOOD_ACTION, extra=[1, 2], action=dict(a, extra=True))),
    ]
    cases += [(n, json.dumps(v).encode()) for n, v in odd]
    return cases


ACTION_CASES = action_cases()
OUTCOMES = {}


@pytest.mark.parametrize("name,data", ACTION_CASES, ids=[c[0][:50] for c in ACTION_CASES])
def test_damaged_resume_state_boots_the_app(name, data):
    app, fs, board = boot(good_files(action=data))
    c = app.controller
    v = c.view()
    notices = list(app.notices)
    assert all(isinstance(n, str) and 0 < len(n) <= 16 for n in notices)
    assert c.settings == GOOD_SETTINGS                            # the settings are not lost
    recs, bad = log_of(fs)
    assert recs[:len(GOOD_LOG)] == GOOD_LOG and bad == 0
    if c.action is None and data == b"{}":
        outcome = "ignored (no action in it)"
        assert not notices and v.screen == "setup"
    elif c.action is None:
        # refused: said so, on the bottom line (store or app) or as a message (controller)
        said = notices in (["action lost"], ["resume lost"]) or (
            v.screen == "message" and v.lines[0] == "Not resumed")
        assert said, (notices, v.lines)
        outcome = "refused, with a notice" if notices else "refused, with a message"
    else:
        # taken: valid as the engine sees it, and shown
        rs = c.resume_state()
        saved.from_dict(rs["action"])
        assert rs["screen"] == v.screen and not notices
        outcome = "resumed" if rs == json.loads(data) else "resumed, repaired"
    OUTCOMES[outcome] = OUTCOMES.get(outcome, 0) + 1
    figure("bad input: resume states", OUTCOMES)
    shown = go_on(app, board)
    assert shown and not any(r["ev"] == "error" for r in log_of(fs)[0])
    tried("resume states")


def test_a_damaged_card_or_undo_costs_only_itself():
    """Found here, fixed in d0b2924: a bad card or undo next to a valid action used to cost
    the whole action (the controller refused it all, and the file stayed on flash)."""
    a = GOOD_ACTION["action"]
    for key, w in (("card", "purple"), ("undo", {"skill": "surgery"}), ("card", [])):
        app, fs, board = boot(good_files(action=json.dumps(dict(GOOD_ACTION, **{key: w})).encode()))
        c = app.controller
        assert c.action is not None and saved.to_dict(c.action) == a, key
        assert c.action.pending == a["pending"]                  # a pending card is kept


def test_a_resume_object_without_an_action_does_not_nag_at_every_boot():
    app, fs, board = boot(good_files(action=b'{"v": 1}'))
    for i in range(3):
        app.loop_pass(20_000 + 20 * i)
    again, _, _ = boot(fs.reboot().flash)
    assert again.controller.view().screen != "message"


def sealed(records):
    """Log lines as the store writes them (seq, chained hash)."""
    out, prev = b"", ""
    for i, r in enumerate(records):
        line, prev = logchain.seal(prev, json.dumps(dict(r, seq=i + 1), separators=(",", ":")))
        out += line.encode() + b"\n"
    return out


def log_cases(good):
    return [
        ("garbage line in the middle", good[:30] + b"\n%%%garbage\n" + good[30:]),
        ("torn last line", good + b'{"ev": "draw", "n": 2, "ca'),
        ("NUL run at the end", good + b"\x00" * 500),
        ("0xFF at the end (erased flash)", good + b"\xff" * 700),
        ("binary noise line", good + NOISE.replace(b"\n", b" ") + b"\n"),
        ("a line over 1 KB", good + b'{"ev": "x", "pad": "' + b"y" * 5000 + b'"}\n'),
        ("a 1 MB line, no newline", good + b"z" * (1 << 20)),
        ("not objects", good + b"[1,2]\n42\n\"s\"\nnull\n"),
        ("CRLF line ends", good.replace(b"\n", b"\r\n")),
        ("blank lines", good + b"\n\n  \n"),
        ("invalid UTF-8", good + b'{"ev": "\xc3\x28"}\n'),
        ("deep nesting line", good + b"[" * 900 + b"\n"),
        ("a log over the limit", good + (b'{"ev": "pad", "p": "' + b"q" * 900 + b'"}\n') * 40),
        ("empty", b""),
    ]


LOG_CASES = log_cases(b"".join(json.dumps(r).encode() + b"\n" for r in GOOD_LOG))
SEGMENT_CASES = log_cases(sealed(GOOD_LOG))


@pytest.mark.parametrize("name,data", LOG_CASES, ids=[c[0] for c in LOG_CASES])
@pytest.mark.parametrize("where", ["log", "log1"])
def test_damaged_older_log_boots_the_app_is_migrated_and_new_records_stay_whole(name, data, where):
    # older firmware's log.jsonl / log.1.jsonl: copied into the first segment at the first
    # write (the boot's resume record), its damage counted in {"ev": "migrated"} and reported
    files = good_files(**{where: data})
    app, fs, board = boot(files)
    assert app.notices == []                 # the log is not read at boot: nothing to say
    assert app.controller.resume_state() == GOOD_ACTION and app.controller.settings == GOOD_SETTINGS
    go_on(app, board)
    recs, bad = log_of(fs)
    assert LOG not in fs.flash and LOG1 not in fs.flash and bad == 0
    kept = [r for r in GOOD_LOG if json.dumps(r).encode() in data]
    if where == "log1":
        kept += GOOD_LOG  # log.jsonl, good, follows log.1.jsonl
    assert [r for r in recs if r in GOOD_LOG] == kept  # every whole old record, first
    migrated = [r for r in recs if r["ev"] == "migrated"]
    assert len(migrated) == 1 and migrated[0]["damaged"] <= data.count(b"\n") + 2
    check_new_records(recs, fs, True)
    tried("log files")


@pytest.mark.parametrize("name,data", SEGMENT_CASES, ids=[c[0] for c in SEGMENT_CASES])
def test_damaged_log_segment_boots_the_app_and_new_records_stay_whole(name, data):
    files = good_files(log=None)
    files[SEGMENT % 1] = data
    app, fs, board = boot(files)
    assert app.notices == []                 # the log is not read at boot: nothing to say
    assert app.controller.resume_state() == GOOD_ACTION and app.controller.settings == GOOD_SETTINGS
    go_on(app, board)
    if app.store.full:  # only a segment grown past the whole log's limit (not by the store)
        assert name == "a 1 MB line, no newline" and "log full: export" in app.notices
        assert app.store.ack(*app.store.last()) is None  # the bench saved it
        app.loop_pass(20_000)
        data = b""  # the exported segment went to make room: the records wait no more
    recs, bad = log_of(fs)
    kept = [r for r, line in zip(GOOD_LOG, sealed(GOOD_LOG).splitlines()) if line in data]
    assert [r for r in recs if r in GOOD_LOG] == kept
    assert bad <= data.count(b"\n") + 2
    # records without a hash amid the chain (pads written by something else) are named
    check_new_records(recs, fs, name != "a log over the limit")
    tried("log files")


def check_new_records(recs, fs, chained):
    """The records written after the damage all read back whole, in order, at the end, and
    chain on from the last whole record before the damage."""
    new = [r for r in recs if r["ev"] == "resume" or r.get("ms", 0) >= 10_000]
    assert new and new[0]["ev"] == "resume" and len(new) >= 3
    assert [r for r in recs if r["ev"] not in ("damage", "migrated")][-len(new):] == new
    lines = []
    Store(fs=fs.reboot()).read_log(lines.append, raw=True)
    ok, first_bad, why = logchain.verify(lines)
    assert ok if chained else (first_bad == len(GOOD_LOG) and "has no hash" in why), why


# -- the bench protocol ----------------------------------------------------------------------
BAD_LINES = [
    "", " ", "\t", "bogus", "PRESS", "press", "press PINK", "press draw now", "press  ",
    "long", "long x", "wait", "wait -1", "wait 1.5", "wait 0x10", "wait +5", "wait 600001",
    "wait 99999999999999999999999", "wait " + "9" * 5000, "wait \u00b2", "wait \u0661\u0662",
    "wait \uff15", "seed", "seed -3", "seed 1e3", "seed 1000000000", "seed " + "1" * 5000,
    "seed \u00b2", "seed \u0661", "show me", "show show", "x" * 100000, "\x00", "\x00press DRAW",
    "press\x00DRAW", "\x1b[A", "\xff\xfe", "press \udcff", "\u202epress DRAW",
    "log now please", "test", "test bogus", "test led led led", "wait " + "1" * 80,
    "test button \u00b2", "test draws \u00b2", "test button " + "9" * 5000, "test draws -1",
    "test led", "test led pink", "test display now",
    "seed 00000000000000000000001", "show\x7f",
]


def test_bad_protocol_lines_through_app_line_get_an_error_and_change_nothing():
    """Every bad line gets one reply, an error, and the device is as it was. The bad lines
    go in with a good one between each, to show the queue goes on."""
    app, fs, board = boot(good_files())
    replies = []
    app.write = replies.append
    before = app.controller.show()
    t = 20_000
    failures = []
    for line in BAD_LINES:
        del replies[:]
        app.line(line)
        app.line("show")
        try:
            for _ in range(3):
                t += 20
                if not app.loop_pass(t):  # the pass caught an exception: report it
                    raise RuntimeError(app.last_error)
        except Exception as e:  # noqa: BLE001 -- what we are looking for
            failures.append((line[:20], "%s: %s" % (type(e).__name__, str(e)[:60])))
            app.queue = []
            continue
        got = [json.loads(r) for r in replies]
        if len(got) != 2 or "error" not in got[0] or got[1] != before:
            failures.append((line[:20], got[:2]))
    tried("protocol lines (App.line)", len(BAD_LINES))
    assert failures == []
    assert app.controller.show() == before and log_of(fs)[1] == 0


def test_bad_protocol_lines_in_the_vm_get_an_error():
    """The same lines through App.line in MicroPython, whose str and int differ from
    CPython's (non-ASCII digits, big ints)."""
    r = run_in_vm("from app_harness import *\nimport json\nLINES = json.loads(%r)\n" % json.dumps(BAD_LINES) + """
app = boot()
run(app, 100)
before = app.controller.show()
bad = []
for line in LINES:
    try:
        got = send(app, line, "show")
    except Exception as e:
        bad.append([line[:20], repr(e)])
        continue
    if len(got) != 2 or "error" not in got[0] or got[1] != before:
        bad.append([line[:20], got[:2]])
RESULT = bad
""", libs=[SIM, VMLIB])
    assert r == []


class Stream:
    """A console input holding the given bytes, read one character at a time (latin-1, as
    bytes arrive); poll readiness comes from a pipe that holds a byte while data is left."""

    def __init__(self, data, endless=False):
        self.data = data
        self.i = 0
        self.reads = 0
        self.endless = endless
        self.r, self.w = os.pipe()
        os.write(self.w, b"!")

    def fileno(self):
        return self.r

    def read(self, n):
        self.reads += 1
        if self.reads > 200_000:
            raise RuntimeError("Console.lines() is still reading")
        if self.i >= len(self.data):
            if not self.endless:
                os.read(self.r, 1)   # no longer ready
                return ""
            self.i = 0
        ch = self.data[self.i:self.i + 1].decode("latin-1")
        self.i += 1
        return ch

    def close(self):
        os.close(self.r)
        os.close(self.w)


def test_console_bad_bytes_and_overlong_lines():
    cases = [
        (b"show\n", ["show"]),
        (b"show\r\n", ["show"]),
        (b"\r\n\r\n\n", []),
        (b"x" * MAX_LINE + b"\n", ["x" * MAX_LINE]),
        (b"x" * (MAX_LINE + 1) + b"\nshow\n", ["show"]),
        (b"y" * 100000 + b"\nshow\n", ["show"]),
        (b"press \x00DRAW\nshow\n", ["show"]),
        (b"\xff\xfe\xfd\n", []),
        (b"\x1b[A\x1b[B\nshow\n", ["show"]),
        (b"caf\xc3\xa9\n", []),
        (b"show\x7f\n", []),
        (NOISE + b"\nshow\n", ["show"]),
        (b"\tshow\n", []),
        (b"press DRAW", []),            # no end of line yet: held back
    ]
    for data, want in cases:
        s = Stream(data)
        replies = []
        con = Console(s, replies.append)
        got = []
        for _ in range(len(data) + 2):   # one call per loop pass, until the input is read
            got += con.lines()
            if s.i >= len(data):
                got += con.lines()
                break
        s.close()
        assert got == want, (data[:30], got)
        for r in replies:
            assert "error" in json.loads(r)
    tried("console inputs", len(cases))


def test_console_returns_while_input_keeps_coming():
    """Found here, fixed in d0b2924: Console.lines() read for as long as input kept coming,
    so a host sending faster than the loop reads kept the loop from feeding the watchdog."""
    s = Stream(b"show\n", endless=True)
    con = Console(s, lambda r: None)
    try:
        lines = con.lines()
    finally:
        s.close()
    assert len(lines) <= 64


def test_the_protocol_queue_is_bounded_while_a_wait_holds_it():
    """Found here, fixed in d0b2924: App.line() queued without a bound while a `wait` held
    the queue. Now the lines past the bound are refused, each with an error reply."""
    app, fs, board = boot(good_files())
    replies = []
    app.write = replies.append
    app.line("wait 600000")
    app.loop_pass(20_000)
    for i in range(10000):
        app.line("show")
    assert len(app.queue) <= 64
    assert len(replies) >= 10000 - 64 and all("error" in json.loads(r) for r in replies)


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
press, long_ = app.controller.press, app.controller.long
app.controller.press = lambda b, t: (got.append(("short", b)), press(b, t))
app.controller.long = lambda b, t: (got.append(("long", b)), long_(b, t))
for b in config.BUTTONS:
    SIM.press(b)
run(app, 3000)
for b in config.BUTTONS:
    SIM.release(b)
run(app, 300)
out["four"] = got
app.controller.press, app.controller.long = press, long_
#--- step
# held through boot: a new App with DRAW (then STOP) down from power-on; nothing until a new press
import os
for name in ("settings.json", "action.json"):
    try:
        os.remove(name)
    except OSError:
        pass
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
    for f in ("settings.json", "action.json"):
        try:
            os.remove(f)
        except OSError:
            pass
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
