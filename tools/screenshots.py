"""Pictures of every screen for the README, rendered by the firmware's own screens.py onto a
real framebuf inside the MicroPython VM (the tour in tools/vmlib/screen_tour.py, which
host_tests/test_render.py also runs). `make docs` runs it with the other pictures
(tools/pictures.py).

    python tools/screenshots.py [OUT_DIR]     # default docs/screens/

It writes SCREEN.png for each screen into OUT_DIR, which must be new, empty or the tools' own
(they list what they wrote there in its .carddraw-files; git's docs/screens/ is theirs too).
A SCREEN.png already there that they did not write is refused in one line (exit status 2),
before anything is written.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw

from common import ROOT, cli, output

TOOL = "tools/screenshots.py"
ERROR = re.compile(r"^[A-Z]\w*(Error|Exception): ")   # the last says what went wrong
SCALE = 3
INK, PAPER, BEZEL = (120, 220, 255), (4, 8, 16), (40, 40, 46)
LED = {"green": (0, 200, 60), "yellow": (255, 210, 0), "red": (230, 20, 20), "black": (160, 0, 255),
       "white": (255, 255, 255)}

SCRIPT = r'''
import framebuf
from screen_tour import tour
buf = bytearray(1024)
fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
shots = {}

def snap(v):
    if v.screen not in shots:   # the first of each: the card screen's is the tour's red card
        shots[v.screen] = [list(buf), v.led]

tour(fb, snap, 80)
RESULT = shots
'''


def frames():
    """{screen: [MONO_VLSB buffer as a list, LED colour]}, the first frame of each screen."""
    with tempfile.TemporaryDirectory(prefix="carddraw-shots-") as tmp:   # nothing in the tree
        path = os.path.join(tmp, "screenshots.py")
        with open(path, "w") as f:
            f.write(SCRIPT)
        done = subprocess.run(["node", os.path.join(ROOT, "tools", "mpvm", "run.mjs"), "--lib",
                               os.path.join(ROOT, "tools", "vmlib"), path],
                              capture_output=True, text=True, check=True)
    return json.loads(done.stdout.rstrip().rsplit("\n", 1)[-1][len("RESULT "):])


def picture(buf, led):
    """The 128x64 MONO_VLSB buffer as an OLED in a bezel, with the LED beside it."""
    w, h = 128 * SCALE, 64 * SCALE
    img = Image.new("RGB", (w + 16 + 40, h + 16), BEZEL)
    draw = ImageDraw.Draw(img)
    draw.rectangle([8, 8, 8 + w - 1, 8 + h - 1], fill=PAPER)
    for x in range(128):
        for y in range(64):
            if buf[(y >> 3) * 128 + x] >> (y & 7) & 1:
                draw.rectangle([8 + x * SCALE, 8 + y * SCALE, 8 + x * SCALE + SCALE - 2,
                                8 + y * SCALE + SCALE - 2], fill=INK)
    cx, cy = w + 16 + 16, 8 + 16
    draw.ellipse([cx - 11, cy - 11, cx + 11, cy + 11], fill=LED.get(led, (25, 25, 25)),
                 outline=(90, 90, 90))
    return img


def files(out, shots):
    """{out/SCREEN.png: a function that writes it} for output.write."""
    return {os.path.join(out, screen + ".png"):
            (lambda path, buf=buf, led=led: picture(buf, led).save(path, optimize=True))
            for screen, (buf, led) in sorted(shots.items())}


def write(out=os.path.join(ROOT, "docs", "screens")):
    """Render every screen into out/SCREEN.png. -> the frames (screen: [buffer, LED]).
    Raises output.NotOurs (nothing written) for a folder or a file that is not the tools'."""
    output.check(out, None, TOOL)     # the folder refused before the VM runs, names after it
    shots = frames()
    output.write(files(out, shots), TOOL)
    print("%d screens written to %s" % (len(shots), os.path.relpath(out, ROOT)))
    return shots


def main(argv=None):
    p = cli.parser("screenshots", __doc__)
    p.add_argument("out", nargs="?", default=os.path.join(ROOT, "docs", "screens"),
                   metavar="OUT_DIR", help="folder for the pictures (default: docs/screens/)")
    args = p.parse_args(argv)
    try:
        write(args.out)
    except output.NotOurs as e:
        p.error("OUT_DIR: %s" % e)
    except subprocess.CalledProcessError as e:
        return vm_failed("screenshots", e)
    return 0


def vm_failed(prog, e):
    """The MicroPython VM's failure in one line (its last line of error output): exit 1."""
    said = [ln for ln in (e.stderr or "").splitlines() if ERROR.match(ln)]
    sys.stderr.write("%s: the firmware's screens failed in the MicroPython VM (exit %d): %s\n"
                     % (prog, e.returncode, said[-1].strip()[:200] if said else "no message"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
