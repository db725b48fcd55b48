"""The host side of the in-search triggers and filters (:mod:`bench.kernels.constraints`): their arrays, built
for one search from its cover and settings, and what they counted."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.errors import UsageError
from bench.kernels.constraints import (C_FIT_FILTER, C_FIT_ROUNDS, C_ISOLATED_BT, C_PAR_OFFSET, C_PARITY_BT,
                                       C_PARITY_FILTER, C_VOLUME_BT, C_VOLUME_FILTER, COUNTER_NAMES, N_CFG,
                                       ConstraintArgs)
from bench.models.parity import option_parities, parity_monitor


ALL_CONSTRAINTS = dict(parity_backtrack=1, volume_backtrack=1, parity_filter=1, volume_filter=1, fit_filter=1)
"""Every trigger and filter on from the first piece: the settings of the constrained kernel's tiny search."""


def constrained(settings) -> bool:
    """True when ``settings`` turn on a trigger or filter at search nodes (the DLX kernel's ``cons``)."""
    return any(getattr(settings, name) > 0 for name in SETTING_SLOTS)


@dataclass
class Constraints:
    """The arrays the kernels need for the triggers and filters of one search.

    ``args()`` is the tuple both kernels take; ``counters`` is filled in
    by them, a row per :data:`COUNTER_NAMES` entry, by pieces remaining.
    """

    cfg: np.ndarray
    opt_par: np.ndarray
    opt_pstep: np.ndarray
    par_ok: np.ndarray
    shape_size: np.ndarray
    nb_ptr: np.ndarray
    nb: np.ndarray
    counters: np.ndarray
    par_d: np.ndarray
    par_s: np.ndarray
    scratch: tuple

    @property
    def active(self) -> bool:
        """True when a trigger or filter acts at search nodes."""
        return bool(self.cfg[list(SETTING_SLOTS.values())].any())

    def args(self) -> "ConstraintArgs | None":
        """The bundle the DLX kernel takes (see :func:`bench.kernels.sparse_sets.dlx_search`); None when none is active.

        The kernel's specialisation for None compiles without the triggers and filters.
        """
        if not self.active:
            return None
        return ConstraintArgs(self.cfg, self.opt_par, self.opt_pstep, self.par_ok, self.shape_size, self.nb_ptr,
                              self.nb, self.counters, self.par_d, self.par_s, *self.scratch)

    def stats(self) -> dict:
        """Totals and per-level lists of what the triggers and filters did."""
        out = {}
        for row, name in enumerate(COUNTER_NAMES):
            out[name] = int(self.counters[row].sum())
            out[name + "_by_remaining"] = self.counters[row].tolist()
        return out


SETTING_SLOTS = {"parity_backtrack": C_PARITY_BT, "volume_backtrack": C_VOLUME_BT, "parity_filter": C_PARITY_FILTER,
                 "volume_filter": C_VOLUME_FILTER, "fit_filter": C_FIT_FILTER}


def build_constraints(cover, settings, n_pieces: int, depth: int) -> Constraints:
    """The constraint arrays for ``settings`` on ``cover`` (all off: small placeholder arrays).

    Raises
    ------
    UsageError
        When a trigger or filter is asked of a cover that does not come from
        a puzzle (no geometry, no parity), or a count is negative.
    """
    cfg = np.zeros(N_CFG, dtype=np.int64)
    for name, slot in SETTING_SLOTS.items():
        value = getattr(settings, name)
        if value < 0:
            raise UsageError(f"{name.replace('_', '-')} must be >= 0 (pieces remaining), got {value}")
        cfg[slot] = value
    if settings.fit_rounds < 0:
        raise UsageError(f"fit-rounds must be >= 0, got {settings.fit_rounds}")
    cfg[C_FIT_ROUNDS] = settings.fit_rounds
    # FILA's alone: DLX's kernels never read it, so it is not among SETTING_SLOTS (what makes DLX's search constrained)
    if settings.isolated_backtrack < 0:
        raise UsageError(f"isolated-backtrack must be >= 0 (pieces remaining), got {settings.isolated_backtrack}")
    cfg[C_ISOLATED_BT] = settings.isolated_backtrack
    n_cells, n_items, n_opt = cover.n_cells, cover.n_items, cover.n_options
    puzzle = cover.puzzle
    geometric = cfg[C_PARITY_BT] or cfg[C_VOLUME_BT] or cfg[C_PARITY_FILTER] or cfg[C_VOLUME_FILTER]
    if geometric and (puzzle is None or cover.opt_image is None):
        raise UsageError("parity and volume triggers and filters need a cover built from a puzzle")
    if geometric:
        puzzle.require_filled("the parity and volume triggers and filters at search nodes")
    opt_par = np.zeros(n_opt if cfg[C_PARITY_BT] or cfg[C_PARITY_FILTER] else 0, dtype=np.int64)
    opt_pstep = np.zeros_like(opt_par)
    par_ok = np.ones((1, 1), dtype=np.uint8)
    root = (0, 0)
    if len(opt_par):
        monitor = parity_monitor(puzzle)
        opt_par, shape = option_parities(cover)
        opt_pstep = monitor.step[shape]
        par_ok = monitor.ok
        cfg[C_PAR_OFFSET] = monitor.offset
        root = (monitor.target, monitor.root)
    shape_size = np.zeros(n_items - n_cells, dtype=np.int64)
    nb_ptr = np.zeros(1, dtype=np.int32)
    nb = np.zeros(0, dtype=np.int32)
    if cfg[C_VOLUME_BT] or cfg[C_VOLUME_FILTER]:

        shape_size[:] = [s.size for s in puzzle.shapes]
        nb_ptr, nb = puzzle.cell_neighbours
    cells = n_cells if geometric else 0
    scratch = (
        np.zeros(cells, dtype=np.int32),                       # region
        np.zeros(cells + 1, dtype=np.int32),                   # vol
        np.zeros(max(cells, 1), dtype=np.int32),               # stack
        np.zeros(n_items - n_cells, dtype=np.int64),           # counts
        np.zeros(cells + 1, dtype=np.uint8),                    # reach
        np.zeros(cells, dtype=np.int64),                       # mark
        np.zeros(cells + 1, dtype=np.int64),                   # rmark
        np.zeros(n_items if cfg[C_FIT_FILTER] else 0, dtype=np.int64),   # dec
        np.zeros(n_items if cfg[C_FIT_FILTER] else 0, dtype=np.int64),   # tstamp
        np.zeros(n_opt if cfg[C_FIT_FILTER] else 0, dtype=np.int64),     # ostamp
        np.zeros(n_items if cfg[C_FIT_FILTER] else 0, dtype=np.int32),   # tlist
        np.zeros(n_opt if cfg[C_PARITY_FILTER] or cfg[C_VOLUME_FILTER] or cfg[C_FIT_FILTER] else 0,
                 dtype=np.int32),                              # out
    )
    counters = np.zeros((len(COUNTER_NAMES), n_pieces + 1), dtype=np.int64)
    # the region's parity and the monitor state on entering each level
    par_d = np.zeros(depth + 1, dtype=np.int64)
    par_s = np.zeros(depth + 1, dtype=np.int64)
    par_d[0], par_s[0] = root
    return Constraints(cfg, opt_par, opt_pstep, par_ok, shape_size, nb_ptr, nb, counters, par_d, par_s, scratch)
