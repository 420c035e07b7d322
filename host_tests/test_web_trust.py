"""The web app's trust holds as the device's (issue 34, items 5 to 7, played as an attacker
plays them, through the page's own code):

- 6: the device's generator is keyed from 256 bits of the browser's crypto.getRandomValues,
  never from a small seed: two boots of pages whose every other source of chance is the same
  (Math.random, and the four bytes the old app took as its seed) draw different cards.
- 7: time is real time: a page asleep ten minutes (Playwright's clock jumps, as a laptop lid
  opened again) draws at once the timed cards that fell due, one an interval (R21).
- 5: the flash is mirrored between loop passes only, and the firmware swaps settings in whole:
  tapping a button in rhythm and pressing Power cycle never boots with the default referee
  code after a referee set a new one.
"""
from webpage import (boots, browser, choose_row, hold, open_app, phone, screen, seed_where,  # noqa: F401
                     seeded, settle, shown, site, tap, wait_ready, wait_screen)

# Every source of chance but the one the app must use is fixed; that one is counted.
FIXED = """
Math.random = () => 0.5;
window.__entropy = 0;
const own = Object.getPrototypeOf(crypto).getRandomValues;
Object.getPrototypeOf(crypto).getRandomValues = function (a) {
  if (a instanceof Uint32Array && a.length === 1) { a[0] = 4; return a; }  // the old seed
  window.__entropy += a.byteLength;
  return own.call(this, a);
};
"""
def draws(page):
    """24 numbers from the device's own generator, as its next draws would take them."""
    return page.evaluate("""() => { const mp = carddraw.device.mp;
      mp.runPython('import json\\n_d = json.dumps([_sim_device.app.controller.rng.randrange('
                   + '1 << 16) for i in range(24)])');
      return JSON.parse(mp.globals.get('_d')); }""")


def test_the_cards_come_from_the_browsers_entropy_never_a_small_seed(site, browser):
    seen = []
    for _ in range(2):
        ctx = phone(browser, init=FIXED)
        page = open_app(ctx, site)
        assert page.evaluate("window.__entropy") >= 32          # 256 bits keyed it at boot
        assert page.evaluate("carddraw.device.stats().entropy") == "host"
        tap(page, "DRAW")                                       # an action starts: fresh
        wait_screen(page, "active")                             # entropy goes into the key
        before = page.evaluate("window.__entropy")
        seen.append(draws(page))
        assert page.evaluate("window.__entropy") > before       # each block takes more
        assert page.errors == []
        ctx.close()
    assert seen[0] != seen[1]                                   # same page, other cards
    assert len(set(seen[0])) > 16                               # and no constant stream


def timed_action(page, seed):
    """Options: timed mode on (its interval as the device has it), 9 successes needed; the
    bench's seed (cards that keep the action going), then the action started."""
    hold(page, "DRAW")
    wait_screen(page, "options")
    choose_row(page, "timed")
    choose_row(page, "needed")
    for _ in range(8):
        tap(page, "HELP")
    tap(page, "DRAW")
    tap(page, "STOP")
    wait_screen(page, "setup")
    seeded(page, seed)
    tap(page, "DRAW")
    wait_screen(page, "active")
    return page.evaluate("carddraw.view.interval") * 1000


def test_a_page_asleep_ten_minutes_draws_the_timed_cards_that_fell_due(site, browser):
    seed = seed_where(lambda cards, a: a.state == "active", draws=15, needed=9)
    ctx = phone(browser, clock=True)
    page = open_app(ctx, site)
    interval = timed_action(page, seed)
    assert shown(page)["draws"] == 0 and "Draws 0" in page.inner_text("#stage .tally")
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.clock.fast_forward(600_000)                           # asleep ten minutes
    want = 600_000 // interval                                 # R21: one an interval (13)
    page.wait_for_function("n => carddraw.view.action && carddraw.view.action.draws >= n",
                           arg=want)
    settle(page)
    got = shown(page)["draws"]
    assert got == want, (got, want)
    assert "Draws %d" % want in page.inner_text("#stage").replace("\n", " ")
    assert page.get_attribute("#stage", "data-screen") in ("active", "card")
    page.clock.fast_forward(interval)                          # and on it goes, in real time
    page.wait_for_function("n => carddraw.view.action.draws === n", arg=want + 1)
    assert page.errors == []
    ctx.close()


NEW_CODE = ("DRAW", "DRAW", "STOP", "STOP")
RHYTHM = """([apart, n]) => new Promise((done) => {
  // RANK tapped n times, `apart` ms apart: each tap changes a setting (ranks) on the flash
  const el = document.querySelector('button.big[data-button=RANK]');
  const touch = (type, id) => el.dispatchEvent(new PointerEvent(type,
    { pointerId: id, pointerType: 'touch', isPrimary: true, bubbles: true, cancelable: true }));
  for (let i = 0; i < n; i++) {
    setTimeout(() => touch('pointerdown', 100 + i), i * apart);
    setTimeout(() => touch('pointerup', 100 + i), i * apart + 30);
  }
  setTimeout(done, n * apart);
})"""


def set_new_code(page):
    """The referee, on the buttons: hold STOP, the code R H R H, Change code, four presses,
    hold DRAW saves; the recovery code is shown once (any key goes on)."""
    hold(page, "STOP")
    wait_screen(page, "lock")
    for key in ("RANK", "HELP", "RANK", "HELP"):
        tap(page, key)
    wait_screen(page, "refmenu")
    choose_row(page, "code")
    wait_screen(page, "newcode")
    for key in NEW_CODE:
        tap(page, key)
    hold(page, "DRAW")
    while wait_screen(page, "message", "setup", "refmenu") != "setup":
        if screen(page) == "message":
            tap(page, "DRAW")           # the recovery code, shown once: noted, go on
        else:
            hold(page, "STOP")          # out of the referee's screens


def test_power_cycles_in_a_rhythm_of_taps_never_bring_back_the_default_code(site, browser):
    ctx = phone(browser)
    page = open_app(ctx, site, view="device")
    set_new_code(page)
    code = "".join(k[0] for k in NEW_CODE)
    for i in range(6):
        booted = boots(page)
        # taps in a rhythm, Power cycle pressed part way through (a different moment each)
        page.evaluate("""([apart, n, at]) => { (%s)([apart, n]);
          setTimeout(() => document.querySelector('#power').click(), at); }""" % RHYTHM,
                      [40 + 10 * i, 8, 95 + 37 * i])
        wait_ready(page, booted)
        unlocked = page.evaluate("c => carddraw.line('unlock ' + c)", code)[-1]
        assert unlocked.get("ok") == "unlock", (i, unlocked)     # the new code still opens it
        page.evaluate("carddraw.line('lock')")
    assert page.errors == []
    ctx.close()
