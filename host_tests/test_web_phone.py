"""The web app as a phone app (issue 36), in Debian's Chromium at a phone's viewport with touch:
a whole action played on the phone view's own buttons (set-up and its options, draws, a
redraw, a stop, the finishing minute on a fast clock, the summary), a referee's decision on a
black card behind the lock, each read as a person reads the screen: the stage's words, the
card's colour word, the deck's tiles, what each button says it does, what a screen reader
hears. Vibration and the Wake Lock are the browser's own APIs, recorded by a stand-in.
Screenshots of each step go to a temporary folder (ARTIFACTS).
"""
import pytest

from webpage import (browser, card_word, choose_row, does, hold, menu_rows, open_app, phone,  # noqa: F401
                     screen, screenshot, seed_where, seeded, settle, shown, site, stage_text,
                     tap, tiles, title, wait_screen)

# navigator.vibrate and navigator.wakeLock recorded (a desktop Chromium has neither for real)
STUBS = """
window.__buzz = [];
Object.defineProperty(navigator, 'vibrate', { configurable: true,
  value: (p) => { window.__buzz.push(p); return true; } });
window.__wake = [];
Object.defineProperty(navigator, 'wakeLock', { configurable: true, value: {
  request: async (type) => {
    window.__wake.push('request ' + type);
    const lock = new EventTarget();
    lock.release = async () => { window.__wake.push('release'); lock.dispatchEvent(new Event('release')); };
    return lock;
  } } });
"""
COLOUR_WORDS = ("GREEN", "YELLOW", "RED", "BLACK")


def awake(page):
    return page.get_attribute("body", "data-awake") == "true"


def buzzes(page):
    """The vibration patterns of the cards and warnings so far (a long press buzzes a plain
    number of ms: not counted)."""
    return page.evaluate("window.__buzz.filter(Array.isArray)")


def announced(page):
    return page.inner_text("#announce")


def set_number(page, word, value):
    """In the options menu: the row with `word`, edited to `value` (RANK lowers, HELP raises,
    DRAW is done), as the buttons say."""
    choose_row(page, word)
    assert does(page, "HELP") and does(page, "RANK")        # the buttons say how to edit
    row = [r for r in menu_rows(page) if r[2]][0]
    for _ in range(abs(value - int(row[1]))):
        tap(page, "HELP" if value > int(row[1]) else "RANK")
    tap(page, "DRAW")
    assert [r for r in menu_rows(page) if r[2]][0][1] == str(value)


def test_a_whole_action_on_a_phone(site, browser):
    ctx = phone(browser, clock=True, init=STUBS)
    page = open_app(ctx, site)
    # set-up: the deck in colour, the chance, and each button's meaning on screen
    assert wait_screen(page, "setup") == "setup"
    assert set(tiles(page)) == {"green", "yellow", "red", "black"}
    assert "%" in page.inner_text("#stage .chance")
    assert "referee" in does(page, "STOP")                   # hold STOP, on every screen
    screenshot(page, "phone-setup.png")
    # the options (hold DRAW): 3 successes needed, 1 redraw
    hold(page, "DRAW")
    assert wait_screen(page, "options") == "options"
    assert len(menu_rows(page)) >= 10 and sum(r[2] for r in menu_rows(page)) == 1
    screenshot(page, "phone-options.png")
    set_number(page, "needed", 3)
    set_number(page, "redraw", 1)
    tap(page, "STOP")
    assert wait_screen(page, "setup") == "setup"
    assert not awake(page)

    tap(page, "DRAW")                                        # the action starts
    assert wait_screen(page, "active") == "active"
    assert "0 of 3" in page.inner_text("#stage .tally")
    assert awake(page)                                       # the screen kept on in play
    deck = tiles(page)
    screenshot(page, "phone-active.png")

    tap(page, "DRAW")                                        # a card, a redraw left
    assert wait_screen(page, "card") == "card"
    first = card_word(page)
    assert first in COLOUR_WORDS[:3]                          # no black in this deck
    assert first.lower() in announced(page).lower()           # said to a screen reader
    assert len(buzzes(page)) == 1                             # and felt
    assert does(page, "HELP")                                 # the redraw is on offer
    screenshot(page, "phone-card.png")
    tap(page, "HELP")                                        # R15: a redraw
    page.wait_for_function("window.__buzz.filter(Array.isArray).length === 2")   # felt again
    settle(page)
    assert screen(page) == "card" and card_word(page) in COLOUR_WORDS[:3]
    assert card_word(page).lower() in announced(page).lower()
    tap(page, "DRAW")                                        # go on: the deck again
    assert wait_screen(page, "active") == "active"
    assert sum(tiles(page).values()) >= sum(deck.values()) - 1

    tap(page, "DRAW")                                        # a second card, no redraw left
    assert wait_screen(page, "card") == "card"
    tap(page, "DRAW")
    assert wait_screen(page, "active") == "active"
    assert "Draws 2" in page.inner_text("#stage .tally").replace("\n", " ")

    tap(page, "STOP")                                        # R16: stop, asked first
    assert wait_screen(page, "confirm") == "confirm"
    assert "DRAW" in stage_text(page)                         # how to confirm, in its words
    tap(page, "DRAW")
    assert wait_screen(page, "finishing") == "finishing"      # R23: a minute of roleplay
    assert page.inner_text("#stage .countdown .huge") in ("60 s", "59 s")
    assert awake(page)
    screenshot(page, "phone-finishing.png")
    page.clock.fast_forward(61_000)                          # the minute, on a fast clock
    assert wait_screen(page, "summary") == "summary"
    words = stage_text(page).lower()
    assert "stop" in words and "2" in words                  # the outcome and the draws
    assert shown(page)["state"] == "stopped"
    assert not awake(page)                                   # in play no more
    screenshot(page, "phone-summary.png")
    tap(page, "DRAW")
    assert wait_screen(page, "setup") == "setup"
    assert page.evaluate("window.__wake.filter(w => w.startsWith('request')).length") >= 1
    assert page.errors == []
    ctx.close()


def test_a_referees_black_decision_behind_the_lock(site, browser):
    ctx = phone(browser, init=STUBS)
    page = open_app(ctx, site)
    hold(page, "DRAW")                                       # options: a referee, 3 blacks
    assert wait_screen(page, "options") == "options"
    set_number(page, "black", 3)
    choose_row(page, "referee")
    assert [r for r in menu_rows(page) if r[2]][0][1] == "yes"
    tap(page, "STOP")
    assert wait_screen(page, "setup") == "setup"
    seeded(page, seed_where(lambda cards, a: cards == ["black"], black=3, referee=True))
    tap(page, "DRAW")
    assert wait_screen(page, "active") == "active"
    before = tiles(page)["black"]
    tap(page, "DRAW")
    assert wait_screen(page, "card") == "card"
    assert card_word(page) == "BLACK"                         # black, shown purple, in words
    assert "purple" in page.inner_text("#stage .card").lower()
    assert "purple" in page.inner_text("#lamp-name").lower()  # the LED, named
    assert len(buzzes(page)[-1]) == 3                         # a black's own rhythm
    screenshot(page, "phone-black.png")
    tap(page, "DRAW")
    assert wait_screen(page, "referee") == "referee"          # the referee decides
    tap(page, "DRAW")                                        # a player cannot
    assert screen(page) == "referee"

    hold(page, "STOP")                                       # the lock: a wrong code first
    assert wait_screen(page, "lock") == "lock"
    assert "referee" in page.inner_text("#stage .title").lower() or page.is_visible(
        "#stage.locked")
    for key in ("RANK", "RANK", "RANK", "RANK"):
        tap(page, key)
    assert wait_screen(page, "message") == "message"          # refused, said why
    assert "wrong" in stage_text(page).lower()
    tap(page, "DRAW")                                        # any key: back
    assert wait_screen(page, "referee") == "referee"
    hold(page, "STOP")
    assert wait_screen(page, "lock") == "lock"
    for key in ("RANK", "HELP", "RANK", "HELP"):             # the default code, R H R H
        tap(page, key)
    assert wait_screen(page, "refmenu") == "refmenu"
    assert "black" in " ".join(r[0] for r in menu_rows(page)).lower()
    screenshot(page, "phone-refmenu.png")
    choose_row(page, "go on")                                # R14: go on, the black leaves
    assert wait_screen(page, "active") == "active"
    assert tiles(page)["black"] == before - 1
    assert shown(page)["state"] == "active"
    assert page.errors == []
    ctx.close()


@pytest.mark.parametrize("name", ["difficulty", "message"])
def test_more_screens_have_their_phone_form(site, browser, name):
    """The difficulty picker (STOP at set-up) and a message (STOP on a card with a redraw
    left: no stop between a draw and its result) each show their title and words."""
    ctx = phone(browser, init=STUBS)
    page = open_app(ctx, site)
    wait_screen(page, "setup")
    if name == "difficulty":
        tap(page, "STOP")
        assert wait_screen(page, "task") == "task"
        assert len(page.query_selector_all("#stage .lines p")) >= 3
    else:
        hold(page, "DRAW")
        wait_screen(page, "options")
        set_number(page, "redraw", 1)
        tap(page, "STOP")
        wait_screen(page, "setup")
        tap(page, "DRAW")
        wait_screen(page, "active")
        tap(page, "DRAW")
        wait_screen(page, "card")
        tap(page, "STOP")
        assert wait_screen(page, "message") == "message"
        assert "any key" in stage_text(page).lower() or stage_text(page).count("\n") >= 2
    assert title(page).strip()
    assert page.inner_text("#announce").strip()              # a new screen is read out
    screenshot(page, "phone-%s.png" % name)
    assert page.errors == []
    ctx.close()
