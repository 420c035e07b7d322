"""One button's debounce and long-press logic, apart from the pin (pure: no machine, no time).

board.Buttons reads the pins and feeds each Button its level; the tests feed levels and
times straight in, on CPython or in the MicroPython VM. Times are the app's count in ms,
which never wraps round (app.run adds up the board's ticks_diff, pass by pass; ticks_ms
wraps): plain subtraction here.
"""
from . import config


class Button:
    """update(level, now_ms, has_long, edge) takes the raw level (0 = pressed: the pin has a
    pull-up and the button joins it to GND) and returns "short", "long" or None:
    - a level counts only once it has been steady for config.DEBOUNCE_MS, so contact bounce
      shorter than that gives exactly one press and one release; steady since the pins'
      last edge (`edge`: board.Buttons' interrupts stamp them) if given, else since the
      first update that saw it;
    - has_long False (the screen on show gives this button no long press): "short" as soon as
      the press counts, the finger going down; its release is then silent;
    - has_long True: "long" once, when a press has lasted config.LONG_PRESS_MS (its release
      then silent), else "short" at the release;
    - a press already down at the first update (held at power-on) makes no event at all.
    """

    def __init__(self, name, pin=None):
        self.name = name
        self.pin = pin         # board.Buttons keeps the Pin here; never read in this module
        self.pressed = False   # the debounced state
        self.raw = -1          # the last raw level seen; -1 before the first update (board.py
                               # skips the call while it is 1, as is the level, not pressed)
        self._since = 0        # when the raw level last changed
        self._down_at = 0      # when the current press began
        self._quiet = False    # the current press has had its event (down, long, power-on)

    def update(self, level, now_ms, has_long=True, edge=None):
        if level != self.raw:
            if self.raw < 0:  # the first update: a press already down makes no event
                self.pressed = self._quiet = level == 0
            self.raw = level
            self._since = now_ms if edge is None else edge
        if (level == 0) != self.pressed and now_ms - self._since >= config.DEBOUNCE_MS:
            self.pressed = level == 0
            if self.pressed:
                self._down_at = self._since
                self._quiet = not has_long  # no long press here: act now, going down
                return None if has_long else "short"
            return None if self._quiet else "short"
        if self.pressed and not self._quiet and now_ms - self._down_at >= config.LONG_PRESS_MS:
            self._quiet = True
            return "long"
        return None
