"""Solving one cover on many cores or machines, with a checkpoint journal.

The search is split (:mod:`bench.parallel.split`) into at least
``SUBPROBLEMS_PER_WORKER`` sub-problems per worker, down to the level
where FILA takes over at most.  An engine that solves pieces of its tree
(FILA: :attr:`~bench.engines.Settings.cut`) then gets a node budget per
sub-problem (:attr:`~bench.engines.Settings.budget`): a sub-problem that
spends it hands back the rest of its tree as three pieces, which are
solved like any other sub-problem, so that no sub-problem is much larger
than the budget however unbalanced the tree, and the budget grows with the
work done (:class:`Schedule`).  Everything that decides the pieces is a
count of nodes, never a clock: the split is the same on every machine and
worker count.  An engine without pieces (DLX) has its sub-problems sized by
random paths (:mod:`bench.engines.sampling`), the large ones split one
level deeper.  Sub-problems are dispatched oldest generation first, then
largest first, alone or, when many wait, in bundles.  Every finished
sub-problem goes to the journal before it counts, so a run stopped at any
point resumes with ``resume=True``: the journal's own split and pieces are
reused, what it holds is not solved again, and the totals are the
uninterrupted run's.  A result is SOLVED only when every sub-problem is;
otherwise its counts are partial and its status and message say so.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from bench.system import signals
from bench.engines.protocol import Result, Settings, Status
from bench.errors import UsageError
from bench.system.files import open_locked, writable_directory
from bench.models.tuning import GROWTH_EXPONENT
from bench.text import escape
from bench.toolchain import sources, warmup
from bench.engines.constraints import SETTING_SLOTS, constrained
from bench.engines.search import search_specialization
from bench.parallel import SUBPROBLEMS_PER_WORKER, ParallelOptions
from bench.parallel.balance import balance
from bench.parallel.journal import Journal, prune
from bench.parallel.split import SubProblem, merge_stats, options_left, split
from bench.parallel.progress import Progress

ESTIMATE_PATHS = 600
MIN_PARALLEL_NODES = 2_000_000
"""Estimated DLX nodes below which an automatic run stays in one process (a few seconds at most)."""
BUDGET_FLOOR = 1 << 20
"""The least node budget of a sub-problem: a tenth of a second of FILA or so, so that replaying its prefix and path
and handing back its rest stay a small share of it (the 13x13 diamond, whose DLX levels filter every node by volume,
solved piece after piece in one process: 380 pieces, 2 % more CPU than one search; with half this floor, 748 pieces
and 10 % more), while the Tetris Cube's 48 M nodes still make 96 sub-problems, a bound of 15.8 for 16 workers and 46
for 64."""
BUDGET_SHARE = 512
"""A sub-problem's budget is at most the work done so far over this (:meth:`Schedule.budget`), so that none is more
than 1/512 of the whole search above the floor."""
TASKS_PER_WORKER = 2
"""Tasks in flight per worker: one running, one waiting, so that a worker never waits for the parent."""
BUNDLE_SPREAD = 4
"""Sub-problems waiting per worker from which a task takes several (up to :data:`MAX_BUNDLE`), where budgets bound
their size."""
MAX_BUNDLE = 32


def splittable(engine, settings: Settings, limits, cover=None) -> str | None:
    """Why this solve (of ``cover``, when given) cannot be split (None when it can)."""
    if not engine.splittable:
        return f"engine '{engine.name}' cannot solve sub-problems"
    if cover is not None and cover.extensible:
        # the splitter cuts the tree of lower bounds; the options added to a cover once they are met are one search's
        return "a cover that may hold another (an option covers no item of exact bounds) is searched by one process"
    if settings.goal or settings.trace:
        return "--goal and --trace follow one search"
    if limits is not None and (limits.max_solutions or limits.node_limit):
        return "--max-solutions and --node-limit follow one search"
    return None


def solve_maybe_parallel(cover, engine, settings, limits, options: ParallelOptions | None, printing: bool,
                         on_solutions=None, on_trace=None, alongside=None) -> Result:
    """Split the solve when asked to, or by default when it is large, unlimited in time and needs no single search.

    Else solve it in this process.  ``alongside()`` (when given) runs once:
    in a split solve while the workers search, else before the search.
    """
    if options is not None:
        reason = splittable(engine, settings, limits, cover) or ("solutions are printed in search order by one process"
                                                          if printing else None)
        if reason is None and options.workers == 1 and not options.cluster and not options.resume:
            reason = "one worker"
        if reason is not None:
            if options.explicit:
                raise UsageError(f"cannot split this solve: {reason} (use --workers 1, or --quiet to count only)")
        # a time-limited solve splits only when asked to: sizing and cutting the search is not time-limited
        elif options.explicit:
            return solve_parallel(cover, engine, settings, options, limits, alongside)
        elif limits is None or limits.time_limit is None:
            # on a cold cache the random paths' kernel compiles in a child while the solve's compile here
            warmup.prefetch([search_specialization(constrained(sizing(settings)))])
            engine.warm_up(cover, settings)
            if worth_splitting(cover, engine.settle(cover, settings)):
                return solve_parallel(cover, engine, settings, options, limits, alongside)
    if alongside is not None:
        alongside()
    return engine.solve(cover, settings, limits, on_solutions=on_solutions, on_trace=on_trace)


def worth_splitting(cover, settings: Settings) -> bool:
    """True when random paths say the search is large enough to pay for worker processes."""
    # lazy, as in refine: a solve in one process never samples (1.5 ms of its start-up)
    from bench.engines.sampling import mean_nodes

    return mean_nodes(cover, sizing(settings), trials=200) >= MIN_PARALLEL_NODES


def sizing(settings: Settings) -> Settings:
    """The settings the split's random paths walk: ``settings`` without in-search filters and triggers.

    Their checks at every node make a path up to 60 times dearer (the
    13x13 diamond's volume filter: 200 paths in 1.47 s, against 0.023 s
    without it, and the split's estimates took 6-7 s of its 20 s run on two
    workers), and they only prune: the tree without them is larger, which
    is all that deciding a search is large enough to split, and ranking
    sub-problems by size, need.
    """
    return replace(settings, **{name: 0 for name in SETTING_SLOTS})


def run_key(cover, engine, settings: Settings, depth: int | None) -> str:
    """Identifies a run for its journal: the matrix, the engine, every setting that shapes the search, the budgets, and
    the code (:func:`bench.toolchain.sources.code_version`: a journal written by other code is never resumed)."""
    text = json.dumps([cover.hash, engine.name, repr(replace(settings, prefix=())), depth, BUDGET_FLOOR, BUDGET_SHARE,
                       sources.code_version()],
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def exact_depth(cover, settings: Settings) -> int | None:
    """The level where FILA takes over, the deepest an automatic split cuts in DLX (None when no FILA does).

    Below it the sub-problems are pieces of FILA's tree, which budgets cut
    (:data:`BUDGET_FLOOR`); a split cut deeper in DLX would run DLX where a
    single search runs FILA, another tree.  0 or less when FILA takes over
    at the root.
    """
    if not settings.fila:
        return None
    return cover.piece_count - settings.fila


def plan(cover, settings: Settings, parts: int, depth: int | None = None,
         start=None) -> tuple[list[SubProblem], dict, int]:
    """Sub-problems (at least ``parts`` when the tree allows), the splitter's counters and the split depth.

    Without ``depth`` the split goes no deeper than :func:`exact_depth`; an
    explicit ``depth`` is followed, into FILA's own levels too with the
    engine's search ``start`` (:func:`~bench.parallel.split.split`).
    """
    n_pieces = cover.piece_count
    exact = exact_depth(cover, settings)
    deepest = max(n_pieces - 1 if exact is None else exact, 1)
    if depth is not None and depth > max(n_pieces - 1, 1):
        raise UsageError(f"--split-depth {depth}: this search has {n_pieces} pieces, so it splits at most "
                         f"{max(n_pieces - 1, 1)} levels deep")
    d = depth or 1
    top = split(cover, settings, d, start=start)
    while depth is None and len(top.subproblems) < parts and d < deepest:
        d += 1
        top = split(cover, settings, d, start=start)
    return top.subproblems, top.stats, d


def refine(cover, settings: Settings, subs: list[SubProblem], stats: dict, workers: int, seed: int = 1):
    """Split the sub-problems that random paths say are large one level deeper; returns them with their weights.

    When none can go deeper (one worker, or every prefix already at the
    deepest depth, where FILA takes over), the weights only order the
    dispatch and drive the progress bar, and :func:`prefix_weights` gives
    them for free: on the Tetris Cube they rank the sub-problems' solving
    times better than 600 random paths do (Spearman 0.80 against 0.57) in
    no time, where the paths took 0.05 s before any worker started.
    """
    n_pieces = cover.piece_count
    exact = exact_depth(cover, settings)
    deepest = n_pieces - 1 if exact is None else exact
    if workers <= 1 or all(len(sub.prefix) >= deepest or sub.cut is not None for sub in subs):
        return subs, stats, prefix_weights(cover, subs)
    from bench.engines.sampling import estimate_nodes

    # a fixed budget of random paths: with few sub-problems each gets more, so the largest are found reliably
    trials = min(max(ESTIMATE_PATHS // max(len(subs), 1), 8), 200)
    sizes = estimate_nodes(cover, sizing(settings), [s.prefix for s in subs], trials, seed)
    limit = sum(sizes) / (8 * max(workers, 1))
    out: list[SubProblem] = []
    weights: dict[str, float] = {}
    parts = [stats]
    for sub, size in zip(subs, sizes):
        if size > limit and len(sub.prefix) < deepest:
            deeper = split(cover, settings, 1, parent=sub)
            parts.append(deeper.stats)
            child_trials = max(trials // max(len(deeper.subproblems), 1), 8)
            child_sizes = estimate_nodes(cover, sizing(settings), [c.prefix for c in deeper.subproblems], child_trials,
                                         seed)
            for child, child_size in zip(deeper.subproblems, child_sizes):
                weights[child.ident] = child_size
                out.append(child)
        else:
            weights[sub.ident] = size
            out.append(sub)
    return out, merge_stats(parts), weights


def prefix_weights(cover, subs: list[SubProblem]) -> dict[str, float]:
    """Relative sizes of ``subs`` from the options their prefixes leave: (left / options) to the power 5.

    The power is the growth :mod:`bench.models.tuning` measured on the
    Tetris Cube (15 % more options left, twice the time).
    """
    left = options_left(cover, subs) / max(cover.n_options, 1)
    return {sub.ident: float(x) ** GROWTH_EXPONENT for sub, x in zip(subs, left)}


class Schedule:
    """The sub-problems of a run still to solve, in the order they go out, and the budget each one gets.

    They go oldest generation first (the split's, then the pieces they
    handed back, ...), then largest estimated first.  With ``budgeted``,
    generation ``g`` gets a budget of the work done by generations ``g - 2``
    and older over :data:`BUDGET_SHARE`, at least :data:`BUDGET_FLOOR`,
    known once every sub-problem of those is done (their pieces are the
    ones of generation ``g - 1`` and older): it grows with the search, so
    that a tree a hundred times larger is cut in about as many pieces, and
    it depends on node counts alone, not on which worker finished first.
    """

    def __init__(self, budgeted: bool, split_nodes: int):
        self.budgeted = budgeted
        self.split_nodes = split_nodes
        self.heap: list = []
        self.count = 0
        # per generation: sub-problems known and not done, and the nodes of those done
        self.open: Counter = Counter()
        self.nodes: Counter = Counter()

    def __len__(self) -> int:
        return len(self.heap)

    def add(self, sub: SubProblem, weight: float) -> None:
        """A sub-problem to solve."""
        self.open[sub.generation] += 1
        heapq.heappush(self.heap, (sub.generation, -weight, self.count, sub))
        self.count += 1

    def done(self, generation: int, nodes: int) -> None:
        """A sub-problem of ``generation`` is done: it searched ``nodes`` nodes."""
        self.open[generation] -= 1
        self.nodes[generation] += nodes

    def known(self, generation: int, nodes: int) -> None:
        """A sub-problem of ``generation`` was done before (a resumed journal)."""
        self.nodes[generation] += nodes

    def budget(self, generation: int) -> int | None:
        """The budget of the sub-problems of ``generation`` (0: none), or None while it depends on some not done."""
        if not self.budgeted:
            return 0
        older = range(generation - 1)
        if any(self.open[g] for g in older):
            return None
        return max(BUDGET_FLOOR, (self.split_nodes + sum(self.nodes[g] for g in older)) // BUDGET_SHARE)

    def take(self, count: int) -> list[SubProblem]:
        """Up to ``count`` sub-problems that can go now, with their budgets, in order."""
        out = []
        while self.heap and len(out) < count:
            generation = self.heap[0][0]
            budget = self.budget(generation)
            if budget is None:
                break
            out.append(replace(heapq.heappop(self.heap)[3], budget=budget))
        return out


def worker_timings(timelines: list[dict], start: float, workers: int, local: bool) -> dict[str, float]:
    """Seconds the workers spent and lost: FILA's set-ups, starting, idle at the end.

    ``fila_setup`` adds up the sub-problems' hand-offs (CPU seconds over
    every worker, within the solve as in one process; their DLX set-ups
    are within it too, so they are no ``setup``).  On local workers (one
    clock), ``workers_start`` is the time from the dispatch to the first
    sub-problem's start, and ``idle_tail`` the mean time a worker waited
    at the end for the others to finish, a worker that got nothing to do
    counting as idle all along.
    """
    if not timelines:
        return {}
    out = {"fila_setup": sum(t["fila_setup"] for t in timelines)}
    if not local:
        return out
    end = max(t["ended"] for t in timelines)
    last: dict[int, float] = {}
    for t in timelines:
        last[t["pid"]] = max(last.get(t["pid"], 0.0), t["ended"])
    idle = sum(end - t for t in last.values()) + max(workers - len(last), 0) * (end - start)
    out["workers_start"] = min(t["started"] for t in timelines) - start
    out["idle_tail"] = idle / max(workers, len(last))
    return out


def status_lines(finished, n_subproblems: int, seconds: float) -> list[str]:
    """What SIGUSR1 prints during a split run (at the next finished sub-problem): the counts so far."""
    finished = list(finished)
    return ["# status so far (SIGUSR1)", "STATUS=running", f"ELAPSED_SECONDS={seconds:.3f}",
            f"SUBPROBLEMS_DONE={len(finished)}", f"SUBPROBLEMS={n_subproblems}",
            f"SOLUTIONS={sum(r['covers'] for r in finished)}",
            f"UNIQUE={sum(r['unique'] or 0 for r in finished)}", f"TOTAL={sum(r['total'] or 0 for r in finished)}"]


def solve_parallel(cover, engine, settings: Settings, options: ParallelOptions, limits=None,
                   alongside=None) -> Result:
    """Solve ``cover`` with ``engine`` split into sub-problems, on local workers or a Dask cluster.

    The kernels are loaded here, before the workers are forked, so they
    start warm: loading them in each worker while the parent splits saves
    nothing on two cores (three processes share them then) and costs CPU.
    ``alongside()`` (when given) runs once the workers have their first
    sub-problems, while they search.
    """
    # the workers' machinery (multiprocessing, concurrent.futures) loads only for a search that splits: a small
    # solve's whole process spares its 20-25 ms
    from bench.parallel import executors

    reason = splittable(engine, settings, limits, cover)
    if reason:
        raise UsageError(f"cannot run in parallel: {reason}")
    compile_seconds = engine.warm_up(cover, settings)
    settings = engine.settle(cover, settings)
    key = run_key(cover, engine, settings, options.depth)
    if options.cluster:
        client = executors.connect(options.cluster)
        try:
            with executors.ClusterWatchdog(client, options.stall_seconds):
                executors.check_workers(client, options.cluster,
                                        executors.responsive_workers(client, options.stall_seconds))
                return _solve(cover, engine, settings, options, limits, key, client, compile_seconds, alongside)
        finally:
            client.close()
    return _solve(cover, engine, settings, options, limits, key, None, compile_seconds, alongside)


def _release(handle, path: Path | None) -> None:
    """Close a journal file that never got its header, removing it when empty: nothing could resume from it."""
    if handle is None:
        return
    handle.close()
    if path is not None and path.exists() and path.stat().st_size == 0:
        path.unlink()


def _solve(cover, engine, settings: Settings, options: ParallelOptions, limits, key: str, client,
           compile_seconds: float, alongside) -> Result:
    """:func:`solve_parallel` once the settings are settled and the cluster (if any) reached."""
    from bench.parallel import executors

    timings = {"compile": compile_seconds}
    workers = options.workers
    dispatch = None
    if client is not None:
        # a call to every worker waits for each: one that stopped answering is left to the watchdog
        responsive = executors.responsive_workers(client, options.stall_seconds)
        workers = max(len(responsive), 1)
        start = time.perf_counter()
        client.run(engine.warm_up, workers=responsive)
        timings["worker_compile"] = time.perf_counter() - start
        dispatch = executors.dispatch_cost(client)
    # an engine that solves pieces of its tree splits its own levels and hands back what a budget leaves
    budgeted = {"cut", "budget"} <= engine.supported
    start_search = engine.search if budgeted else None
    start = time.perf_counter()
    journal = None
    path = options.journal
    # a journal of the default folder, which nobody asked for: one in use or unwritable costs the journal, not the run
    automatic = path is None
    if path is None and options.journal_dir is not None:
        name = cover.puzzle.name if cover.puzzle is not None else "cover"
        if writable_directory(options.journal_dir):
            prune(options.journal_dir)
            path = Path(options.journal_dir) / f"{Path(name).stem}-{engine.name}-{key[:16]}.jsonl"
        elif not options.resume:
            # the default place: a run that cannot keep a journal there still runs, without one
            print(f"bench: cannot write journals in {escape(options.journal_dir)}; solving without one "
                  "(give --journal FILE to be able to --resume)", file=sys.stderr)
    if options.resume and (path is None or not path.exists()):
        raise UsageError(f"--resume: no journal of this run{f' at {path}' if path else ''}; "
                         "it starts with the same puzzle, engine and settings")
    handle = None
    if path is not None:
        # locked from before the split to the end: a second run on this journal is refused now, not after its split
        try:
            handle = open_locked(path, "--journal")
        except UsageError as exc:
            if not automatic or options.resume:
                raise
            print(f"bench: {escape(exc)}; solving without a journal", file=sys.stderr)
            path = None
    try:
        if options.resume:
            journal = Journal.resume(path, key, handle)
            for message in journal.refused:
                print(f"bench: {escape(message)}; its sub-problem is solved again", file=sys.stderr)
            subs = journal.subproblems
            split_stats = journal.header["split_stats"]
            weights = journal.header["weights"]
            depth = journal.header["depth"]
        else:
            subs, split_stats, depth = plan(cover, settings, SUBPROBLEMS_PER_WORKER * workers, options.depth,
                                            start_search)
            if budgeted:
                weights = prefix_weights(cover, subs)
            else:
                subs, split_stats, weights = refine(cover, settings, subs, split_stats, workers)
            if path is not None:
                header = {"key": key, "cover_hash": cover.hash, "engine": engine.name, "settings": repr(settings),
                          "depth": depth, "subproblems": [s.to_json() for s in subs], "split_stats": split_stats,
                          "weights": weights}
    except BaseException:
        _release(handle, path)
        raise
    split_seconds = time.perf_counter() - start

    def without_journal(error: UsageError) -> None:
        # the default journal could not be written (a full disk): the run goes on, as it would have without one
        nonlocal journal, path
        if not automatic:
            raise error
        print(f"bench: {escape(error)}; going on without a journal", file=sys.stderr)
        if journal is not None:
            journal.close()
        journal = path = None

    def started() -> None:
        # called once the workers have their first sub-problems: the journal's header (and its fsync) and the
        # caller's work overlap theirs
        nonlocal journal
        if journal is None and path is not None:
            try:
                journal = Journal.create(path, header, handle)
            except UsageError as exc:
                without_journal(exc)
        if alongside is not None:
            alongside()

    done: dict[str, dict] = dict(journal.done) if journal else {}
    earlier = set(done)
    # the counters added up as the sub-problems come in, so that no sum is left for the end
    merged = merge_stats([split_stats] + [record["stats"] for record in done.values()])
    resumed = len(earlier)
    weights = dict(weights)
    schedule = Schedule(budgeted, split_stats.get("nodes", 0))
    for sub in subs:
        weight = weights.setdefault(sub.ident, _inherited(sub, weights, done))
        if sub.ident in done:
            schedule.known(sub.generation, done[sub.ident]["stats"]["nodes"])
        else:
            schedule.add(sub, weight)
    progress = Progress(len(subs), weights, options.progress)
    for ident in done:
        progress.skip(ident)
    errors: dict[str, str] = {}
    status = Status.SOLVED
    payload = (cover, engine, settings)
    tasks = 0
    timelines: list[dict | None] = []
    solve_start = time.perf_counter()
    # the parent's own work (dispatch, journal, merging), which must stay small beside the workers' at any count
    parent_start = time.process_time()
    queue = None

    def dispatch_tasks() -> None:
        # keep every worker fed: bundles of several sub-problems once many wait, single ones towards the end; only
        # budgets bound a sub-problem's size (a bundle of DLX sub-problems could hold minutes of search)
        nonlocal tasks
        while len(queue) < TASKS_PER_WORKER * workers and len(schedule):
            size = min(MAX_BUNDLE, max(1, len(schedule) // (BUNDLE_SPREAD * workers))) if budgeted else 1
            bundle = schedule.take(size)
            if not bundle:
                break
            queue.submit(bundle)
            tasks += 1

    try:
        if client is not None:
            queue = executors.ClusterQueue(client, payload, key)
        else:
            deadline = solve_start + limits.time_limit if limits is not None and limits.time_limit is not None else None
            queue = executors.LocalQueue(payload, options.workers, deadline, options.stall_seconds)
        dispatch_tasks()
        started()
        for sub, outcome in queue:
            if isinstance(outcome, BaseException):
                errors[sub.ident] = f"{type(outcome).__name__}: {outcome}"
                continue
            if outcome["status"] != Status.SOLVED.value:
                # partial counts of a sub-problem are never journaled: a resume would take them as final
                errors[sub.ident] = outcome["status"]
                continue
            timelines.append(outcome.pop("timeline", None))
            record = {"id": sub.ident, **outcome, "budget": sub.budget}
            if journal is not None:
                try:
                    journal.record(record)
                except UsageError as exc:
                    without_journal(exc)
            done[sub.ident] = record
            merged = merge_stats([merged, record["stats"]])
            pieces = sub.handed_back(record["rest"])
            share = weights[sub.ident] / (len(pieces) + 1)
            schedule.done(sub.generation, record["stats"]["nodes"])
            for piece in pieces:
                weights[piece.ident] = share
                schedule.add(piece, share)
            subs.extend(pieces)
            progress.advance(sub.ident, [piece.ident for piece in pieces])
            if signals.status_requested():
                signals.write_status(status_lines(done.values(), len(subs), time.perf_counter() - solve_start))
            if limits is not None and limits.time_limit is not None and \
                    time.perf_counter() - solve_start >= limits.time_limit:
                status = Status.TIMEOUT
                break
            dispatch_tasks()
    except KeyboardInterrupt:
        status = Status.INTERRUPTED
        signals.note_interrupt()
    finally:
        if queue is not None:
            queue.close()
        progress.close()
        if journal is not None:
            journal.close()
        else:
            _release(handle, path)
    solve_seconds = time.perf_counter() - solve_start
    timings["parent_cpu"] = time.process_time() - parent_start
    finished = [done[s.ident] for s in subs if s.ident in done]
    incomplete = len(finished) < len(subs) or any(r["status"] != Status.SOLVED.value for r in finished)
    if status == Status.SOLVED and incomplete:
        out_of_time = limits is not None and limits.time_limit is not None and solve_seconds >= limits.time_limit
        status = Status.TIMEOUT if out_of_time and not errors else Status.ERROR
    message = ""
    if status != Status.SOLVED:
        message = (f"partial counts: {len(finished)} of {len(subs)} sub-problems finished"
                   + (f"; failed: {', '.join(f'{k} ({v})' for k, v in sorted(errors.items()))}" if errors else ""))
        if journal is not None:
            message += f"; resume with --resume (journal {journal.path})"
    stats = merged
    stats["parallel"] = {"workers": workers, "cluster": options.cluster or "", "subproblems": len(subs),
                         "depth": depth, "handed_back": sum(s.generation > 0 for s in subs),
                         "generations": 1 + max((s.generation for s in subs), default=0),
                         "budget_largest": max((r["budget"] for r in finished), default=0),
                         "resumed": resumed, "refused": len(journal.refused) if journal else 0,
                         "errors": len(errors), "exact_statistics": "true",
                         "journal": str(journal.path) if journal else "",
                         **balance([r["stats"]["nodes"] for r in finished], split_stats.get("nodes", 0))}
    if dispatch is not None:
        busy = sum(record["seconds"] for ident, record in done.items() if ident not in earlier)
        stats["parallel"].update(tasks=tasks, dispatch_seconds_per_task=dispatch,
                                 dispatch_share=tasks * dispatch / busy if busy > 0 else 0.0)
    exact = status == Status.SOLVED
    timings.update(worker_timings([t for t in timelines if t is not None], solve_start, workers, local=client is None))
    return Result(
        engine=engine.name,
        variant=finished[0]["variant"] if finished else "",
        status=status,
        covers=sum(r["covers"] for r in finished),
        unique=sum(r["unique"] or 0 for r in finished) if exact or finished else None,
        total=sum(r["total"] or 0 for r in finished) if exact or finished else None,
        stats=stats,
        timings={**timings, "split": split_seconds, "solve": solve_seconds},
        cover_hash=cover.hash,
        message=message,
    )


def _inherited(sub: SubProblem, weights: dict, done: dict) -> float:
    """The weight of a piece handed back (its parent's, shared with its siblings and the parent itself)."""
    parent, _, _ = sub.ident.rpartition("/")
    if parent not in weights or parent not in done:
        return 0.0
    return weights[parent] / (len(done[parent]["rest"]) + 1)
