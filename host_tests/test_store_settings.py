"""flashfs.SettingsFile and the store's settings: settings.json read capped and checked
(settings.check, the controller's own), the journal's changes over it, damage reported once
and repaired; written whole in one step as settings.json.tmp renamed over the old file, so a
power cut or a kill at any point leaves the old settings or the new on littlefs (the board),
on the host's folder (the simulator) and in the VM (the web app)."""
import json
import os

import pytest
from hypothesis import given, strategies as st

from carddraw import config
from carddraw.flashfs import OsFs
from carddraw.journal import DIR as J, SLOTS
from carddraw.settings import code_ok, hashed
from carddraw.store import Store
from fakeflash import FakeFlash, PowerCut
from storekit import (CODE, FAST, GOOD, KEPT, RANDOM, SETTINGS, damage_records, entries_on, opened,
                      valid_settings)
from storelog import read_log


def test_settings_changed_in_a_pass_come_from_the_journal_then_from_settings_json():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.save_settings(GOOD)
    assert s.commit([], dict(GOOD, ranks=7), "x")  # a pass that changed the ranks only
    [entry] = entries_on(fs).values()
    assert json.loads(entry.split(b"\n")[0])["s"] == {"ranks": 7}
    assert Store(fs=fs.reboot()).load_settings() == (dict(GOOD, ranks=7), None)
    assert json.loads(fs.flash[SETTINGS])["ranks"] == GOOD["ranks"]
    while s.housekeep():  # idle passes bring settings.json up to the journal
        pass
    assert json.loads(fs.flash[SETTINGS])["ranks"] == 7
    for i in range(12):   # the journal's folders come and go; the settings stay
        assert s.commit([{"ev": "draw", "n": i}], dict(GOOD, ranks=7), "d")
        while s.housekeep():
            pass
    assert J + "j000001/0" not in fs.flash
    assert Store(fs=fs.reboot()).load_settings() == (dict(GOOD, ranks=7), None)
    assert s.save_settings(GOOD)  # written whole: newer than every change the journal holds
    assert Store(fs=fs.reboot()).load_settings() == (GOOD, None)


@pytest.mark.parametrize("damage", ["a bad field", "a damaged journal entry", "none"])
def test_settings_in_the_journal_survive_a_boot_that_reports_damage_with_no_slot_free(damage):
    """Passes answering presses used the journal's last slot, then the power went: the
    boot's first commit (the damage record) catches up, bringing settings.json up to the
    journal. It must write the settings flash holds, not the defaults nor the file's."""
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.save_settings(GOOD)
    changed = dict(GOOD, ranks=7, lock=CODE)
    for i in range(SLOTS):  # passes with no idle pass between: every slot used, none ready
        assert s.commit([{"ev": "draw", "n": i}], changed if i == 1 else GOOD if i == 0
                        else changed, "d")
    assert s.journal.out_of_slots()
    if damage == "a bad field":
        fs.write_file(SETTINGS, json.dumps(dict(GOOD, j=0, brightness=99)).encode())
    elif damage == "a damaged journal entry":
        fs.write_file(J + "j000001/0", fs.flash[J + "j000001/0"][:20])
    want = dict(changed, brightness=config.defaults()["brightness"]) \
        if damage == "a bad field" else changed
    s = Store(fs=fs.reboot())
    settings, notice = s.load_settings()
    assert settings == want
    assert notice == ("settings fixed" if damage == "a bad field" else None)
    assert Store(fs=s.fs.reboot()).load_settings() == (want, None)
    s.flush()
    assert Store(fs=s.fs.reboot()).load_settings() == (want, None)


def test_the_journal_changes_apply_over_a_damaged_settings_file():
    fs = FakeFlash()
    s = Store(fs=fs)
    assert s.commit([], dict(config.defaults(), ranks=6), "x")
    fs.write_file(SETTINGS, b'{"ranks": 3, "sk')
    settings, notice = Store(fs=fs).load_settings()
    assert settings == dict(config.defaults(), ranks=6) and notice == "settings reset"
    assert Store(fs=fs.reboot()).load_settings() == (settings, None)


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


BROKEN_SETTINGS = dict(BROKEN_JSON, null=b"null")


@pytest.mark.parametrize("name", sorted(BROKEN_SETTINGS))
def test_broken_settings_file_gives_defaults_a_notice_and_a_damage_record(name):
    fs = FakeFlash({SETTINGS: BROKEN_SETTINGS[name]})
    settings, notice = Store(fs=fs).load_settings()
    assert settings == config.defaults()
    assert notice == "settings reset" and len(notice) <= 16
    [damage] = damage_records(fs, SETTINGS)
    assert damage["why"]
    assert Store(fs=fs).load_settings() == (config.defaults(), None)  # repaired: no nagging


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
    assert opened(s) == (None, "")
    assert s.take_notices() == []
    # the boot writes nothing (its first frame waits for no erase); the idle passes make the
    # three folders, then write the defaults, a step each, so that later ones only ever
    # rewrite the file
    assert list(fs.flash) == [] and fs.listdir("") == []
    for made in (["state"], ["log", "state"], ["journal", "log", "state"]):
        assert s.housekeep() and sorted(fs.listdir("")) == made and list(fs.flash) == []
    assert s.housekeep() and list(fs.flash) == [SETTINGS]
    assert read_log(s) == ([], 0)
    assert Store(fs=fs.reboot()).load_settings() == (config.defaults(), None)


def test_settings_saved_over_a_damaged_file_load_with_no_notice():
    fs = FakeFlash({SETTINGS: b"junk"})
    s = Store(fs=fs)
    assert s.save_settings(GOOD)  # a bench preparing a device
    assert s.load_settings() == (GOOD, None) and s.take_notices() == []
    assert Store(fs=fs.reboot()).load_settings() == (GOOD, None)


def test_settings_round_trip():
    fs = FakeFlash()
    assert Store(fs=fs).save_settings(GOOD)
    assert Store(fs=fs).load_settings() == (GOOD, None)
    assert sorted(fs.flash) == [SETTINGS]


@FAST
@given(st.binary(max_size=5000))
def test_random_bytes_as_settings(raw):
    fs = FakeFlash({SETTINGS: raw})
    settings, notice = Store(fs=fs).load_settings()
    assert valid_settings(settings)
    assert notice in (None, "settings fixed", "settings reset")
    assert bool(notice) == bool(damage_records(fs, SETTINGS))


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


ENTRY = b'{"j":1,"q":1,"n":1,"p":"d","s":{"ranks":5}}\n{"ev":"draw","n":1}\n'


def test_settings_json_is_written_whole_in_one_idle_step():
    """A pass's settings change goes into the journal; the idle step that brings
    settings.json up to it writes the file whole (its .tmp written, then renamed over it) in
    that one step, the .tmp made empty in the step before: no pass ends with a settings file
    half made, only with the old one beside an empty .tmp, or the new one."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    assert s.save_settings(dict(GOOD, ranks=2))
    for ranks in (3, 4, 5):
        assert s.commit([], dict(GOOD, ranks=ranks), "x")
        seen = []
        while s.housekeep():
            tmp = fs.flash.get(SETTINGS + ".tmp")
            got = json.loads(fs.flash[SETTINGS])["ranks"]
            assert tmp in (None, b"") and got in (ranks - 1, ranks)
            seen.append((tmp, got))
        assert (b"", ranks - 1) in seen and (None, ranks) in seen
        assert Store(fs=fs.reboot()).load_settings() == (dict(GOOD, ranks=ranks), None)


class Stopping(OsFs):
    """The host's filesystem (the simulator's folder), the process stopped at the `at`-th call
    that changes something (an open for writing, which on POSIX empties the file at once, a
    write, a close, a rename, a removal), as a kill or a power cut would: unbuffered, so what
    was written before is in the file and nothing after is."""

    def __init__(self, at):
        self.at = at

    def _tick(self):
        self.at -= 1
        if self.at == 0:
            raise PowerCut()

    def open(self, path, mode):
        if "r" in mode:
            return open(path, mode)
        self._tick()
        return _Stopping(self, open(path, mode, buffering=0))

    def rename(self, a, b):
        self._tick()
        OsFs.rename(a, b)  # os's own: not bound

    def remove(self, path):
        self._tick()
        OsFs.remove(path)


class _Stopping:
    def __init__(self, fs, f):
        self.fs, self.f = fs, f

    def write(self, data):
        self.fs._tick()
        return self.f.write(data)

    def close(self):
        self.fs._tick()
        self.f.close()


def test_a_kill_at_any_point_of_a_settings_write_on_the_hosts_folder_keeps_old_or_new(tmp_path):
    """The simulator keeps the device's files in a folder of the host: "wb" empties a file at
    its open there, so writing settings.json in place and being killed (or losing power)
    before the write gave the defaults at the next start. Written as a .tmp renamed over
    it, a stop at each of its calls leaves the old settings or the new."""
    old, new = dict(GOOD, ranks=2), dict(GOOD, ranks=6, referee=True)
    stops = 0
    for at in range(1, 20):
        root = str(tmp_path / ("f%d" % at)) + "/"
        os.mkdir(root)
        assert Store(root=root).save_settings(old)
        try:
            done = Store(root=root, fs=Stopping(at)).save_settings(new)
        except PowerCut:
            stops += 1
            done = False
        assert Store(root=root).load_settings() in ((old, None), (new, None)), at
        assert not [n for n in os.listdir(root + config.STATE_DIR) if n.endswith(".tmp")]
        if done:
            break
    assert stops >= 3 and Store(root=root).load_settings() == (new, None)
