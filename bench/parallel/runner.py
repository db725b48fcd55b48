"""Solving one cover on many cores or machines, with a checkpoint journal.

The search is split (:mod:`bench.parallel.split`) into at least
``SUBPROBLEMS_PER_WORKER`` sub-problems per worker; each is sized by
random paths (:mod:`bench.engines.sampling`), the large ones are split one
level deeper, and they are dispatched largest first so that the last to
finish are small.  Every finished sub-problem goes to the journal before
it counts, so a run stopped at any point resumes with ``resume=True``:
the journal's own split is reused, what it holds is not solved again, and
the totals are the uninterrupted run's.  A result is SOLVED only when
every sub-problem is; otherwise its counts are partial and its status and
message say so.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
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
from bench.engines.sampling import estimate_nodes, estimate_tree
from bench.parallel import SUBPROBLEMS_PER_WORKER, ParallelOptions
from bench.parallel.balance import balance
from bench.parallel.journal import Journal, prune
from bench.parallel.split import SubProblem, merge_stats, options_left, split
from bench.parallel import executors
from bench.parallel.progress import Progress

ESTIMATE_PATHS = 600
DISPATCH_SHARE = 0.025
"""Target share of a cluster run spent on scheduler round trips: half the 5 % allowed, as estimates may be 2x off."""
FIRST_SHARE = 0.5
"""Estimated share of a cluster run sent first, largest sub-problems one per task, to time the engine on the workers."""
TAIL_WEIGHT = 0.3
"""Fraction of a split's estimated work, its smallest sub-problems, that :func:`share_tail` cuts in shares."""
TAIL_SHARES = 3
"""Shares each of those is cut in."""
MIN_PARALLEL_NODES = 2_000_000
"""Estimated DLX nodes below which an automatic run stays in one process (a few seconds at most)."""
INEXACT_COUNTERS = ("NODES", "UPDATES", "DEAD_ENDS", "ATTEMPTS*", "FITS*", "NO_FITS_TOTAL", "LIST_UPDATES*", "FILA_*",
                    "PARITY_*", "VOLUME_*", "FIT_FILTER*")
"""The ``--info`` counters (glob patterns) that differ from one search's when the split cuts below FILA's
hand-off (:func:`exact_depth` says why): every counter of the search itself; covers, unique and total add up."""


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
    return estimate_tree(cover, sizing(settings), trials=200).nodes >= MIN_PARALLEL_NODES


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
    """Identifies a run for its journal: the matrix, the engine, every setting that shapes the search, and the code
    (:func:`bench.toolchain.sources.code_version`: a journal written by other code is never resumed)."""
    text = json.dumps([cover.hash, engine.name, repr(replace(settings, prefix=())), depth, sources.code_version()],
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def exact_depth(cover, settings: Settings) -> int | None:
    """The deepest split whose statistics add up to the single search's: the level where FILA takes over.

    Above that level a single search runs DLX, as the splitter and a
    sub-problem's replayed prefix do.  A sub-problem cut deeper would run in
    DLX levels that one search runs in FILA: another tree (DLX branches on
    the item with the fewest options, FILA on its heuristic's hole), counted
    DLX's way, and a hand-off whose image lists lack the images the prefix
    rules out, so FILA counts fewer attempts and no-fits below it (10x6,
    FILA after the first piece, split 2 deep: 26,172,400 nodes against
    28,757,025).  Covers, unique and total add up at any depth.  None when
    no FILA takes over (DLX adds up at any depth); 0 or less when FILA
    takes over at the root.
    """
    if not settings.fila:
        return None
    return cover.piece_count - settings.fila


def plan(cover, settings: Settings, parts: int, depth: int | None = None) -> tuple[list[SubProblem], dict, int]:
    """Sub-problems (at least ``parts`` when the tree allows), the splitter's counters and the split depth.

    Without ``depth`` the split goes no deeper than :func:`exact_depth`, so
    every counter adds up; an explicit ``depth`` is followed.
    """
    n_pieces = cover.piece_count
    exact = exact_depth(cover, settings)
    deepest = max(n_pieces - 1 if exact is None else exact, 1)
    if depth is not None and depth > max(n_pieces - 1, 1):
        raise UsageError(f"--split-depth {depth}: this search has {n_pieces} pieces, so it splits at most "
                         f"{max(n_pieces - 1, 1)} levels deep")
    d = depth or 1
    top = split(cover, settings, d)
    while depth is None and len(top.subproblems) < parts and d < deepest:
        d += 1
        top = split(cover, settings, d)
    return top.subproblems, top.stats, d


def refine(cover, settings: Settings, subs: list[SubProblem], stats: dict, workers: int, seed: int = 1,
           shares: bool = False):
    """Split the sub-problems that random paths say are large one level deeper; returns them with their weights.

    When none can go deeper (one worker, or every prefix already at the
    deepest exact depth: the Tetris Cube's 12 first placements), the
    weights only order the dispatch and drive the progress bar, and
    :func:`prefix_weights` gives them for free: on the Tetris Cube they rank
    the sub-problems' solving times better than 600 random paths do
    (Spearman 0.80 against 0.57) in no time, where the paths took 0.05 s
    before any worker started.  With ``shares`` (an engine that solves a
    share of a sub-problem, :attr:`Settings.share`) the ones dispatched
    last are then cut in shares (:func:`share_tail`).
    """
    n_pieces = cover.piece_count
    exact = exact_depth(cover, settings)
    deepest = n_pieces - 1 if exact is None else exact
    if workers <= 1 or all(len(sub.prefix) >= deepest for sub in subs):
        weights = prefix_weights(cover, subs)
        if workers > 1 and shares and exact is not None and all(len(sub.prefix) == exact for sub in subs):
            subs, weights = share_tail(subs, weights)
        return subs, stats, weights
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


def share_tail(subs: list[SubProblem], weights: dict[str, float]) -> tuple[list[SubProblem], dict[str, float]]:
    """``subs`` with the smallest, :data:`TAIL_WEIGHT` of the weight, cut in :data:`TAIL_SHARES` shares each.

    Dispatched largest first, the last sub-problems decide how long one
    worker waits for the other at the end: on the Tetris Cube its 12
    first placements left a worker idle 0.07 s on average, the last ones
    taking 0.15 to 0.19 s.  A share costs its own replay and FILA set-up
    (about 3 ms there), so only the tail is cut.  The shares split the
    root's children, taking every J-th (:attr:`Settings.share`).
    """
    total = sum(weights.values())
    tail: set[str] = set()
    load = 0.0
    for sub in sorted(subs, key=lambda s: weights[s.ident]):
        load += weights[sub.ident]
        if load > TAIL_WEIGHT * total:
            break
        tail.add(sub.ident)
    out: list[SubProblem] = []
    cut: dict[str, float] = {}
    for sub in subs:
        pieces = sub.shares(TAIL_SHARES) if sub.ident in tail else [sub]
        for piece in pieces:
            cut[piece.ident] = weights[sub.ident] / len(pieces)
            out.append(piece)
    return out, cut


def prefix_weights(cover, subs: list[SubProblem]) -> dict[str, float]:
    """Relative sizes of ``subs`` from the options their prefixes leave: (left / options) to the power 5.

    The power is the growth :mod:`bench.models.tuning` measured on the
    Tetris Cube (15 % more options left, twice the time).
    """
    left = options_left(cover, subs) / max(cover.n_options, 1)
    return {sub.ident: float(x) ** GROWTH_EXPONENT for sub, x in zip(subs, left)}


def bundle(subs: list[SubProblem], weights: dict, least: float) -> list[list[SubProblem]]:
    """Group ``subs`` in order into tasks of at least ``least`` estimated nodes (the last may hold less).

    A sub-problem of that weight or more is a task alone, so with ``subs``
    largest first the tasks are too, and the last to be dispatched are
    about ``least``: the tail where workers wait for each other stays short.
    """
    out: list[list[SubProblem]] = []
    current: list[SubProblem] = []
    load = 0.0
    for sub in subs:
        current.append(sub)
        load += weights.get(sub.ident, 0.0)
        if load >= least:
            out.append(current)
            current, load = [], 0.0
    if current:
        out.append(current)
    return out


def _cluster_outcomes(client, payload, todo: list[SubProblem], weights: dict, key: str, workers: int,
                      dispatch: float, report: dict):
    """Send ``todo`` (largest first) to the cluster: the largest alone, the rest in bundles sized from the first.

    The largest sub-problems, about :data:`FIRST_SHARE` of the estimated
    work, go one per task; once ``workers`` of them are back, their solving
    seconds per estimated node turn the round trip (``dispatch`` seconds)
    into the least weight of a task that keeps round trips under
    :data:`DISPATCH_SHARE` of its solving time, and the rest go in bundles
    of that weight.  ``report`` receives the run's estimated solving
    seconds and the number of tasks.
    """
    total = sum(weights.get(s.ident, 0.0) for s in todo)
    first, load = [], 0.0
    while len(first) < len(todo) and (len(first) < 2 * workers or load < FIRST_SHARE * total):
        load += weights.get(todo[len(first)].ident, 0.0)
        first.append(todo[len(first)])

    rest = todo[len(first):]
    queue = executors.ClusterQueue(client, payload, key)
    tasks = len(first)
    report.update(tasks=tasks)
    try:
        for sub in first:
            queue.submit([sub])
        measured_weight = measured_seconds = 0.0
        returned = 0
        for sub, outcome in queue:
            yield sub, outcome
            if rest is None:
                continue
            returned += 1
            if not isinstance(outcome, BaseException):
                measured_weight += weights.get(sub.ident, 0.0)
                measured_seconds += outcome["seconds"]
            if returned >= min(workers, len(first)):
                per_weight = measured_seconds / measured_weight if measured_weight > 0 else 0.0
                least = dispatch / DISPATCH_SHARE / per_weight if per_weight > 0 else 0.0
                # the first were picked for their large estimates, which are biased upwards, so ``least`` may be
                # too large: keep enough tasks for the workers to finish together
                rest_weight = sum(weights.get(s.ident, 0.0) for s in rest)
                least = min(least, rest_weight / (SUBPROBLEMS_PER_WORKER * workers))
                bundles = bundle(rest, weights, least)
                estimated = per_weight * total
                for b in bundles:
                    queue.submit(b)
                tasks += len(bundles)
                report.update(tasks=tasks, estimated_seconds=estimated)
                rest = None
    finally:
        queue.close()


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
            subs, split_stats, depth = plan(cover, settings, SUBPROBLEMS_PER_WORKER * workers, options.depth)
            subs, split_stats, weights = refine(cover, settings, subs, split_stats, workers,
                                                shares="share" in engine.supported)
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
    resumed = len(earlier)
    todo = sorted((s for s in subs if s.ident not in done), key=lambda s: -weights.get(s.ident, 0.0))
    progress = Progress(len(subs), weights, options.progress)
    for ident in done:
        progress.skip(ident)
    errors: dict[str, str] = {}
    status = Status.SOLVED
    payload = (cover, engine, settings)
    report: dict = {}
    timelines: list[dict | None] = []
    solve_start = time.perf_counter()
    outcomes = None
    try:
        if client is not None or not todo:
            started()
        if client is not None:
            outcomes = _cluster_outcomes(client, payload, todo, weights, key, workers, dispatch, report)
        else:
            deadline = solve_start + limits.time_limit if limits is not None and limits.time_limit is not None else None
            outcomes = executors.local_results(payload, todo, options.workers, deadline, on_started=started,
                                               stall_seconds=options.stall_seconds)
        for sub, outcome in outcomes:
            if isinstance(outcome, BaseException):
                errors[sub.ident] = f"{type(outcome).__name__}: {outcome}"
                continue
            if outcome["status"] != Status.SOLVED.value:
                # partial counts of a sub-problem are never journaled: a resume would take them as final
                errors[sub.ident] = outcome["status"]
                continue
            timelines.append(outcome.pop("timeline", None))
            record = {"id": sub.ident, **outcome}
            if journal is not None:
                try:
                    journal.record(record)
                except UsageError as exc:
                    without_journal(exc)
            done[sub.ident] = record
            progress.advance(sub.ident)
            if signals.status_requested():
                signals.write_status(status_lines(done.values(), len(subs), time.perf_counter() - solve_start))
            if limits is not None and limits.time_limit is not None and \
                    time.perf_counter() - solve_start >= limits.time_limit:
                status = Status.TIMEOUT
                break
        if status == Status.TIMEOUT:
            outcomes.close()
    except KeyboardInterrupt:
        status = Status.INTERRUPTED
        signals.note_interrupt()
        if outcomes is not None:
            outcomes.close()
    finally:
        progress.close()
        if journal is not None:
            journal.close()
        else:
            _release(handle, path)
    solve_seconds = time.perf_counter() - solve_start
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
    stats = merge_stats([split_stats] + [r["stats"] for r in finished])
    exact = exact_depth(cover, settings)
    cut = max((len(s.prefix) for s in subs), default=0)
    stats["parallel"] = {"workers": workers, "cluster": options.cluster or "", "subproblems": len(subs),
                         "depth": depth, "resumed": resumed, "refused": len(journal.refused) if journal else 0,
                         "errors": len(errors),
                         "exact_statistics": "true" if exact is None or cut <= exact else "false",
                         "inexact_counters": "" if exact is None or cut <= exact else ",".join(INEXACT_COUNTERS),
                         "journal": str(journal.path) if journal else "",
                         **balance([r["stats"]["nodes"] for r in finished], split_stats.get("nodes", 0))}
    if dispatch is not None:
        tasks = report.get("tasks", 0)
        busy = sum(record["seconds"] for ident, record in done.items() if ident not in earlier)
        stats["parallel"].update(report, dispatch_seconds_per_task=dispatch,
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
