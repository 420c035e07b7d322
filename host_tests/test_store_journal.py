"""journal.py: what a pass changed, one entry on flash before the pass shows it (one page, no
erase), its records packed by the journal's own table (PACKED) only when their fields are
exactly their kind's; entries read back whole or counted as damage; the journal's RAM and
folders bounded."""
import json
import re

import pytest
from hypothesis import given, strategies as st

from carddraw import config
from carddraw.journal import DIR as J, FOLDERS_MOST, KEPT_MOST, SLOTS
from carddraw.logexport import ack
from carddraw.records import PACKED
from carddraw.store import Store
from fakeflash import FakeFlash
from storekit import (ACTION, FAST, GOOD, LOG, LOG1, RANDOM, SETTINGS, boot, chain_ok,
                      entries_on, opened, segments, valid_settings)
from storelog import last, read_log


def test_a_pass_costs_one_page_and_no_erase():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.commit([{"ev": "start", "skill": "scan"}], config.defaults(), "d")
    while s.housekeep():  # idle passes: the next folder made ready, the records moved on
        pass
    draw = {"ev": "draw", "n": 1, "card": "green", "deck": [3, 1, 0, 0], "timed": False}
    with fs.chip.counting() as c:
        assert s.commit([draw], config.defaults(), "")
    assert (c.progs, c.pages, c.erases) == (1, 1, 0)


def test_open_action_gives_the_last_actions_records_from_its_start_and_the_hint():
    first = [{"ev": "start", "ms": 1, "skill": "scan"}, {"ev": "draw", "n": 1},
             {"ev": "end", "outcome": "failed"}]
    second = [{"ev": "start", "ms": 9, "skill": "repair"}, {"ev": "draw", "n": 1}]
    fs = FakeFlash()
    s = Store(fs=fs)
    assert opened(s) == (None, "")
    assert s.commit(first[:1], hint="d") and s.commit(first[1:], hint="ds")
    assert opened(Store(fs=fs.reboot())) == (first, "ds")
    assert s.commit([{"ev": "settings", "ranks": 2}], hint="x")
    # set-up ("x", in the entry with the records): the action put away, its records not read
    assert opened(Store(fs=fs.reboot())) == (None, "x")
    assert s.commit(second[:1], hint="d") and s.commit(second[1:], hint="")
    assert opened(Store(fs=fs.reboot())) == (second, "")
    while s.housekeep():
        pass
    assert opened(Store(fs=fs.reboot())) == (second, "")
    # before any idle pass the records are in the journal only: open_action streams them
    # from there, moving nothing
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.commit(second[:1], hint="d") and s.commit(second[1:], hint="")
    assert segments(fs) == [] and opened(Store(fs=fs.reboot())) == (second, "")
    assert segments(fs) == []


DAMAGED_ENTRIES = {
    "truncated": lambda text: text[:len(text) // 2],
    "not json": lambda text: b"\x00\xff" + text,
    "header only": lambda text: re.sub(rb',"r":\[.*\]', b"", text),  # the records left out
    "a record more than the header says": lambda text: text + b'{"ev":"extra"}\n',
    "count not a number": lambda text: text.replace(b'"n":2', b'"n":"2"'),
    "header only, count below zero":
        lambda text: text.split(b"\n")[0].replace(b'"n":2', b'"n":-1') + b"\n",
    "number not a number": lambda text: text.replace(b'"j":2', b'"j":2.5'),
    "a record not an object": lambda text: text.replace(b'{"ev":"draw","n":2}', b'[2]'),
    "an overlong line": lambda text: text.replace(b'"n":2}', b'"n":2,"pad":"%s"}' % (b"x" * 2000)),
    "random bytes": lambda text: RANDOM[:300],
    "missing": None,
}


@pytest.mark.parametrize("name", sorted(DAMAGED_ENTRIES))
def test_a_damaged_journal_entry_is_skipped_counted_and_no_record_after_it_is_repeated(name):
    """Damage littlefs cannot make by itself (it commits a file whole or not at all): an
    entry spoilt on the chip. Its records are lost and said so (a damage record, a notice,
    a {"ev": "lost"} record in each of their seqs, so the chain holds); the entries around it
    keep theirs, each record in the log once, however many boots and idle passes follow."""
    fs = FakeFlash()
    s = Store(fs=fs)
    for i in range(1, 4):
        assert s.commit([{"ev": "draw", "n": i}, {"ev": "accept", "n": i}], hint="d")
    slot = J + "j000001/1"
    assert entries_on(fs)[slot].startswith(b'{"j":2,"q":3,"n":2')
    if DAMAGED_ENTRIES[name] is None:
        fs.remove(slot)
    else:
        fs.write_file(slot, DAMAGED_ENTRIES[name](fs.flash[slot]))
    s = Store(fs=fs.reboot())
    assert s.commit([{"ev": "draw", "n": 4}], hint="")
    assert s.take_notices() == ["log damaged"]  # found at the boot
    for _ in range(3):
        s = Store(fs=s.fs.reboot())
        for _ in range(12):
            s.housekeep()
    assert s.commit([{"ev": "draw", "n": 5}], hint="")
    s = Store(fs=s.fs.reboot())
    records, damaged = read_log(s)
    damage = {"ev": "damage", "file": LOG, "why": "1 bad lines"}
    plays = [r for r in records if r != damage]
    assert plays == [{"ev": "draw", "n": 1}, {"ev": "accept", "n": 1},
                     {"ev": "lost"}, {"ev": "lost"},  # in the lost entry's seqs
                     {"ev": "draw", "n": 3}, {"ev": "accept", "n": 3},
                     {"ev": "draw", "n": 4}, {"ev": "draw", "n": 5}]
    assert damage in records and damaged == 0
    assert chain_ok(s) and opened(s)[1] == ""


def test_a_pass_with_many_records_survives_a_power_cut_before_the_idle_passes():
    """A bench line burst runs in one pass: one entry of many records (and of records over
    a log line's size) must read back whole after a reboot."""
    fs = FakeFlash()
    s = Store(fs=fs)
    many = [{"ev": "draw", "n": i, "pad": "p" * 120} for i in range(40)]
    huge = {"ev": "huge", "data": "x" * 3000}
    assert s.commit(many + [huge], hint="d")
    assert max(len(v) for v in fs.flash.values()) > 4096  # one entry, many pages
    s = Store(fs=fs.reboot())
    records, damaged = read_log(s)
    assert records == many + [{"ev": "too long", "was": "huge"}] and damaged == 0
    assert s.take_notices() == [] and chain_ok(s) and opened(s)[1] == "d"


ENTRY = b'{"j":1,"q":1,"n":1,"p":"d","s":{"ranks":5}}\n{"ev":"draw","n":1}\n'


@FAST
@given(st.text(max_size=12), st.dictionaries(st.sampled_from(["ranks", "helpers"]),
                                             st.integers(1, 4), max_size=2))
def test_an_entrys_header_reads_back_whatever_its_hint(hint, changed):
    """An entry's header holds the play's hint (a few letters, but any text reads back as it
    was: quotes, a backslash, none) and the settings the pass changed, no others."""
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.save_settings(GOOD)
    assert s.commit([{"ev": "draw", "n": 1}], dict(GOOD, **changed), hint)
    [entry] = entries_on(fs).values()
    head = json.loads(entry.split(b"\n")[0])
    assert head["p"] == hint and head.get("s", {}) == {k: v for k, v in changed.items()
                                                       if GOOD[k] != v}
    s = Store(fs=fs.reboot())
    assert s.load_settings()[0] == dict(GOOD, **changed) and opened(s)[1] == hint


ENDING = [  # a draw whose pass also accepts the card (no redraw left) and ends the action
    {"ev": "draw", "ms": 266320, "n": 8, "card": "green", "deck": [4, 1, 3, 0], "timed": False},
    {"ev": "accept", "ms": 266320, "n": 8, "card": "green", "deck": [3, 1, 3, 0],
     "state": "succeeded", "successes": 3, "complications": 1},
    {"ev": "end", "ms": 266320, "outcome": "succeeded", "successes": 3, "needed": 3,
     "complications": 1, "draws": 8}]


def test_a_draw_that_ends_the_action_is_one_page_its_records_packed():
    """The draw, the acceptance and the end in one entry: 327 B as objects, two pages; packed
    (arrays of their values), one. They read back as the objects they were, and the log's
    lines are objects."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    assert s.commit([{"ev": "chain", "ms": 1}], None, "")
    while s.housekeep():
        pass
    with fs.chip.counting() as c:
        assert s.commit([dict(r) for r in ENDING], None, "f")
    assert (c.pages, c.erases) == (1, 0)
    newest = max(entries_on(fs).items())[1]
    assert newest.count(b"\n") == 1          # one line: the header holds its records
    assert [r[0] for r in json.loads(newest)["r"]] == ["draw", "accept", "end"]
    s = Store(fs=fs.reboot())
    assert opened(s)[1] == "f"
    assert s.flush()
    records = read_log(s)[0]
    assert records[-3:] == ENDING and chain_ok(s)
    assert all(line.startswith('{"ev"') for line in read_log(s, raw=True)[0][-3:])


def test_an_entry_of_records_as_objects_reads_as_before():
    """Older firmware wrote every record as an object (and so does this one, for a record
    whose fields are not PACKED's): each reads back as written."""
    head = {"j": 1, "q": 1, "n": 4, "p": "d"}
    odd = [dict(ENDING[0], seeded=True), {"ev": "draw", "n": 1}, {"ev": "damage", "why": "x"}]
    lines = [json.dumps(x) for x in [head] + ENDING[:1] + odd]
    fs = FakeFlash({J + "j000001/%d" % i: ("\n".join(lines) + "\n").encode() if i == 0 else b""
                    for i in range(SLOTS)})
    s = Store(fs=fs)
    s.load_settings()
    assert opened(s)[1] == "d" and s.flush()
    assert read_log(s)[0][-4:] == ENDING[:1] + odd
    s.commit(odd + ENDING, None, "d")
    newest = max(entries_on(fs).items())[1]
    kinds = [type(r).__name__ for r in json.loads(newest)["r"]]
    assert kinds == ["dict"] * 3 + ["list"] * 3


def test_an_entry_too_long_for_a_line_goes_a_record_a_line_and_reads_back():
    """An entry whose one line would pass LINE_MAX (the catch-up of many passes, a long
    record) is written as an older firmware wrote them all: the header, then a record a
    line; it reads back as committed."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    records = [{"ev": "bench", "ms": i, "note": "%02d" % i + "x" * 58} for i in range(24)]  # 1.9 KB
    assert s.commit([dict(r) for r in records], None, "")
    newest = max(entries_on(fs).items())[1]
    lines = newest.split(b"\n")[:-1]
    assert len(lines) == 1 + len(records) and "r" not in json.loads(lines[0])
    s = Store(fs=fs.reboot())
    assert s.flush()
    assert read_log(s)[0][-len(records):] == records and chain_ok(s)


@FAST
@given(st.lists(st.fixed_dictionaries(
    {"ev": st.sampled_from(sorted(PACKED) + ["bench"])},
    optional={"ms": st.integers(0, 2 ** 31), "n": st.integers(-1, 99), "card": st.text(max_size=6),
              "deck": st.lists(st.integers(0, 99), max_size=4), "timed": st.booleans(),
              "state": st.text(max_size=4), "x": st.none() | st.floats(allow_nan=False)}),
    min_size=1, max_size=3),
    st.booleans())
def test_any_record_reads_back_from_the_journal_as_it_was(records, whole):
    """Records with PACKED's fields (whole: all of an event's fields, packed) or others (kept
    as objects), any values: each reads back from flash equal to what was committed."""
    if whole:
        records = [dict({"ev": r["ev"]}, **{k: r.get(k, k) for k in PACKED.get(r["ev"], ())})
                   if r["ev"] in PACKED else r for r in records]
    but_ms = [{k: v for k, v in r.items() if k != "ms"} for r in records]
    records = [r for i, r in enumerate(records) if not i or but_ms[i] != but_ms[i - 1]]
    fs = FakeFlash()  # (records alike but for "ms" in a row are counted: repeats, not here)
    s = Store(fs=fs)
    s.load_settings()
    assert s.commit([dict(r) for r in records], None, "h")
    s = Store(fs=fs.reboot())
    assert opened(s)[1] == "h" and s.flush()
    assert read_log(s)[0][-len(records):] == records


@FAST
@given(st.binary(max_size=3000), st.integers(0, len(ENTRY)))
def test_random_bytes_as_a_journal_entry(raw, at):
    """An entry spoilt anywhere (random bytes, or the good entry cut or spliced with them):
    read whole or counted as damage, never raised, and the store goes on."""
    entry = ENTRY[:at] + raw if at % 2 else raw[:at] + ENTRY
    fs = FakeFlash({J + "j000001/%d" % i: entry if i == 0 else b"" for i in range(SLOTS)})
    s = Store(fs=fs)
    settings, notice = s.load_settings()
    records, hint = opened(s)
    assert valid_settings(settings) and notice is None and records is None
    logged, damaged = read_log(s)
    assert isinstance(hint, str) and damaged == 0
    assert logged == [{"ev": "draw", "n": 1}] or {"ev": "damage", "file": LOG,
                                                    "why": "1 bad lines"} in logged or not raw
    assert s.commit([{"ev": "ok"}], GOOD, "d")
    s = Store(fs=fs.reboot())
    assert s.load_settings() == (GOOD, None) and opened(s)[1] == "d"
    assert {"ev": "ok"} in read_log(s)[0]


@FAST
@given(st.binary(max_size=2000), st.binary(max_size=2000))
def test_random_bytes_everywhere_then_the_store_still_works(a, b):
    fs = FakeFlash({SETTINGS: a, ACTION: b, LOG: a + b, LOG1: b, "j000001/0": a,
                    "j000001/1": b, "j000002.tmp/0": a, J + "j000003/0": b,  # older firmware's
                    J + "j000003/j000004.tmp/1": a, J + "j000005.tmp/0": b})  # and this one's
    s, settings, _, _, _, _ = boot(fs)
    assert valid_settings(settings)
    assert s.commit([{"ev": "ok"}], GOOD, "df")
    s2, settings, n1, hint, records, _ = boot(fs.reboot())
    assert (settings, n1, hint) == (GOOD, None, "df")
    assert {"ev": "ok"} in records and ACTION not in s2.fs.flash



def test_a_record_with_a_field_more_or_less_than_its_kinds_goes_as_an_object():
    """Only a record whose fields are exactly its kind's in PACKED is packed: one with a
    field added (the controller's, a seeded device's) or one missing goes as an object and
    reads back as it was, so no field added anywhere makes an entry unreadable."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    draw = dict(ENDING[0])
    more = dict(draw, seeded=True)
    less = {k: v for k, v in draw.items() if k != "timed"}
    assert s.commit([dict(draw), dict(more), dict(less)], None, "d")
    packed = json.loads(max(entries_on(fs).items())[1])["r"]
    assert [type(r).__name__ for r in packed] == ["list", "dict", "dict"]
    s = Store(fs=fs.reboot())
    assert s.flush() and read_log(s)[0][-3:] == [draw, more, less]


def test_the_journal_keeps_a_bounded_number_of_records_in_ram_and_reads_the_rest_again():
    """Records wait in the journal for the log; RAM keeps at most KEPT_MOST of them (the
    rest are read again from their slots when moved), whatever the passes wrote."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    sent = [{"ev": "bench", "ms": i, "n": i} for i in range(3 * KEPT_MOST)]
    for i in range(0, len(sent), 8):  # passes answering presses, no idle pass between
        assert s.commit([dict(r) for r in sent[i:i + 8]], None, "d")
        assert s.journal.kept <= KEPT_MOST
    held = sum(len(e.records) for e in s.journal.entries if e.records is not None)
    assert held == s.journal.kept <= KEPT_MOST
    assert s.flush() and s.journal.kept == 0
    assert read_log(s)[0] == sent and chain_ok(s)


def test_a_journal_at_its_most_with_the_log_full_refuses_and_says_why():
    """While the log is full of records not exported, the journal holds what passes commit,
    up to FOLDERS_MOST folders: then a commit is refused (False, "log full: export"), never
    raised; once the bench acknowledged an export, the records go on."""
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=4000)
    s.load_settings()
    n = 0
    while not s.logfile.full:   # play's records fill the log
        assert s.commit([{"ev": "draw", "ms": n, "n": n}], None, "d")
        s.housekeep()
        n += 1
    took = 0
    while s.commit([{"ev": "draw", "ms": n + took, "n": n + took}], None, "d"):
        took += 1
        assert took < FOLDERS_MOST * SLOTS + 1
    assert took >= (FOLDERS_MOST - 2) * SLOTS and len(s.journal.folders) <= FOLDERS_MOST
    assert "log full: export" in s.take_notices() and s.waiting() == 1
    assert ack(s, *last(s)) is None
    assert s.commit([], None, "d") and s.waiting() == 0 and s.flush()
    draws = [r["n"] for r in read_log(Store(fs=fs.reboot(), log_limit=4000))[0]
             if r["ev"] == "draw"]
    assert draws[-took - 1:] == list(range(n, n + took + 1))
