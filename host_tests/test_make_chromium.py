"""`make chromium` (what `make test` and `make docs` run first) on a machine without Chromium:
one line says what it installs and why before anything is installed, Debian's chromium goes in
without its recommended packages (as root with apt-get, with sudo when sudo needs no
password), and otherwise one line says what to run, exit status 2, nothing tried. apt-get and
sudo are stand-ins that log their arguments."""
import os
import re
import subprocess

from conftest import ROOT

WHY = "Chromium is missing at %s (the browser tests and make docs drive it)"


def make_chromium(tmp_path, user_id, fake=()):
    """`make chromium` as on a machine without Chromium: USER_ID plays root or not; fake: the
    commands (apt-get, sudo) that log their arguments to tmp_path/calls and succeed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in fake:
        script = bin_dir / name
        script.write_text('#!/bin/sh\necho "%s $*" >> "%s"\n' % (name, tmp_path / "calls"))
        script.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"]))
    sudo = str(bin_dir / "sudo") if "sudo" in fake else str(bin_dir / "no-sudo-here")
    done = subprocess.run(["make", "-s", "--no-print-directory", "chromium",
                           "CHROMIUM=%s" % (tmp_path / "no-chromium"), "USER_ID=%s" % user_id,
                           "SUDO=%s" % sudo], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    calls = (tmp_path / "calls").read_text().splitlines() if (tmp_path / "calls").exists() else []
    (tmp_path / "calls").unlink(missing_ok=True)
    return done, calls


def test_without_root_or_sudo_one_line_says_what_to_run_and_nothing_is_tried(tmp_path):
    done, calls = make_chromium(tmp_path, 1000, fake=("apt-get",))
    assert done.returncode == 2 and done.stdout == ""
    assert calls == []                                  # nothing was tried
    (line,) = done.stderr.strip().splitlines()
    assert WHY % (tmp_path / "no-chromium") in line
    assert line.endswith("run as root: apt-get update && apt-get install -y "
                         "--no-install-recommends chromium.  Stop.")


def test_as_root_one_line_first_then_apt_get_without_the_recommended_packages(tmp_path):
    done, calls = make_chromium(tmp_path, 0, fake=("apt-get", "sudo"))
    assert done.returncode == 0, done.stderr
    assert calls == ["apt-get update -qq",                     # sudo not even asked
                     "apt-get install -y -qq --no-install-recommends chromium"]
    assert done.stdout.splitlines() == [
        WHY % (tmp_path / "no-chromium") + ": installing Debian's chromium package without its "
        "recommended packages"]


def test_with_passwordless_sudo_the_same_through_sudo_n(tmp_path):
    done, calls = make_chromium(tmp_path, 1000, fake=("apt-get", "sudo"))
    assert done.returncode == 0, done.stderr
    assert calls == ["sudo -n true",                           # asked whether it needs a password
                     "sudo -n apt-get update -qq",
                     "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
                     "--no-install-recommends chromium"]
    (line,) = done.stdout.splitlines()
    assert line.startswith(WHY % (tmp_path / "no-chromium")) and line.endswith("(with sudo)")


def test_chromium_there_installs_nothing_and_says_nothing(tmp_path):
    there = tmp_path / "chromium"
    there.write_text("")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("apt-get", "sudo"):
        (bin_dir / name).write_text('#!/bin/sh\necho "%s $*" >> "%s"\n' % (name, tmp_path / "calls"))
        (bin_dir / name).chmod(0o755)
    done = subprocess.run(["make", "-s", "--no-print-directory", "chromium", "CHROMIUM=%s" % there,
                           "USER_ID=0"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"])))
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    assert not (tmp_path / "calls").exists()


def test_every_apt_get_install_in_the_makefile_leaves_out_the_recommended_packages():
    with open(os.path.join(ROOT, "Makefile")) as f:
        makefile = f.read()
    installs = re.findall(r"apt-get install[^\n)]*", makefile)
    assert len(installs) >= 2                                  # the one run and the one shown
    assert all("--no-install-recommends" in line for line in installs), installs
    assert not re.search(r"^\s*(sudo\s+)?(npm install -g|pip install)\b", makefile, re.M)
