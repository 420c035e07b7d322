"""Copy the firmware to a Pico over USB with mpremote, compiled to .mpy, then reset it.

    python tools/deploy.py                 # find the Pico, build, copy, reset
    python tools/deploy.py --port /dev/ttyACM0
    python tools/deploy.py --source        # copy .py files instead (slower boot, more RAM)
    python tools/deploy.py --romfs         # code into the ROMFS partition: runs from flash
    python tools/deploy.py --dry-run       # print the mpremote command, touch nothing
    python tools/deploy.py --code RHDS     # the app is running: open maintenance mode first
    python tools/deploy.py --build DIR     # build into DIR/mpy (or DIR/src) instead of build/

The board keeps its settings, the action in progress and the log: only code is replaced.
Stale carddraw/*.py files are removed first, since MicroPython imports a .py before an .mpy.

While the carddraw app runs, the interrupt key (Ctrl-C) is off, so mpremote cannot stop it:
--code CODE (the referee code, letters R H D S) first sends `unlock CODE` and `maint` on the
app's console: the board says "Maintenance" on screen, logs it and restarts with neither the
app nor the watchdog running (a one-shot maintenance boot). deploy waits for its serial port
to come back, then mpremote copies and resets the board, and the app runs again. A board
left in maintenance (a deploy cut short) runs the app again at its next reset or power-on.
A wrong code counts toward the lock's wait, as on the buttons. A board with a fresh MicroPython (no app yet) needs no code. A forgotten code: hold
BOOTSEL while plugging in, copy a fresh MicroPython .uf2, then deploy (settings and log go).

--romfs puts the compiled package in the board's ROMFS partition (MicroPython 1.25 and later,
on firmware built with one; `mpremote romfs query` tells). Bytecode and strings are then used
in place from flash instead of being copied into RAM, which saves most of the heap the code
takes when loaded from .mpy files (make bench measures that heap in the VM, which has no ROMFS).
The carddraw folder on the board's own filesystem is removed, or it would shadow /rom.

--build DIR: the compiled files go into DIR/mpy (DIR/src for --source, DIR/romfs for --romfs),
each a folder this tool made or an empty one; a folder holding files it did not write is
refused, and nothing in it is touched.
"""
import os
import shutil
import subprocess
import sys
import time

import build_mpy
from common import BUILD, FIRMWARE, board_sources, cli, output
# find_picos is how deploy finds a board (through pick_port); its tests look it up here
from common.link import NO_BOARD, NoReply, SerialLink, find_picos, pick_port, unlock  # noqa: F401

TOOL = "tools/deploy.py"
GONE_S = 5.0     # after `maint` the board's port goes away within this (the reset is 0.2 s on)
BACK_S = 20.0    # ... and comes back within this (a Pico enumerates in about a second)
POLL_S = 0.05
SETTLE_S = 0.5   # a port just back: the system may still be setting its permissions

# run on the board before copying: make carddraw/ and clear old code (not data files)
PREPARE = ("import os\n"
           "try:\n os.mkdir('carddraw')\nexcept OSError:\n pass\n"
           "for f in os.listdir('carddraw'):\n"
           " if f.endswith('.py') or f.endswith('.mpy'):\n  os.remove('carddraw/' + f)\n")


# for --romfs: the code must not stay on the read-write filesystem, where it would be found
# first (the current folder comes before /rom on sys.path); an empty folder would shadow too
UNSHADOW = ("import os\n"
            "try:\n"
            " for f in os.listdir('carddraw'):\n"
            "  os.remove('carddraw/' + f)\n"
            " os.rmdir('carddraw')\n"
            "except OSError:\n"
            " pass\n")


def romfs_plan(port, folder, names, build):
    """mpremote: the carddraw package into ROMFS partition 0, main.py onto the filesystem."""
    code = [n for n in names if n.startswith("carddraw/")]
    package = output.prepare(os.path.join(build, "romfs"), code, TOOL)
    for n in code:
        shutil.copy(os.path.join(folder, n), os.path.join(package, n))
    return [sys.executable, "-m", "mpremote", "connect", port, "romfs", "deploy", package, "+",
            "exec", UNSHADOW, "+", "fs", "cp", os.path.join(folder, "main.py"), ":main.py",
            "+", "reset"]


def plan(port, folder, names):
    """The single chained mpremote command that deploys the build in `folder` (names: its
    files, relative to it)."""
    code = [os.path.join(folder, n) for n in names if n.startswith("carddraw/")]
    cmd = [sys.executable, "-m", "mpremote", "connect", port, "exec", PREPARE, "+",
           "fs", "cp"] + code + [":carddraw/", "+"]
    cmd += ["fs", "cp", os.path.join(folder, "main.py"), ":main.py", "+", "reset"]
    return cmd


def source_folder(out):
    """Lay out firmware/ as plain .py in `out`, as build_mpy does for .mpy. -> the names."""
    names = board_sources()
    output.prepare(out, names, TOOL)
    for name in names:
        shutil.copy(os.path.join(FIRMWARE, name), os.path.join(out, name))
    return names


def open_maintenance(port, code, link=None):
    """`unlock CODE` then `maint` on the running app's console (the bench protocol), so that
    mpremote can interrupt it. -> None, or why not. link: a Link (default: the port)."""
    try:
        link = link or SerialLink(port)
    except Exception as e:  # serial.SerialException, a missing port, no permission
        return "cannot open %s: %s" % (port, e)
    link.code = code
    try:
        why = unlock(link)
        if why:
            return "the device refused the code: " + why
        r = link.request("maint")
        if r.get("ok") != "maint":
            return "the device refused maintenance: %s" % r.get("error", r)
    except NoReply as e:
        return "%s: is the carddraw app running on %s?" % (e, port)
    finally:
        link.close()
    return None


def port_present(port, ports=None):
    """Whether `port` is there: listed by pyserial, or a path that exists (a by-id link)."""
    if ports is None:
        from serial.tools import list_ports
        ports = list_ports.comports()
    return port in [p.device for p in ports] or os.path.exists(port)


def wait_for_restart(port, look=None, clock=time.monotonic, sleep=time.sleep):
    """After `maint` the board resets into its maintenance boot: wait for its port to go
    away, then to come back. look() -> the port now, or None (default: `port` if present).
    -> (port, None), or (None, why) in one line."""
    look = look or (lambda: port if port_present(port) else None)
    for gone, limit in ((True, GONE_S), (False, BACK_S)):
        end = clock() + limit
        while (look() is None) != gone:
            if clock() >= end:
                return None, ("the board did not restart within %g s of `maint` on %s"
                              % (limit, port) if gone else
                              "the board's port did not come back within %g s of its restart "
                              "(mpremote connect list shows the ports)" % limit)
            sleep(POLL_S)
    sleep(SETTLE_S)
    return look(), None


def maintenance_boot(port, code, found=False):
    """`unlock CODE`, `maint`, then the wait for the board's restart. found: the port was
    found by USB id, so it is found that way again (the system may name it anew).
    -> (port, None), or (None, why)."""
    why = open_maintenance(port, code)
    if why:
        return None, why
    print("maintenance: %s restarts with the app and watchdog off" % port)
    return wait_for_restart(port, (lambda: pick_port()) if found else None)


def main(argv=None):
    p = cli.parser("deploy", __doc__)
    p.add_argument("--port", help="serial port of the Pico (default: found by its USB id)")
    p.add_argument("--source", action="store_true", help="copy .py source, not .mpy")
    p.add_argument("--romfs", action="store_true",
                   help="deploy the code into the ROMFS partition (runs from flash, saves RAM)")
    p.add_argument("--dry-run", action="store_true", help="print the mpremote command only")
    p.add_argument("--code", type=cli.code_arg,
                   help="the referee code (R H D S, 4 to 8 letters): `unlock CODE` and `maint` "
                        "are sent first, so mpremote can stop the running app")
    p.add_argument("--build", metavar="DIR",
                   help="folder for the compiled files (default: build/ in the project)")
    args = p.parse_args(argv)
    port = pick_port(args.port)
    if port is None:
        sys.stderr.write(NO_BOARD + "\n")
        return 2
    if args.romfs and args.source:
        p.error("--romfs takes the compiled .mpy files; leave out --source")
    build = os.path.abspath(args.build or BUILD)
    try:
        if args.source:
            folder = os.path.join(build, "src")
            names = source_folder(folder)
        else:
            folder = os.path.join(build, "mpy")
            names = sorted(build_mpy.build(folder))
        cmd = romfs_plan(port, folder, names, build) if args.romfs else plan(port, folder, names)
    except output.NotOurs as e:
        p.error(str(e))
    if args.dry_run:
        if args.code:
            print("on %s: unlock %s, then maint; wait for the maintenance boot" % (port, args.code))
        print(" ".join(repr(c) if "\n" in c else c for c in cmd))
        return 0
    if args.code:
        port, why = maintenance_boot(port, args.code, found=args.port is None)
        if why:
            sys.stderr.write(why + "\n")
            return 2
        cmd[cmd.index("connect") + 1] = port   # the board may come back under another name
    print("deploying %s to %s" % ("source" if args.source else ".mpy", port))
    done = subprocess.run(cmd)
    if done.returncode != 0:
        sys.stderr.write("deploy failed (mpremote exit %d): is the Pico running MicroPython, "
                         "and is no other program (a serial terminal, Thonny) using %s?%s%s\n"
                         % (done.returncode, port, " With --romfs the firmware needs a ROMFS "
                            "partition: `mpremote romfs query` shows it." if args.romfs else "",
                            " The board stays in maintenance until reset: deploy again "
                            "without --code." if args.code else ""))
        return 2
    print("done: the Pico has restarted with the new firmware")
    return 0


if __name__ == "__main__":
    sys.exit(main())
