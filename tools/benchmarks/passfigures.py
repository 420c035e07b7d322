"""make bench's flash, chip and display parts: the figures of the scripted session's passes
(passes.py plays it twice and puts the two together), each against its budget."""
import statistics

import model
from passes import bs, describe
from report import table


def _stats(values):
    return (max(values), sum(values) / len(values)) if values else (0, 0.0)


def flash_part(out, ctx):
    f = ctx.flash()
    out.note("the scripted session (tools/benchmarks/device/bench_session.py): %d actions, %d "
             "draws, a log" % (bs.ACTIONS, f.draws))
    out.note("export, %s passes (one every %d ms), %d records logged. littlefs-python with the "
             "rp2 port's" % ("{:,}".format(f.passes), bs.config.LOOP_MS, f.records))
    out.note("geometry: 352 blocks of 4 KB, prog 256, read 32, cache 1,024. The whole pass "
             "(reads cost no time):")
    rows = []
    for kind in (bs.SETUP, bs.START, bs.DRAW, bs.PRESS, bs.CONSOLE, bs.IDLE):
        counts = [r[4] for r in f.rows if r[0] == kind]
        worked = [c for c in counts if c[0] or c[2]]
        pages = _stats([c[1] for c in counts])
        erases = _stats([c[2] for c in counts])
        rows.append((bs.KINDS[kind], "{:,}".format(len(counts)), "{:,}".format(len(worked)),
                     "%d" % pages[0], "%.2f" % pages[1], "%d" % erases[0],
                     "%d" % sum(c[2] for c in counts),
                     "%.1f" % (max([c[4] for c in counts] or [0]) / 1024)))
    for label, counts in (("power-on, fresh device", f.boot_fresh[4]),
                          ("power-on, device in use", f.boot_used[4])):
        rows.append((label, "1", "1", "%d" % counts[1], "%.2f" % counts[1], "%d" % counts[2],
                     "%d" % counts[2], "%.1f" % (counts[4] / 1024)))
    table(out, ("pass", "passes", "w/ flash", "pages max", "mean", "erases max", "in all",
                "KB read max"), rows, (24, 7, 8, 9, 5, 10, 6, 11))
    draws = [r for r in f.rows if r[0] == bs.DRAW]
    out.note("DESIGN: a draw costs at most one page program and no erase in the pass that "
             "reveals it:")
    out.budget("a draw's pass: pages programmed, most", max(r[4][1] for r in draws), "", 1,
               extra="(%d of %d draws)" % (sum(1 for r in draws if r[4][1] > 1), len(draws)))
    out.budget("a draw's pass: sector erases, most", max(r[4][2] for r in draws), "", 0)


ROW = "  %-34s %6s %6s %7s %6s %8s %6s %7s  %s"
DEBOUNCE = bs.config.DEBOUNCE_MS   # a press's event comes this long after the finger goes down


def _estimates(p, indexes, to, case="typical"):
    """[(the chip estimate in ms, pass index)] of each pass to `to` ("led", "frame", "pass")."""
    out = []
    for i in indexes:
        e = p.estimate(i, to, case)
        if e is not None:
            cpu, fl, i2c = e
            ms = model.press_ms(cpu, fl + i2c) if to != "pass" else \
                model.FIXED_MS + model.K * cpu + fl + i2c
            out.append((ms, i))
    return out


def _row(out, label, p, indexes, to, limit, event=None, add=0.0, on="slowest"):
    """One event: its passes' estimates to `to` (+ add ms: the finger's debounce), anchored to
    the measured event `event` of 892aee1 if given (model.residual; the measure beside it, OVER
    past 30%), against `limit` ms on the median pass or the slowest (`on`: a budget set at a
    measured mean is a typical pass's; "no pass over 100 ms" is every pass's) -> the slowest
    pass's index."""
    shift = add + (model.residual(event) if event else 0.0)
    typical = [(ms + shift, i) for ms, i in _estimates(p, indexes, to)]
    if not typical:
        out.not_measured(label, "no such pass in the session")
        return None
    worst = max(ms + shift for ms, _ in _estimates(p, indexes, to, "worst"))
    slowest, at = max(typical)
    median = statistics.median(t for t, _ in typical)
    judged = median if on == "median" else slowest
    verdict = ("OK" if judged <= limit else "OVER") if limit else ""
    if limit and judged > limit:
        out.over.append(label)
    seen, diff = "", ""
    if event is not None:
        measured = model.MEASURED[event]
        seen = "%.1f" % measured
        d = (median - measured) / measured
        diff = "%+.0f%%" % (100 * d)
        if abs(d) > 0.30:
            diff += " OVER"
            out.over.append(label + ": the model against the measure")
    out.write((ROW % (label, "{:,}".format(len(typical)), "%.1f" % median, "%.1f" % slowest,
                      "%.1f" % worst, seen, diff, ("<= %d " % limit + on[0]) if limit else "",
                      verdict)).rstrip())
    return at


def _boot_row(out, label, records, counts, factor, limit):
    cpu = min(r[4] for r in records) * factor / 1000.0
    rest = model.flash_ms(counts[1], counts[2]) + model.i2c_ms(records[0][6])
    est = model.boot_ms(cpu, rest)  # (boot's one factor is its measure's: no residual)
    d = (est - model.MEASURED["boot"]) / model.MEASURED["boot"]
    verdict = "OK" if est <= limit else "OVER"
    if est > limit:
        out.over.append(label)
    out.write((ROW % (label, "%d" % len(records), "%.1f" % est, "%.1f" % est, "",
                      "%.1f" % model.MEASURED["boot"], "%+.0f%%" % (100 * d),
                      "<= %d" % limit, verdict)).rstrip())


def chip_part(out, ctx):
    p = ctx.passes()
    f = p.flash
    out.note("ESTIMATES of the chip's time (model.py), beside the rp2 port's MEASURED figures of "
             "commit 892aee1")
    out.note("  (docs/reliability.md; an emulated RP2040, not reproducible here). From the press "
             "event: phase %.0f ms" % model.PHASE_MS)
    out.note("  (a pass as its debounce ends; 892aee1's: %.0f, LOOP_MS / 2) + fixed %.1f ms + "
             "%.3f x CPU + flash + I2C," % (model.POLLED_PHASE_MS, model.FIXED_MS, model.K))
    out.note("  K and the fixed cost fitted to that table; CPU: native MicroPython times the "
             "slowdown calibrated")
    out.note("  in each of %d runs "
             "(x%.0f..x%.0f)." % (len(p.native.runs), min(p.native.factors),
                                 max(p.native.factors)))
    out.note("  The fit on 892aee1: " + model.fit_note() + ".")
    out.note("  Flash at %.1f ms a page and %.0f ms an erase (worst: %.0f and %.0f ms); I2C 9 "
             "clocks a byte at %d kHz." % (model.PAGE_MS["typical"], model.ERASE_MS["typical"],
                                           model.PAGE_MS["worst"], model.ERASE_MS["worst"],
                                           model.I2C_HZ // 1000))
    out.note("  Finger down: + the %d ms debounce (a button with no long press on the screen "
             "acts as it goes down)." % DEBOUNCE)
    out.note("  Anchored: a measured event's estimate less the fit's own error on 892aee1 for "
             "it; its budget")
    out.note("  (set at the measured mean) on the median pass (m), a pass's on the slowest (s), "
             "typical flash.")
    out.write((ROW % ("event (ms)", "n", "median", "slowest", "worst", "measured", "diff",
                      "budget", "")).rstrip())
    kinds = p.kinds
    of = [[i for i in range(len(kinds)) if kinds[i] == k] for k in range(len(bs.KINDS))]
    every = [i for i in range(len(kinds)) if kinds[i] != bs.BOOT]   # power-on: its own rows
    _row(out, "DRAW: press event -> LED", p, of[bs.DRAW], "led", 32, "led", on="median")
    _row(out, "DRAW: press event -> card's frame", p, of[bs.DRAW], "frame", 55, "frame",
         on="median")
    _row(out, "start: press event -> first frame", p, of[bs.START], "frame", 65, "start",
         on="median")
    _row(out, "set-up press event -> its frame", p, of[bs.SETUP], "frame", 45, "setup",
         on="median")
    finger = DEBOUNCE + model.residual("led")  # anchored as the LED is, the debounce before
    _row(out, "DRAW: finger down -> LED", p, of[bs.DRAW], "led", 60, add=finger, on="median")
    finger = DEBOUNCE + model.residual("frame")
    _row(out, "DRAW: finger down -> card's frame", p, of[bs.DRAW], "frame", 100, add=finger,
         on="median")
    _row(out, "other presses: the whole pass", p, of[bs.PRESS], "pass", 100)
    idle = _row(out, "idle passes (housekeeping)", p, of[bs.IDLE], "pass", 100)
    console = _row(out, "console passes (log export)", p, of[bs.CONSOLE], "pass", 100)
    at = _row(out, "longest loop pass of the session", p, every, "pass", 100)
    most = max(p.native.factors)   # the boots' processes were not calibrated: the largest
    _boot_row(out, "power-on -> first frame, fresh", p.native.boot_fresh, f.boot_fresh[3], most,
              500)
    _boot_row(out, "power-on -> first frame, in use", p.native.boot_used, f.boot_used[3], most,
              500)
    parts = [[], [], [], []]
    for i in of[bs.DRAW]:
        led, show, shown, end = (p.ms(i, m) for m in (2, 3, 4, 5))
        for n, ms in enumerate((led, show - led, shown - show, end - shown)):
            parts[n].append(ms)
    out.note("a draw's pass, CPU at the slowdown before K (the median draw, ms): inputs, "
             "controller and persist %.1f;" % statistics.median(parts[0]))
    out.note("  render %.1f; the driver's show() %.1f; the rest %.1f" % tuple(
        statistics.median(x) for x in parts[1:]))
    said = set()
    for label, i in (("longest pass", at), ("longest idle pass", idle),
                     ("longest console pass", console)):
        if i is not None and i not in said:
            said.add(i)
            out.note("%s: #%s, %s" % (label, "{:,}".format(i), what_pass(p, i)))
    out.note("power-on: App's imports to its first frame (MicroPython's start, the mount, "
             "main.py not counted).")


def what_pass(p, i):
    row = p.flash.rows[i]
    text = describe(row[:2])
    if row[0] == bs.CONSOLE:
        lines = [t for n, t in p.flash.session.lines if n <= i]
        if lines:
            text += " (`%s`)" % lines[-1][:16]
    counts = row[4]
    text += ": %d pages, %d erases, CPU %.1f ms" % (counts[1], counts[2],
                                                   p.ms(i, 5))
    return text


def display_part(out, ctx):
    p = ctx.passes()
    out.note("model: a full frame is a 7-byte window command and a 1,025-byte data write "
             "(control byte 0x40,")
    out.note("1,024 pixel bytes): %s clocks, %.1f ms at %d kHz; the driver sends only changed "
             "columns" % ("{:,}".format(model.frame_clocks()), model.i2c_ms(model.frame_clocks()),
                          model.I2C_HZ // 1000))
    run = p.native.runs[0]
    draws = [run[i] for i in range(len(run)) if p.kinds[i] == bs.DRAW]
    pixels = [r[7] for r in draws]
    out.budget("pixel bytes a draw sends, most", max(pixels), "B", 1024)
    out.budget("pixel bytes a draw sends, mean", round(sum(pixels) / len(pixels)), "B", 640,
               extra="(about half a frame: the stage's 4 pages and the foot's hint)")
    out.figure("I2C time of a draw's frame, most", model.i2c_ms(max(r[6] for r in draws)), "ms")


if __name__ == "__main__":
    import sys
    sys.exit("passfigures.py is a part of tools/benchmarks/run.py")
