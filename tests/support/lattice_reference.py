"""An independent brute-force tiling counter for the non-cubic lattices.

It is a test oracle for the definitions ``defs/*.txt`` whose ``D`` header
carries a ``lattice`` key (``hex``, ``triangle``, ``hexprism``, ``fcc``), and
for 3-D cubic puzzles given by ``C`` lines (no ``lattice`` key).
It does not import ``bench``: it reads the files itself (only the ``D``
header, ``C`` lines with ``type=S`` for stationary pieces, and ``~D``),
builds every lattice's motions from a Cartesian embedding of the cells,
enumerates every placement of every piece inside the open board, counts the
exact covers with a plain Algorithm X, and counts the solutions up to the
board's symmetry group, computed here from scratch.  Clarity comes before
speed, but the Meteor puzzle (2,098 solutions) takes well under a minute.

Coordinate conventions (the public interface of the definition files):

- ``hex``: a cell is ``q r 0`` in axial coordinates, its centre at
  ``(q + r/2, r*sqrt(3)/2)``.  The box is ``0 <= q < xDim, 0 <= r < yDim``.
- ``triangle``: a cell is ``x y t``; the unit rhombus ``(x, y)`` of the axial
  grid holds the up triangle ``t = 0`` (corners ``(x, y), (x+1, y),
  (x, y+1)``) and the down triangle ``t = 1`` (corners ``(x+1, y), (x, y+1),
  (x+1, y+1)``).  The box holds ``2 * xDim * yDim`` triangles.
- ``hexprism``: a cell is ``q r z``, a hexagon of layer ``z``.  Motions are
  the six turns about the vertical axis and the six half turns about
  horizontal axes (a piece turned upside down): 12 proper motions.
- ``fcc``: a cell is ``x y z`` with ``x + y + z`` even (spheres in
  face-centred cubic packing, 12 neighbours); motions are the 24 rotations
  of the cube.  The box holds the even-sum points of ``xDim x yDim x zDim``.
- cubic: a cell is ``x y z``, a unit cube (6 neighbours); motions are the 24
  rotations of the cube.  Only 3-D boxes (a flat box turns pieces in 3-D,
  which this oracle does not model).

Counting conventions: flat lattices (``hex``, ``triangle``) allow turns and
flips (flips not for ``oneSide``); 3-D lattices allow proper motions only.
``total`` counts every tiling (a tiling is a partition of the open cells, so
identical pieces are never counted twice); ``unique`` counts the orbits of
the tilings under the board's symmetry group: the motions (flips included for
flat lattices, proper motions for 3-D ones) that, with a translation, map the
open cells onto themselves and the multiset of piece shapes onto itself
(under ``oneSide`` a flip maps each piece to its mirror image, so it belongs
to the group only when the piece set is closed under mirroring).  With
``mirror`` (bench's ``--mirror``) a 3-D board's candidate symmetries are its
reflections too, and the same rule decides: a reflection belongs to the group
only when it maps the multiset of piece shapes (up to rotations) onto itself.

Usage: ``python tests/lattice_reference.py [--mirror] defs/meteor.txt ...``
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from itertools import permutations, product

SQRT3 = math.sqrt(3.0)
EPS = 1e-6
LATTICES = ("hex", "triangle", "hexprism", "fcc", "cube", "tetrakis", "tetraocta")
"""The lattices a file may name (``cube`` without a name; one layer of it is ``square``)."""


# ---------------------------------------------------------------------------
# Reading a definition file
# ---------------------------------------------------------------------------


def read_definition(path):
    """Return ``dict(dims, lattice, one_side, pieces=[(name, cells, stationary)])``.

    Only the subset of the format used by the lattice definitions is read:
    ``#`` comments, one ``D:...`` header, ``C:name=..:[type=M|S:]layout=..``
    lines and ``~D``.  Anything else is an error.
    """
    header = None
    pieces = []
    closed = False
    graph = None  # (links, cells, edges) of a G block; None outside it
    in_graph = False
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if closed:
                raise ValueError(f"{path}:{number}: only one puzzle per file is supported")
            if line == "~D":
                closed = True
                continue
            if in_graph:
                if line == "~G":
                    in_graph = False
                elif "," not in line and len(line.split()) == 7:
                    t = line.split()
                    graph[2].append((tuple(map(int, t[:3])), t[3], tuple(map(int, t[4:]))))
                else:
                    graph[1].extend(tuple(map(int, part.split())) for part in line.split(","))
                continue
            if line.split(":")[0] == "G":
                graph = (line == "G:links=lattice", [], [])
                in_graph = True
                continue
            kind, _, rest = line.partition(":")
            attrs = {}
            for part in rest.split(":"):
                key, eq, value = part.partition("=")
                attrs[key.strip()] = value.strip() if eq else "1"
            if kind == "D":
                if header is not None:
                    raise ValueError(f"{path}:{number}: a second D header")
                header = attrs
            elif kind == "C":
                if header is None:
                    raise ValueError(f"{path}:{number}: C line before the D header")
                cells = []
                for triple in attrs["layout"].split(","):
                    values = [int(v) for v in triple.split()]
                    if len(values) != 3:
                        raise ValueError(f"{path}:{number}: bad coordinate {triple!r}")
                    cells.append(tuple(values))
                if len(set(cells)) != len(cells):
                    raise ValueError(f"{path}:{number}: a cell is listed twice")
                stationary = attrs.get("type", "M") == "S"
                pieces.append((attrs["name"], tuple(cells), stationary))
            else:
                raise ValueError(f"{path}:{number}: unsupported directive {kind!r}")
    if header is None or not closed:
        raise ValueError(f"{path}: no complete D ... ~D puzzle")
    lattice = header.get("lattice", "cube")
    if lattice not in LATTICES:
        raise ValueError(f"{path}: lattice {lattice!r} is not one of {LATTICES}")
    dims = tuple(int(header[k]) for k in ("xDim", "yDim", "zDim"))
    one_side = header.get("oneSide", "0") == "1"
    if lattice == "cube" and dims[2] == 1:
        lattice = "square"
    wrap = tuple("xyz"[a] in header.get("wrap", "") for a in range(3))
    if graph is not None and lattice != "square":
        raise ValueError(f"{path}: the oracle reads graph boards of squares only")
    return dict(dims=dims, lattice=lattice, one_side=one_side, pieces=pieces, wrap=wrap, graph=graph)


# ---------------------------------------------------------------------------
# Lattices: Cartesian embeddings, rounding back, motions, translations
# ---------------------------------------------------------------------------


def _matmul(a, b):
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))


def _apply(m, p):
    return tuple(sum(m[i][k] * p[k] for k in range(3)) for i in range(3))


def _det(m):
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def _rot_z(k):
    """The turn by k * 60 degrees about the vertical axis."""
    a = k * math.pi / 3.0
    c, s = math.cos(a), math.sin(a)
    return ((c, -s, 0.0), (s, c, 0.0), (0.0, 0.0, 1.0))


MIRROR_Y = ((1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, 1.0))    # a flip of the plane
MIRROR_Z = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, -1.0))    # a reflection in a layer
HALF_TURN_X = ((1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, -1.0))  # upside down


def _close(a, b):
    return all(abs(x - y) < EPS for x, y in zip(a, b))


class Lattice:
    """A lattice given by an embedding of its cells in space.

    ``embed`` maps a cell to a point, ``locate`` maps a point back to the cell
    whose point it is (checked exactly), ``proper`` and ``improper`` are the
    point motions (3x3 matrices about the origin), and ``translate`` /
    ``offset`` handle the translations of the lattice.
    """

    name = ""

    def motion(self, matrix):
        """The cell map of a point motion (checked to land on cells)."""
        def move(cell):
            image = _apply(matrix, self.embed(cell))
            back = self.locate(image)
            if not _close(self.embed(back), image):
                raise AssertionError(f"{self.name}: motion does not map {cell} onto a cell")
            return back
        move.matrix = matrix
        return move

    def motions(self, flips):
        mats = list(self.proper())
        if flips:
            mats += list(self.improper())
        return [self.motion(m) for m in mats]

    def improper(self):
        return []

    # translations: a cell is (a, b, c); a translation is the difference of two
    # cells of the same kind, applied componentwise (kind preserved).
    def offset(self, source, target):
        """The translation taking cell ``source`` to cell ``target`` (or None)."""
        d = tuple(t - s for s, t in zip(source, target))
        return d if self.is_translation(d) else None

    def is_translation(self, d):
        return True

    def translate(self, cell, d):
        return tuple(c + e for c, e in zip(cell, d))

    def adjacent(self, a, b):
        return abs(math.dist(self.embed(a), self.embed(b)) - self.neighbour_distance) < EPS

    def is_cell(self, cell):
        return True


class _HexagonalPlane(Lattice):
    """The motions of the hexagonal plane, which hexagons and triangles share: 6 turns, 6 flips, translations in the plane."""

    def proper(self):
        return [_rot_z(k) for k in range(6)]

    def improper(self):
        return [_matmul(_rot_z(k), MIRROR_Y) for k in range(6)]

    def is_translation(self, d):
        return d[2] == 0


class HexLattice(_HexagonalPlane):
    name = "hex"
    neighbour_distance = 1.0

    def embed(self, cell):
        q, r, z = cell
        return (q + r / 2.0, r * SQRT3 / 2.0, float(z))

    def locate(self, p):
        r = round(p[1] / (SQRT3 / 2.0))
        q = round(p[0] - r / 2.0)
        return (q, r, round(p[2]))

    def is_cell(self, cell):
        return cell[2] == 0

    def box(self, dims):
        x, y, z = dims
        if z != 1:
            raise ValueError("a hex puzzle has zDim=1")
        return {(q, r, 0) for q in range(x) for r in range(y)}


class HexPrismLattice(HexLattice):
    name = "hexprism"

    def adjacent(self, a, b):
        d = math.dist(self.embed(a), self.embed(b))
        return abs(d - 1.0) < EPS and (a[2] == b[2] or a[:2] == b[:2])

    def proper(self):
        return [_rot_z(k) for k in range(6)] + [_matmul(_rot_z(k), HALF_TURN_X) for k in range(6)]

    def improper(self):
        return [_matmul(m, MIRROR_Z) for m in self.proper()]

    def is_translation(self, d):
        return True

    def is_cell(self, cell):
        return True

    def box(self, dims):
        x, y, z = dims
        return {(q, r, h) for q in range(x) for r in range(y) for h in range(z)}


class TriangleLattice(_HexagonalPlane):
    name = "triangle"
    neighbour_distance = 1.0 / SQRT3

    @staticmethod
    def _axial(a, b):
        return (a + b / 2.0, b * SQRT3 / 2.0, 0.0)

    def embed(self, cell):
        x, y, t = cell
        f = (1.0 if t == 0 else 2.0) / 3.0
        return self._axial(x + f, y + f)

    def locate(self, p):
        b = p[1] / (SQRT3 / 2.0)
        a = p[0] - b / 2.0
        x, y = math.floor(a + EPS), math.floor(b + EPS)
        t = 0 if (a - x) + (b - y) < 1.0 else 1
        return (x, y, t)

    def is_cell(self, cell):
        return cell[2] in (0, 1)

    def box(self, dims):
        x, y, z = dims
        if z != 1:
            raise ValueError("a triangle puzzle has zDim=1")
        return {(a, b, t) for a in range(x) for b in range(y) for t in (0, 1)}


def _signed_permutations(sign):
    """The 3x3 signed permutation matrices with determinant of the given sign."""
    mats = []
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            m = tuple(tuple(float(signs[i]) if j == perm[i] else 0.0 for j in range(3)) for i in range(3))
            if _det(m) * sign > 0:
                mats.append(m)
    return mats


class CubeLattice(Lattice):
    name = "cube"
    neighbour_distance = 1.0

    def embed(self, cell):
        return tuple(float(v) for v in cell)

    def locate(self, p):
        return tuple(round(v) for v in p)

    def proper(self):
        return _signed_permutations(1)

    def improper(self):
        return _signed_permutations(-1)

    def box(self, dims):
        x, y, z = dims
        if z == 1:
            raise ValueError("the oracle's cubic puzzles are 3-D boxes")
        return set(product(range(x), range(y), range(z)))


class FccLattice(Lattice):
    name = "fcc"
    neighbour_distance = math.sqrt(2.0)

    def embed(self, cell):
        return tuple(float(v) for v in cell)

    def locate(self, p):
        cell = tuple(round(v) for v in p)
        if sum(cell) % 2:
            raise AssertionError(f"fcc: {p} is not a lattice point")
        return cell

    def proper(self):
        return _signed_permutations(1)

    def improper(self):
        return _signed_permutations(-1)

    def is_translation(self, d):
        return sum(d) % 2 == 0

    def is_cell(self, cell):
        return sum(cell) % 2 == 0

    def box(self, dims):
        x, y, z = dims
        return {(a, b, c) for a in range(x) for b in range(y) for c in range(z) if (a + b + c) % 2 == 0}


class TetrakisLattice(Lattice):
    """Right isosceles triangles: each unit square cut by its diagonals; t = 0, 1, 2, 3 the bottom, right, top, left."""

    name = "tetrakis"
    # the centroids of the four triangles of the square [0, 1] x [0, 1]
    _CENTROIDS = ((0.5, 1.0 / 6.0), (5.0 / 6.0, 0.5), (0.5, 5.0 / 6.0), (1.0 / 6.0, 0.5))

    def embed(self, cell):
        x, y, t = cell
        u, v = self._CENTROIDS[t]
        return (x + u, y + v, 0.0)

    def locate(self, p):
        x, y = math.floor(p[0] + EPS), math.floor(p[1] + EPS)
        u, v = p[0] - x, p[1] - y
        t = min(range(4), key=lambda k: math.dist((u, v), self._CENTROIDS[k]))
        return (x, y, t)

    def adjacent(self, a, b):
        # triangles sharing a leg (centroids sqrt 2 / 3 apart) or a hypotenuse (1 / 3 apart)
        d = math.dist(self.embed(a), self.embed(b))
        return abs(d - math.sqrt(2.0) / 3.0) < EPS or abs(d - 1.0 / 3.0) < EPS

    def proper(self):
        return [((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)), ((0.0, -1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
                ((-1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, 1.0)), ((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 0.0, 1.0))]

    def improper(self):
        return [_matmul(m, MIRROR_Y) for m in self.proper()]

    def is_translation(self, d):
        return d[2] == 0

    def is_cell(self, cell):
        return cell[2] in (0, 1, 2, 3)

    def box(self, dims):
        x, y, z = dims
        if z != 1:
            raise ValueError("a tetrakis puzzle has zDim=1")
        return {(a, b, t) for a in range(x) for b in range(y) for t in range(4)}


class TetraOctaLattice(Lattice):
    """The tetrahedral-octahedral honeycomb, cells by their centres in doubled coordinates.

    Its vertices are the points of Z^3 with an even coordinate sum; the
    octahedra are centred on the others, the tetrahedra on the centres of
    the unit cubes.  Doubled: an octahedron at all-even x y z with x + y + z
    = 2 (mod 4), a tetrahedron at all-odd x y z.  A tetrahedron and an
    octahedron share a face when their centres are sqrt 3 / 2 apart (no two
    octahedra, and no two tetrahedra, share one).  The motions are the
    cube's 48 about a vertex; the translations the vertex lattice's.
    """

    name = "tetraocta"
    neighbour_distance = math.sqrt(3.0) / 2.0

    def embed(self, cell):
        return tuple(v / 2.0 for v in cell)

    def locate(self, p):
        cell = tuple(round(2.0 * v) for v in p)
        if not self.is_cell(cell):
            raise AssertionError(f"tetraocta: {p} is no cell centre")
        return cell

    def proper(self):
        return _signed_permutations(1)

    def improper(self):
        return _signed_permutations(-1)

    def is_translation(self, d):
        return all(v % 2 == 0 for v in d) and sum(d) % 4 == 0

    def is_cell(self, cell):
        return all(v % 2 == 1 for v in cell) or (all(v % 2 == 0 for v in cell) and sum(cell) % 4 == 2)

    def box(self, dims):
        return {c for c in product(*(range(d) for d in dims)) if self.is_cell(c)}


class SquareLattice(CubeLattice):
    """Unit squares of one layer, turned and flipped in their plane (a flat cubic puzzle)."""

    name = "square"

    def proper(self):
        return [_rot_z(0), ((0.0, -1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)), _matmul(_rot_z(3), _rot_z(0)),
                ((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 0.0, 1.0))]

    def improper(self):
        return [_matmul(m, MIRROR_Y) for m in self.proper()]

    def is_translation(self, d):
        return d[2] == 0

    def box(self, dims):
        x, y, _ = dims
        return {(a, b, 0) for a in range(x) for b in range(y)}


def make_lattice(name):
    return {"hex": HexLattice, "triangle": TriangleLattice, "hexprism": HexPrismLattice, "fcc": FccLattice,
            "cube": CubeLattice, "square": SquareLattice, "tetrakis": TetrakisLattice,
            "tetraocta": TetraOctaLattice}[name]()


# ---------------------------------------------------------------------------
# Shapes and placements
# ---------------------------------------------------------------------------


def normalize(lattice, cells):
    """The translate of ``cells`` whose smallest cell is the origin cell of its kind."""
    cells = sorted(cells)
    first = cells[0]
    if lattice.name in ("triangle", "tetrakis"):
        origin = (0, 0, first[2])
    elif lattice.name == "tetraocta":
        # the smallest point of the first cell's class modulo the translations, among its residues modulo 4
        origin = min(tuple((c + e) % 4 for c, e in zip(first, step)) for step in ((0, 0, 0), (2, 2, 0), (2, 0, 2), (0, 2, 2)))
    else:
        origin = (0, 0, 0)
    d = lattice.offset(first, origin)
    if d is None:
        raise AssertionError(f"{lattice.name}: cannot translate {first} to the origin")
    return tuple(sorted(lattice.translate(c, d) for c in cells))


def orientations(lattice, cells, motions):
    return sorted({normalize(lattice, [m(c) for c in cells]) for m in motions})


def canonical(lattice, cells, motions):
    return orientations(lattice, cells, motions)[0]


def is_connected(lattice, cells):
    cells = list(cells)
    seen = {cells[0]}
    todo = [cells[0]]
    while todo:
        a = todo.pop()
        for b in cells:
            if b not in seen and lattice.adjacent(a, b):
                seen.add(b)
                todo.append(b)
    return len(seen) == len(cells)


def round_board(cell, dims, wrap):
    """A cell of a board that wraps round (``wrap``, per axis) taken back into the box."""
    return tuple(c % n if w else c for c, n, w in zip(cell, dims, wrap))


def placements(lattice, orients, open_cells, dims=None, wrap=(False, False, False)):
    """Every translate of every orientation lying inside ``open_cells`` (taken round a wrapped board)."""
    found = set()
    for shape in orients:
        anchor = shape[0]
        for target in open_cells:
            d = lattice.offset(anchor, target)
            if d is None:
                continue
            cells = [round_board(lattice.translate(c, d), dims, wrap) if any(wrap) else lattice.translate(c, d)
                     for c in shape]
            image = frozenset(cells)
            if len(image) == len(cells) and image <= open_cells:
                found.add(image)
    return sorted(found, key=sorted)


def board_adjacent(lattice, a, b, dims, wrap):
    """Whether two cells of a board touch, across a seam of a wrapped board too."""
    for k in product(*((-1, 0, 1) if w else (0,) for w in wrap)):
        if lattice.adjacent(a, tuple(c + s * n for c, s, n in zip(b, k, dims))):
            return True
    return False


class GraphBoard:
    """A board of squares given as cells and labelled edges: where one step in each direction leads from each cell.

    A label names a direction (E, W, N, S); an edge ``a L b`` says the step
    in L's direction from a arrives at b, and the opposite step from b at a;
    with ``links=lattice`` a step to a listed square's lattice neighbour
    arrives there.
    """

    STEPS = {"E": (1, 0, 0), "W": (-1, 0, 0), "N": (0, 1, 0), "S": (0, -1, 0)}

    def __init__(self, links, cells, edges):
        self.cells = frozenset(cells)
        self.step_to = {}
        if links:
            for a in cells:
                for d in self.STEPS.values():
                    b = tuple(x + y for x, y in zip(a, d))
                    if b in self.cells:
                        self.step_to[a, d] = b
        for a, label, b in edges:
            d = self.STEPS[label]
            self.step_to[a, d] = b
            self.step_to[b, tuple(-x for x in d)] = a

    def step(self, cell, d):
        return self.step_to.get((cell, d))

    def develop(self, shape, start):
        """The board cells a piece (cells of the plane) covers with its first cell on ``start``, or None."""
        image = {shape[0]: start}
        todo = [shape[0]]
        cells = set(shape)
        while todo:
            p = todo.pop()
            for d in self.STEPS.values():
                q = tuple(x + y for x, y in zip(p, d))
                if q not in cells:
                    continue
                there = self.step(image[p], d)
                if there is None or image.get(q, there) != there:
                    return None
                if q not in image:
                    image[q] = there
                    todo.append(q)
        return image if len(set(image.values())) == len(shape) else None

    def automorphisms(self, lattice, motions):
        """Every cell map that, with the direction map of one motion, sends each step to a step (and no step to none)."""
        cells = sorted(self.cells)
        found = []
        for move in motions:
            turn = {d: tuple(round(v) for v in _apply(move.matrix, d)) for d in self.STEPS.values()}
            for target in cells:
                f = {cells[0]: target}
                todo = [cells[0]]
                ok = True
                while todo and ok:
                    a = todo.pop()
                    for d in self.STEPS.values():
                        b, fb = self.step(a, d), self.step(f[a], turn[d])
                        if (b is None) != (fb is None):
                            ok = False
                            break
                        if b is None:
                            continue
                        if b in f and f[b] != fb:
                            ok = False
                            break
                        if b not in f:
                            f[b] = fb
                            todo.append(b)
                if ok and len(f) == len(cells) and len(set(f.values())) == len(cells):
                    found.append((move, f))
        return found


# ---------------------------------------------------------------------------
# Exact cover: Algorithm X on dictionaries of sets, with piece multiplicities
# ---------------------------------------------------------------------------


def exact_covers(cells, rows, capacity, max_nodes=None):
    """Yield every exact cover of ``cells`` as a list of row indices.

    ``rows`` is a list of ``(shape, cell set)``; ``capacity[shape]`` is how
    many copies of a shape exist.  Branching is always on the cell with the
    fewest candidate rows, and a row is a set of cells, so a tiling is found
    exactly once however many identical pieces it uses.
    """
    # A column per cell (to be covered exactly once) and a column per shape
    # holding its placements still possible.  Placing a copy of a shape with
    # copies left only drops that row from the shape's column; placing the
    # last copy covers the column, which removes every other placement of it.
    columns = {c: set() for c in cells}
    for s in capacity:
        columns[("shape", s)] = set()
    row_cols = []
    for i, (shape, cover) in enumerate(rows):
        cols = list(cover) + [("shape", shape)]
        row_cols.append(cols)
        for c in cols:
            columns[c].add(i)
    used = Counter()
    solution = []
    uncovered = set(cells)  # the cells still to cover

    def cover_column(col):
        for i in columns[col]:
            for c in row_cols[i]:
                if c != col:
                    columns[c].discard(i)
        uncovered.discard(col)
        return columns.pop(col)

    def uncover_column(col, rows_of_col):
        columns[col] = rows_of_col
        if col in cells:
            uncovered.add(col)
        for i in rows_of_col:
            for c in row_cols[i]:
                if c != col:
                    columns[c].add(i)

    def select(i):
        shape = rows[i][0]
        undo = []
        for c in rows[i][1]:
            undo.append((c, cover_column(c)))
        used[shape] += 1
        if used[shape] == capacity[shape]:
            col = ("shape", shape)
            undo.append((col, cover_column(col)))
        else:
            columns[("shape", shape)].discard(i)
            undo.append((None, i))
        return undo

    def deselect(i, undo):
        shape = rows[i][0]
        used[shape] -= 1
        for col, saved in reversed(undo):
            if col is None:
                columns[("shape", shape)].add(saved)
            else:
                uncover_column(col, saved)

    nodes = [0]

    def search():
        nodes[0] += 1
        if max_nodes is not None and nodes[0] > max_nodes:
            raise TooLarge(f"more than {max_nodes:,} nodes of the brute force")
        if not uncovered:
            yield list(solution)
            return
        col = min(uncovered, key=lambda c: (len(columns[c]), c))
        for i in sorted(columns[col]):
            undo = select(i)
            solution.append(i)
            yield from search()
            solution.pop()
            deselect(i, undo)

    yield from search()


# ---------------------------------------------------------------------------
# The puzzle: board, pieces, symmetry group, counts
# ---------------------------------------------------------------------------


def build(path, mirror=False):
    spec = read_definition(path)
    lattice = make_lattice(spec["lattice"])
    flat = spec["lattice"] in ("hex", "triangle", "tetrakis", "square")
    piece_motions = lattice.motions(flips=flat and not spec["one_side"])
    # the candidate symmetries of the board: flips too for flat lattices, reflections too with mirror
    board_motions = lattice.motions(flips=flat or mirror)
    board = GraphBoard(*spec["graph"]) if spec["graph"] else None
    box = set(board.cells) if board else lattice.box(spec["dims"])
    blocked = set()
    mobile = []
    for name, cells, stationary in spec["pieces"]:
        if any(not lattice.is_cell(c) for c in cells):
            raise ValueError(f"{path}: piece {name} has a cell that is not a cell of the {lattice.name} lattice")
        if stationary:
            if any(c not in box for c in cells):
                raise ValueError(f"{path}: stationary piece {name} has a cell outside the box")
            if blocked & set(cells):
                raise ValueError(f"{path}: stationary piece {name} overlaps another")
            blocked |= set(cells)
        else:
            if not is_connected(lattice, cells):
                raise ValueError(f"{path}: piece {name} is not connected")
            mobile.append((name, cells))
    open_cells = frozenset(box - blocked)
    shapes = {}
    capacity = Counter()
    for name, cells in mobile:
        key = canonical(lattice, cells, piece_motions)
        shapes.setdefault(key, name)
        capacity[shapes[key]] += 1
    volume = sum(len(cells) for _, cells in mobile)
    if volume != len(open_cells):
        raise ValueError(f"{path}: the pieces have {volume} cells, the open board {len(open_cells)}")
    rows = []
    for key, name in shapes.items():
        if board:
            if blocked:
                raise ValueError(f"{path}: the oracle's graph boards have no stationary pieces")
            found = {frozenset(image.values()) for shape in orientations(lattice, key, piece_motions)
                     for start in sorted(open_cells) for image in [board.develop(shape, start)] if image}
            rows += [(name, image) for image in sorted(found, key=sorted)]
            continue
        for image in placements(lattice, orientations(lattice, key, piece_motions), open_cells, spec["dims"],
                                spec["wrap"]):
            rows.append((name, image))
    owners = {}
    for name, image in rows:
        if owners.setdefault(image, name) != name:
            raise Indistinct(f"{path}: {owners[image]} and {name} can cover the same cells {sorted(image)}")
    return dict(spec=spec, lattice=lattice, piece_motions=piece_motions, board_motions=board_motions,
                open_cells=open_cells, shapes=shapes, capacity=capacity, rows=rows, mobile=mobile, board=board)


class TooLarge(ValueError):
    """The search went past ``max_nodes``: a random puzzle too large for this oracle to count in a test's time."""


class Indistinct(ValueError):
    """Two different pieces have a placement on the same cells (a piece round a narrow wrapped board: on a
    3-cylinder the L and the T tetromino are one ring and one cell); the oracle counts partitions of the cells, in
    which those tilings coincide, while a cover says which piece lies where."""


def symmetry_group(puzzle):
    """The cell maps (motion + translation) that preserve the board and the pieces."""
    lattice = puzzle["lattice"]
    open_cells = puzzle["open_cells"]
    piece_motions = puzzle["piece_motions"]
    pieces = Counter(canonical(lattice, cells, piece_motions) for _, cells in puzzle["mobile"])
    if any(puzzle["spec"]["wrap"]):
        return _wrapped_group(puzzle, pieces)
    if puzzle["board"]:
        group = []
        for move, image in puzzle["board"].automorphisms(lattice, puzzle["board_motions"]):
            mapped = Counter(canonical(lattice, [move(c) for c in cells], piece_motions) for _, cells in puzzle["mobile"])
            if mapped == pieces and image not in group:
                group.append(image)
        return group
    lowest = min(open_cells)
    group = []
    for move in puzzle["board_motions"]:
        moved = {c: move(c) for c in open_cells}
        d = lattice.offset(min(moved.values()), lowest)
        if d is None:
            continue
        image = {c: lattice.translate(m, d) for c, m in moved.items()}
        if set(image.values()) != open_cells:
            continue
        mapped = Counter(canonical(lattice, [move(c) for c in cells], piece_motions) for _, cells in puzzle["mobile"])
        if mapped != pieces:
            continue
        if image not in group:
            group.append(image)
    return group


def _wrapped_group(puzzle, pieces):
    """The symmetries of a wrapped board: every motion followed by every translation, taken round the board, that
    maps the open cells onto themselves, touching cells onto touching cells (across the seams too) and the
    pieces onto the pieces."""
    lattice, open_cells = puzzle["lattice"], puzzle["open_cells"]
    dims, wrap = puzzle["spec"]["dims"], puzzle["spec"]["wrap"]
    cells = sorted(open_cells)
    touching = [(a, b) for i, a in enumerate(cells) for b in cells[i + 1:] if board_adjacent(lattice, a, b, dims, wrap)]
    lowest = [min(c[a] for c in open_cells) for a in range(3)]
    group = []
    for move in puzzle["board_motions"]:
        moved = {c: move(c) for c in open_cells}
        low = [min(m[a] for m in moved.values()) for a in range(3)]
        # along an axis that does not wrap the moved board must come back home; along one that does, any shift
        for shift in product(*(range(n) if w else (0,) for n, w in zip(dims, wrap))):
            d = tuple(s if w else home - here for s, w, home, here in zip(shift, wrap, lowest, low))
            if not lattice.is_translation(d):
                continue
            image = {c: round_board(lattice.translate(m, d), dims, wrap) for c, m in moved.items()}
            if set(image.values()) != open_cells:
                continue
            if not all(board_adjacent(lattice, image[a], image[b], dims, wrap) for a, b in touching):
                continue
            mapped = Counter(canonical(lattice, [move(c) for c in cells_], puzzle["piece_motions"])
                             for _, cells_ in puzzle["mobile"])
            if mapped != pieces:
                continue
            if image not in group:
                group.append(image)
    return group


def count(path, verbose=False, mirror=False, max_nodes=None):
    """Count the tilings of one definition file (``mirror``: up to reflections too).

    Returns ``dict(total=..., unique=..., group=...)``: every tiling, the
    tilings up to the board's symmetry group, and the order of that group.
    """
    start = time.perf_counter()
    puzzle = build(path, mirror)
    rows = puzzle["rows"]
    tilings = []
    for chosen in exact_covers(puzzle["open_cells"], rows, puzzle["capacity"], max_nodes):
        tilings.append(frozenset(rows[i][1] for i in chosen))
    total = len(tilings)
    if len(set(tilings)) != total:
        raise AssertionError("a tiling was produced twice")
    group = symmetry_group(puzzle)

    def relabel(tiling, image):
        return tuple(sorted(tuple(sorted(image[c] for c in part)) for part in tiling))

    orbits = {min(relabel(t, g) for g in group) for t in tilings}
    # Burnside as a cross-check: orbits = average number of tilings fixed by an element
    known = set(tilings)
    fixed = sum(1 for g in group for t in tilings if frozenset(frozenset(g[c] for c in part) for part in t) == t)
    if fixed % len(group) or fixed // len(group) != len(orbits):
        raise AssertionError("orbit count and Burnside's lemma disagree")
    for t in tilings:
        for g in group:
            if frozenset(frozenset(g[c] for c in part) for part in t) not in known:
                raise AssertionError("a symmetry maps a tiling onto a non-tiling")
    result = dict(total=total, unique=len(orbits), group=len(group))
    if verbose:
        result.update(placements=len(rows), seconds=round(time.perf_counter() - start, 2))
    return result


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[0])
        print("usage: python tests/lattice_reference.py FILE...")
        return 2
    mirror = "--mirror" in argv
    for path in (a for a in argv if a != "--mirror"):
        result = count(path, verbose=True, mirror=mirror)
        print(f"{path}: total={result['total']} unique={result['unique']} group={result['group']} "
              f"placements={result['placements']} time={result['seconds']}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
