"""fakeflash.FakeFlash, the store tests' flash: littlefs on a chip in RAM (littleflash) with a
test's conveniences: files as a dict, power cuts, a chip that refuses writes."""
import pytest

from fakeflash import FakeFlash, PowerCut


def test_fake_flash_lists_folders_and_commits_only_at_flush_and_close():
    fs = FakeFlash({"j000001/0": b"entry"})
    assert fs.flash == {"j000001/0": b"entry"}  # a folder's files as "folder/name"
    f = fs.open("a", "wb")
    assert fs.flash["a"] == b""              # created at open
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
    fs = FakeFlash(cut_at=2)
    f = fs.open("a", "wb")                   # program 1: the new file's entry
    f.write(b"data")                         # in littlefs' cache: no program
    with pytest.raises(PowerCut):
        f.close()                            # program 2: never happens
    with pytest.raises(PowerCut):
        fs.open("b", "wb")
    assert fs.reboot().flash == {"a": b""}
    assert not issubclass(PowerCut, Exception)  # no `except Exception` swallows it


def test_fake_flash_can_refuse_writes_and_still_read():
    fs = FakeFlash({"a": b"old"})
    fs.failing = True
    for write in (lambda: fs.open("a", "wb"), lambda: fs.open("c", "ab"),
                  lambda: fs.rename("a", "b"), lambda: fs.remove("a"), lambda: fs.mkdir("d")):
        with pytest.raises(OSError) as e:
            write()
        assert e.value.errno == 5  # EIO, as a worn-out chip would say
    assert fs.read_file("a") == b"old" and fs.flash == {"a": b"old"}
    fs.failing = False
    fs.write_file("a", b"new")
    assert fs.reboot().flash == {"a": b"new"}


def test_fake_flash_refuses_the_writes_of_files_opened_before_it_failed():
    fs = FakeFlash({"a": b"old", "b": b""})
    log, slot = fs.open("a", "ab"), fs.open("b", "wb")
    log.write(b" and more")
    fs.failing = True
    for f in (log, slot):
        for step in (lambda: f.write(b"x"), f.close):
            with pytest.raises(OSError) as e:
                step()
            assert e.value.errno == 5
    fs.failing = False
    assert fs.reboot().flash == {"a": b"old", "b": b""}  # none of it committed
