"""Exact counts: whether a cover is the canonical member of its orbit, and the counter built on it.

Each engine reports *covers* (exact covers of the filtered
matrix), *unique* (orbits of the group on all solutions) and *total* (all
solutions).  For a cover C let Orb(C) be its orbit under the whole group
and F the set of covers that survive the filters.  C is counted as unique
exactly when it is the smallest member of ``Orb(C) ∩ F``, comparing solutions
as grids of option numbers in cell order, and then contributes
``|G| / |Stab(C)|`` to the total.  This needs no stored solutions, holds for
any filter that keeps a representative of every orbit (the redundancy filter,
or none at all when every piece has a twin), and is decided by
:func:`classify_cover`, a numba kernel the native engines call directly and the
other engines reach through :class:`SolutionCounter`.

A module of its own so that the symmetry group and the encoding
(:mod:`bench.models.symmetry`, :mod:`bench.models.cover`) load without numba.
"""

from __future__ import annotations

import numpy as np

from bench.toolchain.registry import njit


@njit(cache=True)
def classify_cover(chosen, n_chosen, opt_ptr, opt_items, n_cells, cell_inv, opt_map, opt_gmask, grid):
    """Decide whether a cover is the canonical member of its orbit.

    Parameters
    ----------
    chosen : int32[:]
        Option numbers of the cover in its first ``n_chosen`` entries.
    opt_ptr, opt_items : int32[:]
        The cover's CSR matrix.
    n_cells : int
        Number of cell items (items ``0 .. n_cells - 1``).
    cell_inv : int32[:, :]
        ``cell_inv[g, c]`` is the cell that element g sends to cell c.
    opt_map : int32[:, :]
        ``opt_map[g, o]``: the option element g turns option o into, -1 if
        that image was filtered out.
    opt_gmask : uint64[:]
        Bit g set when ``opt_map[g, o] >= 0``.
    grid : int32[:]
        Scratch space of ``n_cells`` entries.

    Returns
    -------
    int64
        0 when another member of the orbit is smaller; otherwise the order of
        the cover's stabilizer (its orbit holds ``order / stabilizer``
        solutions).
    """
    mask = ~np.uint64(0)
    for k in range(n_chosen):
        mask &= opt_gmask[chosen[k]]
    if mask == np.uint64(1):
        return 1
    # a cell left empty (an optional cell) holds -1
    for c in range(n_cells):
        grid[c] = -1
    for k in range(n_chosen):
        o = chosen[k]
        for p in range(opt_ptr[o], opt_ptr[o + 1]):
            item = opt_items[p]
            if item < n_cells:
                grid[item] = o
    stabilizer = 1
    for g in range(1, opt_map.shape[0]):
        if (mask >> np.uint64(g)) & np.uint64(1) == 0:
            continue
        verdict = 0
        for c in range(n_cells):
            mine = grid[c]
            other = grid[cell_inv[g, c]]
            theirs = opt_map[g, other] if other >= 0 else -1
            if theirs != mine:
                verdict = -1 if theirs < mine else 1
                break
        if verdict < 0:
            return 0
        if verdict == 0:
            stabilizer += 1
    return stabilizer


class SolutionCounter:
    """Accumulates covers, unique and total from covers handed in one by one.

    Engines that count inside a numba kernel call :func:`classify_cover`
    themselves; the others (CP-SAT, SAT, the reference solver) use this.

    Examples
    --------
    Knuth's example: options {c, e}, {a, d, f} and {b, g} cover items a..g.

    >>> import bench
    >>> rows = [[2, 4], [0, 3, 6], [1, 2, 5], [0, 3, 5], [1, 6], [3, 4, 6]]
    >>> counter = SolutionCounter(bench.Cover.from_options(rows, [1] * 7))
    >>> counter.add([0, 3, 4])
    1
    >>> counter.counts()
    (1, 1, 1)
    >>> counter.add([0, 1])
    Traceback (most recent call last):
    ...
    bench.errors.CoverError: not an exact cover: item 'i1' is covered 0 times, expected 1
    """

    def __init__(self, cover, verify: bool = True):
        self.cover = cover
        self.verify = verify
        self.covers = 0
        self.unique = 0
        self.total = 0
        self._grid = np.zeros(max(cover.n_cells, 1), dtype=np.int32)

    def add(self, options) -> int:
        """Count one cover; returns its orbit share of the total (0 if not canonical)."""
        chosen = np.asarray(options, dtype=np.int32)
        if self.verify:
            self.cover.check_solution(chosen)
        sym = self.cover.symmetry
        stab = classify_cover(chosen, len(chosen), self.cover.opt_ptr, self.cover.opt_items, self.cover.n_cells,
                              sym.cell_inv, sym.opt_map, sym.opt_gmask, self._grid)
        self.covers += 1
        if stab:
            self.unique += 1
            self.total += sym.order // stab
            return sym.order // stab
        return 0

    def counts(self) -> tuple[int, int, int]:
        """``(covers, unique, total)`` so far."""
        return self.covers, self.unique, self.total
