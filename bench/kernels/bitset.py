"""Algorithm X over option bitsets: the DLX engine's kernel for plain searches.

The sparse-set kernel of :mod:`bench.kernels.sparse_sets` takes each option a
placement rules out out of every other item's set, one node at a time (on
10x6 pentominoes, about 435 such updates per node).  Here the options still
in play are one bitset per level, and each item has the bitset of the
options that cover it.  An item's number of options is one popcount of an
AND over the words, all items at once in a loop the compiler vectorizes;
closing an item is one AND-NOT; undoing a level costs nothing, since the
level below keeps its own bitset.

**Same search.**  Items are chosen by the same rules as the sparse-set
kernel (fewest options, ties to the leftmost item; the fixed orders), and
identical pieces branch on the option with the largest number and tweak it
out afterwards, so the nodes, attempts, fits, updates and dead ends are the
same, per level: a placement that leaves an item it touched with fewer
options than the item still needs is abandoned without a node, exactly where
the sparse-set kernel's check abandons it.  Only the order of the siblings
under one item differs (option number here, set position there), which no
count depends on.  Updates are counted as the sparse-set kernel performs
them: each option taken out of play by a closing item moves out of its other
items' sets, and one dropped by a tweak out of all of them.

**Scope.**  Searches without constraints at search nodes, trace, forced
first item, sampling or hand-off; a split's sub-problems (a prefix) qualify.  The engine picks this
kernel whenever a search qualifies (:func:`bench.engines.search.suits`) and the sparse-set kernel
otherwise.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from bench.toolchain.registry import njit
from bench.kernels.bitfield import _clz, _ctz, _popcount
from bench.kernels.codes import (DONE, EACH, ENTER, LEAVE, MULTI, PAUSED, REPLAYED, S_DEAD, S_LEVEL, S_NODES, S_PHASE,
                                 S_UPDATES, TRY, TWEAKED, record_cover)
from bench.kernels.heuristics import FIXED_ORDER, fixed_order_choice, fixed_order_step

BitSets = namedtuple("BitSets", ["item_bits", "class_bits", "class_w", "count", "llink", "rlink"])
"""The matrix in play as bitsets: the options of each item (``item_bits``) and of each size class
(``class_bits``; options of class k have ``class_w[k] + 1`` items), how often each item is covered (``count``) and
the list of the items that still need options (``llink``, ``rlink``)."""

BitLevels = namedtuple("BitLevels", ["live", "base", "cand", "branch", "mode", "pend", "chosen"])
"""The level stack: per level L, the options in play at its node (``live[L]``), those left once its branching item
took its share (``base[L]``: closed, or the option tried dropped), the item's options not tried yet (``cand[L]``),
the item and how the level branches (``mode``, as in the sparse-set kernel), the updates of its placement counted
once the child proves not to be abandoned (``pend[L]``), and the option placed."""


@njit(cache=True)
def bitset_search(matrix, bits, levels, counters, order, symmetry, sink, path, node_budget):
    """Run the search from the saved state for at most ``node_budget`` nodes (codes of :mod:`bench.kernels.codes`).

    The arrays come in the bundles of :mod:`bench.kernels.codes` and in
    :data:`BitSets` and :data:`BitLevels`.  The first ``path.base`` levels
    replay a sub-problem's prefix as the sparse-set kernel does
    (``force_opt``, ``force_ex_ptr``, ``force_ex``): level L drops the
    options its identical-piece branch had tweaked out and places
    ``force_opt[L]``; the splitter counted those levels already.
    """
    # the bundles' fields, one a line (see bench.kernels.codes)
    opt_ptr = matrix.opt_ptr
    opt_items = matrix.opt_items
    lo = matrix.lo
    hi = matrix.hi
    n_cells = matrix.n_cells
    n_pieces = matrix.n_pieces
    item_bits = bits.item_bits
    class_bits = bits.class_bits
    class_w = bits.class_w
    count = bits.count
    llink = bits.llink
    rlink = bits.rlink
    live = levels.live
    base = levels.base
    cand = levels.cand
    branch = levels.branch
    mode = levels.mode
    pend = levels.pend
    chosen = levels.chosen
    state = counters.state
    attempts = counters.attempts
    fits = counters.fits
    updates_by = counters.updates_by
    kind = order.kind
    table = order.table
    rank = order.rank
    goal = sink.goal
    n_base = path.base
    force_opt = path.force_opt
    force_ex_ptr = path.force_ex_ptr
    force_ex = path.force_ex
    n_items = np.int64(count.shape[0])
    n_words = item_bits.shape[1]
    n_classes = class_w.shape[0]
    root = n_items
    zero = np.uint64(0)
    one = np.uint64(1)

    def unlist(t):
        rlink[llink[t]] = rlink[t]
        llink[rlink[t]] = llink[t]

    def closed_updates(had, i, kept, j):
        # updates of closing items between the bitsets had[i] and kept[j]: each
        # option the first has and the second lacks leaves its other items
        n = 0
        for k in range(n_classes):
            c = 0
            for w in range(n_words):
                c += _popcount(had[i, w] & ~kept[j, w] & class_bits[k, w])
            n += c * class_w[k]
        return n

    # commit, uncommit, release and tweak spell out unlist and relist: a closure
    # called from a closure takes a reference on every array it touches
    def commit(lv, o, b):
        # count option o's items other than b and close the full ones in live[lv + 1]
        for w in range(n_words):
            live[lv + 1, w] = base[lv, w]
        for z in range(opt_ptr[o], opt_ptr[o + 1]):
            t = opt_items[z]
            if t != b:
                c = count[t] + 1
                count[t] = c
                if c == lo[t]:
                    rlink[llink[t]] = rlink[t]
                    llink[rlink[t]] = llink[t]
                if c == hi[t]:
                    for w in range(n_words):
                        live[lv + 1, w] &= ~item_bits[t, w]

    def uncommit(o, b):
        z = opt_ptr[o + 1]
        while z > opt_ptr[o]:
            z -= 1
            t = opt_items[z]
            if t != b:
                if count[t] == lo[t]:
                    rlink[llink[t]] = t
                    llink[rlink[t]] = t
                count[t] -= 1

    def release(b):
        # the branching item gives back the count its placement took
        if count[b] == lo[b]:
            rlink[llink[b]] = b
            llink[rlink[b]] = b
        count[b] -= 1

    def tweak(lv, o):
        # the identical-piece option just tried stays out for the rest of this branch
        state[S_UPDATES] += opt_ptr[o + 1] - opt_ptr[o]
        live[lv, o >> 6] &= ~(one << np.uint64(o & 63))

    def degree(lv, i):
        c = 0
        for w in range(n_words):
            c += _popcount(item_bits[i, w] & live[lv, w])
        return c - (lo[i] - count[i]) + 1

    def touched(lv, i):
        # did the commit that made level lv take an option of item i out of play?
        hit = zero
        for w in range(n_words):
            hit |= item_bits[i, w] & base[lv - 1, w] & ~live[lv, w]
        return hit != zero

    level = state[S_LEVEL]
    phase = state[S_PHASE]
    nodes_end = state[S_NODES] + node_budget
    status = DONE
    while True:
        if phase == ENTER:
            # one pass over the items: the branching item, and whether the placement
            # that led here is abandoned (an item it touched is short of options)
            k_kind = kind[n_pieces - level]
            rr = table[n_pieces - level]
            best = root
            best_deg = 1 << 30
            pick = (root, 2, root, 1 << 30, root, 1 << 30)
            dead = False
            abandoned = False
            i = rlink[root]
            while i != root:
                d = degree(level, i)
                if d <= 0:
                    if level > 0 and touched(level, i):
                        abandoned = True
                        break
                    dead = True
                if not dead:
                    if k_kind != FIXED_ORDER:
                        if d < best_deg:
                            best = i
                            best_deg = d
                    else:
                        pick = fixed_order_step(pick, np.int64(i), d, i < n_cells, rank[rr, i] if i < n_cells else 0)
                i = rlink[i]
            if abandoned:
                # no node: the parent takes the placement back and goes on
                level -= 1
                b = branch[level]
                o = chosen[level]
                uncommit(o, b)
                if mode[level] == REPLAYED:
                    # the prefix itself cannot be completed
                    release(b)
                    phase = LEAVE
                    continue
                state[S_DEAD] += 1
                if mode[level] == EACH:
                    phase = TRY
                else:
                    release(b)
                    tweak(level, o)
                    phase = MULTI
                continue
            if state[S_NODES] >= nodes_end:
                status = PAUSED
                break
            if level > n_base or n_base == 0:
                state[S_NODES] += 1
            remaining = n_pieces - level
            if level > n_base:
                n = pend[level - 1] + closed_updates(base, level - 1, live, level)
                state[S_UPDATES] += n
                updates_by[remaining + 1] += n
            done = rlink[root] == root
            if done or (goal > 0 and remaining == goal):
                phase = LEAVE
                status = record_cover(chosen, level, done, state, matrix, symmetry, sink)
                if status != DONE:
                    break
                continue
            if level < n_base:
                # replay the prefix: the state the splitter reached
                o = force_opt[level]
                for q in range(force_ex_ptr[level], force_ex_ptr[level + 1]):
                    ex = force_ex[q]
                    live[level, ex >> 6] &= ~(one << np.uint64(ex & 63))
                b = opt_items[opt_ptr[o]]
                branch[level] = b
                mode[level] = REPLAYED
                count[b] += 1
                if count[b] == lo[b]:
                    unlist(b)
                for w in range(n_words):
                    base[level, w] = live[level, w] & ~item_bits[b, w] if count[b] == hi[b] else live[level, w]
                base[level, o >> 6] &= ~(one << np.uint64(o & 63))
                chosen[level] = o
                commit(level, o, b)
                level += 1
                continue
            if dead:
                state[S_DEAD] += 1
                phase = LEAVE
                continue
            b = fixed_order_choice(pick, root) if k_kind == FIXED_ORDER else best
            branch[level] = b
            need = lo[b] - count[b]
            if need == 1 and hi[b] - count[b] == 1:
                mode[level] = EACH
                count[b] += 1
                unlist(b)
                for w in range(n_words):
                    cand[level, w] = live[level, w] & item_bits[b, w]
                    base[level, w] = live[level, w] & ~item_bits[b, w]
                n = closed_updates(live, level, base, level)
                state[S_UPDATES] += n
                updates_by[remaining] += n
                pend[level] = 0
                phase = TRY
            else:
                mode[level] = TWEAKED
                phase = MULTI
        elif phase == TRY:
            b = branch[level]
            o = -1
            for w in range(n_words):
                x = cand[level, w]
                if x != zero:
                    o = w * 64 + _ctz(x)
                    cand[level, w] = x & (x - one)
                    break
            if o < 0:
                release(b)
                phase = LEAVE
                continue
            remaining = n_pieces - level
            attempts[remaining] += 1
            fits[remaining] += 1
            chosen[level] = o
            commit(level, o, b)
            level += 1
            phase = ENTER
        elif phase == MULTI:
            b = branch[level]
            need = lo[b] - count[b]
            have = 0
            o = -1
            for w in range(n_words - 1, -1, -1):
                x = item_bits[b, w] & live[level, w]
                if x != zero:
                    have += _popcount(x)
                    if o < 0:
                        o = w * 64 + 63 - _clz(x)
            if have < need:
                phase = LEAVE
                continue
            # the bookkeeping of a placement mirrors the sparse-set kernel's MULTI step on purpose: both kernels
            # must count attempts, fits, updates and dead ends alike, level by level (tests/test_bitset.py)
            remaining = n_pieces - level
            attempts[remaining] += 1
            fits[remaining] += 1
            count[b] += 1
            if count[b] == lo[b]:
                unlist(b)
            if count[b] == hi[b]:
                for w in range(n_words):
                    base[level, w] = live[level, w] & ~item_bits[b, w]
                pend[level] = closed_updates(live, level, base, level)
            else:
                pend[level] = opt_ptr[o + 1] - opt_ptr[o]
                for w in range(n_words):
                    base[level, w] = live[level, w]
                base[level, o >> 6] &= ~(one << np.uint64(o & 63))
            chosen[level] = o
            commit(level, o, b)
            level += 1
            phase = ENTER
        else:  # LEAVE: leave this level and take back the placement one level up
            if level == 0:
                status = DONE
                break
            level -= 1
            b = branch[level]
            o = chosen[level]
            uncommit(o, b)
            if mode[level] == EACH:
                phase = TRY
            elif mode[level] == REPLAYED:
                release(b)
            else:
                release(b)
                tweak(level, o)
                phase = MULTI
    state[S_LEVEL] = level
    state[S_PHASE] = phase
    return status
