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
option bitsets (:mod:`bench.kernels.bitset`); this kernel serves the rest,
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

**Search.**  Iterative, with an explicit level stack and four steps
in the shape of Knuth's DLX1 (enter a level, try the next option, the next
multiple of identical pieces, leave the level); the two that place an option
share one placement, so that its code (commit, with close and remove inside)
is compiled once.  The state lives in arrays that survive
between calls, so the kernel runs in slices of a node budget and the Python
wrapper can enforce time limits, react to Ctrl-C, print traces and drain the
solution buffer without one Python call per solution.  Covers, unique and
total are counted inside the kernel through
:func:`~bench.kernels.canonical.classify_cover`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from bench.toolchain.registry import njit
from bench.kernels.codes import (DONE, EACH, ENTER, HANDOFF, LEAVE, MULTI, PAUSED, REPLAYED, S_DEAD, S_LEVEL, S_NODES,
                                 S_PHASE, S_TRACE_KIND, S_UPDATES, TRACE, TRY, TWEAKED, record_cover, traced)
from bench.kernels.constraints import (C_FIT_FILTER, C_FIT_ROUNDS, C_PAR_OFFSET, C_PARITY_BT, C_PARITY_FILTER,
                                      C_VOLUME_BT, C_VOLUME_FILTER, K_FIT_FILTER, K_PARITY_BT, K_PARITY_FILTER,
                                      K_VOLUME_BT, K_VOLUME_FILTER, fit_filter_pass, parity_filter_pass,
                                      swap_out, take_out, volume_filter_pass, volume_violated)
from bench.kernels.heuristics import FIXED_ORDER, fixed_order_choice, fixed_order_step
from bench.kernels.memo import CoverMemo

SparseSets = namedtuple("SparseSets", ["node_opt", "sets", "loc", "set_start", "size", "count", "llink", "rlink",
                                       "colour", "slack"])
"""The matrix in play as dancing cells (see the module's layout and multiplicities): the sparse sets of each
item's active options (``node_opt``, ``sets``, ``loc``, ``set_start``, ``size``), how often each item is covered
(``count``) and the list of the items that still need options (``llink``, ``rlink``); the colour node z gives its
secondary item (``colour[z]``, 0: none; empty when the cover has no colours) and an extensible cover's slack item
(``slack``, or -1), both read as :func:`dlx_search` says."""

Levels = namedtuple("Levels", ["snap", "branch", "mode", "cur", "end", "node", "chosen"])
"""The level stack: per level L, the item sizes on entering it (``snap[2L]``) and before each branch
(``snap[2L+1]``), the item it branches on and how (``mode``: EACH, TWEAKED or REPLAYED of
:mod:`bench.kernels.codes`), the next and end position of its branches in ``sets``, and the node and option placed
there."""

Handoff = namedtuple("Handoff", ["at", "cells", "shapes"])
"""When DLX hands a branch to another engine (FILA): ``at`` or fewer pieces remain (0: never), no item has fewer
than two options, at most ``cells`` cells are open and at most ``shapes`` shapes have pieces left."""

# -- the rare steps ----------------------------------------------------------------------
#
# Steps that only a split's replay, a random path or colours take are kernels of their own, not closures of
# dlx_search: numba pastes a closure's body at every call site and walks the whole kernel again for each one it
# pastes, so each closure costs every specialization's cold compile (a library build) whether its search ever takes
# that step or not.  They take the arrays the kernel's loop holds anyway, not its bundles: a bundle passed to a call
# in the loop keeps every field of it live there, which cost the hot steps 5 to 10 % of their instructions.


@njit(cache=True, no_cpython_wrapper=True)
def take_out_all(options, start, stop, opt_ptr, opt_items, size, sets, loc, set_start):
    """Take ``options[start:stop]`` out of play (a replayed level's tweaked-out siblings, what a filter rules out);
    returns the updates."""
    n = 0
    for q in range(start, stop):
        n += take_out(options[q], opt_ptr, opt_items, size, sets, loc, set_start)
    return n


@njit(cache=True, no_cpython_wrapper=True)
def random_branch(est, sprod, lv, degree):
    """On a random path, which of level ``lv``'s ``degree`` branches to take: a uniform draw, weighted into the
    estimate ``est`` (``sprod``: the product of the degrees above each level).

    One signature for every call (``degree`` an int64): each other one would be a compile of its own.
    """
    est[1] += sprod[lv] * degree
    sprod[lv + 1] = sprod[lv] * degree
    return np.random.randint(0, degree)


@njit(cache=True, no_cpython_wrapper=True)
def tweak_out(b, r, node_opt, opt_ptr, opt_items, size, sets, loc, set_start):
    """The r-th branch of identical pieces on item ``b``: its ``r`` largest options out of play (tweaked)."""
    for q in range(r):
        k = set_start[b]
        stop = k + np.uint32(size[b])
        x = sets[k]
        while k < stop:
            if node_opt[sets[k]] > node_opt[x]:
                x = sets[k]
            k += np.uint32(1)
        take_out(node_opt[x], opt_ptr, opt_items, size, sets, loc, set_start)


@njit(cache=True, no_cpython_wrapper=True)
def purify(j, c, colour, size, sets, loc, set_start):
    """Secondary item ``j`` took colour ``c`` (its other options already left every other item): the options that give
    it another colour, or none, leave its set too, so only options of colour ``c`` share it.  Returns the updates."""
    start = set_start[j]
    n = 0
    k = start
    while k < start + np.uint32(size[j]):
        y = sets[k]
        if colour[y] != c:
            swap_out(y, j, size, sets, loc, set_start)
            n += 1
        else:
            k += np.uint32(1)
    return n


# -- the kernel -------------------------------------------------------------------------
#
# The helpers are closures inside the kernel: numba inlines closures, whereas a
# call to a separate jitted function that takes arrays pays reference counting
# on every array argument (measured: about 150 instructions per removal).


@njit(cache=True)
def dlx_search(matrix, sparse, levels, counters, order, symmetry, sink, path, handoff, cons, trace, node_budget):
    """Run the search from the saved state for at most ``node_budget`` nodes.

    Returns DONE (search exhausted), PAUSED (budget spent), FULL_STOP
    (``max_solutions`` covers found), BUFFER_FULL (``stream`` is set and the
    solution buffer needs draining), TRACE (a trace event is waiting in the
    state) or HANDOFF: the :data:`Handoff` bundle's conditions hold, so
    another engine may finish this branch; the search resumes by backing
    up.  Without ``stream`` the buffer keeps the first covers found.
    Calling again resumes exactly where it stopped.  The arrays come in the
    bundles of :mod:`bench.kernels.codes` (``matrix``, ``counters``,
    ``order``, ``symmetry``, ``sink``, ``path``) and of this module
    (``sparse``, ``levels``, ``handoff``).

    ``cons`` carries the triggers and filters of
    :mod:`bench.kernels.constraints` (:meth:`Constraints.args`).  They act
    at every node from the root, after the cover check and before the
    hand-off, so FILA receives the filtered options; an option a filter
    removes goes out like any other and comes back when the level is undone.

    ``cons`` is a :data:`~bench.kernels.constraints.ConstraintArgs`, or None
    when no trigger or filter is on (a specialisation without their code), ``path``
    a :data:`~bench.kernels.codes.PathArgs`.  The first ``base`` levels replay a sub-problem's prefix: level
    L drops the options ``force_ex[force_ex_ptr[L]:force_ex_ptr[L+1]]`` (the
    siblings an identical-piece branch had already tweaked out) and places
    ``force_opt[L]``; nodes, attempts, fits and updates above ``base`` are
    the splitter's and are not counted again, and no hand-off happens there.
    With ``sample`` set, every node tries one uniformly random branch (Knuth's
    random path, from numba's generator, seeded first with ``seed`` unless it
    is negative): ``sprod[L]`` is the product of the branching degrees above
    level L, and ``est`` accumulates nodes, attempts and complete covers each
    weighted by it, so one call is one unbiased estimate of the tree's size.

    Colours (:data:`SparseSets` ``colour``): an option that gives a
    secondary item a colour *purifies* it, taking out of play the options
    that give it another colour or none, and leaves it open to the options
    of the same colour (Knuth's DLX2).  The slack item (``slack``, or -1) is
    an item that every option of an :attr:`~bench.models.cover.Cover.extensible`
    cover holds that covers no item with exact bounds: once every lower
    bound is met, the partial cover is recorded, and the options still in
    play in that item are branched on as identical pieces are, the k-th
    branch adding the k-th largest and keeping the ones before it out, so
    every set of them that fits is added exactly once.  A search with a
    ``goal`` leaves a cover unextended: the splitter makes it a sub-problem,
    whose search extends it below the replayed prefix.
    """
    # the bundles' fields, one a line (see bench.kernels.codes)
    opt_ptr = matrix.opt_ptr
    opt_items = matrix.opt_items
    lo = matrix.lo
    hi = matrix.hi
    n_cells = matrix.n_cells
    n_pieces = matrix.n_pieces
    node_opt = sparse.node_opt
    sets = sparse.sets
    loc = sparse.loc
    set_start = sparse.set_start
    size = sparse.size
    count = sparse.count
    llink = sparse.llink
    rlink = sparse.rlink
    colour = sparse.colour
    slack = sparse.slack
    snap = levels.snap
    branch = levels.branch
    mode = levels.mode
    cur = levels.cur
    end = levels.end
    node = levels.node
    chosen = levels.chosen
    state = counters.state
    attempts = counters.attempts
    fits = counters.fits
    updates_by = counters.updates_by
    kind = order.kind
    table = order.table
    rank = order.rank
    goal = sink.goal
    handoff_at = handoff.at
    handoff_cells = handoff.cells
    handoff_shapes = handoff.shapes
    # cons is None in a search without triggers or filters: numba then prunes every block guarded by
    # ``cons is not None`` before typing, and this specialisation compiles none of their code (a third of the
    # kernel's compile time)
    if cons is not None:
        cfg = cons.cfg
        checks = (cfg[C_PARITY_BT] > 0 or cfg[C_PARITY_FILTER] > 0 or cfg[C_VOLUME_BT] > 0
                  or cfg[C_VOLUME_FILTER] > 0 or cfg[C_FIT_FILTER] > 0)
    base = path.base
    force_opt = path.force_opt
    force_ex_ptr = path.force_ex_ptr
    force_ex = path.force_ex
    first_item = path.first_item
    sample = path.sample
    sprod = path.sprod
    est = path.est
    if path.seed >= 0:
        np.random.seed(path.seed)
    n_items = np.uint32(size.shape[0])
    root = n_items

    U = np.uint32
    one = U(1)
    coloured = colour.shape[0] > 0

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
        # option o, through node x, is the placement at this level
        node[level] = x
        chosen[level] = o

    def close(j, check, c):
        # item j just closed: take each option still in its set out of every
        # other item (every set holds exactly the options still in play, as
        # the lists do in dancing links); with check, give up with -1 as soon
        # as an item would keep fewer options than it still needs.  With a
        # colour c (not 0), the options that give j colour c stay (see purify)
        n = 0
        k = set_start[j]
        stop = k + U(size[j])
        while k < stop:
            y = sets[k]
            if c == 0 or colour[y] != c:
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
                    # unlist(t), spelled out: every closure call site costs numba a compile of the closure
                    rlink[llink[t]] = rlink[t]
                    llink[rlink[t]] = llink[t]
            z += one
        n = 0
        z = opt_ptr[o]
        while z < zend:
            if z != x:
                t = opt_items[z]
                if count[t] == hi[t]:
                    # a coloured item reaches its bound 1 with its first option; later ones share its colour
                    c = colour[z] if coloured else 0
                    m = close(t, True, c)
                    if m < 0:
                        return -1
                    if c != 0:
                        m += purify(t, c, colour, size, sets, loc, set_start)
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
                    # relist(t), spelled out
                    rlink[llink[t]] = t
                    llink[rlink[t]] = t
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

    # The steps of ENTER, named: each runs at most once per node, from one call site (a closure is compiled once per
    # call site, and each one inlined costs numba a pass over the whole kernel: the node's count and a cover's
    # record stay in the loop).  The triggers and filters are functions of their own (node_backtracks, node_filters): as closures
    # they would be inlined and processed in every specialization, then pruned from the one without them.

    def replay(lv):
        # a replayed prefix's level: the siblings its branch had tweaked out go, and MULTI places its option (the
        # state the splitter reached)
        save(2 * lv)
        take_out_all(force_ex, force_ex_ptr[lv], force_ex_ptr[lv + 1], opt_ptr, opt_items, size, sets, loc, set_start)
        branch[lv] = opt_items[opt_ptr[force_opt[lv]]]
        mode[lv] = REPLAYED

    def handoff_due(lv, remaining):
        # hand the branch over once few enough pieces remain (not while replaying, sampling, or at a forced first
        # item), unless an item is forced (0 or 1 options) or too many cells or shapes are open
        if (handoff_at <= 0 or remaining > handoff_at or sample or lv < base
                or (lv == 0 and first_item >= 0)):
            return False
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
        return least >= 2 and open_cells <= handoff_cells and shapes_left <= handoff_shapes

    def choose_item(lv, remaining):
        # X3: the item to branch on (the forced first item at the root); its branching degree is size - need + 1
        if lv == 0 and first_item >= 0:
            return U(first_item)
        best = root
        best_size = 1 << 30
        i = rlink[root]
        if kind[remaining] != FIXED_ORDER:
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
        rr = U(table[remaining])
        while i != root:
            degree = size[i] - (lo[i] - count[i]) + 1
            pick = fixed_order_step(pick, np.int64(i), degree, i < n_cells, rank[rr, i] if i < n_cells else 0)
            if pick[1] <= 0:
                break
            i = rlink[i]
        return U(fixed_order_choice(pick, none))

    def cover_item(lv, b, remaining):
        # X4: branch on item b.  One option still to place and room for one: cover b (its other options leave every
        # item) and TRY its options in turn; else (identical pieces) MULTI places its largest option first.  Returns
        # the next step.
        branch[lv] = b
        save(2 * lv)
        need = lo[b] - count[b]
        if need == 1 and hi[b] - count[b] == 1:
            mode[lv] = EACH
            count[b] += 1
            unlist(b)
            n = close(b, False, 0)
            state[S_UPDATES] += n
            updates_by[remaining] += n
            save(2 * lv + 1)
            cur[lv] = set_start[b]
            end[lv] = set_start[b] + U(size[b])
            if sample:
                cur[lv] += U(random_branch(est, sprod, lv, np.int64(size[b])))
                end[lv] = cur[lv] + one
            return TRY
        mode[lv] = TWEAKED
        if sample:
            # the k-th branch of an identical-piece item: the k-1 before it tweaked out
            r = random_branch(est, sprod, lv, np.int64(size[b] - need + 1))
            tweak_out(b, r, node_opt, opt_ptr, opt_items, size, sets, loc, set_start)
        return MULTI

    def extend(lv):
        # a cover with options of room to spare still in play (the slack item's): MULTI branches on them as on
        # identical pieces, so each set of them extends the cover once; a random path has one branch more, which
        # stops at the cover itself.  Returns the next step.
        b = U(slack)
        branch[lv] = b
        save(2 * lv)
        mode[lv] = TWEAKED
        if sample:
            degree = np.int64(size[b] + 1)
            r = random_branch(est, sprod, lv, degree)
            if r == degree - 1:
                est[2] += sprod[lv] * degree
                return LEAVE
            tweak_out(b, r, node_opt, opt_ptr, opt_items, size, sets, loc, set_start)
        return MULTI

    level = state[S_LEVEL]
    phase = state[S_PHASE]
    nodes_end = state[S_NODES] + node_budget
    status = DONE
    while True:
        if phase == ENTER:
            # X2, enter the level: a node, unless the budget is spent; a cover is recorded and left
            if state[S_NODES] >= nodes_end:
                status = PAUSED
                break
            remaining = n_pieces - level
            # a replayed prefix's nodes are the splitter's; a random path adds the node's weight to the estimate
            if level > base or base == 0:
                state[S_NODES] += 1
            if sample and level >= base:
                est[0] += sprod[level]
            done = rlink[root] == root
            if done or (goal > 0 and remaining == goal):
                # a cover, or a partial one at the goal: counted, classified when complete, buffered; left, or
                # extended while an extensible cover's slack item has options in play.  Not with a goal (the
                # splitter's): there the cover is a sub-problem, and its replay extends it, below its prefix
                phase = LEAVE
                if done and slack >= 0 and goal == 0 and level >= base and size[slack] > 0:
                    phase = extend(level)
                elif sample and done:
                    est[2] += sprod[level]
                status = record_cover(chosen, level, done, state, matrix, symmetry, sink)
                if status != DONE:
                    break
                continue
            if cons is not None and checks:
                if node_backtracks(cons, level, remaining, chosen, matrix, sparse):
                    phase = LEAVE
                    continue
                n = node_filters(cons, level, remaining, matrix, sparse)
                # above a replayed prefix the updates are the splitter's
                if level >= base:
                    state[S_UPDATES] += n
            if level < base:
                replay(level)
                phase = MULTI
                continue
            if handoff_due(level, remaining):
                # the other engine counts this node
                state[S_NODES] -= 1
                phase = LEAVE
                status = HANDOFF
                break
            # X3, choose an item; X4, cover it, unless no option can satisfy it any more
            b = choose_item(level, remaining)
            if size[b] - (lo[b] - count[b]) + 1 <= 0:
                state[S_DEAD] += 1
                phase = LEAVE
                continue
            phase = cover_item(level, b, remaining)
            continue
        elif phase == TRY:
            # X5, try the level's next option; X6 once none is left: uncover the item and leave
            b = branch[level]
            k = cur[level]
            if k == end[level]:
                restore(2 * level)
                relist(b)
                count[b] -= 1
                phase = LEAVE
                continue
            cur[level] = k + 1
            x = sets[k]
            o = node_opt[x]
            remaining = n_pieces - level
            attempts[remaining] += 1
            fits[remaining] += 1
            # the item's close was counted on entering the level
            n = 0
            counted = True
        elif phase == MULTI:
            # an identical-piece level's next branch, or a prefix's replayed level (not counted: the splitter
            # counted it)
            b = branch[level]
            counted = level >= base
            if not counted:
                x = opt_ptr[force_opt[level]]
            elif size[b] == 0 or size[b] < lo[b] - count[b]:
                # (the slack item needs nothing: its branches end when it has no option left)
                restore(2 * level)
                phase = LEAVE
                continue
            else:
                x = largest(b)
            o = node_opt[x]
            save(2 * level + 1)
            # mirrored on purpose by the bitset kernel's placement (bench.kernels.bitset): the counters must agree
            remaining = n_pieces - level
            if counted:
                attempts[remaining] += 1
                fits[remaining] += 1
            count[b] += 1
            if count[b] == lo[b]:
                unlist(b)
            if count[b] == hi[b]:
                n = close(b, False, 0)
            else:
                n = drop_option(o)
        else:  # LEAVE (X8): back to the level above, undoing its placement (X6), then on to its next branch
            if level == 0:
                status = DONE
                break
            level -= 1
            x = node[level]
            o = node_opt[x]
            b = branch[level]
            restore(2 * level + 1)
            uncommit(o, x)
            if mode[level] == EACH:
                phase = TRY
            elif mode[level] == REPLAYED or sample:
                # a prefix's level, or, on a random path, an identical-piece level's one branch: this level is done
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
            if trace > 0 and traced(trace, False, n_pieces - level):
                state[S_TRACE_KIND] = 2
                status = TRACE
                break
            continue
        # X5 for TRY and MULTI alike, option o through node x: one copy of commit (with close and remove inside),
        # as every copy is numba IR that each later compile pass walks
        m = commit(o, x)
        if m < 0:
            restore(2 * level + 1)
            uncommit(o, x)
            if phase == MULTI:
                if count[b] == lo[b]:
                    relist(b)
                count[b] -= 1
                if not counted:
                    restore(2 * level)
                    phase = LEAVE
                    continue
                state[S_UPDATES] += drop_option(o)
            state[S_DEAD] += 1
            continue
        placed(level, x, o)
        level += 1
        phase = ENTER
        if not counted:
            continue
        state[S_UPDATES] += n + m
        updates_by[remaining] += n + m
        if trace != 0 and traced(trace, True, n_pieces - level):
            state[S_TRACE_KIND] = 1
            status = TRACE
            break
    state[S_LEVEL] = level
    state[S_PHASE] = phase
    return status


@njit(cache=True)
def node_backtracks(cons, level, remaining, chosen, matrix, sparse):
    """The triggers at a DLX node: True (counted) when the pieces left cannot reach the region's parity or a region's
    volume.

    First the parity state below the placement that led here, which the
    parity filter and a hand-off to FILA read too.
    """
    cfg = cons.cfg
    par_d = cons.par_d
    par_s = cons.par_s
    if level > 0 and (cfg[C_PARITY_BT] > 0 or cfg[C_PARITY_FILTER] > 0):
        o = chosen[level - 1]
        par_d[level] = par_d[level - 1] - cons.opt_par[o]
        par_s[level] = par_s[level - 1] - cons.opt_pstep[o]
    pb_min = cfg[C_PARITY_BT]
    vb_min = cfg[C_VOLUME_BT]
    if pb_min > 0 and remaining >= pb_min:
        idx = par_d[level] + cfg[C_PAR_OFFSET]
        if idx < 0 or idx >= cons.par_ok.shape[1] or cons.par_ok[par_s[level], idx] == 0:
            cons.counters[K_PARITY_BT, remaining] += 1
            return True
    if vb_min > 0 and remaining >= vb_min:
        if volume_violated(matrix.n_cells, sparse.count, matrix.hi, cons.nb_ptr, cons.nb, cons.shape_size,
                           cons.region, cons.vol, cons.mark, cons.stack, cons.counts, cons.reach):
            cons.counters[K_VOLUME_BT, remaining] += 1
            return True
    return False


@njit(cache=True)
def node_filters(cons, level, remaining, matrix, sparse):
    """The in-search filters at a DLX node; returns the list updates they took.

    They take out of play the options that would break the parity, a
    region's volume or an item's fit (counted per filter).  An option taken
    out leaves every item's set as in the kernel, and comes back when the
    kernel restores the level's set sizes.
    """
    cfg = cons.cfg
    counters = cons.counters
    out = cons.out
    opt_ptr = matrix.opt_ptr
    opt_items = matrix.opt_items
    size = sparse.size
    sets = sparse.sets
    loc = sparse.loc
    set_start = sparse.set_start
    pf_min = cfg[C_PARITY_FILTER]
    vf_min = cfg[C_VOLUME_FILTER]
    ff_min = cfg[C_FIT_FILTER]
    fit_rounds = cfg[C_FIT_ROUNDS]
    updates = 0
    if pf_min > 0 and remaining >= pf_min:
        m = parity_filter_pass(matrix, sparse, cons, cons.par_d[level], cons.par_s[level])
        updates += take_out_all(out, np.int32(0), np.int32(m), opt_ptr, opt_items, size, sets, loc, set_start)
        counters[K_PARITY_FILTER, remaining] += m
    if vf_min > 0 and remaining >= vf_min:
        m = volume_filter_pass(matrix, sparse, cons)
        updates += take_out_all(out, np.int32(0), np.int32(m), opt_ptr, opt_items, size, sets, loc, set_start)
        counters[K_VOLUME_FILTER, remaining] += m
    if ff_min > 0 and remaining >= ff_min:
        r = 0
        while fit_rounds == 0 or r < fit_rounds:
            r += 1
            # the pass takes its options out itself (later ones see earlier removals)
            m = fit_filter_pass(matrix, sparse, cons)
            for q in range(m):
                updates += np.int64(opt_ptr[out[q] + 1] - opt_ptr[out[q]])
            counters[K_FIT_FILTER, remaining] += m
            if m == 0:
                break
    return updates


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
