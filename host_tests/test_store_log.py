"""The log read back (logread.py) and its segments (logfile.py): damaged lines skipped and
counted, files read within a budget, segments by size, the export's lines; and what the log
takes (store.Room): repeats counted, over the soft limit only play's, the bench's and
damage's records written, a lock's refused tries never in the room held for an action."""
import json

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from carddraw import config, logread
from carddraw.logexport import ack
from carddraw.logfile import segment
from carddraw.logread import LINE_MAX, seal
from carddraw.store import KEPT
from carddraw.store import Store
from fakeflash import FakeFlash
from storekit import (ACTION, BAD_LINES, GOOD, LOG, LOG1, LOG_GOOD, RANDOM, SEG1, SETTINGS,
                      damage_records, opened, sealed_lines, segments)
from storelog import last, read_log


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_bad_log_line_is_skipped_counted_and_reported(name):
    lines = sealed_lines(LOG_GOOD)
    lines.insert(3, BAD_LINES[name])
    fs = FakeFlash({SEG1: b"\n".join(lines) + b"\n"})
    s = Store(fs=fs)
    records, damaged = read_log(s)
    assert records == LOG_GOOD and damaged == 1
    assert s.take_notices() == ["log damaged"]
    assert damage_records(fs, LOG) == [{"ev": "damage", "file": LOG, "why": "1 bad lines"}]
    assert read_log(s)[1] == 1 and s.take_notices() == []  # reported once


def test_a_torn_last_line_is_kept_apart_from_the_next_record():
    # cannot happen on littlefs, can on other filesystems: the next record must not join it
    fs = FakeFlash({SEG1: sealed_lines([{"ev": "draw", "n": 0}])[0] + b'\n{"ev":"dr'})
    s = Store(fs=fs)
    assert s.log({"ev": "boot"}) and s.flush()
    records, damaged = read_log(Store(fs=fs))
    assert records == [{"ev": "draw", "n": 0}, {"ev": "boot"}] and damaged == 1


def test_huge_log_files_are_read_within_a_budget():
    big = (json.dumps({"ev": "draw", "n": 1}) + "\n").encode() * 40000  # ~1 MB of good lines
    for content in (big, b"x" * (1 << 20), RANDOM * 350):
        # older firmware's files: each copied up to an eighth of the limit, the rest is damage
        fs = FakeFlash({LOG: content, LOG1: content[:300_000]})
        s = Store(fs=fs, log_limit=8192)
        records, damaged = read_log(s)
        assert len(records) <= 2 * (8192 // 8 + LINE_MAX) // 10 + 2
        assert s.take_notices() == ["log damaged"] and records[-1]["ev"] == "damage"
        # and logging still works: the copy fits in the new log
        assert s.log({"ev": "next"})
        assert read_log(Store(fs=fs, log_limit=8192))[0][-1] == {"ev": "next"}
        # a segment grown huge (not by the store) is read within the limit too
        fs = FakeFlash({SEG1: content})
        records, damaged = read_log(Store(fs=fs, log_limit=4096))
        assert damaged >= 1 and len(records) <= (4096 + LINE_MAX) // 10


def test_an_overlong_record_is_logged_as_too_long():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.log({"ev": "huge", "data": "x" * 2000})
    assert read_log(s) == ([{"ev": "too long", "was": "huge"}], 0)
    assert read_log(Store(fs=fs.reboot())) == ([{"ev": "too long", "was": "huge"}], 0)


def test_segments_start_by_size_and_are_named_by_their_first_record():
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=2000)  # segments of 500 bytes
    for i in range(30):
        assert s.log({"ev": "draw", "n": i})
        if i == 2:
            assert segments(fs) == []  # the passes' records wait in the journal ...
    assert s.flush()                   # ... until idle passes (or a reading) move them on
    names = segments(fs)
    assert len(names) >= 3 and all(len(fs.flash[n]) <= 500 for n in names)
    firsts = [json.loads(fs.flash[n].split(b"\n")[0])["seq"] for n in names]
    assert names == [segment(f) for f in firsts]
    assert [r["n"] for r in read_log(Store(fs=fs, log_limit=2000))[0]] == list(range(30))


def test_a_failing_flash_never_raises():
    fs = FakeFlash({SETTINGS: b"junk", ACTION: b"junk", LOG: b"junk\n" * 3})
    fs.failing = True  # every write refused (worn out); reads work
    s = Store(fs=fs)
    assert s.load_settings() == (config.defaults(), "settings reset")
    assert opened(s) == (None, "")
    assert read_log(s) == ([], 3)
    assert s.save_settings(GOOD) is False
    assert s.commit([{"ev": "x"}], GOOD, "d") is False and s.log({"ev": "y"}) is False
    assert s.housekeep() is False and s.flush() is False and ack(s, 1, "0" * 12)
    notices = s.take_notices()
    assert "flash error" in notices and len(notices) <= 8

@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["good", "blank", "junk", "long", "huge"]), max_size=12),
       st.booleans(), st.integers(1, 5))
def test_the_export_reads_a_segment_as_the_log_reads_it(kinds, torn, n):
    """each() a few lines at a time (the export's: a few lines a pass) hands out the very lines,
    and counts the very damage, that the log's reading does: blank lines skipped, junk and
    overlong lines counted, a torn last line kept if it is whole JSON."""
    fs = FakeFlash()
    s = Store(fs=fs)
    lines, prev = [], ""
    for i, kind in enumerate(kinds):
        if kind == "good":
            line, prev = seal(i + 1, prev, {"ev": "draw", "n": i, "pad": "x" * (i * 37 % 300)})
        else:
            line = {"blank": b"\n", "junk": b"{not json\n", "long": b"[" * (LINE_MAX - 1) + b"\n",
                    "huge": b"x" * (LINE_MAX + 300) + b"\n"}[kind]
        lines.append(line)
    data = b"".join(lines)
    if torn and data:
        data = data[:-1]
    with fs.open("seg", "wb") as f:
        f.write(data)
    want = []
    bad = logread.each(fs, "seg", want.append, raw=True)[0]
    got, at, damaged = [], 0, 0
    for _ in range(100):
        texts = []
        d, at = logread.each(fs, "seg", texts.append, True, 0, at, n)
        assert len(texts) <= n
        got += texts
        damaged += d
        if at is None:
            break
    assert at is None and got == want and damaged == bad


_FIELD = st.sampled_from(["ev", "ms", "n", "card"])
_RECORD = st.dictionaries(_FIELD, st.one_of(st.integers(0, 2), st.sampled_from(["x", "y"])),
                          max_size=4)


@given(_RECORD, _RECORD)
def test_records_are_repeats_when_equal_but_for_their_ms(a, b):
    """store._alike (a run of repeats is counted, not logged) compares without copying: the
    same answer as comparing copies with "ms" taken out, and neither record is changed."""
    from carddraw.store import _alike
    x, y = dict(a), dict(b)
    x.pop("ms", None)
    y.pop("ms", None)
    before = (dict(a), dict(b))
    assert _alike(a, b) == (x == y)
    assert (a, b) == before
    assert not _alike(a, None)


def test_log_files_and_each_give_the_export_every_line_as_on_flash():
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=4000)
    for i in range(40):
        assert s.log({"ev": "draw", "n": i, "pad": "p" * 30})
    assert s.flush()
    names = s.logfile.files()
    assert names == segments(fs) and len(names) >= 3
    lines = []
    for name in names:
        at = 0
        while at is not None:
            texts = []
            bad, at = logread.each(fs, name, texts.append, True, 0, at, 3)
            assert len(texts) <= 3 and bad == 0
            lines += texts
    assert lines == read_log(s, raw=True)[0]
    assert [json.loads(x)["seq"] for x in lines] == list(range(1, 41))


def lock(i):
    """A refused code try as a lock logged it (two kinds alternating: never repeats)."""
    return {"ev": "lock", "ms": i, "result": "wrong", "presses": 4 if i % 2 else 12}


def test_lock_records_past_the_soft_limit_are_counted_never_written_into_the_reserve():
    """Issue 34: refused code tries can never take the room held back for finishing the
    action in progress. Play fills the log past its soft limit (a record not play's is only
    counted from there); then 600 refused tries (and a run of identical ones) are counted
    as dropped, the log's room stays as it was, a new action may still start, and once the
    bench acknowledged an export the count is logged."""
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=8192, segment=2048)
    s.load_settings()
    n = 0
    while True:  # play's records until a probe that is not play's is only counted
        n += 1
        assert s.commit([{"ev": "draw", "ms": n, "n": n, "pad": "x" * 60}, {"ev": "probe", "n": n}])
        assert s.flush()
        if read_log(s)[0][-1] != {"ev": "probe", "n": n}:
            break
    assert "lock" not in KEPT and s.room_for_action()
    size = sum(len(v) for p, v in fs.flash.items() if p.startswith(config.LOG_DIR))
    for i in range(600):
        assert s.commit([lock(i)])
    for i in range(300):
        assert s.commit([dict(lock(0), ms=i)])
    assert s.flush() and s.room_for_action()
    assert sum(len(v) for p, v in fs.flash.items() if p.startswith(config.LOG_DIR)) == size
    records = read_log(s)[0]
    assert not [r for r in records if r["ev"] in ("lock", "repeat")]
    assert ack(s, *last(s)) is None
    assert s.commit([{"ev": "end", "ms": 1, "outcome": "stopped"}]) and s.flush()
    after = read_log(s)[0][len(records):]  # the count, the run's tail (room now), the end
    assert [r["ev"] for r in after] == ["dropped", "repeat", "end"]
    assert after[0]["n"] + after[1]["x"] == 600 + 300 + 1  # the tries, and the probe before


def test_play_the_bench_and_damage_still_take_the_reserve_and_a_full_log_refuses_no_end():
    """Over the soft limit play's records, the bench's and damage's are still written (the
    action in progress goes on to its end); once play fills the reserve, a new action is
    refused, the action's own records never are."""
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=8192, segment=2048)
    s.load_settings()
    n = 0
    while s.room_for_action():
        n += 1
        assert s.commit([{"ev": "draw", "ms": n, "n": n, "pad": "x" * 60}])
        s.flush()
    for ev in ("bench", "seed", "damage", "referee", "end"):
        assert s.commit([{"ev": ev, "ms": n}])
    assert not s.room_for_action()
    assert s.flush() or s.logfile.full
    evs = [r["ev"] for r in read_log(Store(fs=fs.reboot(), log_limit=8192))[0]]
    assert evs[-5:] == ["bench", "seed", "damage", "referee", "end"] or s.logfile.full
