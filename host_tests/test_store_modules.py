"""store.py keeps only the writing side in RAM: storeread.py (reading settings, the action and
the log back) and logrepair.py are imported for one call and dropped again, nested calls
included (a load that logs damage, which opens the log, which closes a lost action). Checked
in the MicroPython VM, where they are dropped (CPython keeps them: RAM does not matter there),
on the store alone and on the simulator booting as app.main() does. What this
saves in the heap is a figure for `make bench` (tools/benchmarks/sim.py), not asserted here.
"""
import os
import textwrap

from conftest import ROOT, run_in_vm

SIM = os.path.join(ROOT, "tools", "sim")
READERS = ("carddraw.storeread", "carddraw.logrepair")


SCENARIOS = """
import json, os, sys
from carddraw import config
from carddraw.store import Store

def loaded():
    return [m for m in %r if m in sys.modules]

def fresh(name):
    os.mkdir("/" + name)
    return "/" + name + "/"

out = {}
# a settings file and an open action in the log, then a boot with no action.json
root = fresh("lost")
s = Store(root)
s.save_settings(dict(config.defaults(), ranks=4))
s.log({"ev": "start", "skill": "scan"})
out["write"] = loaded()
s2 = Store(root)
out["settings"] = [s2.load_settings()[0]["ranks"], loaded()]
out["action"] = [list(s2.load_action()), loaded()]   # logrepair needed, and gone again
records = s2.read_log()[0]
out["log"] = [[r["ev"] for r in records], records[-1].get("outcome"), loaded()]

# a damaged settings file: read, report (logs: opens the log), rewrite: nested reads
root = fresh("damaged")
with open(root + config.SETTINGS_FILE, "w") as f:
    f.write("{broken")
s = Store(root)
settings, notice = s.load_settings()
out["damaged"] = [notice, settings == config.defaults(), loaded()]
out["damage_log"] = [r["ev"] for r in s.read_log()[0]]
s.log({"ev": "boot"})                 # the log was opened once: writing needs no reader
out["after"] = [loaded(), s.last()[0]]

# older firmware's log, migrated at the first write
root = fresh("older")
with open(root + config.LOG_FILE, "w") as f:
    f.write('{"ev":"boot"}\\n{"ev":"draw","colour":"red"}\\n')
s = Store(root)
out["migrated"] = [s.log({"ev": "boot"}), loaded(), [r["ev"] for r in s.read_log()[0]]]
RESULT = out
"""


def test_reading_back_loads_storeread_and_logrepair_for_the_call_only_in_the_vm():
    r = run_in_vm(SCENARIOS % (READERS,))
    assert r["write"] == []
    assert r["settings"] == [4, []]
    assert r["action"] == [[None, "action lost"], []]    # closed as lost (R14)
    assert r["log"] == [["start", "end"], "lost", []]
    assert r["damaged"] == ["settings reset", True, []]
    assert r["damage_log"] == ["damage"]
    assert r["after"] == [[], 2]
    assert r["migrated"] == [True, [], ["boot", "draw", "migrated", "boot"]]


def test_in_the_vm_boot_leaves_no_reader_module_and_the_log_still_works():
    r = run_in_vm(textwrap.dedent("""
        import json, sys
        import simhost

        def loaded():
            return [m for m in %r if m in sys.modules]

        dev = simhost.Device(seed=1)
        dev.advance(1000)
        out = {"boot": loaded(), "store": "carddraw.store" in sys.modules}
        dev.press("DRAW")
        dev.advance(1000)
        out["after_press"] = loaded()
        reply = json.loads(dev.run_line("log"))["replies"]
        out["export"] = json.loads(reply[-1])
        out["after_export"] = loaded()
        dev2 = simhost.Device(seed=2)   # a second boot on the same files (/flash)
        dev2.advance(1000)
        out["reboot"] = loaded()
        RESULT = out
    """) % (READERS,), libs=[SIM])
    assert r["boot"] == [] and r["store"] is True
    assert r["after_press"] == []
    assert r["export"]["ok"] == "log" and r["export"]["records"] > 0 and r["export"]["damaged"] == 0
    assert r["after_export"] == []
    assert r["reboot"] == []
