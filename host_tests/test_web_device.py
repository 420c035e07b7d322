"""The web app's device view (one tap from the phone view), in Chromium through Playwright: the
OLED element's pixels are the firmware's own framebuf rendering of the view it shows, the LED
element has the card's colour, the pushbuttons, keys and the big buttons press the device
(quick taps never merged), and Erase flash asks for the referee code, which the firmware
checks (`unlock CODE`), wrong tries and waits its own.
"""
import ast
import os

import pytest

from conftest import FIRMWARE
from webpage import (browser, boots, open_app, phone, seed_where, seeded, settle, shown,  # noqa: F401
                     site, tap, wait_ready, wait_saved, wait_screen)

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


def board_colours():
    """The LED's colour for each card (config.LED_COLOURS, which board.py shows)."""
    from carddraw import config
    return config.LED_COLOURS


def drawn_now(page):
    """The OLED's pixels once they are the firmware's rendering of the view (a pass's quick
    view and its worked-out one can fall between the two reads)."""
    page.wait_for_function("() => { const a = carddraw.renderView(); const b = (%s)(); "
                           "return a.length === b.length && a.every((v, i) => v === b[i]); }"
                           % OLED_BYTES)
    return page.evaluate(OLED_BYTES)


def test_buttons_led_and_oled_match_the_firmwares_rendering(site, browser):
    ctx = phone(browser)
    page = open_app(ctx, site, view="device")
    assert page.is_visible("#oled") and page.is_hidden("#stage")
    drawn_now(page)
    seeded(page, seed_where(lambda cards, a: cards == ["yellow"]))   # a card that goes on
    page.tap("button.big[data-button=DRAW]")            # touch: start the action
    wait_screen(page, "active")
    page.click("button.big[data-button=DRAW]")          # mouse: draw a card
    wait_screen(page, "card")
    show = shown(page)
    assert show["screen"] == "card" and show["draws"] == 1
    want = [c / 255 for c in board_colours()[show["led"]]]
    assert page.evaluate(LED) == pytest.approx(want)
    assert show["led"] in page.text_content("#led-name") or show["led"] == "black"
    # the pixels on the page are the firmware's own rendering of the view it shows
    oled = drawn_now(page)
    assert oled == page.evaluate("carddraw.screen()")
    assert sum(bin(b).count("1") for b in oled) > 300
    assert page.text_content("#screen-text").splitlines()[0] == show["lines"][0].rstrip()
    page.keyboard.press("d")                            # a key: go on, the deck again (R20)
    wait_screen(page, "active")
    page.wait_for_function("document.querySelector('#led').ledRed === 0 && "
                           "document.querySelector('#led').ledGreen === 0")
    assert page.errors == []
    ctx.close()


def ranks(page):
    return page.evaluate("carddraw.view.plan.ranks")


def test_long_press_keys_and_the_wokwi_pushbuttons(site, browser):
    ctx = phone(browser)
    page = open_app(ctx, site, view="device")
    box = page.locator("button.big[data-button=DRAW]").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    draw = "button.big[data-button=DRAW]"
    page.wait_for_selector(draw + ".filling")           # the button fills as the press holds
    wait_screen(page, "options", settled=False)         # held: a long press (0.8 s) fires
    page.wait_for_selector(draw + ".long")              # ... and shows it registered
    page.mouse.up()
    page.wait_for_selector(draw + ":not(.filling)")
    assert page.is_hidden(".legend")                    # a touch screen: no keyboard hint
    page.keyboard.press("s")
    wait_screen(page, "setup")
    start = ranks(page)
    page.keyboard.press("r")
    page.wait_for_function("n => carddraw.view.plan.ranks !== n", arg=start)
    page.keyboard.press("Shift+R")                      # R: held, ranks step down
    page.wait_for_function("n => carddraw.view.plan.ranks === n", arg=start)
    helpers = page.evaluate("carddraw.view.plan.helpers")
    page.click("wokwi-pushbutton[data-button=HELP]")
    page.wait_for_function("n => carddraw.view.plan.helpers === n + 1", arg=helpers)
    assert page.errors == []
    ctx.close()


def config_range(name):
    """config.NUMBERS[name] = (default, low, high), read from the source."""
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


def test_five_taps_40_ms_apart_are_five_presses(site, browser):
    ctx = phone(browser)
    page = open_app(ctx, site)
    wait_screen(page, "setup")
    _, low, high = config_range("ranks")
    start = ranks(page)
    page.evaluate(TAPS, ["RANK", 5, 40])
    page.wait_for_function("document.body.dataset.played === '5'")   # every press played
    settle(page)
    want = start
    for _ in range(5):                                  # R3: ranks wrap round, 0 only for a scan
        want = want + 1 if want < high else max(low, 1)
    assert ranks(page) == want
    assert str(want) in page.inner_text("#stage")       # and the phone view says so
    assert page.errors == []
    ctx.close()


# -- Erase flash: only with the referee code, checked by the firmware (`unlock CODE`) ---------
STARS = "n => document.querySelector('#erase-dialog .code-shown').textContent === '*'.repeat(n)"


def start_action(page):
    tap(page, "DRAW")
    wait_screen(page, "active")
    wait_saved(page)


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
    return page.text_content("#erase-dialog .code-said")


def test_erase_flash_says_what_it_erases_cancel_keeps_it_all_and_the_code_erases(site, browser):
    ctx = phone(browser)
    page = open_app(ctx, site, view="device")
    start_action(page)
    booted = boots(page)
    page.click("#erase")
    assert page.is_visible("#erase-dialog")
    what = page.text_content("#erase-what")
    assert "referee code" in what and "log" in what and "action" in what
    box = page.locator("#erase-dialog").bounding_box()     # on a phone: all of it on screen
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert box["y"] >= 0 and box["y"] + box["height"] <= 844
    for sel in ("[data-code=R]", "[data-code=S]", "#erase-ok", "#erase-cancel"):
        assert page.locator("#erase-dialog " + sel).bounding_box()["height"] >= 48
    page.tap("#erase-dialog [data-code=R]")
    page.tap("#erase-dialog [data-code=H]")
    page.wait_for_function(STARS, arg=2)
    page.tap("#erase-cancel")                               # Cancel: nothing erased
    page.locator("#erase-dialog").wait_for(state="hidden")
    page.wait_for_function("document.querySelector('#status').textContent === 'Nothing erased.'")
    page.click("#erase")
    assert page.text_content("#erase-dialog .code-shown") == ""   # a new entry each time
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
    page = open_app(ctx, site, view="device")
    start_action(page)
    booted = boots(page)
    page.click("#erase")
    enter_code(page, "RHDD", keys=True)                    # typed: the keys go to the dialog
    assert said(page).startswith("Wrong code")
    assert page.text_content("#erase-dialog .code-shown") == ""
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
