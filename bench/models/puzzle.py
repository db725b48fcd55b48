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
from bench.models.definition import UNCOLOURED, PieceDefinition, PuzzleDefinition, parse_file
from bench.models.graph import connected, embeddings
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
    minimum : int
        How many of its pieces every solution uses (the multiplicity unless
        the pieces have ``copies`` ranges or are spare).
    motions : str
        What the pieces may do (:data:`~bench.models.definition.MOTIONS`).
    colours : tuple of ndarray or None
        Per orientation, the colour number of each cell (-1: none; names in
        :attr:`Puzzle.colour_names`); None when the pieces have no colours.
    ranged : bool
        Some piece of the shape gives ``copies``.
    """

    index: int
    names: tuple[str, ...]
    cells: np.ndarray
    orientations: tuple[np.ndarray, ...]
    parity: int
    stationary: int
    minimum: int = -1
    motions: str = "all"
    colours: tuple[np.ndarray, ...] | None = None
    ranged: bool = False

    @property
    def plain(self) -> bool:
        """Pieces as polycube has them: no colours, the puzzle's motions."""
        return self.colours is None and self.motions == "all"

    @property
    def cell_colours(self) -> np.ndarray | None:
        """The colours of :attr:`cells` (the canonical orientation), or None without colours."""
        if self.colours is None:
            return None
        return next(t for o, t in zip(self.orientations, self.colours) if o is self.cells)

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
        # the axes along which the board wraps round: a cylinder (one), a torus (x and y)
        self.wrap = np.array(["xyz"[a] in definition.wrap for a in range(3)], dtype=bool)
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
        # a board given as a graph (a G block) is its listed cells: the rest of the box is no board (-2)
        self.graph = definition.graph
        if self.graph is not None:
            on_board = np.zeros(self.box_cells, dtype=bool)
            on_board[self.box_index(np.array(self.graph.cells, dtype=np.int64))] = True
            for k, piece in enumerate(stationary):
                idx = self.box_index(np.array(piece.cells, dtype=np.int64).reshape(-1, 3))
                if not on_board[idx].all():
                    cell = piece.cells[int(np.argmin(on_board[idx]))]
                    raise DefinitionError(definition.path, piece.line, f"stationary piece '{piece.name}' has cell "
                                          f"({' '.join(map(str, cell))}) off the board's graph; expected cells the "
                                          f"G block on line {self.graph.line} lists")
            grid[~on_board] = -2
        self.stationary: tuple[PieceDefinition, ...] = tuple(stationary)
        self.stationary_grid = _readonly(grid)
        self.open_box = _readonly(np.flatnonzero(grid == -1).astype(np.int32))
        box_to_open = np.full(self.box_cells, -1, dtype=np.int32)
        box_to_open[self.open_box] = np.arange(len(self.open_box), dtype=np.int32)
        self.box_to_open = _readonly(box_to_open)
        self.optional_cells = _readonly(self._optional_cells())
        self.colour_names: tuple[str, ...] = tuple(dict.fromkeys(
            [c for _, c, _ in definition.board_colours] +
            [c for p in definition.pieces if p.colours for c in p.colours if c != UNCOLOURED]))
        self.cell_colour = _readonly(self._board_colours())
        self.ranged = any(p.copies is not None for p in definition.pieces if not p.stationary and not p.optional)
        self.shapes: tuple[Shape, ...] = self._classify()
        mobile_volume = sum(s.size * s.multiplicity for s in self.shapes)
        needed = self.n_open - int(self.optional_cells.sum())
        if mobile_volume < needed:
            what = "open cells" if needed == self.n_open else "open cells that must be filled"
            raise DefinitionError(definition.path, definition.line, f"the mobile pieces have volume {mobile_volume} but the box has {needed} {what}; expected at least {needed} cells of mobile pieces")
        least = sum(s.size * s.minimum for s in self.shapes)
        if least > self.n_open:
            raise DefinitionError(definition.path, definition.line, f"the pieces every solution needs (copies=) have volume {least} but the box has {self.n_open} open cells; expected at most {self.n_open}")
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
        return self.planar and self.lattice.name == "cubic" and self.n_open == self.box_cells and self.graph is None

    @property
    def spare(self) -> bool:
        """True when a solution may leave pieces unused: their volume exceeds the open volume, or ``copies`` ranges."""
        return any(s.minimum < s.multiplicity for s in self.shapes)

    @property
    def has_optional_cells(self) -> bool:
        """True when some open cells may stay empty (``type=O``, ``L:optional=``)."""
        return bool(self.optional_cells.any())

    @property
    def plain(self) -> bool:
        """True for a puzzle as polycube has them: no colours, no optional cells, every piece the puzzle's motions.

        Copies and spare pieces are plain: the symmetry group, the filters
        and FILA treat them as before.
        """
        return not self.has_optional_cells and not self.colour_names and all(s.plain for s in self.shapes)

    def require_filled(self, what: str) -> None:
        """Refuse ``what`` (a filter or trigger that counts on every open cell being filled) for optional cells.

        Raises
        ------
        UsageError
            When some open cell may stay empty.
        """
        if self.has_optional_cells:
            from bench.errors import UsageError

            raise UsageError(f"{what} assumes every open cell is filled, and this puzzle has {int(self.optional_cells.sum())} "
                             "cells that may stay empty; leave it out (the fit filter knows them)")

    def _optional_cells(self) -> np.ndarray:
        """Per open cell, True when it may stay empty."""
        optional = np.zeros(self.n_open, dtype=bool)
        bounds = np.array(self.grid_dims)
        seen: dict[int, str] = {}
        for piece in self.definition.pieces:
            if not piece.optional:
                continue
            coords = np.array(piece.cells, dtype=np.int64).reshape(-1, 3)
            inside = np.all((coords >= 0) & (coords < bounds), axis=1)
            box = np.where(inside, self.grid_to_box[self._flat_index(np.where(inside[:, None], coords, 0))], -1)
            cells = np.where(box >= 0, self.box_to_open[np.maximum(box, 0)], -1)
            for cell, c, b in zip(coords, cells, box):
                where = "outside the box" if b < 0 else "on a stationary piece"
                if c < 0:
                    raise DefinitionError(self.definition.path, piece.line, f"optional cell ({' '.join(map(str, cell))}) "
                                          f"of '{piece.name}' is {where}; expected an open cell of the board")
                if int(c) in seen:
                    raise DefinitionError(self.definition.path, piece.line, f"cell ({' '.join(map(str, cell))}) is "
                                          f"listed as optional twice ('{seen[int(c)]}' and '{piece.name}')")
                seen[int(c)] = piece.name
            optional[cells] = True
        return optional

    def _board_colours(self) -> np.ndarray:
        """Per box cell, its colour number (-1: none)."""
        colour = np.full(self.box_cells, -1, dtype=np.int32)
        bounds = np.array(self.grid_dims)
        index = {c: k for k, c in enumerate(self.colour_names)}
        for cell, name, line in self.definition.board_colours:
            coords = np.array(cell, dtype=np.int64)
            box = int(self.box_index(coords[None, :])[0]) if np.all((coords >= 0) & (coords < bounds)) else -1
            if box < 0:
                raise DefinitionError(self.definition.path, line, f"coloured cell ({' '.join(map(str, cell))}) is "
                                      "outside the box; expected a cell of the board")
            if colour[box] >= 0 and colour[box] != index[name]:
                raise DefinitionError(self.definition.path, line, f"cell ({' '.join(map(str, cell))}) has two colours")
            colour[box] = index[name]
        return colour

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
        order): a 10x6 and a 6x10 rectangle are scanned alike.  So on the
        hexagonal one, whose index grid's two axes are lattice directions a
        reflection swaps: the Meteor board's 10 rows of 5 are scanned row by
        row (its open cells then have 8 neighbour shifts, which FILA counts
        with shifts; column by column, 50 cells in runs of up to 10, the
        scan searched 30 M nodes against 1.1 M).  Other lattices keep their
        index grid's order, whose axes are not the box's.
        """
        if self.lattice.name not in ("cubic", "hex"):
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
        if self.wrap.any():
            coords = np.where(self.wrap, coords % np.array(self.grid_dims), coords)
        inside = np.all((coords >= 0) & (coords < np.array(self.grid_dims)), axis=-1)
        box = self.box_index(np.where(inside[..., None], coords, 0))
        return np.where(inside & (box >= 0), self.box_to_open[np.maximum(box, 0)], -1)

    @cached_property
    def graph_table(self) -> np.ndarray:
        """A graph board's edges between open cells: ``int64[n_open, labels]``, the open cell each label leads to, or -1."""
        table = np.array(self.graph.neighbours, dtype=np.int64)
        if not self.n_open:
            return _readonly(np.zeros((0, table.shape[1]), dtype=np.int64))
        # graph cell -> open cell (-1 under a stationary piece)
        to_open = self.box_to_open[self.box_index(np.array(self.graph.cells, dtype=np.int64))]
        of_open = np.empty(self.n_open, dtype=np.int64)
        listed = np.flatnonzero(to_open >= 0)
        of_open[to_open[listed]] = listed
        rows = table[of_open]
        out = np.where(rows >= 0, to_open[np.maximum(rows, 0)], -1)
        # the board's group is found by following edges from one cell: the open cells must hang together
        if not connected(out):
            raise DefinitionError(self.definition.path, self.graph.line, "the stationary pieces cut the graph's open "
                                  "cells apart; expected open cells that hang together (give each part its own puzzle)")
        return _readonly(out)

    @cached_property
    def cell_neighbours(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR adjacency of the open cells: per cell its neighbours in the lattice's order (``ptr``, ``cells``)."""
        if self.graph is not None:
            nbr = self.graph_table
        else:
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
        """True when the board has a two-colouring, so parities mean something.

        The lattice's colouring, where it has one; on a wrapped board only
        when going once round keeps the colour (a 5-wide cylinder of squares
        has no checkerboard).
        """
        if not self.lattice.two_colourable:
            return False
        if self.graph is not None:
            # every edge, the seams too, must join two colours
            colour = self.lattice.colour(self.open_coords)
            table = self.graph_table
            return bool(np.all((table < 0) | (colour[np.maximum(table, 0)] != colour[:, None])))
        # a cell and its copy once round (a translate of it, of its type) must have one colour
        cell = self.box_coords[:1]
        periods = np.diag(np.array(self.grid_dims, dtype=np.int64))[self.wrap]
        return bool(np.all(self.lattice.colour(cell + periods) == self.lattice.colour(cell)))

    @property
    def wrapped(self) -> bool:
        """True for a board that wraps round (``wrap=``): a cylinder or a torus."""
        return bool(self.wrap.any())

    @cached_property
    def parity(self) -> int:
        """Two-colour parity of the open region (black minus white cells); 0 without a colouring."""
        colour = self.lattice.colour(self.open_coords) if self.has_parity else None
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

        def key_of(piece: PieceDefinition):
            if not piece.plain:
                return self.shape_key(np.array(piece.cells), self._tints(piece), piece.motions)
            if piece.cells not in keys:
                drawn = _key(self.lattice.normalize(np.array(piece.cells)))
                if drawn not in keys:
                    keys[drawn] = self.canonical_key(np.array(piece.cells))
                keys[piece.cells] = keys[drawn]
            return keys[piece.cells]

        groups: dict = {}
        for piece in self.definition.pieces:
            if not piece.stationary and not piece.optional:
                groups.setdefault(key_of(piece), []).append(piece)
        stationary_keys = [key_of(p) for p in self.stationary]
        ordered = sorted(groups.items(), key=lambda kv: min(p.name for p in kv[1]))
        # spare pieces, as polycube has them: more volume than the open cells, no piece giving copies
        spare = not self.ranged and sum(len(p.cells) for ps in groups.values() for p in ps) > self.n_open
        shapes = []
        for index, (key, pieces) in enumerate(ordered):
            first = pieces[0]
            names, lo = [], 0
            for piece in sorted(pieces, key=lambda p: p.name):
                a, b = piece.copies or (1, 1)
                b = max(a, self.n_open // len(piece.cells)) if b is None else b
                lo += a
                names += [piece.name] + [f"{piece.name}.{k}" for k in range(2, b + 1)]
            if first.plain:
                orients, tints = self.orientations_of(np.array(first.cells)), None
            else:
                orients, tints = self.coloured_orientations(np.array(first.cells), self._tints(first), first.motions)
            pick = min(range(len(orients)), key=lambda k: (_key(orients[k]), b"" if tints is None else tints[k].tobytes()))
            canonical = orients[pick] if orients else np.zeros((0, 3), np.int64)
            colour = self.lattice.colour(canonical) if orients and self.has_parity else None
            parity = 0 if colour is None else abs(int(colour.sum()))
            shapes.append(Shape(index, tuple(names), _readonly(canonical), tuple(_readonly(o) for o in orients),
                                parity, stationary_keys.count(key), 0 if spare else lo, first.motions or "all",
                                None if tints is None else tuple(_readonly(t) for t in tints),
                                any(p.copies is not None for p in pieces)))
        return tuple(shapes)

    def _tints(self, piece: PieceDefinition) -> np.ndarray:
        """The colour number of each cell of a piece as defined (-1: none)."""
        if piece.colours is None:
            return np.full(len(piece.cells), -1, dtype=np.int64)
        index = {c: k for k, c in enumerate(self.colour_names)}
        return np.array([index.get(c, -1) for c in piece.colours], dtype=np.int64)

    def piece_motions(self, motions: str | None) -> np.ndarray:
        """The lattice motions a piece with ``motions=`` may undergo in this puzzle (a subgroup of :meth:`allowed_motions`)."""
        allowed = self.allowed_motions()
        lattice = self.lattice
        keep = []
        for m in allowed:
            g = lattice.motions[int(m)].matrix
            z_kept = not g[2, :2].any() and not g[:2, 2].any()
            if motions == "fixed":
                ok = int(m) == 0
            elif motions == "turns":
                ok = lattice.is_proper(g) and (lattice.flat or g[2, 2] == 1 or not self.planar)
            elif motions == "upright":
                ok = z_kept
            else:
                ok = True
            if ok:
                keep.append(int(m))
        return np.array(keep, dtype=np.int64)

    def coloured_orientations(self, cells: np.ndarray, tints: np.ndarray, motions: str | None):
        """Distinct orientations of a piece with colours or restricted motions: ``(cells list, colours list)``.

        Each orientation's rows are in lexicographic order, its colours
        following them; two orientations are one when both agree.  In a flat
        puzzle of a 3-D lattice the piece must be drawn in the layer.
        """
        cells = np.asarray(cells, dtype=np.int64)
        if self.planar and not self.lattice.flat and np.ptp(cells[:, 2]):
            raise DefinitionError(self.definition.path, self.definition.line, "a piece with colours or motions= in "
                                  "a flat puzzle must be drawn in its layer (one z)")
        seen: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        for m in self.piece_motions(motions):
            moved = self.lattice.apply(int(m), cells)
            moved = moved - self.lattice.canonical_shift(moved)
            order = np.lexsort(moved.T[::-1])
            o, t = moved[order], tints[order]
            seen.setdefault(o.tobytes() + t.tobytes(), (o, t))
        return [o for o, _ in seen.values()], [t for _, t in seen.values()]

    def shape_key(self, cells: np.ndarray, tints: np.ndarray | None, motions: str | None):
        """Equal for two pieces exactly when they have the same images: the same cells and colours up to their motions.

        A plain piece's key is :meth:`canonical_key`'s.
        """
        if (tints is None or (tints < 0).all()) and motions in (None, "all"):
            return self.canonical_key(cells)
        tints = np.full(len(cells), -1, dtype=np.int64) if tints is None else tints
        orients, colours = self.coloured_orientations(cells, tints, motions)
        return (motions or "all", min(o.tobytes() + t.tobytes() for o, t in zip(orients, colours)))

    # -- images --------------------------------------------------------------

    @cached_property
    def images(self) -> ImageTable:
        """All bounded images of all mobile shapes."""
        if self.graph is not None:
            return self._graph_images()
        grid = np.array(self.grid_dims, dtype=np.int64)
        moving = self.lattice.translation_axes.astype(bool)
        shape_ids, orient_ids, rows = [], [], []
        for shape in self.shapes:
            # two coloured orientations that lie on the same cells are one placement (colours only say where a piece
            # may lie): the first is kept
            placed_cells: set[bytes] = set()
            wrapped: set[bytes] = set()
            for o, cells in enumerate(shape.orientations):
                low = np.where(moving, -cells.min(axis=0), 0)
                high = np.where(moving, grid - 1 - cells.max(axis=0), 0)
                # round a wrapped axis every start is a place (orientations start at 0 on translation axes)
                low = np.where(self.wrap, 0, low)
                high = np.where(self.wrap, grid - 1, high)
                if np.any(high < low):
                    continue
                shifts = np.stack(np.meshgrid(*(np.arange(a, b + 1) for a, b in zip(low, high)), indexing="ij"), axis=-1)
                shifts = shifts.reshape(-1, 3)
                shifts = shifts[self.lattice.is_translation(shifts)]
                moved = shifts[:, None, :] + cells[None, :, :]
                if self.wrapped:
                    moved = np.where(self.wrap, moved % grid, moved)
                placed = self.box_index(moved)
                open_idx = np.where(placed >= 0, self.box_to_open[np.maximum(placed, 0)], -1)
                ok = np.all(open_idx >= 0, axis=1)
                if self.wrapped:
                    # a piece longer than the way round overlaps itself; one that goes all the way round is
                    # the same image from several starts
                    ordered = np.sort(open_idx, axis=1)
                    ok &= np.all(np.diff(ordered, axis=1) > 0, axis=1)
                    for k in np.flatnonzero(ok):
                        key = ordered[k].tobytes()
                        ok[k] = key not in wrapped
                        wrapped.add(key)
                    open_idx = ordered
                if shape.colours is not None:
                    # a coloured cell of the piece covers a board cell of its colour only
                    tint = shape.colours[o]
                    board = self.cell_colour[np.maximum(placed, 0)]
                    ok &= np.all((tint[None, :] < 0) | (board == tint[None, :]), axis=1)
                if shape.colours is not None:
                    for k in np.flatnonzero(ok):
                        key = np.sort(open_idx[k]).tobytes()
                        ok[k] = key not in placed_cells
                        placed_cells.add(key)
                if not ok.any():
                    continue
                # cells are sorted in priority order and translation keeps that order
                rows.append(open_idx[ok])
                shape_ids.append(np.full(int(ok.sum()), shape.index, dtype=np.int32))
                orient_ids.append(np.full(int(ok.sum()), o, dtype=np.int32))
        return _image_table(rows, shape_ids, orient_ids)

    def _graph_images(self) -> ImageTable:
        """A graph board's images: every orientation placed on the board by its labelled edges (:func:`embeddings`)."""
        types = self.lattice.type_of(self.open_coords)
        shape_ids, orient_ids, rows = [], [], []
        for shape in self.shapes:
            seen: set[bytes] = set()
            for o, cells in enumerate(shape.orientations):
                # the embedding keeps the piece's cell order: each coloured cell on a board cell of its colour
                unsorted = embeddings(self.lattice, self.graph_table, types, cells)
                placed = np.sort(unsorted, axis=1)
                ok = np.ones(len(placed), dtype=bool)
                if shape.colours is not None:
                    tint = shape.colours[o]
                    board = self.cell_colour[self.open_box[unsorted]]
                    ok &= np.all((tint[None, :] < 0) | (board == tint[None, :]), axis=1)
                # one placement per set of cells: a symmetric piece, or one laid round the board, lands alike twice
                for k in np.flatnonzero(ok):
                    key = placed[k].tobytes()
                    ok[k] = key not in seen
                    seen.add(key)
                if ok.any():
                    rows.append(placed[ok])
                    shape_ids.append(np.full(int(ok.sum()), shape.index, dtype=np.int32))
                    orient_ids.append(np.full(int(ok.sum()), o, dtype=np.int32))
        return _image_table(rows, shape_ids, orient_ids)

    @cached_property
    def image_parity(self) -> np.ndarray:
        """Two-colour parity of every bounded image (all 0 without a colouring)."""
        colour = self.lattice.colour(self.open_coords) if self.has_parity else None
        if colour is None:
            return _readonly(np.zeros(len(self.images), dtype=np.int64))
        sums = np.add.reduceat(colour[self.images.cells], self.images.ptr[:-1]) if len(self.images) else np.zeros(0)
        return _readonly(np.asarray(sums, dtype=np.int64))

    @cached_property
    def group(self) -> SymmetryGroup:
        """The puzzle's symmetry group (see :mod:`bench.models.symmetry`)."""
        return SymmetryGroup.of(self)


def _image_table(rows, shape_ids, orient_ids) -> ImageTable:
    """The :class:`ImageTable` of blocks of image rows, each block with its shape and orientation numbers."""
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


def load(path, mirror: bool = False) -> list[Puzzle]:
    """Read every puzzle of a definition file (``-`` for standard input); ``mirror`` as for :class:`Puzzle`.

    A matrix in an exchange format (``*.xcc``, ``*.dlx``, ``*.json``) is
    read as one :class:`~bench.formats.matrix.Matrix`.

    Examples
    --------
    >>> import bench
    >>> [p] = bench.load("defs/pentominoes_10x6.txt")
    >>> p.dims, len(p.shapes), len(p.images)
    ((10, 6, 1), 12, 2056)
    >>> [m] = bench.load("defs/queens_8.xcc")
    >>> m.cover.n_options, m.convention
    (64, 'none')
    """
    from bench.formats import matrix_format

    fmt = matrix_format(str(path))
    if fmt is not None:
        from bench.formats.matrix import load_matrix

        return [load_matrix(str(path), fmt)]
    return [Puzzle.from_definition(d, mirror) for d in parse_file(path)]
