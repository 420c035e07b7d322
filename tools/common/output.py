"""Folders a tool builds into and may clear, of its own files only.

A tool that writes a set of files into a folder (tools/build_mpy.py, deploy's layouts) lists
them in the folder's MARKER before it writes any. Built again, it removes exactly the files
that list names, and the folders they were in once empty, then writes anew. A folder without
the list is taken only when it is new or empty: one holding anything else is refused, so
`tools/build_mpy.py ~/notes` cannot erase a user's notes, and a file a user put into a built
folder stays there.
"""
import os

MARKER = ".carddraw-files"


class NotOurs(Exception):
    """The folder holds files this tool did not write (the message is one line)."""


def listed(folder):
    """The files the folder's list names, or None without a list. Names that would reach
    outside the folder are dropped: an edited list must not point the removal elsewhere."""
    try:
        with open(os.path.join(folder, MARKER), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return None
    names = []
    for line in lines:
        parts = line.split("/")
        if line and not line.startswith("#") and not os.path.isabs(line) and ".." not in parts:
            names.append(line)
    return names


def prepare(folder, names, tool):
    """Make `folder` ready for `tool` (its name, for the list's first line and refusals) to
    write `names` into: paths relative to the folder, '/'-separated. -> the folder. Raises
    NotOurs for a file, or a folder holding files without the list."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise NotOurs("%s is a file, not a folder: give a folder for %s to build into"
                      % (folder, tool))
    if os.path.isdir(folder):
        old = listed(folder)
        if old is None and os.listdir(folder):
            raise NotOurs("%s holds files that %s did not write (it lists its own in %s): "
                          "give a new or empty folder" % (folder, tool, MARKER))
        clear(folder, old or [])
    os.makedirs(folder, exist_ok=True)
    # the list first: a build cut short leaves its files listed, so the next run removes them
    with open(os.path.join(folder, MARKER), "w", encoding="utf-8") as f:
        f.write("# written by %s, which removes only these files when it builds here again\n"
                % tool)
        f.write("".join(name + "\n" for name in names))
    for name in names:
        os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
    return folder


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
