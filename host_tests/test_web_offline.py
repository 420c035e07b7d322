"""The web app installable and offline (service worker, manifest, icons), its flash kept in the
browser (a reload or Power cycle resumes the action), offline use said to be unavailable
outside a secure context, HTTPS with a certificate made on the spot, and README's pictures of
the app (docs/img/web.png, phone.png: make docs, tools/webshot.py) still what the app shows.
"""
import json
import os
import re
import ssl
import subprocess
import sys
import urllib.request

import pytest
from PIL import Image

from conftest import ROOT
from webpage import (LAN_NAME, PHONE, boots, browser, open_app, phone, seed_where, seeded,  # noqa: F401
                     site, stage_text, tap, wait_ready, wait_saved, wait_screen)

sys.path.insert(0, os.path.join(ROOT, "tools"))
import webshot  # noqa: E402

WEB_PNG = os.path.join(ROOT, "docs", "img", "web.png")
PHONE_PNG = os.path.join(ROOT, "docs", "img", "phone.png")


def test_offline_reload_resumes_the_action_from_the_service_worker_cache(site, browser):
    ctx = phone(browser)
    page = open_app(ctx, site)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    assert page.get_attribute("body", "data-offline") == "ready"
    assert page.is_hidden("#offline")
    seeded(page, seed_where(lambda cards, a: cards == ["yellow"]))
    tap(page, "DRAW")
    wait_screen(page, "active")
    tap(page, "DRAW")
    wait_screen(page, "card")
    wait_saved(page)
    before = stage_text(page)
    assert "YELLOW" in before

    ctx.set_offline(True)
    page.reload()
    wait_ready(page)
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    # offline indeed: what the cache lacks cannot be fetched
    assert page.evaluate("fetch('not-cached.txt').then(() => 'fetched', () => 'failed')") == "failed"
    wait_screen(page, "card")
    # resumed: the same card, no escape; the title said SEED until the reload, not after
    assert "YELLOW" in stage_text(page)
    assert "SEED" in before.splitlines()[0] and "SEED" not in stage_text(page).splitlines()[0]
    tap(page, "DRAW")
    wait_screen(page, "active")
    wait_saved(page)
    active = stage_text(page)
    booted = boots(page)
    page.tap("#view-toggle")                             # Power cycle: in the device view
    page.click("#power")                                 # switched off and on: resumes again
    wait_ready(page, booted)
    page.tap("#view-toggle")
    wait_screen(page, "active")
    assert stage_text(page) == active
    # installable: the manifest and its icons come from the cache too
    manifest = page.evaluate("fetch('manifest.webmanifest').then(r => r.json())")
    assert manifest["display"] == "standalone" and manifest["start_url"] == "./"
    sizes = set()
    for icon in manifest["icons"]:
        ok = page.evaluate("u => fetch(u).then(r => r.ok && r.headers.get('content-type'))",
                           icon["src"])
        assert ok == "image/png"
        sizes.add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes
    assert page.errors == []
    ctx.close()


def test_offline_use_unavailable_is_said_on_screen_outside_a_secure_context(site, browser):
    ctx = phone(browser)
    port = site.rstrip("/").rsplit(":", 1)[1]
    page = open_app(ctx, "http://%s:%s/" % (LAN_NAME, port))   # as a phone on the network
    assert page.evaluate("window.isSecureContext") is False
    note = page.locator("#offline")
    note.wait_for(state="visible")
    assert "Offline use is not available" in note.text_content()
    assert "HTTPS or localhost" in note.text_content()
    box = note.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]   # on screen
    assert page.get_attribute("body", "data-offline") == "unavailable"
    tap(page, "DRAW")                                   # the device itself still works
    assert wait_screen(page, "active") == "active"
    assert page.errors == []
    ctx.close()


def test_https_serves_the_page_and_service_worker_with_a_certificate_made_on_the_spot(tmp_path):
    out = str(tmp_path / "site")
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tools", "web", "build.py"),
                             "--out", out, "--serve", "--https", "--host", "127.0.0.1",
                             "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        lines = []
        for line in proc.stdout:                        # until it says it is serving
            lines.append(line)
            if "Ctrl-C" in line:
                break
        printed = "".join(lines)
        url = re.search(r"https://127\.0\.0\.1:\d+/", printed).group(0)
        assert "accept it once" in printed
        folder = re.search(r"\(in (\S+)\)", printed).group(1)
        assert not os.path.abspath(folder).startswith(ROOT)          # never in the repository
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE
        with open(os.path.join(out, "index.html"), "rb") as f:
            index = f.read()
        with urllib.request.urlopen(url, context=insecure, timeout=60) as r:
            assert r.read() == index
        with urllib.request.urlopen(url + "sw.js", context=insecure, timeout=60) as r:
            assert b"caches.open" in r.read()
        # the certificate names this machine for a phone, and localhost for this browser
        pem = ssl.get_server_certificate(("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/"))))
        from cryptography import x509
        names = x509.load_pem_x509_certificate(pem.encode()).extensions.get_extension_for_class(
            x509.SubjectAlternativeName).value
        assert "localhost" in names.get_values_for_type(x509.DNSName)
        assert "127.0.0.1" in [str(ip) for ip in names.get_values_for_type(x509.IPAddress)]
        # plain HTTP on the HTTPS port gets no page
        with pytest.raises(OSError):
            urllib.request.urlopen(url.replace("https", "http"), timeout=60).read()
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert not os.path.exists(folder)                   # the key goes with the server


def test_readmes_pictures_of_the_app_show_what_the_firmware_draws_now(site, browser):
    """docs/img/web.png and phone.png are pages in Chromium, their pixels those of this
    machine's fonts; what they show is the firmware's: web.png's OLED, read back out of the
    committed picture (its place is in the PNG text), must be the firmware's own rendering of
    the pictures' state, made now with the pictures' stand-in entropy and taps
    (tools/webshot.py); phone.png's View (its PNG text) must be the one the phone view shows
    now in that state."""
    ctx = webshot.phone(browser)
    page = webshot.stage(ctx, site)
    view = webshot.view_shown(page)
    assert json.loads(view)["picture"]["colour"] == "red"  # the card README shows
    with Image.open(PHONE_PNG) as committed:
        assert committed.size == (PHONE["width"] * webshot.SCALE,
                                  PHONE["height"] * webshot.SCALE)
        assert committed.info["view"] == view, \
            "run make docs: docs/img/phone.png does not show what the phone view shows now"
    webshot.show(page, "device")
    drawn = page.evaluate("carddraw.renderView()")
    with Image.open(WEB_PNG) as committed:
        assert committed.size == (PHONE["width"] * webshot.SCALE,
                                  PHONE["height"] * webshot.SCALE)
        box = [int(v) for v in committed.info["oled"].split(",")]
        assert tuple(box) == webshot.oled_box(page), \
            "run make docs: the OLED is elsewhere on the page than in docs/img/web.png"
        assert webshot.read_oled(committed) == drawn, \
            "run make docs: docs/img/web.png's OLED is not what the firmware draws now"
        painted = committed.convert("RGB")
    # the reading sees each pixel: the top left one painted over is that one bit only
    x, y, w, h = box
    painted.paste((0, 0, 0) if drawn[0] & 1 else (255, 255, 255),
                  (x, y, x + w // 128, y + h // 64))
    read = webshot.read_oled(painted, box)
    assert read[0] == drawn[0] ^ 1 and read[1:] == drawn[1:]
    assert webshot.read_oled(webshot.shoot(page)) == drawn   # a picture made now reads the same
    ctx.close()


# make chromium (what make test runs first): host_tests/test_make_chromium.py


def test_ci_runs_make_test_and_nothing_else():
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        commands = [ln.strip() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
    assert commands == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "make test"]
