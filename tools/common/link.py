"""The link to a device: a Pico running the firmware, over USB serial, or the simulator (node
tools/sim/sim.mjs --protocol) on simulated time. One protocol client for the tools that talk
to a device (bench, deploy's maintenance boot, event's --devices): a line out, its JSON
replies back (the bench protocol, README "The bench protocol")."""
import json
import os
import queue
import subprocess
import sys
import threading
import time

from common import ROOT, TOOLS

SIM = os.path.join(TOOLS, "sim", "sim.mjs")
BAUD = 115200
PICO_VID, PICO_PID = 0x2E8A, 0x0005  # MicroPython on an RP2040
NO_BOARD = "no board found: connect the Pico running MicroPython by USB"
DEFAULT_CODE = "RHRH"    # the referee code a fresh device has (config.DEFAULT_LOCK keeps its hash)


class NoReply(Exception):
    """Nothing came back in time, or the simulator stopped."""


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


def find_picos(ports=None):
    """Serial ports that are a Pico running MicroPython (USB 2e8a:0005); others are ignored,
    e.g. the machine's own /dev/ttyS0 that `mpremote connect list` also shows."""
    if ports is None:
        from serial.tools import list_ports
        ports = list_ports.comports()
    return [p.device for p in ports if p.vid == PICO_VID and p.pid == PICO_PID]


def pick_port(port=None, ports=None):
    """The port to use, or None. An explicit port is used as given."""
    if port:
        return port
    found = find_picos(ports)
    return found[0] if found else None


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


def unlock(link):
    """`unlock CODE` -> None, or why the device refused (a wrong code, the lock's wait)."""
    r = link.request("unlock " + link.code)
    return None if r.get("ok") == "unlock" else r.get("error", json.dumps(r))
