"""The GPU engine: a bitboard first-open-cell search on an NVIDIA GPU with numba-cuda (the ``gpu`` extra).

The search, its layout on the device, the split and the distribution of the
work are described in :mod:`bench.kernels.gpu`; the kernel itself is in
:mod:`bench.kernels.gpu_device`.  This module holds what runs without
numba-cuda: the engine, the check of which covers the search
can take (:func:`build_tables`, :func:`unsupported`), whether a device is
there (:func:`device_probe`), and the host's side of a solve
(:class:`GpuSearch`): the split, the launches in batches, the covers
classified, the limits and signals between launches.

**Where the device is.**  A CUDA driver initialized in a process is lost to
the children it forks (numba refuses them), and ``bench run`` solves in
forked children.  So nothing here touches the driver before a solve: the
probe runs in a child process of its own, and :meth:`GpuEngine.warm_up`
compiles the host's kernels only; the device kernel is compiled (or loaded
from numba-cuda's cache) inside the solve, and its seconds are reported as
``compile``.  With ``NUMBA_ENABLE_CUDASIM=1`` numba-cuda's simulator runs
the same kernel as Python threads: the engine is then available on any
machine, which is how the tests run it (slowly: tiny puzzles only).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from bench.engines.protocol import Engine, Limits, Result, Settings, Status
from bench.errors import Unsupported
from bench.kernels import gpu as kernel
from bench.kernels.codes import N_STATE, S_COVERS, S_NODES
from bench.kernels.gpu import MAX_CELLS, MAX_SHAPES
from bench.system import signals

SIMULATOR = "NUMBA_ENABLE_CUDASIM"
"""numba-cuda's switch to its CPU simulator, read once, when ``numba.cuda`` is imported."""


# -- which covers ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Tables:
    """A cover as the search's arrays (see :mod:`bench.kernels.gpu`).

    Placements (options) are sorted by their lowest bit, then shape, then
    option: ``pm0``/``pm1`` their mask words, ``pshape`` their shape,
    ``pgmask`` their group masks, ``popt`` their option numbers
    (``place_of`` is its inverse); ``gstart[b]:gend[b]`` the run of bit
    ``b``.  Per shape: ``hi`` the pieces, ``slack`` the spare ones
    (``hi - lo``); ``short0`` the pieces owed to the lower bounds,
    ``avail0`` the shapes with pieces, ``full0``/``full1`` the board's bits;
    ``width`` the most placements a cover holds, ``order`` the group's.
    """

    pm0: np.ndarray
    pm1: np.ndarray
    pshape: np.ndarray
    pgmask: np.ndarray
    popt: np.ndarray
    place_of: np.ndarray
    gstart: np.ndarray
    gend: np.ndarray
    hi: np.ndarray
    slack: np.ndarray
    short0: int
    avail0: np.uint64
    full0: np.uint64
    full1: np.uint64
    two: bool
    width: int
    order: int

    def board(self) -> kernel.Board:
        """What the host's search reads of the tables: its :data:`~bench.kernels.gpu.Board`."""
        return kernel.Board(self.pm0, self.pm1, self.pshape, self.gstart, self.gend, self.hi, self.slack, self.short0,
                            self.avail0, self.full0, self.full1, self.two)


def _words(bits: np.ndarray, word: int) -> np.ndarray:
    """Each bit's mask in word ``word`` (0 for bits of the other word)."""
    inside = (bits >= 64 * word) & (bits < 64 * (word + 1))
    shift = np.where(inside, bits - 64 * word, 0).astype(np.uint64)
    return np.where(inside, np.left_shift(np.uint64(1), shift), np.uint64(0)).astype(np.uint64)


def build_tables(cover) -> Tables:
    """The search's arrays for ``cover``.

    Raises
    ------
    Unsupported
        For a cover the search cannot take, saying why: no cells, more than
        :data:`MAX_CELLS` cells or :data:`MAX_SHAPES` shapes, a cell that
        may stay empty, Knuth's colours, or an option that is not cells and
        exactly one piece item.
    """
    n_cells = cover.n_cells
    if n_cells == 0:
        raise Unsupported("gpu fills a board of cells; this cover has no cell items")
    if np.any(cover.item_lo[:n_cells] != 1):
        # the search fills the first open cell at every node: a cell left empty is never skipped
        raise Unsupported("gpu fills every open cell, and this cover has cells that may stay empty (optional cells)")
    if cover.opt_colour is not None:
        raise Unsupported("gpu has no colours (Knuth's, on items options may share)")
    if n_cells > MAX_CELLS:
        raise Unsupported(f"gpu searches boards of at most {MAX_CELLS} cells (two 64-bit words); this one has "
                          f"{n_cells}")
    n_shapes = cover.n_items - n_cells
    if n_shapes > MAX_SHAPES:
        raise Unsupported(f"gpu counts the pieces of at most {MAX_SHAPES} shapes; this cover has {n_shapes}")
    ptr, items = cover.opt_ptr, cover.opt_items
    n_options = cover.n_options
    is_cell = items < n_cells
    cells_per = np.add.reduceat(is_cell.astype(np.int64), ptr[:-1]) if n_options else np.zeros(0, np.int64)
    others = np.diff(ptr) - cells_per
    if np.any(cells_per == 0):
        o = int(np.flatnonzero(cells_per == 0)[0])
        raise Unsupported(f"gpu places pieces on cells; option {o} covers no cell")
    if np.any(others != 1):
        o = int(np.flatnonzero(others != 1)[0])
        raise Unsupported(f"gpu needs every option to be cells and exactly one piece item; option {o} has "
                          f"{int(others[o])}")
    # the board in the scan order of FILA's f: a first-open-cell search fills along the shortest side
    bit_of = np.asarray(cover.puzzle.scan_rank, dtype=np.int64) if cover.puzzle is not None else np.arange(n_cells)
    bits = bit_of[items[is_cell]]
    starts = np.zeros(n_options, dtype=np.int64)
    np.cumsum(cells_per[:-1], out=starts[1:])
    words = [np.bitwise_or.reduceat(_words(bits, w), starts) if n_options else np.zeros(0, np.uint64)
             for w in (0, 1)]
    lowest = np.minimum.reduceat(bits, starts) if n_options else np.zeros(0, np.int64)
    shape = (items[ptr[1:] - 1] - n_cells).astype(np.int64)
    perm = np.lexsort((np.arange(n_options), shape, lowest))
    place_of = np.empty(n_options, dtype=np.int32)
    place_of[perm] = np.arange(n_options, dtype=np.int32)
    runs = np.bincount(lowest, minlength=MAX_CELLS)
    gend = np.cumsum(runs).astype(np.int32)
    gstart = (gend - runs).astype(np.int32)
    hi = np.ascontiguousarray(cover.item_hi[n_cells:], dtype=np.int32)
    lo = np.ascontiguousarray(cover.item_lo[n_cells:], dtype=np.int32)
    board = _words(np.arange(n_cells), 0), _words(np.arange(n_cells), 1)
    return Tables(
        pm0=np.ascontiguousarray(words[0][perm]), pm1=np.ascontiguousarray(words[1][perm]),
        pshape=shape[perm].astype(np.uint64),
        pgmask=np.ascontiguousarray(cover.symmetry.opt_gmask[perm], dtype=np.uint64),
        popt=perm.astype(np.int32), place_of=place_of, gstart=gstart, gend=gend, hi=hi,
        slack=(hi - lo).astype(np.int32), short0=int(lo.sum()),
        avail0=np.uint64(np.bitwise_or.reduce(np.left_shift(np.uint64(1), np.flatnonzero(hi > 0).astype(np.uint64)),
                                              initial=np.uint64(0))),
        full0=np.uint64(np.bitwise_or.reduce(board[0], initial=np.uint64(0))),
        full1=np.uint64(np.bitwise_or.reduce(board[1], initial=np.uint64(0))),
        two=n_cells > 64, width=max(min(int(hi.sum()), n_cells), 1), order=cover.symmetry.order)


def unsupported(cover) -> str | None:
    """Why the GPU search cannot take ``cover``, or None when it can."""
    try:
        build_tables(cover)
    except Unsupported as exc:
        return str(exc)
    return None


# -- the device --------------------------------------------------------------------------------------


def simulated() -> bool:
    """True when numba-cuda runs (or will run, once imported) its CPU simulator instead of a device."""
    module = sys.modules.get("numba.cuda")
    if module is not None and hasattr(module, "config"):
        return bool(module.config.ENABLE_CUDASIM)
    return os.environ.get(SIMULATOR, "0").strip() not in ("", "0")


_PROBE = """
import json
from numba import cuda
error = None
if not cuda.is_available():
    error = " ".join(str(cuda.cuda_error() or "").split()) or "no NVVM"
print(json.dumps({"error": error}))
"""

_probed: list = []


def device_probe() -> tuple[bool, str]:
    """Whether a CUDA device, its driver and NVVM are there, and if not why; asked once per process.

    Asked in a child process, so that this one has not initialized the
    driver (see the module docstring).  The simulator needs no device.
    """
    if simulated():
        return True, "the CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"
    if not _probed:
        env = {k: v for k, v in os.environ.items() if k != SIMULATOR}
        try:
            done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120,
                                  env=env)
            error = json.loads(done.stdout.strip().splitlines()[-1])["error"] if done.returncode == 0 else \
                (done.stderr.strip().splitlines() or ["the probe failed"])[-1]
        except (OSError, subprocess.TimeoutExpired, ValueError, IndexError, KeyError) as exc:
            error = f"the probe failed: {exc}"
        if error is None:
            _probed.append((True, "a CUDA device"))
        elif error == "no NVVM":
            _probed.append((False, "no CUDA toolkit's NVVM library found: install numba-cuda[cu12] or "
                                   "numba-cuda[cu13] for the driver's CUDA version (docs/gpu.md)"))
        else:
            _probed.append((False, f"no CUDA device or driver: {error}"))
    return _probed[0]


# -- the host's side of a solve ------------------------------------------------------------------


@dataclass(frozen=True)
class Tuning:
    """How the search is cut and launched; none of it changes the counts.

    ``split``: sub-problems per resident thread the host's split aims at (at
    most one per ``grain`` estimated nodes of the tree): the device's cuts
    make the rest; ``budget``: the nodes a walk may search in one launch
    before it is cut; ``buffer``: the covers and continued rows a launch
    can return at first; ``max_rows``: the most sub-problems a launch or a
    split holds, and covers a launch returns; ``launch_seconds``: what a
    launch should last, so that limits and signals are honoured between
    launches; ``trials`` and ``seed``: the random paths of the estimates.
    """

    split: float = 0.25
    grain: int = 64
    budget: int = 1 << 8
    buffer: int = 1 << 12
    max_rows: int = 1 << 21
    launch_seconds: float = 0.2
    trials: int = 1000
    seed: int = 1


DEVICE_TABLES = ("pm0", "pm1", "pshape", "pgmask", "popt", "gstart", "gend", "hi", "slack")
"""The tables the kernel reads, copied to the device once per solve."""
SIMULATOR_GRID = (2, 4)
"""The simulator's grid: every thread is a Python thread."""
THREADS_PER_BLOCK = 128


@dataclass
class Outcome:
    """What the search counted, and the covers it hands back."""

    covers: int = 0
    unique: int = 0
    total: int = 0
    nodes: int = 0
    attempts: int = 0
    kept: list = field(default_factory=list)


def rows_of(rows) -> int:
    """How many rows a device (or host) array holds; 0 for None."""
    return 0 if rows is None else rows.shape[0]


class GpuSearch:
    """One solve on the device: the split, the launches, the covers, the limits (see the module docstring)."""

    def __init__(self, cover, tables: Tables, limits: Limits, on_solutions=None, tuning: Tuning = Tuning()):
        # numba-cuda, imported by a solve only
        from bench.kernels import gpu_device

        self.device = gpu_device
        self.kernel = kernel
        self.cover = cover
        self.tables = tables
        self.limits = limits
        self.on_solutions = on_solutions
        self.tuning = tuning
        # covers come back to the host when the caller wants them, or to cut the count at the limit exactly
        self.store_all = on_solutions is not None or limits.keep_solutions > 0 or limits.max_solutions is not None
        self.out = Outcome()
        self.pool: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.state = np.zeros(N_STATE, dtype=np.int64)
        self.timings = {"compile": 0.0, "setup": 0.0, "split": 0.0, "copy": 0.0, "kernel": 0.0, "classify": 0.0}
        self.gpu = {"device": "", "threads": 0, "first_piece": None, "split_depth": 0, "subproblems": 0, "budget": 0,
                    "launches": 0, "reruns": 0, "cut": 0, "continued": 0, "split_nodes": 0,
                    "max_subproblem_nodes": 0}
        self.estimated_nodes = 0
        self.rows = tuning.buffer
        self.more = tuning.buffer
        # a split keeps at least one level of every option
        self.most = max(tuning.max_rows, len(tables.popt))
        self.batch = 0
        self.budget = tuning.budget
        self.solve_seconds = 0.0

    # -- set-up

    def _device(self) -> None:
        """Copy the tables to the device, compile (or load) the kernel with an empty launch and size the grid."""
        cuda = self.device.cuda
        t = self.tables
        start = time.perf_counter()
        self.dev = {name: cuda.to_device(getattr(t, name)) for name in DEVICE_TABLES}
        self.timings["copy"] += time.perf_counter() - start
        start = time.perf_counter()
        self._run(np.full((1, t.width), -1, dtype=np.int32), np.full(1, -1, dtype=np.int32), 0, (1, 1), timed=False)
        self.timings["compile"] += time.perf_counter() - start
        if simulated():
            self.grid = SIMULATOR_GRID
        else:
            compiled = list(self.device.search_kernel.overloads.values())[-1]
            self.grid = (compiled.max_cooperative_grid_blocks(THREADS_PER_BLOCK), THREADS_PER_BLOCK)
        device = cuda.get_current_device()
        name = getattr(device, "name", b"simulator")
        self.gpu["device"] = name.decode() if isinstance(name, bytes) else str(name)
        self.gpu["threads"] = self.threads = self.grid[0] * self.grid[1]
        self.batch = 2 * self.threads

    def _expand(self, parents: np.ndarray, steps: int, guess: int) -> np.ndarray | None:
        """The sub-problems ``steps`` below ``parents``, as full-width rows, or None when they are too many.

        A buffer of ``guess`` rows first, of the exact count if that was too
        few.  The nodes above the rows are counted here.
        """
        k, t, most = self.kernel, self.tables, self.most
        start = time.perf_counter()
        board = t.board()
        room = min(max(guess, 1), most)
        while True:
            # zeros: untouched pages of a generous guess cost no memory
            children = np.zeros((room, t.width), dtype=np.int32)
            rows, nodes, attempts = k.expand(parents, steps, children, board)
            if rows <= room or rows > most:
                break
            room = rows
        self.timings["split"] += time.perf_counter() - start
        if rows > most:
            return None
        self.out.nodes += nodes
        self.out.attempts += attempts
        self.gpu["split_nodes"] += nodes
        return children[:rows]

    def _first_split(self) -> np.ndarray:
        """The sub-problems of the first launch: the tree cut at the first level with ``split`` per thread.

        The root places the piece of the shape whose placements make the
        smallest tree, by the estimates, or fills the lowest open cell if
        that is smaller (a shape with one piece, which every cover holds:
        the redundancy filter's piece, most often).  A small tree is cut
        shallower, so that the host does not search it.
        """
        k, t, tuning = self.kernel, self.tables, self.tuning
        start = time.perf_counter()
        single = np.flatnonzero((t.hi == 1) & (t.slack == 0))
        placements = {-1: np.zeros(0, dtype=np.int64)}
        placements.update({int(s): np.flatnonzero(t.pshape == np.uint64(s)) for s in single})
        board = t.board()
        # one estimate per core at a time: the kernel releases the GIL, and seeds its own thread's generator
        with ThreadPoolExecutor(min(len(placements), os.cpu_count() or 1)) as pool:
            found = pool.map(lambda roots: k.sample_levels(tuning.trials, tuning.seed, roots, board),
                             placements.values())
            estimates = dict(zip(placements, found))
        first = min(estimates, key=lambda f: (estimates[f].sum(), f))
        levels = estimates[first]
        self.timings["setup"] += time.perf_counter() - start
        self.estimated_nodes = int(levels.sum())
        target = min(tuning.split * self.threads, levels.sum() / tuning.grain)
        deep = np.flatnonzero(levels[1:] >= target)
        depth = int(deep[0]) + 1 if len(deep) else int(np.argmax(levels[1:])) + 1
        if first >= 0:
            # the root's children: every placement of that shape, in the order of their numbers
            roots = placements[first].astype(np.int32)[:, None]
            self.out.nodes += 1
            self.out.attempts += len(roots)
            self.gpu["split_nodes"] += 1
            self.gpu["first_piece"] = self.cover.item_names[self.cover.n_cells + int(first)]
        else:
            roots = np.zeros((1, 0), dtype=np.int32)
        while True:
            steps = depth - roots.shape[1]
            if steps == 0:
                rows = np.full((len(roots), t.width), -1, dtype=np.int32)
                rows[:, :roots.shape[1]] = roots
                break
            rows = self._expand(roots, steps, int(1.25 * levels[depth]) + 1024)
            if rows is not None:
                break
            depth -= 1
        self.gpu.update(split_depth=depth, subproblems=len(rows), budget=self.budget)
        return rows

    # -- launches

    def _upload(self, rows: np.ndarray) -> tuple:
        """The split's rows on the device, with their starts (-1: each row's node is searched whole); None if none."""
        if not len(rows):
            return None, None
        cuda = self.device.cuda
        start = time.perf_counter()
        uploaded = cuda.to_device(rows), cuda.to_device(np.full(len(rows), -1, dtype=np.int32))
        self.timings["copy"] += time.perf_counter() - start
        return uploaded

    def _join(self, first, second):
        """The device rows ``first`` then ``second`` (None: no rows) as one device array, None if both are none."""
        if rows_of(first) == 0:
            return second
        if rows_of(second) == 0:
            return first
        start = time.perf_counter()
        n = first.shape[0]
        joined = self.device.cuda.device_array((n + second.shape[0],) + tuple(first.shape[1:]), dtype=first.dtype)
        joined[:n].copy_to_device(first)
        joined[n:].copy_to_device(second)
        self.timings["copy"] += time.perf_counter() - start
        return joined

    def _run(self, subs, starts, n: int, grid: tuple, timed: bool = True) -> tuple:
        """One launch over ``subs[:n]`` with the buffers as they are; returns its counts, the rows it leaves (on the
        device, None for none) and the host copies of the covers it stored.

        ``subs`` and ``starts`` are on the device, or host arrays copied
        there first.  ``timed``: its copies and kernel count in the copy
        and kernel seconds (not the launch that compiles the kernel).
        """
        cuda, k, t = self.device.cuda, self.kernel, self.tables
        start = time.perf_counter()
        if isinstance(subs, np.ndarray):
            subs, starts = cuda.to_device(subs), cuda.to_device(starts)
        counts = cuda.to_device(np.zeros(k.N_COUNTS, dtype=np.int64))
        more = cuda.device_array((self.more, t.width), dtype=np.int32)
        more_starts = cuda.device_array(self.more, dtype=np.int32)
        sol_buf = cuda.device_array((self.rows, t.width), dtype=np.int32)
        sol_len = cuda.device_array(self.rows, dtype=np.int32)
        sol_sub = cuda.device_array(self.rows, dtype=np.int32)
        copied = time.perf_counter()
        self.device.search_kernel[grid](*self.arguments(subs, starts, n, counts, more, more_starts, sol_buf, sol_len,
                                                        sol_sub))
        cuda.synchronize()
        ran = time.perf_counter()
        host = counts.copy_to_host()
        stored = int(min(host[k.C_STORED], self.rows))
        continued = int(min(host[k.C_MORE], self.more))
        # the rows left stay on the device for the next launch: only counts and covers cross the bus
        out = (host, more[:continued] if continued else None, more_starts[:continued] if continued else None,
               sol_buf[:stored].copy_to_host() if stored else np.zeros((0, t.width), dtype=np.int32),
               sol_len[:stored].copy_to_host() if stored else np.zeros(0, dtype=np.int32),
               sol_sub[:stored].copy_to_host() if stored else np.zeros(0, dtype=np.int32))
        if timed:
            self.timings["copy"] += copied - start + time.perf_counter() - ran
            self.timings["kernel"] += ran - copied
        return out

    def arguments(self, subs, starts, n: int, counts, more, more_starts, sol_buf, sol_len, sol_sub) -> tuple:
        """The kernel's arguments: a launch's arrays, with the tables (``self.dev``) and the search's scalars."""
        t, d = self.tables, self.dev
        return (subs, starts, n, d["pm0"], d["pm1"], d["pshape"], d["pgmask"], d["popt"], d["gstart"], d["gend"],
                d["hi"], d["slack"], t.short0, t.avail0, t.full0, t.full1, t.two, self.budget, self.store_all, counts,
                more, more_starts, sol_buf, sol_len, sol_sub)

    def _launch(self, subs, starts) -> tuple:
        """Search ``subs`` (device rows) and count what they hold; returns the rows (and starts) left to search, on
        the device (None for none).

        A launch whose covers or continued rows overflow their buffers runs
        again with larger ones; past ``max_rows`` covers it runs in halves
        (a sub-problem finds at most its node budget of them).
        """
        k, tuning = self.kernel, self.tuning
        # room for a few rows a sub-problem: a walk cut at depth d leaves at most d + 1
        n = subs.shape[0]
        self.more = max(self.more, 4 * n)
        while True:
            start = time.perf_counter()
            counts, more, more_starts, rows, lengths, origin = self._run(subs, starts, n, self.grid)
            elapsed = time.perf_counter() - start
            self.gpu["launches"] += 1
            wanted, continued = int(counts[k.C_STORED]), int(counts[k.C_MORE])
            if wanted <= self.rows and continued <= self.more:
                break
            self.gpu["reruns"] += 1
            if continued > self.more:
                self.more = continued + continued // 4
            if wanted > tuning.max_rows:
                half = n // 2
                first = self._launch(subs[:half], starts[:half])
                second = self._launch(subs[half:], starts[half:])
                return self._join(first[0], second[0]), self._join(first[1], second[1])
            if wanted > self.rows:
                self.rows = min(max(wanted + wanted // 4, 2 * self.rows), tuning.max_rows)
        self.out.nodes += int(counts[k.C_NODES])
        self.out.attempts += int(counts[k.C_ATTEMPTS])
        self.gpu["cut"] += int(counts[k.C_CUT])
        self.gpu["continued"] += continued
        self.gpu["max_subproblem_nodes"] = max(self.gpu["max_subproblem_nodes"], int(counts[k.C_MAX_NODES]))
        self._count(int(counts[k.C_COVERS]), int(counts[k.C_TRIVIAL]), rows, lengths, origin)
        # launches of about launch_seconds: at most 8 times the last, at least one sub-problem per thread
        per = elapsed / max(n, 1)
        self.batch = int(min(max(tuning.launch_seconds / max(per, 1e-9), self.threads), 8 * max(self.batch, 1),
                             tuning.max_rows))
        return more, more_starts

    def _count(self, covers: int, trivial: int, rows: np.ndarray, lengths: np.ndarray, origin: np.ndarray) -> None:
        """Count one launch's covers: the device's counts, the returned covers classified here."""
        t, cover = self.tables, self.cover
        start = time.perf_counter()
        # in sub-problem order, each one's covers in the order its thread found them
        order = np.argsort(origin, kind="stable")
        rows, lengths = rows[order], lengths[order]
        sym = cover.symmetry
        weights = self.kernel.classify_rows(rows, lengths, cover.opt_ptr, cover.opt_items, cover.n_cells, sym.cell_inv,
                                            sym.opt_map, sym.opt_gmask)
        self.timings["classify"] += time.perf_counter() - start
        if not self.store_all:
            self.out.covers += covers
            self.out.unique += trivial + int(np.count_nonzero(weights))
            self.out.total += trivial * t.order + int(weights.sum())
            return
        if len(rows) != covers:
            raise RuntimeError(f"gpu: the device counted {covers} covers and returned {len(rows)}")
        if self.limits.max_solutions is not None:
            self.pool.append((rows, lengths, weights))
        else:
            self._hand(rows, lengths, weights)

    def _hand(self, rows: np.ndarray, lengths: np.ndarray, weights: np.ndarray) -> None:
        """Count returned covers and hand them to the caller."""
        out = self.out
        out.covers += len(rows)
        out.unique += int(np.count_nonzero(weights))
        out.total += int(weights.sum())
        batch = [rows[r, : lengths[r]].copy() for r in range(len(rows))]
        if len(out.kept) < self.limits.keep_solutions:
            out.kept.extend(batch[: self.limits.keep_solutions - len(out.kept)])
        if self.on_solutions is not None and batch:
            self.on_solutions(batch, weights.tolist())

    def _settle_pool(self, cut: bool) -> None:
        """Hand the covers kept for a solution limit over in search order, the first ``max_solutions`` if ``cut``."""
        if not self.pool:
            return
        rows = np.concatenate([r for r, _, _ in self.pool])
        lengths = np.concatenate([n for _, n, _ in self.pool])
        weights = np.concatenate([w for _, _, w in self.pool])
        self.pool = []
        # the depth-first search meets covers in the order of their placements' numbers, level by level
        paths = np.where(np.arange(rows.shape[1])[None, :] < lengths[:, None], self.tables.place_of[rows], -1)
        order = np.lexsort(paths.T[::-1])
        if cut:
            order = order[: self.limits.max_solutions]
        self._hand(rows[order], lengths[order], weights[order])

    # -- the run

    def run(self) -> Status:
        """Search until done, a limit or a signal stops it; every cover found by then is handed over.

        Rows a launch leaves to search go first into the next one, beside
        the next sub-problems of the split; under a solution limit they
        have the next launches to themselves, so that once none is left,
        every cover before the next sub-problem has been found.
        """
        status = Status.SOLVED
        begin = time.perf_counter()
        limits = self.limits
        monitor = _monitor()
        mix = limits.max_solutions is None
        try:
            with signals.polled():
                self._device()
                start = time.perf_counter()
                split, split_starts = self._upload(self._first_split())
                pos, n_split = 0, rows_of(split)
                # the rows walks left, on the device: each launch takes its batch from them and puts back its own
                carry = carry_starts = None
                while pos < n_split or rows_of(carry):
                    take = min(rows_of(carry), self.batch)
                    subs, starts = (carry[:take], carry_starts[:take]) if take else (None, None)
                    carry, carry_starts = (carry[take:], carry_starts[take:]) if take < rows_of(carry) else (None, None)
                    if mix or not take:
                        fresh = max(min(n_split - pos, self.batch - take), 0)
                        if fresh:
                            subs = self._join(subs, split[pos: pos + fresh])
                            starts = self._join(starts, split_starts[pos: pos + fresh])
                            pos += fresh
                    more, more_starts = self._launch(subs, starts)
                    carry, carry_starts = self._join(carry, more), self._join(carry_starts, more_starts)
                    self.state[S_NODES] = self.out.nodes
                    self.state[S_COVERS] = self.out.covers + sum(len(r) for r, _, _ in self.pool)
                    if limits.max_solutions is not None and not rows_of(carry) and \
                            self.state[S_COVERS] >= limits.max_solutions:
                        status = Status.LIMIT
                    elif pos >= n_split and not rows_of(carry):
                        break
                    elif signals.stop_requested() is not None:
                        status = Status.INTERRUPTED
                    elif limits.time_limit is not None and time.perf_counter() - start >= limits.time_limit:
                        status = Status.TIMEOUT
                    if status != Status.SOLVED:
                        break
                    if signals.status_requested():
                        signals.write_status(self.status_lines(time.perf_counter() - start))
                    if monitor is not None:
                        monitor(self)
        except KeyboardInterrupt:
            status = Status.INTERRUPTED
        self._settle_pool(cut=status == Status.LIMIT)
        self.solve_seconds = time.perf_counter() - begin - self.timings["compile"]
        return status

    def status_lines(self, seconds: float) -> list[str]:
        """What SIGUSR1 prints: the counts so far, as ``KEY=value`` lines."""
        return ["# status so far (SIGUSR1)", "STATUS=running", f"ELAPSED_SECONDS={seconds:.3f}",
                f"SOLUTIONS={int(self.state[S_COVERS])}", f"NODES={int(self.state[S_NODES])}"]


def _monitor():
    """The progress display watching native searches (:data:`bench.engines.search.MONITOR`), if one is set."""
    from bench.engines.search import MONITOR

    return MONITOR.get()


# -- the engine --------------------------------------------------------------------------------------

_host_seconds: list[float] = []


def warm_host() -> float:
    """Compile (or load) the host's kernels of the search once per process, on a tiny cover; returns their seconds."""
    if not _host_seconds:
        start = time.perf_counter()
        from bench.models.cover import Cover

        k = kernel

        cover = Cover.from_options([[0, 1, 2]], [1, 1, 1], n_cells=2)
        t = build_tables(cover)
        k.sample_levels(1, 1, np.zeros(0, dtype=np.int64), t.board())
        root = np.zeros((1, 0), dtype=np.int32)
        k.expand(root, 1, np.zeros((0, 1), dtype=np.int32), t.board())
        rows = np.zeros((1, t.width), dtype=np.int32)
        k.classify_rows(rows, np.ones(1, dtype=np.int32), cover.opt_ptr, cover.opt_items, cover.n_cells,
                        cover.symmetry.cell_inv, cover.symmetry.opt_map, cover.symmetry.opt_gmask)
        _host_seconds.append(time.perf_counter() - start)
    return _host_seconds[0]


class GpuEngine(Engine):
    """The GPU engine (see the module docstring): exact covers, unique and total, on an NVIDIA GPU.

    Boards of up to 128 cells whose options are cells and one piece item
    (every puzzle's cover, on every lattice); ``max_solutions`` and
    ``time_limit`` are honoured between launches.
    """

    name = "gpu"
    supported = frozenset({"max_solutions", "time_limit"})
    requires = ("numba_cuda",)
    extra = "gpu"

    def available(self) -> bool:
        """True when numba-cuda is installed and a CUDA device answers (or its simulator is on)."""
        return super().available() and device_probe()[0]

    def missing(self) -> str:
        """Why the engine is not available: the extra, or the device."""
        if not super().available():
            return super().missing()
        return device_probe()[1]

    def warm_up(self, cover=None, settings: Settings | None = None) -> float:
        """Compile (or load) the host's kernels; the device's is compiled in the solve (see the module docstring)."""
        return warm_host()

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None,
              on_trace=None, tuning: Tuning = Tuning()) -> Result:
        """Count (and optionally return) the exact covers of ``cover`` on the device.

        ``tuning`` changes how the search is cut and launched, never what it counts.
        """
        self.check(settings, limits)
        start = time.perf_counter()
        tables = build_tables(cover)
        warming = time.perf_counter()
        host_compile = warm_host()
        warming = time.perf_counter() - warming
        search = GpuSearch(cover, tables, limits, on_solutions, tuning)
        setup = time.perf_counter() - start - warming
        status = search.run()
        out = search.out
        timings = {**search.timings, "compile": search.timings["compile"] + host_compile,
                   "setup": search.timings["setup"] + setup, "solve": search.solve_seconds}
        stats = {"nodes": out.nodes, "attempts": out.attempts, "fits": max(out.nodes - 1, 0),
                 "estimated_nodes": search.estimated_nodes, "gpu": search.gpu}
        return Result(engine=self.name, status=status, covers=out.covers, unique=out.unique, total=out.total,
                      solutions=out.kept, stats=stats, timings=timings, cover_hash=cover.hash)
