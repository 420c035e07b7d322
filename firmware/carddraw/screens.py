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

    # lines() -> (up to 8 lines, the first the title; the LED colour or None): every screen's
    def nothing(self, *args):
        """What a screen does unless it says otherwise: press(button), long(button) and
        tick(now) do nothing; covered() (the referee lock opened over it, which returns to
        it later) nothing; seconds() (the countdown on show, in whole seconds: a new view
        each) None; art() None for a screen of text, else (the picture render.py draws
        instead of the lines, the LED colour)."""

    press = long = tick = covered = seconds = art = nothing


class Menu(Screen):
    """Every menu: a title, lines above the rows (head), rows of (label, value) (rows()), a
    cursor that RANK moves up and HELP down (wrapping), DRAW chooses (choose(index)), STOP
    goes back (stop()); a number chosen is edited in place (editing): RANK lowers it, HELP
    raises it (step(index, delta) -> False at the end of its range), DRAW or STOP is done.
    The rows on offer may change while the menu is open: the cursor is taken modulo their
    number."""
    title = ""
    hint = "DRAW: choose"
    quiet = False  # no click on a press (the success choice)
    led = None     # the LED's colour
    cur = 0
    editing = False
    stop = Screen.nothing

    def head(self):
        return []

    def covered(self):
        self.editing = False  # a number being edited is done: back, the menu only moves

    def press(self, button):
        ctl = self.ctl
        rows = len(self.rows())
        cur = self.cur % rows
        delta = -1 if button == "RANK" else 1
        moves = button == "RANK" or button == "HELP"
        if self.editing and moves:
            ctl.beep("click" if self.step(cur, delta) else "error")
            return
        if not self.quiet:
            ctl.beep("click")
        if self.editing:
            self.editing = False
        elif moves:
            self.cur = (cur + delta) % rows
        elif button == "DRAW":
            self.choose(cur)
        else:
            self.stop()

    def lines(self):
        """The title, the head, a window of rows around the cursor (the chosen row marked
        with >, a value being edited in <>), then the hint, or how to edit while editing."""
        rows = self.rows()
        cur = self.cur % len(rows)
        head = self.head()
        room = ROWS - 2 - len(head)
        top = min(max(0, cur - room + 1), max(0, len(rows) - room))
        shown = [self.title] + head
        for index in range(top, min(len(rows), top + room)):
            label, value = rows[index]
            mark = ">" if index == cur else " "
            if value is None:
                shown.append(mark + label)
                continue
            if self.editing and index == cur:
                value = "<%s>" % value
            shown.append("%s%-10s%5s" % (mark, label, value))
        return shown + ["RANK -  HELP +" if self.editing else self.hint], self.led


class Message(Screen):
    """A refusal or a note: any key goes back, or MSG_MS by itself. A referee screen's (locked,
    held) if it returns to one."""
    name = "message"

    def __init__(self, ctl, title, text, back):
        super().__init__(ctl, back)
        self.locked = back.locked
        self.held = back.held
        self.title = title
        self.text = wrap(text)[:ROWS - 3]
        self.since = ctl.now

    def press(self, button):
        self.ctl.goto(self.back)

    long = press

    def tick(self, now):
        if now - self.since >= MSG_MS:
            self.ctl.goto(self.back)  # a message goes by itself: it holds nothing up (R21)

    def lines(self):
        return [self.title] + self.text + ["", "Any key: back"], None
