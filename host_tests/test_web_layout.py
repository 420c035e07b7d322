"""The web app on phones of 360 to 430 px and on a tablet passes the checks of Chromium's
Lighthouse that matter here (webpage.AUDIT: no sideways scrolling, tap targets of 48 px or
more, every control labelled, text of 16 px or more with a contrast of 4.5:1), on each kind of
screen (set-up, a menu, the deck, a card, a black card, the device view, the dialogs), and is
accessible: each card is announced in a live region, the four buttons say what they do, and
black shows purple with its word, its letter and its own pattern (colour never the only cue).
"""
import pytest

from webpage import (audit, browser, card_word, choose_row, hold, menu_rows, open_app,  # noqa: F401
                     phone, screenshot, seed_where, seeded, site, tap, wait_screen)

SIZES = {"360": (360, 640), "390": (390, 844), "430": (430, 932), "tablet": (820, 1180)}


def checked(page, where, found):
    result = audit(page)
    assert result["targets"] >= 4 and result["texts"] >= 4, (where, result)
    found.extend("%s: %s" % (where, p) for p in result["problems"])


@pytest.mark.parametrize("size", list(SIZES))
def test_every_screen_fits_reads_and_takes_a_thumb(site, browser, size):
    width, height = SIZES[size]
    ctx = phone(browser, width=width, height=height, scale=1)
    page = open_app(ctx, site)
    found = []
    wait_screen(page, "setup")
    checked(page, "set-up", found)
    hold(page, "DRAW")
    wait_screen(page, "options")
    checked(page, "options", found)
    choose_row(page, "black")                          # three blacks: the purple is seen
    for _ in range(3):
        tap(page, "HELP")
    tap(page, "DRAW")
    assert [r for r in menu_rows(page) if r[2]][0][1] == "3"
    checked(page, "options, edited", found)
    tap(page, "STOP")
    wait_screen(page, "setup")
    seeded(page, seed_where(lambda cards, a: cards == ["black"], black=3))
    tap(page, "DRAW")
    wait_screen(page, "active")
    checked(page, "active", found)
    tap(page, "DRAW")
    wait_screen(page, "card")
    assert card_word(page) == "BLACK"
    checked(page, "black card", found)
    screenshot(page, "layout-%s-card.png" % size)
    page.tap("#view-toggle")
    page.wait_for_function("document.body.dataset.view === 'device' && "
                           "document.body.dataset.oled === 'drawn'")
    checked(page, "device view", found)
    screenshot(page, "layout-%s-device.png" % size)
    if size == "360":                                    # the dialogs, on the smallest
        for opener, dialog in (("#erase", "#erase-dialog"), ("#export", "#export-dialog")):
            page.tap(opener)
            page.wait_for_selector(dialog, state="visible")
            checked(page, dialog, found)
            page.keyboard.press("Escape")
            page.wait_for_selector(dialog, state="hidden")
    assert found == []
    assert page.errors == []
    ctx.close()


def test_cards_are_announced_and_black_is_never_colour_alone(site, browser):
    ctx = phone(browser)
    page = open_app(ctx, site)
    assert page.get_attribute("#announce", "aria-live") == "polite"
    hold(page, "DRAW")
    wait_screen(page, "options")
    choose_row(page, "black")
    tap(page, "HELP")
    tap(page, "DRAW")
    tap(page, "STOP")
    wait_screen(page, "setup")
    seeded(page, seed_where(lambda cards, a: cards == ["black"], black=1))
    tap(page, "DRAW")
    wait_screen(page, "active")
    said = page.inner_text("#announce")
    assert "deck" in said.lower() and "black" in said.lower()
    tap(page, "DRAW")
    wait_screen(page, "card")
    said = page.inner_text("#announce").lower()
    assert "black" in said and "purple" in said             # the card and what it did
    card = page.locator("#stage .card")
    assert "purple" in card.get_attribute("aria-label")
    assert page.inner_text("#stage .card-letter") == "B"    # its letter
    face = page.eval_on_selector("#stage .card-face", "e => getComputedStyle(e).backgroundImage")
    assert "gradient" in face                               # and its own pattern
    patterns = page.evaluate("""() => [...document.querySelectorAll('#stage .tile .swatch')]
      .map(e => getComputedStyle(e).backgroundImage)""")
    assert len(set(patterns)) == 4                          # each colour its own
    for name in ("RANK", "HELP", "DRAW", "STOP"):           # each button says what it does
        label = page.text_content("button.big[data-button=%s]" % name)   # its name: its words
        assert label.startswith(name)
        assert page.get_attribute("button.big[data-button=%s]" % name, "aria-label") is None
    assert ": " in page.text_content("button.big[data-button=DRAW]")
    assert page.get_attribute("#lamp", "role") == "img" and "LED" in page.get_attribute(
        "#lamp", "aria-label")
    assert page.errors == []
    ctx.close()
