"""Knuth random-path estimates of the tree the DLX -> FILA pipeline searches, for many configurations at once.

The FILA kernel cannot walk one random path (a level tries one shape's list
at a time, so it never knows a node's branching degree before it branches),
and DLX with FILA's order searches another tree: it sees a hole nothing
fills wherever it is, where FILA's left-to-right fill meets it only when it
gets there (12x5 with the X constrained: the DLX estimate puts Z's tree
within a factor 2 of X's, FILA searches 9 times as many nodes with Z).  So
this module walks the pipeline's own tree with plain arrays: DLX's min-fit
choice (first item of fewest options, cells before pieces, in item order)
above the hand-off and wherever an item is forced, then per number of pieces
left FILA's heuristic over an occupancy bitfield of up to 128 cells
numbered in FILA's scan order: the first open cell (``f`` and the fixed
orders) with the images anchored there (POF), the hole of fewest open
neighbours then fewest fits (``e``), or of fewest fits (``s``), and NOF's
lists (images that overlap an occupied neighbour of the target are never
tried).  A node's children are the fitting images; the estimate of nodes,
attempts (images tried) and covers is the sum over the path of the product
of the degrees above (Knuth, 1975).

Every candidate configuration is a mask over the options of one shared
cover (the redundancy filter of a piece drops that piece's other images),
so one call estimates them all without a cover each.
Paths are stratified over the root's children (each taken equally often),
which removes the largest share of the variance: the root is where the
candidates differ most.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from bench.toolchain import warmup
from bench.toolchain.registry import njit
from bench.kernels.bitfield import _ctz, _popcount
from bench.kernels.heuristics import ESTIMATE as DLX_ESTIMATE, FIXED_ORDER, MIN_FIT, compile_order

# heuristic kinds per number of pieces left, as the FILA kernel numbers them, from the compiled schedule's
FIRST, ORDER, ESTIMATE, SIZE = 0, 1, 2, 3
KINDS = {FIXED_ORDER: FIRST, DLX_ESTIMATE: ESTIMATE, MIN_FIT: SIZE}
# columns of the estimate per candidate
E_TRIALS, E_NODES_DLX, E_NODES_FIXED, E_NODES_SEARCHED, E_ATTEMPTS, E_COVERS, E_STEPS = range(7)
N_E = 7
MAX_CELLS = 128


@njit(cache=True, inline="always")
def _fits(mask, o, occ0, occ1):
    return (mask[o, 0] & occ0) == 0 and (mask[o, 1] & occ1) == 0


@njit(cache=True, inline="always")
def _is_open(c, open0, open1):
    b = np.uint64(c & 63)
    return ((open0 >> b) & np.uint64(1) if c < 64 else (open1 >> b) & np.uint64(1)) != 0


@njit(cache=True)
def sample_pipeline(arrays, dead, trials, seed, depth, out):
    """Accumulate ``trials`` stratified random paths per candidate into ``out`` (rows of :data:`N_E` columns).

    ``arrays`` is a :class:`PipelineArrays`: ``mask[o]`` is option o's cells
    as two words (bit = scan rank), ``opt_cells`` the same cells listed
    (CSR by ``opt_ptr``), ``anchor_*`` the options per lowest cell,
    ``cell_*`` per cell, ``nbr[c]`` cell c's neighbours as two words.
    ``kind[p]`` is FILA's heuristic with p pieces left, ``handoff`` the
    pieces left where FILA may take over.  ``dead[k, o]`` drops option o
    from candidate k.  Paths stop after ``depth`` placements: the estimate
    is then of the top ``depth`` levels of the tree.
    """
    mask = arrays.mask
    opt_ptr = arrays.opt_ptr
    opt_cells = arrays.opt_cells
    opt_shape = arrays.opt_shape
    anchor_ptr = arrays.anchor_ptr
    anchor_opts = arrays.anchor_opts
    cell_ptr = arrays.cell_ptr
    cell_opts = arrays.cell_opts
    nbr = arrays.nbr
    n_cells = arrays.n_cells
    dlx_cells = arrays.dlx_cells
    lo = arrays.lo
    hi = arrays.hi
    kind = arrays.kind
    handoff = arrays.handoff
    np.random.seed(seed)
    n_opt = opt_shape.shape[0]
    n_shapes = lo.shape[0]
    n_pieces = 0
    for s in range(n_shapes):
        n_pieces += hi[s]
    full0 = np.uint64(0)
    full1 = np.uint64(0)
    for c in range(n_cells):
        if c < 64:
            full0 |= np.uint64(1) << np.uint64(c)
        else:
            full1 |= np.uint64(1) << np.uint64(c - 64)
    count = np.zeros(n_shapes, dtype=np.int64)
    deg = np.zeros(n_cells + n_shapes, dtype=np.int64)
    kids = np.zeros(n_opt, dtype=np.int64)
    root_kids = np.zeros(n_opt, dtype=np.int64)
    for k in range(dead.shape[0]):
        root_degree = 0
        root_attempts = 0
        root_fixed = False
        root_fila = False
        t = 0
        total = trials
        while t < total:
            occ0 = np.uint64(0)
            occ1 = np.uint64(0)
            # loops, not slice assignments: those cost numba 2 s more to compile here
            for s in range(n_shapes):
                count[s] = 0
            weight = 1.0
            placed = 0
            in_fila = False
            steps = 0
            while True:
                left = n_pieces - placed
                if placed >= depth:
                    break
                if left == 0:
                    out[k, E_COVERS] += weight
                    break
                if occ0 == full0 and occ1 == full1:
                    # with spare pieces the box fills with pieces left: a cover once every shape has its minimum
                    # (no open cell is left to branch on)
                    short = False
                    for s in range(n_shapes):
                        if count[s] < lo[s]:
                            short = True
                    if not short:
                        out[k, E_COVERS] += weight
                    break
                n_kids = 0
                attempts = 0
                fixed = False
                if placed == 0 and root_degree > 0:
                    # the root is the same on every path: its children were listed once
                    n_kids = root_degree
                    attempts = root_attempts
                    fixed = root_fixed
                    in_fila = root_fila
                elif not in_fila and left <= handoff and placed > 0:
                    # FILA takes over (DLX would go on while an item is forced: a rare hole, left out here)
                    in_fila = True
                if not in_fila and not (placed == 0 and root_degree > 0):
                    # DLX: the item of fewest live options
                    for i in range(n_cells + n_shapes):
                        deg[i] = 0
                    for o in range(n_opt):
                        if dead[k, o] or count[opt_shape[o]] >= hi[opt_shape[o]] or not _fits(mask, o, occ0, occ1):
                            continue
                        for z in range(opt_ptr[o], opt_ptr[o + 1]):
                            deg[opt_cells[z]] += 1
                        deg[n_cells + opt_shape[o]] += 1
                    steps += n_opt
                    best = -1
                    best_deg = 1 << 30
                    for i in range(n_cells):
                        c = dlx_cells[i]
                        w = c >> 6
                        b = np.uint64(c & 63)
                        if ((occ0 >> b) & np.uint64(1) if w == 0 else (occ1 >> b) & np.uint64(1)) == 0 \
                                and deg[c] < best_deg:
                            best = c
                            best_deg = deg[c]
                    for s in range(n_shapes):
                        if lo[s] > count[s]:
                            d = deg[n_cells + s] - (lo[s] - count[s]) + 1
                            if d < best_deg:
                                best = n_cells + s
                                best_deg = d
                    if left <= handoff and best_deg > 1:
                        in_fila = True
                    else:
                        fixed = True
                        if best >= n_cells:
                            for o in range(n_opt):
                                if opt_shape[o] == best - n_cells and not dead[k, o] and _fits(mask, o, occ0, occ1):
                                    kids[n_kids] = o
                                    n_kids += 1
                        else:
                            for z in range(cell_ptr[best], cell_ptr[best + 1]):
                                o = cell_opts[z]
                                if not dead[k, o] and count[opt_shape[o]] < hi[opt_shape[o]] and \
                                        _fits(mask, o, occ0, occ1):
                                    kids[n_kids] = o
                                    n_kids += 1
                        attempts = n_kids
                if in_fila and not (placed == 0 and root_degree > 0):
                    h = kind[left]
                    open0 = ~occ0 & full0
                    open1 = ~occ1 & full1
                    if h == FIRST or h == ORDER:
                        target = _ctz(open0) if open0 != 0 else 64 + _ctz(open1)
                        fixed = True
                        for z in range(anchor_ptr[target], anchor_ptr[target + 1]):
                            o = anchor_opts[z]
                            s = opt_shape[o]
                            if dead[k, o] or count[s] >= hi[s]:
                                continue
                            # NOF: an image over an occupied neighbour of the target is not in its list
                            if (mask[o, 0] & occ0 & nbr[target, 0]) != 0 or (mask[o, 1] & occ1 & nbr[target, 1]) != 0:
                                continue
                            attempts += 1
                            if _fits(mask, o, occ0, occ1):
                                kids[n_kids] = o
                                n_kids += 1
                    else:
                        least = 1 << 30
                        if h == ESTIMATE:
                            for c in range(n_cells):
                                if not _is_open(c, open0, open1):
                                    continue
                                n = _popcount(nbr[c, 0] & open0) + _popcount(nbr[c, 1] & open1)
                                if n < least:
                                    least = n
                        target = -1
                        best_fits = 1 << 30
                        for c in range(n_cells):
                            if not _is_open(c, open0, open1):
                                continue
                            if h == ESTIMATE and _popcount(nbr[c, 0] & open0) + _popcount(nbr[c, 1] & open1) != least:
                                continue
                            f = 0
                            for z in range(cell_ptr[c], cell_ptr[c + 1]):
                                o = cell_opts[z]
                                # the list test above, written out again: a helper taking the arrays would take a
                                # reference on each per option (8 times slower sampling)
                                s = opt_shape[o]
                                if dead[k, o] or count[s] >= hi[s]:
                                    continue
                                if (mask[o, 0] & occ0 & nbr[c, 0]) != 0 or (mask[o, 1] & occ1 & nbr[c, 1]) != 0:
                                    continue
                                attempts += 1
                                if _fits(mask, o, occ0, occ1):
                                    f += 1
                                    # as FILA counts: no further than the fewest fits so far
                                    if f >= best_fits:
                                        break
                            if f < best_fits:
                                best_fits = f
                                target = c
                                if f == 0:
                                    break
                        for z in range(cell_ptr[target], cell_ptr[target + 1]):
                            o = cell_opts[z]
                            s = opt_shape[o]
                            if dead[k, o] or count[s] >= hi[s]:
                                continue
                            if _fits(mask, o, occ0, occ1):
                                kids[n_kids] = o
                                n_kids += 1
                steps += attempts + 1
                out[k, E_ATTEMPTS] += weight * attempts
                if not in_fila:
                    out[k, E_NODES_DLX] += weight * n_kids
                elif fixed:
                    out[k, E_NODES_FIXED] += weight * n_kids
                else:
                    out[k, E_NODES_SEARCHED] += weight * n_kids
                if n_kids == 0:
                    if placed == 0:
                        total = t + 1
                    break
                if placed == 0:
                    # the root's children are taken in turn, each equally often
                    if root_degree == 0:
                        root_degree = n_kids
                        root_attempts = attempts
                        root_fixed = fixed
                        root_fila = in_fila
                        for i in range(n_kids):
                            root_kids[i] = kids[i]
                        total = ((trials + n_kids - 1) // n_kids) * n_kids
                    pick = t % n_kids
                    o = root_kids[pick]
                else:
                    pick = np.random.randint(0, n_kids)
                    o = kids[pick]

                occ0 |= mask[o, 0]
                occ1 |= mask[o, 1]
                count[opt_shape[o]] += 1
                placed += 1
                weight *= n_kids
            out[k, E_STEPS] += steps
            out[k, E_TRIALS] += 1
            t += 1


def warm_up() -> float:
    """Make the sampler ready once per process (its library, else numba's); returns the seconds it took."""
    return warmup.ensure(["sampler"])


def tiny_sample() -> None:
    """A call of :func:`sample_pipeline` with the argument types of every real one, for the warm-up."""
    one = np.ones(1, dtype=np.int64)
    zero = np.zeros(1, dtype=np.int64)
    arrays = PipelineArrays(np.ones((1, 2), dtype=np.uint64), np.array([0, 1]), zero, zero, np.array([0, 1]), zero,
                            np.array([0, 1]), zero, np.zeros((1, 2), dtype=np.uint64), 1, zero, one, one,
                            np.zeros(2, dtype=np.int64), 0, zero)
    sample_pipeline(arrays, np.zeros((1, 1), dtype=np.bool_), 1, 1, 1, np.zeros((1, N_E), dtype=np.float64))


def _bits(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Word and bit mask of each cell number, for two-word bitfields."""
    return cells >> 6, np.left_shift(np.uint64(1), (cells & 63).astype(np.uint64))


class PipelineArrays(namedtuple("PipelineArrays", [
        "mask", "opt_ptr", "opt_cells", "opt_shape", "anchor_ptr", "anchor_opts", "cell_ptr", "cell_opts", "nbr",
        "n_cells", "dlx_cells", "lo", "hi", "kind", "handoff", "renumber"])):
    """One cover as :func:`sample_pipeline` walks it: cells numbered in FILA's scan order (see the module docstring).

    Options are renumbered (``renumber[new]`` is the cover's option), ordered by piece and cells.  A named tuple,
    so that the kernel takes it as one argument.
    """

    __slots__ = ()

    @classmethod
    def build(cls, cover, order: str, handoff: int) -> "PipelineArrays":
        """The arrays of ``cover`` searched with FILA's schedule ``order`` below ``handoff`` pieces left.

        Raises ValueError for a cover of more than :data:`MAX_CELLS` cells.
        """
        n_cells = cover.n_cells
        if n_cells > MAX_CELLS:
            raise ValueError(f"the pipeline estimate takes at most {MAX_CELLS} cells, not {n_cells}")
        n = cover.piece_count
        compiled = compile_order(order, cover, n)
        kind = np.array([KINDS[int(k)] for k in compiled.kind], dtype=np.int64)
        fixed = [p for p in range(min(handoff, n) + 1) if compiled.kind[p] == FIXED_ORDER]
        # a cell's bit is its place in the fixed order FILA scans (cover order when it scans none)
        bit = compiled.rank[compiled.table[fixed[0]]][:n_cells].astype(np.int64) if fixed else np.arange(n_cells)
        items = cover.opt_items.astype(np.int64)
        lengths = np.diff(cover.opt_ptr).astype(np.int64) - 1
        owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        cells = bit[items[items < n_cells]]
        mask = np.zeros((len(lengths), 2), dtype=np.uint64)
        word, one = _bits(cells)
        np.bitwise_or.at(mask, (owner, word), one)
        shape = items[cover.opt_ptr[1:].astype(np.int64) - 1] - n_cells
        # the options renumbered by piece and cells in scan order, so that the random paths, which pick a child by
        # its place in a list, walk the same tree alike however the pieces' images were numbered
        renumber = np.lexsort((mask[:, 0], mask[:, 1], shape))
        mask, shape, lengths = mask[renumber], shape[renumber], lengths[renumber]
        opt_ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=opt_ptr[1:])
        starts = np.repeat(cover.opt_ptr[:-1].astype(np.int64)[renumber] - opt_ptr[:-1], lengths) + np.arange(opt_ptr[-1])
        opt_cells = bit[items[starts]]
        owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        anchor = np.minimum.reduceat(opt_cells, opt_ptr[:-1]) if len(lengths) else np.zeros(0, np.int64)
        anchor_ptr = np.zeros(n_cells + 1, dtype=np.int64)
        np.cumsum(np.bincount(anchor, minlength=n_cells), out=anchor_ptr[1:])
        cell_ptr = np.zeros(n_cells + 1, dtype=np.int64)
        np.cumsum(np.bincount(opt_cells, minlength=n_cells), out=cell_ptr[1:])
        nb_ptr, nb = cover.puzzle.cell_neighbours
        nbr = np.zeros((n_cells, 2), dtype=np.uint64)
        word, one = _bits(bit[nb])
        np.bitwise_or.at(nbr, (bit[np.repeat(np.arange(n_cells), np.diff(nb_ptr))], word), one)
        return cls(mask, opt_ptr, opt_cells, shape.astype(np.int64), anchor_ptr,
                   np.argsort(anchor, kind="stable").astype(np.int64), cell_ptr,
                   owner[np.argsort(opt_cells, kind="stable")], nbr, n_cells, bit,
                   cover.item_lo[n_cells:].astype(np.int64), cover.item_hi[n_cells:].astype(np.int64), kind,
                   int(handoff), renumber)

    def sample(self, dead: np.ndarray, trials: int, seed: int, depth: int) -> np.ndarray:
        """``trials`` paths (rounded up to a multiple of the root's degree) ``depth`` levels deep per candidate.

        ``dead`` has a row per candidate (the options of the cover it drops);
        returns a row of :data:`N_E` sums per candidate.
        """
        out = np.zeros((dead.shape[0], N_E), dtype=np.float64)
        sample_pipeline(self, np.ascontiguousarray(dead[:, self.renumber]), trials, seed, depth, out)
        return out


warmup.register("sampler", tiny_sample, 3.2)
