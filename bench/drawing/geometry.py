"""Where each lattice's cells are drawn: the 2-D shape of a cell in its layer, and its place in space.

Plane coordinates ``(u, v)`` have v pointing up and one unit per cell edge
(per sphere radius times sqrt 2 for ``fcc``), so a layer drawing and the
3-D view share one scale.  Each lattice has a :class:`Footprint`; adding a
lattice that draws differently is one subclass and one entry in
:data:`FOOTPRINTS`.
"""

from __future__ import annotations

import math

import numpy as np

SQRT3 = math.sqrt(3.0)


class Footprint:
    """The drawn shape of one lattice's cells.

    ``outline`` gives a polygon (counter-clockwise, v up) per cell; lattices
    of spheres return None there and give ``radius`` instead.  ``height`` is
    the thickness of a layer in the 3-D view.
    """

    radius: float | None = None
    height: float = 1.0
    pixels: float = 30.0
    """Pixels per unit: cells of every lattice come out about 30 pixels across."""

    def layer(self, cell) -> int:
        """The layer a cell is drawn in (its z)."""
        return int(cell[2])

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

    def outline(self, cell):
        x, y, t = (int(c) for c in cell)
        corners = [(x, y), (x + 1, y), (x, y + 1)] if t == 0 else [(x + 1, y), (x + 1, y + 1), (x, y + 1)]
        return np.array([_axial(a, b) for a, b in corners])

    def layer(self, cell):
        return 0

    def position(self, cell):
        u, v = self.centre(cell)
        return np.array([u, v, 0.0])


class Ball(Footprint):
    """Spheres of the fcc packing at ``x y z`` (x + y + z even): touching neighbours are sqrt 2 apart."""

    radius = math.sqrt(2.0) / 2.0
    pixels = 28.0

    def outline(self, cell):
        return None

    def centre(self, cell):
        return np.array([float(cell[0]), float(cell[1])])

    def position(self, cell):
        return np.array([float(cell[0]), float(cell[1]), float(cell[2])])


FOOTPRINTS: dict[str, Footprint] = {"cubic": Square(), "hex": Hexagon(), "triangle": Triangle(),
                                    "hexprism": Hexagon(), "fcc": Ball()}


def footprint(lattice: str) -> Footprint:
    """The footprint of the lattice called ``lattice``."""
    return FOOTPRINTS[lattice]
