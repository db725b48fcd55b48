"""The shaded 3-D view of a 3-D solution, seen from the front right, above.

Cells are prisms (cubes, hexagonal prisms) or balls in space
(:meth:`~bench.drawing.geometry.Footprint.position`), projected
isometrically: the viewer looks along (-1, 1, -1) from (+x, -y, +z),
so the front row y = 0 is nearest and the x axis runs to the lower right.
Shapes are drawn far to near (painter's order by depth along the view),
which is exact for cells of one lattice that do not overlap; faces shared
by two cells are never drawn, so only the outside of the assembly shows.
Side faces are shaded by how squarely they face the light (from the upper
left), balls by a radial gradient.  Stationary pieces are left out: they
are the parts of the box that are not the puzzle.
"""

from __future__ import annotations

import math

import numpy as np

from bench.drawing.colours import shade
from bench.drawing.geometry import footprint
from bench.drawing.scene import Circle, Polygon, Scene

MARGIN = 8.0
ELEVATION = math.atan(1 / math.sqrt(2))  # the isometric angle, 35.26 degrees
SIDE = np.array([1.0, -1.0]) / math.sqrt(2)  # horizontal direction towards the viewer
LIGHT = np.array([-0.6, -0.8])  # in the plane, where side faces are lit from


def project(points: np.ndarray) -> np.ndarray:
    """``float[n, 2]`` screen coordinates (y down, in plane units) of ``float[n, 3]`` points."""
    across = (points[:, 0] + points[:, 1]) / math.sqrt(2)
    towards = points[:, :2] @ SIDE
    down = towards * math.sin(ELEVATION) - points[:, 2] * math.cos(ELEVATION)
    return np.column_stack([across, down])


def depth(points: np.ndarray) -> np.ndarray:
    """Nearness to the viewer of ``float[n, 3]`` points (larger is nearer)."""
    return (points[:, :2] @ SIDE) * math.cos(ELEVATION) + points[:, 2] * math.sin(ELEVATION)


def isometric_scene(solution, colours: dict[str, str]) -> Scene:
    """The 3-D view of ``solution``'s mobile pieces."""
    foot = footprint(solution.lattice)
    cells = [(p.name, cell) for p in solution.pieces if not p.stationary for cell in p.cells]
    shapes: list[tuple[float, object]] = []  # (depth, shape in plane units)
    if foot.radius is None:
        tops = {(foot.layer(c), tuple(np.round(foot.centre(c), 4))) for _, c in cells}
        sides: dict[tuple, int] = {}
        outlines = []
        for name, cell in cells:
            poly = foot.outline(cell)
            z0 = foot.layer(cell) * foot.height
            outlines.append((name, cell, poly, z0))
            for a, b in zip(poly, np.roll(poly, -1, axis=0)):
                key = (foot.layer(cell), *sorted([tuple(np.round(a, 4)), tuple(np.round(b, 4))]))
                sides[key] = sides.get(key, 0) + 1
        for name, cell, poly, z0 in outlines:
            z1 = z0 + foot.height
            colour = colours[name]
            centre = np.array([*poly.mean(axis=0), z0 + foot.height / 2])
            faces = []
            for a, b in zip(poly, np.roll(poly, -1, axis=0)):
                normal = np.array([b[1] - a[1], a[0] - b[0]])
                normal /= np.linalg.norm(normal)
                key = (foot.layer(cell), *sorted([tuple(np.round(a, 4)), tuple(np.round(b, 4))]))
                if normal @ SIDE <= 1e-9 or sides[key] > 1:
                    continue
                quad = np.array([[*a, z0], [*b, z0], [*b, z1], [*a, z1]])
                light = 0.62 + 0.25 * float(normal @ LIGHT)
                faces.append(Polygon(tuple(map(tuple, project(quad))), shade(colour, light), "#1a1a1a", 0.8, "face", name))
            if (foot.layer(cell) + 1, tuple(np.round(foot.centre(cell), 4))) not in tops:
                top = np.column_stack([poly, np.full(len(poly), z1)])
                faces.append(Polygon(tuple(map(tuple, project(top))), shade(colour, 1.08), "#1a1a1a", 0.8, "face", name))
            d = float(depth(centre[None])[0])
            shapes.extend((d, face) for face in faces)
    else:
        for name, cell in cells:
            centre = foot.position(cell)
            x, y = project(centre[None])[0]
            shapes.append((float(depth(centre[None])[0]), Circle(x, y, foot.radius * 0.95, colours[name], "#333333",
                                                                 0.6, True, "ball", name)))
    shapes.sort(key=lambda pair: pair[0])
    return _to_pixels([s for _, s in shapes], foot.pixels * 0.9)


def _to_pixels(shapes: list, scale: float) -> Scene:
    xs, ys = [], []
    for s in shapes:
        if isinstance(s, Polygon):
            xs += [p[0] for p in s.points]
            ys += [p[1] for p in s.points]
        else:
            xs += [s.x - s.r, s.x + s.r]
            ys += [s.y - s.r, s.y + s.r]
    if not shapes:
        return Scene()
    x0, y0 = min(xs), min(ys)
    scene = Scene(width=(max(xs) - x0) * scale + 2 * MARGIN, height=(max(ys) - y0) * scale + 2 * MARGIN)

    def px(x, y):
        return MARGIN + (x - x0) * scale, MARGIN + (y - y0) * scale

    for s in shapes:
        if isinstance(s, Polygon):
            scene.add(Polygon(tuple(px(*p) for p in s.points), s.fill, s.stroke, s.width, s.role, s.title))
        else:
            x, y = px(s.x, s.y)
            scene.add(Circle(x, y, s.r * scale, s.fill, s.stroke, s.width, s.shaded, s.role, s.title))
    return scene
