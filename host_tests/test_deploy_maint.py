"""tools/deploy.py --code: maintenance mode before mpremote (the referee code over the app's
console, on the simulator and on stand-ins), waiting for the board's restart, and what is said
when a step fails."""
import json
import os
import subprocess
import sys
from types import SimpleNamespace

from conftest import ROOT
from deploykit import PICO, TOOL, FakeMpremote, deploy, port

sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench  # noqa: E402


class KeptSim(bench.SimLink):
    """The simulator, left running when deploy closes its link, to look at it after."""

    def close(self):
        pass

    def really_close(self):
        bench.SimLink.close(self)


def test_code_opens_maintenance_on_the_simulated_device(tmp_path):
    link = KeptSim(flash=str(tmp_path))
    try:
        assert deploy.open_maintenance("sim", "RHRH", link=link) is None
        shown = link.request("show")
        assert shown["screen"] == "message" and shown["lines"][1:3] == ["USB open until",
                                                                        "next restart"]
        assert link.request("test led green")["ok"] == "led"     # bench mode is on
        link.request("test end")
        link.request("!advance 300")       # the reset comes (the simulated board carries on)
        flash = sorted(os.listdir(str(tmp_path)))
        assert "maint.flag" in flash       # what the next power-on's main.py finds
        lines = []
        assert link.request("log", lines.append)["ok"] == "log"
        log = [json.loads(x) for x in lines]
        assert [r.get("mode") for r in log if r["ev"] == "bench"] == ["on", "maint"]
    finally:
        link.really_close()


def test_a_wrong_code_is_refused_and_nothing_is_opened():
    link = KeptSim()
    try:
        why = deploy.open_maintenance("sim", "SSSS", link=link)
        assert why == "the device refused the code: unlock: Wrong code: 2 tries before a wait"
        assert link.request("maint") == {"error": "maint needs bench mode: unlock CODE first"}
        assert link.request("show")["screen"] == "setup"
    finally:
        link.really_close()


def test_no_app_on_the_port_is_a_clear_message():
    class Silent(bench.Link):
        def send(self, line):
            pass

        def _line(self, timeout):
            return None
    Silent.slack = 0.05
    why = deploy.open_maintenance("/dev/ttyACM9", "RHRH", link=Silent())
    assert why.startswith("no reply within")
    assert "is the carddraw app running on /dev/ttyACM9" in why
    assert deploy.open_maintenance("/dev/no-such-pico", "RHRH").startswith(
        "cannot open /dev/no-such-pico")


def test_deploy_with_code_opens_maintenance_waits_for_the_restart_then_runs_mpremote(
        tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(deploy, "probe", lambda port: (0, (False, True), PICO))
    monkeypatch.setattr(deploy, "open_maintenance",
                        lambda port, code: calls.append(("maint", port, code)))
    monkeypatch.setattr(deploy, "wait_for_restart", lambda port, look=None: calls.append(
        ("wait", port, look is None)) or ("/dev/ttyACM9", None))
    monkeypatch.setattr(deploy.subprocess, "run",
                        lambda cmd: calls.append(("mpremote", cmd[3:5], cmd[-1])) or
                        SimpleNamespace(returncode=0))
    args = ["--port", "/dev/ttyACM9", "--source", "--build", str(tmp_path)]
    assert deploy.main(args + ["--code", "rhds"]) == 0
    assert calls == [("maint", "/dev/ttyACM9", "RHDS"), ("wait", "/dev/ttyACM9", True),
                     ("mpremote", ["connect", "/dev/ttyACM9"], "reset")]   # the app runs again
    assert os.path.isfile(os.path.join(str(tmp_path), "src", "carddraw", "app.py"))
    del calls[:]
    monkeypatch.setattr(deploy, "wait_for_restart", lambda port, look=None: (
        None, "the board did not restart within 5 s of `maint` on /dev/ttyACM9"))
    capsys.readouterr()
    assert deploy.main(args + ["--code", "RHDS"]) == 2
    assert calls == [("maint", "/dev/ttyACM9", "RHDS")]          # mpremote never ran
    assert capsys.readouterr().err == ("the board did not restart within 5 s of `maint` on "
                                       "/dev/ttyACM9\n")
    del calls[:]
    monkeypatch.setattr(deploy, "open_maintenance", lambda port, code: "the device refused "
                        "the code: unlock: Locked: wait 30 s")
    assert deploy.main(args + ["--code", "RHDS"]) == 2
    assert calls == []                                  # mpremote never ran
    assert "Locked: wait 30 s" in capsys.readouterr().err
    assert deploy.main(args) == 0 and calls == [("mpremote", ["connect", "/dev/ttyACM9"], "reset")]


def test_a_port_found_by_usb_id_is_found_again_after_the_restart(monkeypatch):
    """Without --port the board is looked for by its USB id after the restart too: the
    system may give it another name."""
    seen = []
    monkeypatch.setattr(deploy, "open_maintenance", lambda port, code: None)
    monkeypatch.setattr(deploy, "pick_port", lambda port=None, ports=None: "/dev/ttyACM1")
    monkeypatch.setattr(deploy, "wait_for_restart", lambda port, look=None: seen.append(
        look()) or (look(), None))
    assert deploy.maintenance_boot("/dev/ttyACM0", "RHRH", found=True) == ("/dev/ttyACM1", None)
    assert seen == ["/dev/ttyACM1"]
    monkeypatch.setattr(deploy, "open_maintenance", lambda port, code: "the device refused "
                        "the code: unlock: Wrong code")
    assert deploy.maintenance_boot("/dev/ttyACM0", "SSSS") == (
        None, "the device refused the code: unlock: Wrong code")


class FakeTime:
    """A clock that moves only when slept on; the port is there or not at given times."""

    def __init__(self, present):
        self.t = 0.0
        self.present = present    # t -> whether the port is there

    def clock(self):
        return self.t

    def sleep(self, s):
        self.t += s

    def look(self):
        return "/dev/ttyACM0" if self.present(self.t) else None


def test_wait_for_restart_waits_for_the_port_to_go_and_come_back():
    ft = FakeTime(lambda t: t < 0.3 or t >= 1.5)          # gone at 0.3 s, back at 1.5 s
    port, why = deploy.wait_for_restart("/dev/ttyACM0", ft.look, ft.clock, ft.sleep)
    assert (port, why) == ("/dev/ttyACM0", None)
    assert 1.5 + deploy.SETTLE_S <= ft.t < 1.5 + deploy.SETTLE_S + 2 * deploy.POLL_S


def test_a_board_that_never_restarts_or_never_comes_back_is_one_clear_line():
    ft = FakeTime(lambda t: True)                         # the port never goes
    port, why = deploy.wait_for_restart("/dev/ttyACM0", ft.look, ft.clock, ft.sleep)
    assert port is None and why == "the board did not restart within 5 s of `maint` on /dev/ttyACM0"
    assert deploy.GONE_S <= ft.t < deploy.GONE_S + 2 * deploy.POLL_S
    ft = FakeTime(lambda t: t < 0.2)                      # gone, and never back
    port, why = deploy.wait_for_restart("/dev/ttyACM0", ft.look, ft.clock, ft.sleep)
    assert port is None and why == ("the board's port did not come back within 20 s of its "
                                    "restart (mpremote connect list shows the ports)")
    assert "\n" not in why


def test_port_present_reads_the_port_list_or_the_path(tmp_path):
    link = tmp_path / "usb-MicroPython_Board-if00"
    link.write_text("")
    listed = [port("/dev/ttyACM0", 0x2E8A, 0x0005)]
    assert deploy.port_present("/dev/ttyACM0", listed)
    assert not deploy.port_present("/dev/ttyACM7", listed)
    assert deploy.port_present(str(link), [])             # a /dev/serial/by-id link given as --port


def test_a_failed_copy_after_maint_says_the_board_waits_in_maintenance(tmp_path, monkeypatch,
                                                                       capsys):
    monkeypatch.setattr(deploy, "maintenance_boot", lambda port, code, found: (port, None))
    monkeypatch.setattr(deploy, "probe", lambda port: (0, (False, True), PICO))
    monkeypatch.setattr(deploy.subprocess, "run", lambda cmd: SimpleNamespace(returncode=1))
    assert deploy.main(["--port", "/dev/ttyACM9", "--source", "--build", str(tmp_path),
                        "--code", "RHRH"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "stays in maintenance until reset" in err


def test_bad_code_and_the_help_say_what_is_allowed():
    bad = subprocess.run([sys.executable, TOOL, "--port", "/dev/x", "--code", "RHQ"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "the referee code is 4 to 8 letters of R, H, D, S" in bad.stderr
    out = subprocess.run([sys.executable, TOOL, "--help"], capture_output=True, text=True).stdout
    assert "--code CODE" in out and "--build DIR" in out and "BOOTSEL" in out


def test_a_frozen_board_after_maintenance_is_told_it_stays_in_maintenance(tmp_path, monkeypatch,
                                                                           capsys):
    monkeypatch.setattr(deploy, "maintenance_boot", lambda port, code, found: (port, None))
    monkeypatch.setattr(deploy.subprocess, "run", FakeMpremote("carddraw-layout 1 0"))
    assert deploy.main(["--port", "/dev/ttyACM9", "--source", "--build", str(tmp_path),
                        "--code", "RHRH"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "stays in maintenance until reset" in err
