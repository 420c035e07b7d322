"""The device log's hash chain, shared by tools/bench.py and tools/event.py (pure CPython).

On the device (firmware/carddraw/store.py) every log record is one JSON line. The record
without its hash is serialised as JSON text J (compact separators, as the firmware writes
it), then

    h = sha256(prev_h + J) as hex, first 12 digits   (prev_h: the previous record's h)
    line = J[:-1] + ',"h":"' + h + '"}'

The very first record a device writes chains from prev_h = "" (the empty string). Every
record also carries "seq": its number in the device's log, 1 for the first record ever, so
a removed record shows as a gap and the bench can acknowledge "exported up to seq N".
Verification strips the trailing ,"h":"<12 hex>"} textually: the text hashed is exactly the
text on flash, whatever key order or escaping the firmware's json.dumps used, so no JSON
canonicalisation is needed anywhere.

When a device has dropped old segments (only ever ones already exported), its log no longer
starts at seq 1: verify() then takes the first record as given (its own hash cannot be
checked without the record before it) and checks every link after it. A caller that kept
the last hash of an earlier export of the same device passes it as prev_h, and then the
first record is checked too (continuity between exports).

What the chain does and does not prove: any change, removal or insertion of a record in the
device's export is found, as long as the edit did not also recompute every later hash. A
forger who knows this format can recompute them; keeping the last hash ("head") of each
export (the bench prints it, the event tool can store it) makes such a rewrite of an older
export detectable too.

Exported files (tools/bench.py logs) are .jsonl: the first line is a header object
{"export": "carddraw-log", "device": "<unique id hex>", "records": N, "damaged": D,
"saved": "<local time>", "verified": true|false, "head": "<last h>"}, then one device
line per record, byte for byte as the device sent it. read_export() splits the two.
"""
import hashlib
import json
import re

HASH_DIGITS = 12
_TAIL = re.compile(r',"h":"([0-9a-f]{12})"}$')
HEADER_KIND = "carddraw-log"


def chain_hash(prev_h, text):
    """The hash of record text J (without its hash) after the record whose hash is prev_h."""
    return hashlib.sha256((prev_h + text).encode("utf-8")).hexdigest()[:HASH_DIGITS]


def seal(prev_h, text):
    """-> (line without newline, its hash): what the firmware writes for record text J."""
    h = chain_hash(prev_h, text)
    return text[:-1] + ',"h":"' + h + '"}', h


def split(line):
    """A device line -> (J, h), or None when it carries no hash at its end."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    line = line.rstrip("\r\n")
    m = _TAIL.search(line)
    if m is None:
        return None
    return line[:m.start()] + "}", m.group(1)


def _seq(text):
    """The record's "seq" (int), or None when J is not an object with an int seq."""
    try:
        r = json.loads(text)
    except ValueError:
        return None
    if not isinstance(r, dict):
        return None
    s = r.get("seq")
    return s if type(s) is int else None


def _name(index, seq):
    return "record %d (line %d)" % (seq, index + 1) if seq is not None else "line %d" % (index + 1)


def verify(lines, prev_h=None):
    """Check a device log's records, oldest first -> (ok, first_bad, message).

    lines: the record lines (str or bytes, newlines allowed; blank lines are skipped; no
    export header: see read_export). first_bad is the 0-based index into `lines` of the
    first record that was changed, inserted, or that follows a removed one, else None.
    message says "verified: N records, seq A to B" or names that record and the reason."""
    prev_seq = None
    anchored = prev_h is None
    count = 0
    first_seq = None
    for index, line in enumerate(lines):
        if isinstance(line, bytes):
            line = line.decode("utf-8", "replace")
        if not line.strip():
            continue
        parts = split(line)
        if parts is None:
            return False, index, "%s has no hash: inserted or damaged" % _name(index, None)
        text, h = parts
        seq = _seq(text)
        if seq is None:
            return False, index, "%s is not a record with a seq: changed or inserted" % _name(index, None)
        if prev_h is None and count == 0 and seq != 1:
            pass  # the oldest records were exported and dropped: start from this one
        elif chain_hash(prev_h or "", text) != h:
            return False, index, _why(lines, index, text, h, seq, prev_h or "", prev_seq)
        elif prev_seq is not None and seq != prev_seq + 1:
            return False, index, "%s: seq should be %d (hashes chain, seq does not)" % (
                _name(index, seq), prev_seq + 1)
        prev_h, prev_seq, count = h, seq, count + 1
        if first_seq is None:
            first_seq = seq
    if count == 0:
        return True, None, "verified: no records"
    note = ""
    if first_seq > 1 and anchored:
        note = " (the oldest records were dropped after export: record %d is the start)" % first_seq
    return True, None, "verified: %d record%s, seq %d to %d%s" % (
        count, "" if count == 1 else "s", first_seq, prev_seq, note)


def _why(lines, index, text, h, seq, prev_h, prev_seq):
    """The reason record `index` does not chain from prev_h, as precisely as can be told."""
    name = _name(index, seq)
    later = _next_record(lines, index)
    if later is not None and chain_hash(prev_h, later[0]) == later[1]:
        return "%s was inserted (the record after it chains from the one before it)" % name
    if prev_seq is not None and seq > prev_seq + 1:
        missing = seq - prev_seq - 1
        gap = "seq %d" % (seq - 1) if missing == 1 else "seq %d to %d" % (prev_seq + 1, seq - 1)
        return "%d record%s removed before %s (%s missing)" % (
            missing, "" if missing == 1 else "s", name, gap)
    if prev_seq is not None and seq <= prev_seq:
        return "%s was inserted or moved (seq %d after seq %d)" % (name, seq, prev_seq)
    if prev_seq is None and seq > 1:
        return "%s does not follow the given previous hash: records before it removed" % name
    return "%s was changed (its hash does not match its text)" % name


def _next_record(lines, index):
    for line in lines[index + 1:]:
        if isinstance(line, bytes):
            line = line.decode("utf-8", "replace")
        if line.strip():
            return split(line)
    return None


def head(lines):
    """The last record's hash (to keep beside an export), or "" for none."""
    for line in reversed(list(lines)):
        parts = split(line)
        if parts is not None:
            return parts[1]
    return ""


def read_export(lines):
    """An exported file's lines -> (header dict or None, the record lines)."""
    lines = [ln.decode("utf-8", "replace") if isinstance(ln, bytes) else ln for ln in lines]
    if lines:
        try:
            first = json.loads(lines[0])
        except ValueError:
            first = None
        if isinstance(first, dict) and first.get("export") == HEADER_KIND:
            return first, lines[1:]
    return None, lines
