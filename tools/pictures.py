"""Every picture README.md shows, made again from the firmware's own drawing (`make docs`):

  screens   docs/screens/SCREEN.png, one per screen (tools/screenshots.py: the screen tour on a
            real framebuf in the MicroPython VM)
  cards     docs/quickstart-players.png, docs/quickstart-referees.png (tools/cards.py: those
            screens with a few words beside each)
  terminal  docs/img/terminal.png (tools/termshot.py: the terminal simulator's output, drawn)
  web       docs/img/web.png and phone.png (tools/webshot.py: the web app on a phone, its
            device view and its phone view, in Debian's Chromium)

Fixed seeds and simulated time: the same firmware gives the same pictures, and
host_tests/test_pictures.py and test_web_offline.py fail, saying "run make docs", when a committed
picture is not what the firmware draws now.

    python tools/pictures.py                        all of them, into docs/
    python tools/pictures.py --only screens --only cards
    python tools/pictures.py --root DIR             the same files under DIR/docs/ instead

It writes those files and nothing else; it removes nothing. Each folder must be new, empty or
the tools' own (they list what they wrote there in its .carddraw-files; a folder where git
holds the very pictures is theirs too), and a picture already there that they did not write
(nor does git hold it as it is) is refused in one line, exit status 2, before any is written.
"""
import os
import sys

import cards
import screenshots
from common import ROOT, cli, output

TOOL = "tools/pictures.py"
PARTS = ("screens", "cards", "terminal", "web")
CARDS = cards.NAMES
TERMINAL = os.path.join("docs", "img", "terminal.png")
WEB = os.path.join("docs", "img", "web.png")
PHONE = os.path.join("docs", "img", "phone.png")


def make(root=ROOT, only=PARTS):
    """Write the pictures of `only` under root/docs/: all of them made first, every folder
    checked, then written. -> their paths, relative to root. Raises output.NotOurs."""
    docs = os.path.join(root, "docs")
    early = [(root, [])]                    # what can be checked before the pictures are made
    if "screens" in only:
        early.append((os.path.join(docs, "screens"), None))
    if "cards" in only:
        early.append((docs, list(CARDS)))
    for part, rels in (("terminal", [TERMINAL]), ("web", [WEB, PHONE])):
        if part in only:   # a part's files together: a folder git holds one of is the tools'
            early.append((os.path.dirname(os.path.join(root, rels[0])),
                          [os.path.basename(rel) for rel in rels]))
    for folder, names in early:
        if folder != root or not os.path.isdir(root):   # the root itself: only not a file
            output.check(folder, names, TOOL)
    files = {}
    shots = screenshots.frames() if "screens" in only or "cards" in only else None
    if "screens" in only:
        files.update(screenshots.files(os.path.join(docs, "screens"), shots))
    if "cards" in only:
        files.update(cards.files(docs, cards.build(shots)))
    if "terminal" in only:
        import termshot
        picture = termshot.make()
        files[os.path.join(root, TERMINAL)] = lambda path: termshot.save(picture, path)
    if "web" in only:
        import webshot                      # on its first use: it needs Playwright
        shot, on_phone = webshot.make()
        files[os.path.join(root, WEB)] = lambda path: webshot.save(shot, path)
        files[os.path.join(root, PHONE)] = lambda path: webshot.save(on_phone, path)
    output.write(files, TOOL)
    return [os.path.relpath(path, root) for path in files]


def main(argv=None):
    p = cli.parser("pictures", __doc__)
    p.add_argument("--only", action="append", choices=PARTS, metavar="PART",
                   help="only these pictures: %s (repeatable; default: all)" % ", ".join(PARTS))
    p.add_argument("--root", default=ROOT, metavar="DIR",
                   help="write under DIR/docs/ (default: the repository)")
    args = p.parse_args(argv)
    try:
        written = make(args.root, tuple(args.only or PARTS))
    except output.NotOurs as e:
        p.error("--root: %s" % e)
    print("%d pictures in %s" % (len(written), os.path.join(os.path.relpath(args.root, ROOT),
                                                            "docs")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
