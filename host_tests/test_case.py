"""The printable case (tools/case.py, tools/maker/solids.py) against hardware/case/dimensions.py.

The parts' positions are read from dimensions.py; the case is the solid the tool builds from
the same file. These tests cut the built solids with the parts and with probes: no part runs
into the case, no two parts overlap, and each opening leaves a clear path from outside to its
part (a finger to each button, the eye to the display, the LEDs and the charge lights, a plug
to each USB socket, a paper clip to BOOTSEL, a pen to RESET, a thumb to the switch). Each
probe is also moved off its opening to show that the same test does find material there."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import case  # noqa: E402
from maker import solids as casegeom  # noqa: E402

D = casegeom.load()
OUT = os.path.join(ROOT, "hardware", "case", "print")
NONE = 1e-6      # mm3: a cut this small is two faces touching


@pytest.fixture(scope="module")
def solids():
    return casegeom.parts_of(D)


def hits(solids, probe):
    """{part name: mm3} of the printed parts a probe cuts into."""
    found = {name: (probe ^ solid).volume() for name, solid in solids.items()}
    return {name: v for name, v in found.items() if v > NONE}


def column(x, y, z0, z1, d=1.5):
    return casegeom.cyl(x, y, z0, z1, d)


def test_the_committed_stl_files_are_what_dimensions_py_gives_now():
    _d, _parts, files = case.build()
    stale = case.check(OUT, files)
    assert stale == [], "%s: run make case" % stale
    assert set(os.listdir(OUT)) - {".carddraw-files"} == {case.PICTURE} | set(files)


def test_no_part_runs_into_the_case(solids):
    for name, b in D.parts().items():
        assert hits(solids, casegeom.box(b)) == {}, name
    for name, c in D.cylinders().items():
        assert hits(solids, casegeom.cyl(*c)) == {}, name


def test_no_two_parts_overlap():
    shapes = [(n, casegeom.box(b)) for n, b in D.parts().items()]
    shapes += [(n, casegeom.cyl(*c)) for n, c in D.cylinders().items()]
    for i, (a, sa) in enumerate(shapes):
        for b, sb in shapes[i + 1:]:
            assert (sa ^ sb).volume() < NONE, (a, b)


def test_every_part_is_inside_the_case_but_what_stands_proud_of_the_face():
    for name, (x0, y0, z0, x1, y1, z1) in D.parts().items():
        assert D.WALL <= x0 and x1 <= D.W - D.WALL and D.WALL <= y0 and y1 <= D.L - D.WALL, name
        assert D.FLOOR <= z0 and z1 <= D.LID_UNDER, name
    for name, (x, y, z0, z1, d) in D.cylinders().items():
        proud = name.startswith("cap") or name == "led_body"
        assert (z1 > D.TOTAL_H) == proud, name


def test_the_printed_parts_do_not_overlap_and_the_lid_sits_on_the_walls(solids):
    assert (solids["base"] ^ solids["lid"]).volume() < NONE
    assert (solids["holder"] ^ solids["lid"]).volume() < NONE
    assert (solids["holder"] ^ solids["base"]).volume() < NONE
    assert solids["base"].bounding_box() == (0.0, 0.0, 0.0, D.W, D.L, D.BASE_H)
    assert solids["lid"].bounding_box()[3:] == (D.W, D.L, D.TOTAL_H)


def clear_then_blocked(solids, make, shift):
    """make(dx, dy, dz) -> a probe; clear where it belongs, cutting the case when moved."""
    assert hits(solids, make(0, 0, 0)) == {}
    assert hits(solids, make(*shift)), "moved by %s the probe still finds nothing" % (shift,)


def test_a_finger_reaches_each_button_cap(solids):
    assert len(D.BUTTON_XS) == 4 and D.BUTTON_PITCH >= 18      # gloved fingers, one at a time
    for x in D.BUTTON_XS:
        top = D.TOTAL_H + D.CAP_PROUD
        clear_then_blocked(solids, lambda dx, dy, dz: casegeom.cyl(
            x + dx, D.BUTTON_Y + dy, D.SEAT_Z + D.SWITCH_BODY_H, top + 5, D.CAP_D), (1.0, 0, 0))
    assert D.BUTTON_HOLE_D - D.CAP_D >= 0.6       # the cap never rubs


def test_the_display_shows_through_its_window_and_the_window_only_over_glass(solids):
    ox, oy = D.OLED_CENTRE
    cy = oy + D.OLED_GLASS_DY + D.OLED_ACTIVE_DY
    w, h = D.OLED_ACTIVE
    clear_then_blocked(solids, lambda dx, dy, dz: casegeom.centred(
        ox + dx, cy + dy, w, h, D.LID_UNDER - 0.1, D.TOTAL_H + 1), (0, 2.0, 0))
    x0, y0, x1, y1 = casegeom.oled_window(D)
    gx0, gy0, _z0, gx1, gy1, _z1 = D.parts()["oled_glass"]
    assert gx0 < x0 and x1 < gx1 and gy0 < y0 and y1 < gy1   # no board seen past the glass


def test_the_led_and_the_buzzer_reach_the_face(solids):
    x, y = D.LED_XY
    clear_then_blocked(solids, lambda dx, dy, dz: casegeom.cyl(
        x + dx, y + dy, D.LID_UNDER - D.LED_BOSS_H, D.TOTAL_H + 5, D.LED_D), (1.0, 0, 0))
    assert D.LID_UNDER - D.LED_BOSS_H + D.LED_BODY_H > D.TOTAL_H + 2   # seen from the side too
    bx, by = D.BUZZER_XY
    for dx, dy in D.SOUND_HOLES:
        clear_then_blocked(solids, lambda ex, ey, ez: column(
            bx + dx + ex, by + dy + ey, D.LID_UNDER, D.TOTAL_H + 1, D.SOUND_HOLE_D - 0.2),
            (1.5, 1.5, 0))
    assert (0.0, 0.0) in D.SOUND_HOLES      # one over the buzzer's own opening


def test_the_charge_lights_shine_up_the_light_pipe(solids):
    for x, y, z in D.CHARGER_LEDS:
        clear_then_blocked(solids, lambda dx, dy, dz: column(
            x + dx, y + dy, z + 0.01, D.TOTAL_H + 1, 1.0), (D.CHG_WINDOW[0], 0, 0))
    x0, y0, x1, y1 = casegeom.charge_window(D)
    assert x1 - x0 >= 10 and y1 - y0 >= 5          # a module's LEDs 2.5 mm off still show


@pytest.mark.parametrize("socket, plug", [("PICO_USB", "MICRO_USB_PLUG"),
                                          ("CHARGER_USB", "USB_C_PLUG")])
def test_a_plug_reaches_each_usb_socket(solids, socket, plug):
    sx0, sy0, sz0, sx1, _sy1, sz1 = getattr(D, socket)
    w, h = getattr(D, plug)
    cx, cz = (sx0 + sx1) / 2, (sz0 + sz1) / 2
    clear_then_blocked(solids, lambda dx, dy, dz: casegeom.box(
        (cx - w / 2 + dx, -5, cz - h / 2 + dz, cx + w / 2 + dx, sy0, cz + h / 2 + dz)),
        (0, 0, h))
    assert sy0 - D.WALL <= 0.5      # the socket's face at the wall: the plug goes fully in


def test_a_paper_clip_reaches_bootsel_and_a_pen_reset(solids):
    bx, by, btop = D.BOOTSEL
    clear_then_blocked(solids, lambda dx, dy, dz: column(bx + dx, by + dy, -2, btop, 1.5),
                       (3.0, 0, 0))
    px0, py0, _pz0, px1, py1, _pz1 = D.PICO      # BOOTSEL is on the Pico, under its board
    assert px0 < bx < px1 and py0 < by < py1 and btop < D.PICO_Z
    rx, ry = D.RESET_XY
    clear_then_blocked(solids, lambda dx, dy, dz: column(rx + dx, ry + dy, -2, D.FLOOR + 0.01,
                                                         D.RESET_PLUNGER_D - 0.5), (4.0, 0, 0))


def test_the_switch_knob_slides_through_its_slot(solids):
    kx, ky, kz = D.SLIDE_KNOB
    zc = D.SLIDE_Z + D.SLIDE_BODY[2] / 2
    span = ky + D.SLIDE_TRAVEL
    clear_then_blocked(solids, lambda dx, dy, dz: casegeom.box(
        (D.WALL - kx + 2.0, D.SWITCH_Y - span / 2 + dy, zc - kz / 2 + dz, D.WALL + 0.01,
         D.SWITCH_Y + span / 2 + dy, zc + kz / 2 + dz)), (0, 3.0, 0))


def test_the_pico_rests_on_its_posts_and_the_holder_on_its_own(solids):
    for x, y in D.PICO_HOLES:
        assert hits(solids, casegeom.cyl(x, y, D.PICO_Z - 0.2, D.PICO_Z, 3.0)) == {
            "base": pytest.approx((casegeom.cyl(x, y, 0, 0.2, 3.0) - casegeom.cyl(
                x, y, -1, 1, D.PILOT_D)).volume(), rel=0.05)}
    for x, y in D.HOLDER_POSTS:
        assert "lid" in hits(solids, casegeom.cyl(x, y, D.SEAT_Z, D.SEAT_Z + 0.2, 4.0))


def test_check_says_run_make_case_in_one_line(tmp_path):
    _d, _parts, files = case.build()
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    assert case.check(str(tmp_path), files) == []
    other = case.stl_bytes(casegeom.box((0, 0, 0, 10, 10, 10)))
    (tmp_path / "case-lid.stl").write_bytes(other)
    done = subprocess.run([sys.executable, os.path.join("tools", "case.py"), "--check", "--out",
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "case-lid.stl is not what dimensions.py gives now" in done.stderr
    assert done.stderr.rstrip().endswith("run make case")
    assert (tmp_path / "case-lid.stl").read_bytes() == other          # --check writes nothing


def test_an_stl_round_trip_keeps_the_solid():
    cube = casegeom.box((0, 0, 0, 10, 20, 30))
    vol, area, size = case.measure(case.stl_triangles(case.stl_bytes(cube)))
    assert vol == pytest.approx(6000) and area == pytest.approx(2200) and size == (10, 20, 30)


def test_a_folder_of_someone_elses_is_refused_and_left_alone(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    done = subprocess.run([sys.executable, os.path.join("tools", "case.py"), "--out",
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "did not write" in done.stderr and os.listdir(str(tmp_path)) == ["notes.txt"]
