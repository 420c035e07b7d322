"""Every picture README.md shows, made again from the firmware's own drawing (`make docs`):

  screens   docs/screens/SCREEN.png, one per screen (tools/screenshots.py: the screen tour on a
            real framebuf in the MicroPython VM)
  cards     docs/quickstart-players.png, docs/quickstart-referees.png (tools/cards.py: those
            screens with a few words beside each)
  terminal  docs/img/terminal.png (tools/termshot.py: the terminal simulator's output, drawn)
  web       docs/img/web.png (tools/webshot.py: the web app on a phone, in Debian's Chromium)

Fixed seeds and simulated time: the same firmware gives the same pictures, and
host_tests/test_pictures.py and test_web.py fail, saying "run make docs", when a committed
picture is not what the firmware draws now.

    python tools/pictures.py                        all of them, into docs/
    python tools/pictures.py --only screens --only cards
    python tools/pictures.py --root DIR             the same files under DIR/docs/ instead

It writes those files (and their folders, if need be) and nothing else; it removes nothing.
"""
import os
import sys

from common import ROOT, cli

PARTS = ("screens", "cards", "terminal", "web")
CARDS = ("quickstart-players.png", "quickstart-referees.png")
TERMINAL = os.path.join("docs", "img", "terminal.png")
WEB = os.path.join("docs", "img", "web.png")


def make(root=ROOT, only=PARTS):
    """Write the pictures of `only` under root/docs/. -> their paths, relative to root."""
    import screenshots   # each part's tool on its first use: the web one needs Playwright
    written = []
    shots = None
    if "screens" in only:
        shots = screenshots.write(os.path.join(root, "docs", "screens"))
        written += [os.path.join("docs", "screens", name + ".png") for name in sorted(shots)]
    if "cards" in only:
        import cards
        pages = cards.build(shots or screenshots.frames())
        os.makedirs(os.path.join(root, "docs"), exist_ok=True)
        for name in CARDS:
            pages[name].save(os.path.join(root, "docs", name), optimize=True)
            written.append(os.path.join("docs", name))
        print("%d quick-start cards written" % len(CARDS))
    if "terminal" in only:
        import termshot
        os.makedirs(os.path.join(root, "docs", "img"), exist_ok=True)
        termshot.make().save(os.path.join(root, TERMINAL), optimize=True)
        written.append(TERMINAL)
        print("the terminal picture written")
    if "web" in only:
        import webshot
        os.makedirs(os.path.join(root, "docs", "img"), exist_ok=True)
        webshot.save(webshot.make(), os.path.join(root, WEB))
        written.append(WEB)
        print("the web app's picture written")
    return written


def main(argv=None):
    p = cli.parser("pictures", __doc__)
    p.add_argument("--only", action="append", choices=PARTS, metavar="PART",
                   help="only these pictures: %s (repeatable; default: all)" % ", ".join(PARTS))
    p.add_argument("--root", default=ROOT, metavar="DIR",
                   help="write under DIR/docs/ (default: the repository)")
    args = p.parse_args(argv)
    if os.path.exists(args.root) and not os.path.isdir(args.root):
        p.error("--root: %s is a file, not a folder" % args.root)
    written = make(args.root, tuple(args.only or PARTS))
    print("%d pictures in %s" % (len(written), os.path.join(os.path.relpath(args.root, ROOT),
                                                            "docs")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
