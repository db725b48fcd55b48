"""Symmetry: the puzzle's group, the rotational-redundancy filter, exact counts.

**The group.**  A motion of the lattice belongs to the puzzle's symmetry
group when, followed by a lattice translation, it maps the open region onto
itself, and it maps the multiset of mobile shapes onto itself.  Stationary
pieces are part of the container: only the shape of the open region counts,
not the bounding box, so a hexagon drawn in a parallelogram keeps its six
turns.  Motions that move every open cell alike are one element of the
group: the reflection in the plane of a flat region (the turn about the
line of a straight one) leaves each of its cells where it is, so it is the
identity of that puzzle, not a second element, and the group's order counts
distinct cell maps; the first motion of each is kept (proper motions come
first).  The candidates are the motions a piece may undergo with both sides
allowed (:meth:`~bench.models.lattice.Lattice.allowed_motions`): the 24
rotations of a cubic 3-D puzzle, the 8 turns and flips that keep a square
puzzle's plane, the 12 of a hexagon or triangle puzzle.  In a one-sided
puzzle a flip turns every piece into its mirror image, so it qualifies only
when the piece set is closed under mirroring with equal multiplicities.

Under the ``mirror`` convention (:attr:`Puzzle.convention`) a 3-D puzzle's
candidates are all the lattice's motions, reflections included (48 for
cubes and spheres, 24 for hexagonal prisms); a reflection qualifies, like a
one-sided flip, only when it maps the piece multiset onto itself (the Soma
cube: it swaps the chiral pair, so its 480 solutions up to rotation are
240 up to reflection).  A flat puzzle's candidates already hold its plane's
reflections, so there the two conventions are one.

**The redundancy filter** (polycube ``-r``) picks a piece whose shape is
unique and keeps one image per orbit of the subgroup G0 that maps its shape
to itself: the lexicographically smallest (by sorted cell numbers).  Every
orbit of solutions then still contains at least one cover of the filtered
matrix.

**Exact counts** (covers, unique, total) are decided by
:mod:`bench.kernels.canonical`, from the tables this module computes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from bench.errors import UsageError
from bench.models.graph import automorphisms, label_maps, respects
from bench.models.methods import REDUNDANCY_METHODS

MAX_GROUP_ORDER = 4096


def match_rows(reference: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Index of each query row in ``reference`` (rows must be unique), or -1."""
    reference = np.ascontiguousarray(reference, dtype=np.int64)
    queries = np.ascontiguousarray(queries, dtype=np.int64)
    if len(reference) == 0:
        return np.full(len(queries), -1, dtype=np.int64)
    row = np.dtype((np.void, reference.shape[1] * 8))
    ref = reference.view(row).ravel()
    qry = queries.view(row).ravel()
    order = np.argsort(ref, kind="stable")
    ordered = ref[order]
    pos = np.minimum(np.searchsorted(ordered, qry), len(ordered) - 1)
    return np.where(ordered[pos] == qry, order[pos], -1)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


CONVENTION_ROTATIONS = "rotations"
"""Unique counts up to the motions the pieces make: 3-D rotations (in a flat puzzle its turns and flips)."""
CONVENTION_MIRROR = "mirror"
"""Unique counts up to rotations and reflections, a reflection counting when it maps the piece set onto itself."""
CONVENTION_NONE = "none"
"""No symmetry assumed: unique = total = covers (a matrix read from an exchange file, :mod:`bench.formats.matrix`)."""
CONVENTIONS = (CONVENTION_ROTATIONS, CONVENTION_MIRROR, CONVENTION_NONE)


def _map_images(images, cell_perm: np.ndarray, shape_perm: np.ndarray) -> np.ndarray:
    """``int32[elements, n_images]``: the image each element (cell and shape permutations) turns each image into, -1
    where the moved cells are no image of the shape it goes to."""
    out = np.full((len(cell_perm), len(images)), -1, dtype=np.int32)
    sizes = np.diff(images.ptr)
    for size in np.unique(sizes):
        ids = np.flatnonzero(sizes == size)
        rows = images.rows(ids)
        shapes = images.shape[ids].astype(np.int64)
        reference = np.column_stack([shapes, rows])
        for g in range(len(cell_perm)):
            moved = np.sort(cell_perm[g][rows], axis=1)
            query = np.column_stack([shape_perm[g][shapes], moved])
            found = match_rows(reference, query)
            out[g, ids] = np.where(found >= 0, ids[found], -1)
    return out


@dataclass(frozen=True, eq=False)
class SymmetryGroup:
    """The symmetry group of one puzzle, as permutations.

    Attributes
    ----------
    motions : ndarray
        Lattice motion numbers, identity first.
    names : tuple of str
        A readable name per element, such as ``(-x,-y,z)``.
    cell_perm : ndarray
        ``int32[order, n_open]``: open cell c goes to ``cell_perm[g, c]``.
    shape_perm : ndarray
        ``int32[order, n_shapes]``: what each element does to the shapes
        (the identity except for flips of one-sided puzzles).
    """

    puzzle: object
    motions: np.ndarray
    names: tuple[str, ...]
    cell_perm: np.ndarray
    shape_perm: np.ndarray

    @property
    def order(self) -> int:
        """Number of elements."""
        return len(self.motions)

    @classmethod
    def of(cls, puzzle) -> "SymmetryGroup":
        """Compute the symmetry group of a :class:`~bench.models.puzzle.Puzzle`."""
        lattice = puzzle.lattice
        candidates = lattice.allowed_motions(puzzle.dims, False)
        if puzzle.convention == CONVENTION_MIRROR and not puzzle.planar:
            # every motion of the lattice: a reflection maps each chiral piece to its mirror image, and the
            # shape test below keeps it only when the piece multiset goes onto itself
            candidates = np.arange(len(lattice.motions))
        cells = puzzle.open_coords
        home = lattice.canonical_shift(cells) if len(cells) else np.zeros(3, dtype=np.int64)
        low = cells.min(axis=0) if len(cells) else np.zeros(3, dtype=np.int64)
        keys = {cls._key(puzzle, s, s.cells): s.index for s in puzzle.shapes}
        board = puzzle.cell_colour[puzzle.open_box]
        # a motion a piece may undergo maps every piece onto its own shape (the keys are minima over those
        # motions, which form a group): only the others need the keys of the moved pieces
        own = {int(m) for m in puzzle.allowed_motions()}
        motions, names, perms, shape_perms = [], [], [], []
        seen = set()
        for m, step, perm in cls._cell_maps(puzzle, candidates, cells, home, low):
            if perm is None or np.any(perm < 0) or perm.tobytes() in seen or len(np.unique(perm)) < len(perm):
                continue
            # the cells that may stay empty and the board's colours go onto themselves
            if np.any(puzzle.optional_cells[perm] != puzzle.optional_cells) or np.any(board[perm] != board):
                continue
            shape_perm = []
            for shape in puzzle.shapes:
                moved_shape = lattice.apply(m, shape.cells)
                target = shape.index if m in own and shape.plain else keys.get(cls._key(puzzle, shape, moved_shape))
                if target is None or (puzzle.shapes[target].multiplicity, puzzle.shapes[target].minimum) != \
                        (shape.multiplicity, shape.minimum):
                    break
                shape_perm.append(target)
            else:
                if not puzzle.plain and not cls._keeps_images(puzzle, perm, shape_perm):
                    continue
                seen.add(perm.tobytes())
                motions.append(m)
                names.append(lattice.describe(lattice.motions[m]) + ("+" + ",".join(map(str, step[puzzle.wrap]))
                                                                     if step.any() else ""))
                perms.append(perm)
                shape_perms.append(shape_perm)
        if len(motions) > MAX_GROUP_ORDER:
            raise AssertionError(f"group of order {len(motions)} exceeds {MAX_GROUP_ORDER}")
        cell_perm = np.array(perms, dtype=np.int32).reshape(len(motions), puzzle.n_open)
        shape_perm = np.array(shape_perms, dtype=np.int32).reshape(len(motions), len(puzzle.shapes))
        return cls(puzzle, _readonly(np.array(motions, dtype=np.int64)), tuple(names),
                   _readonly(cell_perm), _readonly(shape_perm))

    @classmethod
    def _cell_maps(cls, puzzle, candidates, cells, home, low):
        """``(motion, translation, cell map)`` of each candidate: the motion followed by the translation that brings
        the region home (None where none does), on a graph board every label-respecting automorphism of the motion."""
        lattice = puzzle.lattice
        if puzzle.graph is not None:
            if not len(cells):
                return
            to_type, to_label = label_maps(lattice)
            types = lattice.type_of(cells)
            zero = np.zeros(3, dtype=np.int64)
            for m in candidates:
                for perm in automorphisms(puzzle.graph_table, types, to_type[int(m)], to_label[int(m)]):
                    yield int(m), zero, perm
            return
        if puzzle.wrapped and len(cells):
            # round a seam a motion need not map the whole board onto itself, only the open cells with their labelled
            # edges (the stationary pieces are the container): each map found is checked edge by edge
            to_type, to_label = label_maps(lattice)
            types = lattice.type_of(cells)
            table = puzzle.open_index(lattice.neighbours(cells))
        for m, step in cls._placements(puzzle, candidates):
            moved = lattice.apply(m, cells)
            # the translation that takes the moved region back home, if it is the same region; round a wrapped
            # board every translation along it is tried (``step``), the others must bring the extent back
            if len(cells) and puzzle.wrapped:
                # along an axis that does not wrap the region's extent comes back home; the shift must be a translation
                shift = (low - moved.min(axis=0)) * lattice.translation_axes * ~puzzle.wrap + step
                if not lattice.is_translation(shift[None, :])[0]:
                    yield m, step, None
                    continue
                moved += shift
                perm = puzzle.open_index(moved)
                yield m, step, perm if respects(table, types, perm, to_type[m], to_label[m]) else None
                continue
            elif len(cells):
                moved += home - lattice.canonical_shift(moved)
            yield m, step, puzzle.open_index(moved)

    @staticmethod
    def _placements(puzzle, candidates):
        """``(motion, translation)`` pairs to try: each candidate motion, and on a wrapped board each one with every
        translation round it."""
        zero = np.zeros(3, dtype=np.int64)
        if not puzzle.wrapped:
            return [(int(m), zero) for m in candidates]
        grid = np.array(puzzle.grid_dims, dtype=np.int64)
        steps = np.stack(np.meshgrid(*(np.arange(n) if w else np.zeros(1, dtype=np.int64)
                                       for n, w in zip(grid, puzzle.wrap)), indexing="ij"), axis=-1).reshape(-1, 3)
        return [(int(m), step) for m in candidates for step in steps]

    @staticmethod
    def _key(puzzle, shape, cells) -> object:
        """The key of ``cells`` moved from ``shape``: :meth:`~bench.models.puzzle.Puzzle.shape_key` with its colours and motions.

        Moving the canonical orientation keeps its rows in order, so its
        colours (those of orientation 0) stay with them.
        """
        if shape.plain:
            return puzzle.canonical_key(cells)
        return puzzle.shape_key(cells, shape.cell_colours, shape.motions)

    @staticmethod
    def _keeps_images(puzzle, perm: np.ndarray, shape_perm: list[int]) -> bool:
        """True when the element maps every bounded image onto a bounded image (pieces whose colours or motions
        a motion of the region alone need not respect)."""
        return bool((_map_images(puzzle.images, perm[None, :], np.array([shape_perm], dtype=np.int32)) >= 0).all())

    @cached_property
    def image_map(self) -> np.ndarray:
        """``int32[order, n_images]``: the image each element turns each image into."""
        out = _map_images(self.puzzle.images, self.cell_perm, self.shape_perm)
        if np.any(out < 0):
            raise AssertionError("a symmetry maps a bounded image outside the open region")
        return _readonly(out)


@dataclass(frozen=True, eq=False)
class Redundancy:
    """The rotational-redundancy filter applied to one piece.

    Attributes
    ----------
    shape : int
        The constrained shape.
    piece : str
        Its piece name.
    kept : ndarray
        Image numbers kept (one per orbit of ``subgroup_order`` elements).
    images : int
        Images of the piece before filtering.
    stabilizers : ndarray
        Order of the stabilizer (within the subgroup) of each kept image.
    score : float
        Expected covers per unique solution among solutions that use the
        piece: the subgroup's index times the mean stabilizer order.
    always_used : bool
        Every solution uses the piece (false with spare pieces, where a
        solution without it is not constrained at all).
    """

    shape: int
    piece: str
    kept: np.ndarray
    images: int
    subgroup_order: int
    stabilizers: np.ndarray
    score: float
    always_used: bool
    method: str = "orientation"

    @property
    def perfect(self) -> bool:
        """True when the filter leaves no rotationally redundant covers."""
        return self.score == 1.0 and self.always_used


def redundancy_for_shape(puzzle, shape: int, method: str = "orientation") -> Redundancy:
    """The redundancy filter that constrains one (unique) shape.

    ``orbit`` keeps the lexicographically smallest image of each orbit, its
    cells numbered in the box's scan order (:attr:`Puzzle.scan_axes`), so
    the choice depends neither on how the piece nor on how the box is drawn.
    ``orientation`` works as polycube does: it first keeps one orientation per
    orbit of the group acting on the piece's orientations (the orientation
    the piece is drawn in where possible), then, among the images in a kept
    orientation, the smallest image of each orbit of the elements that fix
    that orientation.  Both keep at least one image of every orbit; they
    coincide for the X of 10x6, and ``orientation`` holds the L of the Tetris
    Cube to its drawn orientation, as polycube's ``-r L`` does.
    """
    group = puzzle.group
    images = puzzle.images
    ids = images.of_shape(shape)
    sub = np.flatnonzero(group.shape_perm[:, shape] == shape)
    position = np.full(len(images), -1, dtype=np.int64)
    position[ids] = np.arange(len(ids))
    rows = images.rows(ids)
    if method == "orbit":
        # compared in the box's scan order, the smallest image is the same whichever way the box is drawn
        rows = np.sort(puzzle.scan_rank[rows], axis=1)
    rank = np.empty(len(ids), dtype=np.int64)
    if len(ids):
        rank[np.lexsort(rows.T[::-1])] = np.arange(len(ids))
    mapped = group.image_map[sub][:, ids]
    orbit_min = rank[position[mapped]].min(axis=0) if len(ids) else rank
    representative = rank == orbit_min
    target = puzzle.shapes[shape]
    if method == "orientation" and not target.plain:
        # orientations of coloured cells or restricted motions are not the lattice's: the smallest image per orbit
        method = "orbit"
    if method == "orbit":
        keep = representative
    elif method == "orientation":
        keys = {o.tobytes(): k for k, o in enumerate(target.orientations)}
        # moves[g, r]: the orientation element g turns orientation r into
        lattice = puzzle.lattice
        moves = np.array([[keys[lattice.normalize(lattice.apply(int(group.motions[g]), o)).tobytes()]
                           for o in target.orientations] for g in sub])
        drawn = next(p for p in puzzle.definition.pieces if p.name == target.name)
        # a piece drawn out of the puzzle's layer prefers its first orientation in the layer
        preferred = keys.get(lattice.normalize(np.array(drawn.cells)).tobytes(), 0)
        kept_orient = {min(set(moves[:, r]), key=lambda q: (q != preferred, q)) for r in range(len(target.orientations))}
        orient = images.orientation[ids]
        fixes = moves[:, orient] == orient[None, :]
        same_orbit_rank = np.where(fixes, rank[position[mapped]], np.iinfo(np.int64).max).min(axis=0)
        keep = np.isin(orient, list(kept_orient)) & (rank == same_orbit_rank)
    else:
        raise UsageError(f"unknown redundancy method '{method}'; expected one of: {', '.join(REDUNDANCY_METHODS)}")
    stabilizers = (mapped == ids[None, :]).sum(axis=0)[keep]
    orbits = max(int(representative.sum()), 1)
    score = (group.order / len(sub)) * float(stabilizers.sum()) / orbits if len(ids) else 1.0
    return Redundancy(shape, target.name, _readonly(ids[keep].astype(np.int32)), len(ids),
                      len(sub), _readonly(stabilizers.astype(np.int64)), score, target.minimum >= 1, method)


def choose_redundancy(puzzle, piece: str | None = None, method: str = "orientation") -> Redundancy | None:
    """Pick the piece to constrain, or check the one the user named.

    With ``piece=None`` every mobile piece whose shape is unique and that fits
    somewhere is tried; the one with the lowest score wins, then the one with
    the fewest kept images, then the larger piece, then the first shape.
    Returns None when the group is trivial or no piece qualifies.

    Raises
    ------
    UsageError
        When the named piece does not exist, is stationary, or shares its
        shape with another piece.
    """
    if piece is not None:
        for shape in puzzle.shapes:
            if piece in shape.names:
                if shape.multiplicity > 1:
                    raise UsageError(f"cannot constrain piece '{piece}': {shape.multiplicity} pieces share its shape ({' '.join(shape.names)}); the redundancy filter needs a piece with a unique shape")
                if puzzle.group.order == 1:
                    return None
                return redundancy_for_shape(puzzle, shape.index, method)
        stationary = {p.name for p in puzzle.stationary}
        what = "is stationary" if piece in stationary else "is not a piece of this puzzle"
        choices = " ".join(s.name for s in puzzle.shapes if s.multiplicity == 1) or "none"
        raise UsageError(f"cannot constrain piece '{piece}': it {what}; pieces with a unique shape: {choices}")
    if puzzle.group.order == 1:
        return None
    best = None
    for shape in puzzle.shapes:
        if shape.multiplicity != 1 or not np.any(puzzle.images.shape == shape.index):
            continue
        cand = redundancy_for_shape(puzzle, shape.index, method)
        key = (cand.score, len(cand.kept), -shape.size, shape.index)
        if best is None or key < best[0]:
            best = (key, cand)
    return best[1] if best else None
