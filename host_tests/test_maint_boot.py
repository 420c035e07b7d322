"""The maintenance boot over USB: `maint`, in bench mode only, writes the one-shot flag
protocol.MAINT_FLAG, replies, logs it and resets the board once the record is on flash;
main.py at power-on removes the flag and starts neither the app nor the watchdog (the RP2040's
watchdog cannot be stopped once started, so a deploy must come before it). Without the code
nothing writes the flag.

On CPython with the fake board and flash (the Bench of test_bench_mode.py, its board given a
reset() that records what was on flash at that moment); main.py and the whole flow in the
MicroPython VM on the simulator's stand-ins (tools/sim/machine.py counts machine.reset()).
"""
import ast
import json
import os
import random
import textwrap

from conftest import FIRMWARE, ROOT, run_in_vm
from carddraw import config, protocol
from benchkit import RESTART_MS
from fakeflash import FakeFlash
from test_bench_mode import Bench, CODE, REFUSED, kbd  # noqa: F401 -- kbd: a fixture

FLAG = protocol.MAINT_FLAG
MAIN = open(os.path.join(FIRMWARE, "main.py")).read()
VMLIBS = [os.path.join(ROOT, "tools", "sim"), os.path.join(ROOT, "host_tests", "vmlib")]


def watched(b):
    """b's board records each reset: the flag, the log records and the replies out by then."""
    resets = []
    b.board.reset = lambda: resets.append({
        "t": b.t, "flag": FLAG in b.fs.flash, "replies": [json.loads(x) for x in b.out],
        "bench": [r.get("mode") for r in b.records() if r["ev"] == "bench"]})
    return resets


class LogRefusing(FakeFlash):
    """A flash that, while `refuse` is set, refuses only the journal's writes (where a pass's
    records go first)."""
    refuse = False

    def open(self, path, mode="r"):
        if self.refuse and path.startswith("j") and "r" not in mode:
            raise OSError(5, "EIO")
        return FakeFlash.open(self, path, mode)


# -- maint: the flag, the reply, the record, then the reset ------------------------------------
def test_maint_writes_the_flag_replies_logs_then_resets_once_after_the_reply():
    b = Bench()
    resets = watched(b)
    b.one("unlock " + CODE)
    assert FLAG not in b.fs.flash
    start = b.t
    assert b.one("maint") == {"ok": "maint", "usb": "open"}
    assert FLAG in b.fs.flash and resets == []
    b.run(RESTART_MS + 100)
    assert len(resets) == 1
    at = resets[0]
    assert at["flag"] and at["replies"] == [{"ok": "maint", "usb": "open"}]
    assert at["bench"] == ["on", "maint"]                  # the record was on flash first
    assert at["t"] - start >= RESTART_MS                    # the reply had time to go out
    assert b.app.controller.view().lines[:3] == ["Maintenance", "USB open until", "next restart"]
    b.run(2000)
    assert len(resets) == 1                                 # one reset, not one a pass


def test_the_message_shows_over_a_bench_test_and_a_dark_display():
    """The display keeps its last picture through the reset: the maintenance message."""
    b = Bench()
    b.one("unlock " + CODE)
    b.one("test display")
    b.run(config.OFF_AFTER_MS + 1000)                     # idle: the display goes dark
    assert b.app.face.idle == 2 and b.app.console.test is not None
    b.one("maint")
    b.run(100)
    assert b.app.console.test is None and b.app.face.idle == 0 and not b.board.display.asleep
    assert b.board.display.shown[1:3] == ["USB open until", "next restart"]


def test_a_record_waiting_for_the_flash_holds_the_reset_back():
    b = Bench(fs=LogRefusing())
    resets = watched(b)
    b.one("unlock " + CODE)
    b.fs.refuse = True
    assert b.one("maint")["ok"] == "maint"
    b.run(3000)
    assert resets == [] and b.app.store.waiting()           # the maint record waits in RAM
    b.fs.refuse = False
    b.run(200)
    assert len(resets) == 1 and resets[0]["bench"] == ["on", "maint"]


def test_a_flash_refusing_the_flag_is_an_error_and_nothing_changes(kbd):
    b = Bench()
    resets = watched(b)
    b.one("unlock " + CODE)
    before = b.app.controller.show()
    b.fs.failing = True
    r = b.one("maint")
    assert r == {"error": "maint: the flash refused maint.flag; nothing changed"}
    b.fs.failing = False
    b.run(1000)
    assert resets == [] and kbd == [] and not b.app.console.maint and FLAG not in b.fs.flash
    assert b.app.controller.show() == before
    assert [r.get("mode") for r in b.records() if r["ev"] == "bench"] == ["on"]


def test_lock_before_the_reset_calls_the_maintenance_boot_off(kbd):
    b = Bench()
    resets = watched(b)
    b.one("unlock " + CODE)
    replies = b.send("maint", "lock")                       # both in one loop pass
    assert replies == [{"ok": "maint", "usb": "open"}, {"ok": "lock"}]
    b.run(1000)
    assert resets == [] and FLAG not in b.fs.flash and kbd == [3, -1]


def test_maint_takes_no_argument_and_needs_bench_mode():
    b = Bench()
    resets = watched(b)
    assert b.one("maint") == {"error": REFUSED % "maint"}
    b.one("unlock " + CODE)
    assert b.one("maint now") == {"error": "maint takes no argument"}
    b.run(1000)
    assert resets == [] and FLAG not in b.fs.flash


# -- no other way to the flag -------------------------------------------------------------------
def test_only_maint_writes_the_flag_and_only_main_py_reads_it():
    """maint_flag(store, True) is called from maint alone (which the gate holds until
    `unlock CODE`); no other firmware module names the flag's file."""
    tree = ast.parse(open(protocol.__file__).read())
    writers = []
    for fn in [n for n in tree.body if isinstance(n, ast.FunctionDef)]:
        for call in ast.walk(fn):
            if (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "maint_flag"
                    and len(call.args) == 2 and getattr(call.args[1], "value", None) is True):
                writers.append(fn.name)
    assert writers == ["maint"] and "maint" in protocol.GATED
    assert 'os.remove("%s")' % FLAG in MAIN
    named = []
    for folder, _, files in os.walk(os.path.join(FIRMWARE, "carddraw")):
        for name in files:
            if name.endswith(".py") and FLAG in open(os.path.join(folder, name)).read():
                named.append(name)
    assert named == ["protocol.py"]


LINES = ["seed 5", "test draws 3", "test led red", "test display", "test button 50",
         "test end", "log", "show", "lock", "maint", "wait 100", "unlock SSSS",
         "log ack 1 " + FLAG, "test led " + FLAG, "seed " + FLAG, "press " + FLAG,
         "unlock " + FLAG, "maint " + FLAG, "test draws " + FLAG, FLAG, "long STOP"]
KNOWN = (config.SETTINGS_FILE, config.LOG_EXPORTED_FILE)


def test_a_random_walk_without_the_code_never_writes_the_flag_or_resets():
    """Lines (file names as arguments too) and button presses, no code: the flash only ever
    holds the store's own files, and the board is never reset."""
    b = Bench(referee=True, black=1)
    resets = watched(b)
    rnd = random.Random(9)
    names = set()
    for _ in range(600):
        if rnd.random() < 0.5:
            b.button(rnd.choice(("RANK", "HELP", "DRAW", "STOP")), rnd.choice(("short", "long")))
        else:
            b.send(rnd.choice(LINES))
        names |= set(b.fs.flash)
    assert resets == [] and FLAG not in names
    assert all(n in KNOWN or (n.startswith("log/log.") and n.endswith(".jsonl"))
               or n.startswith("journal/j0") for n in names), names  # the journal's folders
    assert b.app.console.bench is None


# -- main.py at power-on, in the MicroPython VM ---------------------------------------------------
def test_main_py_with_the_flag_removes_it_and_does_not_import_the_app():
    """A stand-in carddraw package (its app.main() counts calls) first on sys.path."""
    r = run_in_vm(textwrap.dedent("""
        import os, sys
        top = os.getcwd().rstrip('/')
        os.mkdir(top + '/fake')
        os.mkdir(top + '/fake/carddraw')
        with open(top + '/fake/carddraw/app.py', 'w') as f:
            f.write('CALLS = []\\ndef main():\\n    CALLS.append(1)\\n')
        sys.path.insert(0, top + '/fake')
        os.mkdir(top + '/board')
        os.chdir(top + '/board')
        with open('maint.flag', 'w') as f:
            f.write('maint')
        said = []
        def boot():
            exec(MAIN, {'__name__': '__main__', 'print': said.append})
        out = {}
        boot()
        out['flag_boot'] = [sorted(os.listdir('.')), 'carddraw.app' in sys.modules, said[:]]
        del said[:]
        boot()                                    # the next reset: a normal boot
        import carddraw.app
        out['next_boot'] = [carddraw.app.CALLS, said]
        RESULT = out
    """).replace("MAIN", repr(MAIN)))
    assert r["flag_boot"] == [[], False, ["carddraw: maintenance, app and watchdog off until reset"]]
    assert r["next_boot"] == [[1], []]


def test_maint_then_power_on_in_the_vm_is_a_maintenance_boot_then_a_normal_one():
    """The firmware's own Board, Store and App on the stand-ins: maint resets the board (the
    simulator counts it) with the flag and the record on flash; main.py then finds the flag."""
    r = run_in_vm("from app_harness import *\n" + textwrap.dedent("""
        import os, machine
        from machine import SIM
        from carddraw import app as appmod
        os.mkdir('dev_flash')
        os.chdir('dev_flash')
        app = boot()
        run(app, 100)
        out = {}
        out['refused'] = one(app, 'maint')
        run(app, 1000)
        out['refused_resets'] = SIM.resets
        one(app, 'unlock RHRH')
        out['maint'] = one(app, 'maint')
        replies = REPLIES
        def reset(real=machine.reset):
            out['at_reset'] = [sorted(os.listdir('.')), [json.loads(x) for x in replies],
                               [x.get('mode') for x in read_log(app.store)[0]
                                if x['ev'] == 'bench']]
            real()
        machine.reset = reset
        run(app, 400)
        out['resets'] = SIM.resets
        started = []
        appmod.main = lambda: started.append(1)   # the app's start, as main.py calls it
        said = []
        exec(MAIN, {'__name__': '__main__', 'print': said.append})
        out['maint_boot'] = [said, started[:], 'maint.flag' in os.listdir('.')]
        exec(MAIN, {'__name__': '__main__', 'print': said.append})
        out['next_boot'] = started
        RESULT = out
    """).replace("MAIN", repr(MAIN)), libs=VMLIBS, timeout=300)
    assert r["refused"] == {"error": REFUSED % "maint"} and r["refused_resets"] == 0
    assert r["maint"] == {"ok": "maint", "usb": "open"} and r["resets"] == 1
    files, replies, bench = r["at_reset"]
    assert "maint.flag" in files and replies[-1] == {"ok": "maint", "usb": "open"}
    assert bench == ["on", "maint"]
    assert r["maint_boot"] == [["carddraw: maintenance, app and watchdog off until reset"], [],
                               False]
    assert r["next_boot"] == [1]
