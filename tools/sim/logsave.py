"""The log's hash chain checked inside the MicroPython VM, for the web app's log export (the
browser has SHA-256 only in a secure context, and only asynchronously; the VM has hashlib).

The same chain as tools/common/logchain.py (which the event tool uses to check the file
again): each record line is J[:-1] + ',"h":"' + h + '"}' with h the first 12 hex digits of
sha256(the previous record's h + J), the first record ever chained from "". A log whose
oldest records were dropped after an earlier export starts at the first record given.
MicroPython's `re` has no counted repeats, so the hash is split off by position.

check(lines) -> {"ok", "message", "head" (the last hash), "seq" (the last record's)}: what
the export's header says and what `log ack SEQ HASH` needs.
"""
import binascii
import json
from hashlib import sha256

DIGITS = 12
TAIL = len(',"h":"') + DIGITS + len('"}')


def split(line):
    """A record line -> (J, h), or None when it carries no hash at its end."""
    line = line.rstrip("\r\n")
    if len(line) < TAIL + 2 or not line.endswith('"}') or line[-TAIL:-DIGITS - 2] != ',"h":"':
        return None
    h = line[-DIGITS - 2:-2]
    if any(c not in "0123456789abcdef" for c in h):
        return None
    return line[:-TAIL] + "}", h


def chain_hash(prev, text):
    return binascii.hexlify(sha256((prev + text).encode()).digest()).decode()[:DIGITS]


def seq_of(text):
    try:
        r = json.loads(text)
    except ValueError:
        return None
    s = r.get("seq") if isinstance(r, dict) else None
    return s if isinstance(s, int) and not isinstance(s, bool) else None


def check(lines):
    """The chain of `lines` (record lines, oldest first) -> {"ok", "message", "head", "seq"}:
    head and seq are the last record's, whether or not the chain holds (as the bench's)."""
    ok, message = verify(lines)
    out = {"ok": ok, "message": message, "head": "", "seq": None}
    for line in reversed(lines):
        parts = split(line)
        if parts is not None:
            out["head"], out["seq"] = parts[1], seq_of(parts[0])
            break
    return out


def verify(lines):
    """-> (ok, message), as logchain.verify says it."""
    prev = None
    last = None
    first = None
    n = 0
    for line in lines:
        if not line.strip():
            continue
        parts = split(line)
        seq = parts and seq_of(parts[0])
        if seq is None:
            return False, "line %d has no hash or no seq" % (n + 1)
        text, h = parts
        if prev is None and seq != 1:
            pass  # the oldest records were exported and dropped: start here
        elif chain_hash(prev or "", text) != h:
            return False, "record %d does not chain from the one before it" % seq
        elif last is not None and seq != last + 1:
            return False, "record %d: seq should be %d" % (seq, last + 1)
        prev, last, n = h, seq, n + 1
        if first is None:
            first = seq
    if not n:
        return True, "verified: no records"
    return True, "verified: %d record%s, seq %d to %d" % (n, "" if n == 1 else "s", first, last)
