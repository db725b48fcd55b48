"""Where each lattice's cells are drawn: the layer a cell lies in, its 2-D shape there, and its place in space.

Plane coordinates ``(u, v)`` have v pointing up.  Each lattice names its
:class:`Footprint` in its description: one of :data:`STYLES`, or
``polygons`` (:class:`Polygons`), the corners of each cell type.  Cubes, hexagonal prisms and the flat
lattices are drawn by their z layers, one unit per cell edge.  Spheres are
drawn by the layers a person stacks (:class:`Balls`): the square or
triangular layers of the packing, bottom first, whichever way the puzzle's
open region stands as a pile (a tetrahedron of balls on a triangular face,
a square pyramid on its square base), one unit per ball diameter.
"""

from __future__ import annotations

import math

import numpy as np

SQRT2 = math.sqrt(2.0)
SQRT3 = math.sqrt(3.0)


class Footprint:
    """The drawn shape of one lattice's cells.

    ``outline`` gives a polygon (counter-clockwise, v up) per cell; lattices
    of spheres return None there and give ``radius`` instead.  ``height`` is
    the thickness of a layer in the 3-D view.  ``shows_stationary`` says
    whether stationary cells are drawn (pale) in the layers.
    """

    radius: float | None = None
    height: float = 1.0
    pixels: float = 30.0
    """Pixels per unit: cells of every lattice come out about 30 pixels across."""
    label_width: float = 0.9
    """The width, in units, a piece's name may take inside one cell."""
    shows_stationary: bool = True
    azimuth: float = 45.0
    """Degrees the 3-D view turns from the front (-y) to the right: a box is seen from its front right corner."""

    def fitted(self, cells) -> "Footprint":
        """The footprint for drawing a solution whose open cells are ``cells`` (``int[n, 3]``)."""
        return self

    def layer(self, cell) -> int:
        """The layer a cell is drawn in (its z), counted from 0 at the bottom."""
        return int(cell[2])

    def caption(self, layer: int, layers: int) -> str:
        """The caption under layer ``layer`` of ``layers``."""
        return f"z = {layer}"

    def outline(self, cell) -> np.ndarray | None:
        """``float[k, 2]``: the cell's polygon in its layer, or None for a sphere."""
        raise NotImplementedError

    def centre(self, cell) -> np.ndarray:
        """``float[2]``: the middle of the cell in its layer."""
        return self.outline(cell).mean(axis=0)

    def position(self, cell) -> np.ndarray:
        """``float[3]``: the cell's place in space (the bottom of a prism, the centre of a ball)."""
        u, v = self.centre(cell)
        return np.array([u, v, self.layer(cell) * self.height])


class Square(Footprint):
    """Unit squares (and cubes) at integer ``x y``."""

    def outline(self, cell):
        x, y = float(cell[0]), float(cell[1])
        return np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]])


def _axial(a: float, b: float) -> tuple[float, float]:
    # the axial grid of hexagons and triangles: b's axis leans 60 degrees
    return a + b / 2.0, b * SQRT3 / 2.0


class Hexagon(Footprint):
    """Pointy-topped hexagons of edge 1/sqrt 3 at axial ``q r``, centres one unit apart; prisms in layers."""

    height = 0.8
    _CORNERS = np.array([[math.cos(math.radians(30 + 60 * k)), math.sin(math.radians(30 + 60 * k))]
                         for k in range(6)]) / SQRT3

    def centre(self, cell):
        return np.array(_axial(float(cell[0]), float(cell[1])))

    def outline(self, cell):
        return self.centre(cell) + self._CORNERS


class Triangle(Footprint):
    """The up (t = 0) and down (t = 1) triangles of the unit rhombus at ``x y``."""

    pixels = 38.0
    label_width = 0.5

    def outline(self, cell):
        x, y, t = (int(c) for c in cell)
        corners = [(x, y), (x + 1, y), (x, y + 1)] if t == 0 else [(x + 1, y), (x + 1, y + 1), (x, y + 1)]
        return np.array([_axial(a, b) for a, b in corners])

    def layer(self, cell):
        return 0

    def position(self, cell):
        u, v = self.centre(cell)
        return np.array([u, v, 0.0])


UPWARDS = ((0, 0, 1), (0, 0, -1), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0),
           (1, -1, 1), (-1, 1, -1), (-1, 1, 1), (1, -1, -1), (1, 1, 1), (-1, -1, -1), (1, 1, -1), (-1, -1, 1))
"""The ways a pile of fcc balls can stand, file's z first: square layers (across an axis) or triangular ones
(across a cube diagonal), each upwards or downwards."""
ROWS = ((1, 1, 0), (1, -1, 0), (1, 0, 1), (1, 0, -1), (0, 1, 1), (0, 1, -1))
"""Directions between touching balls; a layer's rows run along the first one that lies in the layer."""


class Balls(Footprint):
    """Spheres of the fcc packing (``x y z``, x + y + z even; touching balls sqrt 2 apart) in stacked layers.

    ``up`` is the direction the pile grows in (an entry of :data:`UPWARDS`):
    the layers are the planes across it, the first one at the bottom.  Units
    are ball diameters, so the balls of a layer are one unit apart.
    """

    radius = 0.5
    pixels = 40.0
    label_width = 0.8
    # nearly from the front, so a pile's front row faces the viewer and its top stands over the middle
    azimuth = 15.0
    # a sphere puzzle's stationary balls only cut its shape out of the box: nobody stacking it sees them
    shows_stationary = False

    def __init__(self, up=(0, 0, 1), levels=()):
        self.up = np.array(up, dtype=np.int64)
        self.levels = {int(h): k for k, h in enumerate(sorted(levels))}
        normal = self.up / np.linalg.norm(self.up)
        row = next(np.array(r, dtype=float) for r in ROWS if np.dot(r, self.up) == 0)
        self.axes = np.array([row / np.linalg.norm(row), np.cross(normal, row / np.linalg.norm(row)), normal])

    def fitted(self, cells):
        """The :class:`Balls` whose layers stack ``cells`` as a pile: each layer no larger than the one below.

        Among the ways to stand, a pile (layer sizes never growing upwards)
        beats anything else, then the largest bottom layer, then the fewest
        layers; ties go to the earlier entry of :data:`UPWARDS`.
        """
        cells = np.asarray(cells, dtype=np.int64).reshape(-1, 3)
        if not len(cells):
            return self

        def rank(k: int) -> tuple:
            levels, sizes = np.unique(cells @ np.array(UPWARDS[k]), return_counts=True)
            return (bool(np.any(np.diff(sizes) > 0)), -int(sizes[0]), len(levels), k)

        best = min(range(len(UPWARDS)), key=rank)
        up = UPWARDS[best]
        fitted = Balls(up, np.unique(cells @ np.array(up)).tolist())
        # turned in its plane (never mirrored) so that the bottom layer's longest row lies at the bottom
        bottom = cells[cells @ np.array(up) == min(fitted.levels)]
        v = np.round(bottom @ fitted.axes[1], 6)
        if np.sum(v == v.max()) > np.sum(v == v.min()):
            fitted.axes[:2] *= -1
        return fitted

    def layer(self, cell):
        return self.levels.get(int(np.dot(cell, self.up)), 0)

    def caption(self, layer, layers):
        where = " (bottom)" if layer == 0 and layers > 1 else " (top)" if layer == layers - 1 and layers > 1 else ""
        return f"layer {layer + 1}{where}"

    def outline(self, cell):
        return None

    def centre(self, cell):
        return self.axes[:2] @ np.asarray(cell, dtype=float) / SQRT2

    def position(self, cell):
        return self.axes @ np.asarray(cell, dtype=float) / SQRT2


class Polygons(Footprint):
    """Cells drawn as the polygons a lattice description gives (``[drawing]`` ``corners``), layer by layer.

    A cell ``(x, y, ...)`` of type t has the corners ``corners[t]`` shifted
    by ``(x, y)`` (in lattice units, fractions allowed), mapped to the page
    by ``plane`` (the page vectors of unit steps along x and y).  A flat
    lattice draws one layer; a 3-D one its z layers.
    """

    def __init__(self, lattice):
        self.lattice = lattice
        self.height = lattice.layer_height
        self.label_width = float(min(np.ptp(c[:, 0]) for c in lattice.corners.values()) * 0.6 or 0.5)

    def layer(self, cell):
        return 0 if self.lattice.flat else int(cell[2])

    def outline(self, cell):
        cell = np.asarray(cell, dtype=np.int64)
        t = self.lattice.types[int(self.lattice.type_of(cell[None, :])[0])]
        corners = self.lattice.corners[t] + np.asarray(cell[:2], dtype=float)[None, :]
        return corners @ self.lattice.plane

    def position(self, cell):
        u, v = self.centre(cell)
        return np.array([u, v, self.layer(cell) * self.height])


STYLES: dict[str, Footprint] = {"square": Square(), "hexagon": Hexagon(), "triangle": Triangle(), "balls": Balls()}
"""The drawing styles a lattice description may name (``[drawing]`` ``picture``), besides ``polygons``."""


def footprint(lattice: str) -> Footprint:
    """The footprint of the lattice called ``lattice`` (fit it to a solution with :meth:`Footprint.fitted`)."""
    from bench.models.lattice import LATTICES

    described = LATTICES[lattice]
    return Polygons(described) if described.picture == "polygons" else STYLES[described.picture]
