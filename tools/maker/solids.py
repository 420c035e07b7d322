"""The case's printable parts as solids (manifold3d), from hardware/case/dimensions.py.

base(d), lid(d) and holder(d) take the dimensions module and give a manifold3d.Manifold each,
in the assembled position (the lid and the holder are turned over for printing when written:
tools/case.py). Every opening is cut where dimensions.py puts its part, so the test that the
openings sit over the parts (host_tests/test_case.py) reads the same numbers.
"""
import importlib.util
import os

from common import ROOT

DIMENSIONS = os.path.join(ROOT, "hardware", "case", "dimensions.py")
SEGMENTS = 48     # a circle's sides: smooth enough for a 2 mm hole, small STL files
EPS = 0.01        # cuts overshoot faces by this, so no zero-thickness skin is left


def load(path=DIMENSIONS):
    """dimensions.py as a module, loaded by its path (it is no package's)."""
    spec = importlib.util.spec_from_file_location("case_dimensions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _m():
    import manifold3d
    manifold3d.set_circular_segments(SEGMENTS)
    return manifold3d


def box(b):
    """A box (x0, y0, z0, x1, y1, z1)."""
    m = _m()
    x0, y0, z0, x1, y1, z1 = b
    return m.Manifold.cube((x1 - x0, y1 - y0, z1 - z0)).translate((x0, y0, z0))


def cyl(x, y, z0, z1, d):
    """An upright cylinder of diameter d from z0 to z1 at (x, y)."""
    return _m().Manifold.cylinder(z1 - z0, d / 2, d / 2).translate((x, y, z0))


def rounded(x0, y0, x1, y1, z0, z1, r):
    """A box with its four upright edges rounded to radius r."""
    m = _m()
    if r <= 0:
        return box((x0, y0, z0, x1, y1, z1))
    corners = [cyl(x, y, z0, z1, 2 * r) for x in (x0 + r, x1 - r) for y in (y0 + r, y1 - r)]
    return m.Manifold.batch_hull(corners)


def union(parts):
    return _m().Manifold.batch_boolean(list(parts), _m().OpType.Add)


def ring(b, wall, z0, z1):
    """A rectangular tube whose inside is the box b's x-y outline, walls `wall` thick."""
    x0, y0, x1, y1 = b
    return (box((x0 - wall, y0 - wall, z0, x1 + wall, y1 + wall, z1))
            - box((x0, y0, z0 - EPS, x1, y1, z1 + EPS)))


def centred(cx, cy, w, h, z0, z1):
    return box((cx - w / 2, cy - h / 2, z0, cx + w / 2, cy + h / 2, z1))


# -- the base: the tray, its posts, guides and the openings in its walls and back ------------------
def base(d):
    shell = (rounded(0, 0, d.W, d.L, 0, d.BASE_H, d.CORNER_R)
             - rounded(d.WALL, d.WALL, d.W - d.WALL, d.L - d.WALL, d.FLOOR, d.BASE_H + 1,
                       d.CORNER_R - d.WALL))
    solid = [shell]
    solid += [cyl(x, y, d.FLOOR - EPS, d.BASE_H, d.POST_D) for x, y in d.POSTS]
    solid += [cyl(x, y, d.FLOOR - EPS, d.PICO_Z, d.PICO_POST_D) for x, y in d.PICO_HOLES]
    bx, by, btop = d.BOOTSEL   # a guide tube for the paper clip, up to just under the button
    solid.append(cyl(bx, by, d.FLOOR - EPS, btop - 0.6, d.BOOTSEL_HOLE_D + 2.4))
    rx, ry = d.RESET_XY
    inner = d.RESET_BODY + 2 * d.FIT
    solid.append(ring((rx - inner / 2, ry - inner / 2, rx + inner / 2, ry + inner / 2),
                      d.POCKET_WALL, d.FLOOR - EPS, d.FLOOR + d.POCKET_H))
    solid += _charger_seat(d) + _cell_bay(d) + _slide_cradle(d)
    cuts = [cyl(x, y, d.BASE_H - 10, d.BASE_H + 1, d.PILOT_D) for x, y in d.POSTS]
    cuts += [cyl(x, y, d.PICO_Z - 5, d.PICO_Z + 1, d.PILOT_D) for x, y in d.PICO_HOLES]
    cuts.append(cyl(bx, by, -1, btop, d.BOOTSEL_HOLE_D))
    cuts.append(cyl(rx, ry, -1, d.FLOOR + EPS, d.RESET_HOLE_D))
    for sock, plug in ((d.PICO_USB, d.MICRO_USB_PLUG), (d.CHARGER_USB, d.USB_C_PLUG)):
        cx, cz = (sock[0] + sock[3]) / 2, (sock[2] + sock[5]) / 2
        w, h = plug[0] + 0.5, plug[1] + 0.5
        cuts.append(box((cx - w / 2, -1, cz - h / 2, cx + w / 2, sock[1] + EPS, cz + h / 2)))
    cuts.append(_slide_slot(d))
    return union(solid) - union(cuts)


def _charger_seat(d):
    """Two rails under its long edges, guides beside it, a stop behind it (USB-C pushes)."""
    x0, y0, z0, x1, y1, z1 = d.CHARGER
    f = d.FIT
    rails = [box((x, y0, d.FLOOR - EPS, x + 1.5, y1, z0)) for x in (x0, x1 - 1.5)]
    guides = [box((x, y0 + 10, d.FLOOR - EPS, x + 1.2, y1, z1 + 1.0))
              for x in (x0 - f - 1.2, x1 + f)]
    stop = box((x0, y1 + f, d.FLOOR - EPS, x1, y1 + f + 1.5, z1 + 1.0))
    return rails + guides + [stop]


def _cell_bay(d):
    """Four L-shaped corners round the cell, low enough to lift it out; the lead goes free."""
    x0, y0, _, x1, y1, _ = d.CELL
    g, t, h, arm = d.BAY_FIT, d.BAY_RIB_T, d.FLOOR + d.BAY_RIB_H, 8.0
    out = []
    for cx, sx in ((x0 - g, -1), (x1 + g, 1)):
        for cy, sy in ((y0 - g, -1), (y1 + g, 1)):
            xa, xb = sorted((cx, cx + sx * t))
            ya, yb = sorted((cy + sy * t, cy - sy * arm))
            out.append(box((xa, ya, d.FLOOR - EPS, xb, yb, h)))
            xa, xb = sorted((cx + sx * t, cx - sx * arm))
            ya, yb = sorted((cy, cy + sy * t))
            out.append(box((xa, ya, d.FLOOR - EPS, xb, yb, h)))
    return out


def _slide_cradle(d):
    bx, by, bz = d.SLIDE_BODY
    y0, y1 = d.SWITCH_Y - by / 2 - d.FIT, d.SWITCH_Y + by / 2 + d.FIT
    return [box((d.WALL - EPS, y - 1.2 if y == y0 else y, d.FLOOR - EPS, d.WALL + bx,
                 y if y == y0 else y + 1.2, d.SLIDE_Z + bz)) for y in (y0, y1)]


def _slide_slot(d):
    kx, ky, kz = d.SLIDE_KNOB
    zc = d.SLIDE_Z + d.SLIDE_BODY[2] / 2
    span = ky + d.SLIDE_TRAVEL + d.SLOT_FIT
    return box((-1, d.SWITCH_Y - span / 2, zc - (kz + d.SLOT_FIT) / 2, d.WALL + EPS,
                d.SWITCH_Y + span / 2, zc + (kz + d.SLOT_FIT) / 2))


# -- the lid: the face, its rim, and what hangs under it ---------------------------------------------
def oled_window(d):
    """(x0, y0, x1, y1) of the display's window: the active area and a margin round it."""
    ox, oy = d.OLED_CENTRE
    cy = oy + d.OLED_GLASS_DY + d.OLED_ACTIVE_DY
    w = d.OLED_ACTIVE[0] / 2 + d.OLED_WINDOW_MARGIN
    h = d.OLED_ACTIVE[1] / 2 + d.OLED_WINDOW_MARGIN
    return ox - w, cy - h, ox + w, cy + h


def charge_window(d):
    """(x0, y0, x1, y1) of the light pipe's inside, over the charger's two LEDs."""
    xs = [p[0] for p in d.CHARGER_LEDS]
    ys = [p[1] for p in d.CHARGER_LEDS]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    w, h = d.CHG_WINDOW
    return cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2


def lid(d):
    m = _m()
    under, top = d.BASE_H, d.TOTAL_H
    solid = [rounded(0, 0, d.W, d.L, under, top, d.CORNER_R)]
    o, r = d.WALL + d.FIT, d.CORNER_R - d.WALL - d.FIT     # the rim's outside, its corners
    rim = (rounded(o, o, d.W - o, d.L - o, under - d.RIM_H, under + EPS, r)
           - rounded(o + d.RIM_W, o + d.RIM_W, d.W - o - d.RIM_W, d.L - o - d.RIM_W,
                     under - d.RIM_H - 1, under + 1, max(r - d.RIM_W, 0)))
    rim -= union(cyl(x, y, under - d.RIM_H - 1, under + 1, d.POST_D + 2 * d.FIT)
                 for x, y in d.POSTS)
    solid.append(rim)
    ox, oy = d.OLED_CENTRE   # corner guides round the display's board
    hw, hh = d.OLED_W / 2 + d.FIT, d.OLED_H / 2 + d.FIT
    for sx in (-1, 1):
        for sy in (-1, 1):
            cx, cy = ox + sx * hw, oy + sy * hh
            solid.append(box(_sorted_box(cx, cy - sy * 5, cx + sx * 1.2, cy + sy * 1.2,
                                         under - d.OLED_GUIDE_H, under + EPS)))
            solid.append(box(_sorted_box(cx - sx * 5, cy, cx + sx * 1.2, cy + sy * 1.2,
                                         under - d.OLED_GUIDE_H, under + EPS)))
    lx, ly = d.LED_XY
    solid.append(cyl(lx, ly, under - d.LED_BOSS_H, under + EPS, d.LED_FLANGE_D + 3.2))
    zx, zy = d.BUZZER_XY
    solid.append(cyl(zx, zy, under - d.RING_H, under + EPS, d.BUZZER_D + 0.4 + 2 * d.RING_T)
                 - cyl(zx, zy, under - d.RING_H - 1, under + 1, d.BUZZER_D + 0.4))
    solid += [cyl(x, y, d.SEAT_Z, under + EPS, d.HOLDER_POST_D) for x, y in d.HOLDER_POSTS]
    pipe_bottom = d.CHARGER[5] + d.CHARGER_PARTS_H + d.PIPE_GAP
    solid.append(ring(charge_window(d), d.PIPE_WALL, pipe_bottom, under + EPS))
    cuts = [cyl(x, y, under - 1, top + 1, d.SCREW_D) for x, y in d.POSTS]
    cuts += [cyl(x, y, top - 1.0, top + 1, d.SCREW_HEAD_D) for x, y in d.POSTS]
    wx0, wy0, wx1, wy1 = oled_window(d)   # the window, its edges chamfered outwards
    cuts.append(m.Manifold.batch_hull([
        box((wx0, wy0, under - 1, wx1, wy1, under + 0.5)),
        box((wx0 - 1.2, wy0 - 1.2, top - EPS, wx1 + 1.2, wy1 + 1.2, top + EPS))]))
    cuts.append(cyl(lx, ly, under - d.LED_BOSS_H - 1, top + 1, d.LED_HOLE_D))
    cuts += [cyl(zx + dx, zy + dy, under - 1, top + 1, d.SOUND_HOLE_D) for dx, dy in d.SOUND_HOLES]
    cuts += [cyl(x, d.BUTTON_Y, under - 1, top + 1, d.BUTTON_HOLE_D) for x in d.BUTTON_XS]
    cuts += [cyl(x, y, d.SEAT_Z - 1, d.SEAT_Z + 6, d.PILOT_D) for x, y in d.HOLDER_POSTS]
    cx0, cy0, cx1, cy1 = charge_window(d)
    cuts.append(box((cx0, cy0, pipe_bottom - 1, cx1, cy1, top + 1)))
    return union(solid) - union(cuts)


def _sorted_box(xa, ya, xb, yb, z0, z1):
    return (min(xa, xb), min(ya, yb), z0, max(xa, xb), max(ya, yb), z1)


# -- the button holder: a plate the four switches sit on, screwed to two posts under the lid ----------
def holder(d):
    x0, y0, x1, y1 = d.HOLDER
    top = d.SEAT_Z
    solid = [rounded(x0, y0, x1, y1, top - d.HOLDER_T, top, 2.0)]
    inner = d.SWITCH_BODY + 2 * 0.2
    for x in d.BUTTON_XS:   # a low bar before and behind each switch, so it sits square
        for y in (d.BUTTON_Y - inner / 2 - 1.0, d.BUTTON_Y + inner / 2):
            solid.append(box((x - inner / 2, y, top - EPS, x + inner / 2, y + 1.0, top + 1.0)))
    cuts = [centred(x + dx, d.BUTTON_Y + dy, 1.6, 1.6, top - d.HOLDER_T - 1, top + 2)
            for x in d.BUTTON_XS for dx, dy in d.SWITCH_LEGS]
    cuts += [cyl(x, y, top - d.HOLDER_T - 1, top + 1, d.SCREW_D) for x, y in d.HOLDER_POSTS]
    return union(solid) - union(cuts)


def parts_of(d):
    """{"base": ..., "lid": ..., "holder": ...}: the printed parts, assembled."""
    return {"base": base(d), "lid": lid(d), "holder": holder(d)}
