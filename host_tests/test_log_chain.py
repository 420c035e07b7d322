"""The log: hash-chained records, segments dropped only once exported, floods merged,
records a refusing or full flash held back written in order when it recovers, the open action
found from the log's tail, older firmware's log migrated, what the chain costs.

On CPython with littlefs (fakeflash.py); the store's VM and mpy-cross checks are in
test_store.py, the log through the whole app in test_log_app.py. A pass's records go into the
journal (store.commit); idle passes, flush() and read_log() move them on into the log's segments.
"""
import json
import os
import random
import sys

from conftest import ROOT
from carddraw import config, logread
from carddraw.controller import Controller
from carddraw.logexport import ack
from carddraw.logfile import segment
from carddraw.logfile import OLDER_LOG
from carddraw.store import KEPT
from carddraw.store import Store
from fakeflash import FakeFlash
from storelog import last, read_log

sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import logchain  # noqa: E402

ACTION_RECORDS = [
    {"ev": "start", "ms": 10, "skill": "surgery", "deck": [5, 2, 1, 1], "chance": 0.41},
    {"ev": "draw", "ms": 20, "n": 1, "card": "black", "deck": [5, 2, 1, 1], "timed": False},
    {"ev": "accept", "ms": 30, "n": 1, "card": "black", "deck": [5, 2, 1, 0], "state": "failed"},
    {"ev": "end", "ms": 40, "outcome": "failed", "successes": 0, "needed": 2, "draws": 1},
]


def lines_of(store):
    out = []
    read_log(store, out.append, raw=True)
    return out


def a_log(n=12):
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=4000)
    for i in range(n):
        assert s.log({"ev": "draw", "ms": i, "n": i})
    return fs, s, lines_of(s)


# -- the hash chain (tools/logchain.py) --------------------------------------------------------
def test_a_fresh_log_verifies_and_every_line_ends_in_its_hash():
    fs, s, lines = a_log()
    assert logchain.verify(lines) == (True, None, "verified: 12 records, seq 1 to 12")
    for i, line in enumerate(lines):
        text, h = logchain.split(line)
        assert json.loads(text)["seq"] == i + 1 and line.endswith(',"h":"%s"}' % h)
    assert logchain.head(lines) == last(s)[1] and last(s)[0] == 12


def test_a_changed_record_is_named():
    lines = a_log()[2]
    lines[4] = lines[4].replace('"n":4', '"n":9')  # the hash left as it was
    assert logchain.verify(lines) == (False, 4, "record 5 (line 5) was changed (its hash does not match its text)")


def test_a_removed_record_is_named():
    lines = a_log()[2]
    del lines[6:8]
    assert logchain.verify(lines) == (False, 6, "2 records removed before record 9 (line 7) (seq 7 to 8 missing)")


def test_an_inserted_record_is_named():
    lines = a_log()[2]
    forged = logchain.seal("0" * 12, '{"ev":"draw","n":99,"seq":4}')[0]
    lines.insert(3, forged)
    ok, bad, why = logchain.verify(lines)
    assert (ok, bad) == (False, 3) and why == "record 4 (line 4) was inserted (the record after it chains from the one before it)"
    lines[3] = '{"ev":"draw","n":99}'
    assert logchain.verify(lines) == (False, 3, "line 4 has no hash: inserted or damaged")


def test_a_copied_record_is_named_as_inserted_and_the_last_cannot_hide_without_the_head():
    lines = a_log()[2]
    assert logchain.verify(lines[:5] + [lines[2]] + lines[5:])[:2] == (False, 5)
    # removing the newest records keeps a valid chain: the head kept beside an export shows it
    head = logchain.head(lines)
    assert logchain.verify(lines[:-1])[0] and logchain.head(lines[:-1]) != head


def test_verify_continues_from_a_given_previous_hash():
    lines = a_log()[2]
    prev = logchain.split(lines[5])[1]
    assert logchain.verify(lines[6:], prev)[0]
    assert logchain.verify(lines[7:], prev) == (
        False, 0, "record 8 (line 1) does not follow the given previous hash: records before it removed")


# -- segments, export, floods ------------------------------------------------------------------
def test_history_is_never_dropped_before_it_was_exported():
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=12_000)  # segments of 3,000 bytes, 3,000 kept for an action
    for r in ACTION_RECORDS:
        assert s.log(r)
    n = 0
    while not s.logfile.full:  # play's records (store.KEPT) fill the log to its limit ...
        assert s.log({"ev": "draw", "ms": n, "n": n})
        s.housekeep()  # (the idle passes between draws move them into the segments)
        n += 1
    assert s.take_notices() == ["log full: export"] and n > 100
    recs = read_log(s)[0]
    assert recs[:4] == ACTION_RECORDS  # the action is still there, whole
    # ... then they wait in the journal; the others are only counted
    for i in range(10):
        assert s.log({"ev": "settings", "ms": n + i, "ranks": i}) and "settings" not in KEPT
        assert s.log({"ev": "draw", "ms": n + i, "n": n + i})
        s.housekeep()
    assert s.logfile.full and not s.room_for_action() and not s.flush()
    # the bench saves the log and acknowledges: the oldest segments go, the waiting records
    # are written in order, then the count of the ones that could not wait
    last_seq, last_h = last(s)
    assert ack(s, last_seq, "0" * 12) == "record %d's hash is not 000000000000: export the log again" % last_seq
    assert ack(s, last_seq + 50, last_h).startswith("no record %d" % (last_seq + 50))
    assert ack(s, last_seq, last_h) is None
    assert not s.logfile.full and fs.flash[config.LOG_EXPORTED_FILE] == str(last_seq).encode()
    assert s.room_for_action() and s.flush()
    assert s.log({"ev": "battery", "percent": 12})
    recs = read_log(s)[0]
    waited = [r["n"] for r in recs if r["ev"] == "draw" and r["n"] >= n]
    assert waited == list(range(n, n + 10))
    assert recs[-2:] == [{"ev": "dropped", "n": 10}, {"ev": "battery", "percent": 12}]
    assert not any(r["ev"] == "settings" for r in recs)  # counted, never silent
    assert logchain.verify(lines_of(s))[0]


def test_2100_identical_seed_records_cannot_push_an_earlier_action_out():
    fs = FakeFlash()
    s = Store(fs=fs)  # the real limit
    for r in ACTION_RECORDS:
        s.log(r)
    for i in range(2100):
        s.log({"ev": "seed", "ms": 100 + i, "n": 1})
    s.log({"ev": "start", "ms": 9999, "skill": "scan"})
    recs = read_log(s)[0]
    assert recs[:4] == ACTION_RECORDS
    seeds = [r for r in recs if r["ev"] in ("seed", "repeat")]
    assert seeds[0] == {"ev": "seed", "ms": 100, "n": 1}
    assert 1 + sum(r["x"] for r in seeds[1:]) == 2100 and len(seeds) <= 10
    assert seeds[-1]["ms"] == 2199 and recs[-1]["ev"] == "start"
    # and on a small log the flood still costs only a few lines: no need to drop anything
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=2000)
    for r in ACTION_RECORDS:
        s.log(r)
    for i in range(2100):
        s.log({"ev": "seed", "ms": 100 + i, "n": 1})
    assert s.flush() and not s.logfile.full and read_log(s)[0][:4] == ACTION_RECORDS


def test_an_error_repeated_on_every_pass_costs_a_counter():
    s = Store(fs=FakeFlash())
    for i in range(600):
        s.log({"ev": "error", "ms": i * 20, "why": "OSError: 5"})
    s.log({"ev": "resume", "screen": "setup"})
    recs = read_log(s)[0]
    assert [r["ev"] for r in recs] == ["error", "repeat", "repeat", "repeat", "resume"]
    assert [r["x"] for r in recs[1:4]] == [256, 256, 87] and recs[3]["ms"] == 599 * 20


# -- flash failures ----------------------------------------------------------------------------
def test_records_the_flash_refused_wait_in_ram_and_are_written_in_order_when_it_recovers():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.log({"ev": "a"})
    fs.failing = True
    for i in range(config.LOG_QUEUE + 5):
        assert not s.log({"ev": "draw", "n": i})
    assert s.take_notices()[-1] == "flash error" and not s.flush()
    assert s.waiting() == config.LOG_QUEUE  # the first ones (an action's start among them)
    fs.failing = False
    assert s.commit([{"ev": "b"}])          # the next pass writes them, then the count
    assert s.waiting() == 0 and s.flush()
    recs = read_log(s)[0]
    assert [r.get("n") for r in recs[1:-2]] == list(range(config.LOG_QUEUE))
    assert recs[-2:] == [{"ev": "dropped", "n": 5}, {"ev": "b"}]
    assert logchain.verify(lines_of(s))[0]
    assert read_log(Store(fs=fs.reboot()))[0] == recs


def test_a_full_flash_is_retried_too():
    # a small chip, nearly full (the folders journal/, log/ and state/ take a block pair each)
    fs = FakeFlash({"filler": b"f" * 34 * 4096}, blocks=48)
    s = Store(fs=fs)
    logged = 0
    while s.log({"ev": "draw", "n": logged, "pad": "p" * 100}):
        s.housekeep()
        logged += 1
    assert "flash error" in s.take_notices() and 3 < logged < 300
    fs.remove("filler")  # room again (a file deleted, say)
    assert s.log({"ev": "after"})
    recs = read_log(s)[0]
    assert [r.get("n") for r in recs[:-1]] == list(range(logged + 1)) and recs[-1] == {"ev": "after"}
    assert logchain.verify(lines_of(s))[0]
    assert read_log(Store(fs=fs.reboot()))[0] == recs


# -- the open action, found from the log -------------------------------------------------------
def an_ended_action():
    """The records of an action played through the controller to its end."""
    c = Controller(dict(config.defaults(), needed=1), random.Random(2), 0)
    for t in range(100, 5000, 100):
        c.press("DRAW", t)
        if c.action is None or c.action.state != "active":
            break
    records = json.loads(json.dumps(c.take_log()))
    assert records[0]["ev"] == "start" and records[-1]["ev"] == "end"
    return records, c.hint()


def test_no_lost_action_when_the_last_action_ended_or_on_a_fresh_device():
    s = Store(fs=FakeFlash())
    assert s.open_action() == (None, "") and read_log(s) == ([], 0)  # fresh: no log at all
    fs = FakeFlash()
    s = Store(fs=fs)
    action, hint = an_ended_action()
    for r in action:
        assert s.commit([r], hint=hint)
    for i in range(300):  # the end far back: read backwards past a few chunks
        assert s.commit([{"ev": "settings", "ms": i, "ranks": i}], hint="x")
    store = Store(fs=fs.reboot())
    # set-up ("x", on flash with the records): the action put away is not read at boot
    assert store.open_action() == (None, "x")
    records = list(logread.last_action(store.logfile, store.journal))  # the stream, whole
    assert records[:len(action)] == action
    assert len(records) == len(action) + 300
    assert records[-1] == {"ev": "settings", "ms": 299, "ranks": 299}
    for replay in ((None, "x"), (records, "x")):
        c = Controller(config.defaults(), random.Random(1), 0, replay=replay)
        assert c.action is None and c.take_log() == [] and c.view().screen == "setup"


def test_the_open_action_is_found_reading_the_logs_tail_only():
    fs = FakeFlash()
    s = Store(fs=fs)
    for i in range(2000):
        s.commit([{"ev": "settings", "ms": i, "ranks": i % 9}], hint="x")
    for r in ACTION_RECORDS[:2]:
        s.commit([r], hint="")
    assert s.flush()
    whole, opened = Store(fs=fs.reboot()), Store(fs=fs.reboot())
    last(whole)   # each opened first: the segments' sizes, the log's tail, the journal
    last(opened)
    with whole.fs.chip.counting() as c:
        assert len(read_log(whole)[0]) == 2002
    with opened.fs.chip.counting() as o:
        records, hint = opened.open_action()
        assert (list(records), hint) == (ACTION_RECORDS[:2], "")
    assert o.read_bytes * 10 < c.read_bytes and o.progs == o.erases == 0


# -- older firmware's log ----------------------------------------------------------------------
def test_migration_survives_a_power_cut_at_every_step():
    old1 = b"".join(json.dumps({"ev": "draw", "n": i}).encode() + b"\n" for i in range(20))
    old = b"".join(json.dumps({"ev": "draw", "n": i}).encode() + b"\n" for i in range(20, 30))
    fs = FakeFlash({OLDER_LOG: old1, config.LOG_FILE: old})
    fs.chip.record()
    s = Store(fs=fs)
    assert s.log({"ev": "boot"}) and s.flush()  # the first boot of the new firmware
    total = 0
    for cut, mode, image in fs.chip.cuts():
        s = Store(fs=FakeFlash(image=image))
        recs = read_log(s)[0]
        ns = [r["n"] for r in recs if r["ev"] == "draw"]
        assert ns == list(range(30)), (cut, mode)  # every old record once, in order
        assert recs[30] == {"ev": "migrated", "records": 30, "damaged": 0}
        assert recs[31:] in ([], [{"ev": "boot"}]) and s.take_notices() == []
        assert logchain.verify(lines_of(s))[0], (cut, mode)
        total += 1
    assert total >= 3 * 6


# -- what the chain costs ----------------------------------------------------------------------
def test_seq_and_hash_cost_under_35_bytes_a_record():
    """Records of actions played through the controller (random presses), on flash with
    their seq and hash: under 35 bytes more a record than their JSON alone."""
    rng = random.Random(5)
    c = Controller(dict(config.defaults(), yellow=2, red=1, black=1, needed=3, ranks=3), rng, 0)
    records = []
    now = 0
    actions = 0
    for _ in range(20_000):
        if actions >= 200:
            break
        now += 700
        c.tick(now)
        c.press(rng.choice(("DRAW", "DRAW", "DRAW", "DRAW", "RANK", "HELP", "STOP")), now)
        for r in c.take_log():
            records.append(r)
            actions += r["ev"] == "start"
    fs = FakeFlash()
    s = Store(fs=fs)
    for r in records:
        s.log(r)
    assert s.flush()
    plain = sum(len(json.dumps(r, separators=(",", ":"))) + 1 for r in records)
    on_flash = sum(len(fs.flash[n]) for n in fs.flash if n.startswith(segment(0)[:8]))
    written = len(lines_of(s))
    assert actions >= 100 and written == len(records)
    assert on_flash / written - plain / len(records) < 35
