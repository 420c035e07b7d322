"""migrate.py: an older firmware's layout of the flash moved to this one at boot (settings.json
and log.exported into state/, the journal's folders into journal/, the segments into log/,
the first firmware's log.jsonl copied into segment 1 with seqs and hashes, action.json and
half-made writes removed), each move a rename, so that a power cut at any operation of that
boot loses nothing; and migrate.py imported only when an older name is on flash."""
import json
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from carddraw import config
from carddraw.journal import DIR as J, SLOTS
from carddraw.logexport import ack
from carddraw.store import Store
from conftest import FIRMWARE
from fakeflash import FakeFlash
from storekit import (ACTION, BAD_LINES, FAST, GOOD, LIMIT, LOG, LOG1, LOG_GOOD, SEG1, SETTINGS,
                      as_older_firmware, chain_ok, distinct, opened, sealed, segments)
from storelog import last, read_log


def test_leftover_tmp_files_and_a_half_made_journal_folder_are_removed():
    fs = FakeFlash()
    s = Store(fs=fs)
    s.save_settings(dict(config.defaults(), ranks=5))
    assert s.commit([{"ev": "draw", "n": 1}], hint="d")
    kept = fs.flash
    fs.write_file(SETTINGS + ".tmp", b'{"ranks": 9')     # older firmware's saves cut short
    fs.write_file(ACTION + ".tmp", b"{}")
    fs.write_file(config.LOG_EXPORTED_FILE + ".tmp", b"7")
    fs.write_file("j000002.tmp/0", b"")                   # older firmware's, in the root
    fs.write_file("j000002.tmp/1", b'{"j":9,"q":9,"n":0,"p":"s"}\n')
    fs.write_file(J + "j000001/j000002.tmp/0", b"")       # the next, half made in the current
    fs.write_file(J + "j000009.tmp/1", b'{"j":9,"q":9,"n":0,"p":"s"}\n')  # one half removed
    s = Store(fs=fs)
    settings, notice = s.load_settings()
    assert settings["ranks"] == 5 and notice is None
    assert opened(s) == (None, "d") and s.take_notices() == []
    assert read_log(s) == ([{"ev": "draw", "n": 1}], 0)
    assert sorted(fs.flash) == sorted(set(kept) | set(segments(fs)))


def test_a_power_cut_while_the_boot_moves_an_older_firmwares_settings_loses_none_of_them():
    """Older firmware kept settings.json and log.exported in the root; the boot moves each
    into state/ by a rename. A cut at any of that boot's operations (three ways): the next
    boot has the same settings and export mark, each file in state/ and none in the root."""
    fs = FakeFlash()
    s = Store(fs=fs)
    s.load_settings()
    mine = dict(config.defaults(), ranks=4, helpers=2)
    assert s.save_settings(mine)
    for i in range(5):
        assert s.commit([{"ev": "draw", "n": i}], hint="d")
    assert s.flush() and ack(s, *last(s)) is None
    exported = s.logfile.exported
    as_older_firmware(fs)
    assert {"settings.json", "log.exported"} <= set(fs.listdir(""))
    fs = fs.reboot()
    fs.chip.record()
    s = Store(fs=fs)
    assert s.load_settings() == (mine, None)
    booted = 0
    for n, mode, image in distinct(fs.chip.cuts()):
        again = Store(fs=FakeFlash(image=image))
        assert again.load_settings() == (mine, None), (n, mode)
        assert again.logfile.exported == exported > 0, (n, mode)
        assert sorted(again.fs.listdir(config.STATE_DIR)) == ["log.exported", "settings.json"]
        assert not {"settings.json", "log.exported"} & set(again.fs.listdir(""))
        booted += 1
    assert booted > 5


def test_a_power_cut_while_the_boot_moves_an_older_firmwares_segments_loses_no_record():
    """Older firmware kept the log's segments in the root; the boot moves each into log/ by a
    rename (the root's compactions copied them all). A cut at any of that boot's operations
    (three ways): the next boot reads every record, in order, the chain whole, each segment
    in log/ and none in the root."""
    fs = FakeFlash()
    s = Store(fs=fs, log_limit=LIMIT, segment=LIMIT // 4)
    s.load_settings()
    for i in range(40):
        assert s.commit([{"ev": "draw", "n": i, "pad": "p" * 60}], hint="d")
    assert s.flush()
    logged = read_log(s)[0]
    assert len(segments(fs)) >= 3
    as_older_firmware(fs)
    assert sum(1 for n in fs.listdir("") if n.startswith("log.0")) >= 3
    fs = fs.reboot()
    fs.chip.record()
    s = Store(fs=fs, log_limit=LIMIT, segment=LIMIT // 4)
    assert read_log(s) == (logged, 0)
    booted = 0
    for n, mode, image in distinct(fs.chip.cuts()):
        again = Store(fs=FakeFlash(image=image), log_limit=LIMIT, segment=LIMIT // 4)
        assert read_log(again) == (logged, 0), (n, mode)
        assert chain_ok(again), (n, mode)
        assert not any(n.startswith("log.0") for n in again.fs.listdir("")), (n, mode)
        assert len(segments(again.fs)) >= 3
        booted += 1
    assert booted > 3


def test_an_older_firmwares_settings_in_the_root_replace_the_state_folders():
    """Settings in the root were written by an older firmware run after this one (flashed
    back, then forward again): they are the newer, and replace state/'s at boot. A file
    named as the state folder is not ours: removed, the folder made."""
    fs = FakeFlash({config.SETTINGS_FILE: json.dumps(dict(config.defaults(), ranks=2)).encode(),
                    "settings.json": json.dumps(dict(config.defaults(), ranks=5)).encode()})
    assert Store(fs=fs).load_settings() == (dict(config.defaults(), ranks=5), None)
    assert "settings.json" not in fs.listdir("")
    fs = FakeFlash({"state": b"not a folder"})
    assert Store(fs=fs).load_settings() == (config.defaults(), None)
    assert fs.stat("state")[0] & 0x4000 and fs.listdir("").count("state") == 1


def test_an_older_firmwares_journal_folders_in_the_root_are_moved_into_the_journal_folder():
    """Older firmware kept the journal's folders in the root; the boot moves them into
    journal/ (a cut half way: the rest at the next boot), their entries read as before."""
    fs = FakeFlash()
    s = Store(fs=fs)
    for i in range(1, SLOTS + 2):  # the first folder used up, an entry in the second
        assert s.commit([{"ev": "draw", "n": i}], hint="d%d" % i)
    folders = as_older_firmware(fs)
    assert len(folders) >= 2
    s = Store(fs=fs.reboot())
    assert opened(s)[1] == "d%d" % (SLOTS + 1)
    assert [n for n in s.fs.listdir("") if n.startswith("j0")] == []
    assert sorted(n for n in s.fs.listdir(J) if n.startswith("j")) == folders
    assert read_log(s)[0] == [{"ev": "draw", "n": i} for i in range(1, SLOTS + 2)]
    assert chain_ok(s)


def test_an_older_firmwares_four_slot_folders_are_read_whole_and_used_on():
    """Older firmware made folders of 4 slots in the root: every slot is read (the fourth
    too), the current folder's free slots are used, and a stray file or a half-made folder
    inside a folder (not ours) is removed, not taken for damage."""
    def entry(j, q):
        return b'{"j":%d,"q":%d,"n":1,"p":"d%d"}\n{"ev":"draw","n":%d}\n' % (j, q, j, q)
    files = {"j000001/%d" % i: entry(i + 1, i + 1) for i in range(4)}
    files.update({"j000002/0": entry(5, 5), "j000002/1": b"", "j000002/2": b"",
                  "j000002/3": b"", "j000002/x": b"stray", "j000002/j000003.tmp/0": b""})
    fs = FakeFlash(files)
    s = Store(fs=fs)
    assert opened(s)[1] == "d5" and s.take_notices() == []
    for q in (6, 7, 8):
        assert s.commit([{"ev": "draw", "n": q}], hint="e%d" % q)
    while s.housekeep():
        pass
    s = Store(fs=fs.reboot())
    assert read_log(s) == ([{"ev": "draw", "n": q} for q in range(1, 9)], 0)
    assert opened(s)[1] == "e8" and chain_ok(s)
    assert not [p for p in s.fs.flash if p.startswith("j0") or p.endswith(("/x", ".tmp/0"))]


def test_a_file_where_the_journal_folder_goes_is_replaced_by_the_folder():
    fs = FakeFlash({"journal": b"not ours", SETTINGS: json.dumps(GOOD).encode()})
    s = Store(fs=fs)
    assert s.load_settings() == (GOOD, None)
    assert s.commit([{"ev": "draw", "n": 1}], hint="d")
    s = Store(fs=fs.reboot())
    assert opened(s)[1] == "d" and read_log(s) == ([{"ev": "draw", "n": 1}], 0)
    assert s.fs.stat("journal")[0] == 0x4000


def test_a_power_cut_while_the_boot_moves_older_folders_loses_no_record():
    """The move into journal/ is a rename a folder: a cut at any of the boot's operations
    (each in three ways) leaves some folders in the root and some moved, and the next boot
    moves the rest and reads every entry, the newest hint with them."""
    fs = FakeFlash()
    s = Store(fs=fs)
    drawn = [{"ev": "draw", "n": i} for i in range(1, 2 * SLOTS + 2)]
    for i, record in enumerate(drawn):
        assert s.commit([record], hint="d%d" % i)
    as_older_firmware(fs)
    fs = fs.reboot()
    fs.chip.record()
    s = Store(fs=fs)
    s.load_settings()
    opened(s)
    booted = 0
    for n, mode, image in distinct(fs.chip.cuts()):
        again = Store(fs=FakeFlash(image=image))
        assert opened(again)[1] == "d%d" % (len(drawn) - 1), (n, mode)
        assert [r for r in read_log(again)[0] if r.get("ev") == "draw"] == drawn, (n, mode)
        assert chain_ok(again) and again.fs.listdir("").count("journal") == 1
        booted += 1
    assert booted > 20


def test_an_old_action_file_is_removed_at_boot_and_the_log_holds_the_action():
    # older firmware saved the action in action.json; now the log is its record
    start = {"ev": "start", "ms": 1, "skill": "scan"}
    fs = FakeFlash({ACTION: json.dumps({"v": 1, "action": {"skill": "repair"}}).encode(),
                    SEG1: sealed([start, {"ev": "draw", "n": 1}])})
    s = Store(fs=fs)
    assert s.load_settings() == (config.defaults(), None)
    assert opened(s) == ([start, {"ev": "draw", "n": 1}], "")
    assert ACTION not in fs.flash and s.take_notices() == []


@pytest.mark.parametrize("where", [LOG, LOG1])
@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_bad_line_in_older_firmwares_log_is_counted_when_it_is_migrated(name, where):
    lines = [json.dumps(r).encode() for r in LOG_GOOD]
    lines.insert(3, BAD_LINES[name])
    fs = FakeFlash({where: b"\n".join(lines) + b"\n"})
    s = Store(fs=fs)
    records, damaged = read_log(s)
    migrated = {"ev": "migrated", "records": 6, "damaged": 1}
    damage = {"ev": "damage", "file": LOG, "why": "1 bad lines"}
    assert records == LOG_GOOD + [migrated, damage] and damaged == 0
    assert s.take_notices() == ["log damaged"] and segments(fs) == [SEG1] and where not in fs.flash
    assert chain_ok(s)


@FAST
@given(st.lists(st.one_of(st.integers(0, 99), st.binary(max_size=300)), max_size=30))
def test_random_lines_in_the_log_lose_no_good_record(items):
    content = b"".join(json.dumps({"n": i}).encode() + b"\n" if isinstance(i, int) else i + b"\n"
                       for i in items)
    fs = FakeFlash({LOG: content})
    s = Store(fs=fs)
    records, damaged = read_log(s)  # older firmware's log: migrated, its damage counted once
    it = iter(records)
    assert all(any(r == {"n": i} for r in it) for i in items if isinstance(i, int))
    migrated = [r for r in records if r.get("ev") == "migrated"]
    assert len(migrated) == 1 and damaged == 0
    noise_lines = sum(i.count(b"\n") + 1 for i in items if isinstance(i, bytes))
    assert migrated[0]["damaged"] <= noise_lines
    assert s.take_notices() == (["log damaged"] if migrated[0]["damaged"] else [])



IMPORTED = """
import sys
sys.path.insert(0, %r)
sys.path.insert(0, %r)
from fakeflash import FakeFlash
from carddraw.store import Store
fs = FakeFlash(%r)
s = Store(fs=fs)
s.load_settings()
s.commit([{"ev": "draw", "n": 1}], None, "d")
while s.housekeep():
    pass
print("carddraw.migrate" in sys.modules)
"""


@pytest.mark.parametrize("files,imported", [
    ({}, False),
    ({"main.py": b"import app", "carddraw/app.mpy": b"M", "maint": b"maint"}, False),
    ({"settings.json": b"{}"}, True),
    ({"log.jsonl": b'{"ev": "x"}\n'}, True),
    ({"j000001/0": b""}, True),
])
def test_migrate_is_imported_only_when_an_older_name_is_on_flash(files, imported):
    """A boot of a device with this layout (or the board's own files beside it) never
    imports migrate.py; one with any older name does, once."""
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run([sys.executable, "-c", IMPORTED % (here, FIRMWARE, files)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == str(imported)
