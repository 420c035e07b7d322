"""Bad input on the bench protocol: bad lines through App.line (on CPython and in the
MicroPython VM) get one error reply each and change nothing; the console keeps only whole
printable lines, returns while input keeps coming, bounds its queue and replies, and a host that
holds the port and never reads stalls nothing (R21). The device booted: badinput.py."""
import json
import os

from conftest import run_in_vm
from carddraw import protocol
from carddraw.protocol import Console
from fakeflash import FakeFlash
from badinput import NOISE, SIM, VMLIB, boot, good_files, log_of, tried
from storelog import read_log

MAX_LINE = 80  # characters a protocol line holds at most (docs/bench.md)
MAX_QUEUE = 16  # lines held while a command runs (docs/bench.md)
MAX_REPLIES = 64  # replies the console holds for a host that does not read (docs/bench.md)


# -- the bench protocol ----------------------------------------------------------------------
BAD_LINES = [
    "", " ", "\t", "bogus", "PRESS", "press", "press PINK", "press draw now", "press  ",
    "long", "long x", "wait", "wait -1", "wait 1.5", "wait 0x10", "wait +5", "wait 600001",
    "wait 99999999999999999999999", "wait " + "9" * 5000, "wait \u00b2", "wait \u0661\u0662",
    "wait \uff15", "seed", "seed -3", "seed 1e3", "seed 1000000000", "seed " + "1" * 5000,
    "seed \u00b2", "seed \u0661", "show me", "show show", "x" * 100000, "\x00", "\x00press DRAW",
    "press\x00DRAW", "\x1b[A", "\xff\xfe", "press \udcff", "\u202epress DRAW",
    "log now please", "test", "test bogus", "test led led led", "wait " + "1" * 80,
    "test button \u00b2", "test draws \u00b2", "test button " + "9" * 5000, "test draws -1",
    "test led", "test led pink", "test display now",
    "seed 00000000000000000000001", "show\x7f",
]


def test_bad_protocol_lines_through_app_line_get_an_error_and_change_nothing():
    """Every bad line gets one reply, an error, and the device is as it was. The bad lines
    go in with a good one between each, to show the queue goes on."""
    app, fs, board = boot(good_files())
    replies = []
    app.write = replies.append
    before = app.controller.show()
    t = 20_000
    failures = []
    for line in BAD_LINES:
        del replies[:]
        app.line(line)
        app.line("show")
        try:
            for _ in range(3):
                t += 20
                if not app.loop_pass(t):  # the pass caught an exception: report it
                    raise RuntimeError(app.last_error)
        except Exception as e:  # noqa: BLE001 -- what we are looking for
            failures.append((line[:20], "%s: %s" % (type(e).__name__, str(e)[:60])))
            app.console.queue = []
            continue
        got = [json.loads(r) for r in replies]
        if len(got) != 2 or "error" not in got[0] or got[1] != before:
            failures.append((line[:20], got[:2]))
    tried("protocol lines (App.line)", len(BAD_LINES))
    assert failures == []
    assert app.controller.show() == before and log_of(fs)[1] == 0


def test_bad_protocol_lines_in_the_vm_get_an_error():
    """The same lines through App.line in MicroPython, whose str and int differ from
    CPython's (non-ASCII digits, big ints)."""
    r = run_in_vm("from app_harness import *\nimport json\nLINES = json.loads(%r)\n" % json.dumps(BAD_LINES) + """
app = boot()
run(app, 100)
before = app.controller.show()
bad = []
for line in LINES:
    try:
        got = send(app, line, "show")
    except Exception as e:
        bad.append([line[:20], repr(e)])
        continue
    if len(got) != 2 or "error" not in got[0] or got[1] != before:
        bad.append([line[:20], got[:2]])
RESULT = bad
""", libs=[SIM, VMLIB])
    assert r == []


class Stream:
    """A console input holding the given bytes, read one character at a time (latin-1, as
    bytes arrive); poll readiness comes from a pipe that holds a byte while data is left."""

    def __init__(self, data, endless=False, limit=200_000):
        self.data = data
        self.limit = limit  # reads in all: more means a pass that never ends
        self.i = 0
        self.reads = 0
        self.endless = endless
        self.r, self.w = os.pipe()
        os.write(self.w, b"!")

    def fileno(self):
        return self.r

    def read(self, n):
        self.reads += 1
        if self.reads > self.limit:
            raise RuntimeError("Console.lines() is still reading")
        if self.i >= len(self.data):
            if not self.endless:
                os.read(self.r, 1)   # no longer ready
                return ""
            self.i = 0
        ch = self.data[self.i:self.i + 1].decode("latin-1")
        self.i += 1
        return ch

    def close(self):
        os.close(self.r)
        os.close(self.w)


def console_model(data):
    """What the console makes of bytes: lines ended by CR or LF, only printable ASCII kept
    (a control byte, Ctrl-C with the key off, or a byte of a multi-byte character is
    dropped and the rest of the line stands), empty lines skipped, a line running past
    MAX_LINE refused with an error -> (lines, errors)."""
    lines, errors, buf, overlong = [], 0, "", False
    for ch in data.decode("latin-1"):
        if ch in "\r\n":
            if overlong:
                errors += 1
            elif buf:
                lines.append(buf)
            buf, overlong = "", False
        elif len(buf) >= MAX_LINE:
            overlong = True
        elif " " <= ch <= "~":
            buf += ch
    return lines, errors


def test_console_bad_bytes_and_overlong_lines():
    cases = [
        (b"show\n", ["show"]),
        (b"show\r\n", ["show"]),
        (b"\r\n\r\n\n", []),
        (b"x" * MAX_LINE + b"\n", ["x" * MAX_LINE]),
        (b"x" * (MAX_LINE + 1) + b"\nshow\n", ["show"]),
        (b"y" * 100000 + b"\nshow\n", ["show"]),
        (b"press \x00DRAW\nshow\n", ["press DRAW", "show"]),
        (b"\xff\xfe\xfd\n", []),
        (b"\x1b[A\x1b[B\nshow\n", ["[A[B", "show"]),
        (b"caf\xc3\xa9\n", ["caf"]),
        (b"show\x7f\n", ["show"]),
        (NOISE + b"\nshow\n", console_model(NOISE + b"\nshow\n")[0]),
        (b"\tshow\n", ["show"]),
        (b"press DRAW", []),            # no end of line yet: held back
    ]
    assert cases[11][1][-1] == "show" and len(cases[11][1]) > 2  # the noise made lines too
    for data, want in cases:
        s = Stream(data)
        replies = []
        con, got = reader(s, replies)
        for _ in range(len(data) + 2):   # one call per loop pass, until the input is read
            con.read()
            if s.i >= len(data):
                con.read()
                break
        s.close()
        assert got == want == console_model(data)[0], (data[:30], got)
        overlong = "line longer than %d characters ignored" % MAX_LINE  # sent as {"error": ...}
        assert replies == [overlong] * console_model(data)[1]
    tried("console inputs", len(cases))


def reader(stream, replies):
    """A Console reading `stream`: its replies (dicts, or the text of an error) into
    `replies`, and the whole lines it reads into the list returned, as they come (the queue's
    own bound is tested apart)."""
    con = Console(None, stream, None, print)
    con.reply = replies.append
    got = []
    con.line = got.append
    return con, got


def test_console_returns_while_input_keeps_coming():
    """Console.read() reads a bounded amount a pass: a host sending faster than the loop
    reads cannot keep the loop from feeding the watchdog."""
    s = Stream(b"show\n", endless=True)
    con, lines = reader(s, [])
    try:
        con.read()
    finally:
        s.close()
    assert len(lines) <= 64


def test_the_protocol_queue_and_its_replies_are_bounded_while_a_wait_holds_the_queue():
    """While a `wait` holds the queue, the lines past its bound are refused, each with an
    error reply; the replies past theirs (a host that does not read) are counted, and the
    count is said with the next reply."""
    app, fs, board = boot(good_files())
    replies = []
    app.write = replies.append
    app.line("wait 600000")
    app.loop_pass(20_000)
    for i in range(10000):
        app.line("show")
    assert len(app.console.queue) == MAX_QUEUE and len(app.console.replies) == MAX_REPLIES
    app.loop_pass(20_020)  # the pass's reveal writes them
    got = [json.loads(r) for r in replies]
    assert len(got) == MAX_REPLIES and all("busy" in r["error"] for r in got)
    assert app.console.dropped == 10000 - MAX_QUEUE - MAX_REPLIES
    del replies[:]
    app.line("show")
    app.loop_pass(20_040)
    assert [json.loads(r)["error"] for r in replies] == [
        "%d replies dropped: the host did not read" % (10000 - MAX_QUEUE - MAX_REPLIES),
        "busy: %d lines waiting, line ignored" % MAX_QUEUE]


class StuckHost:
    """The USB port as a laptop holds it open and never reads: a pipe no one reads (Linux's
    64 KB; poll says POLLOUT while it has room), its write end non-blocking. A write into a full port would wait on the board
    (up to 500 ms a write, as measured on the rp2 port): here it raises BlockingIOError, so a
    console that ever writes without the port's leave fails the test."""

    def __init__(self):
        self.r, self.w = os.pipe()
        os.set_blocking(self.w, False)
        self.written = 0

    def fileno(self):
        return self.w

    def write(self, text):
        self.written += os.write(self.w, text.encode())

    def close(self):
        os.close(self.r)
        os.close(self.w)


def test_a_host_that_holds_the_port_and_never_reads_stalls_nothing():
    """A laptop's attack: a host floods the console with lines and never reads a reply.
    The port fills; the console then writes nothing (never a write that would wait), the
    replies past the queue are dropped and counted, and meanwhile the buttons work, the
    timed draws come when due (R21) and every pass feeds the watchdog."""
    app, fs, board = boot(FakeFlash())
    board.watchdog(5000)
    app.controller.change("timed", True)
    app.controller.change("interval", 30)
    app.controller.change("needed", 9)             # no success ends it in two minutes
    host = StuckHost()
    lines = Stream(b"show\nlog\nshow\n", endless=True, limit=10 ** 7)
    try:
        app.listen(lines, host)
        t = 10_100
        board.buttons.push("DRAW")                 # set-up: the timed action starts
        for i in range(6000):                      # two minutes of 20 ms passes
            t += 20
            if i in (250, 400):
                board.buttons.push("DRAW")         # a draw by hand, and its card taken
            assert app.loop_pass(t)
        full = host.written
        for i in range(200):                       # the port stays full: nothing more goes
            t += 20
            assert app.loop_pass(t)
    finally:
        lines.close()
        host.close()
    assert full >= 16384 and host.written == full
    assert app.console.dropped > 1000
    assert board.wdt.feeds >= 6200
    draws = [r for r in read_log(app.store)[0] if r["ev"] == "draw"]
    assert [r["n"] for r in draws if not r["timed"]] == [1]      # the press worked
    timed = [r for r in draws if r["timed"]]
    assert len(timed) >= 3                         # 2 minutes at 30 s, the first after 35 s
    assert app.controller.action.draws >= 3
