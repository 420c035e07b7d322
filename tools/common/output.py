"""Folders the tools write into: only files a tool made, into a folder that is new, empty or
the tools' own, and never over a file that is not theirs.

A folder's MARKER lists the files the tools wrote there (one relative path a line, '#' lines
are comments). Two ways of writing:

- prepare(): a build (tools/build_mpy.py, deploy's layouts, the web app): the folder is the
  build's alone. Built again, the files its list names go (and their folders once empty),
  then the new ones are written: a file a user put into a built folder stays.
- claim(): a tool that adds its files (the pictures, the event's database and report, the
  bench's log exports): the list grows by the names claimed; nothing is removed.
- claim_file(): a tool that writes the one file a person names (termshot, webshot, odds
  --plot, the UF2): any folder, but a file already there must be the tools' own.

Either way a folder is taken only when it is new, empty, holds a MARKER, or (claim) is one of
the checkout's own: build/ (gitignored; `make clean` removes it whole), a folder holding only
folders the tools listed (logs/ after `make event` made logs/event/), or a folder where git
holds the very files claimed (docs/screens/ for `make docs`). A name that exists is written
over only when the list names it, or git holds it as it is now (replacing it loses nothing:
`git checkout` brings it back), or the tool's own test `mine(path)` says it is its output.
Anything else is refused with NotOurs (a one-line message) before a byte is written, so
`tools/screenshots.py /etc` or over a person's own setup.png leaves everything as it was.
"""
import hashlib
import os
import subprocess

from common import BUILD, ROOT

MARKER = ".carddraw-files"


class NotOurs(Exception):
    """The folder or a file in it is not the tools' to write (the message is one line)."""


def listed(folder):
    """The files the folder's list names, or None without a list. Names that would reach
    outside the folder are dropped: an edited list must not point the removal elsewhere."""
    try:
        with open(os.path.join(folder, MARKER), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return None
    names = []
    for line in lines:
        parts = line.split("/")
        if line and not line.startswith("#") and not os.path.isabs(line) and ".." not in parts:
            names.append(line)
    return names


def committed(path):
    """Whether git holds the file at path, in this checkout, exactly as it is now."""
    real = os.path.realpath(path)
    root = os.path.realpath(ROOT)
    if not real.startswith(root + os.sep) or not os.path.isfile(real):
        return False
    try:
        done = subprocess.run(["git", "-C", root, "ls-files", "-s", "--",
                               os.path.relpath(real, root)], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    fields = done.stdout.split()
    if done.returncode != 0 or len(fields) < 2:
        return False
    held = fields[1].decode()
    with open(real, "rb") as f:
        data = f.read()
    blob = hashlib.sha1 if len(held) == 40 else hashlib.sha256
    return blob(b"blob %d\0" % len(data) + data).hexdigest() == held


def _write_list(folder, names, header):
    with open(os.path.join(folder, MARKER), "w", encoding="utf-8") as f:
        f.write(header)
        f.write("".join(name + "\n" for name in names))


def prepare(folder, names, tool):
    """Make `folder` ready for `tool` (its name, for the list's first line and refusals) to
    build `names` into: paths relative to the folder, '/'-separated. -> the folder. Raises
    NotOurs for a file, a folder holding files without the list, or a name there that the
    list does not hold."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise NotOurs("%s is a file, not a folder: give a folder for %s to build into"
                      % (folder, tool))
    if os.path.isdir(folder):
        old = listed(folder)
        if old is None and os.listdir(folder):
            raise NotOurs("%s holds files that %s did not write (it lists its own in %s): "
                          "give a new or empty folder" % (folder, tool, MARKER))
        _refuse_strangers(folder, [n for n in names if n not in (old or [])], tool)
        clear(folder, old or [])
    os.makedirs(folder, exist_ok=True)
    # the list first: a build cut short leaves its files listed, so the next run removes them
    _write_list(folder, names, "# written by %s, which removes only these files when it "
                               "builds here again\n" % tool)
    for name in names:
        os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
    return folder


def _refuse_strangers(folder, names, tool, mine=None):
    for name in names:
        path = os.path.join(folder, name)
        if os.path.lexists(path) and not (committed(path) or (mine and mine(path))):
            raise NotOurs("%s is there and %s did not write it (nor does git hold it as it "
                          "is): move it away or give another folder" % (path, tool))


def check(folder, names, tool, mine=None):
    """Whether `tool` may add `names` to `folder` (see claim); writes nothing. -> the names
    the folder's list holds already. names None: not known yet (a tool that must render to
    know them checks again then); the folder is the checkout's when git holds any file in
    it. Raises NotOurs."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise NotOurs("%s is a file, not a folder: give a folder for %s to write into"
                      % (folder, tool))
    if not os.path.isdir(folder):
        return []
    old = listed(folder)
    if old is None:
        old = []
        inside = os.listdir(folder)
        ours = (os.path.realpath(folder) == os.path.realpath(BUILD)
                or all(listed(os.path.join(folder, n)) is not None for n in inside)  # logs/event/
                or any(committed(os.path.join(folder, n))
                       for n in (inside if names is None else names)))
        if os.listdir(folder) and not ours:
            raise NotOurs("%s holds files that %s did not write (the tools list theirs in %s): "
                          "give a new or empty folder" % (folder, tool, MARKER))
    _refuse_strangers(folder, [n for n in names or () if n not in old], tool, mine)
    return old


def claim(folder, names, tool, mine=None):
    """Make `folder` ready for `tool` to add `names` (paths relative to it): checked as
    above, then listed in its MARKER before any is written. mine(path): the tool's test that
    a file already there is its own output. -> the folder. Raises NotOurs, also when the
    folder cannot be made or written."""
    old = check(folder, names, tool, mine)
    try:
        os.makedirs(folder, exist_ok=True)
        _write_list(folder, old + [n for n in names if n not in old],
                    "# written by carddraw's tools (%s last): each adds its own files and "
                    "replaces only those listed here\n" % tool)
        for name in names:
            os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
    except OSError as e:
        raise NotOurs("cannot write into the folder %s (%s)" % (folder, e.strerror or e))
    return folder


def check_file(path, tool, mine=None):
    """Whether `tool` may write the one file a person named (a picture, a chart, a UF2): not a
    folder, and when it is there, the tools' own (its folder's list names it, git holds it as
    it is, or mine(path)). Any folder will do: a new file beside a person's own loses nothing.
    Writes nothing; raises NotOurs."""
    folder, name = os.path.split(path)
    if os.path.isdir(path):
        raise NotOurs("%s is a folder, not a file" % path)
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise NotOurs("%s is a file, not a folder" % folder)
    if name not in (listed(folder or ".") or []):
        _refuse_strangers(folder, [name], tool, mine)     # folder "": the path as given


def claim_file(path, tool, mine=None):
    """check_file, then the folder made if need be, and the file listed there when the folder
    is the tools' (it has a list, or it is new or empty): no list is added to a person's
    folder. -> path. Raises NotOurs, also when the folder cannot be made or written."""
    check_file(path, tool, mine)
    folder, name = os.path.split(path)
    folder = folder or "."
    try:
        old = listed(folder)
        if old is None and os.path.isdir(folder) and os.listdir(folder):
            return path
        os.makedirs(folder, exist_ok=True)
        _write_list(folder, (old or []) + [name] * (name not in (old or [])),
                    "# written by carddraw's tools (%s last): each adds its own files and "
                    "replaces only those listed here\n" % tool)
    except OSError as e:
        raise NotOurs("cannot write into the folder %s (%s)" % (folder, e.strerror or e))
    return path


def png_text(tool):
    """The PNG text a tool's picture carries, which marked_png finds: {"Software": ...}."""
    return {"Software": "carddraw %s" % tool}


def marked_png(path):
    """Whether the file is a PNG one of the tools drew (its Software text starts "carddraw ")."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    at = 8
    if data[:at] != b"\x89PNG\r\n\x1a\n":
        return False
    while at + 8 <= len(data):
        size, kind = int.from_bytes(data[at:at + 4], "big"), data[at + 4:at + 8]
        body = data[at + 8:at + 8 + size]
        if kind == b"tEXt" and body.startswith(b"Software\0carddraw "):
            return True
        at += 12 + size
    return False


def write(files, tool, mine=None):
    """files: {path: a function that writes that path}. Every folder is checked before any
    is claimed, then each file is written. -> the paths. Raises NotOurs."""
    folders = {}
    for path in files:
        folders.setdefault(os.path.dirname(path) or ".", []).append(os.path.basename(path))
    for folder, names in folders.items():
        check(folder, names, tool, mine)
    for folder, names in folders.items():
        claim(folder, names, tool, mine)
    for path, writer in files.items():
        writer(path)
    return list(files)


def clear(folder, names):
    """Remove the listed files, then their folders that are left empty, deepest first."""
    parents = set()
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isfile(path) or os.path.islink(path):
            os.remove(path)
        parent = os.path.dirname(name)
        while parent:
            parents.add(parent)
            parent = os.path.dirname(parent)
    for parent in sorted(parents, key=lambda p: -p.count("/")):
        try:
            os.rmdir(os.path.join(folder, parent))
        except OSError:   # something of the user's is in it, or it is gone already
            pass
