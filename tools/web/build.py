"""Build the web app into build/web/ (plain static files, host them anywhere) and serve it.

    .venv/bin/python tools/web/build.py            build only
    .venv/bin/python tools/web/build.py --serve    build, then serve on http://127.0.0.1:8000/
                                                   (another free port if 8000 is taken)
    .venv/bin/python tools/web/build.py --serve --https
                                                   the same over HTTPS on every address of this
                                                   machine, for a phone on the same network

A phone can use the app offline (and install it) only from a secure context: HTTPS, or
localhost. --https makes a self-signed certificate on the spot (for this machine's name, its
address, localhost and 127.0.0.1), in a temporary folder, never in the repository; the phone
asks once to accept it.

The site: web/ (index.html, app.js, style.css, manifest, service worker), the MicroPython
WebAssembly VM (micropython.mjs + .wasm from node_modules), Wokwi's elements bundle, the
simulator's driver (tools/sim/device.mjs), and sim-files.json: the firmware and the hardware
stand-ins (firmware/**.py, tools/sim/*.py) that the page writes into the VM's /lib. PNG icons
are drawn here with Pillow. sw.js gets the list of every file and a version hashed from their
contents, so each build that changes anything is a new offline cache.
"""
import datetime
import functools
import hashlib
import importlib.util
import http.server
import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import ssl
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WEB = os.path.join(ROOT, "web")
OUT = os.path.join(ROOT, "build", "web")
MICROPYTHON = os.path.join(ROOT, "node_modules", "@micropython", "micropython-webassembly-pyscript")
WOKWI = os.path.join(ROOT, "node_modules", "@wokwi", "elements", "dist", "wokwi-elements.bundle.min.js")
SIM = os.path.join(ROOT, "tools", "sim")
FIRMWARE = os.path.join(ROOT, "firmware")

MIME = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm",
    ".png": "image/png",
}

# the icon's colours: the case, the glass, a lit pixel, and the four cards (black shows purple)
CASE = (29, 32, 39)
EDGE = (70, 76, 88)
GLASS = (5, 7, 10)


def lit_colour():
    """A lit pixel's colour, as the simulator's device.mjs (the terminal and the web app) has it."""
    with open(os.path.join(SIM, "device.mjs"), encoding="utf-8") as f:
        found = re.search(r"export const LIT = \[(\d+), (\d+), (\d+)\]", f.read())
    return tuple(int(c) for c in found.groups())


LIT = lit_colour()
CARDS = ((34, 197, 94), (245, 160, 0), (239, 68, 68), (160, 0, 255))


def py_files():
    """{path under the VM's /lib: source}: the firmware as on the board, then the stand-ins."""
    files = {}
    for base, prefix in ((FIRMWARE, ""), (SIM, "")):
        for folder, dirs, names in os.walk(base):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            for name in sorted(names):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    rel = prefix + os.path.relpath(path, base).replace(os.sep, "/")
                    with open(path, encoding="utf-8") as f:
                        files[rel] = f.read()
    return files


def draw_icon(size, maskable=False):
    """The prop: a dark case, the OLED with a lit title bar and lines, four cards fanned."""
    from PIL import Image, ImageDraw
    s = 4 * size  # drawn large, then scaled down: smooth edges
    img = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    u = s / 512
    if maskable:  # full bleed; the picture inside the central 80 % safe zone
        d.rectangle((0, 0, s, s), fill=CASE)
        u *= 0.8
        o = s * 0.1
    else:
        d.rounded_rectangle((0, 0, s - 1, s - 1), radius=int(96 * u), fill=CASE, outline=EDGE,
                            width=int(10 * u))
        o = 0

    def box(x0, y0, x1, y1):
        return (o + x0 * u, o + y0 * u, o + x1 * u, o + y1 * u)

    d.rounded_rectangle(box(72, 72, 440, 272), radius=int(16 * u), fill=GLASS, outline=EDGE,
                        width=int(6 * u))
    d.rectangle(box(96, 96, 416, 128), fill=LIT)                      # the title bar
    for i, w in enumerate((260, 200, 290)):                            # lines of text
        d.rectangle(box(96, 150 + i * 36, 96 + w, 168 + i * 36), fill=LIT)
    for i, colour in enumerate(CARDS):                                 # the cards
        x = 104 + i * 82
        d.rounded_rectangle(box(x, 312, x + 66, 440), radius=int(10 * u), fill=colour,
                            outline=(240, 240, 240), width=int(5 * u))
    return img.resize((size, size), Image.LANCZOS)


def icons(out):
    os.makedirs(os.path.join(out, "icons"), exist_ok=True)
    for name, size, maskable in zip(ICONS, (192, 512, 512, 180), (False, False, True, True)):
        draw_icon(size, maskable).save(os.path.join(out, "icons", name), optimize=True)


ICONS = ("icon-192.png", "icon-512.png", "maskable-512.png", "apple-touch-icon.png")


def _common():
    """tools/common, the tools' shared package, loaded by its path: this file runs from
    tools/web/, and only tools/common sets sys.path (firmware/ on it, for cli's limits)."""
    folder = os.path.join(ROOT, "tools", "common")
    spec = importlib.util.spec_from_file_location("common", os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    module = sys.modules.get("common") or importlib.util.module_from_spec(spec)
    if "common" not in sys.modules:
        sys.modules["common"] = module
        spec.loader.exec_module(module)
    return module


_common()
from common import cli, output  # noqa: E402


def site_names():
    """Every file build() writes, relative to its folder."""
    names = [n for n in sorted(os.listdir(WEB)) if n != "sw.js" and os.path.isfile(os.path.join(WEB, n))]
    names += ["micropython.mjs", "micropython.wasm", "wokwi-elements.bundle.min.js", "device.mjs",
              "sim-files.json", "sw.js"]
    return names + ["icons/" + n for n in ICONS]


def build(out=OUT):
    """Write the site into `out` (a new or empty folder, or one it built before: only the
    files it wrote then are removed); -> the files' paths, relative to it."""
    for need in (os.path.join(MICROPYTHON, "micropython.mjs"), WOKWI):
        if not os.path.exists(need):
            sys.exit("web: %s is missing: run `make setup` (npm ci) first" % os.path.relpath(need, ROOT))
    try:  # only this build's own files go: a folder holding others is refused
        output.prepare(out, site_names(), "tools/web/build.py")
    except output.NotOurs as e:
        sys.stderr.write("build.py: %s\n" % e)
        sys.exit(2)
    for name in sorted(os.listdir(WEB)):
        if name != "sw.js" and os.path.isfile(os.path.join(WEB, name)):
            shutil.copyfile(os.path.join(WEB, name), os.path.join(out, name))
    shutil.copyfile(os.path.join(MICROPYTHON, "micropython.mjs"), os.path.join(out, "micropython.mjs"))
    shutil.copyfile(os.path.join(MICROPYTHON, "micropython.wasm"), os.path.join(out, "micropython.wasm"))
    shutil.copyfile(WOKWI, os.path.join(out, "wokwi-elements.bundle.min.js"))
    shutil.copyfile(os.path.join(SIM, "device.mjs"), os.path.join(out, "device.mjs"))
    with open(os.path.join(out, "sim-files.json"), "w", encoding="utf-8") as f:
        json.dump(py_files(), f, sort_keys=True, separators=(",", ":"))
    icons(out)

    files = []
    for folder, _, names in os.walk(out):
        for name in names:
            if name == output.MARKER and folder == out:
                continue  # the list of what was built, not part of the site
            files.append(os.path.relpath(os.path.join(folder, name), out).replace(os.sep, "/"))
    files.sort()
    h = hashlib.sha256()
    for rel in files:
        h.update(rel.encode() + b"\0")
        with open(os.path.join(out, rel), "rb") as f:
            h.update(f.read())
    with open(os.path.join(WEB, "sw.js"), encoding="utf-8") as f:
        sw = f.read()
    sw = sw.replace("__VERSION__", h.hexdigest()[:16]).replace("__FILES__", json.dumps(["./"] + files))
    with open(os.path.join(out, "sw.js"), "w", encoding="utf-8") as f:
        f.write(sw)
    return files + ["sw.js"]


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with the right types (.mjs, .wasm, .webmanifest), revalidated every time."""

    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map, **MIME)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 -- the base class's name
        pass


class Server(http.server.ThreadingHTTPServer):
    """Threads per request; with `tls` (an ssl.SSLContext) set, each connection's TLS handshake
    runs in its own thread, so a phone that stops at the certificate warning holds up no one."""

    daemon_threads = True
    tls = None

    def finish_request(self, request, client_address):
        if self.tls is None:
            return super().finish_request(request, client_address)
        request.settimeout(30)
        try:
            secure = self.tls.wrap_socket(request, server_side=True)
        except OSError:
            return   # the handshake failed: e.g. the certificate not (yet) accepted
        try:
            super().finish_request(secure, client_address)
        finally:
            secure.close()


def server(directory=OUT, host="127.0.0.1", port=0):
    """An HTTP server for `directory` on host:port (0: any free port); not yet serving."""
    handler = functools.partial(Handler, directory=directory)
    return Server((host, port), handler)


def addresses():
    """This machine's name and the addresses a phone may reach it on (loopback included)."""
    name = socket.gethostname()
    ips = {"127.0.0.1"}
    try:
        for info in socket.getaddrinfo(name, None, socket.AF_INET):
            ips.add(info[4][0])
    except OSError:
        pass   # a name that does not resolve: localhost and 127.0.0.1 still work
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))   # no packet is sent: picks the outgoing address
            ips.add(probe.getsockname()[0])
    except OSError:
        pass   # no network: this machine alone
    return name, sorted(ips)


def make_certificate(folder):
    """A self-signed certificate and its key for this machine, written to folder;
    -> (certificate path, key path)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    name, ips = addresses()
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    alt = [x509.DNSName(name), x509.DNSName("localhost")]
    alt += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return cert_path, key_path


def use_tls(httpd, folder):
    """Serve httpd over TLS with a certificate made now in folder."""
    cert_path, key_path = make_certificate(folder)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    httpd.tls = context


def serve(args):
    """Serve args.out until Ctrl-C (or SIGTERM), over HTTPS with --https."""
    host = args.host or ("0.0.0.0" if args.https else "127.0.0.1")
    try:
        httpd = server(args.out, host, args.port)
    except OSError:
        httpd = server(args.out, host, 0)   # the port is taken: any free one
    port = httpd.server_address[1]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))   # stopped: the certificate goes too
    with tempfile.TemporaryDirectory(prefix="carddraw-tls-") as folder:
        if args.https:
            use_tls(httpd, folder)
            name, ips = addresses()
            shown = [name] + [ip for ip in ips if ip != "127.0.0.1"] if host == "0.0.0.0" else [host]
            for where in shown:
                print("web: serving on https://%s:%d/" % (where, port))
            print("web: the certificate is made for this session (in %s): the phone must accept it "
                  "once (its browser warns; choose to go on), then it can install the app and use "
                  "it offline" % folder)
        else:
            print("web: serving on http://%s:%d/" % (host, port))
        print("web: Ctrl-C stops", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            httpd.server_close()


def main(argv=None):
    p = cli.parser("build.py", __doc__)
    p.add_argument("--out", default=OUT, help="where to build (default build/web)")
    p.add_argument("--serve", action="store_true", help="then serve it until Ctrl-C")
    p.add_argument("--host", default=None,
                   help="address to serve on (default 127.0.0.1; with --https 0.0.0.0: every one)")
    p.add_argument("--https", action="store_true",
                   help="serve over HTTPS with a self-signed certificate made now, so a phone on "
                        "the same network can install the app and use it offline")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free one)")
    args = p.parse_args(argv)
    if args.https and not args.serve:
        p.error("--https needs --serve (make web passes it)")
    files = build(args.out)
    size = sum(os.path.getsize(os.path.join(args.out, f)) for f in files)
    print("web: built %d files, %d KB, in %s" % (len(files), size // 1024, os.path.relpath(args.out)))
    if args.serve:
        serve(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
