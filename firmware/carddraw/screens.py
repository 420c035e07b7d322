# The screens as objects, one interface each, in the way Tildagon's apps have update/draw:
# press(button) and long(button) for the buttons, tick(now) for the clock, lines() for what it
# shows (its lines and the LED colour) and art() where it draws graphics. A screen's own
# state (a cursor, the code being entered, the row being edited, a message and where it
# returns) lives on the screen; the controller holds the screen on show and changes it with
# goto(). lines() and art() never change anything. Here: the base, the one Menu component
# and the message. The set-up side is in setupscreens.py, the action's screens in
# playscreens.py, the referee's in referee.py. docs/screens.md says what each one does.
from carddraw.config import ROWS
from carddraw.texts import wrap

MSG_MS = 10000  # a message goes back by itself after this long (R21: nothing stalls)


class Screen:
    name = ""
    longs = ("STOP",)  # buttons with a long press here (hold STOP: the lock, on any screen);
                       # the others act as they go down
    locked = False  # a referee screen, the lock included: hold STOP leaves, 30 s idle closes
    held = False    # reached only with the code: a timed draw waits while it is open (R21)

    def __init__(self, ctl, back=None):
        self.ctl = ctl
        self.back = back  # where leaving returns (a message, the referee's screens)

    def press(self, button):
        pass

    def long(self, button):
        pass

    def tick(self, now):
        pass

    def seconds(self):
        """The countdown on show, in whole seconds (a new view each), or None."""
        return None

    def lines(self):
        """-> (up to 8 lines, the first the title; the LED colour or None)."""
        return [self.name], None

    def art(self):
        """-> None for a screen of text (its lines are drawn), or (the picture render.py
        draws instead of the lines, the LED colour)."""
        return None

    def covered(self):
        """The referee lock opened over this screen, which it returns to later."""


class Menu(Screen):
    """Every menu: a title, lines above the rows (head), rows of (label, value), a cursor that
    RANK moves up and HELP down (wrapping), DRAW chooses, STOP goes back; a number chosen
    is edited in place: RANK lowers it, HELP raises it, DRAW or STOP is done. The rows on
    offer may change while the menu is open: the cursor is taken modulo their number."""
    title = ""
    hint = "DRAW: choose"
    quiet = False  # no click on a press (the success choice)

    def __init__(self, ctl, back=None):
        super().__init__(ctl, back)
        self.cur = 0
        self.editing = False

    def rows(self):
        return []

    def head(self):
        return []

    def choose(self, index):
        pass

    def step(self, index, delta):
        """Edit the number on row `index` by delta -> False at the end of its range."""
        return False

    def stop(self):
        """STOP: back out of the menu."""

    def covered(self):
        self.editing = False  # a number being edited is done: back, the menu only moves

    def press(self, button):
        ctl = self.ctl
        rows = len(self.rows())
        cur = self.cur % rows
        if self.editing and (button == "RANK" or button == "HELP"):
            ctl.beep("click" if self.step(cur, -1 if button == "RANK" else 1) else "error")
            return
        if not self.quiet:
            ctl.beep("click")
        if self.editing:
            self.editing = False
        elif button == "STOP":
            self.stop()
        elif button == "DRAW":
            self.choose(cur)
        else:
            self.cur = (cur + (-1 if button == "RANK" else 1)) % rows

    def lines(self):
        """The title, the head, a window of rows around the cursor (the chosen row marked
        with >, a value being edited in <>), then the hint, or how to edit while editing."""
        rows = self.rows()
        cur = self.cur % len(rows)
        shown = []
        for index in range(len(rows)):
            label, value = rows[index]
            mark = ">" if index == cur else " "
            if value is None:
                shown.append(mark + label)
                continue
            if self.editing and index == cur:
                value = "<%s>" % value
            shown.append("%s%-10s%5s" % (mark, label, value))
        head = self.head()
        room = ROWS - 2 - len(head)
        top = 0
        if len(shown) > room:
            top = min(max(0, cur - room + 1), len(shown) - room)
        hint = "RANK -  HELP +" if self.editing else self.hint
        return [self.title] + head + shown[top:top + room] + [hint], self.led()

    def led(self):
        return None


class Message(Screen):
    """A refusal or a note: any key goes back, or MSG_MS by itself."""
    name = "message"

    def __init__(self, ctl, title, text, back):
        super().__init__(ctl, back)
        self.title = title
        self.text = wrap(text)[:ROWS - 3]
        self.since = ctl.now

    @property
    def locked(self):
        return self.back.locked

    @property
    def held(self):
        return self.back.held

    def press(self, button):
        self.ctl.goto(self.back)

    long = press

    def tick(self, now):
        if now - self.since >= MSG_MS:
            self.ctl.goto(self.back)  # a message goes by itself: it holds nothing up (R21)

    def lines(self):
        return [self.title] + self.text + ["", "Any key: back"], None
