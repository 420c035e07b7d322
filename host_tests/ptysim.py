"""The terminal simulator (tools/sim/sim.mjs) on a pseudo-terminal, as a person runs it:
started with its arguments, keys written, its output read for a while, quit with `q`
(killed if it does not end). POSIX only. Shared by test_sim.py and test_sim_trust.py."""
import os
import select
import signal
import time

from conftest import ROOT

SIM = os.path.join(ROOT, "tools", "sim", "sim.mjs")


class PtySim:
    def __init__(self, *args):
        import pty
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(ROOT)
            os.execvp("node", ["node", SIM] + list(args))
        self.out = b""
        self.ended = (0, 0)  # os.waitpid's (pid, status) once it has ended

    def read(self, seconds):
        """What it writes for `seconds`, added to self.out."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    self.out += os.read(self.fd, 65536)
                except OSError:
                    return

    def keys(self, text):
        os.write(self.fd, text)

    def quit(self):
        """`q`, then up to 3 s for it to end (the pty closes a moment before the process)."""
        self.keys(b"q")
        self.read(1.0)
        for _ in range(60):
            self.ended = os.waitpid(self.pid, os.WNOHANG)
            if self.ended[0]:
                break
            time.sleep(0.05)

    def close(self):
        if not self.ended[0]:
            os.kill(self.pid, signal.SIGKILL)  # only our own child, by its id
            os.waitpid(self.pid, 0)
        os.close(self.fd)
