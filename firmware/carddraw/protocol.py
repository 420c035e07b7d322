"""The bench protocol on the USB serial console: the console's own state (Console), reading
lines, and every command. docs/bench.md lists the commands and their replies.

A rare path: App imports this module when the first byte arrives on the console (App.listen)
or a line is handed to App.line, and keeps it. Nothing here imports app.py (the App is passed
in), so there is no import cycle. One command a line, one JSON reply a line. A command that
takes more than its pass (a `wait`, `press`, `unlock`, the `log` export) holds the lines
after it in the queue until it answers.

Bench mode: what chooses or reveals a card, can fake one, or lets history go (GATED) answers
{"error": "... needs bench mode: unlock CODE first"} and changes nothing until `unlock CODE`,
the referee code (counted and compared by the controller's Lockout as the lock screen's own
tries are: compared only once the count is on flash). Bench mode ends on `lock`, _BENCH_MS
after the last console line, and at a reboot (it is only in RAM); each start and end is logged.
"""
import json
import select

from . import config, flashfs, lockcode, settings
from .render import const  # micropython's (render's stand-in under CPython): one import

_MAX_LINE = const(80)  # a protocol line longer than this is refused
_MAX_QUEUE = const(16)  # protocol lines held while a command runs (the bench sends one at a time)
_MAX_REPLIES = const(64)  # replies held for a host that reads slowly, or not at all
_SEND_BYTES = const(256)       # bytes written to the console at most in a pass
_MAX_WAIT_MS = const(600_000)  # one `wait` at most 10 minutes
_BENCH_MS = const(600_000)  # bench mode ends 10 minutes after the last console line
_UNLOCK_PASSES = const(50)     # passes `unlock` waits for the flash to take its try's count
MAINT_FLAG = "maint.flag"  # main.py's one-shot maintenance boot (its name is spelt there too)
_RESTART_MS = const(200)  # maint's reply goes out over USB before the reset
# seed: chooses the cards; test draws: after a seed, shows the cards to come; test led: any
# colour on the LED, a card faked; test button: holds every press the device gets; test
# display: the screen taken over; log ack: lets exported history go; maint: opens the REPL.
GATED = ("seed", "test", "log ack", "maint")


class Console:
    """The USB serial console and the bench's session on it: whole lines in (at most
    _MAX_LINE), replies out only as the port takes them, never blocking the loop."""

    buf: str | None = ""  # the line being read; None: too long, ignored to its end
    sending = ""        # the rest of the reply being written
    dropped = 0         # replies a host that did not read cost
    wait_until = None   # a `wait` (or `test button`) holding the queue until then
    job = None          # a command that runs over passes (Pressed, Unlock, Export)
    test = None         # a bench test (selftest.Test) owning the LED and display
    bench = None        # bench mode: the time of the last console line, or None
    maint = False       # the interrupt key is on (maintenance)
    restart_at = None   # maint's reset is due then (a time after the reply: never 0)

    def __init__(self, app, stream, out, write):
        self.app = app
        self.stream = stream     # None: lines come only through line() (tests, tools)
        self.poll = select.poll()
        if stream:
            self.poll.register(stream, select.POLLIN)
        self.out = out           # None: replies go to write(), a sink that never blocks
        self.out_poll = select.poll()
        if out:
            self.out_poll.register(out, select.POLLOUT)
        self.write = write
        self.replies = []        # reply lines waiting for the reveal
        self.queue = []          # lines waiting for the command before them

    # -- lines in, replies out ----------------------------------------------------------------
    def read(self):
        """The whole lines that came, queued. At most two lines' worth a pass: a host sending
        faster must not keep the loop here; the rest waits in the USB buffer. (No stream: its
        poll has nothing registered, so it reports nothing.)"""
        for _ in range(2 * _MAX_LINE + 2):
            if not self.poll.poll(0):
                break
            ch = self.stream.read(1)
            if not ch:
                break
            buf = self.buf
            if ch in "\r\n":
                if buf is None:
                    self.reply("line longer than 80 characters ignored")
                elif buf:
                    self.line(buf)
                self.buf = ""
            elif buf is None or len(buf) >= _MAX_LINE:
                self.buf = None
            elif " " <= ch <= "~":  # a control byte (Ctrl-C with the key off) is dropped
                self.buf = buf + ch

    def line(self, line):
        """A line for the queue; more than _MAX_QUEUE waiting are refused, not stored."""
        if len(self.queue) >= _MAX_QUEUE:
            self.reply("busy: 16 lines waiting, line ignored")
        else:
            self.queue.append(line)

    def reply(self, out):
        """A reply (a dict, or the text of an error) for the pass's reveal, after the persist.
        At most _MAX_REPLIES wait (a host that does not read): the newest are dropped and
        counted, and the count follows."""
        replies = self.replies
        if len(replies) >= _MAX_REPLIES:
            self.dropped += 1
            return
        dropped = self.dropped
        if dropped and len(replies) < _MAX_REPLIES - 1:
            self.dropped = 0
            self.reply("%d replies dropped: the host did not read" % dropped)
        replies.append(json.dumps({"error": out} if isinstance(out, str) else out))

    def room(self):
        """Replies that may still be queued in this pass without dropping any."""
        return _MAX_REPLIES - 1 - len(self.replies)

    def send(self):
        """The reveal's part: replies written while the port says it has room, a byte at a
        time and _SEND_BYTES a pass at most (a host holding the port open without reading
        makes a longer write wait, up to 500 ms on the rp2 port), or handed to write()."""
        replies = self.replies
        if not self.out:
            while replies:
                self.write(replies.pop(0))
            return
        for _ in range(_SEND_BYTES):
            if not self.sending:
                if not replies:
                    return
                self.sending = replies.pop(0) + "\n"
            if not self.out_poll.poll(0):
                return
            self.out.write(self.sending[0])
            self.sending = self.sending[1:]

    # -- a pass -------------------------------------------------------------------------------
    def serve(self, now):
        """The console's part of a loop pass: a command running over passes steps, a `wait`
        whose time is up answers, the queued lines run in order until one of them holds the
        queue. -> whether a line ran or a job worked (the pass then persists and replies)."""
        ran = False
        app = self.app
        job = self.job
        if job:
            out = job.step(self, now)
            if not out:
                return job.busy
            self.job = None
            self.reply(out)
            ran = True
        if self.wait_until is not None and now - self.wait_until >= 0:
            self.wait_until = None
            if self.bench is not None:
                self.bench = now  # the line that held the queue ends now: the console is in use
            self.reply(self.test.timeout(self) if self.test else {"ok": "wait"})
        # maint's reset, at a pass after its reply, once the flash has every record (a flash
        # still refusing one holds it back); Board.reset never returns on the board
        if self.restart_at and now - self.restart_at >= 0 and not app.store.waiting():
            self.restart_at = None
            app.board.reset()
        if self.wait_until is None:
            self.bench_on(now)  # its time may be up (not while a line holds the queue)
        while self.queue and self.wait_until is None and not self.job:
            ran = True
            out = self.command(self.queue.pop(0), now)
            if out:
                self.reply(out)
        return ran

    def busy(self):
        """Lines waiting or a command running (the simulator runs passes until not)."""
        return bool(self.queue or self.job) or self.wait_until is not None

    def command(self, line, now):
        """One line -> its reply, or None while it runs on."""
        words = line.split()
        cmd = words[0].lower() if words else ""
        handler = HANDLERS.get(cmd)
        if not handler:
            return ("unknown command %r; commands: press NAME, long NAME, wait MS, show, log, "
                    "unlock CODE, lock; in bench mode: seed N, test NAME, log ack SEQ HASH, maint"
                    % cmd[:16])  # (press and test name theirs when given none)
        args = words[1:]
        if cmd == "test" or cmd == "log":  # named by two words: `test led`, `log ack`
            name = " ".join(words[:2]).lower()
        elif len(args) > 1:
            return "%s takes one argument at most" % cmd
        else:
            name = cmd
        if self.bench_on(now):
            self.bench = now  # a console line: bench mode's 10 minutes start again
        elif cmd == "test" or name in GATED:  # every test; of the log, `log ack`
            return "%s needs bench mode: unlock CODE first" % name
        if args and (cmd == "show" or cmd == "lock" or cmd == "maint"):  # past the gate
            return "%s takes no argument" % cmd
        return handler(self, cmd, args, now)

    # -- bench mode -----------------------------------------------------------------------------
    def bench_on(self, now):
        """Whether bench mode is on; ended here once _BENCH_MS passed without a console line."""
        if self.bench is not None and now - self.bench >= _BENCH_MS:
            self.end_bench("timeout")
        return self.bench is not None

    def end_bench(self, why):
        self.bench = None
        app = self.app
        if self.maint:
            self.maint = False
            app.usb_interrupt(False)  # Ctrl-C off again: the REPL closes with bench mode
        if self.restart_at:
            self.restart_at = None     # a maintenance boot not begun yet: called off
            maint_flag(app.store, False)
        if self.test:
            self.end_test()
        app.controller.record("bench", mode="off", why=why)

    def end_test(self):
        self.test = None
        self.app.face.drawn = None  # the normal view drawn whole again


# -- the commands: each (console, cmd, args, now) -> its reply (a dict, or the text of an error:
# Console.reply sends {"error": text}), or None while it runs on. A job (console.job) answers a
# pass or more later: step(console, now) -> its reply, or None while it runs on; busy: whether
# its last step worked (a quiet pass can collect garbage).
class Pressed:
    """`press`'s answer, a pass later: the screen once what the press began is done (a code
    try counted in its pass is compared after that pass's persist)."""
    busy = False

    def __init__(self, reply):
        self.reply = reply  # {"ok": cmd, "button": name}: the screen is added

    def step(self, con, now):
        self.reply["screen"] = con.app.controller.screen
        return self.reply


def press(con, cmd, args, now):
    name = args[0].upper() if args else ""
    if name not in config.BUTTONS:
        return "%s needs a button: RANK, HELP, DRAW or STOP" % cmd
    con.app.button(name, "long" if cmd == "long" else "short", now)
    con.job = Pressed({"ok": cmd, "button": name})


class Unlock:
    """`unlock`: the try, counted by the Lockout in this pass, compared once its count is on
    flash (the lock screen's own way); never while the flash refuses it."""
    busy = False
    said: "str | None" = ""  # the Lockout's word once compared (None opens); "": not yet
    passes = _UNLOCK_PASSES  # left to wait for the flash to take the try's count

    def judged(self, said):
        self.said = said

    def step(self, con, now):
        c = con.app.controller
        said = self.said
        if said == "":  # not compared yet: the flash has not taken the count
            self.passes -= 1
            if self.passes:
                return None
            c.lockout.cancel()
            said = "The flash did not save the try: it was not checked."
        if said:
            return "unlock: " + said
        con.bench = now
        c.record("bench", mode="on")
        out = {"ok": "unlock", "minutes": _BENCH_MS // 60000}
        if settings.default(c.settings):
            out["warning"] = "the referee code is still the default R H R H: change it"
        return out


def unlock(con, cmd, args, now):
    code = args[0].upper() if args else ""
    if code.strip("RHDS") or not (settings.code_ok(code) or len(code) == lockcode.RECOVERY):
        return "unlock needs the referee code: 4 to 8 letters of R, H, D, S"
    job = Unlock()
    why = con.app.controller.lockout.attempt(code, job.judged)
    if why:
        return "unlock: " + why
    con.job = job


def lock(con, cmd, args, now):
    if con.bench is not None:
        con.end_bench("lock")
    return {"ok": "lock"}


def maint_flag(store, on):
    """MAINT_FLAG, an empty file in the store's folder for main.py: made or removed.
    -> True once done."""
    path = store.root + MAINT_FLAG
    try:
        if on:
            flashfs.make(store.fs, path)
        else:
            store.fs.remove(path)
    except OSError:
        return False
    return True


def maint(con, cmd, args, now):
    """A maintenance boot: the flag, the message and the record now, the reset _RESTART_MS
    later, so that `make deploy` and mpremote find the REPL open and no watchdog running.
    What led here (bench mode's record) is on flash before the flag."""
    app = con.app
    if not app.persist() or not maint_flag(app.store, True):
        return "maint: the flash refused %s; nothing changed" % MAINT_FLAG
    con.maint = True
    app.usb_interrupt(True)
    con.restart_at = now + _RESTART_MS
    c = app.controller
    c.record("bench", mode="maint")
    c.say("Maintenance", "USB open until next restart",
          c.shown.back if c.screen == "message" else None, "click")
    con.end_test()  # a bench test gives the LED and display back to the message
    app.wake(now)  # the display keeps this message through the reset
    return {"ok": "maint", "usb": "open"}


def wait(con, cmd, args, now):
    ms = settings.number(args[0] if args else None)
    if ms is None or ms > _MAX_WAIT_MS:
        return "wait needs milliseconds, 0 to %d" % _MAX_WAIT_MS
    con.wait_until = now + ms


def show(con, cmd, args, now):
    return con.app.controller.show()


def seed(con, cmd, args, now):
    n = settings.number(args[0] if args else None)
    if n is None:
        return "seed needs a whole number, 0 to 999999999"
    return con.app.controller.seed(n) or {"ok": "seed", "seed": n}


def log(con, cmd, args, now):
    """`log` and `log ack SEQ HASH`: logexport.py (a rare path: imported on first use)."""
    from . import logexport
    return logexport.command(con, args)


def test(con, cmd, args, now):
    """`test led|display|button|draws|end`: selftest.py (a rare path: imported on first use)."""
    from . import selftest
    return selftest.command(con, args, now)


HANDLERS = {"press": press, "long": press, "wait": wait, "show": show, "seed": seed, "log": log,
            "test": test, "unlock": unlock, "lock": lock, "maint": maint}
