"""The README's picture of the web app on a phone (docs/img/web.png): the site that
tools/web/build.py makes, built into a temporary folder and served on 127.0.0.1, opened in
Debian's Chromium (/usr/bin/chromium, through Playwright; never a downloaded browser) as a
390 x 844 phone at twice the pixels. The device powers on with a fixed seed (the page's one
random number, crypto.getRandomValues, answers SEED: the terminal picture's seed), then
RANK, DRAW, DRAW: the same card on show as in docs/img/terminal.png. `make docs` runs it.

    python tools/webshot.py [OUT_FILE]      # default docs/img/web.png

The picture carries the OLED's place in it (PNG text "oled": x,y,w,h in pixels), so a test can
read the screen back out of the committed picture, pixel by pixel, and compare it with the
firmware's own rendering of the same view (host_tests/test_web.py). It writes OUT_FILE and
nothing else (its folder made if need be; the site's folder is a temporary one, removed
after). An OUT_FILE already there must be the tools' own: a picture they drew (its PNG text
says so), one their list in its folder names, or one git holds as it is (docs/img/web.png);
any other is refused in one line, exit status 2, before Chromium starts.
"""
import importlib.util
import io
import os
import sys
import tempfile
import threading

from PIL import Image, PngImagePlugin

from common import ROOT, cli, output

OUT = os.path.join(ROOT, "docs", "img", "web.png")
TOOL = "tools/webshot.py"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
SCALE = 2            # device pixels per CSS pixel
SEED = 4             # as tools/termshot.py: a red card first
# the buttons tapped, each with what the screen then says (its text, as the page gives it)
KEYS = (("RANK", "Ranks 2"), ("DRAW", "D:draw  S:stop"), ("DRAW", "D:go on"))
PATIENCE_MS = 120_000
# the page's one random number is the device's power-on seed (web/app.js boot())
FIXED_SEED = """(() => {
  const own = Crypto.prototype.getRandomValues;
  Crypto.prototype.getRandomValues = function (a) {
    if (a instanceof Uint32Array && a.length === 1) { a[0] = %d; return a; }
    return own.call(this, a);
  };
})();""" % SEED
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
    ctx.add_init_script(FIXED_SEED)
    return ctx


def stage(ctx, url):
    """A page of the web app at `url` in the picture's state: powered on with SEED, the keys
    pressed, the card on show, the press notes gone. -> the page."""
    page = ctx.new_page()
    page.goto(url)
    page.wait_for_function("window.carddraw && window.carddraw.ready")
    for name, then in KEYS:
        page.tap("button.big[data-button=%s]" % name)
        page.wait_for_function("t => document.querySelector('#screen-text').textContent"
                               ".includes(t) && document.body.dataset.queued === '0'", arg=then)
    page.wait_for_function("!document.querySelector('#note').classList.contains('on')")
    page.wait_for_function("() => !document.querySelector('#screen-text').textContent"
                           ".includes('...')")
    return page


def oled_box(page):
    """Where the OLED's 128 x 64 pixels are in the page's picture: (x, y, w, h) in pixels."""
    return tuple(round(v * SCALE) for v in page.evaluate(OLED_BOX))


def shoot(page):
    """The page as a picture, the OLED's place in its PNG text."""
    img = Image.open(io.BytesIO(page.screenshot(animations="disabled", caret="hide")))
    img.load()
    img.info["oled"] = ",".join(str(v) for v in oled_box(page))
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
    info.add_text("oled", img.info["oled"])
    for key, value in output.png_text(TOOL).items():
        info.add_text(key, value)
    img.save(path, pnginfo=info, optimize=True)


def make():
    """The picture, made in a fresh Chromium on a freshly built site. -> the image."""
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
    return img


def main(argv=None):
    p = cli.parser("webshot", __doc__)
    p.add_argument("out", nargs="?", default=OUT, metavar="OUT_FILE",
                   help="the picture to write, a .png (default: docs/img/web.png)")
    args = p.parse_args(argv)
    if not args.out.lower().endswith(".png"):
        p.error("OUT_FILE: %s is no .png file name" % args.out)
    if os.path.isdir(args.out):
        p.error("OUT_FILE: %s is a folder, not a file" % args.out)
    try:
        output.check_file(args.out, TOOL, mine=output.marked_png)
        img = make()
        save(img, output.claim_file(args.out, TOOL, mine=output.marked_png))
    except output.NotOurs as e:
        p.error("OUT_FILE: %s" % e)
    print("the web app's picture written to %s" % os.path.relpath(args.out, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
