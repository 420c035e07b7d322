"""littleflash.py under power cuts: a cut at every prog and erase of a scripted sequence, in
every mode, leaves each file old or new (and the recorded cuts are what a real cut leaves);
a rename across folders cut half way hides a name until the first change after power-on."""
import hashlib

import pytest

from fakeflash import FakeFlash
from littleflash import LittleFlash, PowerCut, get, put


# -- power cuts at every operation of a scripted sequence ----------------------------------------
OLD = {"s.json": b'{"v":1}', "d/log": b"line 0\n" * 90, "d/a": b"a old", "d/gone": b"bye"}
LINE1, LINE2 = b"line 1\n", b"line 2\n"
NEW_S, NEW_A, BIG = b'{"v":2,"x":"' + b"y" * 100 + b'"}', b"a new", bytes(range(256)) * 8


def scenario(fs):
    """A settings save (tmp + rename), an append flushed twice, a rewrite in place, a new
    large file, a removal."""
    with fs.open("s.json.tmp", "wb") as f:
        f.write(NEW_S)
    fs.rename("s.json.tmp", "s.json")
    with fs.open("d/log", "ab") as f:
        f.write(LINE1)
        f.flush()
        f.write(LINE2)
    with fs.open("d/a", "w") as f:
        f.write(NEW_A.decode())
    with fs.open("d/big", "wb") as f:
        f.write(BIG)
    fs.remove("d/gone")


def progress(fs):
    """How many of the scenario's steps the files show done, checking that every file holds
    an old or a new version and that no step shows done after one that does not."""
    names = set(fs.listdir()) | {"d/" + n for n in fs.listdir("d")}
    files = {n: get(fs, n) for n in names if n != "d"}
    assert files.pop("s.json.tmp", b"") in (b"", NEW_S)
    assert files.pop("d/big", b"") in (b"", BIG)
    assert files["s.json"] in (OLD["s.json"], NEW_S)
    assert files["d/log"] in (OLD["d/log"], OLD["d/log"] + LINE1, OLD["d/log"] + LINE1 + LINE2)
    assert files["d/a"] in (OLD["d/a"], NEW_A)
    assert files.get("d/gone", OLD["d/gone"]) == OLD["d/gone"]
    assert set(files) <= set(OLD)
    done = [files["s.json"] == NEW_S, files["d/log"] != OLD["d/log"],
            files["d/log"].endswith(LINE2), files["d/a"] == NEW_A,
            "d/big" in names and get(fs, "d/big") == BIG, "d/gone" not in files]
    assert done == sorted(done, reverse=True), done  # the steps done are a prefix
    return sum(done)


@pytest.fixture(scope="module", params=[0, 6, 8])
def start(request):
    """The image the scenario starts from (mounted afresh for each run: the same run), with
    `param` rewrites before it: with 6 and 8, the folder's metadata block compacts (is erased
    and written again) late and early in the scenario."""
    fs = LittleFlash()
    fs.mkdir("d")
    for name, data in OLD.items():
        put(fs, name, data)
    for _ in range(request.param):
        put(fs, "d/a", OLD["d/a"])
    return bytes(fs.chip.data)


def test_every_cut_in_every_mode_leaves_each_file_old_or_new(start):
    fs = LittleFlash(start)
    fs.chip.record()
    scenario(fs)
    seen = set()
    for n, mode, image in fs.chip.cuts():
        booted = LittleFlash.from_image(image)
        seen.add(progress(booted))
        put(booted, "s.json", b"after the boot")  # and it still works
        assert get(booted.reboot(), "s.json") == b"after the boot"
    assert seen == set(range(7))  # cuts before, between and after all six steps


def test_recorded_cuts_are_what_a_real_cut_leaves(start):
    """Every one here (the scenario is short); a long one would replay a sample."""
    fs = LittleFlash(start)
    fs.chip.record()
    scenario(fs)
    images = {(n, mode): hashlib.sha256(image).digest() for n, mode, image in fs.chip.cuts()}
    for n, mode in images:
        cut = LittleFlash(start, cut_at=n, torn=mode)
        with pytest.raises(PowerCut):
            scenario(cut)
        assert cut.chip.refused == 0  # littlefs stopped at the cut
        assert hashlib.sha256(cut.chip.data).digest() == images[n, mode], (n, mode)


def test_a_rename_across_folders_cut_half_way_hides_a_name_until_the_first_change():
    """What flashfs.settle is for: moving a folder into another is two commits (the
    new folder's entry, then the old one's removal); cut between them, littlefs lists the
    folder it left without the moved name AND the name after it, until its first change
    after power-on finishes the move. Removing a name that is not there is such a change."""
    fs = FakeFlash({"a/0": b"x", "b/0": b"y", "c": b"z"})
    fs.mkdir("into")
    fs = fs.reboot()
    fs.chip.arm(2, "before")        # the first commit done, the second not
    with pytest.raises(PowerCut):
        fs.rename("a", "into/a")
    fs = fs.reboot()
    assert sorted(fs.listdir("")) == ["c", "into"]          # "b" is missing too
    with pytest.raises(OSError):
        fs.remove("nothing here")
    assert sorted(fs.listdir("")) == ["b", "c", "into"] and fs.listdir("into") == ["a"]
    assert fs.read_file("b/0") == b"y" and fs.read_file("into/a/0") == b"x"
