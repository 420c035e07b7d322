"""littleflash.py: littlefs on a RAM chip with MicroPython's semantics, counts and power cuts.

What it costs on flash (the figures the store's design rests on) is asserted here too: a
rewrite of a small file is one page and no erase, an append to a file past 512 B (no longer
inline: a CTZ file) erases a 4 KB block every time, and how many 200-byte rewrites a new
folder's metadata block takes before it compacts. A cut at every step of a scripted sequence:
test_littleflash_cuts.py.
"""
import errno
import sys
from unittest import mock

import pytest
from littlefs import LittleFS, LittleFSError, UserContext

from flashchip import BLOCK, MODES, Flash, PowerCut
from littleflash import CONFIG, LittleFlash, get, put


def errno_of(fn, *args):
    with pytest.raises(OSError) as e:
        fn(*args)
    return e.value.errno


# -- littlefs-python itself -----------------------------------------------------------------------
def test_littlefs_python_drops_an_exception_raised_by_the_block_device():
    """Why the chip's callbacks return error codes: littlefs-python reports an exception from
    prog as "Exception ignored" and littlefs carries on writing as if the prog had worked.
    If this test fails, a newer littlefs-python propagates them."""
    class Raising(UserContext):
        progs_after = None

        def prog(self, cfg, block, off, data):
            if self.progs_after is not None:
                self.progs_after += 1
                raise PowerCut()
            return super().prog(cfg, block, off, data)

    ctx = Raising(BLOCK * CONFIG["block_count"])
    fs = LittleFS(ctx, **CONFIG)
    ctx.progs_after = 0
    dropped = []
    with mock.patch.object(sys, "unraisablehook", lambda u: dropped.append(u.exc_type)):
        try:
            with fs.open("f", "wb") as f:
                f.write(b"x" * 100)
        except LittleFSError:
            pass  # told the progs worked, littlefs reads back commits that are not there
    assert PowerCut in dropped
    assert ctx.progs_after > 1  # it went on after the first "cut"


# -- the chip ------------------------------------------------------------------------------------
def test_a_cut_is_the_nth_prog_or_erase_and_reads_do_not_count():
    flash = Flash()
    flash.log = []
    flash.arm(3)
    flash.prog(0, 0, b"\0" * 256)
    flash.read(0, 0, 32)
    flash.erase(1)
    with pytest.raises(PowerCut):
        flash.prog(0, 256, b"\0" * 256)
    assert flash.data[256:512] == b"\xff" * 256  # "before": the cut prog did not happen
    assert [op[0] for op in flash.log] == ["prog", "read", "erase", "prog"]
    counts = (flash.reads, flash.read_bytes, flash.progs, flash.pages, flash.erases)
    assert counts == (1, 32, 2, 2, 1)
    flash.reset_counts()
    assert (flash.reads, flash.progs, flash.erases) == (0, 0, 0)
    for op in (lambda: flash.read(0, 0, 32), lambda: flash.prog(2, 0, b"\0" * 256),
               lambda: flash.erase(2)):
        with pytest.raises(PowerCut):
            op()
    assert flash.refused == 2


@pytest.mark.parametrize("torn", MODES)
def test_what_a_cut_prog_leaves(torn):
    flash = Flash()
    flash.arm(1, torn)
    with pytest.raises(PowerCut):
        flash.prog(1, 256, b"\0" * 256)
    written = {"before": 0, "torn": 128, "after": 256}[torn]
    assert flash.data[BLOCK + 256:BLOCK + 512] == b"\0" * written + b"\xff" * (256 - written)


@pytest.mark.parametrize("torn", MODES)
def test_what_a_cut_erase_leaves(torn):
    flash = Flash()
    flash.prog(1, 0, b"\0" * BLOCK)
    flash.arm(1, torn)
    with pytest.raises(PowerCut):
        flash.erase(1)
    erased = {"before": 0, "torn": BLOCK // 2, "after": BLOCK}[torn]
    assert flash.data[BLOCK:2 * BLOCK] == b"\xff" * erased + b"\0" * (BLOCK - erased)


def test_a_power_cut_comes_out_of_littlefs_and_everything_after_it_raises():
    fs = LittleFlash()
    put(fs, "f", b"old")
    fs.chip.arm(1)
    f = fs.open("f", "wb")
    f.write(b"new")
    with pytest.raises(PowerCut):
        f.close()
    assert not isinstance(PowerCut(), Exception)
    assert fs.chip.refused == 0  # littlefs stopped at the refused prog
    left = bytes(fs.chip.data)
    for call in (lambda: fs.open("f", "rb"), lambda: fs.stat("f"), lambda: fs.listdir(),
                 lambda: fs.mkdir("d"), lambda: fs.rename("f", "g"), lambda: fs.remove("f"),
                 lambda: f.close(), lambda: f.write(b"x"), lambda: fs.chip.read(0, 0, 32)):
        with pytest.raises(PowerCut):
            call()
    assert fs.chip.data == left
    assert get(fs.reboot(), "f") == b"old"


# -- MicroPython's semantics ---------------------------------------------------------------------
def test_append_creates_a_missing_file_and_appends_to_an_existing_one():
    fs = LittleFlash()
    put(fs, "log", b"one\n", "ab")
    put(fs, "log", "two\n", "a")
    assert get(fs, "log") == b"one\ntwo\n"
    with fs.open("log", "ab") as f:
        f.write(b"three\n")
        assert f.tell() == 14  # append: the position is the end


def test_write_creates_or_truncates():
    fs = LittleFlash()
    put(fs, "f", b"a long first version")
    put(fs, "f", b"short")
    put(fs, "g", "text")
    assert (get(fs, "f"), get(fs, "g")) == (b"short", b"text")
    assert fs.stat("f")[0] == 0x8000 and fs.stat("f")[6] == 5


def test_missing_files_and_other_errors_are_oserrors_with_micropythons_errno():
    fs = LittleFlash()
    assert errno_of(fs.open, "nope", "rb") == errno.ENOENT
    assert errno_of(fs.open, "nope", "r") == errno.ENOENT
    assert errno_of(fs.stat, "nope") == errno.ENOENT
    assert errno_of(fs.remove, "nope") == errno.ENOENT
    assert errno_of(fs.rename, "nope", "other") == errno.ENOENT
    fs.mkdir("d")
    assert errno_of(fs.mkdir, "d") == errno.EEXIST
    assert errno_of(fs.open, "d", "rb") == errno.EISDIR
    assert errno_of(fs.open, "d/x/y", "wb") == errno.ENOENT


def test_a_full_flash_is_enospc():
    fs = LittleFlash()
    with fs.open("big", "wb") as f:
        with pytest.raises(OSError) as e:
            for _ in range(BLOCK * CONFIG["block_count"] // 1024 + 1):
                f.write(b"x" * 1024)
    assert e.value.errno == errno.ENOSPC


def test_a_smaller_chip_fills_sooner_and_keeps_its_size_across_a_reboot():
    fs = LittleFlash(blocks=16)
    assert len(fs.chip.data) == 16 * BLOCK
    with pytest.raises(OSError) as e:
        with fs.open("big", "wb") as f:
            for _ in range(16 * BLOCK // 1024 + 1):
                f.write(b"x" * 1024)
    assert e.value.errno == errno.ENOSPC
    put(fs, "small", b"kept")
    again = fs.reboot()
    assert len(again.chip.data) == 16 * BLOCK and get(again, "small") == b"kept"
    if "big" in again.listdir():  # created at open, its data never committed
        again.remove("big")
    put(again, "big", b"y" * 8 * BLOCK)
    assert again.stat("big")[6] == 8 * BLOCK


def test_rename_replaces_the_target():
    fs = LittleFlash()
    put(fs, "s.json", b"old")
    put(fs, "s.json.tmp", b"new")
    fs.rename("s.json.tmp", "s.json")
    assert get(fs, "s.json") == b"new"
    assert fs.listdir() == ["s.json"]


def test_folders():
    fs = LittleFlash()
    fs.mkdir("d")
    put(fs, "d/a", b"1")
    put(fs, "/d/b", b"2")
    put(fs, "top", b"3")
    assert sorted(fs.listdir("")) == sorted(fs.listdir("/")) == ["d", "top"]
    assert sorted(fs.listdir("d")) == sorted(fs.listdir("/d/")) == ["a", "b"]
    assert fs.stat("d")[0] == 0x4000
    assert errno_of(fs.rmdir, "d") == errno.ENOTEMPTY
    fs.remove("d/a")
    fs.remove("d/b")
    fs.rmdir("d")
    assert fs.listdir() == ["top"]


def test_file_objects():
    fs = LittleFlash()
    with fs.open("f", "wb") as f:
        assert f.write(b"first\nsecond line\nend") == 21
    with fs.open("f", "rb") as f:
        assert f.readline() == b"first\n"
        assert f.readline(4) == b"seco"
        assert f.readline() == b"nd line\n"
        assert f.readline() == b"end"
        assert f.readline() == b""
        f.seek(6)
        assert (f.read(6), f.tell()) == (b"second", 12)
        assert f.read() == b" line\nend"
    with fs.open("f", "r") as f:
        assert f.read(5) == "first" and f.readline() == "\n"
    f.close()  # twice is fine, as in MicroPython
    with pytest.raises(ValueError):
        f.read()


def test_contents_reach_flash_only_at_flush_or_close():
    def writing():
        fs = LittleFlash()
        put(fs, "small", b"old")
        put(fs, "big", b"o" * 3000)
        small, big = fs.open("small", "wb"), fs.open("big", "wb")
        small.write(b"new")
        big.write(b"n" * 3000)
        return fs, small, big

    fs, small, big = writing()
    assert fs.chip.progs > 0  # the big file's blocks went to flash, but not the file:
    assert (get(fs.reboot(), "small"), get(fs.reboot(), "big")) == (b"old", b"o" * 3000)
    with fs.chip.counting() as c:
        small.flush()
    assert get(fs.reboot(), "small") == b"new"
    ops = c.progs + c.erases

    fs, small, big = writing()
    fs.chip.arm(1, "before")
    with pytest.raises(PowerCut):
        small.flush()
    assert get(fs.reboot(), "small") == b"old"

    fs, small, big = writing()
    fs.chip.arm(ops, "after")  # the flush's last operation done: the commit
    with pytest.raises(PowerCut):
        small.flush()
    assert get(fs.reboot(), "small") == b"new"

    fs, small, big = writing()
    big.close()
    assert get(fs.reboot(), "big") == b"n" * 3000


# -- what operations cost ------------------------------------------------------------------------
@pytest.mark.parametrize("size, pages", [(1, 1), (100, 1), (200, 1), (232, 1), (233, 2)])
def test_rewriting_a_small_file_in_a_folder_is_one_page_and_no_erase(size, pages):
    """One commit: the data inline, its tag, the CRCs (24 B). On the board each commit also
    holds VfsLfs2's 12-byte mtime attribute, so one page up to 220 B there (worked out)."""
    fs = LittleFlash()
    fs.mkdir("d")
    put(fs, "d/f", b"x" * size)
    with fs.chip.counting() as c:
        put(fs, "d/f", b"z" * size)
    assert (c.progs, c.pages, c.erases) == (1, pages, 0)


@pytest.mark.parametrize("reopen", [True, False])
def test_each_append_to_a_file_past_512_bytes_erases_a_block(reopen):
    fs = LittleFlash()
    fs.mkdir("d")
    put(fs, "d/log", b"l" * 600)
    f = fs.open("d/log", "ab")
    for _ in range(5):
        with fs.chip.counting() as c:
            if reopen:
                put(fs, "d/log", b"m" * 40, "ab")
            else:
                f.write(b"m" * 40)
                f.flush()
        assert (c.progs, c.erases) == (2, 1)  # the file's last block rewritten, the commit
    f.close()
    assert get(fs, "d/log") == b"l" * 600 + b"m" * 200


@pytest.mark.parametrize("mtime, k, fills", [(True, 2, 11), (True, 3, 9), (True, 4, 7),
                                             (False, 2, 13), (False, 3, 12), (False, 4, 11)])
def test_rewrites_a_new_folder_takes_before_its_metadata_block_compacts(mtime, k, fills):
    """A folder's metadata block takes 16 page commits: mkdir's 1, an empty file's creation
    2 with MicroPython's mtime (1 without), one per 200-byte rewrite, then it is compacted
    (an erase). littlefs-python 0.19.0 (littlefs 2.11)."""
    fs = LittleFlash(mtime=mtime)
    fs.mkdir("d")
    for i in range(k):
        put(fs, "d/%d" % i, b"")
    n = 0
    while True:
        with fs.chip.counting() as c:
            put(fs, "d/%d" % (n % k), b"r" * 200)
        if c.erases:
            break
        n += 1
    assert n == fills
