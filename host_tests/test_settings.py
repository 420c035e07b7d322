"""settings.py: the one check of a settings dict (the controller and the store both use it) and
the one way an Action is built from settings."""
import json
import os
import re

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from conftest import FIRMWARE, run_in_vm
from carddraw import config
from carddraw.controller import Controller
from carddraw import lockcode
from carddraw.settings import LABELS, NAMES, OPTIONS, action_from, check, code_ok, lock_ok
from handheld import dev, keys
from carddraw.store import Store
from fakeflash import FakeFlash

KEPT = "5$" + "0f" * 8 + "$" + "e1" * 32   # a referee code as settings keep it
FAST = hsettings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 70), st.floats(allow_nan=False),
    st.text(alphabet="RHDSrx", max_size=6), st.sampled_from(config.SKILLS + ("Scan", "scanning")),
    st.lists(st.integers(0, 3), max_size=2))
setting_dicts = st.dictionaries(st.sampled_from(NAMES + ("colour", "Ranks")), values)


@FAST
@given(setting_dicts)
def test_controller_and_store_read_settings_the_same_way(data):
    """One check for both: a settings file and the settings handed to a new controller give
    the same settings, and the store's notice comes exactly when a field was bad."""
    fixed, bad = check(data)
    stored, notice = Store(fs=FakeFlash({config.SETTINGS_FILE: json.dumps(data).encode()})
                           ).load_settings()
    assert stored == fixed == Controller(settings=data).settings
    assert (notice == "settings fixed") == bool(bad) and (notice is None) == (not bad)
    assert bad == [name for name in NAMES if name in bad]          # in a fixed order
    for name in NAMES:                                            # valid fields are kept
        if name in data and name not in bad:
            assert fixed[name] == data[name] and type(fixed[name]) is type(data[name])
    assert check(fixed) == (fixed, [])                            # the result is valid


def test_check_keeps_valid_fields_and_names_the_bad_ones():
    fixed, bad = check({"ranks": 4, "helpers": "2", "timed": 1, "skill": "scan", "lock": KEPT,
                        "interval": 29, "colour": "pink", "lock_fails": 4})
    assert fixed == dict(config.defaults(), ranks=4, skill="scan", lock=KEPT, lock_fails=4)
    assert bad == ["helpers", "interval", "timed"]


def test_rank_0_is_only_for_a_scan_R3():
    assert check({"skill": "scan", "ranks": 0}) == (dict(config.defaults(), skill="scan",
                                                         ranks=0), [])
    fixed, bad = check({"skill": "repair", "ranks": 0, "lock": "X"})
    assert fixed["ranks"] == 1 and bad == ["lock", "ranks"]


def test_anything_but_a_dict_keeps_nothing():
    assert check(None) == (config.defaults(), [])                   # no settings given
    for data in ([1], "ranks", 3, True):
        assert check(data) == (config.defaults(), list(NAMES))


def test_the_lock_is_kept_hashed_and_a_plain_code_is_hashed_on_the_way_in():
    """A code is 4 to 8 presses of the button initials; settings keep only its salted hash
    (test_lockout_code.py has the rest)."""
    assert lock_ok(KEPT) and lock_ok(config.DEFAULT_LOCK)
    for code in ("RHRH", "SDSD", "RHRHR", "RHRHRHRH"):
        assert code_ok(code) and not lock_ok(code)
        fixed, bad = check({"lock": code})
        assert bad == ["lock"] and lockcode.matches(fixed["lock"], code)
    for code in ("RHR", "RHRHRHRHR", "rhrh", "RHX1", 1234, None, ["R", "H", "R", "H"]):
        assert not lock_ok(code) and not code_ok(code)
        assert check({"lock": code}) == (config.defaults(), ["lock"])


def test_every_option_has_a_label_and_a_step():
    assert set(OPTIONS) <= set(NAMES)
    labels = LABELS.split("|")
    assert len(labels) == len(OPTIONS) and labels[:2] == ["Add green", "Add yellow"]
    assert all(len(label) <= 10 for label in labels)              # fits the menu's row
    for name, step in (("interval", 5), ("needed", 1)):            # R21: 30-60 s by 5 s
        c = dev()
        before = c.settings[name]
        keys(c, "lD" + " H" * OPTIONS.index(name) + " D H")       # the row edited: one up
        assert c.settings[name] == before + step


def test_action_from_carries_every_setting_R2_R15():
    s = dict(config.defaults(), skill="repair", ranks=3, helpers=2, bonus=1, green=1, yellow=2,
             red=1, black=1, needed=3, auto=2, redraws=4, referee=True)
    a = action_from(s)
    assert (a.skill, a.ranks, a.helpers, a.bonus, a.difficulty, a.needed, a.auto) == (
        "repair", 3, 2, 1, (1, 2, 1, 1), 3, 2)
    assert a.redraws == 4 and a.redraws_left == 4 and a.referee is True  # R15, R14
    assert action_from(config.defaults()).referee is False


def test_only_settings_py_builds_an_action_from_settings():
    """Every Action built from settings comes from action_from (saved.py rebuilds a saved
    action, and one from the log's start record after a power cut: neither is settings)."""
    callers = []
    for folder, _, files in os.walk(os.path.join(FIRMWARE, "carddraw")):
        for name in files:
            if name.endswith(".py") and name not in ("settings.py", "saved.py", "action.py"):
                with open(os.path.join(folder, name)) as f:
                    if re.search(r"\bAction\(", f.read()):
                        callers.append(name)
    assert callers == []


def test_check_and_action_from_in_micropython(vm):
    script = """
from carddraw.settings import check, action_from
cases = [{"ranks": 4, "helpers": "2", "timed": 1, "lock": "SDRH", "interval": 29},
         {"skill": "repair", "ranks": 0}, None, [1], {"ranks": True, "needed": 0}]
out = [check(c) for c in cases]
a = action_from(dict(check({"redraws": 3, "referee": True})[0]))
RESULT = [[[sorted(s.items()), bad] for s, bad in out], [a.redraws, a.referee]]
"""
    got = vm(script)
    cases = [{"ranks": 4, "helpers": "2", "timed": 1, "lock": "SDRH", "interval": 29},
             {"skill": "repair", "ranks": 0}, None, [1], {"ranks": True, "needed": 0}]
    want = [[[list(kv) for kv in sorted(s.items())], bad] for s, bad in map(check, cases)]
    # the VM's dicts keep no order: the bad names must still come in NAMES order
    assert got == [want, [3, True]]
