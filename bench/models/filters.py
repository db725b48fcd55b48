"""One-shot image filters: drop options that belong to no solution, before any engine runs.

The filters only remove options that no exact cover can use, so covers,
unique and total are the same with and without them, for every engine.
The same filters re-applied at each search node live in
:mod:`bench.kernels.constraints`.

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
lower bound (a hole nothing fills, a piece that cannot be placed).  A pass
removes options as it goes, as polycube's ``dlxFilterFit`` does: it walks
the shape items from the last to the first (:func:`fit_order`), and an
option tested later sees the ones removed before it (the polycube
article's 227 options of 10x6 with the X constrained, 235 after a second
pass, 144 without the redundancy filter).  ``rounds=0`` repeats passes until
nothing changes.
"""

from __future__ import annotations

import numpy as np

from bench.kernels.regions import flood, subset_sums
from bench.models.parity import option_parities, parity_monitor
from bench.models.tiny import dominoes
from bench.toolchain import warmup
from bench.toolchain.registry import njit


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
    puzzle.require_filled("the volume filter")
    sizes = np.array([s.size for s in puzzle.shapes], dtype=np.int64)
    counts = np.array([s.multiplicity for s in puzzle.shapes], dtype=np.int64)
    limit = cover.n_cells
    reach = np.zeros((len(sizes), limit + 1), dtype=np.uint8)
    for k in range(len(sizes)):
        subset_sums(sizes, counts, k, limit, reach[k])
    shape_of = cover.opt_items[cover.opt_ptr[1:] - 1] - cover.n_cells
    nbr_ptr, nbr = puzzle.cell_neighbours
    bad = _volume_violations(cover.opt_ptr, cover.opt_items, cover.n_cells, nbr_ptr, nbr,
                             shape_of.astype(np.int64), reach)
    return (cover.keep_options(~bad), int(bad.sum())) if bad.any() else (cover, 0)


def parity_filter(cover):
    """The cover without the options after which the region's parity is out of reach; returns ``(cover, removed)``."""
    if cover.puzzle is None or cover.n_options == 0:
        return cover, 0
    cover.puzzle.require_filled("the parity filter")
    monitor = parity_monitor(cover.puzzle)
    parity, shape = option_parities(cover)
    column = monitor.target - parity + monitor.offset
    inside = (column >= 0) & (column < monitor.ok.shape[1])
    good = inside & (monitor.ok[monitor.root - monitor.step[shape], np.clip(column, 0, monitor.ok.shape[1] - 1)] > 0)
    return (cover.keep_options(good), int((~good).sum())) if not good.all() else (cover, 0)


@njit(cache=True)
def _fit_pass(opt_ptr, opt_items, item_lo, item_hi, order, alive, item_ptr, item_opts, count, stamp, gen, lost):
    """One in-place fit pass over the options in ``order``; clears ``alive[o]`` of each option it removes.

    ``count[i]`` is the number of options alive on item i and stays so;
    ``item_opts[item_ptr[i]:item_ptr[i+1]]`` are item i's options; ``stamp``
    marks the options already counted for the option under test, with the
    generation ``gen[0]``.  Returns how many options the pass removed.
    """
    n_items = item_lo.shape[0]
    removed = 0
    for o in order:
        if not alive[o]:
            continue
        # lost[i]: item i's options that placing o takes out of play (o's own cells
        # and pieces of capacity one close), o itself not counted
        gen[0] += 1
        g = gen[0]
        for z in range(opt_ptr[o], opt_ptr[o + 1]):
            j = opt_items[z]
            if item_hi[j] != 1:
                continue
            for q in range(item_ptr[j], item_ptr[j + 1]):
                p = item_opts[q]
                if alive[p] and p != o and stamp[p] != g:
                    stamp[p] = g
                    for z2 in range(opt_ptr[p], opt_ptr[p + 1]):
                        lost[opt_items[z2]] += 1
        bad = False
        for i in range(n_items):
            if count[i] - lost[i] < item_lo[i]:
                bad = True
            lost[i] = 0
        if bad:
            alive[o] = False
            removed += 1
            for z in range(opt_ptr[o], opt_ptr[o + 1]):
                count[opt_items[z]] -= 1
    return removed


def fit_order(cover) -> np.ndarray:
    """The order a fit pass tests options in: from the last option back to the first.

    Options are grouped by shape, so this walks the shape items from the last,
    as polycube's ``dlxFilterFit`` walks its piece columns; within a shape it
    goes from the last image back (polycube goes down its column): both give
    the article's 227 and 235 on 10x6, and this order is the one a search
    node can follow while it removes options from sparse sets.
    """
    return np.arange(cover.n_options - 1, -1, -1, dtype=np.int64)


def fit_filter(cover, rounds: int = 1):
    """Drop options that make some item unreachable, ``rounds`` in-place passes (0: until nothing changes).

    Returns ``(cover, removed_per_round)``.
    """
    removed: list[int] = []
    if cover.n_options == 0:
        return cover, removed
    n_opt, n_items = cover.n_options, cover.n_items
    item_of = cover.opt_items.astype(np.int64)
    by_item = np.argsort(item_of, kind="stable")
    item_opts = np.repeat(np.arange(n_opt, dtype=np.int64), np.diff(cover.opt_ptr))[by_item]
    item_ptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(item_of, minlength=n_items), out=item_ptr[1:])
    count = np.diff(item_ptr).copy()
    alive = np.ones(n_opt, dtype=np.bool_)
    stamp = np.full(n_opt, -1, dtype=np.int64)
    gen = np.zeros(1, dtype=np.int64)
    lost = np.zeros(n_items, dtype=np.int64)
    order = fit_order(cover)
    while rounds == 0 or len(removed) < rounds:
        gone = _fit_pass(cover.opt_ptr, cover.opt_items, cover.item_lo, cover.item_hi, order, alive,
                         item_ptr, item_opts, count, stamp, gen, lost)
        removed.append(int(gone))
        if gone == 0:
            break
    return (cover.keep_options(alive) if not alive.all() else cover), removed


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


warmup.register("filters", lambda: apply_one_shot(dominoes(2), volume=True, fit_rounds=1, parity=True), 1.9)
