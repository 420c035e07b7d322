"""firmware/carddraw/ssd1306.py inside the MicroPython VM, talking to the SSD1306 stand-in in
tools/sim/machine.py, which decodes the commands and keeps the display RAM.

What the driver promises: the display RAM always ends up equal to the frame buffer; show()
sends only the changed blocks of 16 columns of each changed page, from the first to the last
(a frame with every page changed goes whole, in one write); it allocates nothing; a write
lost to a bus error is sent again by the next show()."""
import textwrap

from conftest import run_in_vm

PRELUDE = """
import gc
from machine import SIM, I2C, Pin
from carddraw import board as B
from carddraw.ssd1306 import SSD1306

def span_bytes(now, prev):
    # The rule as the docstring states it: per changed page, from the block of 16 columns
    # holding its first changed column to the block holding its last; with every page
    # changed (a new picture), the whole frame in one write.
    total = pages = 0
    for p in range(8):
        cols = [x for x in range(128) if now[p * 128 + x] != prev[p * 128 + x]]
        if cols:
            total += (cols[-1] // 16 - cols[0] // 16 + 1) * 16
            pages += 1
    return 1024 if pages == 8 else total
"""


def vm(body):
    return run_in_vm(PRELUDE + textwrap.dedent(body), libs=["tools/sim"])


def test_random_frames_reach_the_display_ram_byte_for_byte_sending_only_changed_spans():
    r = vm("""
        import random
        random.seed(7)
        d = B.Board().display
        out = {"init": SIM.end_frame(), "ram_equal": [], "sent": [], "expected": [], "pages": []}
        prev = bytes(1024)
        for frame in range(60):
            for _ in range(random.randrange(4)):   # some frames touch nothing
                x, y = random.randrange(128), random.randrange(64)
                kind = random.randrange(5)
                if kind == 0:
                    d.text("%d" % frame, x, y, random.randrange(2))
                elif kind == 1:
                    d.fill_rect(x, y, random.randrange(1, 40), random.randrange(1, 20), 1)
                elif kind == 2:
                    d.pixel(x, y, 1 - d.pixel(x, y))
                elif kind == 3:
                    d.hline(0, y, 128, random.randrange(2))
                else:
                    d.rect(x, y, random.randrange(1, 60), random.randrange(1, 30), 0)
            now = bytes(d.buffer)
            out["expected"].append(span_bytes(now, prev))
            rows = [(now[p * 128:(p + 1) * 128], prev[p * 128:(p + 1) * 128]) for p in range(8)]
            out["pages"].append(128 * sum(1 for a, b in rows if a != b))
            out["sent"].append(d.show())
            out["sim"] = SIM.end_frame()
            out["ram_equal"].append(bytes(SIM.oled) == now)
            prev = now
        out["errors"] = SIM.i2c_errors
        RESULT = out
    """)
    assert r["init"] == 1024          # the power-up clear
    assert all(r["ram_equal"])
    assert r["sent"] == r["expected"]
    assert all(s <= p for s, p in zip(r["sent"], r["pages"]))
    assert sum(r["sent"]) < sum(r["pages"])   # spans save bytes over whole pages
    assert 0 in r["sent"] and any(0 < n < 128 for n in r["sent"])
    assert r["errors"] == []


def test_windows_writes_and_byte_counts():
    r = vm("""
        d = B.Board().display
        out = {"init_sim": SIM.end_frame()}
        shown = [1024]                               # the first frame, sent whole at init
        def step(name):
            w0 = SIM.i2c_writes
            n = d.show()
            shown.append(n)
            out[name] = [n, SIM.i2c_writes - w0, SIM.end_frame(), SIM.col_lo, SIM.col_hi,
                         SIM.page_lo, SIM.page_hi]
        step("unchanged")
        d.pixel(10, 3 * 8 + 2, 1)                    # one column of page 3
        step("one_pixel")
        d.pixel(127, 5, 1)                           # the last column: window 112-127
        step("right_edge")
        d.pixel(120, 5, 1); d.pixel(100, 5, 1)       # columns 100-120: blocks 96-127
        step("shifted")
        d.hline(0, 40, 128, 1)                       # a whole page: its own view, no copy
        step("whole_page")
        d.pixel(0, 0, 1); d.pixel(0, 63, 1)          # pages 0 and 7: two windows
        step("two_pages")
        d.fill(1)
        step("full")
        step("again")
        d.fill_rect(0, 8, 128, 56, 0)                # pages 1 to 7: page by page
        step("seven_pages")
        d.sleep(True)                                # woken: the whole frame again
        d.sleep(False)
        step("forced")
        out["total"] = sum(shown)
        out["sim_total"] = SIM.i2c_data_bytes
        out["equal"] = bytes(SIM.oled) == bytes(d.buffer)
        out["errors"] = SIM.i2c_errors
        RESULT = out
    """)
    assert r["init_sim"] == 1024
    assert r["unchanged"][:3] == [0, 0, 0]
    assert r["one_pixel"] == [16, 2, 16, 0, 15, 3, 3]        # address command + data
    assert r["right_edge"] == [16, 2, 16, 112, 127, 0, 0]
    assert r["shifted"] == [32, 2, 32, 96, 127, 0, 0]
    assert r["whole_page"] == [128, 2, 128, 0, 127, 5, 5]
    assert r["two_pages"][:3] == [32, 4, 32]
    assert r["full"] == [1024, 2, 1024, 0, 127, 0, 7]         # every page changed: one write
    assert r["again"][:3] == [0, 0, 0]
    assert r["seven_pages"][:3] == [896, 14, 896]             # 7 of 8: page by page
    assert r["forced"] == [1024, 2, 1024, 0, 127, 0, 7]      # one window, one write
    assert r["total"] == r["sim_total"] == 1024 + 16 + 16 + 32 + 128 + 32 + 1024 + 896 + 1024
    assert r["equal"] and r["errors"] == []


def test_show_allocates_nothing():
    # A bus that does nothing, so only the driver's own allocations are counted.
    r = vm("""
        class Bus:
            def writeto(self, addr, buf, stop=True):
                pass
            def writevto(self, addr, vector, stop=True):
                pass
        d = SSD1306(Bus(), 128, 64, 0x3C)
        used = [0]
        def show():
            before = gc.mem_alloc()
            n = d.show()
            used[0] += gc.mem_alloc() - before
            return n
        def frames():
            total = 0
            for i in range(20):
                d.pixel(i * 6, i * 3, 1)             # one span
                d.text("%d" % i, 64, 40, i & 1)      # another page, another span
                if i % 5 == 0:
                    d.hline(0, 20, 128, i & 1)       # a whole page
                if i % 7 == 0:
                    d.sleep(True)                    # woken: the whole frame
                    d.sleep(False)
                total += show()
            total += show()                          # nothing changed
            return total
        frames()
        gc.collect()
        gc.disable()
        used[0] = 0
        sent = frames()
        used = used[0]
        gc.enable()
        RESULT = {"used": used, "sent": sent}
    """)
    assert r["sent"] > 1024
    assert r["used"] == 0


def test_a_span_lost_to_a_bus_error_is_sent_next_frame():
    r = vm("""
        d = B.Board().display
        out = {}
        for name, draw in (("span", lambda: d.fill_rect(0, 0, 8, 8, 1)),
                           ("page", lambda: d.hline(0, 30, 128, 1)),
                           ("forced", lambda: (d.sleep(True), d.sleep(False)))):
            draw()
            SIM.i2c_fail = 1
            try:
                d.show()
                raised = False
            except OSError:
                raised = True
            out[name] = [raised, d.show(), bytes(SIM.oled) == bytes(d.buffer)]
        RESULT = out
    """)
    assert r == {"span": [True, 16, True], "page": [True, 128, True], "forced": [True, 1024, True]}
