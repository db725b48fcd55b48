"""The picture of one solution: a title, its layers side by side, a 3-D view of a 3-D puzzle, a legend where needed.

**Layers** (:func:`layers_scene`).  A border is drawn wherever an edge of
a cell is not shared with a cell of the same piece (so between pieces and
around the outside); thin lines elsewhere show the cells.  Spheres are
drawn as circles, in the layers a person stacks
(:class:`~bench.drawing.geometry.Balls`), the balls of a piece that touch
within a layer joined by bars, so a piece reads as one shape.  Each piece
is named once per layer, on the cell nearest its middle.  Stationary
pieces (the parts of a box that are not the puzzle) are drawn pale and
unnamed, or not at all for spheres.

**Names.**  A piece is named in full where every name fits in a cell;
otherwise every piece gets the shortest beginning of its name that no other
name starts with (``LightGreen`` -> ``L``), and a legend under the picture
gives the full names beside their colours.

**3-D view** (:func:`isometric_scene`).  Cells are prisms (cubes, hexagonal
prisms) or balls in space (:meth:`~bench.drawing.geometry.Footprint.position`),
projected isometrically: the viewer stands in front (-y), turned
:attr:`~bench.drawing.geometry.Footprint.azimuth` degrees to the right (a
box is seen from its front right corner, along (-1, 1, -1), the x axis
running to the lower right; a pile of balls nearly from the front), and
looks down at the isometric angle.  Shapes are drawn far to near (painter's order by depth along
the view), which is exact for cells of one lattice that do not overlap;
faces shared by two cells are never drawn, so only the outside of the
assembly shows.  Side faces are shaded by how squarely they face the light
(from the upper left), balls by a radial gradient.  Stationary pieces are
left out.
"""

from __future__ import annotations

import math

import numpy as np

from bench.drawing.colours import STATIONARY, piece_colours, shade, text_colour
from bench.drawing.geometry import Footprint, footprint
from bench.drawing.scene import Circle, Line, Polygon, Scene, Text
from bench.drawing.solution import Solution
from bench.models.lattice import get_lattice

TITLE = 20.0
GAP = 28.0
MARGIN = 6.0
BORDER = 2.6
GRID = 0.6
LAYER_GAP = 22.0
CAPTION = 16.0
MIN_LABEL = 9.5
GLYPH = 0.6
"""An average glyph of a sans-serif font is at most about this share of its size wide."""
LEGEND_ROW = 22.0
VIEW_MARGIN = 8.0
ELEVATION = math.atan(1 / math.sqrt(2))  # the isometric angle, 35.26 degrees
LIGHT = np.array([-0.6, -0.8])  # in the plane, where side faces are lit from


def draw(solution: Solution) -> Scene:
    """The :class:`~bench.drawing.scene.Scene` of ``solution``; write it with :func:`~bench.drawing.scene.to_svg`.

    Examples
    --------
    >>> import bench
    >>> from bench.drawing.scene import to_svg
    >>> [p] = bench.load("defs/dominoes_4x4.txt")
    >>> cover = bench.Cover.from_puzzle(p)
    >>> svg = to_svg(draw(Solution.from_cover(cover, [0, 5, 10, 15, 16, 19, 22, 23])))  # doctest: +SKIP
    """
    stationary = {p.name for p in solution.pieces if p.stationary}
    colours = piece_colours(solution.names, stationary)
    mobile = [p for p in solution.pieces if not p.stationary]
    foot = footprint(solution.lattice).fitted(np.vstack([p.cells for p in mobile]) if mobile else [])
    labels = piece_labels([p.name for p in mobile], foot)
    layers = layers_scene(solution, foot, colours, labels)
    out = Scene(title=solution.title)
    top = TITLE if solution.title else 0.0
    if solution.title:
        out.add(Text(6.0, TITLE / 2 + 2, solution.title, 13.0, "#222222", "title", anchor="start"))
    out.place(layers, 0.0, top)
    if solution.three_d:
        view = isometric_scene(solution, foot, colours)
        out.place(view, layers.width + GAP, top + max(0.0, (layers.height - view.height) / 2))
    if any(labels[name] != name for name in labels):
        out.place(legend_scene(labels, colours, foot, max(out.width, 240.0)), 0.0, out.height + 4.0)
    if solution.title:
        out.width = max(out.width, text_width(solution.title, 13.0) + 12.0)
    return out


def text_width(text: str, size: float) -> float:
    """Room enough for ``text`` at ``size`` pixels in a sans-serif font."""
    return GLYPH * size * len(text)


def piece_labels(names: list[str], foot: Footprint) -> dict[str, str]:
    """Each piece's label: its name where every name fits in a cell, else the shortest unambiguous beginning.

    >>> from bench.drawing.geometry import Balls
    >>> piece_labels(["Blue", "Black", "LightGreen", "L"], Balls())
    {'Blue': 'Blu', 'Black': 'Bla', 'LightGreen': 'Li', 'L': 'L'}
    >>> piece_labels(["F", "I", "L"], Balls())
    {'F': 'F', 'I': 'I', 'L': 'L'}
    """
    room = int(foot.label_width * foot.pixels // (GLYPH * MIN_LABEL))
    if all(len(name) <= room for name in names):
        return {name: name for name in names}
    labels = {}
    for name in names:
        others = [other for other in names if other != name]
        labels[name] = next((name[:k] for k in range(1, len(name) + 1)
                             if all(other[:k] != name[:k] for other in others)), name)
    return labels


def _edge_key(a, b) -> tuple:
    # both ends rounded, in order, so the two cells sharing an edge give the same key
    pa, pb = (round(float(a[0]), 4), round(float(a[1]), 4)), (round(float(b[0]), 4), round(float(b[1]), 4))
    return (pa, pb) if pa <= pb else (pb, pa)


SEAM = "#d62728"
"""The colour of a wrapped board's seams: thick where two pieces meet across one, thin where a piece crosses it."""


def _shared_sides(foot: Footprint, cell, other) -> list[tuple]:
    """The sides of ``other``'s outline that ``cell``'s outline also has, as ``(a, b)`` in ``other``'s order."""
    outline = foot.outline(cell)
    mine = {_edge_key(a, b) for a, b in zip(outline, np.roll(outline, -1, axis=0))}
    theirs = foot.outline(other)
    return [(a, b) for a, b in zip(theirs, np.roll(theirs, -1, axis=0)) if _edge_key(a, b) in mine]


def seam_edges(solution: Solution, foot: Footprint, cells: list[tuple]) -> list[tuple]:
    """The edges along a wrapped board's seams: ``(a, b, same)``, the edge's ends and whether one piece lies on both sides.

    A cell whose neighbour lies past a wrapped side of the box shares an
    edge with that neighbour's drawing outside the box; the cell there, taken
    round, is the one that really touches it.  On a graph board the seams are
    the graph's edges the plane does not draw (:attr:`Solution.seams`).
    """
    if not (solution.wrap or solution.seams) or foot.radius is not None:
        return []
    owner = {tuple(int(c) for c in cell): name for name, cell in cells}
    out = []
    if solution.seams:
        for a, ghost, b in solution.seams:
            if a in owner:
                same = owner.get(b) == owner[a]
                out.extend((p, q, same) for p, q in _shared_sides(foot, np.array(a), np.array(ghost)))
        return out
    lattice = get_lattice(solution.lattice)
    grid = np.array(lattice.grid_shape(solution.dims), dtype=np.int64)
    wrap = np.array(["xyz"[a] in solution.wrap for a in range(3)])
    for name, cell in cells:
        for n in lattice.neighbours([cell])[0]:
            outside = (n < 0) | (n >= grid)
            if not outside.any() or np.any(outside & ~wrap) or not lattice.valid([n])[0]:
                continue
            partner = owner.get(tuple(int(c) for c in np.where(wrap, n % grid, n)))
            out.extend((a, b, partner == name) for a, b in _shared_sides(foot, cell, n))
    return out


def layer_scene(cells: list[tuple], foot: Footprint, colours: dict[str, str], labels: dict[str, str],
                bounds: tuple[float, float, float, float], neighbours, seams=()) -> Scene:
    """One layer's cells ``(piece name, cell)`` drawn in the plane box ``bounds = (umin, vmin, umax, vmax)``.

    ``neighbours`` are the lattice's offsets between touching cells (the bars joining a piece's balls).
    """
    scale = foot.pixels
    umin, vmin, umax, vmax = bounds
    scene = Scene(width=(umax - umin) * scale + 2 * MARGIN, height=(vmax - vmin) * scale + 2 * MARGIN)

    def px(u, v):
        return MARGIN + (u - umin) * scale, MARGIN + (vmax - v) * scale

    def fill_of(name):
        return colours[name] if name in labels else STATIONARY

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
        seam_keys = {_edge_key(a, b) for a, b, _ in seams}
        for key, names in owners.items():
            if (len(names) == 1 or names[0] != names[1]) and key not in seam_keys:
                (x1, y1), (x2, y2) = ends[key]
                scene.add(Line(x1, y1, x2, y2, "#111111", BORDER))
        for a, b, same in seams:
            (x1, y1), (x2, y2) = px(*a), px(*b)
            scene.add(Line(x1, y1, x2, y2, SEAM, BORDER / 3 if same else BORDER, "seam"))
    else:
        centres = {tuple(int(c) for c in cell): (name, px(*foot.centre(cell))) for name, cell in cells}
        for cell, (name, (x, y)) in centres.items():
            for offset in neighbours:
                other = centres.get(tuple(c + d for c, d in zip(cell, offset)))
                # each bar once, from the lesser end
                if other is not None and other[0] == name and name in labels and other[1] > (x, y):
                    scene.add(Line(x, y, other[1][0], other[1][1], shade(fill_of(name), 0.5), 0.5 * foot.radius * scale,
                                   "bond"))
        for cell, (name, (x, y)) in centres.items():
            # a little smaller than touching, so the bars that join a piece's balls show between them
            scene.add(Circle(x, y, foot.radius * scale * 0.8, fill_of(name), "#222222", 1.2, False, "cell", name))
    _labels(scene, [(name, cell) for name, cell in cells if name in labels], foot, px, colours, labels)
    return scene


def _labels(scene, cells, foot, px, colours, labels) -> None:
    by_piece: dict[str, list] = {}
    for name, cell in cells:
        by_piece.setdefault(name, []).append(cell)
    scale = foot.pixels
    for name, members in by_piece.items():
        centres = np.array([foot.centre(c) for c in members])
        middle = centres.mean(axis=0)
        u, v = centres[int(np.argmin(((centres - middle) ** 2).sum(axis=1)))]
        x, y = px(u, v)
        label = labels[name]
        size = max(MIN_LABEL, min(0.42 * scale, foot.label_width * scale / (GLYPH * len(label))))
        scene.add(Text(x, y, label, size, text_colour(colours[name]), "label", bold=True))


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


def layers_scene(solution: Solution, foot: Footprint, colours: dict[str, str], labels: dict[str, str]) -> Scene:
    """Every layer of ``solution`` side by side, bottom first, each captioned in a 3-D puzzle."""
    by_layer: dict[int, list] = {}
    for piece in solution.pieces:
        if piece.stationary and not foot.shows_stationary:
            continue
        for cell in piece.cells:
            by_layer.setdefault(foot.layer(cell), []).append((piece.name, cell))
    all_cells = [cell for members in by_layer.values() for _, cell in members]
    bounds = plane_bounds(foot, all_cells) if all_cells else (0.0, 0.0, 1.0, 1.0)
    # the bars joining a piece's touching balls; polygons show their pieces by borders instead
    neighbours = get_lattice(solution.lattice).offsets if foot.radius is not None else ()
    out = Scene()
    x = 0.0
    captions = solution.three_d
    for z in sorted(by_layer):
        seams = seam_edges(solution, foot, by_layer[z])
        scene = layer_scene(by_layer[z], foot, colours, labels, bounds, neighbours, seams)
        out.place(scene, x, 0.0)
        if captions:
            out.add(Text(x + scene.width / 2, scene.height + CAPTION / 2, foot.caption(z, len(by_layer)), 12.0,
                         "#333333", "caption"))
        x += scene.width + LAYER_GAP
    if captions:
        out.height += CAPTION
    if solution.wrap:
        sides = {"x": "the left and right sides", "y": "the top and bottom"}
        if len(solution.wrap) == 2:
            text = f"a torus: {sides['x']} are one seam, {sides['y']} another (red)"
        else:
            text = f"a cylinder: {sides[solution.wrap]} are one seam (red)"
    elif solution.seams:
        text = "a board given as a graph: a red side is joined to another cell (a seam)"
    if solution.wrap or solution.seams:
        out.add(Text(MARGIN, out.height + CAPTION / 2, text, 12.0, SEAM, "caption", anchor="start"))
        out.height += CAPTION
        out.width = max(out.width, text_width(text, 12.0) + 2 * MARGIN)
    return out


def legend_scene(labels: dict[str, str], colours: dict[str, str], foot: Footprint, width: float) -> Scene:
    """The full names beside their colours and labels, in rows no wider than ``width``."""
    out = Scene()
    x = y = 0.0
    r = LEGEND_ROW / 2 - 2
    for name in sorted(labels, key=str.lower):
        entry = 2 * r + 6 + text_width(name, 11.0) + 16
        if x > 0 and x + entry > width:
            x, y = 0.0, y + LEGEND_ROW
        cx, cy = MARGIN + x + r, y + LEGEND_ROW / 2
        if foot.radius is None:
            out.add(Polygon(((cx - r, cy - r), (cx + r, cy - r), (cx + r, cy + r), (cx - r, cy + r)), colours[name],
                            "#222222", 1.0, "swatch", name))
        else:
            out.add(Circle(cx, cy, r, colours[name], "#222222", 1.0, False, "swatch", name))
        out.add(Text(cx, cy, labels[name], min(11.0, 2 * r / (GLYPH * len(labels[name]))), text_colour(colours[name]),
                     "legend-label", bold=True))
        out.add(Text(cx + r + 6, cy, name, 11.0, "#222222", "legend", anchor="start"))
        x += entry
        out.width = max(out.width, MARGIN + x)
    out.height = y + LEGEND_ROW
    return out


def project(points: np.ndarray, azimuth: float = 45.0) -> np.ndarray:
    """``float[n, 2]`` screen coordinates (y down, in plane units) of ``float[n, 3]`` points.

    The viewer stands in front (towards -y), turned ``azimuth`` degrees to the right, and looks down at
    the isometric angle.
    """
    a = math.radians(azimuth)
    across = points[:, 0] * math.cos(a) + points[:, 1] * math.sin(a)
    towards = points[:, 0] * math.sin(a) - points[:, 1] * math.cos(a)
    down = towards * math.sin(ELEVATION) - points[:, 2] * math.cos(ELEVATION)
    return np.column_stack([across, down])


def depth(points: np.ndarray, azimuth: float = 45.0) -> np.ndarray:
    """Nearness to the viewer of ``float[n, 3]`` points (larger is nearer)."""
    a = math.radians(azimuth)
    towards = points[:, 0] * math.sin(a) - points[:, 1] * math.cos(a)
    return towards * math.cos(ELEVATION) + points[:, 2] * math.sin(ELEVATION)


def isometric_scene(solution: Solution, foot: Footprint, colours: dict[str, str]) -> Scene:
    """The 3-D view of ``solution``'s mobile pieces."""
    cells = [(p.name, cell) for p in solution.pieces if not p.stationary for cell in p.cells]
    shapes: list[tuple[float, object]] = []  # (depth, shape in plane units)
    if foot.radius is None:
        # the horizontal direction towards the viewer: faces turned away from it are hidden
        towards = np.array([math.sin(math.radians(foot.azimuth)), -math.cos(math.radians(foot.azimuth))])
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
                if normal @ towards <= 1e-9 or sides[key] > 1:
                    continue
                quad = np.array([[*a, z0], [*b, z0], [*b, z1], [*a, z1]])
                light = 0.62 + 0.25 * float(normal @ LIGHT)
                faces.append(Polygon(tuple(map(tuple, project(quad, foot.azimuth))), shade(colour, light), "#1a1a1a",
                                     0.8, "face", name))
            if (foot.layer(cell) + 1, tuple(np.round(foot.centre(cell), 4))) not in tops:
                top = np.column_stack([poly, np.full(len(poly), z1)])
                faces.append(Polygon(tuple(map(tuple, project(top, foot.azimuth))), shade(colour, 1.08), "#1a1a1a",
                                     0.8, "face", name))
            d = float(depth(centre[None], foot.azimuth)[0])
            shapes.extend((d, face) for face in faces)
    else:
        for name, cell in cells:
            centre = foot.position(cell)
            x, y = project(centre[None], foot.azimuth)[0]
            shapes.append((float(depth(centre[None], foot.azimuth)[0]), Circle(x, y, foot.radius * 0.95, colours[name], "#333333",
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
    scene = Scene(width=(max(xs) - x0) * scale + 2 * VIEW_MARGIN, height=(max(ys) - y0) * scale + 2 * VIEW_MARGIN)

    def px(x, y):
        return VIEW_MARGIN + (x - x0) * scale, VIEW_MARGIN + (y - y0) * scale

    for s in shapes:
        if isinstance(s, Polygon):
            scene.add(Polygon(tuple(px(*p) for p in s.points), s.fill, s.stroke, s.width, s.role, s.title))
        else:
            x, y = px(s.x, s.y)
            scene.add(Circle(x, y, s.r * scale, s.fill, s.stroke, s.width, s.shaded, s.role, s.title))
    return scene
