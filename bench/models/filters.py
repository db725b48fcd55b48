"""One-shot image filters: drop options that belong to no solution, before any engine runs.

The filters only remove options that no exact cover can use, so covers,
unique and total are the same with and without them, for every engine.
The same filters re-applied at each search node live in
:mod:`bench.native.constraints`.

**Parity** (polycube ``-P``): place the option alone; the pieces left must
still be able to reach the parity of the cells left
(:mod:`bench.models.parity`).

**Volume** (polycube ``-V``): place the option alone; every connected region
of the open cells left must have a volume that some sub-multiset of the
other pieces adds up to.  The achievable volumes are one subset-sum per
shape (all pieces but one copy of that shape, :func:`subset_sums`), built in
O(pieces x volume) steps: no table indexed by piece states, so memory stays
linear in the open volume however many piece sizes there are.

**Fit** (polycube ``-F``): place the option and remove every option that
conflicts with it; the option goes when some item can no longer reach its
lower bound (a hole nothing fills, a piece that cannot be placed).  One
round finds what polycube's one pass finds; later rounds see the options
the earlier ones removed, and ``rounds=0`` repeats until nothing changes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bench.models.regions import flood, subset_sums


def cell_neighbours(puzzle) -> tuple[np.ndarray, np.ndarray]:
    """CSR adjacency of the open cells (neighbours in the puzzle's lattice, in the lattice's order)."""
    nbr = puzzle.open_index(puzzle.lattice.neighbours(puzzle.open_coords))
    keep = nbr >= 0
    ptr = np.zeros(puzzle.n_open + 1, dtype=np.int32)
    np.cumsum(keep.sum(axis=1), out=ptr[1:])
    return ptr, nbr[keep].astype(np.int32)


@njit(cache=True)
def _volume_violations(opt_ptr, opt_items, n_cells, nb_ptr, nb, opt_table, reach):
    """Per option: True when placing it alone leaves a region no remaining pieces can fill."""
    n_opt = opt_ptr.shape[0] - 1
    bad = np.zeros(n_opt, dtype=np.bool_)
    mark = np.zeros(n_cells, dtype=np.int64)
    stack = np.empty(n_cells, dtype=np.int32)
    region = np.empty(0, dtype=np.int32)
    for o in range(n_opt):
        # the option's own cells are blocked at its gen; every other cell is below it
        gen = o + 1
        for k in range(opt_ptr[o], opt_ptr[o + 1]):
            if opt_items[k] < n_cells:
                mark[opt_items[k]] = gen
        row = opt_table[o]
        for start in range(n_cells):
            if mark[start] < gen and not reach[row, flood(start, gen, nb_ptr, nb, mark, stack, region, -1)]:
                bad[o] = True
                break
    return bad


def volume_filter(cover):
    """The cover without the options that isolate an unfillable region; returns ``(cover, removed)``."""
    puzzle = cover.puzzle
    if puzzle is None or cover.n_options == 0:
        return cover, 0
    sizes = np.array([s.size for s in puzzle.shapes], dtype=np.int64)
    counts = np.array([s.multiplicity for s in puzzle.shapes], dtype=np.int64)
    limit = cover.n_cells
    reach = np.zeros((len(sizes), limit + 1), dtype=np.uint8)
    for k in range(len(sizes)):
        subset_sums(sizes, counts, k, limit, reach[k])
    shape_of = cover.opt_items[cover.opt_ptr[1:] - 1] - cover.n_cells
    nbr_ptr, nbr = cell_neighbours(puzzle)
    bad = _volume_violations(cover.opt_ptr, cover.opt_items, cover.n_cells, nbr_ptr, nbr,
                             shape_of.astype(np.int64), reach)
    return (cover.keep_options(~bad), int(bad.sum())) if bad.any() else (cover, 0)


def parity_filter(cover):
    """The cover without the options after which the region's parity is out of reach; returns ``(cover, removed)``."""
    from bench.models.parity import option_parities, parity_monitor

    if cover.puzzle is None or cover.n_options == 0:
        return cover, 0
    monitor = parity_monitor(cover.puzzle)
    parity, shape = option_parities(cover)
    column = monitor.target - parity + monitor.offset
    inside = (column >= 0) & (column < monitor.ok.shape[1])
    good = inside & (monitor.ok[monitor.root - monitor.step[shape], np.clip(column, 0, monitor.ok.shape[1] - 1)] > 0)
    return (cover.keep_options(good), int((~good).sum())) if not good.all() else (cover, 0)


def _fit_violations(cover) -> np.ndarray:
    """Per option: True when placing it leaves an item unable to reach its lower bound."""
    n_opt, n_items = cover.n_options, cover.n_items
    rows = np.repeat(np.arange(n_opt), np.diff(cover.opt_ptr))
    member = np.zeros((n_opt, n_items), dtype=np.float32)
    member[rows, cover.opt_items] = 1.0
    single = member * (cover.item_hi == 1)[None, :].astype(np.float32)
    lo = cover.item_lo.astype(np.float32)
    bad = np.zeros(n_opt, dtype=bool)
    chunk = max(1, 4_000_000 // max(n_opt, 1))
    for start in range(0, n_opt, chunk):
        block = slice(start, min(start + chunk, n_opt))
        # options compatible with each option of the block: no shared item of capacity one, not itself
        compatible = (single[block] @ single.T) == 0
        compatible[np.arange(block.stop - block.start), np.arange(block.start, block.stop)] = False
        reach = compatible.astype(np.float32) @ member
        need = lo[None, :] - member[block]
        bad[block] = (reach < need).any(axis=1)
    return bad


def fit_filter(cover, rounds: int = 1):
    """Drop options that make some item unreachable, ``rounds`` times (0: until nothing changes).

    Returns ``(cover, removed_per_round)``.
    """
    removed: list[int] = []
    while rounds == 0 or len(removed) < rounds:
        if cover.n_options == 0:
            break
        bad = _fit_violations(cover)
        removed.append(int(bad.sum()))
        if not bad.any():
            break
        cover = cover.keep_options(~bad)
    return cover, removed


def apply_one_shot(cover, volume: bool = False, fit_rounds: int | None = None, parity: bool = False):
    """The requested one-shot filters (parity, volume, then fit) and their counters.

    Returns ``(cover, counters)`` with ``PARITY_FILTER_ONE_SHOT``,
    ``VOLUME_FILTER_ONE_SHOT``, ``FIT_FILTER_ONE_SHOT`` and
    ``FIT_FILTER_ROUNDS`` (options removed by each fit round) for the
    filters that ran.
    """
    counters: dict = {}
    if parity:
        cover, removed = parity_filter(cover)
        counters["PARITY_FILTER_ONE_SHOT"] = removed
    if volume:
        cover, removed = volume_filter(cover)
        counters["VOLUME_FILTER_ONE_SHOT"] = removed
    if fit_rounds is not None:
        cover, per_round = fit_filter(cover, fit_rounds)
        counters["FIT_FILTER_ONE_SHOT"] = sum(per_round)
        counters["FIT_FILTER_ROUNDS"] = " ".join(map(str, per_round))
    return cover, counters
