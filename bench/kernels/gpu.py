"""The GPU engine's search: a bitboard first-open-cell search, split on the host, finished on the device.

**The search.**  The cover's cells are the bits of an occupancy board of one
or two 64-bit words (up to :data:`MAX_CELLS` cells), numbered in the
puzzle's scan order (:attr:`~bench.models.puzzle.Puzzle.scan_rank`, the
order of FILA's ``f``).  Every node fills the lowest open bit (de Bruijn's
order): a placement that covers it has that bit as its lowest, so the
placements are sorted by their lowest bit and a node tries the run
``gstart[b]:gend[b]`` of its bit only.  Each placement is one option: its
cells as mask words, its shape (the option's one item that is not a cell).
Identical pieces are one shape with a count (``rem``, from the item's
upper bound), so their permutations are never searched; a shape whose count
is used up leaves the ``avail`` bit mask.  A full board is a cover once
every shape has reached its lower bound (``short``: pieces still owed to
the lower bounds, which spare pieces make smaller than the pieces left).

**The first piece.**  Below the root the search fills the lowest open
cell, whatever is on the board, so the root may place any piece first:
the host estimates the tree (Knuth's random paths, :func:`sample_levels`)
with each shape that has exactly one piece, which every cover holds, placed
at the root, and without, and keeps the smallest: on 10x6's cover as FILA's
automatic configuration makes it, the X of the redundancy filter (7
images) first makes 2,091,216 nodes (FILA's own tree, which DLX starts with
the X), filling from the corner 17,641,623.

**One search, three targets.**  :func:`_advance` runs the depth-first
search from its saved state (a :data:`Walk`) over the puzzle's arrays (a
:data:`Board`) until an event (a cover, a node at the split depth, a spent
node budget, the end) with an explicit stack: ``cur[d]`` is the placement
tried at depth ``d``, ``end[d]`` the end of its run.  The
same Python function is compiled by numba for the host (the split, with
:func:`expand`) and by numba-cuda for the device
(:func:`bench.kernels.gpu_device.search_kernel`), where only the count of
trailing zeros and the functions it calls differ
(:func:`bench.kernels.gpu_device._retarget`); the CUDA simulator runs it
as Python.  So the split
and the device visit exactly the same tree.

**The split.**  :func:`expand` walks each parent's subtree down ``steps``
more levels and writes every node it reaches there, or earlier with a
full board, as a sub-problem: a row of placement numbers from the root,
padded with -1.  It counts the nodes above those rows; the device counts
each row's node and everything below it, so the parts add up.  It writes
as many rows as its buffer holds and counts them all: a buffer sized from
the estimate takes one pass, a second pass with the count when it was too
small.  The depth is the first level the estimate gives a quarter of a
sub-problem per resident device thread (fewer for a small tree, so that
the host does not search it; the engine's ``Tuning``): the host
splits little, and the device's cuts do the rest.

**Work distribution.**  A grid of resident threads (as many blocks as fit
on every multiprocessor at once) pulls sub-problems from an atomic counter
(``counts[C_NEXT]``) and searches each with :func:`_advance`, its stacks in
local memory, for at most the launch's node budget.  A walk that reaches
the budget stops before its next node and writes what it has not searched
as new rows (``more``): that node, then for each level from the deepest up
the placements after the one it had tried (a row whose ``starts`` entry
says where its first level resumes; its node was counted already).  They
stay on the device: the next launch takes them, before the split's next
sub-problems (uploaded once), and only a launch's counters and the covers
it stored cross the bus, so no thread holds a launch up for long and a deep subtree is
cut into pieces that other threads take: the first launch, a quarter of the
threads busy, multiplies the rows for the next, and nothing is searched
twice.
Counts are accumulated per thread and added to the launch's ``counts``
once, when the thread runs out of work.

**Covers.**  A cover's symmetry mask (the AND of its options' group masks)
decides most covers at once: 1 means no other group element keeps it in
the filtered cover, so it is canonical with a trivial stabilizer (counted
in ``C_TRIVIAL``).  The others, and every cover when the caller wants them
all (solutions, a solution limit), are written to ``sol_buf`` as option
numbers with the sub-problem they came from, and the host classifies them
exactly (:func:`classify_rows`, :func:`~bench.models.canonical.classify_cover`).
A buffer too small for a launch is noticed from ``counts[C_STORED]`` (or
``counts[C_MORE]``) and the launch is run again with a larger one.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from bench.kernels.canonical import classify_cover
from bench.toolchain.registry import lazy, njit

MAX_CELLS = 128
"""Cells of the largest board: two 64-bit words."""
MAX_SHAPES = 64
"""Shapes with pieces to place: one bit each in ``avail``."""
MAX_DEPTH = MAX_CELLS + 1
"""Levels of the explicit stack: a piece covers at least one cell."""
NEVER = np.int64(1) << np.int64(62)
"""A node budget that is never spent."""

# events of _advance
DONE, COVER, FRONTIER, BUDGET = 0, 1, 2, 3
# phases of the walk
FORWARD, SCAN, BACK = 0, 1, 2
# slots of the uint64 state: the occupancy words and the shapes with pieces left
B_OCC0, B_OCC1, B_AVAIL = 0, 1, 2
N_BITS = 3
# slots of the int64 state
T_PHASE, T_DEPTH, T_SHORT, T_NODES, T_ATTEMPTS = range(5)
N_STATE = 5
# slots of a launch's counters
C_NEXT, C_COVERS, C_TRIVIAL, C_NODES, C_ATTEMPTS, C_STORED, C_MORE, C_CUT, C_MAX_NODES = range(9)
N_COUNTS = 9

ctz64 = lazy("bench.kernels.bitfield_overloads", "_ctz")

# -- argument bundles: built once by the caller, the host's split or each device thread ------------

Board = namedtuple("Board", ["pm0", "pm1", "pshape", "gstart", "gend", "hi", "slack", "short0", "avail0", "full0",
                             "full1", "two"])
"""The puzzle as every walk reads it, never written: each placement's mask words (``pm0``, ``pm1``) and shape
(``pshape``), the run ``gstart[b]:gend[b]`` of placements whose lowest bit is b; per shape its pieces (``hi``) and
spare ones (``slack``); the pieces owed to the lower bounds (``short0``) and the shapes with pieces (``avail0``) at
the root, the board's bits (``full0``, ``full1``) and whether it has a second word (``two``)."""

Walk = namedtuple("Walk", ["bits", "st", "cur", "end", "rem"])
"""Where a walk is, kept between calls of :func:`_advance`: the occupancy and the shapes with pieces left
(``bits``, ``B_*`` slots), its phase, depth, pieces owed and counts (``st``, ``T_*`` slots), the placement tried at
each depth and the end of its run (``cur``, ``end``), and the pieces left of each shape (``rem``)."""


# -- the search, for host and device ---------------------------------------------------------------


def _place(k, occ0, occ1, avail, short, rem, pm0, pm1, pshape, slack, two):
    """Placement ``k`` on the board: the new occupancy, shapes with pieces left and pieces owed to the lower bounds."""
    occ0 |= pm0[k]
    if two:
        occ1 |= pm1[k]
    s = pshape[k]
    r = rem[s]
    if r > slack[s]:
        short -= 1
    rem[s] = r - 1
    if r == 1:
        avail &= ~(np.uint64(1) << s)
    return occ0, occ1, avail, short


def _enter(subs, starts, i, walk, board):
    """Set the :data:`Walk` to sub-problem ``i`` of the :data:`Board`; returns how many placements its row holds.

    Row ``subs[i]`` holds the placements from the root, -1 padded.  With
    ``starts[i] < 0`` the walk starts at that node, counting it; otherwise
    the node was counted where an earlier walk was cut, and the walk tries
    its lowest open cell's placements from ``starts[i]`` on.
    """
    # read through the bundles: once a sub-problem, where _advance's loop takes their fields as locals
    rem = walk.rem
    st = walk.st
    hi = board.hi
    for s in range(hi.shape[0]):
        rem[s] = hi[s]
    occ0 = ~board.full0
    occ1 = ~board.full1
    avail = board.avail0
    short = board.short0
    base = 0
    for t in range(subs.shape[1]):
        k = subs[i, t]
        if k < 0:
            break
        occ0, occ1, avail, short = place(k, occ0, occ1, avail, short, rem, board.pm0, board.pm1, board.pshape,
                                         board.slack, board.two)
        base += 1
    walk.bits[B_OCC0] = occ0
    walk.bits[B_OCC1] = occ1
    walk.bits[B_AVAIL] = avail
    st[T_PHASE] = FORWARD
    start = starts[i]
    if start >= 0:
        free = ~occ0
        b = np.uint64(ctz64(free)) if free != np.uint64(0) else np.uint64(64 + ctz64(~occ1))
        walk.cur[0] = start
        walk.end[0] = board.gend[b]
        st[T_PHASE] = SCAN
    st[T_DEPTH] = 0
    st[T_SHORT] = short
    st[T_NODES] = 0
    st[T_ATTEMPTS] = 0
    return base


def _advance(walk, board, stop_depth, budget):
    """Walk on from the saved :data:`Walk` over the :data:`Board` to an event: DONE, COVER, FRONTIER or BUDGET.

    ``stop_depth >= 0`` (the split): a node that deep, or with a full
    board, is a FRONTIER, not counted, and not entered.  Otherwise a node
    past the ``budget`` is a BUDGET, not counted, and the walk cannot go on;
    the others are counted, a full board a COVER when no lower bound is owed.  After
    COVER or FRONTIER the placements of the node are ``cur[:st[T_DEPTH]]``
    and the next call resumes the walk.  ``two``: the board has a second
    word (``pm1``, ``bits[B_OCC1]``).
    """
    bits = walk.bits
    st = walk.st
    cur = walk.cur
    end = walk.end
    rem = walk.rem
    pm0 = board.pm0
    pm1 = board.pm1
    pshape = board.pshape
    gstart = board.gstart
    gend = board.gend
    slack = board.slack
    two = board.two
    zero = np.uint64(0)
    one = np.uint64(1)
    # unsigned depths and indices spare numba's correction of negative indices at every access
    split = stop_depth >= 0
    stop = np.uint64(stop_depth if split else 0)
    occ0 = bits[B_OCC0]
    occ1 = bits[B_OCC1]
    avail = bits[B_AVAIL]
    phase = st[T_PHASE]
    d = np.uint64(st[T_DEPTH])
    short = st[T_SHORT]
    nodes = st[T_NODES]
    attempts = st[T_ATTEMPTS]
    event = DONE
    while True:
        if phase == FORWARD:
            full = (~occ0) == zero and (not two or (~occ1) == zero)
            if split and (d == stop or full):
                phase = BACK
                event = FRONTIER
                break
            if nodes >= budget:
                event = BUDGET
                break
            nodes += 1
            if full:
                phase = BACK
                if short == 0:
                    event = COVER
                    break
            else:
                free = ~occ0
                if free != zero:
                    b = np.uint64(ctz64(free))
                else:
                    b = np.uint64(64 + ctz64(~occ1))
                cur[d] = gstart[b]
                end[d] = gend[b]
                phase = SCAN
        elif phase == SCAN:
            k = np.uint64(cur[d])
            e = np.uint64(end[d])
            placed = False
            while k < e:
                s = pshape[k]
                if ((avail >> s) & one) != zero:
                    attempts += 1
                    if (pm0[k] & occ0) == zero and (not two or (pm1[k] & occ1) == zero):
                        placed = True
                        break
                k += one
            if placed:
                cur[d] = k
                occ0, occ1, avail, short = place(k, occ0, occ1, avail, short, rem, pm0, pm1, pshape, slack, two)
                d += one
                phase = FORWARD
            else:
                phase = BACK
        else:
            if d == zero:
                event = DONE
                break
            d -= one
            k = np.uint64(cur[d])
            s = pshape[k]
            occ0 ^= pm0[k]
            if two:
                occ1 ^= pm1[k]
            r = rem[s] + 1
            rem[s] = r
            if r > slack[s]:
                short += 1
            if r == 1:
                avail |= one << s
            cur[d] = k + one
            phase = SCAN
    bits[B_OCC0] = occ0
    bits[B_OCC1] = occ1
    bits[B_AVAIL] = avail
    st[T_PHASE] = phase
    st[T_DEPTH] = np.int64(d)
    st[T_SHORT] = short
    st[T_NODES] = nodes
    st[T_ATTEMPTS] = attempts
    return event


# -- the host: split, estimate, classify ------------------------------------------------------------

place = njit(inline="always")(_place)
enter = njit(cache=True)(_enter)
advance = njit(cache=True)(_advance)


@njit(cache=True)
def expand(parents, steps, children, board):
    """The sub-problems ``steps`` levels below each row of ``parents`` on the :data:`Board` (see the module docstring).

    Returns ``(rows, nodes, attempts)``: how many rows there are (the
    first ``len(children)`` of them written to ``children``, whose rows
    hold the longest path: the engine's ``Tables.width``), and
    the nodes and attempts above them.
    """
    bits = np.zeros(N_BITS, dtype=np.uint64)
    st = np.zeros(N_STATE, dtype=np.int64)
    cur = np.zeros(MAX_DEPTH, dtype=np.int32)
    end = np.zeros(MAX_DEPTH, dtype=np.int32)
    rem = np.zeros(max(board.hi.shape[0], 1), dtype=np.int32)
    walk = Walk(bits, st, cur, end, rem)
    fresh = np.full(parents.shape[0], -1, dtype=np.int32)
    room = children.shape[0]
    rows = 0
    nodes = 0
    attempts = 0
    for i in range(parents.shape[0]):
        base = enter(parents, fresh, i, walk, board)
        while advance(walk, board, steps, NEVER) != DONE:
            if rows < room:
                d = st[T_DEPTH]
                for t in range(base):
                    children[rows, t] = parents[i, t]
                for t in range(d):
                    children[rows, base + t] = cur[t]
                for t in range(base + d, children.shape[1]):
                    children[rows, t] = -1
            rows += 1
        nodes += st[T_NODES]
        attempts += st[T_ATTEMPTS]
    return rows, nodes, attempts


@njit(cache=True, nogil=True)
def sample_levels(trials, seed, roots, board):
    """Knuth's estimate of the nodes at each depth of the :data:`Board`'s tree, from ``trials`` random paths
    (generator seeded with ``seed``).

    Entry ``d`` of the result estimates the nodes ``d`` placements deep (a
    full board included, whatever it owes to lower bounds).  The root
    places one of the placements ``roots`` when there are any; every other
    node fills the lowest open cell.
    """
    pm0 = board.pm0
    pm1 = board.pm1
    pshape = board.pshape
    gstart = board.gstart
    gend = board.gend
    hi = board.hi
    full0 = board.full0
    full1 = board.full1
    two = board.two
    np.random.seed(seed)
    one = np.uint64(1)
    zero = np.uint64(0)
    levels = np.zeros(MAX_DEPTH + 1, dtype=np.float64)
    rem = np.zeros(max(hi.shape[0], 1), dtype=np.int32)
    fitting = np.zeros(max(pm0.shape[0], 1), dtype=np.int64)
    for _ in range(trials):
        for s in range(hi.shape[0]):
            rem[s] = hi[s]
        occ0 = ~full0
        occ1 = ~full1
        avail = zero
        for s in range(hi.shape[0]):
            if hi[s] > 0:
                avail |= one << np.uint64(s)
        weight = 1.0
        levels[0] += 1.0
        d = 0
        while (~occ0) != zero or (two and (~occ1) != zero):
            free = ~occ0
            b = ctz64(free) if free != zero else 64 + ctz64(~occ1)
            first = d == 0 and roots.shape[0] > 0
            n = 0
            for j in range(roots.shape[0] if first else gend[b] - gstart[b]):
                k = roots[j] if first else gstart[b] + j
                if ((avail >> pshape[k]) & one) != zero and (pm0[k] & occ0) == zero and (pm1[k] & occ1) == zero:
                    fitting[n] = k
                    n += 1
            if n == 0:
                break
            k = fitting[np.random.randint(n)]
            occ0 |= pm0[k]
            occ1 |= pm1[k]
            s = pshape[k]
            rem[s] -= 1
            if rem[s] == 0:
                avail &= ~(one << s)
            weight *= n
            d += 1
            levels[d] += weight
    return levels / max(trials, 1)


@njit(cache=True)
def classify_rows(rows, lengths, opt_ptr, opt_items, n_cells, cell_inv, opt_map, opt_gmask):
    """Each cover's share of the total (0: not canonical), by :func:`~bench.models.canonical.classify_cover`."""
    grid = np.zeros(max(n_cells, 1), dtype=np.int32)
    order = opt_map.shape[0]
    out = np.zeros(rows.shape[0], dtype=np.int64)
    for r in range(rows.shape[0]):
        stab = classify_cover(rows[r], lengths[r], opt_ptr, opt_items, n_cells, cell_inv, opt_map, opt_gmask, grid)
        if stab > 0:
            out[r] = order // stab
    return out
