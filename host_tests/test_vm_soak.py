"""Hardening, part 4 and 5, in the MicroPython VM: the heap over 10,000 draws, and the
watchdog resetting a stalled loop with the device coming back where it was."""
import os

from conftest import ROOT, run_in_vm
from test_controller_fuzz import figure

SIM = os.path.join(ROOT, "tools", "sim")
VMLIB = os.path.join(ROOT, "host_tests", "vmlib")

THOUSANDS = 10
STEP_DRAWS = 100   # draws per top-level step (see the test's docstring)
TOLERANCE = 256    # bytes


def soak_script():
    out = ["import gc\nfrom hardening_soak import Soak\nS = Soak()\n"
           "HEAP = [0] * %d\nTOTAL = [0] * %d\n" % (THOUSANDS, THOUSANDS),
           "#--- step\ngc.collect()\n#--- step\nBOOT = [gc.mem_alloc(), gc.mem_alloc() + gc.mem_free()]\n"]
    for k in range(THOUSANDS):
        for _ in range(1000 // STEP_DRAWS):
            out.append("#--- step\nS.run(%d)\n" % STEP_DRAWS)
        out.append("#--- step\nS.settle()\n")
        out.append("#--- step\ngc.collect()\n")
        out.append("#--- step\nHEAP[%d] = gc.mem_alloc()\nTOTAL[%d] = gc.mem_alloc() + gc.mem_free()\n"
                   % (k, k))
    out.append("#--- step\nimport os\n"
               "RESULT = {'heap': HEAP, 'total': TOTAL, 'draws': S.draws, 'actions': S.actions,"
               " 'boot': BOOT, 'dropped': S.dropped, 'ms': S.ms, 'full': S.store.logfile.full,"
               " 'log': sum(os.stat('log/' + n)[6] for n in os.listdir('log')),"
               " 'screen': S.c.screen}\n")
    return "".join(out)


def test_heap_does_not_grow_over_10000_draws():
    """10,000 draws through the controller and the store (App.save, the loop's own way of
    persisting: resume state, then the log, in segments, the oldest dropped once exported: the
    soak acknowledges an export every 100 draws), on the VM's RAM filesystem.
    The heap is read after a collection at every thousand, each time with the device on the
    set-up screen with no action, so the same objects are alive at every reading; it must
    not grow from the first thousand to the last by more than 256 bytes.

    Why steps of 100 draws and why a tolerance: the VM frees garbage only between top-level
    calls, so within one call the heap fills up with garbage. In probes with calls of 2,000
    presses the reading rose by up to about 1 KB over the first few thousand presses, then
    stayed flat for 30,000 presses; the controller alone, the store alone and calls of 100
    draws stayed flat to the byte after the first reading: the VM's bookkeeping for long
    calls, not a leak. 256 bytes (16 blocks of 16) leaves room for that kind of noise and is still well
    under one leaked object per thousand draws (a log record is about 200 bytes).
    """
    r = run_in_vm(soak_script(), libs=[SIM, VMLIB], timeout=300)
    heap = r["heap"]
    growth = heap[-1] - heap[0]
    figure("memory: 10,000 draws", {
        "heap after each thousand (bytes)": heap, "growth first to last thousand": growth,
        "largest step between thousands": max(b - a for a, b in zip(heap, heap[1:])),
        "heap after boot (bytes)": r["boot"][0],
        "VM heap size (alloc + free) at boot, first and last thousand":
            [r["boot"][1], r["total"][0], r["total"][-1]],
        "draws": r["draws"], "actions": r["actions"], "exported log segments dropped": r["dropped"],
        "VM time for 10,000 draws (ms)": r["ms"]})
    assert r["draws"] == THOUSANDS * 1000 and r["dropped"] > 10 and r["screen"] == "setup"
    assert not r["full"] and r["log"] <= 128 * 1024
    assert growth <= TOLERANCE, heap
    assert max(heap) - heap[0] <= TOLERANCE, heap


PRELUDE = """
import asyncio
import machine
from app_harness import *        # boot, run, tap, state on the virtual clock
"""


def test_a_stalled_loop_is_reset_by_the_watchdog_and_the_device_comes_back():
    """App.run() feeds the watchdog every pass (App.loop_pass). The pass's work
    (App.update) is then replaced by one that never comes back (it spins, time passing, nothing fed): the watchdog expires once its timeout
    has passed since the last feed -- under the RP2040's 8,388 ms. The reset is a new Board,
    Store and App on the same filesystem: the same screen, the same action, the same card."""
    r = run_in_vm(PRELUDE + """
with open("settings.json", "w") as f:
    json.dump(dict(config.defaults(), referee=True, black=9, redraws=1, needed=3), f)
seed = 0
while True:                      # a seed whose first draw is a black (Deck 3G 2Y 1R 9B)
    if Rng(seed).randrange(15) >= 6:   # boot(seed) draws with Rng(seed)
        break
    seed += 1
app = boot(seed)
run(app, 100)                    # (a button already down at the first poll counts as held)
tap(app, "DRAW")                 # start
tap(app, "DRAW")                 # draw: a card pending, a redraw offered
before = state(app)
out = {"before": before}
real_update = app.update
GAPS = []
STALL = {"on": False, "for": None, "fed": None}

def update(now):
    if STALL["on"]:
        STALL["fed"] = SIM.wdt_fed
        while not SIM.wdt_expired(CLOCK.t):   # stuck: the loop never gets to feed
            CLOCK.t += 1
            if CLOCK.t - STALL["fed"] > 60000:
                break
        STALL["for"] = CLOCK.t - STALL["fed"]
        STALL["edge"] = [SIM.wdt_expired(STALL["fed"] + SIM.wdt_timeout),
                         SIM.wdt_expired(STALL["fed"] + SIM.wdt_timeout + 1)]
        STALL["on"] = False
        STALL["done"] = True
        return
    last = SIM.wdt_fed
    CLOCK.t += config.LOOP_MS
    if last is not None:
        GAPS.append(CLOCK.t - last)
    real_update(now)
app.update = update

async def main():
    task = asyncio.create_task(app.run())
    await asyncio.sleep_ms(400)
    out["running"] = {"timeout": SIM.wdt_timeout, "feeds": SIM.wdt_feeds,
                      "expired": SIM.wdt_expired(CLOCK.t), "max_gap": max(GAPS)}
    STALL["on"] = True
    for _ in range(100):
        await asyncio.sleep_ms(20)
        if STALL.get("done"):
            break
    task.cancel()
    await asyncio.sleep_ms(0)
await main()
out["stall_ms"] = STALL["for"]
out["edge"] = STALL["edge"]
#--- step
# the reset: the hardware back to power-on, the flash as it was
SIM.reset()
SIM.reset_cause = machine.WDT_RESET
app2 = boot(99)
out["after"] = state(app2)
out["cause"] = machine.reset_cause() == machine.WDT_RESET
async def again():
    task = asyncio.create_task(app2.run())
    await asyncio.sleep_ms(100)
    out["rearmed"] = [SIM.wdt_timeout, SIM.wdt_feeds > 0]
    task.cancel()
    await asyncio.sleep_ms(0)
await again()
records = read_log(app2.store)[0]
out["resume_logged"] = [x for x in records if x["ev"] == "resume"][-1:]
RESULT = out
""", libs=[SIM, VMLIB])
    run = r["running"]
    assert run["timeout"] == 5000 and run["feeds"] >= 5 and not run["expired"]
    assert run["max_gap"] <= 40                          # fed every pass of the loop
    assert 5000 < r["stall_ms"] <= 5001 < 8388           # expired just past the timeout
    assert r["edge"] == [False, True]
    before, after = r["before"], r["after"]
    assert before["show"]["screen"] == "card" and before["resume"]["action"]["pending"] == "black"
    assert after["resume"] == before["resume"]
    for key in ("screen", "lines", "led", "state", "deck", "successes", "draws"):
        assert after["show"][key] == before["show"][key], key
    assert after["led"] == before["led"] == "black" and r["cause"] and r["rearmed"] == [5000, True]
    assert r["resume_logged"] and r["resume_logged"][0]["screen"] == "card"
    figure("watchdog", {"timeout (ms)": run["timeout"], "feeds in 400 ms of running": run["feeds"],
                        "longest gap between feeds while running (virtual ms)": run["max_gap"],
                        "stall until expiry (ms)": r["stall_ms"],
                        "resumed": after["show"]["screen"] + " " + str(before["resume"]["action"]["pending"])})
