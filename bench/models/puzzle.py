"""The puzzle model: box, open region, shapes with multiplicities, images.

A :class:`Puzzle` is built from one parsed :class:`PuzzleDefinition`.  It
checks the geometry (stationary pieces inside the box and disjoint, enough
mobile volume), groups mobile pieces with the same shape under the allowed
motions of its lattice (:mod:`bench.models.lattice`) into one :class:`Shape`
with a multiplicity, lists each shape's distinct orientations, and enumerates
the *bounded images*: every lattice translation of every orientation lying
wholly in the open region.

The box is the lattice's index grid of the definition's dimensions
(``grid_dims``: ``xDim x yDim x zDim``, or ``xDim x yDim x 2`` for the
triangle's t).  Its cells are numbered in the x, y, z priority order of
polycube's ``f`` heuristic over that grid, grid points off the lattice (the
fcc's odd ones) left out; on the cubic lattice that is ``index = (x * yDim +
y) * zDim + z``.  Open cells keep that order and are numbered 0 .. n_open - 1;
these numbers are the cell items of the exact-cover matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from bench.errors import DefinitionError
from bench.models.definition import PieceDefinition, PuzzleDefinition, parse_file
from bench.models.lattice import Lattice
from bench.models.symmetry import CONVENTION_MIRROR, CONVENTION_ROTATIONS, SymmetryGroup




def _key(cells: np.ndarray) -> bytes:
    return np.ascontiguousarray(cells, dtype=np.int64).tobytes()


@dataclass(frozen=True, eq=False)
class Shape:
    """A class of identical mobile pieces.

    Attributes
    ----------
    index : int
        Position in :attr:`Puzzle.shapes`.
    names : tuple of str
        Names of the mobile pieces of this shape, sorted; their count is the
        multiplicity.
    cells : ndarray
        The canonical orientation (normalized, lexicographically smallest).
    orientations : tuple of ndarray
        Distinct orientations under the puzzle's allowed rotations.
    parity : int
        Magnitude of the checkerboard parity (black minus white cells).
    stationary : int
        Number of stationary pieces with the same shape.
    """

    index: int
    names: tuple[str, ...]
    cells: np.ndarray
    orientations: tuple[np.ndarray, ...]
    parity: int
    stationary: int

    @property
    def name(self) -> str:
        """The name shown for the shape: its first piece name."""
        return self.names[0]

    @property
    def multiplicity(self) -> int:
        """How many mobile pieces have this shape."""
        return len(self.names)

    @property
    def size(self) -> int:
        """Number of cells of one piece."""
        return len(self.cells)


@dataclass(frozen=True, eq=False)
class ImageTable:
    """Every bounded image of every shape, in CSR form.

    ``cells[ptr[i]:ptr[i+1]]`` are the open-cell numbers of image ``i`` in
    ascending order; images are grouped by shape, then orientation, then
    translation in cell priority order.
    """

    shape: np.ndarray
    orientation: np.ndarray
    ptr: np.ndarray
    cells: np.ndarray

    def __len__(self) -> int:
        return len(self.shape)

    def image_cells(self, i: int) -> np.ndarray:
        """Open-cell numbers of image ``i``."""
        return self.cells[self.ptr[i] : self.ptr[i + 1]]

    def of_shape(self, shape: int) -> np.ndarray:
        """Indices of the images of one shape."""
        return np.flatnonzero(self.shape == shape)

    def rows(self, images: np.ndarray) -> np.ndarray:
        """Cells of images that all have the same size, as an ``(n, size)`` array."""
        if len(images) == 0:
            return np.zeros((0, 0), dtype=np.int64)
        size = int(self.ptr[images[0] + 1] - self.ptr[images[0]])
        idx = self.ptr[images][:, None] + np.arange(size)[None, :]
        return self.cells[idx].astype(np.int64)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class Puzzle:
    """A puzzle ready to be encoded: immutable after construction.

    Use :func:`load` or :meth:`from_definition`; both raise
    :class:`~bench.errors.DefinitionError` on bad geometry.

    ``mirror`` asks for solutions to be counted up to reflections too
    (:attr:`convention`).
    """

    geometric = True
    """A puzzle has cells, pieces and a symmetry group (a matrix read from an exchange file has none)."""

    def __init__(self, definition: PuzzleDefinition, mirror: bool = False):
        self.definition = definition
        self.lattice: Lattice = definition.lattice
        self.dims = definition.dims
        self.grid_dims = self.lattice.grid_shape(definition.dims)
        self.one_side = definition.one_side
        self.planar = self.lattice.flat or definition.dims[2] == 1
        # a flat puzzle's group holds its plane's reflections already (flips of two-sided pieces are half
        # turns; flips of a one-sided set that is closed under mirroring are polycube's convention)
        self.convention = CONVENTION_MIRROR if mirror or self.planar else CONVENTION_ROTATIONS
        box_coords = self.lattice.box_coords(self.dims)
        self.box_cells = len(box_coords)
        self.box_coords = _readonly(box_coords)
        grid_to_box = np.full(int(np.prod(self.grid_dims)), -1, dtype=np.int32)
        grid_to_box[self._flat_index(box_coords)] = np.arange(self.box_cells, dtype=np.int32)
        self.grid_to_box = _readonly(grid_to_box)
        grid = np.full(self.box_cells, -1, dtype=np.int32)
        stationary = [p for p in definition.pieces if p.stationary]
        bounds = np.array(self.grid_dims)
        for k, piece in enumerate(stationary):
            coords = np.array(piece.cells, dtype=np.int64).reshape(-1, 3)
            outside = np.any((coords < 0) | (coords >= bounds), axis=1)
            if outside.any():
                x, y, z = (int(v) for v in coords[np.argmax(outside)])
                X, Y, Z = self.dims
                limits = ", ".join(f"0 <= {a} < {n}" for a, n in zip(self.lattice.axes, self.grid_dims))
                raise DefinitionError(definition.path, piece.line, f"stationary piece '{piece.name}' has cell ({x} {y} {z}) outside the {X}x{Y}x{Z} box; expected {limits}")
            idx = self.box_index(coords)
            taken = grid[idx] >= 0
            if taken.any():
                other = stationary[grid[idx[np.argmax(taken)]]].name
                x, y, z = (int(v) for v in coords[np.argmax(taken)])
                raise DefinitionError(definition.path, piece.line, f"stationary piece '{piece.name}' overlaps stationary piece '{other}' at ({x} {y} {z})")
            grid[idx] = k
        self.stationary: tuple[PieceDefinition, ...] = tuple(stationary)
        self.stationary_grid = _readonly(grid)
        self.open_box = _readonly(np.flatnonzero(grid < 0).astype(np.int32))
        box_to_open = np.full(self.box_cells, -1, dtype=np.int32)
        box_to_open[self.open_box] = np.arange(len(self.open_box), dtype=np.int32)
        self.box_to_open = _readonly(box_to_open)
        self.shapes: tuple[Shape, ...] = self._classify()
        mobile_volume = sum(s.size * s.multiplicity for s in self.shapes)
        if mobile_volume < self.n_open:
            raise DefinitionError(definition.path, definition.line, f"the mobile pieces have volume {mobile_volume} but the box has {self.n_open} open cells; expected at least {self.n_open} cells of mobile pieces")
        self.mobile_volume = mobile_volume

    @classmethod
    def from_definition(cls, definition: PuzzleDefinition, mirror: bool = False) -> "Puzzle":
        """Build and check a puzzle from its parsed definition (``mirror``: count up to reflections too)."""
        return cls(definition, mirror)

    # -- geometry ------------------------------------------------------------

    @property
    def n_open(self) -> int:
        """Number of open cells (cell items of the matrix)."""
        return len(self.open_box)

    @property
    def rectangle(self) -> bool:
        """True for a rectangle of squares: a planar cubic box whose every cell is open (no holes, no stationary pieces).

        Rows of squares are what FILA's left-to-right fill suits; a full
        parallelogram of hexagons or triangles is not one (the hexiamonds'
        6x6 rhombus: ``f`` 2.6 million fits, ``e`` 137,000).
        """
        return self.planar and self.lattice.name == "cubic" and self.n_open == self.box_cells

    @property
    def spare(self) -> bool:
        """True when the pieces' volume exceeds the open volume."""
        return self.mobile_volume > self.n_open

    @property
    def name(self) -> str:
        """A label for reports: the file name, with ``#k`` for the k-th puzzle of a file."""
        return self.definition.label

    def _flat_index(self, coords: np.ndarray, axes=(0, 1, 2)) -> np.ndarray:
        index = coords[..., axes[0]]
        for axis in axes[1:]:
            index = index * self.grid_dims[axis] + coords[..., axis]
        return index

    @cached_property
    def scan_axes(self) -> tuple[int, int, int]:
        """The box's axes from slowest to fastest in a scan that does not depend on how the box is drawn.

        On the cubic lattice the longest axis goes slowest (ties in x, y, z
        order): a 10x6 and a 6x10 rectangle are scanned alike.  Other
        lattices keep their index grid's order, whose axes are not the box's.
        """
        if self.lattice.name != "cubic":
            return (0, 1, 2)
        return tuple(sorted(range(3), key=lambda axis: -self.dims[axis]))

    @cached_property
    def scan_rank(self) -> np.ndarray:
        """Each open cell's place in the scan of :attr:`scan_axes`."""
        order = np.argsort(self._flat_index(self.open_coords, self.scan_axes), kind="stable")
        rank = np.empty(self.n_open, dtype=np.int64)
        rank[order] = np.arange(self.n_open)
        return _readonly(rank)

    def open_grid(self, axes=(0, 1, 2)) -> np.ndarray:
        """Grid numbers of the open cells, by open-cell number, the grid's ``axes`` from slowest to fastest.

        In the box's index grid a lattice's neighbours are fixed shifts apart
        (FILA counts open neighbours with shifts) whichever way the axes are
        ordered; the fcc grid numbers the points off the lattice too, which
        are never open.
        """
        return _readonly(self._flat_index(self.open_coords, tuple(axes)).astype(np.int32))

    @property
    def grid_cells(self) -> int:
        """Points of the box's index grid (the box cells, and in fcc the points off the lattice)."""
        return int(np.prod(self.grid_dims))

    def box_index(self, coords: np.ndarray) -> np.ndarray:
        """Box cell numbers of coordinate rows (which must lie in the box's grid); -1 off the lattice."""
        return self.grid_to_box[self._flat_index(np.asarray(coords, dtype=np.int64))]

    def open_index(self, coords: np.ndarray) -> np.ndarray:
        """Open-cell numbers of coordinate rows, -1 for cells that are not open (outside the grid too)."""
        coords = np.asarray(coords, dtype=np.int64)
        inside = np.all((coords >= 0) & (coords < np.array(self.grid_dims)), axis=-1)
        box = self.box_index(np.where(inside[..., None], coords, 0))
        return np.where(inside & (box >= 0), self.box_to_open[np.maximum(box, 0)], -1)

    @cached_property
    def cell_neighbours(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR adjacency of the open cells: per cell its neighbours in the lattice's order (``ptr``, ``cells``)."""
        nbr = self.open_index(self.lattice.neighbours(self.open_coords))
        keep = nbr >= 0
        ptr = np.zeros(self.n_open + 1, dtype=np.int32)
        np.cumsum(keep.sum(axis=1), out=ptr[1:])
        return ptr, nbr[keep].astype(np.int32)

    @cached_property
    def open_coords(self) -> np.ndarray:
        """Coordinates of the open cells, by open-cell number."""
        return _readonly(self.box_coords[self.open_box])

    @property
    def has_parity(self) -> bool:
        """True when the lattice has a two-colouring, so parities mean something."""
        return self.lattice.two_colourable

    @cached_property
    def parity(self) -> int:
        """Two-colour parity of the open region (black minus white cells); 0 without a colouring."""
        colour = self.lattice.colour(self.open_coords)
        return 0 if colour is None else int(colour.sum())

    def allowed_motions(self) -> np.ndarray:
        """Lattice motions a piece may undergo in this puzzle."""
        return self.lattice.allowed_motions(self.dims, self.one_side)

    def orientations_of(self, cells: np.ndarray) -> list[np.ndarray]:
        """Distinct normalized orientations of a cell set, in motion order (:meth:`Lattice.orientations`)."""
        return self.lattice.orientations(cells, self.dims, self.one_side)

    def canonical_key(self, cells: np.ndarray) -> bytes:
        """Key equal for two cell sets exactly when one is an allowed motion and translation of the other."""
        return min(_key(o) for o in self.orientations_of(cells))

    def _classify(self) -> tuple[Shape, ...]:
        # copies drawn alike (up to a translation) share one canonical key, computed once: 64,000 monominoes
        # cost one key, not 64,000 times the motions
        keys: dict = {}

        def key_of(piece: PieceDefinition) -> bytes:
            if piece.cells not in keys:
                drawn = _key(self.lattice.normalize(np.array(piece.cells)))
                if drawn not in keys:
                    keys[drawn] = self.canonical_key(np.array(piece.cells))
                keys[piece.cells] = keys[drawn]
            return keys[piece.cells]

        groups: dict[bytes, list[PieceDefinition]] = {}
        for piece in self.definition.pieces:
            if not piece.stationary:
                groups.setdefault(key_of(piece), []).append(piece)
        stationary_keys = [key_of(p) for p in self.stationary]
        ordered = sorted(groups.items(), key=lambda kv: min(p.name for p in kv[1]))
        shapes = []
        for index, (key, pieces) in enumerate(ordered):
            names = tuple(sorted(p.name for p in pieces))
            orients = self.orientations_of(np.array(pieces[0].cells))
            canonical = min(orients, key=_key)
            colour = self.lattice.colour(canonical)
            parity = 0 if colour is None else abs(int(colour.sum()))
            shapes.append(Shape(index, names, _readonly(canonical), tuple(_readonly(o) for o in orients),
                                parity, stationary_keys.count(key)))
        return tuple(shapes)

    # -- images --------------------------------------------------------------

    @cached_property
    def images(self) -> ImageTable:
        """All bounded images of all mobile shapes."""
        grid = np.array(self.grid_dims, dtype=np.int64)
        moving = self.lattice.translation_axes.astype(bool)
        shape_ids, orient_ids, rows = [], [], []
        for shape in self.shapes:
            for o, cells in enumerate(shape.orientations):
                low = np.where(moving, -cells.min(axis=0), 0)
                high = np.where(moving, grid - 1 - cells.max(axis=0), 0)
                if np.any(high < low):
                    continue
                shifts = np.stack(np.meshgrid(*(np.arange(a, b + 1) for a, b in zip(low, high)), indexing="ij"), axis=-1)
                shifts = shifts.reshape(-1, 3)
                shifts = shifts[self.lattice.is_translation(shifts)]
                placed = self.box_index(shifts[:, None, :] + cells[None, :, :])
                open_idx = np.where(placed >= 0, self.box_to_open[np.maximum(placed, 0)], -1)
                ok = np.all(open_idx >= 0, axis=1)
                if not ok.any():
                    continue
                # cells are sorted in priority order and translation keeps that order
                rows.append(open_idx[ok])
                shape_ids.append(np.full(int(ok.sum()), shape.index, dtype=np.int32))
                orient_ids.append(np.full(int(ok.sum()), o, dtype=np.int32))
        if rows:
            sizes = np.concatenate([np.full(len(r), r.shape[1], dtype=np.int64) for r in rows])
            flat = np.concatenate([r.ravel() for r in rows]).astype(np.int32)
            shape_arr = np.concatenate(shape_ids)
            orient_arr = np.concatenate(orient_ids)
        else:
            sizes = np.zeros(0, dtype=np.int64)
            flat = np.zeros(0, dtype=np.int32)
            shape_arr = np.zeros(0, dtype=np.int32)
            orient_arr = np.zeros(0, dtype=np.int32)
        ptr = np.zeros(len(sizes) + 1, dtype=np.int32)
        np.cumsum(sizes, out=ptr[1:])
        return ImageTable(_readonly(shape_arr), _readonly(orient_arr), _readonly(ptr), _readonly(flat))

    @cached_property
    def image_parity(self) -> np.ndarray:
        """Two-colour parity of every bounded image (all 0 without a colouring)."""
        colour = self.lattice.colour(self.open_coords)
        if colour is None:
            return _readonly(np.zeros(len(self.images), dtype=np.int64))
        sums = np.add.reduceat(colour[self.images.cells], self.images.ptr[:-1]) if len(self.images) else np.zeros(0)
        return _readonly(np.asarray(sums, dtype=np.int64))

    @cached_property
    def group(self) -> SymmetryGroup:
        """The puzzle's symmetry group (see :mod:`bench.models.symmetry`)."""
        return SymmetryGroup.of(self)


def load(path, mirror: bool = False) -> list[Puzzle]:
    """Read every puzzle of a definition file (``-`` for standard input); ``mirror`` as for :class:`Puzzle`.

    Examples
    --------
    >>> import bench
    >>> [p] = bench.load("defs/pentominoes_10x6.txt")
    >>> p.dims, len(p.shapes), len(p.images)
    ((10, 6, 1), 12, 2056)
    """
    return [Puzzle.from_definition(d, mirror) for d in parse_file(path)]
