"""One-page quick-start cards, one for players and one for referees, made of the device's own
screens (rendered by the firmware's drawing code in the MicroPython VM: tools/screenshots.py)
with a few words beside each. Pillow draws them, with its built-in font at a pinned version,
so the same firmware gives the same pictures. `make docs` runs it with the other pictures
(tools/pictures.py).

    python tools/cards.py [OUT_DIR]   # default docs/: quickstart-players.png, -referees.png

It writes those two files into OUT_DIR, which must be new, empty or the tools' own (they list
what they wrote there in its .carddraw-files; git's docs/ is theirs too). A card already there
that they did not write is refused in one line (exit status 2), before anything is written.
"""
import os
import subprocess
import sys

from PIL import Image, ImageDraw, ImageFont

import screenshots
from common import ROOT, cli, output

TOOL = "tools/cards.py"
NAMES = ("quickstart-players.png", "quickstart-referees.png")
MARGIN, GAP = 36, 28
SHOT_W, SHOT_H = 128 * screenshots.SCALE + 56, 64 * screenshots.SCALE + 16
PAGE_W = 2 * SHOT_W + GAP + 2 * MARGIN
INK, SOFT, PAPER, BAND = (20, 24, 32), (80, 86, 96), (250, 250, 246), (30, 60, 90)

PLAYERS = ("Card Draw: players' quick start",
           "Surgery, repair or a scan, one card at a time. Four buttons: RANK, HELP, DRAW, "
           "STOP. Hold one about a second for a long press (the buzzer clicks).",
           [("active", "Your action",
             "The deck, card by card: G solid (success), Y stripes (setback), R cross-hatch "
             "(complication), B dots (catastrophe), each with its count. Below, your chance "
             "to succeed and the risks: r, a red card (a complication) before the action "
             "ends; b, a black card. Then successes and complications (Comp). DRAW draws; "
             "STOP asks whether to stop."),
            ("card", "The card you drew",
             "Its colour and pattern, what it did (a first green with automatic successes: "
             "Succ +3: 3/4, what it brought), and what it means for the patient, the machine "
             "or the scan. The LED shows it: green, yellow, red, purple for black. DRAW goes "
             "on; HELP spends a redraw when you have one."),
            ("success", "Success",
             "Enough successes: finish with a minute of roleplay, or chain straight into a "
             "new action."),
            ("confirm", "Stopping short",
             "A stop before success is a failed attempt: this task cannot be tried again "
             "today. DRAW stops: a minute of roleplay, then the summary."),
            ("referee", "A black card",
             "A catastrophe. With a referee present the action waits for them; without one "
             "it fails at once."),
            ("finishing", "Finishing",
             "At least a minute of roleplay, counted down, after a success or a stop, then "
             "the summary.")],
           "Switching off is no escape: after a power cut the device comes back to the action, "
           "card and all.")

REFEREES = ("Card Draw: referees' quick start",
            "Set the task, hand the prop over, keep the powers behind the code. Hold STOP on "
            "any screen for the referee lock.",
            [("setup", "Set-up",
              "Ranks, helpers, the team's greens, the task's cards, the deck, the chance and "
              "the risks (r a red card, b a black). RANK ranks +1, HELP helpers +1 (hold: "
              "step down), STOP the task's cards (then R +1 red, H +2 red, D +1 black; Ref: "
              "when you froze them), DRAW starts. Hold DRAW: options. !code in the title: "
              "the code is still the default."),
             ("options", "Options",
              "Difficulty cards of each colour, successes needed, automatic successes, "
              "redraws, bonus greens, referee present, timed mode, buzzer, brightness, skill."),
             ("lock", "Referee lock",
              "Enter the code, 4 to 8 presses of R H D S. The default is R H R H: change "
              "it before the event. After 3 wrong tries each one costs a wait (30 s, "
              "doubling) that a power cut does not reset."),
             ("refmenu", "Referee menu",
              "A black: go on (it leaves the deck) or fail. A helper leaves, adjust the "
              "deck, undo a draw while the action runs, end it, change the code; at set-up "
              "freeze the task "
              "until unfrozen. Closes after 30 s."),
             ("adjust", "Adjust the deck",
              "DRAW picks a colour, RANK removes a card, HELP adds one. The deck then "
              "settles: 4 yellows become a red, 4 reds a black."),
             ("summary", "Summary",
              "Successes, complications and the outcome. Every draw and decision is in the "
              "log: make logs exports it.")],
            "The deck: base 2 green, 2 yellow, 1 red; +1 green a rank; +1 a helper, up to "
            "the ranks; then bonus and difficulty cards.")


def font(size):
    return ImageFont.load_default(size=size)


def wrapped(draw, text, width, face):
    """text split into lines no wider than width pixels."""
    lines, line = [], ""
    for word in text.split():
        trial = (line + " " + word).strip()
        if line and draw.textlength(trial, font=face) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line] if line else lines


def paragraph(draw, xy, text, width, face, fill, spacing=6):
    """Draw text wrapped to width at xy; return the y below it."""
    x, y = xy
    for line in wrapped(draw, text, width, face):
        draw.text((x, y), line, font=face, fill=fill)
        y += face.size + spacing
    return y


def card(spec, shots):
    """One page: a title band, the lead-in, a grid of screens with their words, a footnote."""
    title, lead, cells, foot = spec
    body, small, head = font(17), font(15), font(21)
    scratch = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    captions = [head.size + 14 + len(wrapped(scratch, words, SHOT_W, small)) * (small.size + 6)
                for _, _, words in cells]
    rows = [SHOT_H + max(captions[i:i + 2]) + GAP for i in range(0, len(cells), 2)]
    lead_h = len(wrapped(scratch, lead, PAGE_W - 2 * MARGIN, body)) * (body.size + 6)
    foot_h = len(wrapped(scratch, foot, PAGE_W - 2 * MARGIN, body)) * (body.size + 6)
    page = Image.new("RGB", (PAGE_W, 120 + lead_h + sum(rows) + foot_h + MARGIN), PAPER)
    draw = ImageDraw.Draw(page)
    draw.rectangle([0, 0, PAGE_W, 84], fill=BAND)
    draw.text((MARGIN, 24), title, font=font(34), fill=PAPER)
    y = paragraph(draw, (MARGIN, 104), lead, PAGE_W - 2 * MARGIN, body, INK) + 16
    for i, (screen, name, words) in enumerate(cells):
        x = MARGIN + (i % 2) * (SHOT_W + GAP)
        top = y + sum(rows[:i // 2])
        buf, led = shots[screen]
        page.paste(screenshots.picture(buf, led), (x, top))
        draw.text((x, top + SHOT_H + 8), name, font=head, fill=INK)
        paragraph(draw, (x, top + SHOT_H + 14 + head.size), words, SHOT_W, small, SOFT)
    paragraph(draw, (MARGIN, y + sum(rows)), foot, PAGE_W - 2 * MARGIN, body, INK)
    return page


def build(shots):
    """{file name: page image} from the screens (screenshots.frames())."""
    return dict(zip(NAMES, (card(PLAYERS, shots), card(REFEREES, shots))))


def files(out, pages):
    """{out/NAME: a function that writes it} for output.write."""
    return {os.path.join(out, name): (lambda path, page=page: page.save(path, optimize=True))
            for name, page in pages.items()}


def main(argv=None):
    p = cli.parser("cards", __doc__)
    p.add_argument("out", nargs="?", default=os.path.join(ROOT, "docs"), metavar="OUT_DIR",
                   help="folder for the two cards (default: docs/)")
    args = p.parse_args(argv)
    try:
        output.check(args.out, NAMES, TOOL)          # refused before the VM runs
        pages = build(screenshots.frames())
        output.write(files(args.out, pages), TOOL)
    except output.NotOurs as e:
        p.error("OUT_DIR: %s" % e)
    except subprocess.CalledProcessError as e:
        return screenshots.vm_failed("cards", e)
    print("%d quick-start cards written to %s" % (len(pages), os.path.relpath(args.out, ROOT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
