# Runs at power-on. Everything lives in carddraw/ (compiled to .mpy by make deploy, or frozen
# into the UF2 by make uf2); this file stays source because MicroPython runs main.py.
import micropython

micropython.kbd_intr(-1)  # first: a Ctrl-C on the USB console from here on cannot stop this
import os                 # file and open the REPL (the files: settings, the log); on again
import sys                # only in maintenance

# A UF2 with carddraw frozen in runs its own code: on the rp2 port sys.path is
# ['', '.frozen', '/lib'], so a /carddraw folder left by an earlier `make deploy` would hide
# the frozen package (and a partial one break the boot). With stock MicroPython nothing is
# frozen under that name, and the import falls through to the folder as before.
if ".frozen" in sys.path:
    sys.path.remove(".frozen")
    sys.path.insert(0, ".frozen")
names = os.listdir()
if "carddraw" not in names and "carddraw.new" in names:
    os.rename("carddraw.new", "carddraw")  # a deploy cut short after its copy was whole
# The bench protocol's `maint` (referee code only) leaves the one-shot flag maint.flag
# (protocol.MAINT_FLAG) and resets: removed first, so the next reset is a normal boot; then
# neither the app nor the watchdog starts, and the REPL is mpremote's.
if "maint.flag" in names:
    os.remove("maint.flag")
    micropython.kbd_intr(3)
    print("carddraw: maintenance, app and watchdog off until reset")
else:
    del os, names
    try:
        from carddraw import app

        app.main()
    except BaseException as e:  # noqa: BLE001 -- never the REPL: shown, logged, then a reset
        try:
            app.fatal(e)  # (a NameError if carddraw.app itself did not import)
        except BaseException:  # noqa: BLE001
            pass
        import machine

        machine.reset()
