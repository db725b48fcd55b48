"""The one exact-cover matrix every engine solves.

Vocabulary follows Knuth: *items* are the columns, *options* the rows.  A
:class:`Cover` built from a puzzle has

* one **cell item** per open cell (items ``0 .. n_cells - 1``, in cell priority
  order), to be covered exactly once (at most once for an optional cell);
* one **shape item** per mobile shape (items ``n_cells ..``), to be covered
  exactly k times for a shape of multiplicity k, or at most k times when the
  pieces have more volume than the open region (spare pieces), or between
  the bounds of its pieces' ``copies`` ranges;
* one **option** per bounded image kept by the filters: its cells, then its
  shape item.

Identical pieces are one shape item with a multiplicity, so no engine ever
enumerates their permutations.  The matrix is stored in CSR form as flat int32
arrays (``opt_ptr``, ``opt_items``); item multiplicities are the bounds
``item_lo <= count <= item_hi``.

A cover read from an exchange file (:mod:`bench.formats`) may also carry
Knuth's *colours* (``opt_colour``, one per entry of ``opt_items``; 0 for
none) on items that may stay uncovered (bounds 0..1, his secondary items):
options that give such an item the same colour may share it, an option
that gives it no colour owns it.  The object is immutable: arrays are
read-only, and :attr:`Cover.hash` identifies the counting problem (matrix and
symmetry tables) so that counts of different encodings are never compared.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

from bench.errors import CoverError
from bench.models.symmetry import Redundancy, choose_redundancy


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class CoverSymmetry:
    """The puzzle's symmetry group restricted to the options of one cover.

    ``opt_map[g, o]`` is the option element g turns option o into, or -1 when
    that image was filtered out; ``cell_inv[g, c]`` is the cell g sends to c;
    bit g of ``opt_gmask[o]`` says ``opt_map[g, o] >= 0``.
    """

    names: tuple[str, ...]
    cell_perm: np.ndarray
    cell_inv: np.ndarray
    opt_map: np.ndarray
    opt_gmask: np.ndarray

    @property
    def order(self) -> int:
        """Order of the group."""
        return len(self.names)

    @classmethod
    def trivial(cls, n_cells: int, n_options: int) -> "CoverSymmetry":
        """The group with only the identity."""
        ident = np.arange(n_cells, dtype=np.int32)[None, :]
        return cls(("identity",), _readonly(ident.copy()), _readonly(ident.copy()),
                   _readonly(np.arange(n_options, dtype=np.int32)[None, :]),
                   _readonly(np.ones(n_options, dtype=np.uint64)))

    @classmethod
    def from_maps(cls, names, cell_perm: np.ndarray, opt_map: np.ndarray) -> "CoverSymmetry":
        """Build from the cell permutations and option maps of each element."""
        cell_perm = np.asarray(cell_perm, dtype=np.int32)
        opt_map = np.asarray(opt_map, dtype=np.int32)
        cell_inv = np.empty_like(cell_perm)
        rows = np.arange(cell_perm.shape[0])[:, None]
        cell_inv[rows, cell_perm] = np.arange(cell_perm.shape[1], dtype=np.int32)[None, :]
        # one bit for each of the first 64 elements; classify_cover checks the others in opt_map
        first = opt_map[:64]
        bits = (np.uint64(1) << np.arange(first.shape[0], dtype=np.uint64))[:, None]
        gmask = np.bitwise_or.reduce(np.where(first >= 0, bits, np.uint64(0)), axis=0)
        return cls(tuple(names), _readonly(cell_perm), _readonly(cell_inv), _readonly(opt_map),
                   _readonly(np.asarray(gmask, dtype=np.uint64).reshape(opt_map.shape[1])))


@dataclass(frozen=True, eq=False)
class Cover:
    """An exact-cover problem with item multiplicities, as flat arrays.

    Attributes
    ----------
    opt_ptr : int32[n_options + 1]
        Option o covers ``opt_items[opt_ptr[o]:opt_ptr[o+1]]``.
    opt_items : int32[nnz]
        Item numbers, ascending within each option.
    item_lo, item_hi : int32[n_items]
        Each item must be covered between ``lo`` and ``hi`` times.
    n_cells : int
        The first ``n_cells`` items are cells (bounds 1..1, or 0..1 for a
        cell that may stay empty); the canonical check and the geometric
        heuristics look at them only.
    item_names : tuple of str
        A name per item, for messages and output.
    symmetry : CoverSymmetry
        The group acting on the options (trivial for synthetic covers).
    opt_image : int32[n_options] or None
        The puzzle image of each option.
    puzzle : Puzzle or None
        Where the cover came from, for decoding solutions.
    redundancy : Redundancy or None
        The rotational-redundancy filter applied, if any.
    opt_colour : int32[nnz] or None
        The colour of each entry of ``opt_items`` (0: none), or None when no
        entry has one.
    colour_names : tuple of str
        The name of colour k at index k - 1.
    """

    opt_ptr: np.ndarray
    opt_items: np.ndarray
    item_lo: np.ndarray
    item_hi: np.ndarray
    n_cells: int
    item_names: tuple[str, ...]
    symmetry: CoverSymmetry
    opt_image: np.ndarray | None = None
    puzzle: object = None
    redundancy: Redundancy | None = None
    opt_colour: np.ndarray | None = None
    colour_names: tuple[str, ...] = ()

    # -- construction ----------------------------------------------------------

    @classmethod
    def from_puzzle(cls, puzzle, redundancy: bool | str | None = None, method: str = "orientation") -> "Cover":
        """Encode a puzzle as an exact-cover matrix.

        Parameters
        ----------
        puzzle : Puzzle
        redundancy : None, False, True or str
            Apply the rotational-redundancy filter: ``True`` picks the piece
            automatically, a string names it, ``None``/``False`` turns it off.
        method : str
            ``orientation`` (polycube's way: one orientation per orbit, the
            drawn one where possible, then one translation per orbit) or
            ``orbit`` (the smallest image of each orbit); see
            :func:`~bench.models.symmetry.redundancy_for_shape`.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/pentominoes_10x6.txt")
        >>> cover = Cover.from_puzzle(p, redundancy=True)
        >>> cover.redundancy.piece, len(cover.redundancy.kept), cover.n_options
        ('X', 8, 2032)
        """
        if redundancy is True:
            red = choose_redundancy(puzzle, method=method)
        elif redundancy:
            red = choose_redundancy(puzzle, str(redundancy), method)
        else:
            red = None
        images = puzzle.images
        keep = np.ones(len(images), dtype=bool)
        if red is not None:
            keep[images.of_shape(red.shape)] = False
            keep[red.kept] = True
        image_ids = np.flatnonzero(keep).astype(np.int32)
        n_cells = puzzle.n_open
        lengths = np.diff(images.ptr)[image_ids].astype(np.int64)
        opt_ptr = np.zeros(len(image_ids) + 1, dtype=np.int64)
        np.cumsum(lengths + 1, out=opt_ptr[1:])
        opt_items = np.empty(int(opt_ptr[-1]), dtype=np.int32)
        shape_slot = opt_ptr[1:] - 1
        is_cell = np.ones(len(opt_items), dtype=bool)
        is_cell[shape_slot] = False
        before = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if len(lengths) else np.zeros(0, np.int64)
        gather = np.repeat(images.ptr[image_ids].astype(np.int64) - before, lengths) + np.arange(int(lengths.sum()))
        opt_items[is_cell] = images.cells[gather]
        opt_items[shape_slot] = n_cells + images.shape[image_ids]
        mult = np.array([s.multiplicity for s in puzzle.shapes], dtype=np.int32)
        least = np.array([s.minimum for s in puzzle.shapes], dtype=np.int32)
        item_lo = np.concatenate([(~puzzle.optional_cells).astype(np.int32), least])
        item_hi = np.concatenate([np.ones(n_cells, np.int32), mult])
        names = tuple("({},{},{})".format(*map(int, c)) for c in puzzle.open_coords)
        names += tuple(f"{s.name}*{s.minimum}..{s.multiplicity}" if s.ranged and s.minimum != s.multiplicity else
                       s.name if s.multiplicity == 1 else f"{s.name}*{s.multiplicity}" for s in puzzle.shapes)
        group = puzzle.group
        image_to_option = np.full(len(images), -1, dtype=np.int32)
        image_to_option[image_ids] = np.arange(len(image_ids), dtype=np.int32)
        opt_map = image_to_option[group.image_map[:, image_ids]] if len(image_ids) else np.zeros((group.order, 0), np.int32)
        symmetry = CoverSymmetry.from_maps(group.names, group.cell_perm, opt_map)
        cover = cls(_readonly(opt_ptr.astype(np.int32)), _readonly(opt_items), _readonly(item_lo), _readonly(item_hi),
                    n_cells, names, symmetry, _readonly(image_ids), puzzle, red)
        cover.validate()
        return cover

    def keep_options(self, keep: np.ndarray) -> "Cover":
        """The same cover with only the options where ``keep`` is true (filters use this).

        Symmetry maps are renumbered; an option whose image under a group
        element was dropped maps to -1 there, as for the redundancy filter.
        """
        keep = np.asarray(keep, dtype=bool)
        ids = np.flatnonzero(keep)
        lengths = np.diff(self.opt_ptr)[ids]
        opt_ptr = np.zeros(len(ids) + 1, dtype=np.int32)
        np.cumsum(lengths, out=opt_ptr[1:])
        starts = np.repeat(self.opt_ptr[ids] - opt_ptr[:-1], lengths) + np.arange(int(lengths.sum()))
        renumber = np.full(self.n_options + 1, -1, dtype=np.int32)
        renumber[ids] = np.arange(len(ids), dtype=np.int32)
        sym = self.symmetry
        opt_map = renumber[sym.opt_map[:, ids]]
        symmetry = CoverSymmetry.from_maps(sym.names, sym.cell_perm, opt_map)
        image = None if self.opt_image is None else _readonly(self.opt_image[ids])
        colour = None if self.opt_colour is None else _readonly(self.opt_colour[starts])
        # a subset of a valid cover's options is valid: no second check (a millisecond per 2000 options, paid by
        # every filter and by the automatic configuration's choice)
        return Cover(_readonly(opt_ptr), _readonly(self.opt_items[starts]), self.item_lo, self.item_hi, self.n_cells,
                     self.item_names, symmetry, image, self.puzzle, self.redundancy, colour, self.colour_names)

    @classmethod
    def from_options(cls, options: Sequence[Sequence[int]], item_lo: Sequence[int], item_hi: Sequence[int] | None = None,
                     n_cells: int = 0, item_names: Sequence[str] | None = None,
                     colours: Sequence[Sequence[int]] | None = None,
                     colour_names: Sequence[str] = ()) -> "Cover":
        """Build a cover from plain lists, with the trivial symmetry group.

        ``colours`` gives each entry of ``options`` its colour (0: none,
        k: ``colour_names[k - 1]``), in the order the entries are given.

        Examples
        --------
        Knuth's example from *Dancing Links* (items a..g, one solution):

        >>> rows = [[2, 4], [0, 3, 6], [1, 2, 5], [0, 3, 5], [1, 6], [3, 4, 6]]
        >>> cover = Cover.from_options(rows, [1] * 7)
        >>> cover.n_items, cover.n_options
        (7, 6)
        """
        lo = np.asarray(item_lo, dtype=np.int32)
        hi = lo.copy() if item_hi is None else np.asarray(item_hi, dtype=np.int32)
        if colours is None:
            rows = [sorted((int(i), 0) for i in opt) for opt in options]
        else:
            if len(colours) != len(options) or any(len(c) != len(o) for o, c in zip(options, colours)):
                raise CoverError("colours must give one colour per item of each option")
            rows = [sorted((int(i), int(c)) for i, c in zip(opt, col)) for opt, col in zip(options, colours)]
        ptr = np.zeros(len(rows) + 1, dtype=np.int32)
        np.cumsum([len(r) for r in rows], out=ptr[1:])
        flat = np.array([i for r in rows for i, _ in r], dtype=np.int32)
        tint = np.array([c for r in rows for _, c in r], dtype=np.int32)
        names = tuple(item_names) if item_names is not None else tuple(f"i{i}" for i in range(len(lo)))
        cover = cls(_readonly(ptr), _readonly(flat), _readonly(lo), _readonly(hi), int(n_cells), names,
                    CoverSymmetry.trivial(int(n_cells), len(rows)),
                    opt_colour=_readonly(tint) if tint.any() else None, colour_names=tuple(colour_names))
        cover.validate()
        return cover

    # -- shape -----------------------------------------------------------------

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.item_lo)

    @property
    def n_options(self) -> int:
        """Number of options."""
        return len(self.opt_ptr) - 1

    @cached_property
    def max_depth(self) -> int:
        """An upper bound on the number of options in a cover (a search's stacks are sized by it).

        A cover covers item i at most ``hi[i]`` times and each option covers
        at least one item, so the options number at most the sum of the bounds;
        any set of items that every option touches bounds them alone: the
        items that must be covered exactly (``lo == hi > 0``), the cells, the
        pieces (27 cubes in a 60x60x60 box: 27 levels, not 216,000).
        """
        if not self.n_options:
            return 0
        items = np.arange(self.n_items)
        exact = (self.item_lo == self.item_hi) & (self.item_lo > 0)
        bound = int(self.item_hi.sum())
        for subset in (exact, items < self.n_cells, items >= self.n_cells):
            if subset.any() and np.logical_or.reduceat(subset[self.opt_items], self.opt_ptr[:-1]).all():
                bound = min(bound, int(self.item_hi[subset].sum()))
        return int(min(self.n_options, bound))

    @cached_property
    def piece_count(self) -> int:
        """Pieces to place: the total multiplicity of the shape items (:attr:`max_depth` for a cover without a
        puzzle)."""
        if self.puzzle is not None:
            return int(self.item_hi[self.n_cells:].sum())
        return self.max_depth

    def option(self, o: int) -> np.ndarray:
        """Items of option ``o``."""
        return self.opt_items[self.opt_ptr[o] : self.opt_ptr[o + 1]]

    @cached_property
    def hash(self) -> str:
        """A stable content hash of the matrix, bounds and symmetry tables."""
        h = hashlib.sha256()
        for a in (self.opt_ptr, self.opt_items, self.item_lo, self.item_hi, self.symmetry.cell_perm, self.symmetry.opt_map):
            h.update(str(a.shape).encode())
            h.update(np.ascontiguousarray(a).astype("<i4").tobytes())
        h.update(str(self.n_cells).encode())
        if self.opt_colour is not None:
            # only where there are colours, so every cover without them keeps its hash
            h.update(b"colours")
            h.update(np.ascontiguousarray(self.opt_colour).astype("<i4").tobytes())
        return h.hexdigest()[:16]

    @cached_property
    def extensible(self) -> bool:
        """True when some option covers no item that must be covered an exact number of times (``lo == hi >= 1``).

        Then a cover may hold another one (with items of bounds 1..2,
        options {a} and {a, b} are one cover and {a, b} another), so a search
        must go on adding options once every lower bound is met, and a
        cover found cannot be blocked by the options it chose alone.  Every
        puzzle's cover is not: each option covers cells, needed exactly once.
        """
        if self.n_options == 0:
            return False
        exact = (self.item_lo == self.item_hi) & (self.item_lo > 0)
        return not bool(np.logical_or.reduceat(exact[self.opt_items], self.opt_ptr[:-1]).all())

    @cached_property
    def coloured_items(self) -> np.ndarray:
        """The items some option gives a colour (sorted; empty without colours)."""
        if self.opt_colour is None:
            return np.zeros(0, dtype=np.int64)
        return np.unique(self.opt_items[self.opt_colour > 0]).astype(np.int64)

    # -- checks ------------------------------------------------------------------

    def validate(self) -> None:
        """Check the structural rules; raise :class:`CoverError` on the first broken one.

        Rules: CSR pointers consistent; item numbers in range and strictly
        ascending within an option; no two options alike; bounds ``0 <= lo
        <= hi`` with ``hi >= 1``; cell items have bounds 1..1; colours only
        on items of bounds 0..1 and named; symmetry tables of the right size.
        An option may cover only items that may stay uncovered (a cover
        that holds another, :attr:`extensible`).
        """
        ptr, items, lo, hi = self.opt_ptr, self.opt_items, self.item_lo, self.item_hi
        for name, a, dtype in (("opt_ptr", ptr, np.int32), ("opt_items", items, np.int32), ("item_lo", lo, np.int32), ("item_hi", hi, np.int32)):
            if a.dtype != dtype or a.ndim != 1:
                raise CoverError(f"{name} must be a 1-D {np.dtype(dtype).name} array, got {a.dtype}[{a.ndim}-D]")
        if len(ptr) == 0 or ptr[0] != 0 or ptr[-1] != len(items) or np.any(np.diff(ptr) < 1):
            raise CoverError("opt_ptr must start at 0, end at len(opt_items) and give every option at least one item")
        if len(lo) != len(hi) or len(self.item_names) != len(lo):
            raise CoverError("item_lo, item_hi and item_names must have one entry per item")
        if np.any(lo < 0) or np.any(hi < lo) or np.any(hi < 1):
            raise CoverError("item bounds must satisfy 0 <= lo <= hi and hi >= 1")
        if not 0 <= self.n_cells <= len(lo) or np.any(lo[: self.n_cells] > 1) or np.any(hi[: self.n_cells] != 1):
            raise CoverError("the first n_cells items must be cells with bounds 1..1 (0..1: optional cells)")
        if len(items) and (items.min() < 0 or items.max() >= len(lo)):
            raise CoverError("an option names an item that does not exist")
        starts = np.zeros(len(items), dtype=bool)
        starts[ptr[:-1]] = True
        if np.any((np.diff(items) <= 0) & ~starts[1:]):
            raise CoverError("items must be strictly ascending within each option")
        colour = self.opt_colour
        if colour is not None:
            if colour.dtype != np.int32 or colour.shape != items.shape or colour.min() < 0:
                raise CoverError("opt_colour must hold one non-negative int32 colour per entry of opt_items")
            tinted = items[colour > 0]
            if np.any(lo[tinted] != 0) or np.any(hi[tinted] != 1):
                i = int(tinted[np.argmax((lo[tinted] != 0) | (hi[tinted] != 1))])
                raise CoverError(f"item '{self.item_names[i]}' has a colour but bounds {lo[i]}..{hi[i]}; colours "
                                 "belong to items of bounds 0..1 (secondary items)")
            if colour.max() > len(self.colour_names):
                raise CoverError(f"colour {int(colour.max())} has no name ({len(self.colour_names)} colours named)")
        if self.n_options > 1:
            if colour is None:
                keys = sorted(self.option(o).tobytes() for o in range(self.n_options))
            else:
                # the same items in other colours is another option (a tile turned on an edge-matching board)
                keys = sorted(self.option(o).tobytes() + colour[ptr[o]:ptr[o + 1]].tobytes()
                              for o in range(self.n_options))
            if any(a == b for a, b in zip(keys, keys[1:])):
                same = "two options cover the same items"
                raise CoverError(same + (" in the same colours" if colour is not None else ""))
        sym = self.symmetry
        if sym.cell_perm.shape != (sym.order, self.n_cells) or sym.opt_map.shape != (sym.order, self.n_options):
            raise CoverError("symmetry tables do not match the cover's cells and options")

    def solution_problem(self, options) -> str | None:
        """Why ``options`` is not an exact cover, or None when it is one."""
        chosen = np.asarray(options, dtype=np.int64)
        if chosen.ndim != 1 or np.any(chosen < 0) or np.any(chosen >= self.n_options):
            return "an option number is out of range"
        if len(np.unique(chosen)) != len(chosen):
            return "an option is chosen twice"
        counts = np.zeros(self.n_items, dtype=np.int64)
        for o in chosen:
            counts[self.option(int(o))] += 1
        shared = np.zeros(self.n_items, dtype=bool)
        if self.opt_colour is not None:
            tints: dict[int, set] = {}
            coloured = set(self.coloured_items.tolist())
            for o in chosen:
                lo_, hi_ = self.opt_ptr[int(o)], self.opt_ptr[int(o) + 1]
                for item, tint in zip(self.opt_items[lo_:hi_], self.opt_colour[lo_:hi_]):
                    if int(item) in coloured:
                        tints.setdefault(int(item), set()).add(int(tint))
            for item, seen in tints.items():
                if counts[item] > 1 and (len(seen) > 1 or 0 in seen):
                    return (f"item '{self.item_names[item]}' is covered {counts[item]} times with colours "
                            f"{', '.join(self.colour_name(t) for t in sorted(seen))}; options may share an item "
                            "only where they give it the same colour")
                shared[item] = counts[item] > 1
        bad = np.flatnonzero(((counts < self.item_lo) | (counts > self.item_hi)) & ~shared)
        if len(bad):
            i = int(bad[0])
            want = f"{self.item_lo[i]}" if self.item_lo[i] == self.item_hi[i] else f"{self.item_lo[i]}..{self.item_hi[i]}"
            kind = "cell item" if i < self.n_cells else "item"
            return f"{kind} '{self.item_names[i]}' is covered {counts[i]} times, expected {want}"
        return None

    def colour_classes(self) -> list[tuple[int, list[int], dict[int, list[int]]]]:
        """Per coloured item: ``(item, options that give it no colour, {colour: options that give it that colour})``.

        What the encoders need for Knuth's rule: the options of one colour
        may share the item; any other two of its options exclude each other.
        """
        if self.opt_colour is None:
            return []
        rows = np.repeat(np.arange(self.n_options), np.diff(self.opt_ptr))
        out = []
        for item in self.coloured_items:
            at = np.flatnonzero(self.opt_items == item)
            plain = [int(o) for o in rows[at][self.opt_colour[at] == 0]]
            by_colour: dict[int, list[int]] = {}
            for o, tint in zip(rows[at], self.opt_colour[at]):
                if tint:
                    by_colour.setdefault(int(tint), []).append(int(o))
            out.append((int(item), plain, by_colour))
        return out

    def colour_name(self, colour: int) -> str:
        """The name of colour number ``colour`` (``none`` for 0)."""
        return "none" if colour == 0 else self.colour_names[colour - 1]

    def check_solution(self, options) -> None:
        """Raise :class:`CoverError` unless ``options`` is an exact cover."""
        problem = self.solution_problem(options)
        if problem:
            raise CoverError(f"not an exact cover: {problem}")

    def verify_solution(self, options) -> bool:
        """True when ``options`` is an exact cover of this matrix."""
        return self.solution_problem(options) is None

    # -- decoding ----------------------------------------------------------------

    def placements(self, options, partial: bool = False) -> list[tuple[str, np.ndarray, bool]]:
        """Pieces of a solution as ``(name, box coordinates, stationary)``, stationary pieces first.

        Identical pieces get their names in a canonical order: the copy
        whose first cell comes first takes the first name.  With ``partial``
        the options may leave cells open (a goal-mode partial assembly).
        """
        puzzle = self.puzzle
        if puzzle is None:
            raise CoverError("this cover was not built from a puzzle and cannot be decoded")
        if not partial:
            self.check_solution(options)
        out = [(p.name, np.array(p.cells, dtype=np.int64), True) for p in puzzle.stationary]
        by_shape: dict[int, list[np.ndarray]] = {}
        for o in options:
            image = int(self.opt_image[int(o)])
            shape = int(puzzle.images.shape[image])
            by_shape.setdefault(shape, []).append(puzzle.images.image_cells(image))
        for shape, cells_list in sorted(by_shape.items()):
            cells_list.sort(key=lambda c: int(c[0]))
            for name, cells in zip(puzzle.shapes[shape].names, cells_list):
                out.append((name, puzzle.open_coords[cells], False))
        return out

    def grid(self, options, partial: bool = False) -> np.ndarray:
        """The box's index grid (the lattice's ``grid_shape``) as an array of piece names (``.`` where open).

        For the cubic, hex and hexprism lattices that is ``(xDim, yDim,
        zDim)``; the triangle's has a last axis of 2 (t), and the fcc grid's
        points off the lattice stay ``.``.
        """
        grid = np.full(self.puzzle.grid_dims, ".", dtype=object)
        for name, coords, _ in self.placements(options, partial):
            grid[coords[:, 0], coords[:, 1], coords[:, 2]] = name
        return grid
