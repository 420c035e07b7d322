"""The documents stand alone and agree with what they document: README.md (short, the two
commands on top, every make target of `make help`, a link to every page of docs/) and docs/*.md
(each for its reader) name only files, tools and make targets that exist, link only inside the
repository, carry no history (no commit hashes, no dates); docs/bench.md names every command
the console answers and every kind of record the firmware logs; docs/screens.md shows every
screen make docs pictures. (test_pictures.py checks the pictures, test_rules_cited.py the rules,
test_hw_docs.py the hardware's figures.)"""
import os
import re
import subprocess

import pytest

from conftest import ROOT

README = os.path.join(ROOT, "README.md")
DOCS = os.path.join(ROOT, "docs")
PAGES = sorted(os.path.join(DOCS, n) for n in os.listdir(DOCS) if n.endswith(".md"))
ALL = [README] + PAGES
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)]*)?\)")
OUTSIDE = ("../shared", "shared/", "RULES.md", "DESIGN.md", "TOOLCHAIN.md")
HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b|\b(January|February|March|April|May|June|July|August|"
                  r"September|October|November|December) 20\d\d\b")
HISTORY = ("this round", "commit ", "earlier run", "before this", "used to")
FIRMWARE = os.path.join(ROOT, "firmware", "carddraw")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def name(path):
    return os.path.relpath(path, ROOT)


def test_readme_is_short_and_starts_with_the_two_commands():
    text = read(README)
    assert len(text.splitlines()) <= 200
    top = text.split("\n## ")[0]
    assert "make sim     # see the device\nmake test    # test it\n" in top
    for need in ("Python 3.11", "Node 20", "`make`", "Chromium", "make clean"):
        assert need in top, need


def test_the_readmes_chromium_line_says_what_the_makefile_does():
    makefile = read(os.path.join(ROOT, "Makefile"))
    top = read(README).split("\n## ")[0]
    assert "--no-install-recommends chromium" in makefile and "recommended packages" in top
    assert "$(SUDO) -n" in makefile and "sudo" in top and "root" in top


@pytest.mark.parametrize("path", ALL, ids=name)
def test_links_stay_in_the_repository_and_reach_a_file(path):
    text = read(path)
    for outside in OUTSIDE:
        assert outside not in text, "%s names %s, which is not in the repository" % (
            name(path), outside)
    for m in LINK.finditer(text):
        target = m.group(1)
        if target.startswith(("http://", "https://")):
            continue
        where = os.path.normpath(os.path.join(os.path.dirname(path), target))
        assert where.startswith(ROOT + os.sep) and os.path.exists(where), (name(path), target)


@pytest.mark.parametrize("path", ALL, ids=name)
def test_no_history_no_hashes_no_dates(path):
    text = read(path)
    assert not HASH.findall(text), (name(path), HASH.findall(text))
    assert not DATE.search(text), (name(path), DATE.search(text))
    for words in HISTORY:
        assert words not in text.lower(), (name(path), words)


@pytest.mark.parametrize("path", ALL, ids=name)
def test_every_tool_and_make_target_named_exists(path):
    text = read(path)
    for tool in set(re.findall(r"\btools/[\w/.-]*\w", text)):
        assert os.path.exists(os.path.join(ROOT, tool)), (name(path), tool)
    targets = set(re.findall(r"^([a-z0-9_-]+):", read(os.path.join(ROOT, "Makefile")), re.M))
    for target in set(re.findall(r"`make ([a-z0-9_-]+)", text)):
        assert target in targets, (name(path), "make " + target)


def test_readme_documents_every_target_of_make_help():
    done = subprocess.run(["make", "-s", "help"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0
    helped = re.findall(r"^make ([a-z0-9_-]+)", done.stdout, re.M)
    assert len(helped) >= 10
    text = read(README)
    missing = [t for t in helped if "`make " + t not in text]
    assert not missing, "README.md does not document: %s" % ", ".join(missing)


def test_readme_links_every_page_of_docs():
    text = read(README)
    missing = [name(p) for p in PAGES if "](%s)" % name(p).replace(os.sep, "/") not in text]
    assert not missing, missing


def test_the_screens_page_shows_every_screen_make_docs_pictures():
    text = read(os.path.join(DOCS, "screens.md"))
    screens = sorted(n for n in os.listdir(os.path.join(DOCS, "screens")) if n.endswith(".png"))
    assert len(screens) >= 10
    missing = [n for n in screens if "](screens/%s)" % n not in text]
    assert not missing, missing


def firmware_text():
    return {n: read(os.path.join(FIRMWARE, n)) for n in os.listdir(FIRMWARE) if n.endswith(".py")}


def test_the_bench_page_names_every_command_the_console_answers():
    from carddraw import protocol, selftest
    text = read(os.path.join(DOCS, "bench.md"))
    for cmd in protocol.HANDLERS:
        assert "`%s" % cmd in text, cmd
    for test in selftest.TEST_NAMES:
        assert "`test %s" % test in text, test
    for gated in protocol.GATED:  # each said to need bench mode
        assert "`%s" % gated in text.split("In bench mode only")[1].split("## ")[0], gated


def test_the_bench_page_lists_every_kind_of_record_the_firmware_logs():
    kinds = set()
    for source in firmware_text().values():
        kinds |= set(re.findall(r'\brecord\("([a-z_ ]+)"', source))
        kinds |= set(re.findall(r'\{"ev": "([a-z_ ]+)"', source))
    assert {"start", "draw", "accept", "end", "lock", "settings", "bench", "error"} <= kinds
    text = read(os.path.join(DOCS, "bench.md"))
    missing = sorted(k for k in kinds if "| `%s` |" % k not in text)
    assert not missing, "docs/bench.md does not list these records: %s" % missing


def test_the_firmware_page_names_every_module_once_in_its_parts_table():
    """docs/firmware.md's table of parts: each module of firmware/carddraw in exactly one
    part, and no module that is not there (a module merged or added shows up here)."""
    text = read(os.path.join(DOCS, "firmware.md"))
    table = [line for line in text.splitlines() if line.startswith("| the ")]
    named = re.findall(r"`(\w+)`", " ".join(line.split("|")[2] for line in table))
    modules = sorted(n[:-3] for n in os.listdir(FIRMWARE) if n.endswith(".py")
                     and n != "__init__.py")
    assert sorted(n for n in named if n != "main") == modules
    assert len(named) == len(set(named))
