"""Algorithm X with item multiplicities, as a numba kernel over sparse sets.

Sources: D. E. Knuth, *Dancing Links* (2000) and TAOCP 7.2.2.1 (Algorithm X,
DLX1, and Algorithm C, "dancing cells"); polycube's ordering heuristics
(``shared/reference``).

**Why sparse sets.**  Knuth's dancing links unlink every option a placement
rules out and relink it on the way back.  The same search over sparse sets
("dancing cells") removes an option from an item by swapping it past the end
of that item's active segment, and undoes a whole level by restoring the
segment sizes saved on entry, so nothing is relinked one node at a time.  It
also skips the items the placement itself closes, and abandons a placement as
soon as it would leave an item with fewer options than it still needs.
Measured here on pentominoes 10x6 with ``-r``, the linked-list version took
2.8 s for the same 892,247 fits; the search tree and the fit counts are
identical, only the work per node differs.  Searches without constraints at
their nodes, trace or forced first item run the same search faster still on
option bitsets (:mod:`bench.native.bitset`); this kernel serves the rest,
FILA's pipeline, the splitter and the estimator.

**Layout.**  Node z (``0 <= z < nnz``) is entry z of the cover's CSR matrix:
item ``opt_items[z]`` of option ``node_opt[z]``.  Item i's active options are
the nodes ``sets[set_start[i] : set_start[i] + size[i]]``; ``loc[z]`` is the
position of node z in ``sets``.  ``llink``/``rlink`` chain the items that still
need options, in item order (cells in priority order, then shapes), so ties
in every heuristic go to the leftmost item.

**Multiplicities.**  Item i must be covered between ``lo[i]`` and ``hi[i]``
times; ``count[i]`` says how often it is.  An item leaves the branching list
when its count reaches ``lo`` and closes (its options leave every other item)
when it reaches ``hi``; closed items are never touched again until reopened.
Branching on an item that needs exactly one more option and has room for
exactly one is classic Algorithm X.  Otherwise (identical pieces) the k-th
branch takes the option with the k-th largest number and *tweaks* the ones
before it out of the lists for the rest of that branch, as in Knuth's
Algorithm M, so every set of options is produced once: permutations of
identical pieces are never enumerated.  The order goes by option number, not
by position in the set, because positions depend on the subtrees searched
before: this way the tree is the same whether a sub-problem is searched
alone or within the whole search.

**Search.**  Iterative, with an explicit level stack and four phases
(forward, try, multi, backup).  The state lives in arrays that survive
between calls, so the kernel runs in slices of a node budget and the Python
wrapper can enforce time limits, react to Ctrl-C, print traces and drain the
solution buffer without one Python call per solution.  Covers, unique and
total are counted inside the kernel through
:func:`~bench.models.symmetry.classify_cover`.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from bench.engines.protocol import Engine, Limits, Result, Settings, Status
from bench.engines.variants import CONSTRAINTS, constraint_variant, parse_tuning
from bench.models.symmetry import classify_cover
from bench.native.constraints import (C_FIT_FILTER, C_FIT_ROUNDS, C_PAR_OFFSET, C_PARITY_BT, C_PARITY_FILTER,
                                      C_VOLUME_BT, C_VOLUME_FILTER, K_FIT_FILTER, K_PARITY_BT, K_PARITY_FILTER,
                                      K_VOLUME_BT, K_VOLUME_FILTER, build_constraints, fit_filter_pass,
                                      parity_filter_pass, volume_filter_pass, volume_violated)
from bench.errors import UsageError
from bench.native.heuristics import FIXED_ORDER, compile_order, fixed_order_choice, fixed_order_step
from bench.native.memo import CoverMemo

# kernel return codes
DONE, PAUSED, FULL_STOP, BUFFER_FULL, TRACE, HANDOFF = 0, 1, 2, 3, 4, 5
# phases
FORWARD, TRY, MULTI, BACKUP = 0, 1, 2, 3
# slots of the int64 state array
S_LEVEL, S_PHASE, S_NODES, S_UPDATES, S_COVERS, S_UNIQUE, S_TOTAL, S_STORED, S_TRACE_KIND, S_DEAD = range(10)
N_STATE = 10


# -- counting a cover -------------------------------------------------------------------


@njit(cache=True)
def record_cover(chosen, n, complete, state, opt_ptr, opt_items, n_cells, cell_inv, opt_map, opt_gmask, grid,
                 sol_buf, sol_len, sol_weight, max_solutions, stream):
    """Count the cover ``chosen[:n]`` in ``state`` and buffer it while the buffer has room.

    Returns FULL_STOP once ``max_solutions`` covers are found, BUFFER_FULL
    when ``stream`` is set and the buffer needs draining, else DONE (go on).

    A ``complete`` cover is classified (:func:`classify_cover`): it adds to
    unique and total when canonical, and is buffered with its orbit share
    as weight (0 when not canonical).  Both native kernels call this at each
    cover they find, which is rare next to the nodes they visit.
    """
    state[S_COVERS] += 1
    weight = 1
    if complete:
        stab = classify_cover(chosen, n, opt_ptr, opt_items, n_cells, cell_inv, opt_map, opt_gmask, grid)
        if stab > 0:
            weight = opt_map.shape[0] // stab
            state[S_UNIQUE] += 1
            state[S_TOTAL] += weight
        else:
            weight = 0
    stored = state[S_STORED]
    if stored < sol_buf.shape[0]:
        for k in range(n):
            sol_buf[stored, k] = chosen[k]
        sol_len[stored] = n
        sol_weight[stored] = weight
        state[S_STORED] = stored + 1
    if max_solutions > 0 and state[S_COVERS] >= max_solutions:
        return FULL_STOP
    if stream and state[S_STORED] == sol_buf.shape[0]:
        return BUFFER_FULL
    return DONE


# -- the kernel -------------------------------------------------------------------------
#
# The helpers are closures inside the kernel: numba inlines closures, whereas a
# call to a separate jitted function that takes arrays pays reference counting
# on every array argument (measured: about 150 instructions per removal).


@njit(cache=True)
def dlx_search(opt_ptr, opt_items, node_opt, sets, loc, set_start, size, count, lo, hi, llink, rlink,
               snap, branch, mode, cur, end, node, chosen,
               state, attempts, fits, updates_by,
               kind, table, rank, n_cells, n_pieces,
               cell_inv, opt_map, opt_gmask, grid, classify,
               sol_buf, sol_len, sol_weight, stream, max_solutions, node_budget, goal, first_item, trace,
               handoff_at, handoff_cells, handoff_shapes, cons, path):
    """Run the search from the saved state for at most ``node_budget`` nodes.

    Returns DONE (search exhausted), PAUSED (budget spent), FULL_STOP
    (``max_solutions`` covers found), BUFFER_FULL (``stream`` is set and the
    solution buffer needs draining), TRACE (a trace event is waiting in the
    state) or HANDOFF: ``handoff_at`` or fewer pieces remain, no item has
    fewer than two options, at most ``handoff_cells`` cells are open and at
    most ``handoff_shapes`` shapes have pieces left, so another engine may
    finish this branch; the search resumes by backing up.  Without ``stream`` the buffer keeps the first covers found.
    Calling again resumes exactly where it stopped.  ``snap[2L]`` holds the
    item sizes on entering level L, ``snap[2L+1]`` those before each branch.

    ``cons`` carries the triggers and filters of
    :mod:`bench.native.constraints` (:meth:`Constraints.args`).  They act
    at every node from the root, after the cover check and before the
    hand-off, so FILA receives the filtered options; an option a filter
    removes goes out like any other and comes back when the level is undone.

    ``path`` is ``(base, force_opt, force_ex_ptr, force_ex, sample, sprod,
    est)``.  The first ``base`` levels replay a sub-problem's prefix: level
    L drops the options ``force_ex[force_ex_ptr[L]:force_ex_ptr[L+1]]`` (the
    siblings an identical-piece branch had already tweaked out) and places
    ``force_opt[L]``; nodes, attempts, fits and updates above ``base`` are
    the splitter's and are not counted again, and no hand-off happens there.
    With ``sample`` set, every node tries one uniformly random branch (Knuth's
    random path): ``sprod[L]`` is the product of the branching degrees above
    level L, and ``est`` accumulates nodes, attempts and complete covers each
    weighted by it, so one call is one unbiased estimate of the tree's size.
    """
    (cfg, opt_par, opt_pstep, par_ok, shape_size, nb_ptr, nb, counters, par_d, par_s,
     region, vol, stack, counts, reach, mark, rmark, dec, tstamp, ostamp, tlist, out) = cons
    pb_min = cfg[C_PARITY_BT]
    vb_min = cfg[C_VOLUME_BT]
    pf_min = cfg[C_PARITY_FILTER]
    vf_min = cfg[C_VOLUME_FILTER]
    ff_min = cfg[C_FIT_FILTER]
    fit_rounds = cfg[C_FIT_ROUNDS]
    poff = cfg[C_PAR_OFFSET]
    base, force_opt, force_ex_ptr, force_ex, sample, sprod, est = path
    track = pb_min > 0 or pf_min > 0
    checks = track or vb_min > 0 or vf_min > 0 or ff_min > 0
    n_items = np.uint32(size.shape[0])
    root = n_items

    U = np.uint32
    one = U(1)

    def remove(z, t):
        # move node z past the end of item t's active segment
        st = size[t]
        p = loc[z]
        e = set_start[t] + U(st) - one
        y = sets[e]
        sets[p] = y
        loc[y] = p
        sets[e] = z
        loc[z] = e
        size[t] = st - 1

    def drop_option(o):
        # take option o out of play: remove its node from each of its items
        z = opt_ptr[o]
        zend = opt_ptr[o + one]
        while z < zend:
            remove(z, opt_items[z])
            z += one
        return zend - opt_ptr[o]

    def largest(b):
        # the node of item b's active option with the largest number
        k = set_start[b]
        stop = k + U(size[b])
        x = sets[k]
        while k < stop:
            if node_opt[sets[k]] > node_opt[x]:
                x = sets[k]
            k += one
        return x

    def placed(level, x, o):
        # option o, through node x, is the placement at this level: the path
        # and, for the parity trigger and filter, the next level's state
        node[level] = x
        chosen[level] = o
        if track:
            par_d[level + 1] = par_d[level] - opt_par[o]
            par_s[level + 1] = par_s[level] - opt_pstep[o]

    def drop_filtered(m, counted):
        # take the m options a filter returned out of play; their updates are
        # the splitter's above a replayed prefix
        n = 0
        for q in range(m):
            n += drop_option(out[q])
        if counted:
            state[S_UPDATES] += n

    def close(j, check):
        # item j just closed: take each option still in its set out of every
        # other item (every set holds exactly the options still in play, as
        # the lists do in dancing links); with check, give up with -1 as soon
        # as an item would keep fewer options than it still needs
        n = 0
        k = set_start[j]
        stop = k + U(size[j])
        while k < stop:
            y = sets[k]
            o = node_opt[y]
            z = opt_ptr[o]
            zend = opt_ptr[o + one]
            while z < zend:
                if z != y:
                    t = opt_items[z]
                    if check and size[t] <= lo[t] - count[t]:
                        return -1
                    remove(z, t)
                    n += 1
                z += one
            k += one
        return n

    def unlist(t):
        rlink[llink[t]] = rlink[t]
        llink[rlink[t]] = llink[t]

    def relist(t):
        rlink[llink[t]] = t
        llink[rlink[t]] = t

    def commit(o, x):
        # count the items of option o other than node x and close the full
        # ones; -1 if that leaves an item that cannot be satisfied
        zend = opt_ptr[o + one]
        z = opt_ptr[o]
        while z < zend:
            if z != x:
                t = opt_items[z]
                c = count[t] + 1
                count[t] = c
                if c == lo[t]:
                    unlist(t)
            z += one
        n = 0
        z = opt_ptr[o]
        while z < zend:
            if z != x:
                t = opt_items[z]
                if count[t] == hi[t]:
                    m = close(t, True)
                    if m < 0:
                        return -1
                    n += m
            z += one
        return n

    def uncommit(o, x):
        z = opt_ptr[o + one]
        zstart = opt_ptr[o]
        while z > zstart:
            z -= one
            if z != x:
                t = opt_items[z]
                if count[t] == lo[t]:
                    relist(t)
                count[t] -= 1

    def save(row):
        r = U(row)
        i = U(0)
        while i < n_items:
            snap[r, i] = size[i]
            i += one

    def restore(row):
        r = U(row)
        i = U(0)
        while i < n_items:
            size[i] = snap[r, i]
            i += one

    def choose(k, rank_row):
        # the item to branch on; its branching degree is size - need + 1
        best = root
        best_size = 1 << 30
        i = rlink[root]
        if k != FIXED_ORDER:
            while i != root:
                degree = size[i] - (lo[i] - count[i]) + 1
                if degree < best_size:
                    best = i
                    best_size = degree
                    if degree <= 0:
                        break
                i = rlink[i]
            return best
        # fixed order: an item with 0, then 1 option wins; else the lowest-ranked cell
        none = np.int64(root)
        pick = (none, 2, none, 1 << 30, none, 1 << 30)
        rr = U(rank_row)
        while i != root:
            degree = size[i] - (lo[i] - count[i]) + 1
            pick = fixed_order_step(pick, np.int64(i), degree, i < n_cells, rank[rr, i] if i < n_cells else 0)
            if pick[1] <= 0:
                break
            i = rlink[i]
        return U(fixed_order_choice(pick, none))

    def traced(placed, left):
        if placed:
            return (trace > 0 and left >= trace - 1) or (trace < 0 and left == 1 - trace)
        return trace > 0 and left >= trace

    level = state[S_LEVEL]
    phase = state[S_PHASE]
    nodes_end = state[S_NODES] + node_budget
    status = DONE
    while True:
        if phase == FORWARD:
            if state[S_NODES] >= nodes_end:
                status = PAUSED
                break
            if level > base or base == 0:
                state[S_NODES] += 1
            if sample and level >= base:
                est[0] += sprod[level]
            remaining = n_pieces - level
            done = rlink[root] == root
            if done or (goal > 0 and remaining == goal):
                phase = BACKUP
                if sample and done:
                    est[2] += sprod[level]
                status = record_cover(chosen, level, classify and done, state, opt_ptr, opt_items, n_cells, cell_inv,
                                      opt_map, opt_gmask, grid, sol_buf, sol_len, sol_weight, max_solutions, stream)
                if status != DONE:
                    break
                continue
            if checks:
                if pb_min > 0 and remaining >= pb_min:
                    idx = par_d[level] + poff
                    if idx < 0 or idx >= par_ok.shape[1] or par_ok[par_s[level], idx] == 0:
                        counters[K_PARITY_BT, remaining] += 1
                        phase = BACKUP
                        continue
                if vb_min > 0 and remaining >= vb_min:
                    if volume_violated(n_cells, count, hi, nb_ptr, nb, shape_size, region, vol, mark, stack, counts,
                                       reach):
                        counters[K_VOLUME_BT, remaining] += 1
                        phase = BACKUP
                        continue
                if pf_min > 0 and remaining >= pf_min:
                    m = parity_filter_pass(n_cells, count, hi, size, sets, set_start, node_opt, opt_par, opt_pstep,
                                           par_ok, poff, par_d[level], par_s[level], out)
                    drop_filtered(m, level >= base)
                    counters[K_PARITY_FILTER, remaining] += m
                if vf_min > 0 and remaining >= vf_min:
                    m = volume_filter_pass(n_cells, count, hi, size, sets, set_start, node_opt, opt_ptr, opt_items,
                                           nb_ptr, nb, shape_size, region, vol, stack, counts, reach, mark, rmark,
                                           out)
                    drop_filtered(m, level >= base)
                    counters[K_VOLUME_FILTER, remaining] += m
                if ff_min > 0 and remaining >= ff_min:
                    r = 0
                    while fit_rounds == 0 or r < fit_rounds:
                        r += 1
                        m = fit_filter_pass(count, lo, hi, size, sets, set_start, node_opt, opt_ptr, opt_items,
                                            dec, tstamp, ostamp, tlist, cfg, out)
                        drop_filtered(m, level >= base)
                        counters[K_FIT_FILTER, remaining] += m
                        if m == 0:
                            break
            if level < base:
                # replay the prefix: the same state the splitter reached, counted by it already
                o = force_opt[level]
                save(2 * level)
                for q in range(force_ex_ptr[level], force_ex_ptr[level + 1]):
                    drop_option(force_ex[q])
                x = opt_ptr[o]
                b = opt_items[x]
                branch[level] = b
                mode[level] = 2
                count[b] += 1
                if count[b] == lo[b]:
                    unlist(b)
                if count[b] == hi[b]:
                    close(b, False)
                else:
                    drop_option(o)
                if commit(o, x) < 0:
                    uncommit(o, x)
                    if count[b] == lo[b]:
                        relist(b)
                    count[b] -= 1
                    restore(2 * level)
                    phase = BACKUP
                    continue
                placed(level, x, o)
                level += 1
                continue
            if (handoff_at > 0 and remaining <= handoff_at and not sample and level >= base
                    and not (level == 0 and first_item >= 0)):
                # hand the branch over unless an item is forced (0 or 1 options) or too many cells are open
                least = 1 << 30
                open_cells = 0
                i = rlink[root]
                while i != root:
                    degree = size[i] - (lo[i] - count[i]) + 1
                    if degree < least:
                        least = degree
                    if i < n_cells:
                        open_cells += 1
                    i = rlink[i]
                shapes_left = 0
                for t in range(n_cells, n_items):
                    if count[t] < hi[t]:
                        shapes_left += 1
                if least >= 2 and open_cells <= handoff_cells and shapes_left <= handoff_shapes:
                    state[S_NODES] -= 1
                    phase = BACKUP
                    status = HANDOFF
                    break
            if level == 0 and first_item >= 0:
                b = U(first_item)
            else:
                b = choose(kind[remaining], table[remaining])
            need = lo[b] - count[b]
            if size[b] - need + 1 <= 0:
                state[S_DEAD] += 1
                phase = BACKUP
                continue
            branch[level] = b
            save(2 * level)
            if need == 1 and hi[b] - count[b] == 1:
                mode[level] = 0
                count[b] += 1
                unlist(b)
                n = close(b, False)
                state[S_UPDATES] += n
                updates_by[remaining] += n
                save(2 * level + 1)
                cur[level] = set_start[b]
                end[level] = set_start[b] + U(size[b])
                if sample:
                    degree = size[b]
                    cur[level] += U(np.random.randint(0, degree))
                    end[level] = cur[level] + one
                    est[1] += sprod[level] * degree
                    sprod[level + 1] = sprod[level] * degree
                phase = TRY
            else:
                mode[level] = 1
                if sample:
                    # the k-th branch of an identical-piece item: the k-1 before it tweaked out
                    degree = size[b] - need + 1
                    for q in range(np.random.randint(0, degree)):
                        drop_option(node_opt[largest(b)])
                    est[1] += sprod[level] * degree
                    sprod[level + 1] = sprod[level] * degree
                phase = MULTI
        elif phase == TRY:
            b = branch[level]
            k = cur[level]
            if k == end[level]:
                restore(2 * level)
                relist(b)
                count[b] -= 1
                phase = BACKUP
                continue
            cur[level] = k + 1
            x = sets[k]
            o = node_opt[x]
            remaining = n_pieces - level
            attempts[remaining] += 1
            fits[remaining] += 1
            n = commit(o, x)
            if n < 0:
                restore(2 * level + 1)
                uncommit(o, x)
                state[S_DEAD] += 1
                continue
            state[S_UPDATES] += n
            updates_by[remaining] += n
            placed(level, x, o)
            level += 1
            phase = FORWARD
            if trace != 0 and traced(True, n_pieces - level):
                state[S_TRACE_KIND] = 1
                status = TRACE
                break
        elif phase == MULTI:
            b = branch[level]
            need = lo[b] - count[b]
            if size[b] < need:
                restore(2 * level)
                phase = BACKUP
                continue
            x = largest(b)
            o = node_opt[x]
            save(2 * level + 1)
            remaining = n_pieces - level
            attempts[remaining] += 1
            fits[remaining] += 1
            count[b] += 1
            if count[b] == lo[b]:
                unlist(b)
            if count[b] == hi[b]:
                n = close(b, False)
            else:
                n = drop_option(o)
            m = commit(o, x)
            if m < 0:
                restore(2 * level + 1)
                uncommit(o, x)
                if count[b] == lo[b]:
                    relist(b)
                count[b] -= 1
                state[S_UPDATES] += drop_option(o)
                state[S_DEAD] += 1
                continue
            state[S_UPDATES] += n + m
            updates_by[remaining] += n + m
            placed(level, x, o)
            level += 1
            phase = FORWARD
            if trace != 0 and traced(True, n_pieces - level):
                state[S_TRACE_KIND] = 1
                status = TRACE
                break
        else:  # BACKUP: leave this level and undo the placement one level up
            if level == 0:
                status = DONE
                break
            level -= 1
            x = node[level]
            o = node_opt[x]
            b = branch[level]
            restore(2 * level + 1)
            uncommit(o, x)
            if mode[level] == 0:
                phase = TRY
            elif mode[level] == 2:
                if count[b] == lo[b]:
                    relist(b)
                count[b] -= 1
                restore(2 * level)
                continue
            elif sample:
                # one random branch per node: this identical-piece level is done
                if count[b] == lo[b]:
                    relist(b)
                count[b] -= 1
                restore(2 * level)
                continue
            else:
                # tweak: the option just tried stays out for the rest of this branch
                if count[b] == lo[b]:
                    relist(b)
                count[b] -= 1
                state[S_UPDATES] += drop_option(o)
                phase = MULTI
            if trace > 0 and traced(False, n_pieces - level):
                state[S_TRACE_KIND] = 2
                status = TRACE
                break
    state[S_LEVEL] = level
    state[S_PHASE] = phase
    return status


@njit(cache=True)
def seed_random(seed):
    """Seed the generator the kernels draw from (numba keeps its own, apart from NumPy's)."""
    np.random.seed(seed)


# -- building the sets -------------------------------------------------------------------


def build_sets(cover):
    """Sparse-set arrays of a cover: ``node_opt, sets, loc, set_start`` (uint32) and ``size``.

    The search writes to ``sets``, ``loc`` and ``size``, so each call gets
    its own copies of those; the sort that builds them is done once per matrix.
    """
    node_opt, sets, loc, set_start, size = _sorted_sets(cover)
    return node_opt, sets.copy(), loc.copy(), set_start, size.copy()


@CoverMemo
def _sorted_sets(cover):
    """:func:`build_sets` computed afresh."""
    items = cover.opt_items.astype(np.int64)
    node_opt = np.repeat(np.arange(cover.n_options, dtype=np.uint32), np.diff(cover.opt_ptr))
    size = np.bincount(items, minlength=cover.n_items).astype(np.int32)
    set_start = np.zeros(cover.n_items, dtype=np.uint32)
    np.cumsum(size[:-1], out=set_start[1:])
    sets = np.argsort(items, kind="stable").astype(np.uint32)
    loc = np.empty(len(items), dtype=np.uint32)
    loc[sets] = np.arange(len(items), dtype=np.uint32)
    return node_opt, sets, loc, set_start, size


def branching_list(cover):
    """``llink, rlink``: the items that must be covered at least once, in item order, with root ``n_items``."""
    n = cover.n_items
    llink = np.zeros(n + 1, dtype=np.uint32)
    rlink = np.zeros(n + 1, dtype=np.uint32)
    chain = np.concatenate([[n], np.flatnonzero(cover.item_lo > 0), [n]]).astype(np.uint32)
    rlink[chain[:-1]] = chain[1:]
    llink[chain[1:]] = chain[:-1]
    return llink, rlink


def max_depth(cover) -> int:
    """An upper bound on the number of options in a cover (the search's stacks are sized by it).

    A cover covers item i at most ``hi[i]`` times and each option covers
    at least one item, so the options number at most the sum of the bounds;
    when every option has an item that must be covered exactly
    (``lo == hi > 0``, a cell or a piece), those items alone bound them.
    """
    if not cover.n_options:
        return 0
    exact = (cover.item_lo == cover.item_hi) & (cover.item_lo > 0)
    every_option_exact = np.logical_or.reduceat(exact[cover.opt_items], cover.opt_ptr[:-1]).all()
    bound = cover.item_hi[exact].sum() if every_option_exact else cover.item_hi.sum()
    return int(min(cover.n_options, bound))


def piece_count(cover) -> int:
    """Pieces to place: the total multiplicity of the shape items (the depth bound otherwise)."""
    if cover.puzzle is not None:
        return int(cover.item_hi[cover.n_cells:].sum())
    return max_depth(cover)


# -- the engine -----------------------------------------------------------------------

_compile_seconds: float | None = None


def warm_up() -> float:
    """Compile (or load from the cache) the kernel once per process; returns the seconds it took."""
    global _compile_seconds
    if _compile_seconds is None:
        from bench.models.cover import Cover

        from bench.native.bitset import BitsetSearch

        start = time.perf_counter()
        tiny = Cover.from_options([[0, 1], [1, 2], [2], [0]], [1, 1, 1])
        Search(tiny, Settings(), Limits()).run()
        BitsetSearch(tiny, Settings(), Limits()).run()
        _compile_seconds = time.perf_counter() - start
    return _compile_seconds


class Search:
    """One DLX search over a cover: arrays, kernel slices, statistics.

    The engine wrapper validates input and turns this into a :class:`Result`;
    FILA's pipeline and the splitter drive it directly.
    """

    BATCH = 4096

    def __init__(self, cover, settings: Settings, limits: Limits, on_solutions=None, on_trace=None,
                 handoff=None, handoff_at: int = 0, handoff_cells: int = 0, handoff_shapes: int = 0,
                 batch: int | None = None):
        self.cover = cover
        # ``handoff(search)`` returns a sub-search (``.slice(budget) -> code``) for the branch at hand
        self.handoff = handoff
        self.handoff_at = handoff_at if handoff is not None else 0
        self.handoff_cells = handoff_cells
        self.handoff_shapes = handoff_shapes
        self.sub = None
        self.settings = settings
        self.limits = limits
        self.on_solutions = on_solutions
        self.on_trace = on_trace
        self.n_pieces = piece_count(cover)
        depth = max(max_depth(cover), 1)
        self.order = compile_order(settings.order, cover, self.n_pieces)
        self.node_opt, self.sets, self.loc, self.set_start, self.size = build_sets(cover)
        self.llink, self.rlink = branching_list(cover)
        self.count = np.zeros(cover.n_items, dtype=np.int32)
        self.lo = np.ascontiguousarray(cover.item_lo, dtype=np.int32)
        self.hi = np.ascontiguousarray(cover.item_hi, dtype=np.int32)
        self.opt_ptr = cover.opt_ptr.astype(np.uint32)
        self.opt_items = cover.opt_items.astype(np.uint32)
        self.snap = np.zeros((2 * (depth + 1), cover.n_items), dtype=np.int32)
        self.branch = np.zeros(depth + 1, dtype=np.uint32)
        self.mode = np.zeros(depth + 1, dtype=np.int32)
        self.cur = np.zeros(depth + 1, dtype=np.uint32)
        self.end = np.zeros(depth + 1, dtype=np.uint32)
        self.node = np.zeros(depth + 1, dtype=np.uint32)
        self.chosen = np.zeros(depth + 1, dtype=np.int32)
        self.state = np.zeros(N_STATE, dtype=np.int64)
        self.attempts = np.zeros(self.n_pieces + 1, dtype=np.int64)
        self.fits = np.zeros(self.n_pieces + 1, dtype=np.int64)
        self.updates_by = np.zeros(self.n_pieces + 1, dtype=np.int64)
        self.grid = np.zeros(max(cover.n_cells, 1), dtype=np.int32)
        self.stream = on_solutions is not None
        self.keep = limits.keep_solutions
        # with a trace, every solution is handed out at once so output stays in search order
        capacity = (batch or (1 if settings.trace else self.BATCH)) if self.stream else self.keep
        self.sol_buf = np.zeros((capacity, depth + 1), dtype=np.int32)
        self.sol_len = np.zeros(capacity, dtype=np.int32)
        self.sol_weight = np.zeros(capacity, dtype=np.int64)
        self.kept: list[np.ndarray] = []
        self.classify = settings.goal == 0
        self.first_item = -1 if settings.first_item is None else int(settings.first_item)
        self.constraints = build_constraints(cover, settings, self.n_pieces, depth)
        self.cons_args = self.constraints.args()
        self.sprod = np.ones(depth + 2, dtype=np.float64)
        self.est = np.zeros(3, dtype=np.float64)
        self.set_prefix(settings.prefix)

    def set_prefix(self, prefix: tuple) -> None:
        """Replay ``prefix`` (see :attr:`Settings.prefix`) from now on; only between searches (at the root)."""
        self.base = len(prefix)
        force_opt = np.array([o for o, _ in prefix] + [0], dtype=np.int32)
        force_ex_ptr = np.zeros(self.base + 1, dtype=np.int32)
        force_ex_ptr[1:] = np.cumsum([len(ex) for _, ex in prefix], dtype=np.int32)
        force_ex = np.array([e for _, ex in prefix for e in ex] + [0], dtype=np.int32)
        self.path_args = (self.base, force_opt, force_ex_ptr, force_ex, False, self.sprod, self.est)

    def run(self) -> Status:
        """Search until done or a limit stops it."""
        limits = self.limits
        budget = 1 << 14
        start = time.perf_counter()
        status = Status.SOLVED
        try:
            while True:
                if limits.node_limit is not None:
                    left = limits.node_limit - int(self.state[S_NODES])
                    if left <= 0:
                        status = Status.LIMIT
                        break
                    budget = min(budget, left)
                t0 = time.perf_counter()
                code = self._slice(budget)
                elapsed = time.perf_counter() - t0
                if code == BUFFER_FULL:
                    self._drain()
                if code == DONE:
                    break
                if code == FULL_STOP:
                    status = Status.LIMIT
                    break
                if code == TRACE and self.on_trace is not None:
                    kind = "place" if self.state[S_TRACE_KIND] == 1 else "remove"
                    level = int(self.state[S_LEVEL])
                    self.on_trace(kind, self.chosen[:level].copy())
                if code == PAUSED:
                    # aim for slices of about 20 ms so limits and Ctrl-C are honoured promptly
                    budget = int(min(max(budget * (0.02 / max(elapsed, 1e-6)), 1 << 10), 1 << 26))
                if limits.time_limit is not None and time.perf_counter() - start >= limits.time_limit:
                    status = Status.TIMEOUT
                    break
        except KeyboardInterrupt:
            status = Status.INTERRUPTED
        self.solve_seconds = time.perf_counter() - start
        # after Ctrl-C the covers found are kept but no longer handed to the sink
        self._drain(notify=status != Status.INTERRUPTED)
        return status

    def _slice(self, budget: int) -> int:
        """Run the search for at most ``budget`` nodes: the sub-search at hand, else DLX."""
        if self.sub is not None:
            code = self.sub.slice(budget)
            if code != DONE:
                return code
            self.sub = None
            return PAUSED
        sym = self.cover.symmetry
        code = dlx_search(
            self.opt_ptr, self.opt_items, self.node_opt, self.sets, self.loc, self.set_start,
            self.size, self.count, self.lo, self.hi, self.llink, self.rlink,
            self.snap, self.branch, self.mode, self.cur, self.end, self.node, self.chosen,
            self.state, self.attempts, self.fits, self.updates_by,
            self.order.kind, self.order.table, self.order.rank, self.cover.n_cells, self.n_pieces,
            sym.cell_inv, sym.opt_map, sym.opt_gmask, self.grid, self.classify,
            self.sol_buf, self.sol_len, self.sol_weight, self.stream,
            self.limits.max_solutions or 0, budget, self.settings.goal, self.first_item, self.settings.trace,
            self.handoff_at, self.handoff_cells, self.handoff_shapes, self.cons_args, self.path_args)
        if code == HANDOFF:
            self.sub = self.handoff(self)
            return PAUSED
        return code

    def _drain(self, notify: bool = True) -> None:
        """Hand the buffered covers to the sink and keep the first ``keep_solutions``."""
        stored = int(self.state[S_STORED])
        if stored == 0:
            return
        batch = [self.sol_buf[k, : self.sol_len[k]].copy() for k in range(stored)]
        self.state[S_STORED] = 0
        if len(self.kept) < self.keep:
            self.kept.extend(batch[: self.keep - len(self.kept)])
        if notify and self.on_solutions is not None:
            self.on_solutions(batch, self.sol_weight[:stored].tolist())

    def sample(self, trials: int, seed: int) -> np.ndarray:
        """``trials`` random paths (Knuth's estimator); one row per path: nodes, attempts, complete covers.

        Each row is an unbiased estimate of the search below the prefix down to
        the goal (pieces left), for this search's heuristics and constraints.
        """
        seed_random(seed)
        self.path_args = self.path_args[:4] + (True,) + self.path_args[5:]
        rows = np.zeros((trials, 3), dtype=np.float64)
        try:
            for t in range(trials):
                self.est[:] = 0.0
                self.state[S_LEVEL] = 0
                self.state[S_PHASE] = FORWARD
                while self._slice(1 << 40) != DONE:
                    self.state[S_STORED] = 0
                rows[t] = self.est
        finally:
            self.path_args = self.path_args[:4] + (False,) + self.path_args[5:]
        return rows

    def stats(self) -> dict:
        """Machine-independent counters, per number of remaining pieces where it applies.

        A sub-problem's counters cover only the levels below its prefix: the
        splitter counted the ones above, so that the parts add up.
        """
        if self.base:
            self.constraints.counters[:, self.n_pieces - self.base + 1:] = 0
        return {
            "nodes": int(self.state[S_NODES]),
            "updates": int(self.state[S_UPDATES]),
            "dead_ends": int(self.state[S_DEAD]),
            "attempts": int(self.attempts.sum()),
            "fits": int(self.fits.sum()),
            "attempts_by_remaining": self.attempts.tolist(),
            "fits_by_remaining": self.fits.tolist(),
            "updates_by_remaining": self.updates_by.tolist(),
            **self.constraints.stats(),
        }


KERNELS = ("bits", "sets")


class DlxEngine(Engine):
    """The native DLX engine (see the module docstring).

    Two kernels run the same search with the same statistics: option
    bitsets (:mod:`bench.native.bitset`) wherever the settings allow, and
    the sparse sets of this module with constraints at search nodes, a trace
    or a forced first item.  The variant ``bits`` or ``sets`` picks one
    (``dlx:sets``, ``dlx:s/sets``); the result's ``stats["kernel"]`` says
    which ran.
    """

    name = "dlx"
    supported = frozenset({"order", "goal", "first_item", "trace", "prefix", "max_solutions", "node_limit", "time_limit"}) | CONSTRAINTS

    def __init__(self, variant: str = ""):
        tokens = [t for t in variant.split("/") if t]
        kernels = [t for t in tokens if t in KERNELS]
        if len(kernels) > 1:
            raise UsageError(f"dlx: choose one kernel, bits or sets, not {' and '.join(kernels)}")
        self.kernel = kernels[0] if kernels else None
        self.tuning = parse_tuning(self.name, "/".join(t for t in tokens if t not in KERNELS),
                                   frozenset({"order"}) | CONSTRAINTS)

    def warm_up(self) -> float:
        """Seconds spent compiling (or loading) the kernel in this process."""
        return warm_up()

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None, on_trace=None) -> Result:
        """Count (and optionally return) the exact covers of ``cover``.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/pentominoes_20x3.txt")
        >>> r = DlxEngine().solve(bench.Cover.from_puzzle(p, redundancy=True))
        >>> r.status.value, r.covers, r.unique, r.total
        ('solved', 2, 2, 8)
        """
        self.check(settings, limits)
        settings = self.resolve(cover, settings)
        from bench.native import bitset

        plain = bitset.suits(settings)
        if self.kernel == "bits" and not plain:
            raise UsageError("dlx:bits runs searches without in-search constraints, trace or first item; use dlx:sets")
        kernel = self.kernel or ("bits" if plain else "sets")
        compile_seconds = warm_up()
        t0 = time.perf_counter()
        search = (bitset.BitsetSearch if kernel == "bits" else Search)(cover, settings, limits, on_solutions, on_trace)
        setup_seconds = time.perf_counter() - t0
        status = search.run()
        exact = settings.goal == 0
        covers = int(search.state[S_COVERS])
        stats = search.stats()
        stats["kernel"] = kernel
        return Result(
            engine=self.name,
            variant=search.order.text + constraint_variant(settings) + ("/" + self.kernel if self.kernel else ""),
            status=status,
            covers=covers,
            unique=int(search.state[S_UNIQUE]) if exact else None,
            total=int(search.state[S_TOTAL]) if exact else None,
            solutions=search.kept,
            stats=stats,
            timings={"compile": compile_seconds, "setup": setup_seconds, "solve": search.solve_seconds},
            cover_hash=cover.hash,
        )
