"""Backtrack triggers and repeated image filters inside the native search.

Source: the polycube article, "Constraints" (``shared/reference``).  Each
number below is a minimum count of pieces remaining: a trigger or filter acts
at a node only while at least that many pieces are left (0 turns it off).

- **Parity trigger** (``-p``): after a placement, backtrack when the pieces
  left cannot reach the open region's parity (:mod:`bench.models.parity`;
  one table lookup, the state kept per level).
- **Volume trigger** (``-v``): after a placement, flood-fill the open cells
  and backtrack when a region's volume is no sum of pieces left.
- **Isolated-cell trigger** (``-c``, FILA's levels only): after a placement,
  backtrack when an open cell has no open neighbour and every piece left has
  two cells or more, each next to another of its own (one OR of shifted
  occupancy per lattice direction, or a look at the placed image's open
  neighbours; the Meteor programs' check).  DLX's fewest-options choice
  meets such a cell at its next node anyway.
- **Parity, volume and fit filters** (``-P``, ``-V``, ``-F`` with a count):
  at each DLX node, remove every option whose placement would break the
  constraint there; the removals are undone on backtracking with the rest
  of the level.  The same filters applied once before the search live in
  :mod:`bench.models.filters`; at the root they find the same options.

Achievable volumes are recomputed at each check as a subset-sum over the
pieces left (O(pieces x volume) steps, memory linear in the volume) rather
than tabulated per combination of piece counts, whose size grows
geometrically with the number of piece sizes.

The helpers are plain jitted functions over the DLX kernel's bundles
(:mod:`bench.kernels.sparse_sets`); the kernels call
them only when the constraint is switched on, so a search without
constraints pays one untaken branch per node.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from bench.toolchain.registry import njit
from bench.kernels.regions import flood, subset_sums
from bench.kernels.bitfield import test

# slots of the configuration array
C_PARITY_BT, C_VOLUME_BT, C_PARITY_FILTER, C_VOLUME_FILTER, C_FIT_FILTER, C_FIT_ROUNDS, C_PAR_OFFSET, C_GEN, \
    C_ISOLATED_BT = range(9)
N_CFG = 9
# rows of the counter array, each indexed by pieces remaining
K_PARITY_BT, K_VOLUME_BT, K_PARITY_FILTER, K_VOLUME_FILTER, K_FIT_FILTER, K_ISOLATED_BT = range(6)
COUNTER_NAMES = ("parity_backtracks", "volume_backtracks", "parity_filtered", "volume_filtered", "fit_filtered",
                 "isolated_backtracks")


# -- volumes -----------------------------------------------------------------------------------


BLOCKED = np.int64(1) << 62


# Counters that reach a kernel call start as np.int64(0), not 0: numba's first pass of type inference sees a literal 0
# as Literal[int](0) and compiles the callee once more for it (flood, subset_sums, regions_unfillable: about 1 s of
# every library that holds them)
@njit(cache=True)
def label_regions(n_cells, nb_ptr, nb, region, vol, mark, stack):
    """Label the cells ``mark`` leaves open (0; filled ones are :data:`BLOCKED`) by connected region.

    Returns the number of regions; ``region[c]`` is the region of open cell
    c, ``vol[r]`` its volume, and ``mark`` ends 1 on every open cell.
    """
    n_reg = np.int64(0)
    for c in range(n_cells):
        if mark[c] == 0:
            vol[n_reg] = flood(c, 1, nb_ptr, nb, mark, stack, region, n_reg)
            n_reg += 1
    return n_reg


@njit(cache=True)
def open_regions(n_cells, count, nb_ptr, nb, region, vol, mark, stack):
    """:func:`label_regions` of the open cells (``count == 0``) of a DLX state."""
    for c in range(n_cells):
        mark[c] = 0 if count[c] == 0 else BLOCKED
    return label_regions(n_cells, nb_ptr, nb, region, vol, mark, stack)


@njit(cache=True)
def piece_counts(n_cells, count, hi, sizes, counts):
    """Pieces left per shape item (items ``n_cells ..``) into ``counts``; returns their volume."""
    total = 0
    for t in range(n_cells, count.shape[0]):
        counts[t - n_cells] = hi[t] - count[t]
        total += counts[t - n_cells] * sizes[t - n_cells]
    return total


@njit(cache=True)
def volume_violated(n_cells, count, hi, nb_ptr, nb, shape_size, region, vol, mark, stack, counts, reach):
    """True when an open region of the DLX state has a volume no sum of pieces left gives."""
    n_reg = open_regions(n_cells, count, nb_ptr, nb, region, vol, mark, stack)
    total = piece_counts(n_cells, count, hi, shape_size, counts)
    return regions_unfillable(vol, n_reg, total, shape_size, counts, reach)


@njit(cache=True)
def regions_unfillable(vol, n_reg, total, sizes, counts, reach):
    """True when one of the ``n_reg`` region volumes is no sum of the pieces left (``total`` cells of them)."""
    if n_reg == 1 and vol[0] == total:
        return False
    limit = np.int64(0)
    for r in range(n_reg):
        limit = max(limit, vol[r])
    subset_sums(sizes, counts, -1, limit, reach)
    for r in range(n_reg):
        if not reach[vol[r]]:
            return True
    return False


@njit(cache=True)
def volume_violated_bits(occ, n_local, nb_ptr, nb, left, sizes, region, vol, mark, stack, reach):
    """:func:`volume_violated` for FILA: the open cells are the clear bits of ``occ``."""
    total = np.int64(0)
    for s in range(left.shape[0]):
        total += left[s] * sizes[s]
    for c in range(n_local):
        mark[c] = BLOCKED if test(occ, c) else 0
    n_reg = label_regions(n_local, nb_ptr, nb, region, vol, mark, stack)
    return regions_unfillable(vol, n_reg, total, sizes, left, reach)


@njit(cache=True)
def volume_filter_pass(matrix, sparse, cons):
    """Options in play whose placement walls off a region no other pieces fill; returns how many, in ``cons.out``.

    Regions are labelled once; an option is checked against the regions it
    does not touch by their volumes alone, and the rest of the regions it
    touches is flood-filled from its own neighbours.  ``matrix`` and
    ``sparse`` are the DLX kernel's bundles (:mod:`bench.kernels.sparse_sets`).
    """
    n_cells = matrix.n_cells
    opt_ptr = matrix.opt_ptr
    opt_items = matrix.opt_items
    hi = matrix.hi
    count = sparse.count
    size = sparse.size
    sets = sparse.sets
    set_start = sparse.set_start
    node_opt = sparse.node_opt
    nb_ptr = cons.nb_ptr
    nb = cons.nb
    shape_size = cons.shape_size
    region = cons.region
    vol = cons.vol
    stack = cons.stack
    counts = cons.counts
    reach = cons.reach
    mark = cons.mark
    rmark = cons.rmark
    out = cons.out
    n_items = count.shape[0]
    n_reg = open_regions(n_cells, count, nb_ptr, nb, region, vol, mark, stack)
    piece_counts(n_cells, count, hi, shape_size, counts)
    limit = np.int64(0)
    for r in range(n_reg):
        limit = max(limit, vol[r])
    # marks: BLOCKED on filled cells, 1 on open ones; each option checked gets its own gen above 1
    gen = 1
    for r in range(n_reg):
        rmark[r] = 0
    n_out = 0
    for t in range(n_cells, n_items):
        if count[t] >= hi[t] or size[t] == 0:
            continue
        subset_sums(shape_size, counts, t - n_cells, limit, reach)
        n_bad = 0
        for r in range(n_reg):
            if not reach[vol[r]]:
                n_bad += 1
        start = set_start[t]
        for k in range(start, start + size[t]):
            o = node_opt[sets[k]]
            gen += 1
            zend = opt_ptr[o + 1]
            touched_bad = 0
            for z in range(opt_ptr[o], zend):
                c = opt_items[z]
                if c < n_cells:
                    mark[c] = gen
                    r = region[c]
                    if rmark[r] != gen:
                        rmark[r] = gen
                        if not reach[vol[r]]:
                            touched_bad += 1
            bad = n_bad > touched_bad
            z = opt_ptr[o]
            while not bad and z < zend:
                c = opt_items[z]
                z += 1
                if c >= n_cells:
                    continue
                for u in range(nb_ptr[c], nb_ptr[c + 1]):
                    d = nb[u]
                    if mark[d] < gen and not reach[flood(d, gen, nb_ptr, nb, mark, stack, region, -1)]:
                        bad = True
                        break
            if bad:
                out[n_out] = o
                n_out += 1
    return n_out


# -- parity ------------------------------------------------------------------------------------


@njit(cache=True)
def parity_filter_pass(matrix, sparse, cons, d, s):
    """Options in play after which the pieces left cannot reach the region's parity ``d``, ``s``; returns how many,
    in ``cons.out``."""
    n_cells = matrix.n_cells
    hi = matrix.hi
    count = sparse.count
    size = sparse.size
    sets = sparse.sets
    set_start = sparse.set_start
    node_opt = sparse.node_opt
    opt_par, opt_pstep, par_ok, offset, out = cons.opt_par, cons.opt_pstep, cons.par_ok, cons.cfg[C_PAR_OFFSET], cons.out
    width = par_ok.shape[1]
    n_out = 0
    for t in range(n_cells, count.shape[0]):
        if count[t] >= hi[t]:
            continue
        start = set_start[t]
        for k in range(start, start + size[t]):
            o = node_opt[sets[k]]
            idx = d - opt_par[o] + offset
            if idx < 0 or idx >= width or par_ok[s - opt_pstep[o], idx] == 0:
                out[n_out] = o
                n_out += 1
    return n_out


# -- fit ---------------------------------------------------------------------------------------



@njit(inline="always")
def take_out(o, opt_ptr, opt_items, size, sets, loc, set_start):
    """Take option ``o`` out of play: each of its nodes swapped past the end of its item's active segment.

    Returns the nodes moved (the list updates).  The option comes back when
    the kernel restores the level's set sizes.
    """
    for z in range(opt_ptr[o], opt_ptr[o + 1]):
        swap_out(z, opt_items[z], size, sets, loc, set_start)
    return opt_ptr[o + 1] - opt_ptr[o]


@njit(inline="always")
def swap_out(z, t, size, sets, loc, set_start):
    """Node ``z`` of item ``t`` out of play: swapped past the end of the item's active segment, which shrinks by one."""
    p = loc[z]
    e = set_start[t] + size[t] - 1
    y = sets[e]
    sets[p] = y
    loc[y] = p
    sets[e] = z
    loc[z] = e
    size[t] -= 1

@njit(cache=True)
def fit_filter_pass(matrix, sparse, cons):
    """Take out of play, in place, the options after which some item cannot get the options it still needs.

    Placing option o closes the items it fills up; every other option in
    play on those items goes, and each item loses the options that went.
    As polycube's ``dlxFilterFit`` (and :func:`bench.models.filters.fit_filter`),
    the pass removes as it goes, so an option tested later sees the ones
    removed before it: it walks the items from the last, and each item's set
    from its end back, testing the options whose last item it is (at the
    root of a puzzle's search, every option from the last back to the first;
    a removal swaps an option already tested into the place it leaves, so
    walking back visits every option once).  Returns how many options it
    removed; they are ``cons.out[:n]``.
    """
    opt_ptr = matrix.opt_ptr
    opt_items = matrix.opt_items
    lo = matrix.lo
    hi = matrix.hi
    count = sparse.count
    size = sparse.size
    sets = sparse.sets
    loc = sparse.loc
    set_start = sparse.set_start
    node_opt = sparse.node_opt
    dec = cons.dec
    tstamp = cons.tstamp
    ostamp = cons.ostamp
    tlist = cons.tlist
    cfg = cons.cfg
    out = cons.out
    n_items = count.shape[0]
    n_out = 0
    for i in range(n_items - 1, -1, -1):
        if count[i] >= hi[i]:
            continue
        start = np.int64(set_start[i])
        k = start + size[i] - 1
        while k >= start:
            o = node_opt[sets[k]]
            k -= 1
            # each option once: in the set of its last item (all items of an option in play are open)
            if opt_items[opt_ptr[o + 1] - 1] != i:
                continue
            cfg[C_GEN] += 1
            gen = cfg[C_GEN]
            ostamp[o] = gen
            n_t = 0
            for z in range(opt_ptr[o], opt_ptr[o + 1]):
                j = opt_items[z]
                tstamp[j] = gen
                dec[j] = 0
                tlist[n_t] = j
                n_t += 1
            for z in range(opt_ptr[o], opt_ptr[o + 1]):
                j = opt_items[z]
                if count[j] + 1 < hi[j]:
                    continue
                js = set_start[j]
                for q in range(js, js + size[j]):
                    o2 = node_opt[sets[q]]
                    if ostamp[o2] == gen:
                        continue
                    ostamp[o2] = gen
                    for z2 in range(opt_ptr[o2], opt_ptr[o2 + 1]):
                        t = opt_items[z2]
                        if tstamp[t] != gen:
                            tstamp[t] = gen
                            dec[t] = 0
                            tlist[n_t] = t
                            n_t += 1
                        dec[t] += 1
            bad = False
            m_own = opt_ptr[o + 1] - opt_ptr[o]
            for q in range(n_t):
                t = tlist[q]
                own = q < m_own
                c = count[t] + (1 if own else 0)
                if c >= hi[t]:
                    continue
                need = lo[t] - c
                if need > 0 and size[t] - dec[t] - (1 if own else 0) < need:
                    bad = True
                    break
            if bad:
                out[n_out] = o
                n_out += 1
                take_out(o, opt_ptr, opt_items, size, sets, loc, set_start)
    return n_out


# -- what a search carries ---------------------------------------------------------------------


ConstraintArgs = namedtuple("ConstraintArgs", [
    "cfg", "opt_par", "opt_pstep", "par_ok", "shape_size", "nb_ptr", "nb", "counters", "par_d", "par_s",
    # scratch space of the volume and fit passes
    "region", "vol", "stack", "counts", "reach", "mark", "rmark", "dec", "tstamp", "ostamp", "tlist", "out"])
"""The constraint arrays as the DLX kernel takes them, by name."""
