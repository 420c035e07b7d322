"""The README's picture of the terminal simulator (docs/img/terminal.png): tools/sim/sim.mjs plays
a few keys from a fixed power-on seed on simulated time (each key then 0.5 s), and its 24-bit
colour output is drawn here cell by cell with Pillow: the OLED's half-blocks as exact halves,
the case's box lines as lines, the rest in Pillow's own monospaced bitmap font (it comes with
the pinned Pillow), so the same firmware always gives the same picture. `make docs` runs it.

    python tools/termshot.py [OUT_FILE]                 # default docs/img/terminal.png
    python tools/termshot.py --keys rdd --seed 4 FILE   # the keys and seed of the default

It writes OUT_FILE and nothing else (its folder made if need be). An OUT_FILE already there
must be the tools' own: a picture they drew (its PNG text says so), one their list in its
folder names, or one git holds as it is (docs/img/terminal.png); any other is refused in one
line, exit status 2, before the simulator runs.
"""
import argparse
import os
import re
import subprocess
import sys

from PIL import Image, ImageDraw, ImageFont, PngImagePlugin

from common import ROOT, cli, output

OUT = os.path.join(ROOT, "docs", "img", "terminal.png")
TOOL = "tools/termshot.py"
KEYS = "rdd"        # ranks 2, start, draw: the first card on show
SEED = 4            # the power-on seed: a red card first
KEY_CHARS = "rhdsRHDS"
MAX_KEYS = 40
ERROR = re.compile(r"^[A-Z]\w*(Error|Exception): ")   # the last says what went wrong
SGR = re.compile(r"\x1b\[([0-9;]*)m")
CELL_W, CELL_H = 7, 14   # px: a character cell; a half-block pixel is 7 x 7
PAD = 12
DEFAULT_FG, DEFAULT_BG = (204, 204, 204), (16, 17, 20)
# box lines: which arms leave the cell's centre (left, right, up, down)
BOX = {"\u2500": "lr", "\u2502": "ud", "\u250c": "rd", "\u256d": "rd", "\u2510": "ld",
       "\u256e": "ld", "\u2514": "ru", "\u2570": "ru", "\u2518": "lu", "\u256f": "lu"}


def sim_output(keys=KEYS, seed=SEED):
    """What `echo KEYS | node tools/sim/sim.mjs --seed SEED --color --full` prints."""
    done = subprocess.run(["node", os.path.join(ROOT, "tools", "sim", "sim.mjs"), "--seed",
                           str(seed), "--color", "--full", "--no-bell"], input=keys,
                          capture_output=True, text=True, timeout=120, cwd=ROOT, check=True)
    return done.stdout


def cells(text):
    """24-bit colour terminal output -> lines of (char, fg, bg) as a terminal shows them."""
    lines = [[]]
    fg = bg = None
    inverse = False
    pos = 0
    for m in list(SGR.finditer(text)) + [None]:
        for ch in text[pos:m.start() if m else len(text)]:
            if ch == "\n":
                lines.append([])
            else:
                f, b = fg or DEFAULT_FG, bg or DEFAULT_BG
                lines[-1].append((ch, b, f) if inverse else (ch, f, b))
        if not m:
            break
        pos = m.end()
        codes = [int(c) for c in m.group(1).split(";") if c] or [0]
        i = 0
        while i < len(codes):
            if codes[i] == 0:
                fg = bg = None
                inverse = False
            elif codes[i] == 7:
                inverse = True
            elif codes[i] in (38, 48) and codes[i + 1:i + 2] == [2]:
                rgb = tuple(codes[i + 2:i + 5])
                fg, bg = (rgb, bg) if codes[i] == 38 else (fg, rgb)
                i += 4
            i += 1
    while lines and not lines[-1]:
        lines.pop()
    return lines


def picture(text):
    """The terminal output as a picture: each cell CELL_W x CELL_H on the terminal's ground."""
    rows = cells(text)
    width = max(len(row) for row in rows)
    img = Image.new("RGB", (2 * PAD + width * CELL_W, 2 * PAD + len(rows) * CELL_H), DEFAULT_BG)
    draw = ImageDraw.Draw(img)
    face = ImageFont.load_default_imagefont()   # 6 x 11, monospaced, part of Pillow
    half = CELL_H // 2
    for r, row in enumerate(rows):
        y = PAD + r * CELL_H
        for c, (ch, fg, bg) in enumerate(row):
            x = PAD + c * CELL_W
            box = [x, y, x + CELL_W - 1, y + CELL_H - 1]
            if bg != DEFAULT_BG:
                draw.rectangle(box, fill=bg)
            if ch == "\u2588":
                draw.rectangle(box, fill=fg)
            elif ch == "\u2580":
                draw.rectangle([x, y, x + CELL_W - 1, y + half - 1], fill=fg)
            elif ch == "\u2584":
                draw.rectangle([x, y + half, x + CELL_W - 1, y + CELL_H - 1], fill=fg)
            elif ch in BOX:
                cx, cy = x + CELL_W // 2, y + half
                arms = BOX[ch]
                if "l" in arms:
                    draw.line([x, cy, cx, cy], fill=fg)
                if "r" in arms:
                    draw.line([cx, cy, x + CELL_W - 1, cy], fill=fg)
                if "u" in arms:
                    draw.line([cx, y, cx, cy], fill=fg)
                if "d" in arms:
                    draw.line([cx, cy, cx, y + CELL_H - 1], fill=fg)
            elif ch != " ":
                draw.text((x, y + 2), ch, font=face, fill=fg)
    return img


def make(keys=KEYS, seed=SEED):
    """The picture of the simulator after `keys` from power-on seed `seed`."""
    return picture(sim_output(keys, seed))


def save(img, path):
    """The picture as a PNG whose text says which tool drew it (output.marked_png)."""
    info = PngImagePlugin.PngInfo()
    for key, value in output.png_text(TOOL).items():
        info.add_text(key, value)
    img.save(path, optimize=True, pnginfo=info)


def key_arg(text):
    if not text or len(text) > MAX_KEYS or any(c not in KEY_CHARS for c in text):
        raise argparse.ArgumentTypeError("keys are 1 to %d of %s (lower case a press, upper case "
                                         "a hold), not %r" % (MAX_KEYS, " ".join(KEY_CHARS),
                                                              text[:20]))
    return text


def main(argv=None):
    p = cli.parser("termshot", __doc__)
    p.add_argument("out", nargs="?", default=OUT, metavar="OUT_FILE",
                   help="the picture to write, a .png (default: docs/img/terminal.png)")
    p.add_argument("--keys", type=key_arg, default=KEYS,
                   help="the keys played from power-on (default: %s)" % KEYS)
    p.add_argument("--seed", type=cli.whole("seed", 0, 999999999), default=SEED,
                   help="the simulator's power-on seed (default: %d)" % SEED)
    args = p.parse_args(argv)
    if not args.out.lower().endswith(".png"):
        p.error("OUT_FILE: %s is no .png file name" % args.out)
    if os.path.isdir(args.out):
        p.error("OUT_FILE: %s is a folder, not a file" % args.out)
    try:
        output.check_file(args.out, TOOL, mine=output.marked_png)
        img = make(args.keys, args.seed)
        save(img, output.claim_file(args.out, TOOL, mine=output.marked_png))
    except output.NotOurs as e:
        p.error("OUT_FILE: %s" % e)
    except subprocess.CalledProcessError as e:
        said = [ln for ln in (e.stderr or "").splitlines() if ERROR.match(ln)]
        sys.stderr.write("termshot: the simulator failed (exit %d): %s\n" % (
            e.returncode, said[-1].strip()[:200] if said else "run it by itself to see why: "
            "echo %s | node tools/sim/sim.mjs --seed %d --full" % (args.keys, args.seed)))
        return 1
    print("the terminal picture written to %s" % os.path.relpath(args.out, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
