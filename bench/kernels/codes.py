"""What both DLX kernels and FILA share: return codes, phases, state slots and the recording of a cover."""

from __future__ import annotations

from bench.toolchain.registry import njit
from bench.kernels.canonical import classify_cover

# kernel return codes
DONE, PAUSED, FULL_STOP, BUFFER_FULL, TRACE, HANDOFF = 0, 1, 2, 3, 4, 5
# phases
FORWARD, TRY, MULTI, BACKUP = 0, 1, 2, 3
# slots of the int64 state array; S_PROBES counts the images FILA's e and s test while choosing a hole (their
# tightest-hole scan, which ``attempts`` leaves out), so that a schedule's work is priced without a clock
S_LEVEL, S_PHASE, S_NODES, S_UPDATES, S_COVERS, S_UNIQUE, S_TOTAL, S_STORED, S_TRACE_KIND, S_DEAD, S_PROBES = range(11)
N_STATE = 11


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
