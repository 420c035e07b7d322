"""make bench's output: a heading per part, aligned figures with their units, each budget on a
line that ends in OK or OVER, and a figure that could not be measured said in one line.

    out = Report()
    out.heading("Sizes")
    out.figure("main.py", 1504, "B")
    out.budget("firmware .mpy in all", 68265, "B", 49152)          # ... <= 49152 B  OVER
    with out.measuring("engine import heap"):                      # a failure: one line
        ...
"""
import contextlib
import subprocess
import sys

WIDTH = 46   # the label column


class Unmeasurable(Exception):
    """A figure that cannot be measured here: the message says why, in one line."""


def one_line(text, most=160):
    """The last non-empty line of a (multi-line) message, shortened."""
    lines = [x.strip() for x in str(text).splitlines() if x.strip()]
    line = lines[-1] if lines else ""
    return line if len(line) <= most else line[:most - 3] + "..."


def why(exc):
    """A one-line reason for an exception raised while measuring."""
    if isinstance(exc, Unmeasurable):
        return one_line(exc)
    if isinstance(exc, subprocess.TimeoutExpired):
        cmd = exc.cmd[0] if isinstance(exc.cmd, (list, tuple)) else exc.cmd
        return "timed out after %s s (%s)" % (exc.timeout, str(cmd).rsplit("/", 1)[-1])
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return "%s not found" % exc.filename
    return "%s: %s" % (type(exc).__name__, one_line(exc) or "(no message)")


def number(value, unit=""):
    if isinstance(value, float):
        text = "%.1f" % value if abs(value) < 1000 else "{:,.0f}".format(value)
    elif isinstance(value, int):
        text = "{:,}".format(value)
    else:
        text = str(value)
    return (text + " " + unit).rstrip()


class Report:
    def __init__(self, write=None):
        self.write = write or (lambda line: print(line, flush=True))
        self.missing = []    # (figure, why) for each figure not measured
        self.over = []       # labels of budgets over

    def line(self, text=""):
        self.write(text)

    def heading(self, title):
        self.write("")
        self.write("== %s ==" % title)

    def note(self, text):
        self.write("  " + text)

    def figure(self, label, value, unit="", extra=""):
        self.write(("  %-*s %14s  %s" % (WIDTH, label, number(value, unit), extra)).rstrip())

    def budget(self, label, value, unit, limit, at_least=False, under=False, extra=""):
        """A figure against its budget (at most `limit`, at least, or under): ends in OK or
        OVER."""
        ok = value >= limit if at_least else value < limit if under else value <= limit
        if not ok:
            self.over.append(label)
        self.write("  %-*s %14s  %sbudget %s %s  %s" % (
            WIDTH, label, number(value, unit), extra + "  " if extra else "",
            ">=" if at_least else "<" if under else "<=", number(limit, unit),
            "OK" if ok else "OVER"))
        return ok

    def not_measured(self, what, reason):
        self.missing.append((what, reason))
        self.write("  %s: not measured: %s" % (what, reason))

    @contextlib.contextmanager
    def measuring(self, what):
        """Figures measured in the block; if it fails, one line saying which and why."""
        try:
            yield
        except (Exception, subprocess.TimeoutExpired) as e:   # noqa: BLE001 -- said in one line
            self.not_measured(what, why(e))


def table(out, head, rows, widths):
    """Rows of cells, the first left-aligned, the rest right-aligned (a budget's verdict last)."""
    def fmt(cells):
        parts = []
        for i, (cell, w) in enumerate(zip(cells, widths)):
            parts.append(("%-*s" if i == 0 else "%*s") % (w, cell))
        return "  " + " ".join(parts)
    out.write(fmt(head).rstrip())
    for cells in rows:
        out.write(fmt(cells).rstrip())


if __name__ == "__main__":
    sys.exit("report.py is a part of tools/benchmarks/run.py")
