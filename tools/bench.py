"""Bench tests of the device over USB, or of the simulator: scenarios, self-test, randomness, log.

    python tools/bench.py run SCENARIO...      protocol lines with expected replies: PASS/FAIL
    python tools/bench.py selftest [--yes]     LED colours, display pattern, every button
    python tools/bench.py random N             N draws on the device, chi-square against R9
    python tools/bench.py logs [--out DIR]     the action log saved as .jsonl and .csv, its
                                               hash chain verified, then acknowledged
    python tools/bench.py --sim ...            the same against the simulator (node tools/sim)
    python tools/bench.py --port /dev/ttyACM0 ...   a given port (default: found by USB id)
    python tools/bench.py --code RHDS ...      the referee code, for what needs bench mode

Bench mode: what chooses, shows or fakes a card (seed, test draws, test led) and the export's
acknowledgement (log ack) work only after `unlock CODE` on the device's console, CODE being
the referee code as letters R H D S. With --code the tool sends `unlock CODE` before its
work (selftest, random, logs) and `lock` after it; in scenarios, each `unlock RHRH` line
(the default code) is sent with --code's code instead. --sim uses the default code RHRH
unless told. Without a code on a board, `selftest` cannot test the LED, `random` cannot draw
and `logs` saves the log but cannot acknowledge it. Wrong codes count toward the lock's
wait, as on the buttons.

Scenario files: one bench-protocol line per line (press NAME, long NAME, wait MS, show,
seed N, log, test ..., unlock CODE, lock), each optionally followed by its expected reply:
    show
    => {"screen": "active", "deck": [3, 2, 1, 0]}
The expectation is a JSON object; every key in it must be in the reply with the same value
(other keys of the reply are not looked at; objects inside compare the same way, lists
element by element). In a string, * stands for any text: {"error": "unknown command*"},
{"lines": ["Set-up", "*", "*", "*", "*", "*", "*", "*"]}. A line without an
expectation passes unless its reply is an error. `log` is matched on its last reply line.
Lines starting with ! act on the simulator's hardware (!press NAME, !long NAME, !hold NAME,
!release NAME, !advance MS, !led, !screen) and are skipped on a real board. # starts a comment.
With --sim every scenario file starts on a freshly booted simulator (with --flash, on the same
flash, as after a power cut); on a board they run one after another on the device as it is.

Exit status: 0 all passed, 1 something failed, 2 no board / no reply / bad usage.
"""
import argparse
import csv
import datetime
import json
import math
import os
import queue
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from deploy import NO_BOARD, pick_port  # noqa: E402  -- one way to find the Pico
import logchain  # noqa: E402  -- the log's hash chain, shared with tools/event.py

SIM = os.path.join(HERE, "sim", "sim.mjs")
BUTTONS = ("RANK", "HELP", "DRAW", "STOP")
COLOURS = ("green", "yellow", "red", "black")   # the firmware's order: counts are [g, y, r, b]
LED_TESTS = ("green", "yellow", "red", "black", "off")
BAUD = 115200
DEFAULT_CODE = "RHRH"    # the code a fresh device has (config.DEFAULT_LOCK keeps its hash)
CODE_KEYS = "RHDS"
MAX_DRAWS = 10000        # per `test draws` line (the firmware's limit)
BUTTON_MS = 20000        # how long a person has to press each button in `selftest`
ALPHA = 0.001            # `random` fails below this p-value


class NoReply(Exception):
    pass


# -- talking to the device ---------------------------------------------------------------------
class Link:
    """One protocol line out, JSON replies back. Lines that are not a JSON object (a
    MicroPython banner, a traceback) are skipped."""
    sim = False
    code = None   # the referee code, for bench mode (--code)
    slack = 5.0   # seconds a reply may take beyond the time the line itself asks for

    def send(self, line):
        raise NotImplementedError

    def _line(self, timeout):
        raise NotImplementedError

    def read(self, timeout):
        end = time.monotonic() + timeout
        while True:
            text = self._line(max(0.0, end - time.monotonic()))
            if text is None:
                raise NoReply("no reply within %.0f s" % timeout)
            text = text.strip()
            if text.startswith("{"):
                try:
                    obj = json.loads(text)
                except ValueError:
                    continue
                if isinstance(obj, dict):
                    return obj

    def request(self, line, each=None):
        """Send one line; -> its (last) reply. The lines of a `log` stream before it are handed
        to each(record)."""
        self.send(line)
        timeout = self.slack + line_seconds(line)
        while True:
            r = self.read(timeout)
            if "log" in r and len(r) == 1:
                if each is not None:
                    each(r["log"])
                continue
            return r

    def restart(self):
        """A fresh device for the next scenario: the simulator is booted again (on the same
        --flash folder, if any); a board stays as it is."""

    def close(self):
        pass


def line_seconds(line):
    """Seconds the device may spend on a line before it answers (a wait, a button test)."""
    w = line.split()
    if len(w) == 2 and w[0] == "wait" and w[1].isdigit():
        return int(w[1]) / 1000
    if len(w) == 3 and w[:2] == ["test", "button"] and w[2].isdigit():
        return int(w[2]) / 1000
    if len(w) == 3 and w[:2] == ["test", "draws"]:
        return 30
    return 0


class SerialLink(Link):
    """The Pico's USB serial, with the app running: lines are written as they are, no Ctrl-C
    (the app's loop reads the console without blocking)."""

    def __init__(self, port):
        import serial
        self.port = port
        self.ser = serial.Serial(port, BAUD, timeout=0.2)
        self.buf = b""
        time.sleep(0.1)
        self.ser.reset_input_buffer()   # what the board printed before we came

    def send(self, line):
        self.ser.write(line.encode() + b"\n")
        self.ser.flush()

    def _line(self, timeout):
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.ser.timeout = min(left, 0.2)
            self.buf += self.ser.read(self.ser.in_waiting or 1)
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("utf-8", "replace")

    def close(self):
        self.ser.close()


class SimLink(Link):
    """The simulator (node tools/sim/sim.mjs --protocol) over its pipes, on simulated time."""
    sim = True
    slack = 60.0   # a loaded machine; simulated waits themselves take little real time

    def __init__(self, seed=None, flash=None, hold=()):
        self.options = (seed, flash, hold)
        cmd = ["node", SIM, "--protocol"]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        if flash:
            cmd += ["--flash", flash]
        for name in hold:
            cmd += ["--hold", name]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, cwd=ROOT)
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._pump, daemon=True)
        self.reader.start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise NoReply("the simulator has stopped: " + self._stderr())

    def _line(self, timeout):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            self.lines.put(None)
            raise NoReply("the simulator has stopped: " + self._stderr())
        return line

    def _stderr(self):
        if self.proc.poll() is None:
            return "(still running)"
        return (self.proc.stderr.read() or "").strip()[-500:] or "exit %d" % self.proc.returncode

    def restart(self):
        self.close()
        self.__init__(*self.options)

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()   # our own child
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


def connect(args):
    """-> a Link, or None after saying why (exit status 2)."""
    if args.sim:
        return SimLink(seed=args.seed, flash=args.flash)
    port = pick_port(args.port)
    if port is None:
        sys.stderr.write(NO_BOARD + "\n")
        return None
    try:
        return SerialLink(port)
    except Exception as e:  # serial.SerialException, a missing port, no permission
        sys.stderr.write("cannot open %s: %s\n" % (port, e))
        return None


# -- run: scenarios ----------------------------------------------------------------------------
class ScenarioError(Exception):
    pass


def parse_scenario(path):
    """-> [(line number, protocol line, expected dict or None)]."""
    steps = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            if text.startswith("=>"):
                if not steps or steps[-1][2] is not None:
                    raise ScenarioError("%s:%d: an expectation must follow a protocol line"
                                        % (path, n))
                try:
                    want = json.loads(text[2:])
                except ValueError as e:
                    raise ScenarioError("%s:%d: the expectation is not JSON: %s" % (path, n, e))
                if not isinstance(want, dict):
                    raise ScenarioError("%s:%d: the expectation must be a JSON object" % (path, n))
                steps[-1] = (steps[-1][0], steps[-1][1], want)
            else:
                steps.append((n, text, None))
    return steps


def same(want, got):
    if isinstance(want, bool) or isinstance(got, bool) or want is None or got is None:
        return want is got
    if isinstance(want, str):
        return isinstance(got, str) and glob(want, got)
    if isinstance(want, (int, float)):
        return isinstance(got, (int, float)) and want == got
    if isinstance(want, dict):
        return isinstance(got, dict) and not differences(want, got)
    if isinstance(want, list):
        return (isinstance(got, list) and len(want) == len(got)
                and all(same(w, g) for w, g in zip(want, got)))
    return want == got


def glob(pattern, text):
    """* in pattern stands for any text; nothing else is special."""
    parts = pattern.split("*")
    if len(parts) == 1:
        return pattern == text
    if not text.startswith(parts[0]) or not text.endswith(parts[-1]):
        return False
    at = len(parts[0])
    stop = len(text) - len(parts[-1])
    for p in parts[1:-1]:
        i = text.find(p, at, stop)
        if i < 0:
            return False
        at = i + len(p)
    return at <= stop


def differences(want, got):
    """What in the reply `got` does not match the expectation `want` (a list of texts)."""
    out = []
    for k, v in want.items():
        if k not in got:
            out.append("no %s in the reply" % json.dumps(k))
        elif not same(v, got[k]):
            out.append("%s is %s, expected %s" % (k, json.dumps(got[k]), json.dumps(v)))
    return out


def run_scenario(link, path):
    """-> (passed, failed, skipped)."""
    name = os.path.relpath(path)
    steps = parse_scenario(path)
    passed = failed = skipped = 0
    for i, (n, text, want) in enumerate(steps):
        where = "%s:%d" % (name, n)
        if text.startswith("!") and not link.sim:
            print("SKIP  %s  %s  (simulator only)" % (where, text))
            skipped += 1
            continue
        if text == "unlock " + DEFAULT_CODE and link.code:
            text = "unlock " + link.code   # the device's code in place of the default
        try:
            got = link.request(text)
        except NoReply as e:
            print("FAIL  %s  %s\n      %s; the %d line(s) after it not run"
                  % (where, text, e, len(steps) - i - 1))
            return passed, failed + 1, skipped
        if want is None:
            why = ["an error: %s" % got["error"]] if "error" in got else []
        else:
            why = differences(want, got)
        if why:
            failed += 1
            print("FAIL  %s  %s\n      %s\n      reply: %s" % (where, text, "; ".join(why),
                                                             json.dumps(got)))
        else:
            passed += 1
            print("PASS  %s  %s" % (where, text))
    return passed, failed, skipped


def cmd_run(link, args):
    total = [0, 0, 0]
    for i, path in enumerate(args.scenario):
        if i:
            link.restart()
        p, f, s = run_scenario(link, path)
        print("%s: %d passed, %d failed%s\n" % (os.path.relpath(path), p, f,
                                                ", %d skipped" % s if s else ""))
        total = [total[0] + p, total[1] + f, total[2] + s]
    verdict = "PASS" if total[1] == 0 else "FAIL"
    print("%s: %d lines passed, %d failed%s in %d scenario%s" % (
        verdict, total[0], total[1], ", %d skipped" % total[2] if total[2] else "",
        len(args.scenario), "" if len(args.scenario) == 1 else "s"))
    return 0 if total[1] == 0 else 1


# -- selftest ----------------------------------------------------------------------------------
def led_looks(colour, rgb):
    """Does the light (r, g, b) look like this LED test colour? (black shows purple)"""
    r, g, b = rgb
    return {"green": g > 0 and not r and not b, "yellow": r > 0 and g > 0 and not b,
            "red": r > 0 and not g and not b, "black": r > 0 and b > 0 and not g,
            "off": not (r or g or b)}[colour]


def ask(question, yes):
    if yes:
        print(question + " y (--yes)")
        return True
    try:
        answer = input(question + " ")
    except EOFError:
        print()
        return False
    return answer.strip().lower() in ("y", "yes")


def cmd_selftest(link, args):
    results = []

    def check(what, ok, detail=""):
        results.append(ok)
        print("%s  %s%s" % ("PASS" if ok else "FAIL", what, "  (%s)" % detail if detail else ""))

    for colour in LED_TESTS:
        r = link.request("test led " + colour)
        if r.get("ok") != "led":
            check("LED " + colour, False, json.dumps(r))
            continue
        shown = "purple (a black card)" if colour == "black" else colour
        if link.sim:
            rgb = link.request("!led")["rgb"]
            check("LED " + shown, led_looks(colour, rgb) and rgb == r["rgb"],
                  "the pins light rgb%s" % (tuple(rgb),))
        else:
            check("LED " + shown, ask("is the LED %s? [y/n]" % ("off" if colour == "off" else shown),
                                      args.yes))
    r = link.request("test display")
    if r.get("ok") != "display":
        check("display pattern", False, json.dumps(r))
    elif link.sim:
        s = link.request("!screen")
        check("display pattern", s["on"] and s["lit"] == r["lit"],
              "%d of %d pixels lit, the OLED shows %d" % (r["lit"], r["pixels"], s["lit"]))
    else:
        check("display pattern", ask("does the screen show a checkerboard inside a border lit on "
                                     "all four edges? [y/n]", args.yes))
    ms = 5000 if link.sim else BUTTON_MS
    for name in BUTTONS:
        if link.sim:
            link.request("!press " + name)   # the simulated finger: before the test, it plays
        else:                                # out while `test button` waits
            print("press %s on the device (within %d s)" % (name, ms // 1000))
        r = link.request("test button %d" % ms)
        check("button " + name, r.get("ok") == "button" and r.get("button") == name,
              r.get("error") or "%s press of %s" % (r.get("kind"), r.get("button")))
    link.request("test end")
    failed = results.count(False)
    print("%s: %d of %d checks passed" % ("PASS" if not failed else "FAIL", len(results) - failed,
                                          len(results)))
    return 0 if not failed else 1


# -- random ------------------------------------------------------------------------------------
def gamma_q(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a):
    a power series for P = 1 - Q below x = a + 1, a continued fraction for Q above."""
    if x <= 0:
        return 1.0
    front = math.exp(a * math.log(x) - x - math.lgamma(a))
    if x < a + 1:
        term = total = 1.0 / a
        k = a
        for _ in range(10000):
            k += 1
            term *= x / k
            total += term
            if term < total * 1e-16:
                break
        return max(0.0, 1.0 - front * total)
    tiny = 1e-300   # Lentz's method on the continued fraction
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return front * h


def chi2_sf(stat, df):
    """P(X >= stat) for X chi-square distributed with df degrees of freedom."""
    return gamma_q(df / 2, stat / 2)


def chi_square(counts, deck):
    """-> (statistic, degrees of freedom, p-value) of counts against the deck's odds (R9:
    every card equally likely). A colour with no card drawn anyway gives p = 0."""
    n = sum(counts)
    total = sum(deck)
    stat = 0.0
    cells = 0
    for seen, cards in zip(counts, deck):
        if cards == 0:
            if seen:
                return float("inf"), max(0, cells - 1), 0.0
            continue
        want = n * cards / total
        stat += (seen - want) ** 2 / want
        cells += 1
    df = cells - 1
    return stat, df, (chi2_sf(stat, df) if df > 0 else 1.0)


def cmd_random(link, args):
    n = args.n
    if n < 1:
        sys.stderr.write("random needs at least 1 draw\n")
        return 2
    probe = link.request("test draws 1")
    if probe.get("ok") != "draws":
        sys.stderr.write("the device refused: %s\n" % probe.get("error", json.dumps(probe)))
        return 2
    deck = probe["deck"]
    total = sum(deck)
    fewest = min(c for c in deck if c)
    if n * fewest / total < 5:
        least = COLOURS[deck.index(fewest)]
        sys.stderr.write(
            "%d draws are too few for this deck (%s): %s would expect only %.1f. The "
            "chi-square test needs at least 5 expected in every colour: use at least %d draws\n"
            % (n, deck_text(deck), least, n * fewest / total, math.ceil(5 * total / fewest)))
        return 2
    counts = [0, 0, 0, 0]
    left = n
    while left:
        k = min(left, MAX_DRAWS)
        r = link.request("test draws %d" % k)
        if r.get("ok") != "draws" or r.get("deck") != deck:
            sys.stderr.write("the device refused: %s\n" % r.get("error", json.dumps(r)))
            return 2
        counts = [a + b for a, b in zip(counts, r["counts"])]
        left -= k
    stat, df, p = chi_square(counts, deck)
    print("deck from the set-up screen's settings: %s (%d cards)" % (deck_text(deck), total))
    print("%d draws, each card put back (R9: every card equally likely)\n" % n)
    print("%-8s %6s %10s %10s" % ("colour", "cards", "expected", "observed"))
    for colour, cards, seen in zip(COLOURS, deck, counts):
        print("%-8s %6d %10.1f %10d" % (colour, cards, n * cards / total, seen))
    print("%-8s %6d %10.1f %10d\n" % ("total", total, n, sum(counts)))
    print("chi-square %.3f with %d degree%s of freedom: p = %.4g" % (stat, df, "" if df == 1 else "s", p))
    if p >= args.alpha:
        print("PASS: the draws fit the deck's odds (p >= %g)" % args.alpha)
        return 0
    print("FAIL: draws this far from the deck's odds happen with p < %g" % args.alpha)
    return 1


def deck_text(deck):
    return ", ".join("%s %d" % (c, k) for c, k in zip(COLOURS, deck))


# -- logs --------------------------------------------------------------------------------------
def csv_cell(value):
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def write_logs(header, lines, out, stamp):
    """-> (jsonl path, csv path): carddraw-<device>-<stamp>.jsonl holds the header line, then
    each record's line as the device sent it (hashes kept: logchain.read_export reads it back);
    the .csv one row per record, columns ev, ms, then every other key as first seen."""
    os.makedirs(out, exist_ok=True)
    name = "carddraw-%s-%s" % (safe_name(header["device"]), stamp)
    base = os.path.join(out, name)
    n = 1
    while os.path.exists(base + ".jsonl") or os.path.exists(base + ".csv"):
        n += 1
        base = os.path.join(out, "%s-%d" % (name, n))
    with open(base + ".jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for line in lines:
            f.write(line + "\n")
    records = [parse_record(line) for line in lines]
    columns = ["ev", "ms"]
    for r in records:
        for k in r:
            if k not in columns:
                columns.append(k)
    with open(base + ".csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in records:
            w.writerow([csv_cell(r.get(k)) for k in columns])
    return base + ".jsonl", base + ".csv"


def safe_name(text):
    """The device id as a file-name part: letters and digits only."""
    return "".join(c for c in str(text) if c.isascii() and c.isalnum())[:32] or "unknown"


def parse_record(line):
    try:
        r = json.loads(line)
    except ValueError:
        return {"ev": "(not json)", "line": line}
    return r if isinstance(r, dict) else {"ev": "(not an object)", "line": line}


def log_text(item):
    """A streamed log line: its text as on flash (older firmware sent the record itself)."""
    return item if isinstance(item, str) else json.dumps(item, separators=(",", ":"))


def cmd_logs(link, args):
    lines = []
    r = link.request("log", each=lambda item: lines.append(log_text(item)))
    if r.get("ok") != "log":
        sys.stderr.write("the device refused: %s\n" % r.get("error", json.dumps(r)))
        return 2
    if r.get("records") != len(lines):
        sys.stderr.write("warning: the device sent %d records, received %d\n"
                         % (r.get("records"), len(lines)))
    ok, first_bad, message = logchain.verify(lines)
    now = datetime.datetime.now()
    header = {"export": logchain.HEADER_KIND, "device": r.get("device", "unknown"),
              "records": len(lines), "damaged": r.get("damaged", 0),
              "saved": now.isoformat(timespec="seconds"), "verified": ok,
              "head": logchain.head(lines)}
    if not ok:
        header["problem"] = message
    jsonl, csv_path = write_logs(header, lines, args.out, now.strftime("%Y%m%d-%H%M%S"))
    print("%d log record%s from device %s%s saved to:\n  %s\n  %s" % (
        len(lines), "" if len(lines) == 1 else "s", header["device"],
        " (%d damaged lines skipped on the device)" % r["damaged"] if r.get("damaged") else "",
        jsonl, csv_path))
    print(message if ok else "NOT VERIFIED: " + message)
    if lines and not args.no_ack:
        acknowledge(link, lines[-1])
    return 0 if ok else 1


def acknowledge(link, line):
    """Tell the device the log is saved up to its last record, so that when its log is full
    it may drop segments holding only saved records (never any other)."""
    parts = logchain.split(line)
    seq = parts and parse_record(parts[0]).get("seq")
    if not isinstance(seq, int):
        print("not acknowledged: the last record has no seq and hash (older firmware)")
        return
    r = link.request("log ack %d %s" % (seq, parts[1]))
    if r.get("ok") == "ack":
        print("acknowledged: the device may drop records up to %d once its log is full" % seq)
    else:
        print("not acknowledged: %s" % r.get("error", json.dumps(r)))


# -- bench mode ----------------------------------------------------------------------------------
def code_arg(text):
    """--code: the referee code as letters R H D S, 4 to 8 of them (either case)."""
    code = text.upper()
    if not 4 <= len(code) <= 8 or any(c not in CODE_KEYS for c in code):
        raise argparse.ArgumentTypeError("the referee code is 4 to 8 letters of R, H, D, S, "
                                         "not %r" % text[:20])
    return code


def unlock(link):
    """`unlock CODE` -> None, or why the device refused (a wrong code, the lock's wait)."""
    r = link.request("unlock " + link.code)
    return None if r.get("ok") == "unlock" else r.get("error", json.dumps(r))


# -- the command line --------------------------------------------------------------------------
def main(argv=None):
    p = argparse.ArgumentParser(prog="bench", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--port", help="serial port of the Pico (default: found by its USB id)")
    p.add_argument("--sim", action="store_true", help="test the simulator instead of a board")
    p.add_argument("--seed", type=int, help="--sim: the simulator's random seed")
    p.add_argument("--flash", help="--sim: keep the simulated flash in this folder")
    p.add_argument("--code", type=code_arg,
                   help="the referee code (R H D S, 4 to 8 letters): `unlock CODE` is sent "
                        "first, for what needs bench mode (default with --sim: RHRH)")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run scenario files")
    r.add_argument("scenario", nargs="+")
    s = sub.add_parser("selftest", help="LED, display and buttons through the test commands")
    s.add_argument("--yes", action="store_true", help="answer yes to every question")
    q = sub.add_parser("random", help="chi-square test of N draws on the device")
    q.add_argument("n", type=int, metavar="N")
    q.add_argument("--alpha", type=float, default=ALPHA,
                   help="fail below this p-value (default %g)" % ALPHA)
    g = sub.add_parser("logs", help="download the action log as .jsonl and .csv, verify its "
                                    "hash chain, acknowledge the export")
    g.add_argument("--out", default="logs", help="folder (default: logs/)")
    g.add_argument("--no-ack", action="store_true",
                   help="do not acknowledge: the device keeps counting these records as not exported")
    args = p.parse_args(argv)
    if args.sim and args.port:
        p.error("--sim and --port: choose one")
    if not args.sim and (args.seed is not None or args.flash):
        p.error("--seed and --flash are for --sim")
    if args.command == "run":
        try:
            for path in args.scenario:
                parse_scenario(path)   # every file readable and well formed before starting
        except (OSError, ScenarioError) as e:
            sys.stderr.write("%s\n" % e)
            return 2
    link = connect(args)
    if link is None:
        return 2
    link.code = args.code or (DEFAULT_CODE if args.sim else None)
    try:
        if link.code and args.command != "run":   # scenarios say where they unlock
            why = unlock(link)
            if why:
                sys.stderr.write("bench mode refused: %s\n" % why)
                return 2
        done = {"run": cmd_run, "selftest": cmd_selftest, "random": cmd_random,
                "logs": cmd_logs}[args.command](link, args)
        if link.code and args.command != "run":
            link.request("lock")                    # bench mode ends with the work
        return done
    except NoReply as e:
        sys.stderr.write("%s: is the carddraw app running on the board (not the REPL)?\n" % e)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        link.close()


if __name__ == "__main__":
    sys.exit(main())
