"""The layers of a solution side by side: coloured cells, thick borders between pieces, piece names.

A border is drawn wherever an edge of a cell is not shared with a cell of
the same piece (so between pieces and around the outside), thin lines
elsewhere show the cells.  Spheres are drawn as circles, the pieces'
touching neighbours in a layer joined by bars, so a piece reads as one
shape.  Each piece is named once per layer, on the cell nearest its
middle.  Stationary pieces (the parts of a box that are not the puzzle)
are drawn pale and unnamed.
"""

from __future__ import annotations

import numpy as np

from bench.drawing.colours import STATIONARY, shade, text_colour
from bench.drawing.geometry import Footprint, footprint
from bench.drawing.scene import Circle, Line, Polygon, Scene, Text

MARGIN = 6.0
BORDER = 2.6
GRID = 0.6
LAYER_GAP = 22.0
CAPTION = 16.0
MIN_LABEL = 9.5


def _edge_key(a, b) -> tuple:
    # both ends rounded, in order, so the two cells sharing an edge give the same key
    pa, pb = (round(float(a[0]), 4), round(float(a[1]), 4)), (round(float(b[0]), 4), round(float(b[1]), 4))
    return (pa, pb) if pa <= pb else (pb, pa)


def layer_scene(cells: list[tuple], foot: Footprint, colours: dict[str, str], stationary: set[str],
                bounds: tuple[float, float, float, float]) -> Scene:
    """One layer's cells ``(piece name, cell)`` drawn in the plane box ``bounds = (umin, vmin, umax, vmax)``."""
    scale = foot.pixels
    umin, vmin, umax, vmax = bounds
    scene = Scene(width=(umax - umin) * scale + 2 * MARGIN, height=(vmax - vmin) * scale + 2 * MARGIN)

    def px(u, v):
        return MARGIN + (u - umin) * scale, MARGIN + (vmax - v) * scale

    def fill_of(name):
        return STATIONARY if name in stationary else colours[name]

    if foot.radius is None:
        owners: dict[tuple, list[str]] = {}
        ends: dict[tuple, tuple] = {}
        for name, cell in cells:
            poly = foot.outline(cell)
            scene.add(Polygon(tuple(px(u, v) for u, v in poly), fill_of(name), shade(fill_of(name), 0.7), GRID,
                              "cell", name))
            for a, b in zip(poly, np.roll(poly, -1, axis=0)):
                key = _edge_key(a, b)
                owners.setdefault(key, []).append(name)
                ends[key] = (px(*a), px(*b))
        for key, names in owners.items():
            if len(names) == 1 or names[0] != names[1]:
                (x1, y1), (x2, y2) = ends[key]
                scene.add(Line(x1, y1, x2, y2, "#111111", BORDER))
    else:
        centres = {tuple(int(c) for c in cell): (name, px(*foot.centre(cell))) for name, cell in cells}
        for cell, (name, (x, y)) in centres.items():
            # the in-layer neighbours of a sphere are (+-1, +-1); each bar once, from its left end
            for dx, dy in ((1, 1), (1, -1)):
                other = centres.get((cell[0] + dx, cell[1] + dy, cell[2]))
                if other is not None and other[0] == name and name not in stationary:
                    scene.add(Line(x, y, other[1][0], other[1][1], shade(fill_of(name), 0.5), 0.5 * foot.radius * scale,
                                   "bond"))
        for cell, (name, (x, y)) in centres.items():
            # a little smaller than touching, so the bars that join a piece's balls show between them
            scene.add(Circle(x, y, foot.radius * scale * 0.8, fill_of(name), "#222222", 1.2, False, "cell", name))
    _labels(scene, [(name, cell) for name, cell in cells if name not in stationary], foot, px, fill_of, scale)
    return scene


def _labels(scene, cells, foot, px, fill_of, scale) -> None:
    by_piece: dict[str, list] = {}
    for name, cell in cells:
        by_piece.setdefault(name, []).append(cell)
    for name, members in by_piece.items():
        centres = np.array([foot.centre(c) for c in members])
        middle = centres.mean(axis=0)
        u, v = centres[int(np.argmin(((centres - middle) ** 2).sum(axis=1)))]
        x, y = px(u, v)
        # long names may overflow their cell rather than shrink below legibility; the halo keeps them readable
        size = max(MIN_LABEL, min(0.42 * scale, 1.6 * scale / max(len(name), 1)))
        scene.add(Text(x, y, name, size, text_colour(fill_of(name)), "label", bold=True))


def plane_bounds(foot: Footprint, cells) -> tuple[float, float, float, float]:
    """The smallest plane box around the drawn shapes of ``cells``."""
    points = []
    for cell in cells:
        poly = foot.outline(cell)
        if poly is None:
            u, v = foot.centre(cell)
            r = foot.radius
            poly = np.array([[u - r, v - r], [u + r, v + r]])
        points.append(poly)
    allp = np.vstack(points)
    return float(allp[:, 0].min()), float(allp[:, 1].min()), float(allp[:, 0].max()), float(allp[:, 1].max())


def layers_scene(solution, colours: dict[str, str]) -> Scene:
    """Every layer of ``solution`` side by side, bottom first, each captioned with its z in a 3-D puzzle."""
    foot = footprint(solution.lattice)
    stationary = {p.name for p in solution.pieces if p.stationary}
    by_layer: dict[int, list] = {}
    for piece in solution.pieces:
        for cell in piece.cells:
            by_layer.setdefault(foot.layer(cell), []).append((piece.name, cell))
    all_cells = [cell for members in by_layer.values() for _, cell in members]
    bounds = plane_bounds(foot, all_cells) if all_cells else (0.0, 0.0, 1.0, 1.0)
    out = Scene()
    x = 0.0
    captions = solution.three_d
    for z in sorted(by_layer):
        scene = layer_scene(by_layer[z], foot, colours, stationary, bounds)
        out.place(scene, x, 0.0)
        if captions:
            out.add(Text(x + scene.width / 2, scene.height + CAPTION / 2, f"z = {z}", 12.0, "#333333", "caption"))
        x += scene.width + LAYER_GAP
    if captions:
        out.height += CAPTION
    return out
