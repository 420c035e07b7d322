"""One file for a maker: firmware/manifest.py freezes the firmware into MicroPython's
rp2 build, and `make uf2 MICROPY=...` (tools/uf2.py) builds it in this checkout's own build
folder, checks the image and copies it to build/carddraw-pico.uf2.

No MicroPython source is reachable from these machines, so the build itself is not run: the
manifest is read as MicroPython's manifest tool reads it (its three calls, paths relative to
its own folder, package() taking every .py below the package) and compared with firmware/;
and a stand-in MicroPython tree, whose ports/rp2/Makefile runs its "cmake" only when the build
folder has no Makefile (writing a CMakeCache.txt as cmake does), records its arguments and
puts a UF2 the test made into the build folder, checks the command line, the refusal of a
stale build folder and of an image without the firmware, and the copy."""
import os
import re
import struct
import subprocess
import sys

import pytest

from conftest import FIRMWARE, ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import board_sources  # noqa: E402
import uf2  # noqa: E402

MANIFEST = os.path.join(FIRMWARE, "manifest.py")


def frozen_by(manifest):
    """-> (included manifests, {path frozen, as imported: file it comes from}) as MicroPython's
    manifestfile.py resolves them: relative paths from the manifest's own folder."""
    here = os.path.dirname(manifest)
    included, frozen = [], {}

    def package(name, files=None, base_path=".", opt=None):
        assert files is None and opt == 3, (name, files, opt)
        base = os.path.join(here, base_path)
        for folder, _, names in os.walk(os.path.join(base, name)):
            for n in names:
                if n.endswith(".py"):
                    path = os.path.join(folder, n)
                    frozen[os.path.relpath(path, base).replace(os.sep, "/")] = path

    def module(name, base_path=".", opt=None):
        assert opt == 3, (name, opt)
        frozen[name] = os.path.join(here, base_path, name)

    with open(manifest) as f:
        exec(f.read(), {"include": included.append, "package": package, "module": module})
    return included, frozen


def test_the_manifest_freezes_every_firmware_file_and_nothing_else():
    included, frozen = frozen_by(MANIFEST)
    assert included == ["$(PORT_DIR)/boards/manifest.py"]   # the stock build's modules stay
    on_disk = sorted(os.path.relpath(os.path.join(folder, n), FIRMWARE).replace(os.sep, "/")
                     for folder, _, names in os.walk(FIRMWARE) for n in names
                     if n.endswith(".py") and "__pycache__" not in folder)
    assert sorted(frozen) == [p for p in on_disk if p != "manifest.py"]
    assert "main.py" in frozen and "carddraw/app.py" in frozen
    assert all(os.path.isfile(path) for path in frozen.values())


def test_a_uf2_and_make_deploy_carry_the_same_files():
    # deploy (tools/build_mpy.py) copies board_sources(): the manifest itself is not board code
    assert board_sources() == sorted(frozen_by(MANIFEST)[1]) and "manifest.py" not in board_sources()


def test_the_manifest_check_sees_a_file_left_out(tmp_path):
    (tmp_path / "carddraw").mkdir()
    (tmp_path / "carddraw" / "app.py").write_text("")
    (tmp_path / "main.py").write_text("")
    (tmp_path / "manifest.py").write_text('package("carddraw", opt=3)\n')
    assert sorted(frozen_by(str(tmp_path / "manifest.py"))[1]) == ["carddraw/app.py"]


# A UF2 as picotool writes one for the RP2040: 256 bytes of flash in each 512-byte block.
def uf2_of(flash, family=uf2.RP2040, base=0x10000000):
    chunks = [flash[i:i + 256] for i in range(0, len(flash), 256)]
    return b"".join(struct.pack("<8I", 0x0A324655, 0x9E5D5157, 0x2000, base + 256 * n, len(c), n,
                                len(chunks), family) + c.ljust(476, b"\0")
                    + struct.pack("<I", 0x0AB16F30) for n, c in enumerate(chunks))


STOCK = ["_boot.py", "rp2.py", "asyncio/__init__.py", "asyncio/core.py", "neopixel.py"]


def flash_with(frozen):
    """Flash bytes around mp_frozen_names holding `frozen` after the stock board's modules, as
    mpy-tool.py lays it out, with pyexec's own "main.py" string elsewhere, as any image has."""
    table = b"".join(n.encode() + b"\0" for n in STOCK + list(frozen)) + b"\0"
    return (bytes(range(256)) * 3 + b"\x03main.py\0boot.py\0\x91" + bytes(range(7, 200))
            + table + b"\x00\x10\x20" * 300)


FIRMWARE_IMAGE = uf2_of(flash_with(board_sources()))
STOCK_IMAGE = uf2_of(flash_with([]))

STUB = """# a stand-in for MicroPython's ports/rp2/Makefile: "cmake" only when $(BUILD) has no Makefile
BOARD ?= RPI_PICO
BUILD ?= build-$(BOARD)
all:
\t@echo "BOARD=$(BOARD) BUILD=$(BUILD) FROZEN_MANIFEST=$(FROZEN_MANIFEST) CURDIR=$(CURDIR)" >> called.txt
\t@[ -e $(BUILD)/Makefile ] || { mkdir -p $(BUILD) && printf '%s\\n' \\
\t  "MICROPY_BOARD:UNINITIALIZED=$(BOARD)" "MICROPY_FROZEN_MANIFEST:UNINITIALIZED=$(FROZEN_MANIFEST)" \\
\t  "CMAKE_HOME_DIRECTORY:INTERNAL=$(CURDIR)" > $(BUILD)/CMakeCache.txt && touch $(BUILD)/Makefile; }
\t@cp image.uf2 $(BUILD)/firmware.uf2
"""


@pytest.fixture
def tree(tmp_path):
    """A stand-in MicroPython tree whose rp2 build gives image.uf2 (the firmware's unless the
    test puts another there)."""
    rp2 = tmp_path / "micropython" / "ports" / "rp2"
    rp2.mkdir(parents=True)
    (rp2 / "Makefile").write_text(STUB)
    (rp2 / "image.uf2").write_bytes(FIRMWARE_IMAGE)
    return rp2


def make_uf2(*args):
    return subprocess.run(["make", "-s", "--no-print-directory", "uf2", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def build_in(tmp_path, tree, *more):
    """make uf2 with the stand-in tree, its build folder and output under tmp_path."""
    return make_uf2("MICROPY=%s" % tree.parent.parent, "UF2=%s" % (tmp_path / "out" / "pico.uf2"),
                    "UF2_BUILD=%s" % (tmp_path / "rp2-build"), *more)


def refusal(done):
    """The tool's one line (then only make's own report of the exit status 2)."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "copy it onto the Pico" not in done.stdout + done.stderr
    line, *rest = done.stderr.splitlines()
    assert all(re.match(r"^make(\[\d+\])?: \*\*\* \[.*uf2\] Error 2$", r) for r in rest), rest
    assert line.startswith("uf2: "), line
    return line


def test_make_uf2_without_a_micropython_checkout_says_what_it_needs(tmp_path):
    done = make_uf2("UF2=%s" % (tmp_path / "out.uf2"))
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "make uf2 needs MICROPY=path/to/micropython" in line and "ports/rp2" in line
    line = refusal(make_uf2("MICROPY=%s" % tmp_path, "UF2=%s" % (tmp_path / "out.uf2")))
    assert "is no MicroPython checkout (no ports/rp2/Makefile there)" in line
    assert "make uf2 needs MICROPY=path/to/micropython" in line
    assert os.listdir(str(tmp_path)) == []


def test_make_uf2_builds_in_its_own_folder_checks_the_image_and_copies_it(tmp_path, tree):
    done = build_in(tmp_path, tree)
    assert done.returncode == 0, done.stderr
    (call,) = (tree / "called.txt").read_text().splitlines()
    assert call.split() == ["BOARD=RPI_PICO", "BUILD=%s" % (tmp_path / "rp2-build"),
                            "FROZEN_MANIFEST=" + MANIFEST, "CURDIR=%s" % tree]
    assert not (tree / "build-RPI_PICO").exists()          # never the tree's shared folder
    assert (tmp_path / "out" / "pico.uf2").read_bytes() == FIRMWARE_IMAGE
    line = done.stdout.splitlines()[-1]                   # after the rp2 build's own output
    assert line.startswith(str(tmp_path / "out" / "pico.uf2"))
    assert "this checkout's firmware frozen in (%d modules" % len(board_sources()) in line
    assert line.endswith("copy it onto the Pico in BOOTSEL mode")
    again = build_in(tmp_path, tree)                       # over its own image: fine
    assert again.returncode == 0, again.stderr
    assert len((tree / "called.txt").read_text().splitlines()) == 2


def test_by_default_the_build_folder_and_the_uf2_are_this_checkouts(tmp_path):
    done = subprocess.run(["make", "-n", "uf2", "MICROPY=%s" % tmp_path], capture_output=True,
                          text=True, cwd=ROOT)
    assert '--out "build/carddraw-pico.uf2"' in done.stdout
    assert '--build "%s"' % os.path.join(ROOT, "build", "rp2-RPI_PICO") in done.stdout
    assert uf2.RP2_BUILD == os.path.join(ROOT, "build", "rp2-RPI_PICO")


@pytest.mark.parametrize("cache,why", [
    (["MICROPY_FROZEN_MANIFEST:UNINITIALIZED=/another/checkout/firmware/manifest.py"],
     "was configured with FROZEN_MANIFEST=/another/checkout/firmware/manifest.py, not this "
     "checkout's " + MANIFEST),
    (["MICROPY_BOARD:UNINITIALIZED=RPI_PICO"],
     "was configured with FROZEN_MANIFEST=(none: the stock modules)"),
    (["MICROPY_FROZEN_MANIFEST:UNINITIALIZED=" + MANIFEST,
      "CMAKE_HOME_DIRECTORY:INTERNAL=/another/micropython/ports/rp2"],
     "was configured from another MicroPython tree (/another/micropython/ports/rp2)"),
    (["MICROPY_FROZEN_MANIFEST:UNINITIALIZED=" + MANIFEST, "MICROPY_BOARD:UNINITIALIZED=RPI_PICO_W"],
     "was configured for the board RPI_PICO_W, not RPI_PICO"),
    (None, "holds files but no CMakeCache.txt"),
])
def test_a_stale_build_folder_is_refused_before_anything_is_built(tmp_path, tree, cache, why):
    """The rp2 Makefile runs cmake only when the folder has no Makefile: a cache that names
    another manifest would build the stock firmware, or another checkout's, with exit 0."""
    build = tmp_path / "rp2-build"
    build.mkdir()
    (build / "Makefile").write_text("# made by cmake\n")
    if cache is not None:
        (build / "CMakeCache.txt").write_text("\n".join(["# This is the CMakeCache file."] + cache))
    line = refusal(build_in(tmp_path, tree))
    assert "the build folder %s %s" % (build, why) in line, line
    assert line.endswith("remove it (rm -r %s) and build again" % build)
    assert not (tree / "called.txt").exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("image,why", [
    (STOCK_IMAGE, "holds no carddraw module among its frozen ones: the stock firmware"),
    (uf2_of(flash_with([n for n in board_sources() if n != "main.py"])),
     "is not this checkout's firmware: frozen without main.py"),
    (uf2_of(flash_with(board_sources()[1:])), "frozen without " + board_sources()[0]),
    (uf2_of(flash_with(board_sources() + ["carddraw/gone.py"])),
     "frozen with carddraw/gone.py, which firmware/ no longer has"),
    (uf2_of(flash_with(board_sources()), family=0xE48BFF59), "is a UF2 for family 0xe48bff59, "
                                                             "not the RP2040's (0xe48bff56)"),
    (FIRMWARE_IMAGE[:-100], "is no UF2 image"),
    (b"a firmware built for RPI_PICO\n" * 20, "is no UF2 image"),
])
def test_an_image_without_this_firmware_is_refused_and_not_copied(tmp_path, tree, image, why):
    (tree / "image.uf2").write_bytes(image)
    line = refusal(build_in(tmp_path, tree))
    built = tmp_path / "rp2-build" / "firmware.uf2"
    assert line.startswith("uf2: %s " % built) and why in line and line.endswith(": not copied")
    assert not (tmp_path / "out" / "pico.uf2").exists()
    checked = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "uf2.py"), "--check",
                              str(built)], capture_output=True, text=True, cwd=ROOT)
    assert checked.returncode == 2 and why in checked.stderr and checked.stderr.count("\n") == 1


def test_check_says_an_image_holds_the_firmware(tmp_path):
    (tmp_path / "x.uf2").write_bytes(FIRMWARE_IMAGE)
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "uf2.py"), "--check",
                           str(tmp_path / "x.uf2")], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == "%s: this checkout's firmware frozen in (%d modules)\n" % (
        tmp_path / "x.uf2", len(board_sources()))


def test_the_names_table_is_read_across_blocks_and_a_stock_main_py_is_not_the_firmwares():
    family, flash = uf2.image(FIRMWARE_IMAGE)
    assert family == uf2.RP2040 and flash == flash_with(board_sources())
    assert uf2.frozen_names(flash) == set(STOCK) | set(board_sources())
    assert uf2.frozen_names(uf2.image(STOCK_IMAGE)[1]) is None     # "main.py" there, yet stock


def test_a_person_s_file_at_the_output_is_refused_before_the_build(tmp_path, tree):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "pico.uf2").write_bytes(b"a person's own image\n")
    (tmp_path / "out" / "notes.txt").write_text("the person's own")
    line = refusal(build_in(tmp_path, tree))
    assert "%s is there and tools/uf2.py did not write it" % (tmp_path / "out" / "pico.uf2") in line
    assert (tmp_path / "out" / "pico.uf2").read_bytes() == b"a person's own image\n"
    assert not (tree / "called.txt").exists()
    (tmp_path / "out" / "pico.uf2").write_bytes(STOCK_IMAGE)           # no carddraw in it
    refusal(build_in(tmp_path, tree))
    old = uf2_of(flash_with(board_sources() + ["carddraw/gone.py"]))  # an older make uf2's
    (tmp_path / "out" / "pico.uf2").write_bytes(old)
    done = build_in(tmp_path, tree)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "pico.uf2").read_bytes() == FIRMWARE_IMAGE
    assert sorted(os.listdir(str(tmp_path / "out"))) == ["notes.txt", "pico.uf2"]  # no list added


def test_a_build_folder_inside_the_micropython_tree_is_refused(tmp_path, tree):
    line = refusal(build_in(tmp_path, tree, "UF2_BUILD=%s" % (tree / "build-RPI_PICO")))
    assert "is inside the MicroPython tree, which every checkout shares" in line
    assert not (tree / "called.txt").exists()


def test_a_failed_build_says_so_and_copies_nothing(tmp_path, tree):
    (tree / "Makefile").write_text("all:\n\t@echo 'cc: not found' >&2; exit 3\n")
    done = build_in(tmp_path, tree)
    assert done.returncode == 2 and "copy it onto the Pico" not in done.stdout
    lines = done.stderr.splitlines()
    assert "cc: not found" in lines
    assert any(l.startswith("uf2: the rp2 port's build failed (exit ") for l in lines), lines
    assert not (tmp_path / "out").exists()
