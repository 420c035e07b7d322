"""The pictures README.md shows are what the firmware draws now (`make docs`, tools/pictures.py,
makes them all): the screens (tools/screenshots.py -> docs/screens/) and the quick-start cards
(tools/cards.py -> docs/quickstart-*.png) made again into a temporary folder and compared
with the committed files pixel by pixel (decoded pixels, not PNG bytes); the terminal picture
(tools/termshot.py) made again from the simulator on its fixed seed and compared the same way.
The web app's pictures need Chromium: host_tests/test_web_offline.py reads web.png's OLED back
out of it and stages phone.png's view again. README shows every picture `make docs` makes
(the screens, the cards, terminal.png, web.png, phone.png), and docs/ holds no other picture."""
import os
import re
import subprocess
import sys

from PIL import Image, ImageChops

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import cards  # noqa: E402
import pictures  # noqa: E402
import screenshots  # noqa: E402
import termshot  # noqa: E402

STALE = "run make docs: %s is not what the firmware draws now"


def same(made, path):
    """made (a PIL image or a PNG path) has the pixels of the PNG at path."""
    if isinstance(made, str):
        made = Image.open(made)
    with Image.open(path) as committed:
        if committed.size != made.size:
            return False
        diff = ImageChops.difference(committed.convert("RGB"), made.convert("RGB"))
        return diff.getbbox() is None


def screen_names():
    """The screens' pictures in docs/screens/ (not the tools' list of what they wrote there)."""
    return sorted(n[:-4] for n in os.listdir(os.path.join(ROOT, "docs", "screens"))
                  if n.endswith(".png"))


def test_the_screens_and_the_quick_start_cards_are_made_from_the_current_screens(tmp_path):
    shots = screenshots.write(str(tmp_path / "screens"))
    committed = screen_names()
    assert committed == sorted(shots), STALE % "docs/screens/ (its screens)"
    stale = [name for name in sorted(shots)
             if not same(str(tmp_path / "screens" / (name + ".png")),
                         os.path.join(ROOT, "docs", "screens", name + ".png"))]
    assert not stale, STALE % ", ".join("docs/screens/%s.png" % n for n in stale)
    pages = cards.build(shots)
    assert sorted(pages) == sorted(pictures.CARDS)
    for name, page in pages.items():
        assert page.width < page.height          # a portrait page
        assert same(page, os.path.join(ROOT, "docs", name)), STALE % ("docs/" + name)


def test_the_terminal_picture_is_the_simulators_output_now():
    made = termshot.make()
    assert same(made, os.path.join(ROOT, pictures.TERMINAL)), STALE % "docs/img/terminal.png"


def test_the_terminal_picture_is_drawn_from_the_simulators_colours_cell_by_cell():
    text = termshot.sim_output()
    assert "\x1b[38;2;" in text and "\u2580" in text        # 24-bit colour, half-blocks
    assert termshot.sim_output() == text                   # a fixed seed, simulated time
    rows = termshot.cells(text)
    img = termshot.picture(text)
    assert img.size == (2 * termshot.PAD + max(map(len, rows)) * termshot.CELL_W,
                        2 * termshot.PAD + len(rows) * termshot.CELL_H)
    # the red LED block of the case's top line is drawn in its own colour
    (at,) = [c for c, (ch, fg, _) in enumerate(rows[0]) if ch == "\u2588" and fg == (255, 0, 0)][:1]
    x = termshot.PAD + at * termshot.CELL_W + 3
    assert img.getpixel((x, termshot.PAD + 7)) == (255, 0, 0)
    # the OLED's first half-block row: the title bar lit in the screen's ink
    oled = [(c, fg) for c, (ch, fg, bg) in enumerate(rows[2]) if bg == (6, 8, 12)]
    assert oled and all(fg == oled[0][1] for _, fg in oled)


def readme_pictures():
    """The pictures README.md shows or links to: paths relative to the repository."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    return set(re.findall(r"\]\(\s*(docs/[^)\s]+\.png)\)", text))


def docs_pictures():
    found = set()
    for folder, _, names in os.walk(os.path.join(ROOT, "docs")):
        for name in names:
            if name.endswith(".png"):
                found.add(os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/"))
    return found


def test_readme_shows_every_picture_make_docs_makes_and_each_is_there():
    shown = readme_pictures()
    made = {"docs/screens/%s.png" % name for name in screen_names()}
    made |= {"docs/" + name for name in pictures.CARDS}
    made |= {path.replace(os.sep, "/") for path in (pictures.TERMINAL, pictures.WEB, pictures.PHONE)}
    assert shown == made, "README.md does not show: %s; shows what make docs does not make: %s" % (
        sorted(made - shown), sorted(shown - made))
    assert made == docs_pictures(), "docs/ holds pictures make docs does not make: %s" % sorted(
        docs_pictures() - made)
    for path in shown:
        with Image.open(os.path.join(ROOT, path)) as img:
            assert img.width > 100 and img.height > 100, path


def test_make_docs_is_a_target_after_setup_and_in_make_help():
    with open(os.path.join(ROOT, "Makefile")) as f:
        makefile = f.read()
    assert re.search(r"^docs: setup chromium\n\t\$\(PY\) tools/pictures.py \$\(ARGS\)$",
                     makefile, re.M)
    assert re.search(r"^\.PHONY:.* docs\b", makefile, re.M)
    done = subprocess.run(["make", "-s", "help"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and "make docs " in done.stdout
    # no test writes the pictures (as UPDATE_DOCS=1 once made the web app's tests do): make docs
    tests = [os.path.join(ROOT, "host_tests", name) for name in os.listdir(
        os.path.join(ROOT, "host_tests")) if name.endswith(".py") and name != "test_pictures.py"]
    assert os.path.join(ROOT, "host_tests", "test_web_offline.py") in tests
    for path in tests:
        with open(path, encoding="utf-8") as f:
            assert "UPDATE_DOCS" not in f.read(), path


def test_pictures_makes_only_the_parts_asked_for_under_the_root_given(tmp_path):
    written = pictures.make(str(tmp_path), ("terminal",))
    assert written == [pictures.TERMINAL]
    assert same(str(tmp_path / pictures.TERMINAL), os.path.join(ROOT, pictures.TERMINAL))
    found = {os.path.relpath(os.path.join(b, n), str(tmp_path)) for b, _, ns in os.walk(str(tmp_path))
             for n in ns}
    assert found == {pictures.TERMINAL, os.path.join("docs", "img", ".carddraw-files")}
    assert open(str(tmp_path / "docs" / "img" / ".carddraw-files")).read().splitlines()[1:] == [
        "terminal.png"]                                  # the tools' list of what they wrote


def test_one_pixel_changed_is_a_picture_that_no_longer_matches(tmp_path):
    path = os.path.join(ROOT, "docs", "screens", "active.png")
    with Image.open(path) as img:
        changed = img.convert("RGB")
    x, y = changed.width // 2, changed.height // 2
    r, g, b = changed.getpixel((x, y))
    changed.putpixel((x, y), (255 - r, g, b))
    assert same(changed, path) is False
    with Image.open(path) as img:                         # other bytes, the same pixels
        img.save(str(tmp_path / "again.png"), optimize=False, compress_level=1)
    assert same(str(tmp_path / "again.png"), path)
