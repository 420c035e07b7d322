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

Here the damaged files; bad protocol lines and console input: test_damaged_input_protocol.py;
button chatter in the VM: test_damaged_input_buttons.py; the healthy device: badinput.py.
"""
import json

import pytest

from carddraw import config, saved
from carddraw.logexport import ack
from carddraw.settings import check
from carddraw.store import KEPT
from carddraw.store import Store
from test_controller_fuzz import figure
from badinput import (ACTION, GOOD_ACTION, GOOD_LOG, GOOD_SETTINGS, LOG, LOG1, NOISE,
                      OLD_ACTION_FILE, SETTINGS, boot, go_on, good_files, log_of, logchain,
                      plain, resumed_or_refused, sealed, tried)
from storelog import last, read_log
from handheld import play_state


# -- damaged files ---------------------------------------------------------------------------
BROKEN_FILES = {
    "empty": b"",
    "one space": b" ",
    "newlines": b"\n\n\n",
    "truncated": json.dumps(GOOD_SETTINGS).encode()[:37],
    "truncated resume": OLD_ACTION_FILE[:-9],
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
    assert play_state(c) == GOOD_ACTION                       # the action came back
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
    data = OLD_ACTION_FILE if name == "a whole resume state" else BROKEN_FILES[name]
    app, fs, board = boot(good_files(action=data))
    assert play_state(app.controller) == GOOD_ACTION and app.face.notices == []
    assert ACTION not in fs.flash
    again, _, _ = boot(fs.reboot())
    assert play_state(again.controller) == GOOD_ACTION and again.face.notices == []
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
    assert play_state(app.controller) == GOOD_ACTION           # the log's records, no hint
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
        assert ack(app.store, *last(app.store)) is None  # the bench saved it
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
    read_log(Store(fs=fs.reboot()), lines.append, raw=True)
    ok, first_bad, why = logchain.verify(lines)
    assert ok if chained else (first_bad == len(GOOD_LOG) and "has no hash" in why), why
