"""One file for a maker: firmware/manifest.py freezes the firmware into MicroPython's
rp2 build, and `make uf2 MICROPY=...` builds it into build/carddraw-pico.uf2.

No MicroPython source is reachable from these machines, so the build itself is not run: the
manifest is read as MicroPython's manifest tool reads it (its three calls, paths relative to
its own folder, package() taking every .py below the package) and compared with firmware/;
the target's refusals are run; and a fake MicroPython tree, whose ports/rp2/Makefile records
its arguments and writes a firmware.uf2, checks the command line and the copy."""
import os
import subprocess
import sys

from conftest import FIRMWARE, ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import board_sources  # noqa: E402

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


def make_uf2(*args):
    return subprocess.run(["make", "-s", "uf2", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)


def test_make_uf2_without_a_micropython_checkout_says_what_it_needs(tmp_path):
    for args in ([], ["MICROPY=%s" % tmp_path]):
        done = make_uf2(*args, "UF2=%s" % (tmp_path / "out.uf2"))
        assert done.returncode == 2 and done.stdout == ""
        (line,) = done.stderr.splitlines()
        assert "make uf2 needs MICROPY=path/to/micropython" in line and "ports/rp2" in line
        assert ("is no MicroPython checkout" in line) == bool(args)
    assert os.listdir(str(tmp_path)) == []


STUB = """# a stand-in for MicroPython's ports/rp2/Makefile: records how it was called
all:
\t@echo "BOARD=$(BOARD) FROZEN_MANIFEST=$(FROZEN_MANIFEST) CURDIR=$(CURDIR)" > called.txt
\t@mkdir -p build-$(BOARD)
\t@echo "a firmware built for $(BOARD)" > build-$(BOARD)/firmware.uf2
"""


def test_make_uf2_builds_the_rp2_port_for_the_pico_with_the_manifest_and_copies_the_uf2(tmp_path):
    rp2 = tmp_path / "micropython" / "ports" / "rp2"
    rp2.mkdir(parents=True)
    (rp2 / "Makefile").write_text(STUB)
    out = tmp_path / "out" / "carddraw-pico.uf2"
    done = make_uf2("MICROPY=%s" % (tmp_path / "micropython"), "UF2=%s" % out)
    assert done.returncode == 0, done.stderr
    assert (rp2 / "called.txt").read_text().split() == [
        "BOARD=RPI_PICO", "FROZEN_MANIFEST=" + MANIFEST, "CURDIR=%s" % rp2]
    assert out.read_text() == "a firmware built for RPI_PICO\n"
    assert "copy it onto the Pico in BOOTSEL mode" in done.stdout
    default = subprocess.run(["make", "-n", "uf2", "MICROPY=%s" % (tmp_path / "micropython")],
                             capture_output=True, text=True, cwd=ROOT)
    assert 'build/carddraw-pico.uf2"' in default.stdout      # where it goes unless told
