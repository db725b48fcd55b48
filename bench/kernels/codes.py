"""What both DLX kernels and FILA share: return codes, steps, state slots, argument bundles and the recording of a
cover.

**Bundles.**  The kernels take their arrays in named tuples grouped by
meaning, built once per search by the drivers (:mod:`bench.engines.search`,
:mod:`bench.engines.fila`); a kernel unpacks the fields it reads into locals
on entry, so its loops run on the same arrays as with loose arguments
(numba passes a tuple's fields as separate machine arguments).  One field
a line: numba's dead-code elimination loses an array unpacked with three
others or more in one statement (``a, b, c, d = x.a, x.b, x.c, x.d``
builds and unpacks a tuple, which its alias analysis does not follow) and
drops the stores to it that nothing reads afterwards: the DLX kernel lost
its level and step saved on leaving that way.  The bundles
here mean the same in every kernel; each kernel's own live in its module
(the sparse sets and level stack of :mod:`bench.kernels.sparse_sets`, the
bitsets of :mod:`bench.kernels.bitset`, FILA's lists and stack in
:mod:`bench.kernels.fila`).
"""

from __future__ import annotations

from collections import namedtuple

from bench.toolchain.registry import njit
from bench.kernels.canonical import classify_cover

# kernel return codes
DONE, PAUSED, FULL_STOP, BUFFER_FULL, TRACE, HANDOFF = 0, 1, 2, 3, 4, 5
# the DLX kernels' steps, in the shape of Knuth's DLX1 (TAOCP 7.2.2.1): ENTER a level (X2: a node, a cover, the choice
# and covering of an item, X3 and X4), TRY the item's next option (X5, X6), try the next MULTIple of an item of
# identical pieces (Algorithm M's tweaks), LEAVE the level (X8, undoing the placement one level up: X6 and X7)
ENTER, TRY, MULTI, LEAVE = 0, 1, 2, 3
# how a DLX level branches (``mode[level]``): on EACH option of its item in turn (Algorithm X), on the item's
# largest option with the ones tried before TWEAKED out (identical pieces, Algorithm M), or on a REPLAYED prefix's
# one option (a sub-problem's first levels)
EACH, TWEAKED, REPLAYED = 0, 1, 2
# slots of the int64 state array; S_PROBES counts the images FILA's e and s test while choosing a hole (their
# tightest-hole scan, which ``attempts`` leaves out), so that a schedule's work is priced without a clock
S_LEVEL, S_PHASE, S_NODES, S_UPDATES, S_COVERS, S_UNIQUE, S_TOTAL, S_STORED, S_TRACE_KIND, S_DEAD, S_PROBES = range(11)
N_STATE = 11


# -- argument bundles ---------------------------------------------------------------------------

Matrix = namedtuple("Matrix", ["opt_ptr", "opt_items", "lo", "hi", "n_cells", "n_pieces"])
"""The exact-cover matrix as the kernels read it: option o covers the items ``opt_items[opt_ptr[o]:opt_ptr[o + 1]]``,
item i between ``lo[i]`` and ``hi[i]`` times; the first ``n_cells`` items are cells, and a cover places
``n_pieces`` pieces."""

Counters = namedtuple("Counters", ["state", "attempts", "fits", "updates_by"])
"""What a search counts and where it is: the ``state`` slots (``S_*``), and attempts, fits and list updates per
number of pieces remaining (FILA adds to its DLX search's)."""

Order = namedtuple("Order", ["kind", "table", "rank"])
"""DLX's ordering heuristic per number of pieces remaining (:class:`~bench.kernels.heuristics.CompiledOrder`)."""

Symmetry = namedtuple("Symmetry", ["cell_inv", "opt_map", "opt_gmask", "grid", "classify"])
"""What classifies a cover (:func:`~bench.kernels.canonical.classify_cover`): the symmetry group's cell and option
maps, a scratch ``grid``, and ``classify``: whether complete covers are classified (unique and total counted)."""

Sink = namedtuple("Sink", ["sol_buf", "sol_len", "sol_weight", "stream", "max_solutions", "goal"])
"""Where solutions go: the buffer of covers found (options, length, orbit weight), drained by the driver when
``stream`` is set; the search stops after ``max_solutions`` (0: no limit).  With ``goal`` > 0 a node with that
many pieces left counts as a solution (a partial cover), and the search backs up there."""

PathArgs = namedtuple("PathArgs", ["base", "force_opt", "force_ex_ptr", "force_ex", "first_item", "sample", "seed",
                                   "sprod", "est"])
"""Where a DLX search starts and how it walks: the first ``base`` levels replay a sub-problem's prefix
(``force_opt``, ``force_ex_ptr``, ``force_ex``); the root branches on ``first_item`` unless it is negative; with
``sample`` set each node takes one random branch, ``sprod`` and ``est`` accumulating Knuth's estimate (see
:func:`~bench.kernels.sparse_sets.dlx_search`), the kernel seeding its generator with ``seed`` first unless it is
negative."""


# -- counting a cover -------------------------------------------------------------------


@njit(cache=True, no_cpython_wrapper=True)
def traced(trace, placed, left):
    """Whether a trace reports this step: ``trace`` > 0 prints the placements and removals with at least ``trace``
    pieces left (``placed``: just placed, counting the piece), < 0 the placements that leave exactly ``-trace``; one
    rule for DLX and FILA, so that a trace reads the same across a hand-off."""
    if placed:
        return (trace > 0 and left >= trace - 1) or (trace < 0 and left == 1 - trace)
    return trace > 0 and left >= trace


# called by kernels only: without the Python wrapper numba would make (and optimise, and compile to machine code) in
# every library that calls it, for no caller
@njit(cache=True, no_cpython_wrapper=True)
def record_cover(chosen, n, done, state, matrix, symmetry, sink):
    """Count the cover ``chosen[:n]`` in ``state`` and buffer it in the :data:`Sink` while the buffer has room.

    Returns FULL_STOP once ``max_solutions`` covers are found, BUFFER_FULL
    when ``stream`` is set and the buffer needs draining, else DONE (go on).

    A ``done`` (complete) cover is classified (:func:`classify_cover`) when
    the :data:`Symmetry` says so: it adds to unique and total when
    canonical, and is buffered with its orbit share as weight (0 when not
    canonical).  The native kernels call this at each cover they find,
    which is rare next to the nodes they visit.
    """
    opt_map = symmetry.opt_map
    sol_buf = sink.sol_buf
    state[S_COVERS] += 1
    weight = 1
    if symmetry.classify and done:
        stab = classify_cover(chosen, n, matrix.opt_ptr, matrix.opt_items, matrix.n_cells, symmetry.cell_inv, opt_map,
                              symmetry.opt_gmask, symmetry.grid)
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
        sink.sol_len[stored] = n
        sink.sol_weight[stored] = weight
        state[S_STORED] = stored + 1
    if sink.max_solutions > 0 and state[S_COVERS] >= sink.max_solutions:
        return FULL_STOP
    if sink.stream and state[S_STORED] == sol_buf.shape[0]:
        return BUFFER_FULL
    return DONE
