"""Shared by the web app's browser tests (test_web_*.py): the site built once per module into
a temporary folder and served on 127.0.0.1, one Debian Chromium per module driven by
Playwright (never a downloaded browser), a phone's viewport with touch, and what a person
sees: the phone view's stage (its text, the card's colour word, the deck's tiles), the
buttons' words, the announcements. Waits are on the page's own signals; PATIENCE_MS is only
how long a signal may take on a busy machine before the test says it never came.

A test module imports the fixtures it uses: `from webpage import site, browser  # noqa`.
"""
import os
import sys
import tempfile
import threading

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "web"))
import build as webbuild  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
# A name for this machine that is not localhost: a page from it over plain HTTP is not a secure
# context, as on a phone reaching the machine over the network.
LAN_NAME = "carddraw.test"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--host-resolver-rules=MAP %s 127.0.0.1" % LAN_NAME]
PATIENCE_MS = int(os.environ.get("CARDDRAW_PATIENCE_MS", 120_000))
# Screenshots go outside the tree (no test writes into it); README's pictures are make docs'
ARTIFACTS = os.environ.get("CARDDRAW_ARTIFACTS") or os.path.join(tempfile.gettempdir(),
                                                                 "carddraw-artifacts")
PHONE = {"width": 390, "height": 844}
BUTTONS = ("RANK", "HELP", "DRAW", "STOP")


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


def phone(browser, width=PHONE["width"], height=PHONE["height"], clock=False, scale=2,
          init=None):
    """A phone's browser context (touch, mobile); clock: Playwright's clock installed (time
    flows, and a test may jump it: fast_forward is a page asleep that wakes); init: a script
    run before the page's own (stubs for the browser's APIs)."""
    ctx = browser.new_context(viewport={"width": width, "height": height},
                              device_scale_factor=scale, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(PATIENCE_MS)
    if init:
        ctx.add_init_script(init)
    if clock:
        ctx.clock.install()
    return ctx


def open_app(ctx, url, view=None):
    """A page of the app, booted; view: "device" switches to the device view first."""
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    console = []
    page.on("console", lambda m: console.append("%s: %s" % (m.type, m.text)))
    page.console = console
    page.goto(url)
    wait_ready(page)
    if view and page.get_attribute("body", "data-view") != view:
        page.tap("#view-toggle")
        page.wait_for_function("v => document.body.dataset.view === v", arg=view)
    if view == "device":                     # Wokwi's elements loaded, the OLED drawn
        page.wait_for_function("document.body.dataset.oled === 'drawn'")
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


def wait_saved(page):
    """Until the flash (localStorage) holds the device as it is now: saved at or after the
    simulated time now shown."""
    page.wait_for_function("() => Number(document.body.dataset.savedT) >= "
                           "Number(document.body.dataset.t)")


# -- the buttons, as a thumb uses them ---------------------------------------------------------
def played(page):
    return int(page.get_attribute("body", "data-played"))


def tap(page, name):
    """A tap of one of the four buttons (a touch), then until the device has played it."""
    before = played(page)
    page.tap("button.big[data-button=%s]" % name)
    settle(page, before)


def hold(page, name, ms=1200):
    """A button held ms (a long press: the firmware's is 0.8 s), then let go."""
    before = played(page)
    box = page.locator("button.big[data-button=%s]" % name).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.wait_for_timeout(ms)
    page.mouse.up()
    settle(page, before)


def settle(page, before=None):
    """Until the press after `before` presses (if given) and every press queued have been
    played, and the screen's odds are worked out."""
    if before is not None:
        page.wait_for_function("n => Number(document.body.dataset.played) > n", arg=before)
    page.wait_for_function("document.body.dataset.queued === '0' && !/\u2026|\\.\\.\\./"
                           ".test(document.querySelector('#stage').textContent)")


# -- what a person sees ------------------------------------------------------------------------
def screen(page):
    """The screen on show: its name (the stage's data-screen, set from the View)."""
    return page.get_attribute("#stage", "data-screen")


def wait_screen(page, *names, settled=True):
    """Until one of these screens is on show (settled: and every press played, its odds
    worked out; not while a finger still holds a button down) -> its name."""
    page.wait_for_function("names => names.includes(document.querySelector('#stage')"
                           ".dataset.screen)", arg=list(names))
    if settled:
        settle(page)
    return screen(page)


def stage_text(page):
    return page.inner_text("#stage")


def title(page):
    return page.inner_text("#stage .title")


def tiles(page):
    """The deck's tiles as a person reads them: {colour word: count}."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
      '#stage .deck:first-of-type .tile')].map(t => [t.querySelector('.word').textContent,
      Number(t.querySelector('.count').textContent)]))""")


def card_word(page):
    """The card on show's colour word (GREEN, YELLOW, RED, BLACK), or None."""
    el = page.query_selector("#stage .card-word")
    return el.inner_text().split()[0] if el else None


def does(page, name):
    """What a button says it does now."""
    return page.inner_text("button.big[data-button=%s] .does" % name)


def menu_rows(page):
    """A menu's rows as shown: [(label, value or None, chosen)]."""
    return page.evaluate("""() => [...document.querySelectorAll('#stage .menu .row')].map(r =>
      [r.querySelector('.label').textContent, r.querySelector('.value') ?
       r.querySelector('.value').textContent : null, r.classList.contains('here')])""")


def choose_row(page, word):
    """In a menu: HELP down to the first row whose label has `word` (any case), then DRAW."""
    rows = menu_rows(page)
    want = [i for i, (label, _, _) in enumerate(rows) if word.lower() in label.lower()]
    assert want, "no %r among the menu's rows %r" % (word, rows)
    here = [i for i, (_, _, chosen) in enumerate(rows) if chosen][0]
    for _ in range((want[0] - here) % len(rows)):
        tap(page, "HELP")
    assert menu_rows(page)[want[0]][2]
    tap(page, "DRAW")


def seed_where(want, draws=1, **deck):
    """A bench seed (`seed N`) whose first `draws` cards, each accepted, satisfy want(colours,
    action) for an action with these settings (the firmware's own generator and engine, on
    CPython); surgery at rank 1, as a fresh device sets up."""
    from carddraw.action import Action
    from carddraw.rng import Rng
    deck = dict({"skill": "surgery", "ranks": 1}, **deck)
    for n in range(1, 2000):
        a, rng, colours = Action(**deck), Rng(n), []
        for _ in range(draws):
            if a.state != "active":
                break
            colours.append(a.draw(rng))
            a.accept()
        if len(colours) == draws and want(colours, a):
            return n
    raise AssertionError("no seed under 2000 draws that way")


def seeded(page, n):
    """The bench's repeatable cards: `unlock RHRH` (a fresh device's code), `seed N`, `lock`."""
    assert page.evaluate("carddraw.line('unlock RHRH')")[-1].get("ok") == "unlock"
    assert page.evaluate("carddraw.line('seed %d')" % n)[-1].get("ok") == "seed"
    page.evaluate("carddraw.line('lock')")


def shown(page):
    """The bench protocol's `show` (the firmware's own account, for checks beside the DOM)."""
    return page.evaluate("carddraw.line('show')")[0]


def screenshot(page, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, name)
    page.screenshot(path=path)
    return path


# -- the checks of Chromium's Lighthouse that matter on a phone, on what is on screen ---------
# No sideways scrolling; every control at least 48 x 48 CSS px and labelled (its text or
# aria-label); every visible text at least 16 px with a contrast of 4.5:1 or more against the
# first opaque background behind it (WCAG's relative luminance). -> {problems, targets, texts}
AUDIT = """() => {
  const problems = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth) {
    problems.push(`scrolls sideways: ${doc.scrollWidth} > ${doc.clientWidth}`);
  }
  const shown = (el) => {
    if (el.closest('[hidden], template, dialog:not([open])')) return false;
    const open = document.querySelector('dialog[open]');
    if (open && !open.contains(el)) return false;        // under a modal: not reachable
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const what = (el) => (el.id ? '#' + el.id : el.tagName.toLowerCase())
    + (el.dataset.button ? '[' + el.dataset.button + ']' : '')
    + (el.dataset.code ? '[' + el.dataset.code + ']' : '');
  let targets = 0;
  for (const el of document.querySelectorAll(
    'button, a[href], summary, input, select, textarea, [role=button], wokwi-pushbutton')) {
    if (!shown(el)) continue;
    targets++;
    const r = el.getBoundingClientRect();
    if (r.width < 47.5 || r.height < 47.5) {
      problems.push(`small target ${what(el)} ${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
    }
    const label = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('label')
      || '').trim();
    if (!label) problems.push(`unlabelled ${what(el)}`);
  }
  const rgba = (c) => {
    const m = c.match(/[\\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const lum = (rgb) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]);
  };
  const behind = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let out = rgba(getComputedStyle(document.body).backgroundColor).slice(0, 3);
    for (const c of layers.reverse()) out = out.map((v, i) => v * (1 - c[3]) + c[i] * c[3]);
    return out;
  };
  let texts = 0;
  const seen = new Set();
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || seen.has(el) || el.closest('.sr-only, script, style') || !shown(el)) continue;
    seen.add(el);
    texts++;
    const s = getComputedStyle(el);
    const size = parseFloat(s.fontSize);
    if (size < 15.5) problems.push(`small text ${size}px: ${text.slice(0, 30)}`);
    const bg = behind(el);
    const fg = rgba(s.color);
    const ink = fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    const [a, b] = [lum(ink), lum(bg)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) problems.push(`contrast ${ratio.toFixed(2)}: ${text.slice(0, 30)}`);
  }
  return { problems, targets, texts };
}"""


def audit(page):
    """The page as on screen now, checked (AUDIT) -> {problems, targets, texts}."""
    return page.evaluate(AUDIT)
