"""One DLX search over a cover: the arrays, the kernel slices, limits and statistics.

:class:`Search` drives the sparse-set kernel (:mod:`bench.kernels.sparse_sets`);
:class:`~bench.kernels.bitset.BitsetSearch` the bitset one.  The engine
(:mod:`bench.engines.dlx`) turns a search into a :class:`~bench.engines.Result`;
FILA's pipeline, the splitter and the estimator drive searches directly.
"""

from __future__ import annotations

import time
from contextvars import ContextVar

import numpy as np

from bench.system import signals
from bench.engines.constraints import ALL_CONSTRAINTS, build_constraints, constrained
from bench.engines.protocol import Engine, Limits, Result, Settings, Status
from bench.engines.variants import constraint_variant
from bench.errors import BenchError
from bench.kernels.codes import (BUFFER_FULL, DONE, ENTER, FULL_STOP, HANDOFF, LEAVE, N_STATE, PAUSED, S_COVERS, S_DEAD,
                                 S_LEVEL, S_NODES, S_PHASE, S_STORED, S_TOTAL, S_TRACE_KIND, S_UNIQUE, S_UPDATES, TRACE,
                                 TWEAKED, Counters, Matrix, Order, PathArgs, Sink, Symmetry)
from bench.models.tiny import dominoes, tiny_cover
from bench.toolchain import warmup
from bench.kernels.heuristics import compile_order
from bench.kernels.memo import CoverMemo
from bench.kernels.bitset import BitLevels, BitSets, bitset_search
from bench.kernels.sparse_sets import Handoff, Levels, SparseSets, branching_list, build_sets, dlx_search


def kernel_cover(cover):
    """The cover the sparse-set kernel searches: ``cover`` itself, or with a slack item for an extensible one.

    In an :attr:`~bench.models.cover.Cover.extensible` cover, every option
    that covers no item of exact bounds also covers one more item, last,
    of bounds 0..n_options: the kernel branches on the options still in it
    once every lower bound is met (:func:`~bench.kernels.sparse_sets.dlx_search`).
    Options keep their numbers, so covers and symmetry tables are the cover's.
    """
    return _with_slack_item(cover) if cover.extensible else cover


@CoverMemo
def _with_slack_item(cover):
    """:func:`kernel_cover` of an extensible cover, computed afresh."""
    from bench.models.cover import Cover

    exact = (cover.item_lo == cover.item_hi) & (cover.item_lo > 0)
    free = ~np.logical_or.reduceat(exact[cover.opt_items], cover.opt_ptr[:-1])
    slack = cover.n_items
    lengths = np.diff(cover.opt_ptr) + free
    ptr = np.zeros(cover.n_options + 1, dtype=np.int32)
    np.cumsum(lengths, out=ptr[1:])
    items = np.full(int(ptr[-1]), slack, dtype=np.int32)
    at = np.repeat(ptr[:-1] - cover.opt_ptr[:-1], np.diff(cover.opt_ptr)) + np.arange(len(cover.opt_items))
    items[at] = cover.opt_items
    colour = None
    if cover.opt_colour is not None:
        colour = np.zeros(len(items), dtype=np.int32)
        colour[at] = cover.opt_colour
    return Cover(ptr, items, np.append(cover.item_lo, np.int32(0)).astype(np.int32),
                 np.append(cover.item_hi, np.int32(cover.n_options + 1)).astype(np.int32), cover.n_cells,
                 cover.item_names + ("(more)",), cover.symmetry, cover.opt_image, cover.puzzle, cover.redundancy,
                 colour, cover.colour_names)


FINISH_SHARE = 0.5
"""The share of its budget more a search that spent it gets to finish the level above the node it stopped at
(:meth:`Search._hand_back`)."""


MONITOR: ContextVar = ContextVar("MONITOR", default=None)
"""Called with the search after every kernel slice (about 20 ms) while set: a progress display watching the
counters (``state[S_NODES]``, ``state[S_COVERS]``) without the engines passing it along."""


def search_result(engine: str, variant: str, search: "Search", status: Status, stats: dict, timings: dict) -> Result:
    """The :class:`Result` of a finished native search: its counts, kept solutions, counters and timings.

    Unique and total are counted only for whole covers (no ``goal``); the
    compile time a search met on the way (a hand-off's specialization) is
    added to ``timings["compile"]``.
    """
    exact = search.classify
    state = search.state
    timings = {**timings, "compile": timings.get("compile", 0.0) + search.late_compile_seconds,
               "solve": search.solve_seconds}
    return Result(engine=engine, variant=variant, status=status, covers=int(state[S_COVERS]),
                  unique=int(state[S_UNIQUE]) if exact else None, total=int(state[S_TOTAL]) if exact else None,
                  solutions=search.kept, stats=stats, timings=timings, cover_hash=search.cover.hash)


def search_specialization(constraints_active: bool) -> str:
    """The sparse-set DLX specialization of a search with (or without) in-search triggers and filters."""
    return "sets+constraints" if constraints_active else "sets"


class CompiledEngine(Engine):
    """An engine whose kernels compile: :meth:`warm_up` and :meth:`prefetch` name their specializations.

    Subclasses list the specializations of a plain search in ``PLAIN`` and
    say which a solve runs in :meth:`specializations`
    (:mod:`bench.toolchain.warmup`).
    """

    PLAIN: frozenset[str] = frozenset()

    def specializations(self, cover, settings: Settings) -> set[str]:
        """The kernel specializations a solve of ``cover`` under settled ``settings`` runs."""
        raise NotImplementedError

    def _predicted(self, cover, settings: Settings | None) -> set[str]:
        # settings the engine refuses warm nothing: the solve itself says why
        if cover is None:
            return set(self.PLAIN)
        try:
            settled = self.settle(cover, settings or Settings())
        except BenchError:
            return set()
        return set(self.specializations(cover, settled))

    def warm_up(self, cover=None, settings: Settings | None = None) -> float:
        """Compile (or load) the kernels a solve of ``cover`` under ``settings`` runs; returns their seconds.

        Without a cover, those of a plain search (``PLAIN``).
        """
        return warmup.ensure(self._predicted(cover, settings))

    def prefetch(self, cover=None, settings: Settings | None = None) -> None:
        """Start compiling, in a forked child, what :meth:`warm_up` would compile (on a cold cache)."""
        warmup.prefetch(self._predicted(cover, settings))


class Search:
    """One DLX search over a cover: arrays, kernel slices, statistics.

    The engine wrapper validates input and turns this into a :class:`Result`;
    FILA's pipeline and the splitter drive it directly.
    """

    BATCH = 4096
    FIRST_SLICE = 1 << 4
    """Nodes of the first kernel slice (a node near the root may take 10 ms or more under in-search filters); later
    slices adapt to last about :attr:`SLICE_SECONDS`."""
    FIRST_SUB_SLICE = 1 << 12
    """Nodes of a sub-search's first slice (FILA's after a hand-off): its nodes cost microseconds, tens of them under
    its triggers and ``e``, so four thousand fit in a slice (0.2 s at the most), where sixteen cost the Soma cube's
    three hand-offs five calls of the kernel more, and a thousand one."""
    SLICE_SECONDS = 0.02
    GROWTH = 8.0
    MAX_SLICE = 1 << 26

    def __init__(self, cover, settings: Settings, limits: Limits, on_solutions=None, on_trace=None,
                 handoff=None, handoff_at: int = 0, handoff_cells: int = 0, handoff_shapes: int = 0,
                 batch: int | None = None, warm: bool = True):
        # ``warm=False``: the kernel is not compiled here (FILA's warm-up, which only hands the first state over)
        self.cover = cover
        # ``handoff(search)`` returns a sub-search (``.slice(budget) -> code``) for the branch at hand
        self.handoff = handoff
        self.handoff_at = handoff_at if handoff is not None else 0
        self.handoff_cells = handoff_cells
        self.handoff_shapes = handoff_shapes
        self.sub = None
        self.settings = settings
        self.limits = limits
        self.on_solutions = on_solutions
        self.on_trace = on_trace
        self.n_pieces = cover.piece_count
        depth = max(cover.max_depth, 1)
        self.order = compile_order(settings.order, cover, self.n_pieces)
        # an extensible cover's slack item is the kernel's alone: callers see the cover's items
        kernel = kernel_cover(cover)
        slack = kernel.n_items - 1 if cover.extensible else -1
        self.node_opt, self.sets, self.loc, self.set_start, self.size = build_sets(kernel)
        self.llink, self.rlink = branching_list(kernel)
        self.count = np.zeros(kernel.n_items, dtype=np.int32)
        self.lo = np.ascontiguousarray(kernel.item_lo, dtype=np.int32)
        self.hi = np.ascontiguousarray(kernel.item_hi, dtype=np.int32)
        self.opt_ptr = kernel.opt_ptr.astype(np.uint32)
        self.opt_items = kernel.opt_items.astype(np.uint32)
        # a writable copy, as the empty array is: one argument type, so a coloured search runs the compiled library
        colour = np.zeros(0, dtype=np.int32) if kernel.opt_colour is None else np.array(kernel.opt_colour, np.int32)
        self.snap = np.zeros((2 * (depth + 1), kernel.n_items), dtype=np.int32)
        self.branch = np.zeros(depth + 1, dtype=np.uint32)
        self.mode = np.zeros(depth + 1, dtype=np.int32)
        self.cur = np.zeros(depth + 1, dtype=np.uint32)
        self.end = np.zeros(depth + 1, dtype=np.uint32)
        self.node = np.zeros(depth + 1, dtype=np.uint32)
        self.chosen = np.zeros(depth + 1, dtype=np.int32)
        self.state = np.zeros(N_STATE, dtype=np.int64)
        self.attempts = np.zeros(self.n_pieces + 1, dtype=np.int64)
        self.fits = np.zeros(self.n_pieces + 1, dtype=np.int64)
        self.updates_by = np.zeros(self.n_pieces + 1, dtype=np.int64)
        self.grid = np.zeros(max(cover.n_cells, 1), dtype=np.int32)
        self.stream = on_solutions is not None
        self.keep = limits.keep_solutions
        # with a trace, every solution is handed out at once so output stays in search order
        capacity = (batch or (1 if settings.trace else self.BATCH)) if self.stream else self.keep
        self.sol_buf = np.zeros((capacity, depth + 1), dtype=np.int32)
        self.sol_len = np.zeros(capacity, dtype=np.int32)
        self.sol_weight = np.zeros(capacity, dtype=np.int64)
        self.kept: list[np.ndarray] = []
        self.classify = settings.goal == 0 and not settings.bulk_orbits
        self.first_item = -1 if settings.first_item is None else int(settings.first_item)
        # the DLX kernel's function for this search's argument types, once its first slice has looked it up
        self._dlx = None
        self.constraints = build_constraints(cover, settings, self.n_pieces, depth)
        self.cons_args = self.constraints.args()
        self.sprod = np.ones(depth + 2, dtype=np.float64)
        self.est = np.zeros(3, dtype=np.float64)
        self.trace = settings.trace
        # what a budget handed back (prefix, cut); the trace that stops the search when it has finished the level
        # above the one it spent its budget at (0: none), whether it has; the depth whose nodes it hands back now
        self.rest: list = []
        self.budget_end = settings.budget
        self.finishing = 0
        self.finished_once = False
        self.closing = None
        self._sink_before = None
        self.set_prefix(settings.prefix)
        # the kernel's argument bundles (bench.kernels.codes), made once: a slice passes them as they are
        sym = cover.symmetry
        self.matrix = Matrix(self.opt_ptr, self.opt_items, self.lo, self.hi, cover.n_cells, self.n_pieces)
        self.sparse = SparseSets(self.node_opt, self.sets, self.loc, self.set_start, self.size, self.count,
                                 self.llink, self.rlink, colour, slack)
        self.levels = Levels(self.snap, self.branch, self.mode, self.cur, self.end, self.node, self.chosen)
        self.counters = Counters(self.state, self.attempts, self.fits, self.updates_by)
        self.order_args = Order(self.order.kind, self.order.table, self.order.rank)
        self.symmetry = Symmetry(sym.cell_inv, sym.opt_map, sym.opt_gmask, self.grid, self.classify)
        self.sink = Sink(self.sol_buf, self.sol_len, self.sol_weight, self.stream, limits.max_solutions or 0,
                         settings.goal)
        self.handoff_args = Handoff(self.handoff_at, handoff_cells, handoff_shapes)
        self.late_compile_seconds = 0.0
        # the engines warm what they predict; anything else (the estimator's kernel) is compiled here, timed apart
        if warm:
            warmup.ensure([self.specialization()])

    def specialization(self) -> str:
        """The kernel specialization this search runs (see :mod:`bench.toolchain.warmup`)."""
        return search_specialization(self.constraints.active)

    def set_prefix(self, prefix: tuple) -> None:
        """Replay ``prefix`` (see :attr:`Settings.prefix`) from now on; only between searches (at the root)."""
        self.base = len(prefix)
        force_opt = np.array([o for o, _ in prefix] + [0], dtype=np.int32)
        force_ex_ptr = np.zeros(self.base + 1, dtype=np.int32)
        force_ex_ptr[1:] = np.cumsum([len(ex) for _, ex in prefix], dtype=np.int32)
        force_ex = np.array([e for _, ex in prefix for e in ex] + [0], dtype=np.int32)
        self.path_args = PathArgs(self.base, force_opt, force_ex_ptr, force_ex, self.first_item, False, -1, self.sprod,
                                  self.est)

    def path(self) -> tuple:
        """The options placed on the levels above the current one, each with the options its branch excluded.

        That is a :attr:`Settings.prefix` leading to the current node: the
        replayed levels are the search's own prefix, and the k-th branch on
        an item with multiplicity keeps the k-1 options tried before it out
        of its whole subtree (Knuth's tweak), which are read from the
        positions past the item's active segment, where the tweaks leave
        them.
        """
        prefix = self.settings.prefix
        level = int(self.state[S_LEVEL])
        path = list(prefix)
        for lv in range(len(prefix), level):
            excluded: tuple = ()
            if self.mode[lv] == TWEAKED:
                b = self.branch[lv]
                start = int(self.set_start[b])
                tweaked = self.sets[start + int(self.snap[2 * lv + 1, b]): start + int(self.snap[2 * lv, b])]
                excluded = tuple(int(o) for o in self.node_opt[tweaked])
            path.append((int(self.chosen[lv]), excluded))
        return tuple(path)

    def run(self) -> Status:
        """Search until done, a limit stops it or a signal asks it to stop (see :mod:`bench.system.signals`).

        Every cover found before the stop is handed to ``on_solutions``.
        """
        limits = self.limits
        # the first slice is small: a node may take milliseconds (in-search filters, huge covers), and nothing
        # but the end of a slice reads the clock.  One budget for DLX's slices and one for a sub-search's (FILA's
        # after a hand-off), each from its own slices: their nodes may cost a thousandfold apart (a microsecond of
        # FILA's, a millisecond of DLX's under filters), and DLX going on from a branch's end with FILA's budget
        # ran to its next hand-off in one slice, past a time limit or Ctrl-C
        budgets = [self.FIRST_SLICE, self.FIRST_SUB_SLICE]
        start = time.perf_counter()
        compiled = warmup.spent()
        status = Status.SOLVED
        monitor = MONITOR.get()
        try:
            with signals.polled():
                while True:
                    if signals.stop_requested() is not None:
                        status = Status.INTERRUPTED
                        break
                    searcher = int(self.sub is not None)
                    budget = budgets[searcher]
                    if limits.node_limit is not None:
                        left = limits.node_limit - int(self.state[S_NODES])
                        if left <= 0:
                            status = Status.LIMIT
                            break
                        budget = min(budget, left)
                    t0 = time.perf_counter()
                    nodes = int(self.state[S_NODES])
                    code = self._slice(budget)
                    elapsed = time.perf_counter() - t0
                    nodes = int(self.state[S_NODES]) - nodes
                    if code == BUFFER_FULL:
                        self._drain()
                    if code == DONE:
                        break
                    if code == FULL_STOP:
                        status = Status.LIMIT
                        break
                    if code == TRACE and self.on_trace is not None:
                        self.on_trace(*self.trace_event())
                    if code == PAUSED:
                        # slices of about SLICE_SECONDS, so that limits and signals are honoured promptly; from the
                        # nodes the slice searched, not its budget: one cut short by a hand-off (FILA's lists built,
                        # one node) or a branch's end is no full slice, and the Tetris Cube's slices grew eightfold
                        # at each to 0.2 s and more (--time-limit 0.45 stopped at 0.96 s)
                        budgets[searcher] = self.next_slice(max(nodes, 1), elapsed, self.SLICE_SECONDS)
                    if signals.status_requested():
                        signals.write_status(self.status_lines(time.perf_counter() - start))
                    if signals.trace_toggled():
                        self.toggle_trace()
                    if limits.time_limit is not None and time.perf_counter() - start >= limits.time_limit:
                        status = Status.TIMEOUT
                        break
                    if monitor is not None:
                        monitor(self)
        except KeyboardInterrupt:
            status = Status.INTERRUPTED
        # a specialization first met during the search (a hand-off's) was compiled in it: not solve time
        self.late_compile_seconds = warmup.spent() - compiled
        self.solve_seconds = time.perf_counter() - start - self.late_compile_seconds
        self._drain()
        return status

    @classmethod
    def next_slice(cls, nodes: int, elapsed: float, seconds: float) -> int:
        """Nodes for the next slice, after one of ``nodes`` took ``elapsed`` seconds, to last about ``seconds``.

        At least one, at most :attr:`MAX_SLICE`, and at most :attr:`GROWTH`
        times the last: nodes near the root may be dearer than the ones
        measured.
        """
        factor = min(seconds / max(elapsed, 1e-6), cls.GROWTH)
        return int(min(max(nodes * factor, 1), cls.MAX_SLICE))

    def advance(self, nodes: int) -> bool:
        """Search on for at most ``nodes`` nodes, covers counted and not kept; True once the search is done.

        For a caller that runs searches in turns (the race of FILA's
        schedules, :mod:`bench.engines.autoconfig`): it reads no limit, clock
        or signal, and hands no cover on.
        """
        code = self._slice(nodes)
        if code == BUFFER_FULL:
            self._drain()
        return code == DONE

    def trace_event(self) -> tuple[str, np.ndarray]:
        """The trace event the last slice stopped at (the sub-search's when it ran): its kind and the options placed."""
        if self.sub is not None:
            return self.sub.trace_event()
        kind = "place" if self.state[S_TRACE_KIND] == 1 else "remove"
        return kind, self.chosen[: int(self.state[S_LEVEL])].copy()

    def status_lines(self, seconds: float) -> list[str]:
        """What SIGUSR1 prints: the counts and counters so far, as ``KEY=value`` lines."""
        state = self.state
        lines = ["# status so far (SIGUSR1)", "STATUS=running", f"ELAPSED_SECONDS={seconds:.3f}",
                 f"SOLUTIONS={int(state[S_COVERS])}"]
        if self.classify:
            lines += [f"UNIQUE={int(state[S_UNIQUE])}", f"TOTAL={int(state[S_TOTAL])}"]
        lines += [f"NODES={int(state[S_NODES])}", f"ATTEMPTS_TOTAL={int(self.attempts.sum())}",
                  f"FITS_TOTAL={int(self.fits.sum())}", f"LEVEL={int(state[S_LEVEL])}"]
        return lines

    def toggle_trace(self) -> None:
        """SIGUSR2: trace every placement and removal from now on, or stop tracing.

        The sparse-set kernel and FILA trace, given a tracer to print to;
        otherwise the signal is answered with why.
        """
        if type(self)._slice is not Search._slice or self.on_trace is None:
            signals.write_status(["# trace (SIGUSR2): this search cannot trace; -t selects the DLX kernel that "
                                  "can (sparse sets), and FILA traces too"])
            return
        self.trace = 0 if self.trace else (self.settings.trace or 1)

    def _slice(self, budget: int) -> int:
        """Run the search for at most ``budget`` nodes: the sub-search at hand, else DLX.

        With a budget (:attr:`Settings.budget`) the search stops at the first
        node once it has counted that many and hands back the rest
        (:meth:`_hand_back`).
        """
        if self.sub is not None:
            code = self.sub.slice(budget)
            if code != DONE:
                return code
            # a sub-search that was the whole search (a piece of FILA's tree) ends it; one that handed back the
            # rest of its branch leaves the rest of this search to hand back
            sub, self.sub = self.sub, None
            if sub.final:
                return DONE
            if sub.handed_back:
                self._hand_back(fresh=False)
            return PAUSED
        if self.closing is not None:
            return self._close_slice()
        end = self.budget_end
        if end:
            # exactly at the budget: the kernel stops at the node it would count next
            budget = max(min(budget, end - int(self.state[S_NODES])), 1)
        code = self._dlx_kernel(budget, self.finishing or self.trace)
        if code == PAUSED and end and int(self.state[S_NODES]) >= end:
            self._hand_back(fresh=True)
        elif code == TRACE and self.finishing:
            # the level it was finishing is done: on to the level above while the extra budget lasts, else the
            # branches still to come from there up go back
            level = int(self.state[S_LEVEL])
            if int(self.state[S_NODES]) < self.budget_end:
                self.finishing = self.n_pieces - level + 1
            else:
                self.finishing = 0
                self.closing = level + 1
            return PAUSED
        elif code == HANDOFF:
            self.sub = self.handoff(self)
            return PAUSED
        return code

    def _dlx_kernel(self, budget: int, trace: int) -> int:
        args = (self.matrix, self.sparse, self.levels, self.counters, self.order_args, self.symmetry, self.sink,
                self.path_args, self.handoff_args, self.cons_args, trace, budget)
        # the same types on every slice of a search: its kernel is looked up once
        if self._dlx is None:
            self._dlx = dlx_search.resolve(*args)
        code = self._dlx(*args)
        if self.path_args.seed >= 0:
            # seeded once: the paths go on drawing from where the seed left the generator
            self.path_args = self.path_args._replace(seed=-1)
        return code

    def _hand_back(self, fresh: bool) -> None:
        """The budget is spent: hand back the rest of this search as sub-problems (``rest``), level by level.

        ``fresh``: the search stopped at a node it has not counted, which
        becomes a sub-problem (whose node this search counts, as the
        splitter counts the nodes it cuts at).  Then, once, the search
        finishes the branches still to come at the level above, and the
        level above that, and so on while :data:`FINISH_SHARE` of its
        budget more lasts (the deepest of the rest are the smallest, and
        each would cost a replay of the whole prefix, with its filters, as
        a sub-problem of its own); once that is spent too, this starts again
        from where it stopped, without finishing.  Then the branches still
        to come at each level, from the
        deepest up to the prefix's, become sub-problems one level below
        theirs: the search goes on with a goal at that depth (recording
        each node it reaches there, as the splitter does) and a trace that
        stops it when it backs up past the level, to move the goal one
        level up.  So the counters of the levels above the sub-problems are
        this search's, as they would be the splitter's, and the rest is a
        handful of sub-problems, not one per hand-off to come.
        """
        level = int(self.state[S_LEVEL])
        if fresh:
            self.rest.append((self.path(), None))
            self.state[S_NODES] += 1
            self.state[S_PHASE] = LEAVE
        if not self.finished_once and level - 1 >= self.base:
            # finish the level above: a trace that stops when the search backs up past it
            self.finished_once = True
            self.finishing = self.n_pieces - level + 2
            self.budget_end = int(self.state[S_NODES]) + int(self.settings.budget * FINISH_SHARE)
            return
        self.finishing = 0
        self.closing = level

    def _close_slice(self) -> int:
        """One step of :meth:`_hand_back`: on to the next node at the goal, or the goal one level up, or the end."""
        depth = self.closing
        if self._sink_before is None:
            # the goal's partial covers stop the kernel one by one (a one-row buffer), and are not counted as covers
            self._sink_before = self.sink
            width = self.sol_buf.shape[1]
            self.sink = self.sink._replace(sol_buf=np.zeros((1, width), dtype=np.int32),
                                           sol_len=np.zeros(1, np.int32), sol_weight=np.zeros(1, np.int64),
                                           stream=True, max_solutions=0)
            self.state[S_STORED] = 0
        self.sink = self.sink._replace(goal=self.n_pieces - depth)
        # a trace that stops the kernel when it backs up to level depth - 2, and no placement before
        code = self._dlx_kernel(1 << 40, self.n_pieces - depth + 2)
        if code == BUFFER_FULL:
            self.state[S_STORED] = 0
            root = len(self.rlink) - 1
            if int(self.state[S_LEVEL]) == depth and self.rlink[root] != root:
                self.rest.append((self.path(), None))
                # a partial cover, not a cover
                self.state[S_COVERS] -= 1
            return PAUSED
        if code == TRACE:
            self.closing = depth - 1
            return PAUSED
        self.closing = None
        self.sink, self._sink_before = self._sink_before, None
        return code

    def _drain(self) -> None:
        """Hand the buffered covers to the sink and keep the first ``keep_solutions``."""
        stored = int(self.state[S_STORED])
        if stored == 0:
            return
        batch = [self.sol_buf[k, : self.sol_len[k]].copy() for k in range(stored)]
        self.state[S_STORED] = 0
        if len(self.kept) < self.keep:
            self.kept.extend(batch[: self.keep - len(self.kept)])
        if self.on_solutions is not None:
            self.on_solutions(batch, self.sol_weight[:stored].tolist())

    def sample(self, trials: int, seed: int) -> np.ndarray:
        """``trials`` random paths (Knuth's estimator); one row per path: nodes, attempts, complete covers.

        Each row is an unbiased estimate of the search below the prefix down to
        the goal (pieces left), for this search's heuristics and constraints.
        """
        # the seed goes with the kernel's next call (see _slice): the generator seeded is the one the kernel draws
        # from, whichever library (bench.toolchain.aot, each with a generator of its own) or numba runs it
        self.path_args = self.path_args._replace(sample=True, seed=seed)
        rows = np.zeros((trials, 3), dtype=np.float64)
        try:
            for t in range(trials):
                self.est[:] = 0.0
                self.state[S_LEVEL] = 0
                self.state[S_PHASE] = ENTER
                while self._slice(1 << 40) != DONE:
                    self.state[S_STORED] = 0
                rows[t] = self.est
        finally:
            self.path_args = self.path_args._replace(sample=False, seed=-1)
        return rows

    def stats(self) -> dict:
        """Machine-independent counters, per number of remaining pieces where it applies.

        A sub-problem's counters cover only the levels below its prefix: the
        splitter counted the ones above, so that the parts add up.  ``rest``
        lists what a budget handed back (JSON-ready prefixes and cuts).
        """
        if self.base:
            self.constraints.counters[:, self.n_pieces - self.base + 1:] = 0
        rest = {"rest": [{"prefix": [[o, list(ex)] for o, ex in prefix], "cut": cut.to_json() if cut else None}
                         for prefix, cut in self.rest]} if self.rest else {}
        return {**rest, 
            "nodes": int(self.state[S_NODES]),
            "updates": int(self.state[S_UPDATES]),
            "dead_ends": int(self.state[S_DEAD]),
            "attempts": int(self.attempts.sum()),
            "fits": int(self.fits.sum()),
            "attempts_by_remaining": self.attempts.tolist(),
            "fits_by_remaining": self.fits.tolist(),
            "updates_by_remaining": self.updates_by.tolist(),
            **self.constraints.stats(),
        }


def suits(settings: Settings, cover=None) -> bool:
    """True when a search under ``settings`` (of ``cover``, when given) is one the bitset kernel runs.

    See :mod:`bench.kernels.bitset`; colours and
    :attr:`~bench.models.cover.Cover.extensible` covers are the sparse-set
    kernel's alone.
    """
    if cover is not None and plain_cover(cover) is not None:
        return False
    return constraint_variant(settings) == "" and not settings.trace and settings.first_item is None


def plain_cover(cover) -> str | None:
    """None when the bitset kernel can search ``cover``, else why not (what the sparse-set kernel has that it lacks)."""
    if cover.opt_colour is not None:
        return "the cover has colours"
    if cover.extensible:
        return "a cover may hold another (an option covers no item of exact bounds)"
    return None


CACHE_LINE = 64


def cache_aligned_zeros(shape: tuple[int, int]) -> np.ndarray:
    """A zeroed C-ordered ``uint64`` array whose data starts on a cache line.

    The kernel reads and writes whole rows of option bits; NumPy's
    allocations start on 16 bytes only, and a row that straddles one more
    cache line than it needs made the 10x6 search up to 12 % slower, by
    where the arrays happened to land.
    """
    n = int(np.prod(shape))
    raw = np.zeros(n + CACHE_LINE // 8, dtype=np.uint64)
    skip = (-raw.ctypes.data % CACHE_LINE) // 8
    return raw[skip:skip + n].reshape(shape)


class BitsetSearch(Search):
    """A :class:`Search` run by :func:`~bench.kernels.bitset.bitset_search`, for settings that :func:`suits`.

    No hand-off and no sampling: FILA's pipeline and the splitter drive the
    sparse-set :class:`Search`.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        cover = self.cover
        n_opt = cover.n_options
        n_words = max((n_opt + 63) // 64, 1)
        opt = np.repeat(np.arange(n_opt, dtype=np.int64), np.diff(cover.opt_ptr))
        item_bits = cache_aligned_zeros((cover.n_items, n_words))
        np.bitwise_or.at(item_bits, (cover.opt_items.astype(np.int64), opt >> 6),
                         np.left_shift(np.uint64(1), (opt & 63).astype(np.uint64)))
        sizes = np.diff(cover.opt_ptr)
        # the distinct sizes, without np.unique (its first call imports numpy.ma, see FilaRun)
        classes = np.flatnonzero(np.bincount(sizes))
        class_bits = cache_aligned_zeros((len(classes), n_words))
        for k, s in enumerate(classes):
            members = np.flatnonzero(sizes == s)
            np.bitwise_or.at(class_bits[k], members >> 6, np.left_shift(np.uint64(1), (members & 63).astype(np.uint64)))
        self.item_bits = item_bits
        self.class_bits = class_bits
        self.class_w = (classes - 1).astype(np.int64)
        depth = len(self.branch)
        self.live = cache_aligned_zeros((depth + 1, n_words))
        self.live[0] = np.bitwise_or.reduce(item_bits, axis=0) if cover.n_items else 0
        self.after_branch = cache_aligned_zeros((depth, n_words))
        self.cand = cache_aligned_zeros((depth, n_words))
        self.pend = np.zeros(depth, dtype=np.int64)
        # the bitset kernel indexes the matrix with int64
        self.matrix = self.matrix._replace(opt_ptr=cover.opt_ptr.astype(np.int64),
                                           opt_items=cover.opt_items.astype(np.int64))
        self.bits = BitSets(item_bits, class_bits, self.class_w, self.count, self.llink, self.rlink)
        self.bit_levels = BitLevels(self.live, self.after_branch, self.cand, self.branch, self.mode, self.pend,
                                    self.chosen)

    def specialization(self) -> str:
        """This kernel's one specialization (see :mod:`bench.toolchain.warmup`)."""
        return "bits"

    def _slice(self, budget: int) -> int:
        return bitset_search(self.matrix, self.bits, self.bit_levels, self.counters, self.order_args, self.symmetry,
                             self.sink, self.path_args, budget)


# the tiny searches that compile (or load) the DLX kernels' specializations (bench.toolchain.warmup)
warmup.register("sets", lambda: Search(tiny_cover(), Settings(), Limits()).run(), 6.9)
warmup.register("sets+constraints", lambda: Search(dominoes(2), Settings(**ALL_CONSTRAINTS), Limits()).run(), 16.8)
warmup.register("bits", lambda: BitsetSearch(tiny_cover(), Settings(), Limits()).run(), 4.7)
