#!/usr/bin/env python3
"""make-models.py - the project's default models, written as glTF 2.0 binary files
(.glb) into models/ (docs/render.md, "Models"). Standard library only; no outside
asset: every shape is built here from boxes, extruded profiles, cylinders and cones.

    python3 scripts/make-models.py [OUTDIR]      (default: models/ beside scripts/)

The output is deterministic (same bytes on every run), so the committed files can be
checked against a fresh run (tests/scripts/test_models.sh).

Frames: shapes are written here in the vehicle frame the simulator uses (x forward,
y left, z up, metres, origin on the ground below the middle of the vehicle) and
converted to glTF's (+Z forward, +Y up, +X left) on output. Node names the renderer
knows (render-node/models.c): "wheel_*" turn with the speed (about their own origin,
the wheel's centre), "wheel_f*" also steer; "lamp_brake", "lamp_head",
"lamp_indicator_left", "lamp_indicator_right" glow when on; "paint" takes the colour
of a traffic car; "bonnet*" is what the driver sees of the ego car from the seat.
"""
import json
import math
import os
import struct
import sys

# Colours (linear RGB, as glTF's baseColorFactor)
PAINT = (0.70, 0.08, 0.06)
GLASS = (0.10, 0.13, 0.17)
TYRE = (0.04, 0.04, 0.04)
RIM = (0.55, 0.56, 0.58)
TRIM = (0.08, 0.08, 0.08)
LAMP_RED = (0.45, 0.04, 0.04)
LAMP_AMBER = (0.50, 0.30, 0.05)
LAMP_WHITE = (0.75, 0.75, 0.72)


class Mesh:
    """Triangles grouped by colour (one glTF primitive per colour)."""

    def __init__(self):
        self.groups = {}

    def tri(self, colour, a, b, c):
        n = normal(a, b, c)
        if n is None:
            return
        g = self.groups.setdefault(colour, ([], []))
        base = len(g[0])
        for p in (a, b, c):
            g[0].append((tuple(p), n))
        g[1].extend((base, base + 1, base + 2))

    def quad(self, colour, a, b, c, d):
        """a b c d counter-clockwise seen from outside."""
        self.tri(colour, a, b, c)
        self.tri(colour, a, c, d)

    def box(self, colour, lo, hi):
        x0, y0, z0 = lo
        x1, y1, z1 = hi
        self.prism(colour, [(x0, z0), (x1, z0), (x1, z1), (x0, z1)], y0, y1)

    def prism(self, colour, profile, y0, y1, top_colour=None):
        """A side profile [(x, z)...], counter-clockwise seen from +y (the left),
        extruded from y0 (right) to y1 (left)."""
        n = len(profile)
        left = [(x, y1, z) for x, z in profile]
        right = [(x, y0, z) for x, z in profile]
        for i in range(1, n - 1):  # the two sides, fanned (the profiles are convex)
            self.tri(colour, left[0], left[i], left[i + 1])
            self.tri(colour, right[0], right[i + 1], right[i])
        for i in range(n):
            j = (i + 1) % n
            c = colour
            if top_colour and profile[i][1] > 0 and profile[j][1] > 0 and \
                    abs(profile[i][1] - profile[j][1]) < 0.5 * abs(profile[i][0] - profile[j][0]) + 1e-9:
                c = top_colour
            self.quad(c, right[i], right[j], left[j], left[i])

    def cylinder(self, colour, centre, radius, y_half, segments=16, cap=None):
        """A cylinder along y (an axle), centred at centre."""
        cx, cy, cz = centre
        ring = [(cx + radius * math.cos(2 * math.pi * k / segments),
                 cz + radius * math.sin(2 * math.pi * k / segments)) for k in range(segments)]
        for k in range(segments):
            a, b = ring[k], ring[(k + 1) % segments]
            self.quad(colour, (a[0], cy - y_half, a[1]), (b[0], cy - y_half, b[1]),
                      (b[0], cy + y_half, b[1]), (a[0], cy + y_half, a[1]))
        for side in (-1, 1):
            y = cy + side * y_half
            for k in range(segments):
                a, b = ring[k], ring[(k + 1) % segments]
                p = [(cx, y, cz), (a[0], y, a[1]), (b[0], y, b[1])]
                if side < 0:
                    p = [p[0], p[2], p[1]]
                self.tri(cap or colour, *p)

    def vcylinder(self, colour, centre, r0, r1, height, segments=12):
        """Upright cylinder or cone (r1 = 0) standing on centre."""
        cx, cy, cz = centre
        for k in range(segments):
            t0, t1 = 2 * math.pi * k / segments, 2 * math.pi * (k + 1) / segments
            a0 = (cx + r0 * math.cos(t0), cy + r0 * math.sin(t0), cz)
            b0 = (cx + r0 * math.cos(t1), cy + r0 * math.sin(t1), cz)
            a1 = (cx + r1 * math.cos(t0), cy + r1 * math.sin(t0), cz + height)
            b1 = (cx + r1 * math.cos(t1), cy + r1 * math.sin(t1), cz + height)
            if r1 > 0:
                self.quad(colour, a0, b0, b1, a1)
                self.tri(colour, (cx, cy, cz + height), a1, b1)
            else:
                self.tri(colour, a0, b0, a1)
            self.tri(colour, (cx, cy, cz), b0, a0)


def normal(a, b, c):
    u = [b[i] - a[i] for i in range(3)]
    v = [c[i] - a[i] for i in range(3)]
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    length = math.sqrt(sum(x * x for x in n))
    if length < 1e-12:
        return None
    return tuple(x / length for x in n)


def to_gltf(p):
    """Vehicle frame (x fwd, y left, z up) to glTF's (X left, Y up, Z fwd)."""
    return (p[1], p[2], p[0])


class Model:
    def __init__(self):
        self.nodes = []  # (name, translation in the vehicle frame, Mesh)

    def node(self, name, mesh, at=(0.0, 0.0, 0.0)):
        self.nodes.append((name, at, mesh))
        return mesh

    def write(self, path):
        blob = bytearray()
        views, accessors, materials, meshes, nodes = [], [], [], [], []
        mat_index = {}

        def view(data, target):
            while len(blob) % 4:
                blob.append(0)
            views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data), "target": target})
            blob.extend(data)
            return len(views) - 1

        for name, at, mesh in self.nodes:
            prims = []
            for colour in sorted(mesh.groups):
                verts, idx = mesh.groups[colour]
                if colour not in mat_index:
                    mat_index[colour] = len(materials)
                    materials.append({"name": "paint" if colour == PAINT else "c%d" % len(materials),
                                      "pbrMetallicRoughness": {"baseColorFactor": [round(c, 4) for c in colour] + [1.0],
                                                               "metallicFactor": 0.0, "roughnessFactor": 0.6}})
                pos = [to_gltf(p) for p, _ in verts]
                nor = [to_gltf(n) for _, n in verts]
                pos = [tuple(round(x, 5) for x in p) for p in pos]
                lo = [min(p[i] for p in pos) for i in range(3)]
                hi = [max(p[i] for p in pos) for i in range(3)]
                pv = view(b"".join(struct.pack("<3f", *p) for p in pos), 34962)
                nv = view(b"".join(struct.pack("<3f", *n) for n in nor), 34962)
                iv = view(b"".join(struct.pack("<H", i) for i in idx), 34963)
                accessors.append({"bufferView": pv, "componentType": 5126, "count": len(pos), "type": "VEC3",
                                  "min": [float(struct.unpack("<f", struct.pack("<f", x))[0]) for x in lo],
                                  "max": [float(struct.unpack("<f", struct.pack("<f", x))[0]) for x in hi]})
                accessors.append({"bufferView": nv, "componentType": 5126, "count": len(nor), "type": "VEC3"})
                accessors.append({"bufferView": iv, "componentType": 5123, "count": len(idx), "type": "SCALAR"})
                n = len(accessors)
                prims.append({"attributes": {"POSITION": n - 3, "NORMAL": n - 2}, "indices": n - 1,
                              "material": mat_index[colour]})
            meshes.append({"name": name, "primitives": prims})
            node = {"name": name, "mesh": len(meshes) - 1}
            if any(at):
                node["translation"] = [round(x, 5) for x in to_gltf(at)]
            nodes.append(node)
        while len(blob) % 4:
            blob.append(0)
        doc = {"asset": {"version": "2.0", "generator": "scripts/make-models.py"},
               "scene": 0, "scenes": [{"nodes": list(range(len(nodes)))}], "nodes": nodes,
               "meshes": meshes, "materials": materials, "accessors": accessors,
               "bufferViews": views, "buffers": [{"byteLength": len(blob)}]}
        text = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
        text += b" " * (-len(text) % 4)
        out = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + 8 + len(blob))
        out += struct.pack("<I4s", len(text), b"JSON") + text
        out += struct.pack("<I4s", len(blob), b"BIN\0") + bytes(blob)
        with open(path, "wb") as f:
            f.write(out)
        return len(out)


def wheel(radius, width):
    """A wheel about its own centre: a 12-sided tyre, a rim disc on each face and one
    bar across it, so that turning shows (72 triangles)."""
    m = Mesh()
    m.cylinder(TYRE, (0, 0, 0), radius, width / 2, 12)
    rim, seg = radius * 0.62, 10
    for side in (-1, 1):
        y = side * (width / 2 + 0.004)
        ring = [(rim * math.cos(2 * math.pi * k / seg), rim * math.sin(2 * math.pi * k / seg)) for k in range(seg)]
        for k in range(seg):
            a, b = ring[k], ring[(k + 1) % seg]
            p = [(0, y, 0), (a[0], y, a[1]), (b[0], y, b[1])]
            m.tri(RIM, *(p if side < 0 else [p[0], p[2], p[1]]))
        yb = y + side * 0.002
        bar = [(-rim, yb, -0.035), (rim, yb, -0.035), (rim, yb, 0.035), (-rim, yb, 0.035)]
        m.quad(TRIM, *(bar if side < 0 else bar[::-1]))
    return m


def add_wheels(model, axles, track, radius, width):
    """axles: [(x, tag)]; tag 'f' steers."""
    for x, tag in axles:
        for side, sname in ((1, "l"), (-1, "r")):
            model.node("wheel_%s%s" % (tag, sname), wheel(radius, width),
                       (x, side * (track / 2), radius))


def add_lamps(model, length, width, head_z, tail_z):
    f, r = length / 2, -length / 2
    brake, head, ind_l, ind_r = Mesh(), Mesh(), Mesh(), Mesh()
    for s in (1, -1):
        y0, y1 = sorted((s * (width / 2 - 0.08), s * (width / 2 - 0.42)))
        brake.box(LAMP_RED, (r - 0.02, y0, tail_z), (r + 0.01, y1, tail_z + 0.14))
        head.box(LAMP_WHITE, (f - 0.01, y0, head_z), (f + 0.02, y1, head_z + 0.12))
    for m, s in ((ind_l, 1), (ind_r, -1)):
        y0, y1 = sorted((s * (width / 2 - 0.01), s * (width / 2 - 0.10)))
        m.box(LAMP_AMBER, (f - 0.03, y0, head_z), (f + 0.02, y1, head_z + 0.12))
        m.box(LAMP_AMBER, (r - 0.02, y0, tail_z + 0.16), (r + 0.03, y1, tail_z + 0.24))
    model.node("lamp_brake", brake)
    model.node("lamp_head", head)
    model.node("lamp_indicator_left", ind_l)
    model.node("lamp_indicator_right", ind_r)


def car(length, width, height, belt, hood_front, bonnet_foot, roof_front, roof_rear, tail_top, tail_x,
        wheelbase, radius=0.31):
    """A car from a few numbers of its side view (x from the middle, z from the
    ground): belt = the window line, hood_front = the bonnet's height at the front,
    bonnet_foot = x of the windscreen's foot, roof_front/roof_rear = x where the roof
    starts and ends, tail_top/tail_x = the rear window's foot (height, x)."""
    m = Model()
    f, r = length / 2, -length / 2
    sill = 0.28
    body = Mesh()
    # lower body: bumpers rounded off by one chamfer each
    body.prism(PAINT, [(r, sill + 0.08), (r + 0.08, sill), (f - 0.1, sill), (f, sill + 0.12),
                       (f, hood_front - 0.06), (f - 0.12, hood_front), (bonnet_foot, hood_front),
                       (tail_x, belt), (r, tail_top)], -width / 2, width / 2)
    # roof and pillars above the glass
    w2 = width / 2 - 0.12
    roof_z = height
    body.box(PAINT, (roof_rear, -w2, roof_z - 0.05), (roof_front, w2, roof_z))
    m.node("paint", body)
    bonnet = Mesh()
    # the bonnet's top skin, 1 cm above the body: what the driver sees over the dash
    bonnet.quad(PAINT, (bonnet_foot, -width / 2 + 0.05, belt + 0.012), (f - 0.12, -width / 2 + 0.08, hood_front + 0.01),
                (f - 0.12, width / 2 - 0.08, hood_front + 0.01), (bonnet_foot, width / 2 - 0.05, belt + 0.012))
    m.node("bonnet", bonnet)
    glass = Mesh()
    glass.prism(GLASS, [(tail_x, belt), (bonnet_foot, belt), (roof_front, roof_z - 0.05),
                        (roof_rear, roof_z - 0.05)], -w2 - 0.03, w2 + 0.03)
    m.node("glass", glass)
    trim = Mesh()
    trim.box(TRIM, (r - 0.04, -width / 2, sill), (r + 0.02, width / 2, sill + 0.16))
    trim.box(TRIM, (f - 0.04, -width / 2, sill), (f + 0.03, width / 2, sill + 0.14))
    trim.box(TRIM, (f - 0.01, -0.35, sill + 0.2), (f + 0.015, 0.35, sill + 0.32))  # grille
    for s in (1, -1):  # mirrors
        y0, y1 = sorted((s * width / 2, s * (width / 2 + 0.12)))
        trim.box(TRIM, (bonnet_foot - 0.2, y0, belt + 0.05), (bonnet_foot - 0.05, y1, belt + 0.17))
    m.node("trim", trim)
    add_wheels(m, [(wheelbase / 2, "f"), (-wheelbase / 2, "r")], width - 0.22, radius, 0.21)
    add_lamps(m, length, width, hood_front - 0.2, tail_top - 0.22)
    return m


def van():
    m = Model()
    L, W, H = 5.2, 2.0, 2.2
    f, r = L / 2, -L / 2
    body = Mesh()
    body.prism(PAINT, [(r, 0.35), (f - 0.05, 0.35), (f, 0.5), (f, 1.05), (f - 0.75, 1.25), (f - 1.3, H), (r, H)],
               -W / 2, W / 2)
    m.node("paint", body)
    bonnet = Mesh()
    bonnet.quad(PAINT, (f - 0.75, -0.9, 1.262), (f - 0.02, -0.9, 1.062), (f - 0.02, 0.9, 1.062), (f - 0.75, 0.9, 1.262))
    m.node("bonnet", bonnet)
    glass = Mesh()
    glass.quad(GLASS, (f - 0.78, -0.9, 1.3), (f - 0.78, 0.9, 1.3), (f - 1.28, 0.9, H - 0.08), (f - 1.28, -0.9, H - 0.08))
    for s in (1, -1):
        y = s * (W / 2 + 0.005)
        p = [(f - 1.35, y, 1.3), (f - 0.85, y, 1.3), (f - 1.3, y, 1.95), (f - 1.6, y, 1.95)]
        glass.quad(GLASS, *(p if s > 0 else p[::-1]))
    m.node("glass", glass)
    trim = Mesh()
    trim.box(TRIM, (r - 0.04, -W / 2, 0.35), (r + 0.02, W / 2, 0.5))
    trim.box(TRIM, (f - 0.04, -W / 2, 0.35), (f + 0.03, W / 2, 0.5))
    m.node("trim", trim)
    add_wheels(m, [(1.65, "f"), (-1.65, "r")], W - 0.25, 0.34, 0.22)
    add_lamps(m, L, W, 0.8, 0.75)
    return m


def bus():
    m = Model()
    L, W, H = 12.0, 2.55, 3.2
    f, r = L / 2, -L / 2
    body = Mesh()
    body.prism(PAINT, [(r, 0.35), (f, 0.35), (f, H - 0.1), (f - 0.1, H), (r + 0.1, H), (r, H - 0.1)], -W / 2, W / 2)
    m.node("paint", body)
    glass = Mesh()
    # windscreen and a band of side windows, 5 mm proud of the body
    glass.quad(GLASS, (f + 0.005, -1.15, 1.1), (f + 0.005, 1.15, 1.1), (f + 0.005, 1.15, H - 0.25),
               (f + 0.005, -1.15, H - 0.25))
    for s in (1, -1):
        y = s * (W / 2 + 0.005)
        for k in range(6):
            x0 = r + 0.6 + k * 1.85
            p = [(x0, y, 1.45), (x0 + 1.6, y, 1.45), (x0 + 1.6, y, H - 0.35), (x0, y, H - 0.35)]
            glass.quad(GLASS, *(p if s > 0 else p[::-1]))
    m.node("glass", glass)
    bonnet = Mesh()
    bonnet.quad(TRIM, (f - 0.3, -1.2, 1.05), (f + 0.01, -1.2, 1.05), (f + 0.01, 1.2, 1.05), (f - 0.3, 1.2, 1.05))
    m.node("bonnet", bonnet)
    add_wheels(m, [(f - 2.6, "f"), (r + 3.3, "r")], W - 0.35, 0.5, 0.32)
    add_lamps(m, L, W, 0.7, 0.8)
    return m


def truck():
    m = Model()
    L, W, H = 16.5, 2.55, 4.0
    f, r = L / 2, -L / 2
    cab = Mesh()
    cab_rear = f - 2.3
    cab.prism(PAINT, [(cab_rear, 0.6), (f, 0.6), (f, 2.9), (f - 0.25, 3.3), (cab_rear, 3.3)], -W / 2, W / 2)
    m.node("paint", cab)
    glass = Mesh()
    glass.quad(GLASS, (f + 0.005, -1.1, 1.9), (f + 0.005, 1.1, 1.9), (f + 0.005, 1.1, 2.8), (f + 0.005, -1.1, 2.8))
    m.node("glass", glass)
    bonnet = Mesh()
    bonnet.quad(TRIM, (f - 0.3, -1.2, 1.85), (f + 0.01, -1.2, 1.85), (f + 0.01, 1.2, 1.85), (f - 0.3, 1.2, 1.85))
    m.node("bonnet", bonnet)
    trailer = Mesh()
    trailer.box((0.82, 0.82, 0.80), (r, -W / 2, 1.1), (cab_rear - 0.4, W / 2, H))
    trailer.box(TRIM, (r + 0.5, -W / 2 + 0.1, 0.6), (cab_rear - 0.4, W / 2 - 0.1, 1.1))
    trailer.box(TRIM, (cab_rear - 0.4, -W / 2 + 0.2, 0.6), (cab_rear, W / 2 - 0.2, 1.0))
    m.node("trailer", trailer)
    axles = [(f - 1.4, "f"), (cab_rear - 1.2, "r1"), (r + 2.6, "r2"), (r + 1.3, "r3")]
    add_wheels(m, axles, W - 0.4, 0.52, 0.4)
    add_lamps(m, L, W, 0.75, 0.85)
    return m


def tractor():
    """A farm tractor (3.8 x 2.2 x 2.6 m, as rural.json's): bonnet over the engine,
    a glass cab, big rear wheels and small steering front ones."""
    m = Model()
    L, W = 3.8, 2.2
    f, r = L / 2, -L / 2
    body = Mesh()
    green = (0.12, 0.40, 0.12)
    body.box(green, (0.0, -0.45, 0.55), (f - 0.05, 0.45, 1.45))  # engine and bonnet
    body.box(green, (r + 0.35, -0.6, 0.6), (0.05, 0.6, 1.25))     # under the cab
    body.box(green, (r + 0.3, -0.75, 2.5), (0.25, 0.75, 2.6))     # cab roof
    m.node("paint", body)
    bonnet = Mesh()
    bonnet.quad(green, (0.05, -0.45, 1.46), (f - 0.05, -0.45, 1.46), (f - 0.05, 0.45, 1.46), (0.05, 0.45, 1.46))
    m.node("bonnet", bonnet)
    glass = Mesh()
    glass.box(GLASS, (r + 0.35, -0.72, 1.25), (0.2, 0.72, 2.5))
    m.node("glass", glass)
    trim = Mesh()
    trim.box(TRIM, (f - 0.05, -0.4, 0.6), (f, 0.4, 1.35))          # grille
    trim.vcylinder(TRIM, (0.9, 0.3, 1.45), 0.05, 0.05, 0.9, 6)       # exhaust
    m.node("trim", trim)
    for x, tag, radius, width, track in ((1.25, "f", 0.45, 0.3, 1.6), (-1.05, "r", 0.8, 0.45, 1.7)):
        for side, sname in ((1, "l"), (-1, "r")):
            m.node("wheel_%s%s" % (tag, sname), wheel(radius, width), (x, side * track / 2, radius))
    add_lamps(m, L, 0.9, 1.2, 1.1)
    return m


def two_wheeler(length, height, radius, rider_colour, motor):
    """A bicycle or a motorcycle with its rider (the traffic node's 1.8 x 0.6 x 1.7 and
    2.2 x 0.8 x 1.4 m)."""
    m = Model()
    f, r = length / 2, -length / 2
    frame = Mesh()
    wx = f - radius
    if motor:
        frame.box(PAINT, (-0.45, -0.18, radius * 0.8), (0.45, 0.18, radius + 0.35))   # tank and engine
        frame.box(TRIM, (-0.75, -0.14, radius + 0.25), (-0.2, 0.14, radius + 0.38))   # seat
        frame.box(TRIM, (wx - 0.05, -0.03, radius), (wx + 0.05, 0.03, radius + 0.55))  # fork
    else:
        frame.prism(PAINT, [(-wx, radius), (0.0, radius), (wx - 0.1, radius + 0.45), (-0.2, radius + 0.45)],
                    -0.02, 0.02)
        frame.box(TRIM, (wx - 0.03, -0.02, radius), (wx + 0.03, 0.02, radius + 0.55))  # fork
    frame.box(TRIM, (wx - 0.1, -0.3, radius + 0.55), (wx - 0.05, 0.3, radius + 0.6))   # handlebar
    m.node("paint", frame)
    rider = Mesh()
    seat_z = radius + (0.38 if motor else 0.5)
    rider.box(rider_colour, (-0.35, -0.18, seat_z), (0.0, 0.18, seat_z + 0.6))          # torso
    rider.box((0.85, 0.70, 0.60), (-0.25, -0.1, seat_z + 0.6), (-0.05, 0.1, seat_z + 0.82))  # head
    rider.box((0.15, 0.15, 0.2), (-0.3, -0.17, seat_z - 0.45), (0.1, 0.17, seat_z))     # legs
    m.node("rider", rider)
    m.node("wheel_f", wheel(radius, 0.06 if not motor else 0.12), (wx, 0, radius))
    m.node("wheel_r", wheel(radius, 0.06 if not motor else 0.14), (-wx, 0, radius))
    return m


def pedestrian():
    """A person walking upright (SUMO's pedestrian: 0.22 x 0.48 x 1.72 m; the box is
    wider than deep, the shoulders)."""
    m = Model()
    body = Mesh()
    skin, coat, trousers, shoes = (0.85, 0.70, 0.60), (0.55, 0.20, 0.18), (0.18, 0.20, 0.28), (0.08, 0.08, 0.08)
    body.box(shoes, (-0.06, -0.16, 0.0), (0.12, -0.04, 0.07))      # feet
    body.box(shoes, (-0.06, 0.04, 0.0), (0.12, 0.16, 0.07))
    body.box(trousers, (-0.07, -0.15, 0.07), (0.07, -0.03, 0.86))  # legs
    body.box(trousers, (-0.07, 0.03, 0.07), (0.07, 0.15, 0.86))
    body.box(coat, (-0.1, -0.19, 0.86), (0.1, 0.19, 1.46))         # torso
    body.box(coat, (-0.06, -0.24, 0.9), (0.06, -0.19, 1.44))       # arms
    body.box(coat, (-0.06, 0.19, 0.9), (0.06, 0.24, 1.44))
    body.box(skin, (-0.05, -0.05, 1.46), (0.05, 0.05, 1.52))       # neck
    body.box(skin, (-0.1, -0.09, 1.52), (0.1, 0.09, 1.72))         # head
    m.node("body", body)
    return m


def tree():
    m = Model()
    trunk = Mesh()
    trunk.vcylinder((0.30, 0.20, 0.12), (0, 0, 0), 0.18, 0.12, 2.2, 8)
    m.node("trunk", trunk)
    crown = Mesh()
    green = (0.13, 0.33, 0.12)
    crown.vcylinder(green, (0, 0, 1.6), 2.2, 0, 3.4, 10)
    crown.vcylinder((0.11, 0.29, 0.10), (0, 0, 3.2), 1.7, 0, 2.8, 10)
    crown.vcylinder(green, (0, 0, 4.7), 1.1, 0, 2.3, 10)
    m.node("crown", crown)
    return m


def building():
    m = Model()
    L, W, H = 14.0, 10.0, 9.0  # three storeys
    walls = Mesh()
    walls.box((0.72, 0.66, 0.56), (-L / 2, -W / 2, 0), (L / 2, W / 2, H))
    m.node("walls", walls)
    roof = Mesh()
    roof.prism((0.45, 0.18, 0.12), [(-L / 2 - 0.3, H), (L / 2 + 0.3, H), (L / 2 + 0.3, H + 0.01),
                                    (-L / 2 - 0.3, H + 0.01)], -W / 2 - 0.3, W / 2 + 0.3)
    # a pitched roof: two slopes over the long side
    ridge = H + 3.0
    for s in (1, -1):
        a, b = (-L / 2 - 0.3, s * (W / 2 + 0.3), H), (L / 2 + 0.3, s * (W / 2 + 0.3), H)
        c, d = (L / 2 + 0.3, 0, ridge), (-L / 2 - 0.3, 0, ridge)
        roof.quad((0.45, 0.18, 0.12), *((a, b, c, d) if s < 0 else (b, a, d, c)))
    for s in (1, -1):
        x = s * L / 2
        p = [(x, -W / 2, H), (x, W / 2, H), (x, 0, ridge)]
        roof.tri((0.72, 0.66, 0.56), *(p if s > 0 else p[::-1]))
    m.node("roof", roof)
    windows = Mesh()
    win = (0.14, 0.17, 0.22)
    for floor in range(3):
        z0 = 0.9 + floor * 3.0
        for k in range(5):
            x0 = -L / 2 + 1.2 + k * 2.6
            for s in (1, -1):
                y = s * (W / 2 + 0.01)
                p = [(x0, y, z0), (x0 + 1.4, y, z0), (x0 + 1.4, y, z0 + 1.5), (x0, y, z0 + 1.5)]
                windows.quad(win, *(p[::-1] if s > 0 else p))
    windows.quad((0.30, 0.20, 0.15), (-1, -W / 2 - 0.02, 0), (1, -W / 2 - 0.02, 0), (1, -W / 2 - 0.02, 2.3),
                 (-1, -W / 2 - 0.02, 2.3))  # the door
    m.node("windows", windows)
    return m


def cockpit():
    """The ego car's interior seen from the driver's seat of vehicles/bmw-318i.json
    (eye 0.25 m behind and 1.15 m above the origin, 0.37 m left): the dashboard below
    the windscreen and the steering wheel. No pillars: they would take part of the
    view that the tests and the studies count on (sky above the horizon, signs)."""
    m = Model()
    dash = Mesh()
    dark = (0.06, 0.06, 0.07)
    dash.prism(dark, [(0.05, 0.55), (0.72, 0.55), (0.72, 0.90), (0.45, 0.95), (0.2, 0.95)], -0.85, 0.85)
    dash.box((0.10, 0.10, 0.11), (0.15, 0.22, 0.95), (0.35, 0.52, 1.0))  # instrument hood
    m.node("dashboard", dash)
    wheel_m = Mesh()
    ring = 0.19
    cx, cy, cz = 0.02, 0.37, 0.88
    tilt = math.radians(25)
    n = 16
    for k in range(n):  # a ring of boxes, tilted back with the column
        t0 = 2 * math.pi * k / n
        t1 = 2 * math.pi * (k + 1) / n
        for t in (t0,):
            y = cy + ring * math.cos(t)
            up = ring * math.sin(t)
            x = cx - up * math.sin(tilt)
            z = cz + up * math.cos(tilt)
            yn = cy + ring * math.cos(t1)
            upn = ring * math.sin(t1)
            xn = cx - upn * math.sin(tilt)
            zn = cz + upn * math.cos(tilt)
            h = 0.018
            wheel_m.quad(dark, (x - h, y, z + h), (xn - h, yn, zn + h), (xn + h, yn, zn - h), (x + h, y, z - h))
            wheel_m.quad(dark, (x + h, y, z - h), (xn + h, yn, zn - h), (xn - h, yn, zn + h), (x - h, y, z + h))
    wheel_m.box(dark, (cx - 0.02, cy - ring, cz - 0.02), (cx + 0.02, cy + ring, cz + 0.02))
    m.node("steering_wheel", wheel_m)
    return m


MODELS = {
    # name: (builder, what it is); sizes match the traffic node's types (docs/traffic.md)
    "hatchback": lambda: car(4.0, 1.75, 1.48, 0.92, 0.82, 0.55, -0.15, -1.45, 1.02, -1.85, 2.5),
    "sedan": lambda: car(4.5, 1.8, 1.45, 0.90, 0.80, 0.80, 0.0, -1.2, 0.95, -1.75, 2.72),
    "estate": lambda: car(4.7, 1.8, 1.5, 0.92, 0.80, 0.85, 0.1, -2.2, 1.00, -2.3, 2.8),
    "suv": lambda: car(4.6, 1.9, 1.7, 1.08, 0.98, 0.75, 0.05, -2.0, 1.15, -2.22, 2.75, 0.36),
    "van": van,
    "bus": bus,
    "truck": truck,
    "tractor": tractor,
    "bicycle": lambda: two_wheeler(1.8, 1.7, 0.34, (0.15, 0.35, 0.65), False),
    "motorcycle": lambda: two_wheeler(2.2, 1.4, 0.31, (0.12, 0.12, 0.12), True),
    "pedestrian": pedestrian,
    "tree": tree,
    "building": building,
    "cockpit": cockpit,
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models")
    os.makedirs(out, exist_ok=True)
    for name, build in MODELS.items():
        size = build().write(os.path.join(out, name + ".glb"))
        print("%-10s %6d bytes" % (name, size))


if __name__ == "__main__":
    main()
