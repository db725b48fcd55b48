"""FILA, the fixed image list algorithm, and the DLX -> FILA pipeline.

Source: M. Busche, *FILA* (``shared/reference/fila-article.txt``): solveFila,
selectFila, getImageListSet, POF and NOF.

**Pipeline.**  Every solve starts in DLX (:mod:`bench.native.dlx`).  When
``fila`` or fewer pieces remain, no DLX item is forced (0 or 1 options), at
most 128 cells are open and at most 64 shapes have pieces left, DLX hands
the branch over: the open cells become
the bits of an occupancy bitfield (one word up to 64 cells, two up to 128,
see :mod:`bench.native.bitfield`), the options still in play become FILA's
images, and DLX resumes by backing up once FILA has exhausted the branch.

**Image list sets.**  For every open cell c, every neighbour occupancy index
z and every shape s there is a fixed list of the images of s that cover c.
A list holds only images that are still in play (so only bounded ones),
that avoid the neighbours z marks as filled (**NOF**, ``nof``: z has one bit
per neighbour that may be open, so never-open neighbours cost nothing), and,
for a fixed-order heuristic, that avoid every cell earlier in its order
(**POF**: such an image sits only in the list of its earliest cell).  The
lists are stored flat in ``(list set, shape)`` order, each entry the image's
layout words, so a fit test is one AND over contiguous memory.

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
through :func:`~bench.models.symmetry.classify_cover`.
"""

from __future__ import annotations

import time
from collections import namedtuple
from dataclasses import dataclass, replace

import numpy as np
from numba import njit

from bench.engines.protocol import Engine, Filtered, Limits, Result, Settings, apply_tuning
from bench.engines.variants import CONSTRAINTS, constraint_variant, parse_tuning
from bench.errors import Unsupported, UsageError
from bench.models.filters import cell_neighbours
from bench.models.tuning import cheapest_redundancy, filtered_handoff
from bench.native.memo import CoverMemo
from bench.native import dlx
from bench.native.constraints import C_PAR_OFFSET, C_PARITY_BT, C_VOLUME_BT, K_PARITY_BT, K_VOLUME_BT, volume_violated_bits
from bench.native.bitfield import (count_and, drop_lowest, empty_like, fewest_open, gather, gather_rows, hits, holes,
                                   is_empty, load, lowest, merge, store, test, with_bit)
from bench.native.codes import DONE, PAUSED, S_COVERS, S_LEVEL, S_NODES, S_TOTAL, S_UNIQUE, record_cover
from bench.native.heuristics import compile_order, schedule
from bench.native.search import Search, piece_count

# selection kinds per number of remaining pieces
FIRST, ORDER, ESTIMATE, SIZE = 0, 1, 2, 3
# phases of the kernel
FORWARD, NEXT_SHAPE, SCAN, BACKUP = 0, 1, 2, 3
# slots of the FILA state array
F_LEVEL, F_PHASE, F_AVAIL = range(3)
# columns of the level stack: the list cursor and its end in the fit buffer, the shapes still to try, the shape
# being tried, the buffer half in use, and the entry placed at the level
L_CURSOR, L_END, L_TODO, L_SHAPE, L_BASE, L_ENTRY = range(6)

MAX_CELLS = 128
MAX_SHAPES = 64


TriggerArgs = namedtuple("TriggerArgs", [
    "cfg", "par_ok", "img_par", "img_pstep", "fpar", "counters", "nb_ptr", "nb", "size",
    # scratch space of the volume trigger
    "region", "vol", "mark", "stack", "reach"])
"""The parity and volume triggers' arrays for one hand-off, as the FILA kernel takes them, by name."""


# -- the kernel ----------------------------------------------------------------------------


@njit(cache=True)
def fila_search(lay, entry_img, lp, ls_base, vmask, nbr, dright, dleft, dmask, full_arr, kind, fam, order_cells,
                nonempty, left, slack, fstate, occ_stack, stk, pos_stack,
                fbuf, fcount, flen, p0, n_shapes,
                state, attempts, fits,
                prefix, img_opt, chosen, opt_ptr, opt_items, n_cells, cell_inv, opt_map, opt_gmask, grid, classify,
                sol_buf, sol_len, sol_weight, stream, max_solutions, node_budget, goal, spare, fcons):
    """Run FILA from the saved state for at most ``node_budget`` nodes.

    Returns DONE, PAUSED, FULL_STOP or BUFFER_FULL (codes of
    :mod:`bench.native.codes`); calling again resumes where it stopped.  Counts
    go to the DLX search's ``state``, ``attempts`` and ``fits``, so limits
    and statistics cover the whole pipeline.  ``lay`` and ``occ_stack`` are
    ``uint64[:]`` for one-word bitfields and ``uint64[:, 2]`` for two.

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
    (:mod:`bench.native.constraints`, :meth:`FilaRun.constraint_args`);
    they act below the hand-off node, which DLX has checked.
    """
    ccfg, par_ok, img_par, img_pstep, fpar = fcons.cfg, fcons.par_ok, fcons.img_par, fcons.img_pstep, fcons.fpar
    counters, lnb_ptr, lnb, lsize = fcons.counters, fcons.nb_ptr, fcons.nb, fcons.size
    lregion, lvol, lmark, lstack, lreach = fcons.region, fcons.vol, fcons.mark, fcons.stack, fcons.reach
    pb_min = np.uint64(ccfg[C_PARITY_BT])
    vb_min = np.uint64(ccfg[C_VOLUME_BT])
    poff = ccfg[C_PAR_OFFSET]
    pwidth = par_ok.shape[1]
    n_local = lmark.shape[0]
    n_cells_l = np.uint64(ls_base.shape[1])
    triggers = ccfg[C_PARITY_BT] > 0 or ccfg[C_VOLUME_BT] > 0
    full = load(full_arr, 0)
    n_prefix = prefix.shape[0]
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
    nodes_end = nodes + node_budget
    status = DONE

    # No helper here calls another: numba inlines closures, but a closure
    # called from a closure takes a reference on every array it touches,
    # an atomic increment and decrement per call (measured: a fifth of the run).

    def shortfall():
        # with spare pieces, a full box still needs every shape's minimum
        for s in range(n_shapes):
            if left[s] > slack[s]:
                return True
        return False

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
                counters[K_PARITY_BT, p] += 1
                return True
        if vb_min > zero and p >= vb_min:
            if volume_violated_bits(occ, n_local, lnb_ptr, lnb, left, lsize, lregion, lvol, lmark, lstack,
                                    lreach):
                counters[K_VOLUME_BT, p] += 1
                return True
        return False

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
        return best, best_half

    p = np.uint64(p0) - level
    occ = load(occ_stack, level)
    k = kend = todo = sh = base = zero
    buffered = False
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
                if not (done and spare and shortfall()):
                    depth = np.int64(level)
                    for t in range(n_prefix):
                        chosen[t] = prefix[t]
                    for t in range(depth):
                        chosen[n_prefix + t] = img_opt[entry_img[stk[t, L_ENTRY]]]
                    status = record_cover(chosen, n_prefix + depth, classify and done, state, opt_ptr, opt_items,
                                          n_cells, cell_inv, opt_map, opt_gmask, grid, sol_buf, sol_len, sol_weight,
                                          max_solutions, stream)
                    if status != DONE:
                        break
            elif triggers and level > zero and violated(occ, p, level):
                pass
            elif p > zero:
                f = np.uint64(fam[p])
                kd = kind[p]
                if kd == FIRST:
                    c = np.uint64(lowest(h))
                elif kd == ORDER:
                    m = zero
                    if level > zero and fam[p + one] == fam[p]:
                        m = pos_stack[level - one] + one
                    while test(occ, order_cells[f, m]):
                        m += one
                    pos_stack[level] = m
                    c = np.uint64(order_cells[f, m])
                else:
                    c = zero
                buffered = kd == ESTIMATE or kd == SIZE
                if buffered:
                    ls, half = tightest(kd, f, occ, h, level)
                    # base indexes the shapes' fit counts; k runs through the buffer
                    base = (level + level + half) * n_shapes
                    k = kend = (level + level + half) * buf_cap
                else:
                    ls = list_set(f, c, occ)
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
            if level == zero:
                status = DONE
                break
            level -= one
            p += one
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
        else:
            # the list is exhausted: the piece goes back to the warehouse
            if left[sh] == 0:
                avail |= one << sh
            left[sh] += 1
            phase = NEXT_SHAPE
    state[S_NODES] = nodes
    fstate[F_LEVEL] = level
    fstate[F_PHASE] = phase
    fstate[F_AVAIL] = np.int64(avail)
    return status


# -- building a sub-puzzle ---------------------------------------------------------------------


@njit(cache=True)
def active_options(n_cells, count, size, sets, set_start, node_opt, opt_ptr, opt_items):
    """The options still in play in a DLX state, ascending.

    Every option in play covers an open cell and is listed there; an option
    is taken from the list of its first cell, so each appears once.
    """
    n = 0
    for t in range(n_cells):
        if count[t] == 0:
            n += size[t]
    out = np.empty(n, dtype=np.int32)
    m = 0
    for t in range(n_cells):
        if count[t] == 0:
            start = set_start[t]
            for k in range(start, start + size[t]):
                o = node_opt[sets[k]]
                if opt_items[opt_ptr[o]] == t:
                    out[m] = o
                    m += 1
    return np.sort(out[:m])


@njit(cache=True)
def sub_images(options, opt_ptr, opt_items, local_of, shape_of, n_words):
    """Images of a sub-puzzle: ``img_ptr, img_cells`` (local cells), ``img_shape`` and layout words."""
    n = options.shape[0]
    img_ptr = np.zeros(n + 1, dtype=np.int32)
    for i in range(n):
        o = options[i]
        img_ptr[i + 1] = img_ptr[i] + (opt_ptr[o + 1] - opt_ptr[o] - 1)
    img_cells = np.empty(img_ptr[n], dtype=np.int32)
    img_shape = np.empty(n, dtype=np.int32)
    img_lay = np.zeros((n, n_words), dtype=np.uint64)
    for i in range(n):
        o = options[i]
        m = img_ptr[i]
        for z in range(opt_ptr[o], opt_ptr[o + 1] - 1):
            c = local_of[opt_items[z]]
            img_cells[m] = c
            img_lay[i, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
            m += 1
        img_shape[i] = shape_of[opt_items[opt_ptr[o + 1] - 1]]
    return img_ptr, img_cells, img_shape, img_lay


@njit(cache=True)
def build_lists(img_ptr, img_cells, img_shape, img_lay, n_local, n_shapes, fam_rank, fam_ordered, nb_ptr, nb, nof):
    """The image list sets of every family (an unordered one, one per fixed order).

    Returns ``lp, lay, entry_img, nonempty, ls_base, vmask``: list
    ``(ls, s)`` holds the images ``entry_img[lp[k] : lp[k + 1]]`` with
    ``k = ls * n_shapes + s``, their layout words in ``lay``; bit s of
    ``nonempty[ls]`` says list ``(ls, s)`` has images.
    Cell c of family f owns list sets ``ls_base[f, c] + z``, where bit k of
    z says the k-th lowest of its variable neighbours is filled: z is the
    occupancy gathered through mask ``vmask[f * n_local + c]`` (one PEXT).
    In an ordered family an image sits only at its earliest cell (POF) and
    only later neighbours are variable.
    """
    n_fam = fam_rank.shape[0]
    n_img = img_shape.shape[0]
    n_words = img_lay.shape[1]
    nv = np.zeros((n_fam, n_local), dtype=np.int32)
    ls_base = np.zeros((n_fam, n_local), dtype=np.int32)
    vmask = np.zeros((n_fam * n_local, n_words), dtype=np.uint64)
    n_ls = 0
    for f in range(n_fam):
        for c in range(n_local):
            k = 0
            if nof:
                for t in range(nb_ptr[c], nb_ptr[c + 1]):
                    d = nb[t]
                    if not fam_ordered[f] or fam_rank[f, d] > fam_rank[f, c]:
                        vmask[f * n_local + c, d >> 6] |= np.uint64(1) << np.uint64(d & 63)
                        k += 1
            nv[f, c] = k
            ls_base[f, c] = n_ls
            n_ls += 1 << k
    n_slots = n_ls * n_shapes
    lp = np.zeros(n_slots + 1, dtype=np.uint64)
    fill = np.zeros(n_slots, dtype=np.int64)
    lay = np.zeros((0, img_lay.shape[1]), dtype=np.uint64)
    entry_img = np.empty(0, dtype=np.int32)
    for writing in range(2):
        for f in range(n_fam):
            for i in range(n_img):
                first = img_ptr[i]
                for m in range(img_ptr[i], img_ptr[i + 1]):
                    if fam_rank[f, img_cells[m]] < fam_rank[f, img_cells[first]]:
                        first = m
                lo_m = first if fam_ordered[f] else img_ptr[i]
                hi_m = first + 1 if fam_ordered[f] else img_ptr[i + 1]
                for m in range(lo_m, hi_m):
                    c = img_cells[m]
                    # the variable neighbours the image covers itself, gathered as the search will gather them
                    conf = gather_rows(img_lay[i], vmask[f * n_local + c])
                    free = ((1 << nv[f, c]) - 1) & ~np.int64(conf)
                    z = free
                    while True:
                        slot = (ls_base[f, c] + z) * n_shapes + img_shape[i]
                        if writing:
                            e = lp[slot] + fill[slot]
                            entry_img[e] = i
                            for w in range(n_words):
                                lay[e, w] = img_lay[i, w]
                        fill[slot] += 1
                        if z == 0:
                            break
                        z = (z - 1) & free
        if not writing:
            for slot in range(n_slots):
                lp[slot + 1] = lp[slot] + fill[slot]
                fill[slot] = 0
            lay = np.zeros((lp[n_slots], img_lay.shape[1]), dtype=np.uint64)
            entry_img = np.zeros(lp[n_slots], dtype=np.int32)
    nonempty = np.zeros(n_ls, dtype=np.uint64)
    for slot in range(n_slots):
        if fill[slot] > 0:
            nonempty[slot // n_shapes] |= np.uint64(1) << np.uint64(slot % n_shapes)
    return lp, lay, entry_img, nonempty, ls_base, vmask


@njit(cache=True)
def neighbour_masks(nb_ptr, nb, n_words):
    """Per local cell, the bitfield of its open neighbours (for ``e``)."""
    n = nb_ptr.shape[0] - 1
    out = np.zeros((n, n_words), dtype=np.uint64)
    for c in range(n):
        for t in range(nb_ptr[c], nb_ptr[c + 1]):
            d = nb[t]
            out[c, d >> 6] |= np.uint64(1) << np.uint64(d & 63)
    return out


MAX_DIRECTIONS = 15


@njit(cache=True)
def neighbour_directions(nb_ptr, nb, n_words):
    """The neighbour relation as shifts: ``right, left, masks`` (see :func:`~bench.native.bitfield.fewest_open`).

    A cell's neighbour in direction i is ``right[i] - left[i]`` bits away;
    bit c of ``masks[i]`` says cell c has that neighbour.  Empty when the
    relation needs more than :data:`MAX_DIRECTIONS` distances, as it does
    when the open cells are numbered without their geometry.
    """
    n = nb_ptr.shape[0] - 1
    deltas = np.empty(MAX_DIRECTIONS, dtype=np.int64)
    masks = np.zeros((MAX_DIRECTIONS, n_words), dtype=np.uint64)
    n_dirs = 0
    for c in range(n):
        for t in range(nb_ptr[c], nb_ptr[c + 1]):
            delta = nb[t] - c
            i = 0
            while i < n_dirs and deltas[i] != delta:
                i += 1
            if i == n_dirs:
                if n_dirs == MAX_DIRECTIONS:
                    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), masks[:0]
                deltas[i] = delta
                n_dirs += 1
            masks[i, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    right = np.maximum(deltas[:n_dirs], 0)
    left = np.maximum(-deltas[:n_dirs], 0)
    return right, left, masks[:n_dirs].copy()


Handoff = namedtuple("Handoff", [
    "n_open", "n_local", "n_words", "options", "left", "slack", "lp", "lay", "entry_img", "nonempty", "ls_base",
    "vmask", "nbr", "right", "shift_left", "masks", "full", "order_cells", "nb_ptr", "nb"])
"""What :func:`build_handoff` returns, by name."""


@njit(cache=True)
def build_handoff(n_cells, count, lo, hi, size, sets, set_start, node_opt, opt_ptr, opt_items, nb_ptr_g, nb_g,
            rank_g, ordered, nof, box_of, n_box):
    """Everything FILA needs for the branch a DLX state describes, in one compiled pass.

    The open cells become bits: at their places in the puzzle's box
    (``box_of``, ``n_box`` cells, the cells that are not open set from the
    start) when the box fits in the words the open cells need, so that
    neighbours are shifts apart; otherwise packed as ``0 .. n_open - 1``.
    Both numberings keep the cell priority order, so the lowest open bit is
    the first open cell.  Shapes with pieces left become shapes
    ``0 .. n_shapes - 1`` with their piece counts (``left``) and how many
    may stay unused (``slack``); the options still in play become the
    images.  Returns the fields of :data:`Handoff`: ``n_open, n_local, n_words, options, left,
    slack, lp, lay, entry_img, nonempty, ls_base, vmask, nbr, right,
    shift_left, masks, full, order_cells, nb_ptr, nb`` (see :func:`build_lists` and
    :func:`neighbour_directions`; ``nb_ptr, nb`` are the open neighbours of
    each local cell, ``full`` has the open cells' bits).
    """
    n_items = count.shape[0]
    n_open = 0
    for t in range(n_cells):
        if count[t] == 0:
            n_open += 1
    n_words = 1 if n_open <= 64 else 2
    geometric = n_box <= 64 * n_words
    n_local = n_box if geometric else n_open
    local_of = np.full(n_items, -1, dtype=np.int32)
    open_cells = np.full(n_local, -1, dtype=np.int64)
    m = 0
    for t in range(n_cells):
        if count[t] == 0:
            local_of[t] = box_of[t] if geometric else m
            open_cells[local_of[t]] = t
            m += 1
    shape_of = np.full(n_items, -1, dtype=np.int32)
    n_shapes = 0
    for t in range(n_cells, n_items):
        if hi[t] > count[t]:
            shape_of[t] = n_shapes
            n_shapes += 1
    left = np.zeros(n_shapes, dtype=np.int64)
    slack = np.zeros(n_shapes, dtype=np.int64)
    for t in range(n_cells, n_items):
        s = shape_of[t]
        if s >= 0:
            left[s] = hi[t] - count[t]
            slack[s] = left[s] - max(lo[t] - count[t], 0)
    options = active_options(n_cells, count, size, sets, set_start, node_opt, opt_ptr, opt_items)
    img_ptr, img_cells, img_shape, img_lay = sub_images(options, opt_ptr, opt_items, local_of, shape_of, n_words)
    nb_ptr = np.zeros(n_local + 1, dtype=np.int32)
    for c in range(n_local):
        g = open_cells[c]
        n = 0
        if g >= 0:
            for u in range(nb_ptr_g[g], nb_ptr_g[g + 1]):
                if local_of[nb_g[u]] >= 0:
                    n += 1
        nb_ptr[c + 1] = nb_ptr[c] + n
    nb = np.empty(nb_ptr[n_local], dtype=np.int32)
    for c in range(n_local):
        g = open_cells[c]
        m = nb_ptr[c]
        if g >= 0:
            for u in range(nb_ptr_g[g], nb_ptr_g[g + 1]):
                d = local_of[nb_g[u]]
                if d >= 0:
                    nb[m] = d
                    m += 1
    n_fam = rank_g.shape[0]
    fam_rank = np.empty((n_fam, n_local), dtype=np.int32)
    order_cells = np.empty((n_fam, n_local), dtype=np.int32)
    for f in range(n_fam):
        for c in range(n_local):
            # cells that are not open come last: a scan stops at an open cell first
            fam_rank[f, c] = rank_g[f, open_cells[c]] if open_cells[c] >= 0 else np.iinfo(np.int32).max
        order_cells[f] = np.argsort(fam_rank[f], kind="mergesort").astype(np.int32)
    lp, lay, entry_img, nonempty, ls_base, vmask = build_lists(img_ptr, img_cells, img_shape, img_lay, n_local,
                                                                 n_shapes, fam_rank, ordered, nb_ptr, nb, nof)
    nbr = neighbour_masks(nb_ptr, nb, n_words)
    right, shift_left, masks = neighbour_directions(nb_ptr, nb, n_words)
    full = np.zeros((1, n_words), dtype=np.uint64)
    for c in range(n_local):
        if open_cells[c] >= 0:
            full[0, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    return (n_open, n_local, n_words, options, left, slack, lp, lay, entry_img, nonempty, ls_base, vmask, nbr,
            right, shift_left, masks, full, order_cells, nb_ptr, nb)


def _words(a: np.ndarray) -> np.ndarray:
    """A C-ordered ``(n, W)`` word array as the kernel wants it: 1-D for one word."""
    return a.reshape(-1) if a.shape[1] == 1 else a


# -- the plan of one solve ---------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What every hand-off of one solve shares.

    ``kind[p]`` and ``fam[p]`` are the selection kind and the list family for
    p remaining pieces; family 0 is unordered (``e``, ``s``), family f > 0
    has cell ranks ``rank[f]`` over the cover's cells.  ``box_of`` places
    the cover's cells in the puzzle's index grid of ``n_box`` points.
    """

    kind: np.ndarray
    fam: np.ndarray
    rank: np.ndarray
    ordered: np.ndarray
    nb_ptr: np.ndarray
    nb: np.ndarray
    box_of: np.ndarray
    n_box: int
    handoff_at: int
    nof: bool


@CoverMemo
def make_plan(cover, order, n_pieces: int, handoff_at: int, nof: bool) -> Plan:
    """Selection kinds and list families from the schedule ``order`` (read-only: remembered per matrix)."""
    compiled = compile_order(order, cover, n_pieces)
    active = schedule(order, n_pieces)
    kind = np.zeros(n_pieces + 2, dtype=np.int32)
    fam = np.zeros(n_pieces + 2, dtype=np.int32)
    rows = [np.zeros(cover.n_cells, dtype=np.int32)]
    ordered = [False]
    family_of_row: dict[int, int] = {}
    for p in range(n_pieces + 1):
        name = active[p].name
        if name in ("s", "e"):
            kind[p] = SIZE if name == "s" else ESTIMATE
            continue
        row = int(compiled.table[p])
        if row not in family_of_row:
            family_of_row[row] = len(rows)
            rows.append(np.ascontiguousarray(compiled.rank[row, : cover.n_cells]))
            ordered.append(True)
        fam[p] = family_of_row[row]
        kind[p] = FIRST if name == "f" else ORDER
    nb_ptr, nb = cell_neighbours(cover.puzzle)
    puzzle = cover.puzzle
    return Plan(kind, fam, np.array(rows, dtype=np.int32), np.array(ordered), nb_ptr, nb, puzzle.open_grid,
                puzzle.grid_cells, handoff_at, nof)


# -- one hand-off -------------------------------------------------------------------------------


class FilaRun:
    """FILA on the branch a DLX search hands over: the sub-puzzle, its lists and its kernel state."""

    def __init__(self, search: Search, plan: Plan, totals: dict):
        start = time.perf_counter()
        cover = search.cover
        self.search = search
        level = int(search.state[S_LEVEL])
        self.p0 = search.n_pieces - level
        # only the list families used from here on
        used = np.unique(plan.fam[1 : self.p0 + 1])
        remap = np.full(len(plan.ordered), -1, dtype=np.int32)
        remap[used] = np.arange(len(used), dtype=np.int32)
        h = Handoff._make(build_handoff(
            cover.n_cells, search.count, search.lo, search.hi, search.size, search.sets, search.set_start,
            search.node_opt, cover.opt_ptr, cover.opt_items, plan.nb_ptr, plan.nb, plan.rank[used],
            plan.ordered[used], plan.nof, plan.box_of, plan.n_box))
        n_open, n_local, n_words = h.n_open, h.n_local, h.n_words
        self.img_opt, self.left, self.slack, self.lp, self.entry_img = h.options, h.left, h.slack, h.lp, h.entry_img
        self.nonempty, self.ls_base, self.order_cells = h.nonempty, h.ls_base, h.order_cells
        self.dright, self.dleft = h.right, h.shift_left
        self.lay, self.nbr, self.full, self.vmask = _words(h.lay), _words(h.nbr), _words(h.full), _words(h.vmask)
        self.dmask = _words(h.masks)
        nb_ptr, nb = h.nb_ptr, h.nb
        full = h.full
        self.n_shapes = len(self.left)
        self.spare = bool(np.any(self.slack > 0))
        self.kind = plan.kind
        fam = remap[plan.fam]
        # levels above the hand-off are DLX's: no family, so ORDER starts its scan afresh
        fam[self.p0 + 1 :] = -1
        self.fam = fam
        depth = self.p0 + 1
        self.fstate = np.zeros(3, dtype=np.int64)
        self.fstate[F_PHASE] = FORWARD
        self.fstate[F_AVAIL] = np.uint64((1 << self.n_shapes) - 1).view(np.int64)
        occ_stack = np.zeros((depth + 1, n_words), dtype=np.uint64)
        # bits that are not open cells start filled
        occ_stack[0] = ~full[0]
        self.occ_stack = _words(occ_stack)
        self.stk = np.zeros((depth, 6), dtype=np.uint64)
        self.fbuf, self.fcount, self.flen = self.fit_buffers(depth)
        self.pos_stack = np.zeros(depth, dtype=np.uint64)
        self.prefix = search.chosen[:level].copy()
        self.chosen = np.zeros(level + depth, dtype=np.int32)
        self.fcons = self.constraint_args(search, level, depth, n_local, nb_ptr, nb)
        totals["handoffs"] += 1
        totals["images"] += len(self.img_opt)
        totals["list_entries"] += len(self.entry_img)
        totals["max_cells"] = max(totals["max_cells"], n_open)
        totals["geometric"] += n_local == plan.n_box
        totals["words"] = max(totals["words"], n_words)
        totals["setup_seconds"] += time.perf_counter() - start

    def fit_buffers(self, depth: int) -> tuple:
        """Where the levels keep the fitting images: two halves per level, each as long as the longest list set."""
        n_ls = len(self.nonempty)
        lengths = np.diff(self.lp)[: n_ls * self.n_shapes].astype(np.int64)
        cap = int(lengths.reshape(n_ls, self.n_shapes).sum(axis=1).max(initial=0))
        return (np.zeros(2 * depth * cap, dtype=np.uint64), np.zeros(2 * depth * self.n_shapes, dtype=np.uint64),
                np.zeros(2 * depth * self.n_shapes, dtype=np.uint64))

    def constraint_args(self, search: Search, level: int, depth: int, n_local: int, nb_ptr, nb) -> TriggerArgs:
        """The triggers' arrays for this sub-puzzle: per image parity, per level state, local geometry."""
        cons = search.constraints
        cells = n_local if cons.cfg[C_VOLUME_BT] else 0
        # the region's parity and the monitor state per level, from the hand-off's
        fpar = np.zeros((depth + 1, 2), dtype=np.int64)
        fpar[0] = cons.par_d[level], cons.par_s[level]
        if cons.cfg[C_PARITY_BT]:
            img_par, img_pstep = cons.opt_par[self.img_opt], cons.opt_pstep[self.img_opt]
        else:
            img_par = img_pstep = np.zeros(0, dtype=np.int64)
        n_cells = search.cover.n_cells
        open_shapes = np.flatnonzero(search.hi[n_cells:] > search.count[n_cells:])
        return TriggerArgs(cons.cfg, cons.par_ok, img_par, img_pstep, fpar, cons.counters, nb_ptr, nb,
                           cons.shape_size[open_shapes], np.zeros(cells, dtype=np.int32),
                           np.zeros(cells + 1, dtype=np.int32), np.zeros(cells, dtype=np.int64),
                           np.zeros(max(cells, 1), dtype=np.int32), np.zeros(cells + 1, dtype=np.uint8))

    def slice(self, budget: int) -> int:
        """Run FILA for at most ``budget`` nodes; DONE once the branch is exhausted."""
        s = self.search
        sym = s.cover.symmetry
        return fila_search(
            self.lay, self.entry_img, self.lp, self.ls_base, self.vmask, self.nbr, self.dright, self.dleft, self.dmask,
            self.full, self.kind, self.fam,
            self.order_cells, self.nonempty, self.left, self.slack, self.fstate, self.occ_stack, self.stk,
            self.pos_stack, self.fbuf, self.fcount, self.flen, self.p0, np.uint64(self.n_shapes), s.state, s.attempts, s.fits,
            self.prefix, self.img_opt, self.chosen, s.cover.opt_ptr, s.cover.opt_items, s.cover.n_cells,
            sym.cell_inv, sym.opt_map, sym.opt_gmask, s.grid, s.classify,
            s.sol_buf, s.sol_len, s.sol_weight, s.stream, s.limits.max_solutions or 0, budget, s.settings.goal,
            self.spare, self.fcons)


# -- the engine ---------------------------------------------------------------------------------


def default_order(cover, handoff_at: int) -> str:
    """The schedule FILA uses when none is given.

    DLX's ``s`` places the pieces above the hand-off.  In a plain rectangle
    FILA fills left to right (``f``, test case P5); elsewhere (3-D boxes,
    irregular regions) ``e`` picks the tightest hole and ``f`` takes the last
    three pieces (test cases TC4 and PT5).
    """
    if cover.puzzle.rectangle or handoff_at <= 3:
        return f"f={handoff_at}"
    return f"e={handoff_at}:f=3"


def resolve(cover, settings: Settings) -> Settings:
    """``settings`` with FILA's defaults filled in: hand-off after the first piece, NOF on, :func:`default_order`."""
    n = piece_count(cover)
    handoff_at = settings.fila if settings.fila is not None else max(n - 1, 1)
    if not 1 <= handoff_at <= max(n, 1):
        raise UsageError(f"--fila must be between 1 and the number of pieces ({n}), got {handoff_at}")
    order = settings.order if settings.order is not None else default_order(cover, handoff_at)
    return replace(settings, fila=handoff_at, nof=True if settings.nof is None else settings.nof, order=order)


def check_cover(cover) -> None:
    """FILA needs cells with coordinates and one piece item per option."""
    if cover.puzzle is None:
        raise Unsupported("fila needs a cover built from a puzzle (cell coordinates); this one has none")
    ptr, items = cover.opt_ptr, cover.opt_items
    last = items[ptr[1:] - 1]
    cells_before = np.ones(len(items), dtype=bool)
    cells_before[ptr[1:] - 1] = False
    if np.any(last < cover.n_cells) or np.any(items[cells_before] >= cover.n_cells):
        raise Unsupported("fila needs options made of cells and exactly one piece item")


_compile_seconds: float | None = None


def warm_up() -> float:
    """Compile (or load from the cache) DLX and both FILA word sizes once per process; returns the seconds."""
    global _compile_seconds
    if _compile_seconds is None:
        from bench.models.cover import Cover
        from bench.models.definition import parse_text
        from bench.models.puzzle import Puzzle

        start = time.perf_counter()
        dlx.warm_up()
        for x, y in ((4, 2), (66, 2)):
            pieces = "".join(f"C:name=d{k}:layout=0 0 0, 1 0 0\n" for k in range(x * y // 2))
            text = f"D:xDim={x}:yDim={y}:zDim=1\n{pieces}~D\n"
            cover = Cover.from_puzzle(Puzzle.from_definition(parse_text(text)[0]))
            for order in ("e", "f", "s", "x"):
                run_pipeline(cover, resolve(cover, Settings(order=order, fila=x * y // 2 - 1)), Limits(max_solutions=1))
        _compile_seconds = time.perf_counter() - start
    return _compile_seconds


class FilaEngine(Engine):
    """The native DLX -> FILA pipeline (see the module docstring)."""

    name = "fila"
    supported = frozenset({"order", "goal", "first_item", "fila", "nof", "prefix", "max_solutions", "node_limit",
                           "time_limit", "auto"}) | CONSTRAINTS

    def __init__(self, variant: str = ""):
        self.tuning = parse_tuning(self.name, variant, frozenset({"fila", "nof", "order"}) | CONSTRAINTS)

    def warm_up(self) -> float:
        """Seconds spent compiling (or loading) the kernels in this process."""
        return warm_up()

    def configure(self, puzzle, request):
        """With no tuning option at all, the choices of the FILA article's best rows.

        The redundancy filter on the piece that leaves least work
        (:func:`~bench.models.tuning.cheapest_redundancy`) and the one-shot
        volume filter in 2-D; :meth:`resolve` then makes the region-dependent
        choices.
        """
        if request.tuned:
            return request
        choice = cheapest_redundancy(puzzle, request.redundancy_method)
        return replace(request, redundancy=choice.piece if choice else None, volume=request.volume or puzzle.planar,
                       settings=replace(request.settings, auto=True))

    def resolve(self, cover, settings: Settings, filtered: Filtered | None = None) -> Settings:
        """FILA's settings for ``cover``: the variant's tuning, then :func:`resolve`'s defaults.

        An automatic configuration in a region the one-shot volume filter
        shows prone to partition lets DLX filter by volume at every node for
        the first pieces (:func:`~bench.models.tuning.filtered_handoff`).
        """
        check_cover(cover)
        settings = apply_tuning(settings, self.tuning)
        removed = filtered.counters.get("VOLUME_FILTER_ONE_SHOT") if filtered is not None else None
        if settings.auto and removed is not None:
            handoff = filtered_handoff(cover.puzzle, piece_count(cover), filtered.options_before, removed)
            if handoff is not None:
                settings = replace(settings, fila=handoff, volume_filter=handoff)
        return resolve(cover, settings)

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None,
              on_trace=None) -> Result:
        """Count (and optionally return) the exact covers of ``cover`` with DLX, then FILA.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/pentominoes_20x3.txt")
        >>> r = FilaEngine().solve(bench.Cover.from_puzzle(p, redundancy=True))
        >>> r.status.value, r.covers, r.unique, r.total, r.variant
        ('solved', 2, 2, 8, 'f11/of=11/n1')
        """
        self.check(settings, limits)
        settings = self.resolve(cover, settings)
        compile_seconds = warm_up()
        search, totals, setup_seconds = run_pipeline(cover, settings, limits, on_solutions)
        exact = settings.goal == 0
        stats = search.stats()
        stats["no_fits"] = stats["attempts"] - stats["fits"]
        stats["fila"] = {k: v for k, v in totals.items() if k != "setup_seconds"}
        return Result(
            engine=self.name,
            variant=f"f{settings.fila}/o{settings.order}/n{int(settings.nof)}" + constraint_variant(settings),
            status=search.status,
            covers=int(search.state[S_COVERS]),
            unique=int(search.state[S_UNIQUE]) if exact else None,
            total=int(search.state[S_TOTAL]) if exact else None,
            solutions=search.kept,
            stats=stats,
            timings={"compile": compile_seconds, "setup": setup_seconds, "fila_setup": totals["setup_seconds"],
                     "solve": search.solve_seconds},
            cover_hash=cover.hash,
        )


def run_pipeline(cover, settings: Settings, limits: Limits, on_solutions=None):
    """Run DLX with hand-offs to FILA under resolved ``settings``; returns the search, FILA totals and set-up seconds."""
    t0 = time.perf_counter()
    plan = make_plan(cover, settings.order, piece_count(cover), settings.fila, settings.nof)
    totals = {"handoffs": 0, "geometric": 0, "images": 0, "list_entries": 0, "max_cells": 0, "words": 0,
              "setup_seconds": 0.0}
    search = Search(cover, settings, limits, on_solutions, None,
                    handoff=lambda s: FilaRun(s, plan, totals), handoff_at=settings.fila, handoff_cells=MAX_CELLS,
                    handoff_shapes=MAX_SHAPES)
    setup_seconds = time.perf_counter() - t0
    search.status = search.run()
    return search, totals, setup_seconds
