"""The bench protocol on the USB serial console: reading lines, and every command.

A rare path: App imports this module when the first byte arrives on the console
(App.read_console) or a line is handed to App.line, and keeps it from then on. Nothing here
imports app.py (App is passed in), so there is no import cycle.

One command per line, one JSON reply per line:
  press NAME, long NAME   NAME is RANK, HELP, DRAW or STOP -> {"ok", "button", "screen"}
  wait MS           {"ok": "wait"} after MS ms (0-600000); the loop keeps running meanwhile
                    and the lines after it wait in the queue (at most MAX_QUEUE)
  show              the controller's view and the action (Controller.show)
  seed N            (bench mode) seeds the shuffle (set-up screen only; logged; from then
                    on every screen and record says so, until reboot: Controller.seeded)
  log               the action log, oldest first: one {"log": "<line>"} reply per record (its
                    text as on flash, seq and hash included), read a line at a time, then
                    {"ok": "log", "records": N, "damaged": D, "device": unique id in hex}
  log ack SEQ HASH  (bench mode) the bench saved the log up to record SEQ (its HASH): when the log
                    is full, segments holding only saved records may go -> {"ok": "ack"}
  test led COLOUR   (bench mode) green, yellow, red, black (purple) or off: the LED
                    shows it until the test ends -> {"ok": "led", "colour", "rgb"}
  test display      a checkerboard of 8 x 8 squares inside a one-pixel border
                    -> {"ok": "display", "lit": lit pixels read back from the frame, "pixels"}
  test button MS    waits up to MS ms (1-60000) for a press of a physical button, holding the
                    queue as `wait` does -> {"ok": "button", "button", "kind": "short"|"long"}
                    or {"error": "no button pressed in MS ms"}. The press does nothing else.
  test draws N      (bench mode) set-up screen only: N draws (1-10000) from the settings' deck,
                    each card put back, with the controller's rng through the engine (R9);
                    nothing changes -> {"ok": "draws", "n", "deck": [g, y, r, b], "counts"}
  test end          back to the normal view -> {"ok": "end"}
A test (led, display, button) owns the LED and the display until `test end`, another test,
a `press`/`long` line or a press of a button (which then does nothing else). `show` still
answers with the controller's view: what comes back when the test ends.

Bench mode: what chooses or reveals a card, can fake one, or lets history go (GATED: `seed`,
`test draws`, `test led`, `log ack`, `maint`) answers {"error": "... needs bench mode: unlock
CODE first"} and changes nothing until
  unlock CODE       the referee code as letters R H D S (4 to 8; during a wait, the 12-letter
                    recovery code), counted by lockcode.begin in its pass and compared by
                    lockcode.judge in the next, once the count is on flash (the lock
                    screen's own check: a wrong try counts toward the same wait; the lines
                    after it wait meanwhile) -> {"ok": "unlock", "minutes": 10} (and a
                    "warning" while the code is still the default R H R H)
  lock              bench mode ends -> {"ok": "lock"}
  maint             (bench mode) a maintenance boot: writes the one-shot flag MAINT_FLAG,
                    says so on screen, logs it -> {"ok": "maint", "usb": "open"}, then, once
                    the record is on flash, RESTART_MS after the reply, resets the board
                    (Board.reset). main.py finds the flag, removes it and starts neither the
                    app nor the watchdog: the REPL is mpremote's until the next reset. Until
                    the reset the interrupt key (Ctrl-C) is on as well.
Bench mode ends on `lock`, BENCH_MS after the last console line, and at a reboot (it is only
in RAM); its end closes the interrupt key again, and a maintenance boot not yet begun is
called off (the flag removed). Each start and end is logged ({"ev": "bench"}).
`press`, `long`, `wait`, `show`, plain `log` and the other tests stay open.
"""
import json
import select

from carddraw import config, lockcode
from carddraw.config import MAX_REPLIES
from carddraw.settings import code_ok, number

COMMANDS = ("press NAME, long NAME, wait MS, show, seed N, log, test led|display|button|draws|end"
            " (NAME: RANK, HELP, DRAW, STOP), unlock CODE, lock, maint")
MAX_LINE = 80          # a protocol line longer than this is refused
MAX_QUEUE = 16         # protocol lines held while a `wait` runs (the bench tool sends one at a time)
SEND_BYTES = 256       # bytes written to the console at most in a pass
MAX_WAIT_MS = 600_000  # one `wait` at most 10 minutes
BENCH_MS = 600_000     # bench mode ends 10 minutes after the last console line
MAINT_FLAG = "maint.flag"  # main.py's one-shot maintenance boot (its name is spelt there too)
RESTART_MS = 200       # maint's reply goes out over USB before the reset


class Console:
    """The USB serial console, read and written without ever blocking the loop: whole lines
    in, at most MAX_LINE; replies out only as the port takes them (send)."""

    def __init__(self, stream, reply, out=None):
        self.stream = stream
        self.poll = select.poll()
        self.poll.register(stream, select.POLLIN)
        self.buf = ""
        self.reply = reply       # App.reply: a dict to answer with
        self.overlong = False
        self.out = out           # None: replies go to App.write, a sink that never blocks
        self.out_poll = select.poll()
        if out is not None:
            self.out_poll.register(out, select.POLLOUT)
        self.sending = ""        # the rest of the reply being written

    def lines(self):
        out = []  # type: list[str]
        # at most two lines' worth a pass: a host sending faster than that must not keep the
        # loop here (the watchdog would fire); the rest waits in the USB buffer, nothing lost
        for _ in range(2 * MAX_LINE + 2):
            if not self.poll.poll(0):
                break
            ch = self.stream.read(1)
            if not ch:
                break
            if ch in "\r\n":
                self._end_line(out)
            elif len(self.buf) >= MAX_LINE:
                self.overlong = True
            elif " " <= ch <= "~":
                self.buf += ch
            # a control byte (Ctrl-C with the key off, a stray escape) is dropped: the
            # command around it still works
        return out

    def _end_line(self, out):
        if self.overlong:
            self.reply({"error": "line longer than %d characters ignored" % MAX_LINE})
        elif self.buf:
            out.append(self.buf)
        self.buf = ""
        self.overlong = False

    def send(self, app):
        """Write waiting replies while the port says it has room, at most SEND_BYTES a
        pass: a byte at a time, since a host holding the port open without reading makes a
        longer write wait (up to 500 ms on the rp2 port) once its buffer is full."""
        budget = SEND_BYTES
        while budget > 0:
            if not self.sending:
                if not app.replies:
                    return
                self.sending = app.replies.pop(0) + "\n"
            if not self.out_poll.poll(0):
                return
            self.out.write(self.sending[0])
            self.sending = self.sending[1:]
            budget -= 1


# -- the queues ------------------------------------------------------------------------------
def queue(app, text):
    """A reply line for the pass's reveal. At most MAX_REPLIES wait (a host that does not
    read): the newest are dropped and counted, and the count follows when there is room."""
    if len(app.replies) >= MAX_REPLIES:
        app.replies_dropped += 1
        return
    if app.replies_dropped and len(app.replies) < MAX_REPLIES - 1:
        app.replies.append(json.dumps({"error": "%d replies dropped: the host did not read"
                                                % app.replies_dropped}))
        app.replies_dropped = 0
    app.replies.append(text)


def send(app):
    """The reveal's part for the console: the replies waiting, written as the port takes them
    (Console.send), or handed to App.write."""
    if app.console is not None and app.console.out is not None:
        app.console.send(app)
        return
    while app.replies:
        app.write(app.replies.pop(0))


def line(app, text):
    """A line for App's queue, run in order by serve(). While a `wait` holds the queue, at
    most MAX_QUEUE lines wait; more are refused, not stored."""
    if len(app.queue) >= MAX_QUEUE:
        app.reply({"error": "busy: %d lines waiting, line ignored" % MAX_QUEUE})
        return
    app.queue.append(text)


def serve(app, now):
    """The protocol's part of a loop pass: a `wait` (or `test button`) whose time is up
    answers, then the queued lines run in order until one of them waits. -> whether a line
    ran or a job worked (the pass then answers it: persist, then the replies)."""
    ran = False
    if app.job is not None:  # a line that runs over passes (the `log` export) holds the rest
        out = app.job.step(app, now)
        if out is None:  # not done (only the export runs over passes): busy if it worked
            return app.job.busy
        app.job = None
        app.reply(out)
        ran = True  # it answered: a pass of work (persist, reply), never one to collect in
    if app.wait_until is not None and now - app.wait_until >= 0:
        app.wait_until = None
        if app.bench is not None:
            app.bench = now  # the line that held the queue ends now: the console is in use
        app.reply(app.test.timeout(app) if app.test is not None else {"ok": "wait"})
    if app.restart_at is not None and now - app.restart_at >= 0:
        restart(app)
    if app.wait_until is None:
        bench_on(app, now)  # its time may be up (not while a line holds the queue)
    while app.queue and app.wait_until is None and app.job is None:
        ran = True
        out = command(app, app.queue.pop(0), now)
        if out is not None:
            app.reply(out)
    return ran


def command(app, text, now):
    """Run one protocol line; return the reply dict, or None while a `wait` runs."""
    words = text.split()
    if not words:
        return {"error": "empty line; commands: " + COMMANDS}
    cmd = words[0].lower()
    if cmd != "test" and cmd != "log" and len(words) > 2:
        return {"error": "%s takes one argument; commands: %s" % (cmd, COMMANDS)}
    handler = HANDLERS.get(cmd)
    if handler is None:
        return {"error": "unknown command %r; commands: %s" % (cmd[:16], COMMANDS)}
    if bench_on(app, now):
        app.bench = now  # a console line: bench mode's 10 minutes start again
    elif gated(cmd, words[1:]):
        name = cmd if cmd in ("seed", "maint") else " ".join(words[:2]).lower()
        return {"error": "%s needs bench mode: unlock CODE first" % name}
    return handler(app, cmd, words[1:], now)


# -- bench mode: the referee's code opens what a player must not reach -------------------------
def gated(cmd, args):
    """Whether a line needs bench mode (decided per command, see GATED)."""
    what = args[0].lower() if args else ""
    return cmd in GATED or (cmd + " " + what) in GATED


# seed: chooses the cards (a searched seed turned a 4.9% action into a sure success);
# test draws: after a seed, shows the cards to come; test led: any colour on the LED, a card
# faked while the display says "LED test" where nobody looks; log ack: lets exported
# history go when the log is full; maint: opens the REPL (the files, the code's hash).
# Open: test display (a fixed checkerboard) and test button (fixed words, LED off) cannot
# show a card or choose one, and a press ends them; test end only ends a test.
GATED = ("seed", "test draws", "test led", "log ack", "maint")


def bench_on(app, now):
    """Whether bench mode is on; ended here once BENCH_MS passed without a console line."""
    since = app.bench
    if since is not None and now - since >= BENCH_MS:
        end_bench(app, "timeout")
        return False
    return since is not None


def end_bench(app, why):
    app.bench = None
    if app.maint:
        app.maint = False
        app.usb_interrupt(False)  # Ctrl-C off again: the REPL closes with bench mode
    if app.restart_at is not None:
        app.restart_at = None     # a maintenance boot not begun yet: called off
        flag(app, False)
    app.controller.record("bench", mode="off", why=why)


def unlock(app, cmd, args, now):
    code = args[0].upper() if args else ""
    if not (code_ok(code) or len(code) == lockcode.RECOVERY and all(c in "RHDS" for c in code)):
        return {"error": "unlock needs the referee code: 4 to 8 letters of R, H, D, S"}
    why = lockcode.begin(app.controller, code)  # the try counted: on flash before it is judged
    if why:
        return {"error": "unlock: " + why}
    app.job = Unlock(code)
    return None


class Unlock:
    """`unlock`'s second pass: the try, counted and on flash since the pass before, judged."""

    def __init__(self, code):
        self.code = code

    def step(self, app, now):
        c = app.controller
        why = lockcode.judge(c, self.code)
        if why:
            return {"error": "unlock: " + why}
        app.bench = now
        c.record("bench", mode="on")
        out = {"ok": "unlock", "minutes": BENCH_MS // 60000}
        if lockcode.default(c):
            out["warning"] = "the referee code is still the default R H R H: change it"
        return out


def lock(app, cmd, args, now):
    if args:
        return {"error": "lock takes no argument"}
    if app.bench is not None:
        end_bench(app, "lock")
    return {"ok": "lock"}


def maint(app, cmd, args, now):
    """A maintenance boot (see the module's doc): the flag, the message, the record now; the
    reset RESTART_MS later (restart), so that `make deploy` and mpremote find the REPL open
    and no watchdog running. The only writer of MAINT_FLAG, and only in bench mode."""
    if args:
        return {"error": "maint takes no argument"}
    # what led here (bench mode's record: the unlock) on flash before the flag, so that no
    # maintenance boot is ever without its trace in the log
    if not app.persist() or not flag(app, True):
        return {"error": "maint: the flash refused %s; nothing changed" % MAINT_FLAG}
    app.maint = True
    app.usb_interrupt(True)
    app.restart_at = now + RESTART_MS
    c = app.controller
    c.record("bench", mode="maint")
    c.say("Maintenance", "USB open until next restart",
          c.shown.back if c.screen == "message" else None, "click")
    if app.test is not None:
        app.end_test()
    app.last_input = now
    if app.idle:
        app.wake()  # the display keeps this message through the reset
    return {"ok": "maint", "usb": "open"}


def flag(app, on):
    """Write (on) or remove the maintenance flag on the store's flash. -> True if done."""
    return app.store.set_flag(MAINT_FLAG, on)


def restart(app):
    """maint's reset, at a pass after its reply: the pass before committed the record; one a
    refusing flash still holds back holds the reset back (no record lost). On the board
    Board.reset never returns; the simulator's counts and returns, the test shells have none."""
    if app.store.waiting():
        return
    app.restart_at = None
    reset = getattr(app.board, "reset", None)
    if reset is not None:
        reset()


# -- the commands: each (app, cmd, args, now) -> reply dict, or None while it waits -------------
def press(app, cmd, args, now):
    """`press NAME`, `long NAME`: as the button itself (App.button: a press that wakes the
    display or ends a bench test does nothing else)."""
    name = (args[0] if args else "").upper()
    if name not in config.BUTTONS:
        return {"error": "%s needs a button: RANK, HELP, DRAW or STOP" % cmd}
    app.button(name, "long" if cmd == "long" else "short", now)
    app.job = Pressed(cmd, name)
    return None


class Pressed:
    """`press`'s answer, a pass later: the screen the press led to once everything it began
    is done (a code try counted in its pass is judged after that pass's persist)."""

    def __init__(self, cmd, name):
        self.cmd = cmd
        self.name = name

    def step(self, app, now):
        return {"ok": self.cmd, "button": self.name, "screen": app.controller.view().screen}


def wait(app, cmd, args, now):
    ms = number(args[0] if args else None)
    if ms is None or ms > MAX_WAIT_MS:
        return {"error": "wait needs milliseconds, 0 to %d" % MAX_WAIT_MS}
    app.wait_until = now + ms
    return None


def show(app, cmd, args, now):
    if args:
        return {"error": "show takes no argument"}
    return app.controller.show()


def seed(app, cmd, args, now):
    n = number(args[0] if args else None)
    if n is None:
        return {"error": "seed needs a whole number, 0 to 999999999"}
    why = app.controller.seed(n)
    return {"error": why} if why else {"ok": "seed", "seed": n}


def log(app, cmd, args, now):
    """`log` and `log ack SEQ HASH`: logexport.py (a rare path: imported on first use)."""
    from carddraw import logexport
    return logexport.command(app, args)


def test(app, cmd, args, now):
    """`test led|display|button|draws|end`: benchtest.py (a rare path: imported on first use)."""
    from carddraw import benchtest
    return benchtest.command(app, args, now)


HANDLERS = {"press": press, "long": press, "wait": wait, "show": show, "seed": seed, "log": log,
            "test": test, "unlock": unlock, "lock": lock, "maint": maint}
