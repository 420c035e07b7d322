"""The referee takes the log home from the phone (issue 36): Export log asks for the referee
code (the firmware's `unlock CODE`: a wrong code is refused and counted), reads the log with
the bench protocol's `log` while the device plays on, hands over the file `make event` reads
(a download, or the phone's share sheet), and only once the referee says it is saved sends the
acknowledgement (`log ack SEQ HASH`), then `lock`. The file is checked as the event tool
checks it (tools/common/logchain.py) and loaded by `make event` itself (tools/event.py).
"""
import json
import os
import subprocess
import sys

from conftest import ROOT
from webpage import browser, open_app, phone, shown, site, tap, wait_screen  # noqa: F401

sys.path.insert(0, os.path.join(ROOT, "tools"))
from common import logchain  # noqa: E402

# the phone's share sheet, recorded (a desktop Chromium has none)
SHARE = """
window.__shared = [];
Object.defineProperty(navigator, 'canShare', { configurable: true,
  value: (d) => Boolean(d && d.files && d.files.length) });
Object.defineProperty(navigator, 'share', { configurable: true,
  value: async (d) => { window.__shared.push({ title: d.title, names: d.files.map(f => f.name),
    text: await d.files[0].text() }); } });
"""
STARS = "n => document.querySelector('#export-dialog .code-shown').textContent === '*'.repeat(n)"


def enter(page, code):
    for letter in code:
        page.tap("#export-dialog [data-code=%s]" % letter)
    page.wait_for_function(STARS, arg=len(code))
    page.tap("#export-ok")


def bench_mode(page):
    """Whether the console is in bench mode: `log ack` needs it (and says so without it)."""
    reply = page.evaluate("carddraw.line('log ack 1 000000000000')")[-1]
    return "bench mode" not in reply.get("error", "")


def test_the_referee_exports_the_log_from_the_phone(site, browser, tmp_path):
    ctx = phone(browser, init=SHARE)
    page = open_app(ctx, site)
    tap(page, "DRAW")                                   # an action to log: a start, a card
    wait_screen(page, "active")
    tap(page, "DRAW")
    wait_screen(page, "card")
    page.tap("#export")
    assert page.is_visible("#export-dialog")
    for sel in ("[data-code=R]", "#export-ok", "#export-cancel"):
        assert page.locator("#export-dialog " + sel).bounding_box()["height"] >= 48
    enter(page, "DDDD")                                 # a wrong code: refused, nothing read
    page.wait_for_function("document.querySelector('#export-dialog .code-said').textContent"
                           ".startsWith('Wrong code')")
    assert page.is_hidden("#export-save")
    enter(page, "RHRH")                                 # a fresh device's code
    page.wait_for_function("document.querySelector('#export-dialog').dataset.step === 'save'")
    said = page.text_content("#export-said")
    assert "verified" in said and "NOT VERIFIED" not in said
    assert page.is_disabled("#export-ack")              # not before the file is handed over
    with page.expect_download() as got:
        page.click("#export-download")
    download = got.value
    name = download.suggested_filename
    assert name.startswith("carddraw-") and name.endswith(".jsonl")
    path = str(tmp_path / name)
    download.save_as(path)

    with open(path, encoding="utf-8") as f:
        text = f.read()
    header, lines = logchain.read_export(text.splitlines())
    assert header["export"] == "carddraw-log" and header["verified"] is True
    assert header["records"] == len(lines) >= 3
    assert logchain.verify(lines)[0]                    # the chain, as the event tool checks it
    assert header["head"] == logchain.head(lines)
    events = [json.loads(logchain.split(line)[0])["ev"] for line in lines]
    assert "start" in events                            # the action played above
    assert all(ln.endswith('"}') for ln in lines)       # each record byte for byte, hash last
    # make event reads it
    out = tmp_path / "event"
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "event.py"), path,
                           "--out", str(out)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout
    assert (out / "event.sqlite").exists() and (out / "report.txt").exists()

    # the share sheet takes the same file
    assert page.is_visible("#export-share")
    page.click("#export-share")
    page.wait_for_function("window.__shared.length === 1")
    shared = page.evaluate("window.__shared[0]")
    assert shared["names"] == [name] and shared["text"] == text
    # saved: the acknowledgement, as make logs sends it, then bench mode ends with the dialog
    page.wait_for_function("!document.querySelector('#export-ack').disabled")
    assert bench_mode(page)
    page.click("#export-ack")
    page.wait_for_function("document.querySelector('#export-said').textContent"
                           ".startsWith('Acknowledged')")
    seq = json.loads(logchain.split(lines[-1])[0])["seq"]
    assert str(seq) in page.text_content("#export-said")
    page.click("#export-cancel")
    page.locator("#export-dialog").wait_for(state="hidden")
    page.wait_for_function("document.querySelector('#export-dialog').dataset.step === 'code'")
    assert not bench_mode(page)                          # `lock` was sent as it closed
    assert shown(page)["screen"] == "card"               # the play went on all along
    assert page.errors == []
    ctx.close()


def test_closing_the_export_before_the_code_changes_nothing(site, browser):
    ctx = phone(browser)
    page = open_app(ctx, site)
    page.tap("#export")
    page.tap("#export-dialog [data-code=R]")
    page.wait_for_function(STARS, arg=1)
    page.keyboard.press("Escape")
    page.locator("#export-dialog").wait_for(state="hidden")
    page.tap("#export")
    assert page.text_content("#export-dialog .code-shown") == ""   # a new entry each time
    assert page.is_hidden("#export-save") and page.is_visible("#export-ok")
    page.tap("#export-cancel")
    assert not bench_mode(page)
    assert page.errors == []
    ctx.close()
