# The bench's `log` command: the log streamed line by line as it is on flash (hashes and all,
# so tools/bench.py can check the chain, tools/logchain.py), the device's unique id, and the
# acknowledgement `log ack SEQ HASH` the bench sends once the export is saved, which lets the
# store drop segments holding only exported records when the log is full. Imported only when
# a `log` line arrives.
from carddraw.logline import SEGMENT, line_hash, HASH_DIGITS
from carddraw import config

USAGE = "log, or log ack SEQ HASH (the last record saved: its seq and its 12-digit hash)"


def command(app, args):
    """One `log` line (args: the words after it) -> the final reply dict."""
    if not args:
        return stream(app)
    if len(args) != 3 or args[0] != "ack":
        return {"error": "log takes no argument, or: " + USAGE}
    seq, h = args[1], args[2]
    if not (0 < len(seq) <= 9 and all("0" <= c <= "9" for c in seq)):
        return {"error": "log ack needs a record number (1 to 9 digits); " + USAGE}
    if len(h) != HASH_DIGITS or not all(c in "0123456789abcdef" for c in h):
        return {"error": "log ack needs the record's hash, 12 digits 0-9 a-f; " + USAGE}
    why = ack(app.store, int(seq), h)
    return {"error": why} if why else {"ok": "ack", "seq": int(seq)}


def stream(app):
    """Every log line as its own reply, {"log": "<the line's text>"}, read one line at a time
    (never a list in RAM), then {"ok": "log", "records", "damaged", "device"}."""
    n = [0]
    wdt = getattr(app.board, "wdt", None)

    def each(text):
        app.reply({"log": text})
        n[0] += 1
        if wdt is not None:
            wdt.feed()  # a full log is thousands of lines: the stream must not reset the board

    bad = app.store.read_log(each, True)[1]
    return {"ok": "log", "records": n[0], "damaged": bad, "device": device_id()}


def device_id():
    """machine.unique_id() as hex: which board the log came from ("unknown" off the board)."""
    try:
        import machine
        from binascii import hexlify
        return hexlify(machine.unique_id()).decode()
    except Exception:  # ImportError on CPython without the simulator's machine module
        return "unknown"


def ack(store, seq, h):
    """The bench saved the log up to record `seq`, whose hash is `h`. -> None, or why not."""
    if not store._open():
        return "flash error"
    last = store._seq - 1
    if not 0 < seq <= last:
        return "no record %d: the log holds records 1 to %d" % (seq, last)
    if seq > store._exported:
        if hash_of(store, seq) != h:
            return "record %d's hash is not %s: export the log again" % (seq, h)
        if not store._write(config.LOG_EXPORTED_FILE, seq):
            return "flash error"
        store._exported = seq
    store.flush()  # records waiting for room go now
    return None


def hash_of(store, seq):
    """The hash on flash of record `seq`, or None."""
    first = 0
    for s in store._segs:
        if s <= seq:
            first = s
    key = '"seq":%d,' % seq  # never the last key: "h" is
    found = []

    def each(text):
        if not found and key in text:
            found.append(line_hash(text))
    if first:
        store._read_lines(SEGMENT % first, each, True)
    return found[0] if found else None
