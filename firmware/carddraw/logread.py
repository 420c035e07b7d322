# The log's lines: one a record, its JSON text with its seq, chained by hash to the line
# before it (seal: the format tools/logchain.py checks); and the log's files read back as a
# stream: every reader hands records (or lines) one at a time to a callback or yields them,
# holding one chunk and one line at most, never a list that grows with the log. Everything
# read is untrusted: a damaged line is skipped and counted, never raised. Pure file I/O.
import json
from binascii import hexlify
from hashlib import sha256

LINE_MAX = 1024      # bytes in one log line, its newline included; never more is written
HASH_DIGITS = 12


def dumps(obj):
    """Compact JSON, as every file of the store is written."""
    return json.dumps(obj, separators=(",", ":"))


def too_long(ev):
    """What stands for a record too long for a line: its event named."""
    return {"ev": "too long", "was": str(ev)[:40]}


def seal(seq, prev, record):
    """-> (the line for `record` as record number `seq` after the hash `prev`, its hash):
    sha256(prev + the JSON text with its seq), its first 12 hex digits, added as "h". A copy
    takes the seq (a record is never changed once it is logged)."""
    r = dict(record)
    r.pop("h", None)
    r["seq"] = seq
    text = dumps(r)
    if len(text) > LINE_MAX - 24:  # room for the hash and the newline
        r = too_long(r.get("ev"))
        r["seq"] = seq
        text = dumps(r)
    # hexlify: binascii is built in, and the board module has it loaded already (its id)
    h = hexlify(sha256((prev + text).encode()).digest()[:HASH_DIGITS // 2]).decode()
    return (text[:-1] + ',"h":"' + h + '"}\n').encode(), h


def lines(fs, path, start=0, budget=0):
    """Each line of a log file from byte `start` (where a line starts), as (its bytes, where
    the next line starts): a generator (close() it when stopping early: it holds the file
    open). Blank lines in a row (logfile.py pads a block's end with them, every reader
    skips them) come as one. A line over LINE_MAX is damage: handed as None, skipped to its
    end; so is what is left past `budget` bytes (0: no cap), or a read the flash refuses.
    The file's last line may lack its newline (a torn end, not on littlefs): handed as it
    is."""
    try:
        f = fs.open(path, "rb")
    except OSError:
        return
    try:
        f.seek(start)
        at = start      # where `buf` starts in the file
        buf = b""
        skipping = False  # in an overlong line: to its end, and on
        while True:
            if budget and at - start > budget:
                yield None, None  # the rest of an oversized file: damage, not read
                return
            end = buf.find(b"\n")
            if end < 0:
                if len(buf) < LINE_MAX:
                    more = f.read(256)  # not readline: it reads a byte per call
                    if more:
                        buf += more
                        continue
                    if buf and not skipping:  # the file's torn end
                        yield buf, None
                    return
                at += len(buf)  # LINE_MAX without a newline
                buf = b""
                if not skipping:
                    yield None, at
                skipping = True
                continue
            if not end:  # blank lines in a row (a block's padding): one line
                end = len(buf) - len(buf.lstrip(b"\n")) - 1  # (a chunk's at most)
            line = buf[:end + 1]
            buf = buf[end + 1:]
            at += end + 1
            if not skipping:
                yield (line if len(line) <= LINE_MAX else None), at
            skipping = False
    except OSError:
        yield None, None
    finally:
        f.close()


def record(line):
    """A line's record (a dict, its "seq" and "h" still in), or None if it is damaged (or
    blank: each() counts it as no damage)."""
    try:
        r = json.loads(line.decode().strip())
    except Exception:  # None, ValueError, UnicodeError, RecursionError on deep nesting
        return None
    return r if isinstance(r, dict) else None


def each(fs, path, hand, raw=False, budget=0, start=0, most=0):
    """Every record of a log file from byte `start` (where a line starts) to hand(), oldest
    first: the record without "seq" and "h", or with raw the line's text as on flash; `most`
    of them at most (0: all; the export reads a few lines a pass). -> (lines skipped as
    damaged, where the next line starts: None at the file's end)."""
    bad = 0
    read = lines(fs, path, start, budget)
    try:
        for line, at in read:
            r = record(line)
            if r is None:
                bad += line is None or bool(line.strip())  # a blank line is no damage
            else:
                if raw:
                    hand(line.decode().strip())
                else:
                    r.pop("seq", None)
                    r.pop("h", None)
                    hand(r)
                if most == 1:
                    return bad, at  # `most` handed (at None: at the file's end)
                most -= 1  # 0 for all: never 1 again
    finally:
        read.close()  # hand() may raise (a copy the flash refuses): the file is let go
    return bad, None


def last_start(fs, path, size):
    """The offset of a log file's last line with a start record, read backwards a chunk at
    a time, or None. The text matches whatever the key order (compact JSON), never inside a
    string (quotes are escaped)."""
    try:
        f = fs.open(path, "rb")
    except OSError:
        return None
    try:
        pos = size
        later = b""
        while pos > 0:
            n = min(512, pos)
            pos -= n
            f.seek(pos)
            chunk = f.read(n) + later[:11]  # a match across the boundary
            at = chunk.rfind(b'"ev":"start"')
            if at >= 0:
                at += pos
                back = max(0, at - LINE_MAX)  # the line's start: after the newline before
                f.seek(back)
                return back + f.read(at - back).rfind(b"\n") + 1
            later = chunk
    except OSError:
        pass
    finally:
        f.close()
    return None


def last_action(log, journal):
    """The records of the log's last action, from its start record, without "seq" and "h":
    a generator, or None when there is none. The log's lines from its last start (log:
    logfile.LogFile; the newest segment holding one), then the journal's records not yet in
    the log, in order (nothing moved first: a full log brings its action back too); a line's
    worth of RAM whatever the log holds."""
    start = None  # the seq of the journal's last start, if it holds one
    read = journal.records_after(log.seq)
    try:
        for seq, r in read:
            if r.get("ev") == "start":
                start = seq
    finally:
        read.close()
    if start is not None:
        return _action(log, journal, None, 0, start)
    for first in reversed(log.segs):
        at = last_start(log.fs, log.path(first), log.sizes[first])
        if at is not None:
            return _action(log, journal, first, at, log.seq + 1)
    return None


def _action(log, journal, found, offset, start):
    """The records from byte `offset` of segment `found` (None: none from the log) to the
    log's end, damaged lines skipped, then the journal's from seq `start`."""
    if found is not None:
        for first in log.segs:
            if first >= found:
                read = lines(log.fs, log.path(first), offset if first == found else 0)
                try:
                    for line, _ in read:
                        r = record(line)
                        if r is not None:
                            r.pop("seq", None)
                            r.pop("h", None)
                            yield r
                finally:
                    read.close()
    read = journal.records_after(start - 1)
    try:
        for _, r in read:
            yield r
    finally:
        read.close()
