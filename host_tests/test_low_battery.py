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


EMPTY = r'''
from app_harness import *

app = boot()
send(app, "press DRAW")               # an action in play: it must be on flash before the sleep
out = {"usb": 0}
SIM.set_vsys(4.7)                     # on USB power: never empty, whatever the cell
run(app, 30000)
out["usb"] = SIM.sleeps
SIM.set_vsys(3.20)                    # under empty: three readings 5 s apart, then sleep
run(app, 6000)
out["one_reading"] = SIM.sleeps
run(app, 20000)
out["slept"] = SIM.sleeps
out["dark"] = not SIM.oled_on
records, _ = read_log(app.store)
out["records"] = [r for r in records if r["ev"] == "battery"]
out["action_on_flash"] = any(r["ev"] == "start" for r in records)
RESULT = out
'''


def test_an_empty_cell_is_said_logged_and_the_device_sleeps_instead_of_running_it_flat():
    """At empty (config.BATTERY_EMPTY_V) for BATTERY_EMPTY_READS readings in a row, off USB:
    a notice, a record, and machine.deepsleep with everything on flash; on USB, never."""
    r = run_in_vm(EMPTY, libs=["tools/sim", "host_tests/vmlib"])
    assert r["usb"] == 0 and r["one_reading"] == 0
    assert r["slept"] == 1 and r["dark"] and r["action_on_flash"]
    assert [x.get("empty") for x in r["records"]] == [None, True]   # low first, then empty


CURVE = r'''
from carddraw import config
from carddraw.board import level
RESULT = {"points": [[level(mv), p] for mv, p in config.BATTERY_CURVE],
          "ends": [level(5000), level(3000)], "all": [level(mv) for mv in range(3000, 4200, 5)],
          "half": level(3570)}
'''


def test_the_gauge_follows_the_lipo_curve():
    r = run_in_vm(CURVE, libs=["tools/sim"])
    assert all(a == b for a, b in r["points"]) and r["ends"] == [100, 0]
    assert r["all"] == sorted(r["all"])                 # never falls as VSYS rises
    assert r["half"] == 45                              # half way between 3550 and 3590
