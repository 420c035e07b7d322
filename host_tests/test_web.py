"""The web app (web/, built by tools/web/build.py) in Chromium, driven by Playwright.

The site is built into a temporary folder and served on 127.0.0.1 on a free port. The page
runs the firmware in the MicroPython VM; the tests press its buttons (touch, mouse, keys),
read the LED element and the OLED element's canvas, and compare the pixels with the
firmware's own framebuf rendering of the same view. Then offline: the service worker serves
the reload and the action resumes from the flash kept in the browser. Erase flash asks for the
referee code, which the firmware checks (`unlock CODE`), wrong tries and waits its own.
README's picture of the app (docs/img/web.png, made by `make docs`: tools/webshot.py) shows
what the firmware draws now: its OLED, read back out of the committed picture pixel by pixel,
is the firmware's rendering of the same state. A phone screenshot goes to a temporary folder.
"""
import ast
import os
import re
import ssl
import subprocess
import sys
import tempfile
import threading
import urllib.request

import pytest
from PIL import Image

from conftest import FIRMWARE, ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "web"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import build as webbuild  # noqa: E402
import webshot  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
# A name for this machine that is not localhost: a page from it over plain HTTP is not a secure
# context, as on a phone reaching the machine over the network.
LAN_NAME = "carddraw.test"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--host-resolver-rules=MAP %s 127.0.0.1" % LAN_NAME]
# Every wait below is on a real signal (the page's state); this is only how long a signal may
# take on a busy machine before the test says it never came.
PATIENCE_MS = 120_000
# Screenshots go outside the tree (no test writes into it); README's pictures are make docs'
ARTIFACTS = os.environ.get("CARDDRAW_ARTIFACTS") or os.path.join(tempfile.gettempdir(),
                                                                 "carddraw-artifacts")
WEB_PNG = os.path.join(ROOT, "docs", "img", "web.png")
PHONE = {"width": 390, "height": 844}


def board_colours():
    """The LED's colour for each card (config.LED_COLOURS, which board.py shows)."""
    from carddraw import config
    return config.LED_COLOURS


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("web"))
    webbuild.build(out)
    httpd = webbuild.server(out, "127.0.0.1", 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d/" % httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    assert os.path.exists(CHROMIUM), \
        "Chromium is missing: apt-get update && apt-get install -y chromium (make test does it)"
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def phone(browser):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    ctx.set_default_timeout(PATIENCE_MS)
    return ctx


def open_device(ctx, url):
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    console = []
    page.on("console", lambda m: console.append("%s: %s" % (m.type, m.text)))
    page.console = console
    page.goto(url)
    wait_ready(page)
    return page


def wait_ready(page, boots=0):
    """Until the device has booted more than `boots` times in this page (0: at all); a device
    that never comes up fails with what the page said."""
    try:
        page.wait_for_function("n => window.carddraw && window.carddraw.ready && "
                               "Number(document.body.dataset.boots) > n", arg=boots)
    except Exception as e:
        said = page.evaluate("document.querySelector('#status').textContent")
        raise AssertionError("the device did not come up: status %r, errors %r, console %r"
                             % (said, page.errors, page.console[-10:])) from e


def boots(page):
    return int(page.get_attribute("body", "data-boots"))


def screen_text(page):
    """The screen's text once its odds are worked out: the pass that answers a press shows
    them as "..." until the next one (the firmware's quick view)."""
    page.wait_for_function("() => !document.querySelector('#screen-text').textContent"
                           ".includes('...')")
    return page.text_content("#screen-text")


def wait_text(page, text):
    page.wait_for_function("t => document.querySelector('#screen-text').textContent.includes(t)",
                           arg=text)


def wait_saved(page):
    """Until the flash (localStorage) holds the device as it is now: saved at or after the
    simulated time now shown."""
    page.wait_for_function("() => Number(document.body.dataset.savedT) >= "
                           "Number(document.body.dataset.t)")


OLED_BYTES = """() => {
  // the OLED element's canvas, as MONO_VLSB bytes: lit where the pixel is bright
  const canvas = document.querySelector('#oled').shadowRoot.querySelector('canvas');
  const px = canvas.getContext('2d').getImageData(0, 0, 128, 64).data;
  const out = new Array(1024).fill(0);
  for (let y = 0; y < 64; y++)
    for (let x = 0; x < 128; x++)
      if (px[(y * 128 + x) * 4] > 64) out[(y >> 3) * 128 + x] |= 1 << (y & 7);
  return out;
}"""

LED = "() => { const l = document.querySelector('#led'); return [l.ledRed, l.ledGreen, l.ledBlue]; }"


def test_buttons_led_and_oled_match_the_firmwares_rendering(site, browser):
    ctx = phone(browser)
    page = open_device(ctx, site)
    page.evaluate("carddraw.line('unlock RHRH')")      # bench mode (the default code) for seed
    assert page.evaluate("carddraw.line('seed 5')") == [{"ok": "seed", "seed": 5}]  # yellow first
    # the seed's reply shows set-up's odds as "..." until a pass later, which could come
    # between reading the OLED and the firmware's rendering: compare once they are there
    screen_text(page)
    assert page.evaluate(OLED_BYTES) == page.evaluate("carddraw.renderView()")
    page.tap("button.big[data-button=DRAW]")           # touch: start the action
    wait_text(page, "D:draw  S:stop")
    page.click("button.big[data-button=DRAW]")         # mouse: draw a card
    wait_text(page, "D:go on")
    show = page.evaluate("carddraw.line('show')")[0]
    assert show["screen"] == "card" and show["draws"] == 1
    want = [c / 255 for c in board_colours()[show["led"]]]
    assert page.evaluate(LED) == pytest.approx(want)
    assert show["led"] in page.text_content("#led-name") or show["led"] == "black"
    # the pixels on the page are the firmware's own rendering of the view it shows
    oled = page.evaluate(OLED_BYTES)
    assert oled == page.evaluate("carddraw.renderView()")
    assert oled == page.evaluate("carddraw.screen()")
    assert sum(bin(b).count("1") for b in oled) > 300
    assert screen_text(page).splitlines()[0] == show["lines"][0]
    page.keyboard.press("d")                           # a key: go on, the deck again (R20)
    wait_text(page, "D:draw  S:stop")
    page.wait_for_function("document.querySelector('#led').ledRed === 0 && "
                           "document.querySelector('#led').ledGreen === 0")
    assert page.errors == []
    ctx.close()


def test_long_press_keys_and_the_wokwi_pushbuttons(site, browser):
    ctx = phone(browser)
    page = open_device(ctx, site)
    box = page.locator("button.big[data-button=DRAW]").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    wait_text(page, "Options")                         # held: a long press (0.8 s) fires
    page.mouse.up()
    page.keyboard.press("s")
    wait_text(page, "Set-up")
    page.keyboard.press("r")
    wait_text(page, "Ranks 2  Help 0")
    page.keyboard.press("Shift+R")                     # R: held, ranks step down
    wait_text(page, "Ranks 1  Help 0")
    page.click("wokwi-pushbutton[data-button=HELP]")
    wait_text(page, "Ranks 1  Help 1")
    assert page.errors == []
    ctx.close()


def test_offline_reload_resumes_the_action_from_the_service_worker_cache(site, browser):
    ctx = phone(browser)
    page = open_device(ctx, site)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    assert page.get_attribute("body", "data-offline") == "ready"
    assert page.is_hidden("#offline")
    page.evaluate("carddraw.line('unlock RHRH')")
    page.evaluate("carddraw.line('seed 6')")   # yellow first (carddraw/rng.py)
    page.click("button.big[data-button=DRAW]")
    wait_text(page, "D:draw  S:stop")
    page.click("button.big[data-button=DRAW]")
    wait_text(page, "D:go on")
    wait_saved(page)
    before = screen_text(page)

    ctx.set_offline(True)
    page.reload()
    wait_ready(page)
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    # offline indeed: what the cache lacks cannot be fetched
    assert page.evaluate("fetch('not-cached.txt').then(() => 'fetched', () => 'failed')") == "failed"
    wait_text(page, before.splitlines()[1])
    # resumed: the same card, no escape; the title said SEED until the reload, not after
    assert screen_text(page).splitlines()[1:] == before.splitlines()[1:]
    assert "SEED" in before.splitlines()[0] and "SEED" not in screen_text(page).splitlines()[0]
    page.click("button.big[data-button=DRAW]")
    wait_text(page, "D:draw  S:stop")
    wait_saved(page)
    active = screen_text(page)
    booted = boots(page)
    page.click("#power")                                # switched off and on: resumes again
    wait_ready(page, booted)
    assert screen_text(page) == active
    # installable: the manifest and its icons come from the cache too
    manifest = page.evaluate("fetch('manifest.webmanifest').then(r => r.json())")
    assert manifest["display"] == "standalone" and manifest["start_url"] == "./"
    sizes = set()
    for icon in manifest["icons"]:
        ok = page.evaluate("u => fetch(u).then(r => r.ok && r.headers.get('content-type'))",
                           icon["src"])
        assert ok == "image/png"
        sizes.add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes
    assert page.errors == []
    ctx.close()


def test_phone_layout_and_screenshot(site, browser):
    ctx = phone(browser)
    page = open_device(ctx, site)
    page.evaluate("carddraw.line('unlock RHRH')")
    page.evaluate("carddraw.line('seed 4')")
    page.click("button.big[data-button=DRAW]")
    wait_text(page, "D:draw  S:stop")
    page.click("button.big[data-button=DRAW]")
    wait_text(page, "D:go on")
    page.wait_for_function("!document.querySelector('#note').classList.contains('on')")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for name in ("RANK", "HELP", "DRAW", "STOP"):
        box = page.locator("button.big[data-button=%s]" % name).bounding_box()
        assert box["height"] >= 48 and box["width"] >= 120      # thumb-sized
        assert box["y"] + box["height"] <= PHONE["height"]      # no scrolling to reach it
    oled = page.locator("#oled").bounding_box()
    assert oled["width"] >= 300                                  # the OLED fills the width
    led = page.locator("#led").bounding_box()
    assert led["width"] >= 30 and led["height"] >= 40            # the LED large, a glance
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.screenshot(path=os.path.join(ARTIFACTS, "web-phone.png"))
    ctx.close()


def test_readmes_picture_of_the_app_shows_what_the_firmware_draws_now(site, browser):
    """docs/img/web.png is a whole page in Chromium, its pixels those of this machine's fonts;
    its OLED is the firmware's: read back out of the committed picture (its place is in the
    picture's PNG text), it must be the firmware's own rendering of the picture's state, made
    now in the app with the picture's seed and taps (tools/webshot.py)."""
    ctx = webshot.phone(browser)
    page = webshot.stage(ctx, site)
    drawn = page.evaluate("carddraw.renderView()")
    assert drawn == page.evaluate(OLED_BYTES)              # the page shows it, as it should
    with Image.open(WEB_PNG) as committed:
        assert committed.size == (PHONE["width"] * webshot.SCALE,
                                  PHONE["height"] * webshot.SCALE)
        box = [int(v) for v in committed.info["oled"].split(",")]
        assert tuple(box) == webshot.oled_box(page), \
            "run make docs: the OLED is elsewhere on the page than in docs/img/web.png"
        assert webshot.read_oled(committed) == drawn, \
            "run make docs: docs/img/web.png's OLED is not what the firmware draws now"
        painted = committed.convert("RGB")
    # the reading sees each pixel: the top left one painted over is that one bit only
    x, y, w, h = box
    painted.paste((0, 0, 0) if drawn[0] & 1 else (255, 255, 255),
                  (x, y, x + w // 128, y + h // 64))
    read = webshot.read_oled(painted, box)
    assert read[0] == drawn[0] ^ 1 and read[1:] == drawn[1:]
    assert webshot.read_oled(webshot.shoot(page)) == drawn   # a picture made now reads the same
    ctx.close()


# -- Erase flash: only with the referee code, checked by the firmware (`unlock CODE`) ---------
ERASES = ("Erases the settings, the referee code (back to R H R H), the action in progress and "
          "the log. Export the log first: make logs.")


def start_action(page):
    page.tap("button.big[data-button=DRAW]")
    wait_text(page, "D:draw  S:stop")
    wait_saved(page)


def shown(page):
    return page.evaluate("carddraw.line('show')")[0]


STARS = "n => document.querySelector('#erase-code').textContent === '*'.repeat(n)"


def enter_code(page, code, keys=False):
    """The code into the open dialog, a * a press: its R H D S buttons tapped, or the letters
    typed; then OK (or Enter), checked once the entry is cleared (the reply is in by then)."""
    if keys:
        page.keyboard.type(code.lower())
    else:
        for letter in code:
            page.tap("#erase-dialog [data-code=%s]" % letter)
    page.wait_for_function(STARS, arg=len(code))
    if keys:
        page.keyboard.press("Enter")
    else:
        page.tap("#erase-ok")
    page.wait_for_function(STARS, arg=0)


def said(page):
    """What the dialog says after OK: the firmware's message (the dialog still open)."""
    assert page.is_visible("#erase-dialog")
    return page.text_content("#erase-said")


def test_erase_flash_says_what_it_erases_cancel_keeps_it_all_and_the_code_erases(site, browser):
    ctx = phone(browser)
    page = open_device(ctx, site)
    start_action(page)
    booted = boots(page)
    page.click("#erase")
    assert page.is_visible("#erase-dialog")
    assert page.text_content("#erase-what") == ERASES
    box = page.locator("#erase-dialog").bounding_box()     # on a phone: all of it on screen
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
    for sel in ("[data-code=R]", "[data-code=S]", "#erase-ok", "#erase-cancel"):
        assert page.locator("#erase-dialog " + sel).bounding_box()["height"] >= 44
    page.tap("#erase-dialog [data-code=R]")
    page.tap("#erase-dialog [data-code=H]")
    page.wait_for_function(STARS, arg=2)
    page.tap("#erase-cancel")                               # Cancel: nothing erased
    page.locator("#erase-dialog").wait_for(state="hidden")
    page.wait_for_function("document.querySelector('#status').textContent === 'Nothing erased.'")
    page.click("#erase")
    assert page.text_content("#erase-code") == ""           # a new entry each time
    page.keyboard.press("Escape")                           # Escape is Cancel too
    page.locator("#erase-dialog").wait_for(state="hidden")
    assert shown(page)["screen"] == "active" and boots(page) == booted
    page.click("#erase")
    enter_code(page, "RHRH")                                # a fresh device's code: erased
    wait_ready(page, booted)
    assert page.is_hidden("#erase-dialog")
    assert shown(page)["screen"] == "setup"
    page.wait_for_function("document.querySelector('#status').textContent === "
                           "'Flash erased: the device starts afresh.'")
    assert page.errors == []
    ctx.close()


def test_erase_flash_wrong_codes_are_the_firmwares_tries_and_its_wait(site, browser):
    ctx = phone(browser)
    page = open_device(ctx, site)
    start_action(page)
    booted = boots(page)
    page.click("#erase")
    enter_code(page, "RHDD", keys=True)                    # typed: the keys go to the dialog
    assert said(page).startswith("Wrong code")
    assert page.text_content("#erase-code") == ""
    show = shown(page)
    assert show["screen"] == "active" and show["draws"] == 0   # no "d" reached the device
    assert boots(page) == booted
    # the try is counted on the device's flash: a reload keeps it
    page.tap("#erase-cancel")
    wait_saved(page)
    page.reload()
    wait_ready(page)
    assert shown(page)["screen"] == "active"
    booted = boots(page)
    page.click("#erase")
    enter_code(page, "DDDD", keys=True)
    assert said(page).startswith("Wrong code")
    enter_code(page, "SSSS", keys=True)                    # the 3rd wrong try (one before the
    assert "Locked: wait" in said(page)                    # reload): the firmware's wait
    enter_code(page, "RHRH", keys=True)                    # even the right code: refused
    assert said(page).startswith("Locked: wait")
    assert shown(page)["screen"] == "active" and boots(page) == booted
    page.tap("#erase-cancel")
    page.evaluate("carddraw.line('wait 30000')")           # the wait ends
    page.click("#erase")
    enter_code(page, "RHRH", keys=True)
    wait_ready(page, booted)
    assert shown(page)["screen"] == "setup"
    assert page.errors == []
    ctx.close()


# -- quick taps, offline use only from a secure context, HTTPS, Chromium from make --
def config_range(name):
    """config.SETTINGS[name] = (default, low, high), read from the source."""
    with open(os.path.join(FIRMWARE, "carddraw", "config.py")) as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == name:
                    return ast.literal_eval(value)
    raise AssertionError("no %r in config.py" % name)


TAPS = """([name, n, apart]) => new Promise((done) => {
  // n touches of a pad button, each down 20 ms, starting `apart` ms after the one before
  const el = document.querySelector(`button.big[data-button=${name}]`);
  const touch = (type, id) => el.dispatchEvent(new PointerEvent(type,
    { pointerId: id, pointerType: 'touch', isPrimary: true, bubbles: true, cancelable: true }));
  for (let i = 0; i < n; i++) {
    setTimeout(() => touch('pointerdown', 10 + i), i * apart);
    setTimeout(() => { touch('pointerup', 10 + i); if (i === n - 1) done(); }, i * apart + 20);
  }
})"""


def ranks_shown(page):
    found = re.search(r"Ranks (\d+)", screen_text(page))
    assert found, screen_text(page)
    return int(found.group(1))


def test_five_taps_40_ms_apart_are_five_presses(site, browser):
    ctx = phone(browser)
    page = open_device(ctx, site)
    wait_text(page, "Ranks")
    _, low, high = config_range("ranks")
    start = ranks_shown(page)
    page.evaluate(TAPS, ["RANK", 5, 40])
    page.wait_for_function("document.body.dataset.queued === '0'")   # every press played
    want = start
    for _ in range(5):                                  # R3: ranks wrap round, 0 only for a scan
        want = want + 1 if want < high else max(low, 1)
    wait_text(page, "Ranks %d " % want)
    assert ranks_shown(page) == want
    assert page.errors == []
    ctx.close()


def test_offline_use_unavailable_is_said_on_screen_outside_a_secure_context(site, browser):
    ctx = phone(browser)
    port = site.rstrip("/").rsplit(":", 1)[1]
    page = open_device(ctx, "http://%s:%s/" % (LAN_NAME, port))   # as a phone on the network
    assert page.evaluate("window.isSecureContext") is False
    note = page.locator("#offline")
    note.wait_for(state="visible")
    assert "Offline use is not available" in note.text_content()
    assert "HTTPS or localhost" in note.text_content()
    box = note.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]   # on screen
    assert page.get_attribute("body", "data-offline") == "unavailable"
    page.keyboard.press("r")                            # the device itself still works
    wait_text(page, "Ranks 2")
    assert page.errors == []
    ctx.close()


def test_https_serves_the_page_and_service_worker_with_a_certificate_made_on_the_spot(tmp_path):
    out = str(tmp_path / "site")
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tools", "web", "build.py"),
                             "--out", out, "--serve", "--https", "--host", "127.0.0.1",
                             "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        lines = []
        for line in proc.stdout:                        # until it says it is serving
            lines.append(line)
            if "Ctrl-C" in line:
                break
        printed = "".join(lines)
        url = re.search(r"https://127\.0\.0\.1:\d+/", printed).group(0)
        assert "accept it once" in printed
        folder = re.search(r"\(in (\S+)\)", printed).group(1)
        assert not os.path.abspath(folder).startswith(ROOT)          # never in the repository
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE
        with open(os.path.join(out, "index.html"), "rb") as f:
            index = f.read()
        with urllib.request.urlopen(url, context=insecure, timeout=60) as r:
            assert r.read() == index
        with urllib.request.urlopen(url + "sw.js", context=insecure, timeout=60) as r:
            assert b"caches.open" in r.read()
        # the certificate names this machine for a phone, and localhost for this browser
        pem = ssl.get_server_certificate(("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/"))))
        from cryptography import x509
        names = x509.load_pem_x509_certificate(pem.encode()).extensions.get_extension_for_class(
            x509.SubjectAlternativeName).value
        assert "localhost" in names.get_values_for_type(x509.DNSName)
        assert "127.0.0.1" in [str(ip) for ip in names.get_values_for_type(x509.IPAddress)]
        # plain HTTP on the HTTPS port gets no page
        with pytest.raises(OSError):
            urllib.request.urlopen(url.replace("https", "http"), timeout=60).read()
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert not os.path.exists(folder)                   # the key goes with the server


# make chromium (what make test runs first): host_tests/test_make_chromium.py


def test_ci_runs_make_test_and_nothing_else():
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        commands = [ln.strip() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
    assert commands == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "make test"]
