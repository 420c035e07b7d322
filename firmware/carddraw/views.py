# What the controller hands out. The View of its screen on show: the lines and picture
# (screens' lines() and art()), with the marks every screen carries: the bench's seed (SEED in
# the title: the cards were chosen) and the timed warning (R21: on any screen but the active
# one, which shows its own). The bench's `show`. And the queues of records and sounds the app
# takes each pass. Pure: reads the controller, changes nothing.
from carddraw.config import COLS, ROWS, TITLE_COLS
from carddraw.render import View

MOST_WAITING = 64  # records or sounds held for the app, which takes them every pass


class Queue:
    """Records or sounds for the app: at most MOST_WAITING (the oldest go first), handed over
    by take(); an empty one stays (a quiet pass allocates nothing here)."""

    def __init__(self):
        self.items = []

    def add(self, item):
        if len(self.items) >= MOST_WAITING:
            self.items.pop(0)
        self.items.append(item)

    def take(self):
        items = self.items
        if items:
            self.items = []
        return items


def build(ctl):
    shown = ctl.shown
    play = ctl.play
    warn = play is not None and play.warn > 0 and shown.name != "active"
    lines, led = shown.lines()
    lines = fit(ctl, lines, warn)
    got = shown.art()
    picture = None
    if got is not None:
        picture, led = got
        if ctl.seeded:  # the picture's title (its icon and mark name the skill)
            picture.title = "SEEDED"
        if warn:  # the warning at the picture's foot
            picture.foot = (warning(play),)
    if warn:
        led = "white"  # R21: the warning shows on any screen
    v = View(shown.name, lines, led, play is not None and play.warn > 0, picture,
             not (play or ctl.plan).odds_ready())
    v.sec = ctl.seconds_left()  # the countdown it shows: a new view each second
    return v


def fit(ctl, lines, warn):
    """The lines as shown: the seed's and the warning's marks, ROWS lines, COLS wide, the
    title short of the battery icon."""
    if ctl.seeded:  # the bench's seed chose the cards: every screen says so
        title = lines[0]
        if len(title) > TITLE_COLS - 5:  # its first words, as many as fit whole
            title = title[:TITLE_COLS - 5]
            if " " in title:
                title = title[:title.rfind(" ")]
        lines[0] = title + " " * (TITLE_COLS - 4 - len(title)) + "SEED"
    if warn:
        lines = (lines + [""] * ROWS)[:ROWS]
        lines[ROWS - 1] = warning(ctl.play)
    if len(lines) > ROWS:
        lines = lines[:ROWS]
    for i in range(len(lines)):  # a slice is a new string: only where a line is too long
        most = TITLE_COLS if i == 0 else COLS
        if len(lines[i]) > most:
            lines[i] = lines[i][:most]
    return lines


def warning(play):
    """R21: the timed warning's line."""
    return "%s in %ds!" % ("Accept" if play.card is not None and not play.applied
                           else "Draw", play.warn)


def show(ctl):
    """The bench protocol's `show`: the view, and the action's state, deck and tally."""
    view, a = ctl.view(), ctl.action
    out = {"screen": view.screen, "lines": list(view.lines), "led": view.led}
    for name in ("state", "successes", "needed", "complications", "draws"):
        out[name] = None if a is None else getattr(a, name)
    out["deck"] = None if a is None else list(a.deck.counts())
    return out
