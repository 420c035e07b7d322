# The device as app.main() boots it, driven key by key in the MicroPython VM: for the tests of
# what it holds in RAM (host_tests/test_idle_ram.py) and `make bench`'s heap with an action
# (tools/benchmarks/sim.py). Nothing of the firmware is imported until boot(), so a heap
# reading taken before it counts the firmware whole.
import os
import sys


def boot(flash="/flash"):
    """App(Board(), Store(), None, 0) on a fresh `flash` folder, its first pass run -> Keys."""
    try:
        os.mkdir(flash)
    except OSError:
        pass
    os.chdir(flash)
    from carddraw.board import Board
    from carddraw.store import Store
    from carddraw.app import App
    app = App(Board(), Store(), None, 0)  # rng None: the controller's own, as main() leaves it
    app.loop_pass(0)
    return Keys(app)


class Keys:
    """keys("RANK", "lDRAW"): presses on the app ("l" first: held), a loop pass 100 ms after
    each, as the buttons deliver them -> the view after the last."""

    def __init__(self, app):
        self.app = app
        self.t = 0

    def __call__(self, *keys):
        for key in keys:
            self.t += 100
            held = key.startswith("l")
            self.app.button(key[held:], "long" if held else "short", self.t)
            self.app.loop_pass(self.t)
        return self.app.controller.view()

    def to_setup(self):
        """On to the action's end and set-up again: from the deck a stop (R16), the finishing
        let run (R23); elsewhere DRAW (a card goes on, a success finishes, an end closes)."""
        for _ in range(40):
            screen = self.app.controller.view().screen
            if screen == "setup":
                return
            if screen == "finishing":
                self.t += 61000
                self.app.loop_pass(self.t)
            elif screen == "active":
                self("STOP", "DRAW")
            else:
                self("DRAW")


def loaded():
    """The carddraw modules in RAM now, by name."""
    return sorted(m[9:] for m in sys.modules if m.startswith("carddraw."))
