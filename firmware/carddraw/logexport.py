# The bench's `log` command: the log streamed line by line as it is on flash (hashes and all,
# so tools/bench.py can check the chain, tools/logchain.py), the device's unique id, and the
# acknowledgement `log ack SEQ HASH` the bench sends once the export is saved, which lets the
# store drop segments holding only exported records when the log is full. Imported on the
# first `log` line and kept.
from carddraw.logline import HASH_DIGITS

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
    why = app.store.ack(int(seq), h)
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
    return {"ok": "log", "records": n[0], "damaged": bad, "device": app.board.unique_id()}
