"""Bad input: every kind of damaged settings file, open action and log booting the whole
App (not just the Store); bad bench-protocol lines through App.line and app.Console; button
chatter, several buttons at once and a button held through boot through board.Buttons and
App in the MicroPython VM.

The action in play is the log's: after a power cut the app plays its records again (the
journal's hint says what no record does). What must hold for damaged input: the App boots
without an exception; the damage gives a clear notice (on the screen's bottom line, at most
16 characters, and a "damage" record in the log), or an action that cannot be played again
is closed as lost and said so ("Not resumed"), or it is ignored harmlessly; nothing else is
lost (the other files' contents are used and kept); the device goes on working; a repaired
file does not nag at the next boot.
"""
import json
import os
import random
import sys

import pytest

from conftest import ROOT, run_in_vm
from carddraw import config, protocol, saved, settings as known
from carddraw.app import App
from carddraw.protocol import Console, MAX_LINE, MAX_QUEUE
from carddraw.controller import Controller
from carddraw.settings import check
from carddraw.logfile import segment
from carddraw.logfile import OLDER_LOG
from carddraw.logroom import KEPT
from carddraw.store import Store
from fakeflash import FakeFlash
from test_controller_fuzz import figure
sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import logchain  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "host_tests", "vmlib"))
import hardening_board  # noqa: E402

SIM = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")
SETTINGS, ACTION, LOG, LOG1 = (config.SETTINGS_FILE, config.ACTION_FILE, config.LOG_FILE,
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
    """An action with a card pending and an undo (the richest resume state there is): its
    resume state, and the log's records of it (the journal's hint for it is "")."""
    c = Controller(settings=GOOD_SETTINGS, rng=random.Random(3), now_ms=0)
    c.press("DRAW", 0)
    c.press("DRAW", 0)
    rs = json.loads(json.dumps(c.resume_state()))
    assert rs["action"]["pending"] and rs["undo"] and rs["screen"] == "card"
    assert c.hint() == ""
    return rs, json.loads(json.dumps(c.take_log()))


GOOD_ACTION, GOOD_LOG = good_action()  # GOOD_LOG: the action's start and its draw


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
    return Store(fs=fs.reboot()).read_log()


def resumed_or_refused(app, want=None):
    """The action the log shows: played again (== want, if given; else valid as the engine
    sees it and on its own screen) with no notice, or refused, closed as lost and said so.
    -> "resumed" or "refused"."""
    c = app.controller
    if c.action is not None:
        rs = c.resume_state()
        saved.from_dict(rs["action"])
        assert rs == want if want is not None else rs["screen"] == c.view().screen
        return "resumed"
    assert want is None, "the action was not resumed"
    v = c.view()
    assert v.screen == "message" and v.lines[0] == "Not resumed", v.lines
    return "refused"


# -- damaged files ---------------------------------------------------------------------------
NOISE = bytes(random.Random(11).randbytes(2000))
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
    """A damaged settings file never costs the action in play (the log's) nor the log."""
    app, fs, board = boot(good_files(settings=data))
    c = app.controller
    s = dict(c.settings)
    assert check(s) == (s, [])                                    # every setting valid
    assert c.resume_state() == GOOD_ACTION                       # the action came back
    notices = list(app.face.notices)
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
    # nothing else lost: the log
    recs, bad = log_of(fs)
    assert recs[:len(GOOD_LOG)] == GOOD_LOG and bad == 0
    assert not any(r["ev"] == "error" for r in recs)
    # repaired: the next boot is quiet
    app2, _, _ = boot(fs.reboot())
    assert app2.face.notices == [] and app2.controller.settings == c.settings
    tried("settings files")


def records_cases():
    """The open action's records as the log could hold them, each a list of records (a
    device's own log with odd records, sealed as the store seals them)."""
    start, draw = GOOD_LOG
    cases = []
    for key in sorted(start):
        if key in ("ev", "ms"):
            continue
        for w in WRONG:
            cases.append(("start.%s=%r" % (key, w), [dict(start, **{key: w}), draw]))
        cases.append(("start without %s" % key,
                      [{k: v for k, v in start.items() if k != key}, draw]))
    for key in sorted(draw):
        if key in ("ev", "ms"):
            continue
        for w in WRONG + ["purple", "black", "red"]:
            cases.append(("draw.%s=%r" % (key, w)[:60], [start, dict(draw, **{key: w})]))
    for key in ("deck", "difficulty"):
        for w in ([1, 2, 3], [1, 2, 3, 4, 5], [-1, 0, 0, 0], [1000, 0, 0, 0], ["1", 2, 3, 0],
                  [1.0, 2, 3, 0], [None] * 4):
            cases.append(("start.%s=%r" % (key, w), [dict(start, **{key: w}), draw]))
    accept = {"ev": "accept", "ms": 0, "n": 1, "card": "green", "deck": [7, 2, 1, 1],
              "state": "succeeded", "successes": 1, "complications": 0}
    odd = [
        ("the start alone", [start]),
        ("a draw without its start", [draw]),
        ("two starts", [start, start, draw]),
        ("two draws", [start, draw, draw]),
        ("an accept not drawn", [start, accept]),
        ("records of no kind", [start, {"ev": "bogus", "x": 1}, {"n": 3}, draw]),
        ("a redraw with none left", [start, draw, {"ev": "redraw", "n": 1, "card": "red",
                                                   "left": 0}] * 1),
        ("an undo with nothing drawn", [start, {"ev": "undo", "draws": 0}]),
        ("an adjust with a bad colour", [start, {"ev": "adjust", "colour": "pink", "delta": 1,
                                                 "deck": [8, 2, 1, 1]}]),
        ("a referee decision with no black", [start, draw, {"ev": "referee",
                                                            "decision": "continue"}]),
        ("ended: accepted and over", [start, draw, accept,
                                      {"ev": "end", "outcome": "succeeded"}]),
        ("closed as lost before", [start, draw, {"ev": "end", "outcome": "lost", "why": "x"}]),
        ("extra keys", [dict(start, extra=[1, 2]), dict(draw, extra=True)]),
    ]
    return cases + odd


RECORDS_CASES = records_cases()
OUTCOMES = {}


@pytest.mark.parametrize("name,records", RECORDS_CASES, ids=[c[0][:50] for c in RECORDS_CASES])
def test_odd_records_of_the_open_action_boot_the_app(name, records):
    app, fs, board = boot(good_files(log=sealed(records)))
    c = app.controller
    notices = list(app.face.notices)
    assert notices == []
    assert c.settings == GOOD_SETTINGS                            # the settings are not lost
    recs, bad = log_of(fs)
    assert recs[:len(records)] == records and bad == 0            # nor the log
    if not any(r.get("ev") == "start" for r in records):
        outcome = "no action in them"
        assert c.action is None and c.view().screen == "setup"
    elif {"ev": "end", "outcome": "lost", "why": "x"} in records:
        outcome = "closed before"  # it stays closed: nothing said, nothing logged
        assert c.action is None and c.view().screen == "setup" and recs == records
    else:
        outcome = resumed_or_refused(app)
        new = recs[len(records):]
        if outcome == "refused":  # closed: the end logged, said on screen
            assert new[0]["ev"] == "end" and new[0]["outcome"] == "lost" and new[0]["why"]
        else:
            assert new[0] == {"ev": "resume", "ms": 10_000, "screen": c.view().screen}
    OUTCOMES[outcome] = OUTCOMES.get(outcome, 0) + 1
    figure("bad input: the open action's records", OUTCOMES)
    shown = go_on(app, board)
    assert shown and not any(r.get("ev") == "error" for r in log_of(fs)[0])
    tried("open action records")


def test_the_good_action_resumes_and_the_odd_records_are_refused_or_resumed_both():
    """The cases above are not all refused: the engine takes what it can."""
    assert resumed_or_refused(boot(good_files())[0], GOOD_ACTION) == "resumed"
    outcomes = set()
    for name, records in RECORDS_CASES:
        app, fs, board = boot(good_files(log=sealed(records)))
        if app.controller.action is not None or app.controller.view().screen == "message":
            outcomes.add(resumed_or_refused(app))
    assert outcomes == {"resumed", "refused"}


@pytest.mark.parametrize("name", sorted(BROKEN_FILES) + ["a whole resume state"])
def test_older_firmwares_action_file_is_removed_and_the_log_gives_the_action(name):
    """Older firmware kept the action in action.json: whatever it holds, it goes at boot,
    unread, and the log brings the action back; the next boots say nothing of it."""
    data = json.dumps(GOOD_ACTION).encode() if name == "a whole resume state" else BROKEN_FILES[name]
    app, fs, board = boot(good_files(action=data))
    assert app.controller.resume_state() == GOOD_ACTION and app.face.notices == []
    assert ACTION not in fs.flash
    again, _, _ = boot(fs.reboot())
    assert again.controller.resume_state() == GOOD_ACTION and again.face.notices == []
    assert again.controller.view().screen == "card"


def journal_entry(head, records=()):
    return b"".join(json.dumps(x, separators=(",", ":")).encode() + b"\n"
                    for x in [head] + list(records))


def journal_files(slot0, **changes):
    """good_files with a journal folder whose first slot holds `slot0`."""
    files = good_files(**changes)
    files.update({"j000001/0": slot0, "j000001/1": b"", "j000001/2": b"", "j000001/3": b""})
    return files


@pytest.mark.parametrize("hint", [None, 5, [], {"d": 1}, True, "zzz", "dd", "d" * 300])
def test_a_damaged_hint_costs_only_itself(hint):
    """The journal's hint says what no record does (a card put away, the finishing...): one
    that is not a hint is no hint, and the action comes back from its records."""
    slot0 = journal_entry({"j": 1, "q": len(GOOD_LOG) + 1, "n": 0, "p": hint})
    app, fs, board = boot(journal_files(slot0))
    c = app.controller
    assert c.action is not None and saved.to_dict(c.action) == GOOD_ACTION["action"]
    assert c.action.pending == GOOD_ACTION["action"]["pending"]  # the pending card is kept
    assert app.face.notices == []
    go_on(app, board)


@pytest.mark.parametrize("name,slot0", [
    ("truncated", journal_entry({"j": 1, "q": 3, "n": 1, "p": "d"}, [{"ev": "x"}])[:-5]),
    ("noise", NOISE[:300]),
    ("a huge header", b'{"j":1,"q":3,"n":0,"p":"' + b"d" * 5000 + b'"}\n'),
    ("a count too high", journal_entry({"j": 1, "q": 3, "n": 5, "p": "d"}, [{"ev": "x"}])),
])
def test_a_damaged_journal_entry_at_boot_is_reported_and_the_action_comes_back(name, slot0):
    app, fs, board = boot(journal_files(slot0))
    assert app.controller.resume_state() == GOOD_ACTION           # the log's records, no hint
    assert app.face.notices == ["log damaged"]
    recs, bad = log_of(fs)
    assert {"ev": "damage", "file": LOG, "why": "1 bad lines"} in recs and bad == 0
    shown = go_on(app, board)
    assert "log damaged" in shown[0][-1]


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


LOG_CASES = log_cases(plain(GOOD_LOG))
SEGMENT_CASES = log_cases(sealed(GOOD_LOG))


def whole(records, data, line):
    """The records whose own line is in data, whole."""
    return [r for r in records if line(r) in data.replace(b"\r\n", b"\n").split(b"\n")]


@pytest.mark.parametrize("name,data", LOG_CASES, ids=[c[0] for c in LOG_CASES])
@pytest.mark.parametrize("where", ["oldlog", "oldlog1"])
def test_damaged_older_log_boots_the_app_is_migrated_and_new_records_stay_whole(name, data, where):
    # older firmware's log.jsonl / log.1.jsonl: copied into the first segment at boot (the
    # log holds the action), its damage counted in {"ev": "migrated"} and reported
    files = good_files(log=None, **{where: data})
    if where == "oldlog1":
        files[LOG] = plain(GOOD_LOG)  # log.jsonl, good, follows log.1.jsonl
    app, fs, board = boot(files)
    migrated = [r for r in log_of(fs)[0] if r["ev"] == "migrated"]
    assert len(migrated) == 1 and migrated[0]["damaged"] <= data.count(b"\n") + 2
    assert app.face.notices == (["log damaged"] if migrated[0]["damaged"] else [])
    assert app.controller.settings == GOOD_SETTINGS
    kept = whole(GOOD_LOG, data, lambda r: json.dumps(r).encode())
    if where == "oldlog1":
        kept += GOOD_LOG
    # the migration copies whole records only: without its start, no action shows
    outcome = resumed_or_refused(app, GOOD_ACTION if kept[-2:] == GOOD_LOG else None) \
        if GOOD_LOG[0] in kept else "no action"
    go_on(app, board)
    recs, bad = log_of(fs)
    assert LOG not in fs.flash and LOG1 not in fs.flash and bad == 0
    assert [r for r in recs if r in GOOD_LOG] == kept  # every whole old record, first
    check_new_records(recs, fs, True, outcome)
    tried("log files")


@pytest.mark.parametrize("name,data", SEGMENT_CASES, ids=[c[0] for c in SEGMENT_CASES])
def test_damaged_log_segment_boots_the_app_and_new_records_stay_whole(name, data):
    app, fs, board = boot(good_files(log=data))
    assert app.face.notices == []                 # the log's damage is found when it is read
    assert app.controller.settings == GOOD_SETTINGS
    kept = [r for r, line in zip(GOOD_LOG, sealed(GOOD_LOG).splitlines())
            if line in data.replace(b"\r\n", b"\n").split(b"\n")]
    outcome = resumed_or_refused(app, GOOD_ACTION if kept == GOOD_LOG else None) \
        if kept else "no action"
    go_on(app, board)
    for t in range(13_000, 13_400, 20):  # idle passes: the journal's records into the log
        app.loop_pass(t)
    over = app.store.logfile.full
    if over:  # only a segment grown past the whole log's limit (not by the store)
        assert name == "a 1 MB line, no newline" and "log full: export" in app.face.notices
        assert app.store.ack(*app.store.last()) is None  # the bench saved it
        app.loop_pass(20_000)
        data = b""  # the exported segment went to make room: the records wait no more
    recs, bad = log_of(fs)
    kept = [r for r, line in zip(GOOD_LOG, sealed(GOOD_LOG).splitlines()) if line in data]
    assert [r for r in recs if r in GOOD_LOG] == kept
    assert bad <= data.count(b"\n") + 2
    # records without a hash amid the chain (pads written by something else) are named
    check_new_records(recs, fs, name != "a log over the limit", outcome, over)
    tried("log files")


def check_new_records(recs, fs, chained, outcome, over=False):
    """The records written after the damage all read back whole, in order, at the end, and
    chain on from the last whole record before the damage. The first says what became of
    the open action: played again, or closed as lost. Over the log's soft limit only the
    records of play (store.KEPT) were logged, the others counted."""
    new = [r for r in recs if r.get("ms", 0) >= 10_000]
    if over:
        assert len(new) >= 2 and all(r["ev"] in KEPT for r in new)
    else:
        assert len(new) >= 3
        first = {"resumed": "resume", "refused": "end", "no action": "start"}[outcome]
        assert new[0]["ev"] == first and (first != "end" or new[0]["outcome"] == "lost")
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
            app.console.queue = []
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

    def __init__(self, data, endless=False, limit=200_000):
        self.data = data
        self.limit = limit  # reads in all: more means a pass that never ends
        self.i = 0
        self.reads = 0
        self.endless = endless
        self.r, self.w = os.pipe()
        os.write(self.w, b"!")

    def fileno(self):
        return self.r

    def read(self, n):
        self.reads += 1
        if self.reads > self.limit:
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


def console_model(data):
    """What the console makes of bytes: lines ended by CR or LF, only printable ASCII kept
    (a control byte, Ctrl-C with the key off, or a byte of a multi-byte character is
    dropped and the rest of the line stands), empty lines skipped, a line running past
    MAX_LINE refused with an error -> (lines, errors)."""
    lines, errors, buf, overlong = [], 0, "", False
    for ch in data.decode("latin-1"):
        if ch in "\r\n":
            if overlong:
                errors += 1
            elif buf:
                lines.append(buf)
            buf, overlong = "", False
        elif len(buf) >= MAX_LINE:
            overlong = True
        elif " " <= ch <= "~":
            buf += ch
    return lines, errors


def test_console_bad_bytes_and_overlong_lines():
    cases = [
        (b"show\n", ["show"]),
        (b"show\r\n", ["show"]),
        (b"\r\n\r\n\n", []),
        (b"x" * MAX_LINE + b"\n", ["x" * MAX_LINE]),
        (b"x" * (MAX_LINE + 1) + b"\nshow\n", ["show"]),
        (b"y" * 100000 + b"\nshow\n", ["show"]),
        (b"press \x00DRAW\nshow\n", ["press DRAW", "show"]),
        (b"\xff\xfe\xfd\n", []),
        (b"\x1b[A\x1b[B\nshow\n", ["[A[B", "show"]),
        (b"caf\xc3\xa9\n", ["caf"]),
        (b"show\x7f\n", ["show"]),
        (NOISE + b"\nshow\n", console_model(NOISE + b"\nshow\n")[0]),
        (b"\tshow\n", ["show"]),
        (b"press DRAW", []),            # no end of line yet: held back
    ]
    assert cases[11][1][-1] == "show" and len(cases[11][1]) > 2  # the noise made lines too
    for data, want in cases:
        s = Stream(data)
        replies = []
        con, got = reader(s, replies)
        for _ in range(len(data) + 2):   # one call per loop pass, until the input is read
            con.read()
            if s.i >= len(data):
                con.read()
                break
        s.close()
        assert got == want == console_model(data)[0], (data[:30], got)
        assert len(replies) == console_model(data)[1]
        assert all("error" in r for r in replies)
    tried("console inputs", len(cases))


def reader(stream, replies):
    """A Console reading `stream`: its replies (dicts) into `replies`, and the whole lines it
    reads into the list returned, as they come (the queue's own bound is tested apart)."""
    con = Console(None, stream)
    con.reply = replies.append
    got = []
    con.line = got.append
    return con, got


def test_console_returns_while_input_keeps_coming():
    """Console.read() reads a bounded amount a pass: a host sending faster than the loop
    reads cannot keep the loop from feeding the watchdog."""
    s = Stream(b"show\n", endless=True)
    con, lines = reader(s, [])
    try:
        con.read()
    finally:
        s.close()
    assert len(lines) <= 64


def test_the_protocol_queue_and_its_replies_are_bounded_while_a_wait_holds_the_queue():
    """While a `wait` holds the queue, the lines past its bound are refused, each with an
    error reply; the replies past theirs (a host that does not read) are counted, and the
    count is said with the next reply."""
    app, fs, board = boot(good_files())
    replies = []
    app.write = replies.append
    app.line("wait 600000")
    app.loop_pass(20_000)
    for i in range(10000):
        app.line("show")
    assert len(app.console.queue) == MAX_QUEUE and len(app.console.replies) == protocol.MAX_REPLIES
    app.loop_pass(20_020)  # the pass's reveal writes them
    got = [json.loads(r) for r in replies]
    assert len(got) == protocol.MAX_REPLIES and all("busy" in r["error"] for r in got)
    assert app.console.dropped == 10000 - MAX_QUEUE - protocol.MAX_REPLIES
    del replies[:]
    app.line("show")
    app.loop_pass(20_040)
    assert [json.loads(r)["error"] for r in replies] == [
        "%d replies dropped: the host did not read" % (10000 - MAX_QUEUE - protocol.MAX_REPLIES),
        "busy: %d lines waiting, line ignored" % MAX_QUEUE]


class StuckHost:
    """The USB port as a laptop holds it open and never reads: a pipe no one reads (Linux's
    64 KB; poll says POLLOUT while it has room), its write end non-blocking. A write into a full port would wait on the board
    (up to 500 ms a write, ../shared/TOOLCHAIN.md): here it raises BlockingIOError, so a
    console that ever writes without the port's leave fails the test."""

    def __init__(self):
        self.r, self.w = os.pipe()
        os.set_blocking(self.w, False)
        self.written = 0

    def fileno(self):
        return self.w

    def write(self, text):
        self.written += os.write(self.w, text.encode())

    def close(self):
        os.close(self.r)
        os.close(self.w)


def test_a_host_that_holds_the_port_and_never_reads_stalls_nothing():
    """A laptop's attack: a host floods the console with lines and never reads a reply.
    The port fills; the console then writes nothing (never a write that would wait), the
    replies past the queue are dropped and counted, and meanwhile the buttons work, the
    timed draws come when due (R21) and every pass feeds the watchdog."""
    app, fs, board = boot(FakeFlash())
    board.watchdog(5000)
    app.controller.change("timed", True)
    app.controller.change("interval", 30)
    app.controller.change("needed", 9)             # no success ends it in two minutes
    host = StuckHost()
    lines = Stream(b"show\nlog\nshow\n", endless=True, limit=10 ** 7)
    try:
        app.listen(lines, host)
        t = 10_100
        board.buttons.push("DRAW")                 # set-up: the timed action starts
        for i in range(6000):                      # two minutes of 20 ms passes
            t += 20
            if i in (250, 400):
                board.buttons.push("DRAW")         # a draw by hand, and its card taken
            assert app.loop_pass(t)
        full = host.written
        for i in range(200):                       # the port stays full: nothing more goes
            t += 20
            assert app.loop_pass(t)
    finally:
        lines.close()
        host.close()
    assert full >= 16384 and host.written == full
    assert app.console.dropped > 1000
    assert board.wdt.feeds >= 6200
    draws = [r for r in app.store.read_log()[0] if r["ev"] == "draw"]
    assert [r["n"] for r in draws if not r["timed"]] == [1]      # the press worked
    timed = [r for r in draws if r["timed"]]
    assert len(timed) >= 3                         # 2 minutes at 30 s, the first after 35 s
    assert app.controller.action.draws >= 3


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
