"""FILA's image list sets for the branch DLX hands over, and the plan every hand-off of a solve shares.

**Image list sets.**  For every open cell c, every neighbour occupancy index
z and every shape s there is a fixed list of the images of s that cover c.
A list holds only images that are still in play (so only bounded ones),
that avoid the neighbours z marks as filled (**NOF**, ``nof``: z has one bit
per neighbour that may be open, so never-open neighbours cost nothing), and,
for a fixed-order heuristic, that avoid every cell earlier in its order
(**POF**: such an image sits only in the list of its earliest cell).  The
lists are stored flat in ``(list set, shape)`` order, each entry the image's
layout words, so a fit test is one AND over contiguous memory.

**Shared lists.**  The lists of the whole puzzle, every cell open
(:func:`build_shared`), serve every hand-off of a solve where the pieces
above it fill few cells: its filled cells start set in the occupancy, and
the images over them fail their fit test like any other.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np

from bench.toolchain.registry import njit
from bench.kernels.bitfield import _ctz, _popcount, gather_rows
from bench.kernels.fila import ESTIMATE, FIRST, ORDER, SIZE
from bench.kernels.heuristics import compile_order, scan_axes, schedule
from bench.kernels.memo import CoverMemo


# -- building a sub-puzzle ---------------------------------------------------------------------

InPlay = namedtuple("InPlay", ["n_cells", "count", "size", "sets", "set_start", "node_opt", "opt_ptr", "opt_items"])
"""The options still in play in a DLX state, as a hand-off reads them: the first ``n_cells`` items are cells, cell t
open while ``count[t]`` is 0, its options in play the nodes ``sets[set_start[t] : set_start[t] + size[t]]`` (node z
of option ``node_opt[z]``: :data:`~bench.kernels.sparse_sets.SparseSets`), option o covering the items
``opt_items[opt_ptr[o] : opt_ptr[o + 1]]``, its shape last."""

Numbering = namedtuple("Numbering", ["local_of", "shape_of", "n_local", "n_words"])
"""A hand-off's own numbering (:func:`local_puzzle`): ``local_of`` and ``shape_of`` map the cover's items to local
cells and shapes (-1: none); the ``n_local`` local cells are bits of ``n_words`` words."""


@njit(cache=True)
def active_options(in_play):
    """The options still in play (an :data:`InPlay`), ascending.

    Every option in play covers an open cell and is listed there; an option
    is marked from the list of its first cell, and the marks are read in
    option order (numba's sorts cost more to compile than this step).
    """
    # read through the bundle: a step run once a hand-off, where narrow_lists's loops take its fields as locals
    count = in_play.count
    size = in_play.size
    mark = np.zeros(in_play.opt_ptr.shape[0] - 1, dtype=np.uint8)
    m = 0
    for t in range(in_play.n_cells):
        if count[t] == 0:
            start = in_play.set_start[t]
            for k in range(start, start + size[t]):
                o = in_play.node_opt[in_play.sets[k]]
                if in_play.opt_items[in_play.opt_ptr[o]] == t:
                    mark[o] = 1
                    m += 1
    out = np.empty(m, dtype=np.int32)
    m = 0
    for o in range(mark.shape[0]):
        if mark[o]:
            out[m] = o
            m += 1
    return out


@njit(cache=True)
def sub_images(options, opt_ptr, opt_items, local_of, shape_of, n_words):
    """Images of a sub-puzzle: ``img_ptr, img_cells`` (local cells), ``img_shape`` and layout words."""
    n = options.shape[0]
    img_ptr = np.zeros(n + 1, dtype=np.int32)
    for i in range(n):
        o = options[i]
        img_ptr[i + 1] = img_ptr[i] + (opt_ptr[o + 1] - opt_ptr[o] - 1)
    img_cells = np.empty(np.int64(img_ptr[n]), dtype=np.int32)
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
    # the images at each cell, in image order (a counting sort of the images' cells): the lists are filled cell by
    # cell, each cell's entries a few tens of KB, where image by image the writes landed all over arrays larger
    # than the cache (the Meteor puzzle's 100 K entries a hand-off); each list still holds its images in order
    n_at = np.int64(img_ptr[n_img])
    at_ptr = np.zeros(n_local + 1, dtype=np.int32)
    for m in range(n_at):
        at_ptr[img_cells[m] + 1] += 1
    for c in range(n_local):
        at_ptr[c + 1] += at_ptr[c]
    at_img = np.empty(n_at, dtype=np.int32)
    at_next = np.empty(n_local, dtype=np.int32)
    for c in range(n_local):
        at_next[c] = at_ptr[c]
    for i in range(n_img):
        for m in range(img_ptr[i], img_ptr[i + 1]):
            c = img_cells[m]
            at_img[at_next[c]] = i
            at_next[c] += 1
    first_cell = np.empty(n_img, dtype=np.int32)
    lp = np.zeros(n_slots + 1, dtype=np.uint64)
    fill = np.zeros(n_slots, dtype=np.int64)
    lay = np.zeros((0, img_lay.shape[1]), dtype=np.uint64)
    entry_img = np.empty(0, dtype=np.int32)
    for writing in range(2):
        for f in range(n_fam):
            if fam_ordered[f]:
                # an image sits only at its earliest cell (the first of them on a tie)
                for i in range(n_img):
                    first = img_ptr[i]
                    for m in range(img_ptr[i], img_ptr[i + 1]):
                        if fam_rank[f, img_cells[m]] < fam_rank[f, img_cells[first]]:
                            first = m
                    first_cell[i] = img_cells[first]
            for c in range(n_local):
                for t in range(at_ptr[c], at_ptr[c + 1]):
                    i = at_img[t]
                    if fam_ordered[f] and first_cell[i] != c:
                        continue
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
            lay = np.empty((np.int64(lp[n_slots]), img_lay.shape[1]), dtype=np.uint64)
            entry_img = np.empty(np.int64(lp[n_slots]), dtype=np.int32)
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
    """The neighbour relation as shifts, ``right, left, masks, n_dirs`` (:func:`~bench.kernels.bitfield.fewest_open`).

    A cell's neighbour in direction i is ``right[i] - left[i]`` bits away
    (one of them 0); bit c of ``masks[i]`` says cell c has that neighbour;
    the first ``n_dirs`` rows hold the directions, none when the relation
    needs more than :data:`MAX_DIRECTIONS` distances, as it does when the
    open cells are numbered without their geometry.  The rows are cut in
    NumPy (:func:`neighbour_shifts`, :func:`build_handoff`): numba's copies
    of slices cost more to compile than the rest of this kernel.
    """
    n = nb_ptr.shape[0] - 1
    deltas = np.empty(MAX_DIRECTIONS, dtype=np.int64)
    masks = np.zeros((MAX_DIRECTIONS, n_words), dtype=np.uint64)
    n_dirs = np.int64(0)
    for c in range(n):
        for t in range(nb_ptr[c], nb_ptr[c + 1]):
            delta = nb[t] - c
            i = 0
            while i < n_dirs and deltas[i] != delta:
                i += 1
            if i == n_dirs:
                if n_dirs == MAX_DIRECTIONS:
                    return deltas, deltas, masks, np.int64(0)
                deltas[i] = delta
                n_dirs += 1
            masks[i, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    # the shifts right and left as loops: a ufunc (np.maximum) here would have every run that loads this kernel
    # import numba's ufunc machinery (5 ms)
    right = np.empty(MAX_DIRECTIONS, dtype=np.int64)
    # in place: each delta is read before its slot is written
    left = deltas
    for i in range(n_dirs):
        d = deltas[i]
        right[i] = d if d > 0 else 0
        left[i] = -d if d < 0 else 0
    return right, left, masks, n_dirs


def neighbour_shifts(nb_ptr, nb, n_words) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`neighbour_directions` as FILA's kernel takes it: shifts ``right`` and ``left`` (one is 0), and ``masks``."""
    right, left, masks, n_dirs = neighbour_directions(nb_ptr, nb, n_words)
    return right[:n_dirs], left[:n_dirs], masks[:n_dirs]


@njit(cache=True)
def narrow_lists(n_cells, count, numbering, atlas, fam_rows, img_of, img_lay):
    """:func:`build_lists`'s lists for a DLX state, narrowed from an :class:`Atlas`'s instead of built.

    The images are the options still in play, ascending (option o is image
    ``img_of[o]``, -1 when not in play; ``img_lay`` their layout words, as
    :func:`sub_images` gives them); the open cells are the first
    ``n_cells`` items with ``count`` 0.  Local cell c's list set for local
    neighbour occupancy z' is the atlas's list set of its cell for the
    occupancy with every filled neighbour set and the open ones as z' says
    (the local numbering keeps the atlas's cell order, so the i-th open
    neighbour is the i-th either way), less the images no longer in play, in
    the same order.  So every array equals :func:`build_lists`'s for the
    same state.  Row f of ``fam_rows`` is the atlas's row of the hand-off's
    family f.  Returns ``lp, lay, entry_img, nonempty, ls_base, vmask,
    n_entries``: ``lay`` and ``entry_img`` hold ``n_entries`` rows (sized
    for the atlas's).
    """
    local_of = numbering.local_of
    shape_of = numbering.shape_of
    n_local = numbering.n_local
    n_words = numbering.n_words
    bit_of = atlas.bit_of
    lp_m = atlas.lp
    entry_m = atlas.entry_opt
    ls_base_m = atlas.ls_base
    vmask_m = atlas.vmask
    n_shapes_m = atlas.n_shapes
    # the atlas's bits of the open cells, and the local cell of each
    n_bits = ls_base_m.shape[1]
    w_m = vmask_m.shape[1]
    open_m = np.zeros(w_m, dtype=np.uint64)
    local_at = np.empty(n_bits, dtype=np.int32)
    for b in range(n_bits):
        local_at[b] = -1
    cell_bit = np.empty(n_local, dtype=np.int32)
    for c in range(n_local):
        cell_bit[c] = -1
    for t in range(n_cells):
        if count[t] == 0:
            b = bit_of[t]
            local_at[b] = local_of[t]
            cell_bit[local_of[t]] = b
            open_m[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    n_sh = 0
    for t in range(n_cells, shape_of.shape[0]):
        if shape_of[t] >= 0:
            n_sh += 1
    glob = np.empty(n_sh, dtype=np.int64)
    for t in range(n_cells, shape_of.shape[0]):
        if shape_of[t] >= 0:
            glob[shape_of[t]] = t - n_cells
    # the list sets: a local cell's variable neighbours are the atlas cell's that are open
    n_fam = fam_rows.shape[0]
    ls_base = np.zeros((n_fam, n_local), dtype=np.int32)
    vmask = np.zeros((n_fam * n_local, n_words), dtype=np.uint64)
    n_ls = 0
    for f in range(n_fam):
        for c in range(n_local):
            ls_base[f, c] = n_ls
            b = cell_bit[c]
            k = 0
            if b >= 0:
                row = fam_rows[f] * n_bits + b
                for w in range(w_m):
                    v = vmask_m[row, w] & open_m[w]
                    for x in range(64):
                        if (v >> np.uint64(x)) & np.uint64(1):
                            d = local_at[w * 64 + x]
                            vmask[f * n_local + c, d >> 6] |= np.uint64(1) << np.uint64(d & 63)
                            k += 1
            n_ls += 1 << k
    lp = np.zeros(n_ls * n_sh + 1, dtype=np.uint64)
    nonempty = np.zeros(n_ls, dtype=np.uint64)
    cap = np.int64(lp_m[lp_m.shape[0] - 1])
    entry_img = np.empty(cap, dtype=np.int32)
    lay = np.empty((cap, n_words), dtype=np.uint64)
    n = 0
    slot = 0
    for f in range(n_fam):
        for c in range(n_local):
            b = cell_bit[c]
            if b < 0:
                for j in range(n_sh):
                    slot += 1
                    lp[slot] = n
                continue
            row = fam_rows[f] * n_bits + b
            n_var = 0
            for w in range(w_m):
                n_var += _popcount(vmask_m[row, w])
            # which of the atlas's variable neighbours are open; the filled ones stay set in every z
            opened = np.int64(gather_rows(open_m, vmask_m[row]))
            filled = ((np.int64(1) << n_var) - 1) & ~opened
            base = np.int64(ls_base_m[fam_rows[f], b])
            sub = np.int64(0)
            while True:
                first = (base + (filled | sub)) * n_shapes_m
                for j in range(n_sh):
                    sm = first + glob[j]
                    start = n
                    for e in range(lp_m[sm], lp_m[sm + 1]):
                        i = img_of[entry_m[e]]
                        if i >= 0:
                            entry_img[n] = i
                            for w in range(n_words):
                                lay[n, w] = img_lay[i, w]
                            n += 1
                    if n > start:
                        nonempty[slot // n_sh] |= np.uint64(1) << np.uint64(j)
                    slot += 1
                    lp[slot] = n
                if sub == opened:
                    break
                # the next subset of the open ones, in increasing order, as the local z' counts
                sub = (sub - opened) & opened
    return lp, lay, entry_img, nonempty, ls_base, vmask, n


Handoff = namedtuple("Handoff", [
    "n_open", "n_local", "n_words", "options", "left", "slack", "lp", "lay", "entry_img", "nonempty", "ls_base",
    "vmask", "nbr", "right", "shift_left", "masks", "full", "order_cells", "nb_ptr", "nb", "img_ptr", "img_cells",
    "img_lay", "spare", "fit_cap", "hold_together", "min_size"])
"""What :func:`build_handoff` returns, by name."""


LAST = np.int32(np.iinfo(np.int32).max)
"""The rank of a cell that is not open in a family's scan: after every open one."""


@njit(cache=True)
def scan_orders(fam_rank):
    """Each family's cells by rank, ties in cell order (a stable argsort of each row of ``fam_rank``).

    A counting sort: the ranks are places in a scan of the cover's cells,
    and :data:`LAST` (a cell that is not open) sorts after them all.
    """
    n_fam, n = fam_rank.shape
    out = np.empty((n_fam, n), dtype=np.int32)
    for f in range(n_fam):
        top = 0
        for c in range(n):
            r = fam_rank[f, c]
            if r != LAST and r > top:
                top = r
        start = np.zeros(top + 2, dtype=np.int32)
        for c in range(n):
            r = fam_rank[f, c]
            start[top + 1 if r == LAST else r] += 1
        total = 0
        for b in range(top + 2):
            k = start[b]
            start[b] = total
            total += k
        for c in range(n):
            r = fam_rank[f, c]
            b = top + 1 if r == LAST else r
            out[f, start[b]] = c
            start[b] += 1
    return out


HandoffGeometry = namedtuple("HandoffGeometry", ["nb_ptr", "nb", "box_of", "scan_cells", "n_box", "nof",
                                                 "shape_size"])
"""What every hand-off of a plan reads of the puzzle (:attr:`Plan.geometry`): the cells' neighbours, the box and
scan the local numbering follows (:func:`local_puzzle`), whether the lists are NOF's, each shape's cells."""


@njit(cache=True)
def handoff_arrays(in_play, lo, hi, geometry, rank_g, ordered, isolated, atlas, fam_rows):
    """:func:`build_handoff`'s arrays in one compiled call (the fields of :data:`Handoff` in order), ``lay`` and
    ``entry_img`` longer than their ``n_entries`` rows, and the shifts with ``n_dirs`` rows of
    :data:`MAX_DIRECTIONS` (NumPy cuts them: numba's copies of slices cost more to compile than the rest).

    One call, not one per step: a call converts every array it takes and
    returns, and the Soma cube's three hand-offs spent more on seven
    calls' conversions and NumPy's steps between them than on the steps.
    """
    (n_open, n_local, n_words, local_of, shape_of, left, slack, nb_ptr, nb, fam_rank,
     full) = local_puzzle(in_play.n_cells, in_play.count, lo, hi, geometry.nb_ptr, geometry.nb, rank_g, geometry.box_of,
                          geometry.scan_cells, geometry.n_box)
    order_cells = scan_orders(fam_rank)
    options = active_options(in_play)
    img_ptr, img_cells, img_shape, img_lay = sub_images(options, in_play.opt_ptr, in_play.opt_items, local_of,
                                                        shape_of, n_words)
    n_shapes = left.shape[0]
    if fam_rows.shape[0] > 0:
        img_of = np.empty(in_play.opt_ptr.shape[0] - 1, dtype=np.int32)
        for o in range(img_of.shape[0]):
            img_of[o] = -1
        for i in range(options.shape[0]):
            img_of[options[i]] = i
        lp, lay, entry_img, nonempty, ls_base, vmask, n_entries = narrow_lists(
            in_play.n_cells, in_play.count, Numbering(local_of, shape_of, n_local, n_words), atlas, fam_rows, img_of,
            img_lay)
    else:
        lp, lay, entry_img, nonempty, ls_base, vmask = build_lists(img_ptr, img_cells, img_shape, img_lay, n_local,
                                                                     n_shapes, fam_rank, ordered, nb_ptr, nb,
                                                                     geometry.nof)
        n_entries = np.int64(lp[lp.shape[0] - 1])
    right, shift_left, masks, n_dirs = neighbour_directions(nb_ptr, nb, n_words)
    nbr = neighbour_masks(nb_ptr, nb, n_words)
    spare = False
    for s in range(n_shapes):
        if slack[s] > 0:
            spare = True
    # the fit buffer's half per level: the longest list set
    fit_cap = np.int64(0)
    if n_shapes > 0:
        for ls in range(nonempty.shape[0]):
            fit_cap = max(fit_cap, np.int64(lp[(ls + 1) * n_shapes] - lp[ls * n_shapes]))
    # whether every cell of every image has a neighbour in its image: only then does a cell without open neighbours
    # stay empty for good (a piece whose cells do not touch, two squares a cell apart, fills one); asked only where
    # the isolated-cell trigger is set
    hold = True
    for i in range(img_ptr.shape[0] - 1 if isolated else 0):
        for m in range(img_ptr[i], img_ptr[i + 1]):
            c = img_cells[m]
            touches = False
            for w in range(n_words):
                if nbr[c, w] & img_lay[i, w]:
                    touches = True
            if not touches:
                hold = False
    # the fewest cells of a shape with pieces left
    min_size = np.int64(1) << 40
    n_cells = in_play.n_cells
    shape_size = geometry.shape_size
    for t in range(n_cells, hi.shape[0] if isolated else n_cells):
        if hi[t] > in_play.count[t] and t - n_cells < shape_size.shape[0]:
            min_size = min(min_size, shape_size[t - n_cells])
    return (n_open, n_local, n_words, options, left, slack, lp, lay, entry_img, nonempty, ls_base, vmask, nbr, right,
            shift_left, masks, full, order_cells, nb_ptr, nb, img_ptr, img_cells, img_lay, spare, fit_cap, hold,
            min_size, n_entries, n_dirs)


NO_ATLAS_ROWS = np.zeros(0, dtype=np.int32)


def build_handoff(in_play: InPlay, lo, hi, geometry: HandoffGeometry, rank_g, ordered, isolated: int, atlas=None,
                  fam_rows=None) -> Handoff:
    """Everything FILA needs for the branch the DLX state ``in_play`` describes, on the puzzle ``geometry`` with the
    list families of cell ranks ``rank_g`` (``ordered`` says which are POF's), under the isolated-cell trigger
    ``isolated`` (0: off, and ``hold_together`` and ``min_size`` are not looked at).

    The sub-puzzle (:func:`local_puzzle`), the options still in play as its
    images (:func:`active_options`, :func:`sub_images`), their list sets
    (:func:`build_lists`), the neighbour relation as masks and shifts
    (:func:`neighbour_masks`, :func:`neighbour_directions`), and what the
    isolated-cell trigger asks of the images (``hold_together``: every cell
    of each has a neighbour in it) and of the shapes left (``min_size``, from
    ``shape_size``, each shape's cells): all in one call of
    :func:`handoff_arrays`.

    With an :class:`Atlas` (and ``fam_rows``, its rows of the families in
    ``rank_g``) the lists are narrowed from the atlas's
    (:func:`narrow_lists`) instead: the same arrays, without building them.
    """
    if atlas is None:
        atlas, fam_rows = EMPTY_ATLAS, NO_ATLAS_ROWS
    got = handoff_arrays(in_play, lo, hi, geometry, rank_g, ordered, isolated, atlas, fam_rows)
    n_entries, n_dirs = got[-2], got[-1]
    h = Handoff._make(got[:-2])
    return h._replace(lay=h.lay[:n_entries], entry_img=h.entry_img[:n_entries], right=h.right[:n_dirs],
                      shift_left=h.shift_left[:n_dirs], masks=h.masks[:n_dirs])


def image_halos(h: Handoff) -> np.ndarray:
    """Per image of hand-off ``h``, its open neighbours: the open cells next to one of its cells, not in it."""
    if len(h.img_ptr) == 1:
        return np.zeros((0, h.n_words), dtype=np.uint64)
    return np.bitwise_or.reduceat(h.nbr[h.img_cells], h.img_ptr[:-1], axis=0) & ~h.img_lay


@njit(cache=True)
def local_puzzle(n_cells, count, lo, hi, nb_ptr_g, nb_g, rank_g, box_of, scan_cells, n_box):
    """The sub-puzzle of a DLX state: its cells as bits, its shapes, its neighbours and its scan orders.

    The open cells become bits: at their places in the puzzle's box
    (``box_of``, ``n_box`` cells, the cells that are not open set from the
    start) when the box fits in the words the open cells need, so that
    neighbours are shifts apart; otherwise packed as ``0 .. n_open - 1``
    in the order of ``scan_cells``.  Both numberings keep the scan order,
    so the lowest open bit is the first open cell.  Shapes with pieces left
    become shapes ``0 .. n_shapes - 1`` with their piece counts (``left``)
    and how many may stay unused (``slack``).  Returns ``n_open, n_local,
    n_words, local_of, shape_of, left, slack, nb_ptr, nb, fam_rank, full``:
    ``local_of`` and ``shape_of`` map the cover's items to local cells and
    shapes (-1: none), ``nb_ptr, nb`` are the open neighbours of each local
    cell, ``fam_rank`` each family's cell ranks (cells that are not open
    last), ``full`` has the open cells' bits.
    """
    n_items = count.shape[0]
    n_open = 0
    for t in range(n_cells):
        if count[t] == 0:
            n_open += 1
    n_words = 1 if n_open <= 64 else 2
    geometric = n_box <= 64 * n_words
    n_local = n_box if geometric else n_open
    # filled by loops: np.full costs numba an implementation to compile per type
    local_of = np.empty(n_items, dtype=np.int32)
    shape_of = np.empty(n_items, dtype=np.int32)
    for t in range(n_items):
        local_of[t] = -1
        shape_of[t] = -1
    open_cells = np.empty(n_local, dtype=np.int64)
    for t in range(n_local):
        open_cells[t] = -1
    m = 0
    for t in scan_cells:
        if count[t] == 0:
            local_of[t] = box_of[t] if geometric else m
            open_cells[local_of[t]] = t
            m += 1
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
    nb_ptr = np.zeros(n_local + 1, dtype=np.int32)
    for c in range(n_local):
        g = open_cells[c]
        n = 0
        if g >= 0:
            for u in range(nb_ptr_g[g], nb_ptr_g[g + 1]):
                if local_of[nb_g[u]] >= 0:
                    n += 1
        nb_ptr[c + 1] = nb_ptr[c] + n
    nb = np.empty(np.int64(nb_ptr[n_local]), dtype=np.int32)
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
    for f in range(n_fam):
        for c in range(n_local):
            # cells that are not open come last: a scan stops at an open cell first
            fam_rank[f, c] = rank_g[f, open_cells[c]] if open_cells[c] >= 0 else LAST
    full = np.zeros((1, n_words), dtype=np.uint64)
    for c in range(n_local):
        if open_cells[c] >= 0:
            full[0, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    return n_open, n_local, n_words, local_of, shape_of, left, slack, nb_ptr, nb, fam_rank, full


def words(a: np.ndarray) -> np.ndarray:
    """A C-ordered ``(n, W)`` word array as the kernel wants it: 1-D for one word."""
    return a.reshape(-1) if a.shape[1] == 1 else a


# -- the plan of one solve ---------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What every hand-off of one solve shares.

    ``kind[p]`` and ``fam[p]`` are the selection kind and the list family for
    p remaining pieces; family 0 is unordered (``e``, ``s``), family f > 0
    has cell ranks ``rank[f]`` over the cover's cells.  ``box_of`` places
    the cover's cells in the puzzle's index grid of ``n_box`` points, its
    axes in the order of the levels' ``f`` scan; ``scan_cells`` lists the
    cover's cells in that order; ``shape_size`` has each shape's cells.
    """

    kind: np.ndarray
    fam: np.ndarray
    rank: np.ndarray
    ordered: np.ndarray
    nb_ptr: np.ndarray
    nb: np.ndarray
    box_of: np.ndarray
    scan_cells: np.ndarray
    n_box: int
    handoff_at: int
    nof: bool
    shape_size: np.ndarray
    built: dict = field(default_factory=dict, compare=False, repr=False)
    """What hand-offs build once for all (:func:`plan_atlas`), filled as they come."""

    @cached_property
    def geometry(self) -> HandoffGeometry:
        """The plan's arrays every hand-off reads, as :func:`handoff_arrays` takes them."""
        return HandoffGeometry(self.nb_ptr, self.nb, self.box_of, self.scan_cells, self.n_box, self.nof,
                               self.shape_size)


@CoverMemo
def make_plan(cover, order, n_pieces: int, handoff_at: int, nof: bool) -> Plan:
    """Selection kinds and list families from the schedule ``order`` (read-only: remembered per matrix)."""
    compiled = compile_order(order, cover, n_pieces)
    active = schedule(order, n_pieces)
    # FILA's bits follow one scan, so that the lowest open bit is the first open cell of the first
    # ``f`` scan of its levels; an ``f`` scan along other axes takes the ranked path
    scans = [scan_axes(h) for h in active[1 : handoff_at + 1] if h.name == "f"]
    axes = scans[0] if scans else (0, 1, 2)
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
        kind[p] = FIRST if name == "f" and scan_axes(active[p]) == axes else ORDER
    nb_ptr, nb = cover.puzzle.cell_neighbours
    puzzle = cover.puzzle
    box_of = puzzle.open_grid(axes)
    return Plan(kind, fam, np.array(rows, dtype=np.int32), np.array(ordered), nb_ptr, nb, box_of,
                np.argsort(box_of[: cover.n_cells], kind="stable").astype(np.int32), puzzle.grid_cells, handoff_at,
                nof, np.array([shape.size for shape in puzzle.shapes], dtype=np.int64))


# -- the lists of a whole puzzle, narrowed at each hand-off --------------------------------------

Atlas = namedtuple("Atlas", ["bit_of", "lp", "entry_opt", "ls_base", "vmask", "n_shapes", "rows"])
"""The image list sets of a whole puzzle (:func:`build_atlas`): every option an image, every cell open.

Cell t is bit ``bit_of[t]``; the lists are :func:`build_lists`'s, with
``entry_opt`` the entries' options and ``n_shapes`` the cover's shapes;
``rows[f]`` is the row of the plan's family f (-1: no hand-off uses it).
"""

EMPTY_ATLAS = Atlas(np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.uint64), np.zeros(0, dtype=np.int32),
                    np.zeros((0, 0), dtype=np.int32), np.zeros((0, 1), dtype=np.uint64), 0, np.zeros(0, dtype=np.int32))
"""The atlas :func:`handoff_arrays` takes where there is none (its ``fam_rows`` empty): one signature either way."""

MAX_ATLAS_SLOTS = 1 << 21
"""The most ``(list set, shape)`` slots an atlas may have: past that, each hand-off builds its own lists."""

ATLAS_HANDOFFS = 8
"""The hand-offs of a plan, seen and to come, from which an atlas pays: it costs about as much as building two or
three hand-offs' lists, and narrowing them costs about half of building them."""


Families = namedtuple("Families", ["used", "fam", "rank", "ordered"])
"""The list families a hand-off with ``p0`` pieces left uses (:func:`families`): the plan's families ``used``
(ascending), each level's family renumbered among them (``fam``, -1 at DLX's levels above the hand-off), and the
used families' ``rank`` and ``ordered`` rows."""


def families(plan: Plan, p0: int) -> Families:
    """The :data:`Families` of the hand-offs with ``p0`` pieces left, made once and kept in the plan: every such
    hand-off of the solve asks (the Meteor's 32, the diamond's thousands), and the arrays are only read."""
    key = ("families", p0)
    got = plan.built.get(key)
    if got is None:
        # not np.unique, whose first call imports numpy.ma: 15-20 ms of a run that imports nothing else it would not
        # need
        used = np.flatnonzero(np.bincount(plan.fam[1 : p0 + 1]))
        remap = np.full(len(plan.ordered), -1, dtype=np.int32)
        remap[used] = np.arange(len(used), dtype=np.int32)
        fam = remap[plan.fam]
        # levels above the hand-off are DLX's: no family, so ORDER starts its scan afresh
        fam[p0 + 1 :] = -1
        got = plan.built[key] = Families(used, fam, plan.rank[used], plan.ordered[used])
    return got


def plan_atlas(cover, plan: Plan, upcoming: Callable[[], int]) -> Atlas | None:
    """The plan's :class:`Atlas`, built once the hand-offs seen and the ``upcoming()`` ones reach
    :data:`ATLAS_HANDOFFS`; None before, or where none fits (:func:`build_atlas`).

    ``upcoming`` counts from the search's tree, never a clock, and only
    while no atlas is built (a hand-off after that need not count).  The
    atlas is kept in the plan, so that every later hand-off of the solve, and
    of every sub-problem of a split a process runs, narrows the same lists.
    """
    built = plan.built
    seen = built.get("handoffs", 0)
    built["handoffs"] = seen + 1
    if "atlas" not in built:
        if seen + upcoming() < ATLAS_HANDOFFS:
            return None
        built["atlas"] = build_atlas(cover, plan)
    return built["atlas"]


def build_atlas(cover, plan: Plan) -> Atlas | None:
    """The image list sets of ``cover`` with every cell open, for the families its hand-offs use.

    The cells are numbered as a hand-off with every cell open would number
    them (:func:`local_puzzle`): at their places in the box where it fits
    the words, else in scan order; either way a hand-off's own numbering
    keeps their order (:func:`narrow_lists`).  None where a hand-off could
    not use it (over 128 cells, over 64 shapes) or where its slots would pass
    :data:`MAX_ATLAS_SLOTS` (every neighbour of every cell variable).
    """
    whole = whole_lists(cover, plan)
    return whole.atlas if whole is not None else None


WholeLists = namedtuple("WholeLists", ["atlas", "n_bits", "fam_rank", "nb_ptr", "nb", "lay", "nonempty", "img_ptr",
                                       "img_cells", "img_lay"])
"""What :func:`whole_lists` builds: the :class:`Atlas`, its ``n_bits`` bits, each family's cell ranks, the
neighbours, the entries' layout words, the non-empty lists per list set, and the images (every option, in order)."""


def whole_lists(cover, plan: Plan) -> WholeLists | None:
    """:func:`build_atlas`'s lists with everything built on the way (:data:`WholeLists`)."""
    n_cells = cover.n_cells
    n_shapes = cover.n_items - n_cells
    if n_cells > 128 or n_shapes > 64:
        return None
    n_words = 1 if n_cells <= 64 else 2
    if plan.n_box <= 64 * n_words:
        # a writable copy, as the other numbering's: one signature of narrow_lists
        bit_of = np.array(plan.box_of[:n_cells], dtype=np.int32)
        n_bits = plan.n_box
    else:
        bit_of = np.empty(n_cells, dtype=np.int32)
        bit_of[plan.scan_cells] = np.arange(n_cells, dtype=np.int32)
        n_bits = n_cells
    families = np.flatnonzero(np.bincount(plan.fam[1 : plan.handoff_at + 1], minlength=len(plan.ordered)))
    rows = np.full(len(plan.ordered), -1, dtype=np.int32)
    rows[families] = np.arange(len(families), dtype=np.int32)
    fam_rank = np.full((len(families), n_bits), LAST, dtype=np.int32)
    fam_rank[:, bit_of] = plan.rank[families][:, :n_cells]
    # the neighbours in the atlas's numbering
    degree = np.diff(plan.nb_ptr)
    nb_ptr = np.zeros(n_bits + 1, dtype=np.int32)
    nb_ptr[bit_of + 1] = degree
    nb_ptr = np.cumsum(nb_ptr, dtype=np.int32)
    nb = np.empty(len(plan.nb), dtype=np.int32)
    order = np.argsort(bit_of, kind="stable")
    nb[:] = bit_of[np.concatenate([plan.nb[plan.nb_ptr[t] : plan.nb_ptr[t + 1]] for t in order])]
    # each cell's variable neighbours, as build_lists counts them
    ordered = plan.ordered[families]
    cell = np.repeat(np.arange(n_bits), np.diff(nb_ptr))
    later = fam_rank[:, nb] > fam_rank[:, cell]
    variable = np.where(ordered[:, None], later, True) if plan.nof else np.zeros_like(later)
    per_cell = np.array([np.bincount(cell[variable[f]], minlength=n_bits) for f in range(len(families))])
    if int((1 << per_cell).sum()) * n_shapes > MAX_ATLAS_SLOTS:
        return None
    local_of = np.full(cover.n_items, -1, dtype=np.int32)
    local_of[:n_cells] = bit_of
    shape_of = np.full(cover.n_items, -1, dtype=np.int32)
    shape_of[n_cells:] = np.arange(n_shapes, dtype=np.int32)
    options = np.arange(cover.n_options, dtype=np.int32)
    img_ptr, img_cells, img_shape, img_lay = sub_images(options, cover.opt_ptr, cover.opt_items, local_of, shape_of,
                                                        n_words)
    lp, lay, entry_opt, nonempty, ls_base, vmask = build_lists(img_ptr, img_cells, img_shape, img_lay, n_bits,
                                                               n_shapes, fam_rank, ordered, nb_ptr, nb, plan.nof)
    return WholeLists(Atlas(bit_of, lp, entry_opt, ls_base, vmask, n_shapes, rows), n_bits, fam_rank, nb_ptr, nb,
                      lay, nonempty, img_ptr, img_cells, img_lay)


# -- the lists of a whole puzzle, shared by every hand-off ----------------------------------------

SharedImages = namedtuple("SharedImages", ["cell_bit", "shape_size", "opt_lay", "opt_shape", "loose", "vmask",
                                           "ordered", "first_cell", "n_bits"])
"""What a hand-off on shared lists reads to tell its images in play (:func:`handoff_state`): each cell's bit, each
shape's cells, each option's layout word and shape, the options with a cell without a neighbour in them (``loose``), the lists'
variable neighbours (``vmask``, ``n_bits`` rows per family), which families are ordered (POF), and each option's
earliest cell in each family (``first_cell``)."""

SharedLists = namedtuple("SharedLists", ["atlas", "n_bits", "lay", "vmask", "nonempty", "order_cells", "nb_ptr", "nb",
                                         "nbr", "right", "shift_left", "masks", "options", "fit_cap", "halo",
                                         "images"])
"""The plan's lists as every hand-off searches them (:func:`build_shared`): the :class:`Atlas` and the arrays of a
:data:`Handoff` that do not depend on the hand-off's state, over ``n_bits`` bits, word arrays 1-D; ``options``
(every option, an image each), the options' neighbours (``halo``), and the :data:`SharedImages`."""

SHARED_FILLED = 0.25
"""The largest share of a puzzle's cells the pieces above the hand-off may fill for its hand-offs to share the
whole puzzle's lists (:func:`shares_lists`): each list then holds few images over cells filled above."""


def shares_lists(cover, plan: Plan) -> bool:
    """Whether the hand-offs of ``plan`` search the whole puzzle's lists (:func:`build_shared`), not their own.

    A hand-off's own lists hold only the images still in play; built (or
    narrowed) at each hand-off, they cost the Soma cube's search a third of
    its time.  Shared, they are built once, before the search, and hold
    the images over cells filled above the hand-off too, which the kernel
    tests and passes over (counting as attempts only the others, so every
    counter is the same either way).  So they are shared where those are
    few: the largest pieces above the hand-off fill at most
    :data:`SHARED_FILLED` of the cells.  Only in one word, numbered in the
    box (as a hand-off's own lists then are, so the search is the same):
    :func:`build_shared` sees to that.  Under the scans only: ``e`` and
    ``s`` probe every list of their candidate holes, and a count of the
    images in play there slowed FILA's kernel on every search (see
    :func:`~bench.kernels.fila.in_play`).
    """
    if np.any((plan.kind[1 : plan.handoff_at + 1] == ESTIMATE) | (plan.kind[1 : plan.handoff_at + 1] == SIZE)):
        return False
    n_cells = cover.n_cells
    sizes = np.sort(np.repeat(plan.shape_size, cover.item_hi[n_cells:]))
    above = int(sizes[len(sizes) - (cover.piece_count - plan.handoff_at):].sum())
    return above <= SHARED_FILLED * n_cells


def build_shared(cover, plan: Plan) -> SharedLists | None:
    """The whole puzzle's lists as every hand-off of ``plan`` searches them; None where they do not fit one word
    numbered in the box, or do not fit at all (:func:`whole_lists`)."""
    if cover.n_cells > 64 or plan.n_box > 64:
        return None
    whole = whole_lists(cover, plan)
    if whole is None:
        return None
    atlas = whole.atlas
    order_cells, right, shift_left, masks, n_dirs, nbr, fit_cap = shared_arrays(whole.fam_rank, whole.nb_ptr,
                                                                                 whole.nb, atlas.lp, atlas.n_shapes)
    img_ptr, img_cells, img_lay = whole.img_ptr, whole.img_cells, whole.img_lay
    starts = img_ptr[:-1]
    sizes = np.diff(img_ptr)
    # the images with a cell that has no neighbour in them (a monomino's, two squares a cell apart)
    touching = (nbr[img_cells] & np.repeat(img_lay, sizes, axis=0)).any(axis=1)
    loose = np.flatnonzero(~np.logical_and.reduceat(touching, starts)).astype(np.int32)
    halo = np.bitwise_or.reduceat(nbr[img_cells], starts, axis=0) & ~img_lay
    # each option's earliest cell in each family, the first of them on a tie (as build_lists lists it)
    first_cell = np.empty((len(whole.fam_rank), cover.n_options), dtype=np.int32)
    at = np.arange(len(img_cells))
    for f, rank in enumerate(whole.fam_rank):
        ranks = rank[img_cells]
        least = np.repeat(np.minimum.reduceat(ranks, starts), sizes)
        first_cell[f] = img_cells[np.minimum.reduceat(np.where(ranks == least, at, len(at)), starts)]
    shape_of = (cover.opt_items[cover.opt_ptr[1:] - 1] - cover.n_cells).astype(np.int32)
    images = SharedImages(np.left_shift(np.uint64(1), atlas.bit_of.astype(np.uint64)), plan.shape_size,
                          words(img_lay), shape_of,
                          loose, words(atlas.vmask), plan.ordered[np.flatnonzero(atlas.rows >= 0)], first_cell,
                          whole.n_bits)
    return SharedLists(atlas, whole.n_bits, words(whole.lay), words(atlas.vmask), whole.nonempty, order_cells,
                       whole.nb_ptr, whole.nb, words(nbr), right[:n_dirs], shift_left[:n_dirs], words(masks[:n_dirs]),
                       np.arange(cover.n_options, dtype=np.int32), fit_cap, words(halo), images)


@njit(cache=True)
def shared_arrays(fam_rank, nb_ptr, nb, lp, n_shapes):
    """:func:`build_shared`'s compiled steps in one call: the scan orders, the neighbour shifts (``n_dirs`` rows of
    :data:`MAX_DIRECTIONS`) and masks in one word, and the longest list set."""
    order_cells = scan_orders(fam_rank)
    right, shift_left, masks, n_dirs = neighbour_directions(nb_ptr, nb, 1)
    nbr = neighbour_masks(nb_ptr, nb, 1)
    fit_cap = np.int64(0)
    for ls in range((lp.shape[0] - 1) // n_shapes):
        fit_cap = max(fit_cap, np.int64(lp[(ls + 1) * n_shapes] - lp[ls * n_shapes]))
    return order_cells, right, shift_left, masks, n_dirs, nbr, fit_cap


def plan_shared(cover, plan: Plan) -> SharedLists | None:
    """The plan's :data:`SharedLists` where its hand-offs share them (:func:`shares_lists`), built once and kept in
    the plan; else None."""
    if not shares_lists(cover, plan):
        return None
    built = plan.built
    if "shared" not in built:
        built["shared"] = build_shared(cover, plan)
    return built["shared"]


def rooted(shared: SharedLists, options: np.ndarray) -> tuple[SharedLists, int]:
    """``shared`` with one list set more, whose lists hold ``options`` (ascending) by shape, and its index: what a
    FILA that takes over at the root branches on first, where DLX's first level would have."""
    atlas = shared.atlas
    n_shapes = atlas.n_shapes
    shapes = shared.images.opt_shape[options]
    by_shape = options[np.argsort(shapes, kind="stable")]
    counts = np.bincount(shapes, minlength=n_shapes)
    lp = np.concatenate([atlas.lp, atlas.lp[-1] + np.cumsum(counts).astype(np.uint64)])
    entry_opt = np.concatenate([atlas.entry_opt, by_shape.astype(np.int32)])
    nonempty = np.append(shared.nonempty, np.bitwise_or.reduce(np.left_shift(np.uint64(1),
                                                                             np.flatnonzero(counts).astype(np.uint64))))
    lists = shared._replace(atlas=atlas._replace(lp=lp, entry_opt=entry_opt), nonempty=nonempty,
                            lay=np.concatenate([shared.lay, shared.images.opt_lay[by_shape]]),
                            fit_cap=max(shared.fit_cap, int(counts.max())))
    return lists, (len(atlas.lp) - 1) // n_shapes


SharedHandoff = namedtuple("SharedHandoff", ["handoff", "avail", "images", "entries"])
"""A hand-off on shared lists (:func:`shared_handoff`): its :data:`Handoff`, its shapes with pieces left as FILA's
bit mask, and the images and list entries its own lists would hold."""


def shared_handoff(shared: SharedLists, count, lo, hi, fam_rows) -> SharedHandoff:
    """The hand-off of the DLX state of item counts ``count`` (bounds ``lo``, ``hi``) on ``shared`` lists, for the
    families of the shared lists' rows ``fam_rows``.

    Only the open cells' bits, the pieces left and spare per shape (every
    shape of the cover, used up or not), the fewest cells of a shape left,
    whether the images in play hold together, and what its own lists would
    hold are the hand-off's own (:func:`handoff_state`); the rest is the
    plan's, its word arrays 1-D (as :func:`words` makes them).
    """
    (full, left, slack, n_open, spare, min_size, avail, hold, images,
     entries) = handoff_state(count, lo, hi, shared.images, fam_rows)
    lists = shared.atlas
    h = Handoff(n_open, shared.n_bits, 1, shared.options, left, slack, lists.lp, shared.lay, lists.entry_opt,
                shared.nonempty, lists.ls_base, shared.vmask, shared.nbr, shared.right, shared.shift_left,
                shared.masks, full, shared.order_cells, shared.nb_ptr, shared.nb, None, None, None, spare,
                shared.fit_cap, hold, min_size)
    return SharedHandoff(h, avail, images, entries)


@njit(cache=True)
def handoff_state(count, lo, hi, images, fam_rows):
    """What a hand-off on shared lists reads of its DLX state (:func:`shared_handoff`), in one call.

    The open cells' bits (one word, as an array of it), the pieces left and
    spare per shape, how many cells are open, whether a piece is spare, the
    fewest cells of a shape left (2**40 where none is), the shapes left as a
    bit mask, whether every image in play holds together (none of the
    ``loose`` options is in play), and the images in play and the entries
    the hand-off's own lists of the families ``fam_rows`` would hold (an
    image at each cell it is listed at, once per occupancy of the cell's
    open variable neighbours it leaves free), as :func:`handoff_arrays`
    asks and counts them.  An option is in play where its shape has pieces
    left and its cells are open (no DLX filter runs above a hand-off on
    shared lists).
    """
    cell_bit = images.cell_bit
    shape_size = images.shape_size
    opt_lay = images.opt_lay
    opt_shape = images.opt_shape
    vmask = images.vmask
    ordered = images.ordered
    first_cell = images.first_cell
    n_bits = images.n_bits
    n_cells = cell_bit.shape[0]
    full = np.zeros(1, dtype=np.uint64)
    n_open = 0
    for t in range(n_cells):
        if count[t] == 0:
            full[0] |= cell_bit[t]
            n_open += 1
    open_bits = full[0]
    n_shapes = count.shape[0] - n_cells
    left = np.empty(n_shapes, dtype=np.int64)
    slack = np.empty(n_shapes, dtype=np.int64)
    spare = False
    min_size = np.int64(1) << 40
    avail = np.uint64(0)
    for s in range(n_shapes):
        t = n_cells + s
        left[s] = hi[t] - count[t]
        slack[s] = left[s] - max(lo[t] - count[t], 0)
        spare |= slack[s] > 0
        if left[s] > 0:
            min_size = min(min_size, shape_size[s])
            avail |= np.uint64(1) << np.uint64(s)
    hold = True
    for o in images.loose:
        if left[opt_shape[o]] > 0 and opt_lay[o] & ~open_bits == 0:
            hold = False
    n_images = 0
    n_entries = 0
    for o in range(opt_lay.shape[0]):
        lay = opt_lay[o]
        if left[opt_shape[o]] == 0 or lay & ~open_bits != 0:
            continue
        n_images += 1
        free = open_bits & ~lay
        for r in fam_rows:
            if ordered[r]:
                n_entries += np.int64(1) << np.int64(_popcount(vmask[r * n_bits + first_cell[r, o]] & free))
            else:
                z = lay
                while z:
                    c = np.int64(_ctz(z))
                    z &= z - np.uint64(1)
                    n_entries += np.int64(1) << np.int64(_popcount(vmask[r * n_bits + c] & free))
    return full, left, slack, n_open, spare, min_size, np.int64(avail), hold, n_images, n_entries
