"""Low battery (below 15 %): the device says so in words once, not on every frame, and logs
{"ev": "battery", "percent": p}; once charged it may say so again. In the MicroPython VM, on
the stand-ins (tools/sim), through the firmware's own App loop. (With the display off, idle,
the battery is not read: it is said when the device wakes.)"""
from conftest import run_in_vm

SCRIPT = r'''
from app_harness import *

app = boot()
logged = []
keep = app.store.commit
def commit(records, settings=None, hint=None):
    logged.extend(records)
    return keep(records, settings, hint)
app.store.commit = commit

def minute(volts):
    SIM.set_vsys(volts)
    tap(app, "HELP")      # someone holds the device: the display stays on
    said = 0
    shown = False
    for _ in range(60):
        run(app, 1000)
        now = bool(app.face.drawn) and app.face.drawn.lines[-1].startswith("Battery low")
        said += now and not shown
        shown = now
    return said

out = {"full": minute(3.95)}
out["low"] = minute(3.30)             # about 7 %
out["still_low"] = minute(3.31)
out["charged"] = minute(3.95)
out["low_again"] = minute(3.28)
out["records"] = [r for r in logged if r["ev"] == "battery"]
RESULT = out
'''


def test_low_battery_is_said_once_and_logged_once_per_discharge():
    r = run_in_vm(SCRIPT, libs=["tools/sim", "host_tests/vmlib"])
    assert r["full"] == 0 and r["charged"] == 0 and r["still_low"] == 0
    assert r["low"] == 1 and r["low_again"] == 1
    records = r["records"]
    assert len(records) == 2
    assert all(set(x) == {"ev", "ms", "percent"} and 0 <= x["percent"] < 15 for x in records)
