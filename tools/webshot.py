"""The README's pictures of the web app on a phone: the device view (docs/img/web.png) and the
phone view (docs/img/phone.png). The site that tools/web/build.py makes, built into a
temporary folder and served on 127.0.0.1, opened in Debian's Chromium (/usr/bin/chromium,
through Playwright; never a downloaded browser) as a 390 x 844 phone at twice the pixels.

The app keys the device's generator from the browser's crypto.getRandomValues; here that one
source of chance answers a fixed stream (ENTROPY: xorshift from STREAM_SEED), so the same
firmware draws the same cards: RANK, DRAW, DRAW, a second of quiet before each (the generator
hashes its next block in an idle pass: the same bytes in the same order every time), and a
red card is on show. `make docs` runs it.

    python tools/webshot.py [OUT_FILE] [--phone PHONE_FILE]
        default docs/img/web.png, and phone.png beside OUT_FILE

web.png carries the OLED's place in it (PNG text "oled": x,y,w,h in pixels), so a test can read
the screen back out of the committed picture, pixel by pixel, and compare it with the
firmware's own rendering of the same view; phone.png carries the View it shows (PNG text
"view": its screen, lines and picture as JSON), so a test can stage the app again and compare
(host_tests/test_web_offline.py). It writes the two files and nothing else (their folders made
if need be; the site's folder is a temporary one, removed after). A file already there must
be the tools' own: a picture they drew (its PNG text says so), one their list in its folder
names, or one git holds as it is; any other is refused in one line, exit status 2, before
Chromium starts.
"""
import importlib.util
import io
import json
import os
import sys
import tempfile
import threading

from PIL import Image, PngImagePlugin

from common import ROOT, cli, output

OUT = os.path.join(ROOT, "docs", "img", "web.png")
PHONE_NAME = "phone.png"
TOOL = "tools/webshot.py"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
SCALE = 2            # device pixels per CSS pixel
STREAM_SEED = 5      # the stand-in entropy's stream: a red card first
KEYS = ("RANK", "DRAW", "DRAW")   # ranks 2, start, draw
QUIET_MS = 1000      # simulated time before each key: the idle passes done
PATIENCE_MS = 120_000
# the browser's one source of chance, crypto.getRandomValues, as a fixed stream
ENTROPY = """(() => {
  let s = %d;
  Object.getPrototypeOf(crypto).getRandomValues = function (a) {
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    for (let i = 0; i < bytes.length; i++) {
      s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; bytes[i] = s & 255;
    }
    return a;
  };
})();""" % STREAM_SEED
OLED_BOX = """() => {
  const r = document.querySelector('#oled').shadowRoot.querySelector('canvas')
    .getBoundingClientRect();
  return [r.x, r.y, r.width, r.height];
}"""


def web_build():
    """tools/web/build.py as a module (it is a script in its own folder, not a package)."""
    spec = importlib.util.spec_from_file_location("webbuild", os.path.join(ROOT, "tools", "web",
                                                                          "build.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def launch(playwright):
    if not os.path.exists(CHROMIUM):
        raise SystemExit("webshot: Chromium is missing at %s: apt-get install -y chromium "
                         "(make docs installs it)" % CHROMIUM)
    return playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)


def phone(browser):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=SCALE, is_mobile=True,
                              has_touch=True)
    ctx.set_default_timeout(PATIENCE_MS)
    ctx.add_init_script(ENTROPY)
    return ctx


def quiet(page):
    """QUIET_MS of simulated time with no press."""
    t = page.evaluate("Number(document.body.dataset.t)")
    page.wait_for_function("t => Number(document.body.dataset.t) >= t", arg=t + QUIET_MS)


def stage(ctx, url):
    """A page of the web app at `url` in the pictures' state: the keys pressed, the card on
    show, its sound's note gone. -> the page, in the phone view."""
    page = ctx.new_page()
    page.goto(url)
    page.wait_for_function("window.carddraw && window.carddraw.ready")
    for name in KEYS:
        quiet(page)
        played = page.evaluate("Number(document.body.dataset.played)")
        page.tap("button.big[data-button=%s]" % name)
        page.wait_for_function("n => Number(document.body.dataset.played) > n && "
                               "document.body.dataset.queued === '0'", arg=played)
    page.wait_for_function("document.body.dataset.screen === 'card'")
    page.wait_for_function("!document.querySelector('#note').classList.contains('on')")
    return page


def show(page, view):
    """The phone view or the device view on show (the bar's switch, one tap)."""
    if page.get_attribute("body", "data-view") != view:
        page.tap("#view-toggle")
        page.wait_for_function("v => document.body.dataset.view === v", arg=view)
    if view == "device":   # Wokwi's elements load when the view is first shown
        page.wait_for_function("document.body.dataset.oled === 'drawn'")


def oled_box(page):
    """Where the OLED's 128 x 64 pixels are in the page's picture: (x, y, w, h) in pixels."""
    return tuple(round(v * SCALE) for v in page.evaluate(OLED_BOX))


def picture(page):
    img = Image.open(io.BytesIO(page.screenshot(animations="disabled", caret="hide")))
    img.load()
    return img


def shoot(page):
    """The device view as a picture, the OLED's place in its PNG text."""
    show(page, "device")
    img = picture(page)
    img.info["oled"] = ",".join(str(v) for v in oled_box(page))
    return img


def view_shown(page):
    """The View the phone view draws, as the picture's PNG text keeps it."""
    v = page.evaluate("carddraw.view")
    return json.dumps({"screen": v["screen"], "lines": v["lines"], "picture": v["picture"]},
                      sort_keys=True)


def shoot_phone(page):
    """The phone view as a picture, the View it shows in its PNG text."""
    show(page, "phone")
    img = picture(page)
    img.info["view"] = view_shown(page)
    return img


def read_oled(img, box=None):
    """The OLED in a picture (box: its place, default the picture's "oled" text) as the
    display's 1,024 MONO_VLSB bytes: each pixel read at its centre, lit where bright."""
    x, y, w, h = box or [int(v) for v in img.info["oled"].split(",")]
    rgb = img.convert("RGB")
    out = [0] * 1024
    for py in range(64):
        for px in range(128):
            r, g, b = rgb.getpixel((int(x + (px + 0.5) * w / 128), int(y + (py + 0.5) * h / 64)))
            if r + g + b > 3 * 64:
                out[(py >> 3) * 128 + px] |= 1 << (py & 7)
    return out


def save(img, path):
    info = PngImagePlugin.PngInfo()
    for key in ("oled", "view"):
        if key in img.info:
            info.add_text(key, img.info[key])
    for key, value in output.png_text(TOOL).items():
        info.add_text(key, value)
    img.save(path, pnginfo=info, optimize=True)


def make():
    """Both pictures, made in a fresh Chromium on a freshly built site. -> (web, phone)."""
    from playwright.sync_api import sync_playwright
    webbuild = web_build()
    with tempfile.TemporaryDirectory(prefix="carddraw-webshot-") as site:
        webbuild.build(site)
        httpd = webbuild.server(site, "127.0.0.1", 0)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            with sync_playwright() as p:
                browser = launch(p)
                try:
                    ctx = phone(browser)
                    page = stage(ctx, "http://127.0.0.1:%d/" % httpd.server_address[1])
                    on_phone = shoot_phone(page)
                    img = shoot(page)
                    drawn = page.evaluate("carddraw.renderView()")
                    ctx.close()
                finally:
                    browser.close()
        finally:
            httpd.shutdown()
            httpd.server_close()
    if read_oled(img) != drawn:   # the picture must give the screen back exactly
        raise SystemExit("webshot: the OLED read back from the picture is not the firmware's "
                         "rendering (the page's layout changed?)")
    return img, on_phone


def main(argv=None):
    p = cli.parser("webshot", __doc__)
    p.add_argument("out", nargs="?", default=OUT, metavar="OUT_FILE",
                   help="the device view's picture, a .png (default: docs/img/web.png)")
    p.add_argument("--phone", metavar="PHONE_FILE",
                   help="the phone view's picture, a .png (default: phone.png beside OUT_FILE)")
    args = p.parse_args(argv)
    phone_out = args.phone or os.path.join(os.path.dirname(args.out), PHONE_NAME)
    for name, path in (("OUT_FILE", args.out), ("--phone", phone_out)):
        if not path.lower().endswith(".png"):
            p.error("%s: %s is no .png file name" % (name, path))
        if os.path.isdir(path):
            p.error("%s: %s is a folder, not a file" % (name, path))
    if os.path.abspath(phone_out) == os.path.abspath(args.out):
        p.error("--phone: the same file as OUT_FILE")
    try:
        for path in (args.out, phone_out):
            output.check_file(path, TOOL, mine=output.marked_png)
        img, on_phone = make()
        save(img, output.claim_file(args.out, TOOL, mine=output.marked_png))
        save(on_phone, output.claim_file(phone_out, TOOL, mine=output.marked_png))
    except output.NotOurs as e:
        p.error("%s" % e)
    print("the web app's pictures written to %s and %s"
          % (os.path.relpath(args.out, ROOT), os.path.relpath(phone_out, ROOT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
