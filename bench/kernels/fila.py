"""The FILA kernel: iterative solveFila over an occupancy bitfield (M. Busche, *FILA*, ``shared/reference``).

**Search.**  Iterative solveFila with an explicit level stack.  Where the
article keeps the shapes with pieces left in a warehouse array, this kernel
keeps them as a bit mask beside a mask per list set of the shapes whose
list there is not empty: the lists worth trying at a node are the set bits
of one AND, taken lowest first, with no test per shape and no branch
mispredicted on an empty list.  Identical pieces are never permuted and
used-up shapes cost nothing.  Attempts are the images tried (whole lists, added per list),
fits the ones placed; ``attempts - fits`` are the article's no-fits.
Heuristics per number of pieces remaining: ``f`` (lowest open bit), any
fixed order (scan from where the previous level stopped), ``e`` (fewest
open neighbours by popcount, ties by fits counted up to the current
minimum) and ``s`` (fewest fits).  Ties go to the lowest cell in priority
order, as in DLX.  Covers, unique and total are counted in the kernel
through :func:`~bench.kernels.canonical.classify_cover`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from bench.toolchain.registry import njit
from bench.kernels.bitfield import (both, count_and, drop_lowest, empty_like, fewest_open, gather, hits, holes,
                                   is_empty, isolated, load, lowest, merge, store, test, with_bit)
from bench.kernels.codes import DONE, PAUSED, S_NODES, S_PROBES, TRACE, record_cover, traced
from bench.kernels.constraints import (C_PAR_OFFSET, C_PARITY_BT, C_VOLUME_BT, K_ISOLATED_BT, K_PARITY_BT, K_VOLUME_BT,
                                      volume_violated_bits)


# selection kinds per number of remaining pieces
FIRST, ORDER, ESTIMATE, SIZE = 0, 1, 2, 3
# phases of the kernel; RESTORE resumes a back-up after the trace of the removal
FORWARD, NEXT_SHAPE, SCAN, BACKUP, RESTORE = 0, 1, 2, 3, 4
# slots of the FILA state array: the search's place, and the last trace event (1 placed, 2 removed, 3 the end of a
# piece's path) with the number of options it shows; a piece of the tree (FilaRun): the levels whose placements
# follow ``path`` and, at the level below them, the share of the children searched (j of every n, the children
# counted in F_CHILD); the level whose back-up ends the search; the shapes to try and the list set of a node whose
# branching its FilaRun set, the kernel starting at NEXT_SHAPE (FILA at the root)
(F_LEVEL, F_PHASE, F_AVAIL, F_TRACE_KIND, F_TRACE_LEN, F_PATH, F_SHARE_J, F_SHARE_N, F_CHILD, F_STOP, F_TODO,
 F_BASE) = range(12)
N_FSTATE = 12
PATH_END = 3
"""The trace kind of a stop at the placement that ends a piece's path (:data:`FilaStack` ``path``)."""
# columns of the level stack: the list cursor and its end in the fit buffer, the shapes still to try, the shape
# being tried, the buffer half in use, and the entry placed at the level
L_CURSOR, L_END, L_TODO, L_SHAPE, L_BASE, L_ENTRY = range(6)

TriggerArgs = namedtuple("TriggerArgs", [
    "cfg", "par_ok", "img_par", "img_pstep", "fpar", "counters", "nb_ptr", "nb", "size",
    # scratch space of the volume trigger
    "region", "vol", "mark", "stack", "reach"])
"""The parity and volume triggers' arrays for one hand-off, as the FILA kernel takes them, by name."""

FilaLists = namedtuple("FilaLists", [
    "lay", "entry_img", "lp", "ls_base", "vmask", "nbr", "dright", "dleft", "dmask", "full", "nonempty", "img_opt",
    "prefix", "slack", "spare", "p0", "n_shapes", "isolated", "halo", "shared", "root"])
"""One hand-off's sub-puzzle as the kernel reads it (:func:`~bench.kernels.fila_lists.build_handoff`): the images'
layouts, the list entries and list sets (``entry_img``, ``lp``, ``ls_base``, ``vmask``, ``nonempty``), the cells'
neighbours and open bits (``nbr``, ``dright``, ``dleft``, ``dmask``, ``full``), each image's option of the cover
(``img_opt``) and the DLX options placed above (``prefix``); the spare pieces per shape (``slack``, ``spare``: any),
the pieces left at the hand-off (``p0``), the shapes (``n_shapes``), from how many pieces left on the isolated-cell
trigger acts (``isolated``, 0: off; off too where a piece left has one cell), where it acts by halos rather than
shifts, each image's open neighbours (``halo``; empty: by shifts), and whether the lists are a plan's shared ones
(``shared``, :func:`~bench.kernels.fila_lists.build_shared`), which hold images over the cells filled above the
hand-off too: their attempts count only the entries that avoid those cells, the entries a hand-off's own lists hold
(under the scans: ``e`` and ``s`` search a hand-off's own lists);
and the list set the hand-off's node branches on (``root``, -1: the one its schedule selects), where FILA takes over at
the root and places first what DLX's first level would (its level's kind then a scan's, :data:`FilaOrder`)."""

FilaOrder = namedtuple("FilaOrder", ["kind", "fam", "order_cells"])
"""FILA's schedule per number of pieces remaining: the selection kind, the list family, and each family's cells in
scan order (for ORDER)."""

FilaStack = namedtuple("FilaStack", ["fstate", "occ_stack", "stk", "pos_stack", "fbuf", "fcount", "flen", "left",
                                     "chosen", "path"])
"""FILA's search state: the ``F_*`` slots, the occupancy and the ``L_*`` columns per level, ORDER's scan position,
the fit buffer with each shape's fits and list length, the pieces left per shape, the options on the board
(``chosen``, written at a cover or a trace event) and the options a piece of the tree places on its way down
(``path``, the first ``fstate[F_PATH]`` levels)."""


# -- the kernel ----------------------------------------------------------------------------


@njit(cache=True)
def shortfall(left, slack):
    """True when, with spare pieces, a full box still lacks some shape's minimum."""
    for s in range(left.shape[0]):
        if left[s] > slack[s]:
            return True
    return False


@njit(cache=True)
def in_play(lay, e, stop, occ):
    """How many of the entries ``e .. stop - 1`` avoid ``occ``: the images of shared lists in play at a hand-off.

    Out of :func:`fila_search`'s loop, as :func:`board` is.  Only the scans
    call it: counted where ``e`` and ``s`` probe the lists (even out of
    their loop), it made the whole kernel's code slower, on every search
    (8x8 dominoes 2.6 s to 3.2 s, where no list is shared).
    """
    n = np.uint64(0)
    while e < stop:
        n += np.uint64(not hits(lay, e, occ))
        e += np.uint64(1)
    return n


@njit(cache=True)
def board(chosen, prefix, img_opt, entry_img, stk, depth):
    """The options on the board at ``depth`` (a cover's, or a trace event's) into ``chosen``; returns how many.

    Out of :func:`fila_search`'s loop, as :func:`shortfall` and :func:`~bench.kernels.codes.traced` are: called at
    covers and trace events only, where numba would paste a closure's body at each of its calls and compile the
    kernel again with every paste (as closures, these three made the kernel's numba IR 12 % larger).
    """
    n_prefix = prefix.shape[0]
    for t in range(n_prefix):
        chosen[t] = prefix[t]
    for t in range(depth):
        chosen[n_prefix + t] = img_opt[entry_img[stk[t, L_ENTRY]]]
    return n_prefix + depth


@njit(cache=True)
def fila_search(lists, order, stack, counters, matrix, symmetry, sink, fcons, trace, node_budget):
    """Run FILA from the saved state for at most ``node_budget`` nodes.

    Returns DONE, PAUSED, FULL_STOP, BUFFER_FULL or TRACE (codes of
    :mod:`bench.kernels.codes`); calling again resumes where it stopped.
    ``trace`` is polycube's ``-t K``, as in DLX: a placement is reported
    when at least K - 1 pieces remain (exactly 1 - K for K < 0), a removal
    when at least K remain; the options on the board are then
    ``chosen[:fstate[F_TRACE_LEN]]``.  The hand-off's arrays come in
    :data:`FilaLists`, :data:`FilaOrder` and :data:`FilaStack`; the DLX
    search's ``counters``, ``matrix``, ``symmetry`` and ``sink``
    (:mod:`bench.kernels.codes`) are FILA's too, so limits and statistics
    cover the whole pipeline.  ``lay`` and ``occ_stack`` are ``uint64[:]``
    for one-word bitfields and ``uint64[:, 2]`` for two.

    The level being worked on lives in locals (its occupancy, list set,
    shapes still to try, shape and list cursor); ``stk`` keeps them for the
    levels below, written on the way down and read on the way back, with
    the entry placed at each level.

    A level places its images from ``fbuf``, where the fitting entries of
    the list being tried are stored unconditionally and kept by advancing:
    one test per image and no branch on its outcome.  ``e`` and ``s`` test
    every image of the chosen list set while counting fits, so they fill
    the buffer for all shapes at once: per level, two halves (the best
    candidate's and the one being counted), with each shape's fits and list
    length in ``fcount`` and ``flen``.  The other heuristics fill the first
    half with one shape's list when they try that shape.

    ``fcons`` (:data:`TriggerArgs`) carries the parity and volume triggers
    (:mod:`bench.kernels.constraints`, :meth:`FilaRun.constraint_args`);
    they act below the hand-off node, which DLX has checked.

    **Pieces of the tree.**  A split solves parts of one hand-off's tree
    apart (:class:`~bench.engines.fila.FilaRun`): the levels above
    ``fstate[F_PATH]`` place only the option ``path`` names for them (the
    other children are passed over, not counted), the placement of the
    path's last option stops the search (TRACE, kind :data:`PATH_END`), a
    share ``(j, n)`` at the path's end places only the children whose
    count ``c`` (``fstate[F_CHILD]``) has ``c % n == j``, and the search
    ends (DONE) when it backs up from level ``fstate[F_STOP]`` instead of
    the root.  The placements pay one comparison of the level for it.
    """
    # the bundles' fields, one a line (see bench.kernels.codes)
    lay = lists.lay
    entry_img = lists.entry_img
    lp = lists.lp
    ls_base = lists.ls_base
    vmask = lists.vmask
    nbr = lists.nbr
    dright = lists.dright
    dleft = lists.dleft
    dmask = lists.dmask
    full_arr = lists.full
    nonempty = lists.nonempty
    img_opt = lists.img_opt
    prefix = lists.prefix
    slack = lists.slack
    spare = lists.spare
    p0 = lists.p0
    n_shapes = lists.n_shapes
    iso_min = np.uint64(lists.isolated)
    halo = lists.halo
    shared = lists.shared
    root = lists.root
    kind = order.kind
    fam = order.fam
    order_cells = order.order_cells
    fstate = stack.fstate
    occ_stack = stack.occ_stack
    stk = stack.stk
    pos_stack = stack.pos_stack
    fbuf = stack.fbuf
    fcount = stack.fcount
    flen = stack.flen
    left = stack.left
    chosen = stack.chosen
    path = stack.path
    state = counters.state
    attempts = counters.attempts
    fits = counters.fits
    goal = sink.goal
    # always passed (not None without triggers, as DLX's cons is): a specialization without them searched 10x6
    # 3 % slower (interleaved in one process) for under 2 s less compiling, and measured again as whole processes
    # (results/checkouts-86c44cb-ef80c10.md) 10x6 15 % and the Tetris Cube 7 % slower
    ccfg = fcons.cfg
    par_ok = fcons.par_ok
    img_par = fcons.img_par
    img_pstep = fcons.img_pstep
    fpar = fcons.fpar
    tcounters = fcons.counters
    lnb_ptr = fcons.nb_ptr
    lnb = fcons.nb
    lsize = fcons.size
    lregion = fcons.region
    lvol = fcons.vol
    lmark = fcons.mark
    lstack = fcons.stack
    lreach = fcons.reach
    pb_min = np.uint64(ccfg[C_PARITY_BT])
    vb_min = np.uint64(ccfg[C_VOLUME_BT])
    poff = ccfg[C_PAR_OFFSET]
    pwidth = par_ok.shape[1]
    n_local = lmark.shape[0]
    n_cells_l = np.uint64(ls_base.shape[1])
    triggers = ccfg[C_PARITY_BT] > 0 or ccfg[C_VOLUME_BT] > 0
    full = load(full_arr, 0)
    # the level whose occupancy tells the entries of shared lists in play (those that avoid it): the hand-off's, or
    # where FILA took over at the root, the first piece's (the hand-off DLX would have made)
    live_level = np.uint64(1) if root >= 0 else np.uint64(0)
    n_dirs = dright.shape[0]
    buf_cap = np.uint64(fbuf.shape[0] // (2 * stk.shape[0]))
    # unsigned indices spare numba's negative-index correction on every access
    zero = np.uint64(0)
    one = np.uint64(1)
    level = np.uint64(fstate[F_LEVEL])
    phase = fstate[F_PHASE]
    # shapes with pieces left, one bit each
    avail = np.uint64(fstate[F_AVAIL])
    goal_p = np.uint64(goal) if goal > 0 else np.uint64(1 << 62)
    nodes = state[S_NODES]
    probes = state[S_PROBES]
    nodes_end = nodes + node_budget
    status = DONE
    # a piece of the tree: placements above ``guard`` are filtered, the last of the path stops at ``path_end``
    npath = np.uint64(fstate[F_PATH])
    share_j = fstate[F_SHARE_J]
    share_n = fstate[F_SHARE_N]
    guard = npath + one if share_n > 1 else npath
    path_end = np.uint64(1 << 62)
    stop_level = np.uint64(fstate[F_STOP])

    # No helper here calls another: numba inlines closures, but a closure
    # called from a closure takes a reference on every array it touches,
    # an atomic increment and decrement per call (measured: a fifth of the run).

    def violated(occ, p, lv):
        # the parity and volume triggers, counted where they fire
        if pb_min > zero and p >= pb_min:
            # the parent was checked before its children, so its state is at hand
            i = entry_img[stk[lv - one, L_ENTRY]]
            d = fpar[lv - one, 0] - img_par[i]
            ps = fpar[lv - one, 1] - img_pstep[i]
            fpar[lv, 0] = d
            fpar[lv, 1] = ps
            d += poff
            if d < 0 or d >= pwidth or par_ok[ps, d] == 0:
                tcounters[K_PARITY_BT, p] += 1
                return True
        if vb_min > zero and p >= vb_min:
            if volume_violated_bits(occ, n_local, lnb_ptr, lnb, left, lsize, lregion, lvol, lmark, lstack,
                                    lreach):
                tcounters[K_VOLUME_BT, p] += 1
                return True
        return False

    def stranded(h, e):
        # an open cell without an open neighbour once the image of entry e is placed: by one OR per direction of
        # shifted copies where the hand-off gives no halos (one word, few directions: the Meteor's search 0.040 s so,
        # 0.043 s by halos); else among the image's neighbours, the only cells that can have lost their last one (a
        # cell alone at the hand-off's node is missed, which prunes less and counts the same)
        if halo.shape[0] == 0:
            return isolated(h, dright, dleft, dmask)
        m = both(halo, entry_img[e], h)
        while not is_empty(m):
            c = lowest(m)
            m = drop_lowest(m)
            if count_and(nbr, c, h) == 0:
                return True
        return False

    def scanned_hole(kd, f, occ, h, lv, pieces):
        # f: the lowest open bit; a fixed order: the next open cell of the family's order, from where the level
        # above stopped when it scans the same family
        if kd == FIRST:
            return np.uint64(lowest(h))
        m = zero
        if lv > zero and fam[pieces + one] == fam[pieces]:
            m = pos_stack[lv - one] + one
        while test(occ, order_cells[f, m]):
            m += one
        pos_stack[lv] = m
        return np.uint64(order_cells[f, m])

    def list_set(f, c, occ):
        # cell c's list set for the occupancy of its variable neighbours (NOF)
        return np.uint64(ls_base[f, c]) + gather(occ, load(vmask, f * n_cells_l + c))

    def tightest(kd, f, occ, h, lv):
        # e and s: the hole with fewest fits (among those with fewest open
        # neighbours for e), fits counted only up to the best so far; the
        # winner's fitting entries stay in its half of the level's buffer
        m = h
        if kd == ESTIMATE:
            if n_dirs > 7:
                m = fewest_open(h, dright, dleft, dmask, True)
            elif n_dirs > 0:
                m = fewest_open(h, dright, dleft, dmask, False)
            else:
                hh = h
                least = 1 << 30
                while not is_empty(hh):
                    c = lowest(hh)
                    hh = drop_lowest(hh)
                    n = count_and(nbr, c, h)
                    if n < least:
                        least = n
                        m = empty_like(h)
                    if n == least:
                        m = with_bit(m, c)
        best = zero
        best_half = zero
        best_fits = np.uint64(1 << 62)
        half = zero
        tested = zero
        while not is_empty(m):
            c = np.uint64(lowest(m))
            m = drop_lowest(m)
            # list_set's body: a closure called from a closure would take references
            ls = np.uint64(ls_base[f, c]) + gather(occ, load(vmask, f * n_cells_l + c))
            base = ls * n_shapes
            todo = nonempty[ls] & avail
            w0 = (lv + lv + half) * buf_cap
            w = w0
            cb = (lv + lv + half) * n_shapes
            while todo != zero:
                s = np.uint64(lowest(todo))
                todo &= todo - one
                e = lp[base + s]
                stop = lp[base + s + one]
                ws = w
                while e < stop:
                    # stored unconditionally, kept by advancing: no branch per image
                    fbuf[w] = e
                    w += np.uint64(not hits(lay, e, occ))
                    e += one
                fcount[cb + s] = w - ws
                flen[cb + s] = stop - lp[base + s]
                tested += stop - lp[base + s]
                if w - w0 >= best_fits:
                    break
            n = w - w0
            if n < best_fits:
                best_fits = n
                best = ls
                best_half = half
                half ^= one
                if n == zero:
                    break
        return best, best_half, tested

    p = np.uint64(p0) - level
    occ = load(occ_stack, level)
    k = kend = todo = sh = base = zero
    buffered = False
    if phase == NEXT_SHAPE:
        # the shapes and the list set of a node whose branching FilaRun set (the root's, :data:`FilaLists` ``root``)
        todo = np.uint64(fstate[F_TODO])
        base = np.uint64(fstate[F_BASE])
    while True:
        if phase == FORWARD:
            if nodes >= nodes_end:
                status = PAUSED
                break
            nodes += 1
            h = holes(occ, full)
            done = is_empty(h)
            phase = BACKUP
            if done or p == goal_p:
                if not (done and spare and shortfall(left, slack)):
                    n_board = board(chosen, prefix, img_opt, entry_img, stk, np.int64(level))
                    status = record_cover(chosen, n_board, done, state, matrix, symmetry, sink)
                    if status != DONE:
                        break
            elif triggers and level > zero and violated(occ, p, level):
                pass
            elif p > zero:
                # the hole to fill and its list set: e and s test the candidates' lists into the buffer
                f = np.uint64(fam[p])
                kd = kind[p]
                buffered = kd == ESTIMATE or kd == SIZE
                if buffered:
                    ls, half, tested = tightest(kd, f, occ, h, level)
                    probes += np.int64(tested)
                    # base indexes the shapes' fit counts; k runs through the buffer
                    base = (level + level + half) * n_shapes
                    k = kend = (level + level + half) * buf_cap
                else:
                    ls = list_set(f, scanned_hole(kd, f, occ, h, level, p), occ)
                    base = ls * n_shapes
                todo = nonempty[ls] & avail
                phase = NEXT_SHAPE
        if phase == NEXT_SHAPE:
            if todo != zero:
                sh = np.uint64(lowest(todo))
                todo &= todo - one
                if buffered:
                    kend = k + fcount[base + sh]
                    attempts[p] += np.int64(flen[base + sh])
                else:
                    e = lp[base + sh]
                    stop = lp[base + sh + one]
                    if shared:
                        attempts[p] += np.int64(in_play(lay, e, stop, load(occ_stack, min(level, live_level))))
                    else:
                        attempts[p] += np.int64(stop - e)
                    k = kend = (level + level) * buf_cap
                    while e < stop:
                        fbuf[kend] = e
                        kend += np.uint64(not hits(lay, e, occ))
                        e += one
                left[sh] -= 1
                if left[sh] == 0:
                    avail &= ~(one << sh)
                phase = SCAN
            else:
                phase = BACKUP
        if phase == BACKUP:
            if level <= stop_level:
                status = DONE
                break
            level -= one
            p += one
            phase = RESTORE
            if trace > 0 and traced(trace, False, np.int64(p)):
                fstate[F_TRACE_KIND] = 2
                fstate[F_TRACE_LEN] = board(chosen, prefix, img_opt, entry_img, stk, np.int64(level))
                status = TRACE
                break
        if phase == RESTORE:
            k = stk[level, L_CURSOR]
            kend = stk[level, L_END]
            todo = stk[level, L_TODO]
            sh = stk[level, L_SHAPE]
            base = stk[level, L_BASE]
            occ = load(occ_stack, level)
            kd = kind[p]
            buffered = kd == ESTIMATE or kd == SIZE
        # SCAN: the next fitting image of the current list
        e = fbuf[k] if k < kend else zero
        if k < kend:
            k += one
            if level < guard:
                # a piece's path, or its share of the children at the path's end: the others are passed over
                if level < npath:
                    if img_opt[entry_img[e]] != path[level]:
                        phase = SCAN
                        continue
                    if level + one == npath:
                        path_end = npath
                else:
                    child = fstate[F_CHILD]
                    fstate[F_CHILD] = child + 1
                    if child % share_n != share_j:
                        phase = SCAN
                        continue
            if iso_min > zero and p > iso_min and stranded(holes(merge(lay, e, occ), full), e):
                # checked before the placement, not at the child's node: a placement it undoes costs no node
                tcounters[K_ISOLATED_BT, p - one] += 1
                phase = SCAN
                continue
            fits[p] += 1
            stk[level, L_CURSOR] = k
            stk[level, L_END] = kend
            stk[level, L_TODO] = todo
            stk[level, L_SHAPE] = sh
            stk[level, L_BASE] = base
            stk[level, L_ENTRY] = e
            occ = merge(lay, e, occ)
            level += one
            p -= one
            store(occ_stack, level, occ)
            phase = FORWARD
            if level == path_end:
                fstate[F_TRACE_KIND] = PATH_END
                status = TRACE
                break
            if trace != 0 and traced(trace, True, np.int64(p)):
                fstate[F_TRACE_KIND] = 1
                fstate[F_TRACE_LEN] = board(chosen, prefix, img_opt, entry_img, stk, np.int64(level))
                status = TRACE
                break
        else:
            # the list is exhausted: the piece goes back to the warehouse
            if left[sh] == 0:
                avail |= one << sh
            left[sh] += 1
            phase = NEXT_SHAPE
    state[S_NODES] = nodes
    state[S_PROBES] = probes
    fstate[F_LEVEL] = level
    fstate[F_PHASE] = phase
    fstate[F_AVAIL] = np.int64(avail)
    return status
