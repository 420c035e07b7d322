#!/usr/bin/env python3
"""The printable case: STL files and a picture, from hardware/case/dimensions.py (manifold3d).

    python tools/case.py               write hardware/case/print/: case-base.stl, case-lid.stl,
                                       case-holder.stl (each laid as it prints) and case.png
    python tools/case.py --check       exit 1, saying "run make case", when the STL files there
                                       are not the solids dimensions.py gives now
    python tools/case.py --out DIR     write into DIR instead

The base prints as it stands (its back on the bed), the lid face down, the button holder flat;
none needs supports. --check compares each STL's volume, surface and size with a fresh build
(to 0.01 %, so a rebuild on another machine passes); the picture is not compared. The folder
written into must be new, empty, one the tools wrote before (its .carddraw-files lists what
they wrote) or hardware/case/print/ itself; anything else there, or a file of the same name
the tools did not write, is refused (exit status 2).
"""
import os
import struct
import sys

from common import ROOT, cli, output
from maker import solids

TOOL = "tools/case.py"
OUT = os.path.join(ROOT, "hardware", "case", "print")
STL = {"base": "case-base.stl", "lid": "case-lid.stl", "holder": "case-holder.stl"}
PICTURE = "case.png"
TOLERANCE = 1e-4   # --check: relative difference allowed in volume and area
REFINE = 5.0       # mm: the picture's longest triangle edge


# -- the solids as they print --------------------------------------------------------------------
def printable(parts):
    """The assembled parts laid on the bed (z = 0): the lid turned face down."""
    out = {}
    for name, solid in parts.items():
        if name == "lid":
            solid = solid.rotate((180, 0, 0))
        x0, y0, z0, _x1, _y1, _z1 = solid.bounding_box()
        out[name] = solid.translate((-x0, -y0, -z0))
    return out


def stl_bytes(solid):
    """A binary STL of a manifold3d solid (triangles in its own order, normals worked out)."""
    mesh = solid.to_mesh()
    verts = mesh.vert_properties[:, :3]
    tris = mesh.tri_verts
    out = [b"carddraw case (tools/case.py)".ljust(80, b" "), struct.pack("<I", len(tris))]
    for a, b, c in tris:
        p, q, r = verts[a], verts[b], verts[c]
        n = _normal(p, q, r)
        out.append(struct.pack("<12fH", *n, *p, *q, *r, 0))
    return b"".join(out)


def _normal(p, q, r):
    u = [q[i] - p[i] for i in range(3)]
    v = [r[i] - p[i] for i in range(3)]
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    size = sum(c * c for c in n) ** 0.5 or 1.0
    return [c / size for c in n]


def stl_triangles(data):
    """[(p, q, r)] of a binary STL's triangles."""
    (count,) = struct.unpack_from("<I", data, 80)
    tris = []
    for i in range(count):
        vals = struct.unpack_from("<12f", data, 84 + 50 * i)
        tris.append((vals[3:6], vals[6:9], vals[9:12]))
    return tris


def measure(tris):
    """(volume, area, (size x, y, z)) of a closed triangle mesh."""
    vol = area = 0.0
    lo, hi = [1e9] * 3, [-1e9] * 3
    for p, q, r in tris:
        vol += (p[0] * (q[1] * r[2] - q[2] * r[1]) - p[1] * (q[0] * r[2] - q[2] * r[0])
                + p[2] * (q[0] * r[1] - q[1] * r[0])) / 6
        n = _cross(p, q, r)
        area += (n[0] ** 2 + n[1] ** 2 + n[2] ** 2) ** 0.5 / 2
        for v in (p, q, r):
            for i in range(3):
                lo[i], hi[i] = min(lo[i], v[i]), max(hi[i], v[i])
    return vol, area, tuple(round(hi[i] - lo[i], 3) for i in range(3))


def _cross(p, q, r):
    u = [q[i] - p[i] for i in range(3)]
    v = [r[i] - p[i] for i in range(3)]
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def differs(have, want):
    """Why two STLs' solids differ, or None: volume, area (relative) or size (0.01 mm)."""
    (v1, a1, s1), (v2, a2, s2) = measure(stl_triangles(have)), measure(stl_triangles(want))
    if abs(v1 - v2) > TOLERANCE * abs(v2):
        return "volume %.1f mm3, %.1f now" % (v1, v2)
    if abs(a1 - a2) > TOLERANCE * abs(a2):
        return "surface %.1f mm2, %.1f now" % (a1, a2)
    if any(abs(x - y) > 0.01 for x, y in zip(s1, s2)):
        return "size %s mm, %s now" % (s1, s2)
    return None


# -- the picture ----------------------------------------------------------------------------------
def picture(d, parts, path):
    """case.png: the base with the parts in it, the lid's underside with the button holder,
    and the face as the players see it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(15, 6.2), dpi=100)
    inside = [(parts["base"], "#9aa5b1")] + [
        (solids.box(b), _colour(name)) for name, b in sorted(d.parts().items())
        if not name.startswith("switch")] + [
        (solids.cyl(*c), _colour(name)) for name, c in sorted(d.cylinders().items())
        if not name.startswith("cap")]
    flip = (180, 0, 0)
    under = [(parts["lid"].rotate(flip), "#5b7fa6"), (parts["holder"].rotate(flip), "#e0a040")]
    under += [(solids.box(b).rotate(flip), "#303030") for name, b in sorted(d.parts().items())
              if name.startswith("switch") and "wires" not in name]
    face = [(parts["base"], "#9aa5b1"), (parts["lid"], "#5b7fa6")]
    panels = (("the base, with the parts in it", inside, (62, -70)),
              ("under the lid, with the button holder", under, (62, -70)),
              ("the face", face, (70, -90)))
    for i, (title, shapes, (elev, azim)) in enumerate(panels):
        ax = fig.add_subplot(1, 3, i + 1, projection="3d", computed_zorder=False)
        _draw(ax, shapes, elev, azim)
        ax.view_init(elev=elev, azim=azim)
        ax.set_axis_off()
        ax.set_title(title)
    fig.suptitle("Card Draw device: the case, %g x %g x %g mm (tools/case.py from "
                 "hardware/case/dimensions.py)" % (d.W, d.L, d.TOTAL_H))
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def _draw(ax, shapes, elev, azim):
    """Each solid's triangles that face the eye, shaded by how they face a light, drawn in the
    order given."""
    import math

    import matplotlib
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection
    e, a = math.radians(elev), math.radians(azim)
    eye = (math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e))
    lo, hi = [1e9] * 3, [-1e9] * 3
    for solid, colour in shapes:
        mesh = solid.refine_to_length(REFINE).to_mesh()   # small faces sort well by depth
        v, t = mesh.vert_properties[:, :3], mesh.tri_verts
        rgb = matplotlib.colors.to_rgb(colour)
        faces, shades = [], []
        for i, j, k in t:
            f = [v[i], v[j], v[k]]
            n = _normal(*f)
            if n[0] * eye[0] + n[1] * eye[1] + n[2] * eye[2] < 0:
                continue        # faces away from the eye
            s = 0.45 + 0.55 * max(0.0, 0.35 * n[0] - 0.25 * n[1] + 0.9 * n[2])
            faces.append(f)
            shades.append((rgb[0] * s, rgb[1] * s, rgb[2] * s))
        ax.add_collection3d(Poly3DCollection(faces, linewidths=0.3, facecolors=shades,
                                             edgecolors=shades))
        x0, y0, z0, x1, y1, z1 = solid.bounding_box()
        lo = [min(a, b) for a, b in zip(lo, (x0, y0, z0))]
        hi = [max(a, b) for a, b in zip(hi, (x1, y1, z1))]
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_box_aspect([h - l for l, h in zip(lo, hi)])


COLOURS = {"pico": "#2e8b57", "pico_usb": "#c0c0c0", "pico_wires": "#90ee90",
           "charger": "#3050c0", "cell": "#d0c040", "oled": "#202020", "oled_glass": "#404060",
           "led": "#e04040", "reset": "#202020", "slide": "#202020"}


def _colour(name):
    return COLOURS.get(name, "#888888")


# -- the command ----------------------------------------------------------------------------------
def build():
    """{file name: bytes} of the STL files, and the assembled parts (for the picture)."""
    d = solids.load()
    parts = solids.parts_of(d)
    flat = printable(parts)
    return d, parts, {STL[name]: stl_bytes(flat[name]) for name in STL}


def check(out, files):
    """[(file, why)] of the STL files in `out` that are not the solids of `files`."""
    stale = []
    for name, want in files.items():
        try:
            with open(os.path.join(out, name), "rb") as f:
                why = differs(f.read(), want)
        except (FileNotFoundError, struct.error):
            why = "missing or not a binary STL"
        if why:
            stale.append((name, why))
    return stale


def main(argv=None):
    p = cli.parser("case", __doc__)
    p.add_argument("--check", action="store_true",
                   help="compare with the STL files in the folder; write nothing")
    p.add_argument("--out", metavar="DIR", default=OUT,
                   help="the folder to write into (default: hardware/case/print)")
    args = p.parse_args(argv)
    d, parts, files = build()
    where = os.path.relpath(args.out, ROOT)
    if args.check:
        stale = check(args.out, files)
        if stale:
            sys.stderr.write("%s: %s: run make case\n" % (where, "; ".join(
                "%s is not what dimensions.py gives now (%s)" % s for s in stale)))
            return 1
        print("%s matches hardware/case/dimensions.py" % where)
        return 0
    try:
        output.claim(args.out, sorted(files) + [PICTURE], TOOL)
    except output.NotOurs as e:
        p.error(str(e))
    for name, data in files.items():
        with open(os.path.join(args.out, name), "wb") as f:
            f.write(data)
    picture(d, parts, os.path.join(args.out, PICTURE))
    for name in sorted(files) + [PICTURE]:
        print("%8d  %s" % (os.path.getsize(os.path.join(args.out, name)),
                           os.path.join(where, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
