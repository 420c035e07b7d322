# One log line: a record's JSON text with its seq, chained by hash to the line before it
# (the format tools/logchain.py checks), and the segment files' names. Pure.
import json
from binascii import hexlify
from hashlib import sha256

LINE_MAX = 1024      # bytes in one log line, its newline included; never more is written
PIECE = 128          # bytes read at a time (read_line)
HASH_DIGITS = 12
SEGMENT = "log.%06d.jsonl"  # a segment, named by the seq of its first record
_SEP = (",", ":")



def read_line(f):
    """f.readline(LINE_MAX), in pieces of PIECE bytes: readline(n) sets n bytes aside before
    it reads, and a block of 1 KB a line is what a fragmented heap runs out of first."""
    line = f.readline(PIECE)
    while line and len(line) < LINE_MAX and line[-1] != 10:  # no newline yet
        more = f.readline(min(PIECE, LINE_MAX - len(line)))
        if not more:
            break
        line += more
    return line


def chain_hash(prev, text):
    """sha256(previous record's hash + this record's JSON text), first 12 hex digits."""
    # hexlify: binascii is built in, and the board module has it loaded already (its id)
    return hexlify(sha256((prev + text).encode()).digest()[:HASH_DIGITS // 2]).decode()


def seal(seq, prev, record, own=False):
    """-> (the line for `record` as record number `seq` after the hash `prev`, its hash).
    own: the record is a dict of the caller's, made for this (saved.unpacked), and may take
    the seq itself; else a copy does (a record is never changed once it is logged)."""
    r = record if own else dict(record)
    r.pop("h", None)
    r["seq"] = seq
    text = json.dumps(r, separators=_SEP)
    if len(text) > LINE_MAX - 24:  # room for the hash and the newline
        text = json.dumps({"ev": "too long", "was": str(r.get("ev"))[:40], "seq": seq}, separators=_SEP)
    h = chain_hash(prev, text)
    return (text[:-1] + ',"h":"' + h + '"}\n').encode(), h


def line_hash(text):
    """The hash at the end of a log line's text, or None."""
    if text[-20:-14] == ',"h":"' and text[-2:] == '"}':
        return text[-14:-2]
    return None


def older(name):
    """Older firmware's rotated log name: log.jsonl -> log.1.jsonl (migrated to segments)."""
    i = name.rfind(".")
    return name[:i] + ".1" + name[i:] if i > 0 else name + ".1"
