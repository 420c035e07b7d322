# Runs at power-on. Everything lives in carddraw/ (compiled to .mpy by make deploy); this file
# stays source because MicroPython only runs main.py, and its code stays in the heap.
# The bench protocol's `maint` (referee code only) leaves the one-shot flag maint.flag
# (protocol.MAINT_FLAG) and resets: removed first, so the next reset is a normal boot; then
# neither the app nor the watchdog starts, and the REPL is mpremote's.
import os

try:
    os.remove("maint.flag")
    print("carddraw: maintenance, app and watchdog off until reset")
except OSError:  # no flag: a normal boot
    del os
    from carddraw import app

    app.main()
