"""How ``bench run`` solves one puzzle: every engine on the same cover, round after round, each in a child process.

**Isolated solves** (:func:`solve_isolated`).  Each solve runs in a forked
child with a hard timeout: a hang or a crash costs its row, never the run.
The child shares the cover without copying it and inherits the JIT code the
parent compiled while warming up (:func:`warm_up`), so compile time stays
apart from solve time.  It leads its own process group, so the timeout also
stops the worker processes of a split solve, and it dies with the run
(:func:`~bench.system.processes.die_with_parent`), so killing ``bench run``
leaves no engine behind.  It sends back its result with the first solution
it found (engines that only count send none), which the result file keeps
for the reports' pictures: nothing is solved twice.

**Rounds** (:func:`solve_rounds`).  Engines are interleaved, each round
starting one engine later than the one before, so slow drift of the machine
favours none.

Nothing here prints: a ``progress`` object, when given, is told what
happens (``warming(spec)``, ``engine(spec, round_no)``, ``finished(row)``)
and shows it as it sees fit (``bench run``'s bar, :class:`bench.cli.run.RunProgress`).
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import signal
import time
import traceback

from bench.comparison.results import row
from bench.drawing.solution import Solution
from bench.engines import Limits, Result, Settings, Status, get_engine
from bench.errors import UsageError
from bench.parallel.runner import ParallelOptions
from bench.session.session import Session
from bench.system.processes import die_with_parent
from bench.toolchain.warmup import prefetching


def limits_for(engine, mode: str, timeout: float) -> Limits:
    """The limits an engine is given: the ones it supports, the hard timeout backing them up, one solution kept."""
    return Limits(max_solutions=1 if mode == "first" else None,
                  time_limit=timeout if "time_limit" in engine.supported else None,
                  keep_solutions=0 if engine.counts_only else 1)


def _child(spec: str, cover, mode: str, timeout: float, parallel: ParallelOptions | None, settings: Settings, conn,
           parent: int) -> None:
    # its own process group keeps the terminal's signals from it, so it must die with the run instead
    die_with_parent(parent)
    faulthandler.disable()  # a crashing engine is reported as a status, not with a stack dump
    os.setpgid(0, 0)  # so that a hard timeout also stops the worker processes of a split solve
    try:
        engine = get_engine(spec)
        if not engine.available():
            result = Result(engine=spec, status=Status.SKIPPED, message=engine.missing())
        elif mode == "first" and engine.counts_only:
            result = Result(engine=spec, status=Status.SKIPPED, message="counts only; no first-solution mode")
        else:
            split = parallel if mode == "count" and engine.splittable else None
            result = Session(engine, limits=limits_for(engine, mode, timeout), parallel=split).solve(cover, settings)
    except UsageError as exc:
        result = Result(engine=spec, status=Status.SKIPPED, message=str(exc))
    except BaseException as exc:
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        result = Result(engine=spec, status=Status.ERROR, message=last)
    result.solutions = result.solutions[:1]
    conn.send(result)
    conn.close()


def solve_isolated(spec: str, cover, mode: str, timeout: float, parallel: ParallelOptions | None = None,
                   settings: Settings = Settings()) -> Result:
    """Solve in a forked child with a hard timeout, under ``settings``; a crash or a hang becomes a status.

    The result holds the first solution the engine found, if it hands solutions back.
    """
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    # not daemonic: a daemonic process may not start the worker pool of a split solve
    proc = ctx.Process(target=_child, args=(spec, cover, mode, timeout, parallel, settings, send, os.getpid()),
                       daemon=False)
    start = time.perf_counter()
    proc.start()
    try:
        os.setpgid(proc.pid, proc.pid)  # the child does it too: whichever runs first, no gap
    except (ProcessLookupError, PermissionError):
        pass
    send.close()
    grace = max(2.0, 0.1 * timeout)
    try:
        if receive.poll(timeout + grace):
            try:
                return receive.recv()
            except EOFError:
                proc.join(5)
                return Result(engine=spec, status=Status.ERROR, message=f"engine crashed (exit code {proc.exitcode})",
                              timings={"solve": time.perf_counter() - start})
        return Result(engine=spec, status=Status.TIMEOUT, message=f"killed after {timeout + grace:.0f} s",
                      timings={"solve": time.perf_counter() - start})
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the child and any worker processes it left behind
        except (ProcessLookupError, PermissionError):
            pass
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()


def prefetch(specs: list[str]) -> None:
    """Start compiling, beside this process, what the engines need for any cover; returns at once.

    Called before the first puzzle is encoded, so that a cold cache's
    compilations overlap with the encoding's (FILA's sampler and one-shot
    filters) rather than follow them.
    """
    with prefetching():
        for spec in specs:
            engine = get_engine(spec)
            if engine.available():
                engine.prefetch()


def warm_up(specs: list[str], cover, settings: dict | None = None, progress=None) -> dict[str, float]:
    """Compile (or load) what the JIT engines need for ``cover`` in this process; forked children inherit the code.

    On a cold cache the dearest of every engine's kernels starts compiling in
    a child (:meth:`~bench.engines.protocol.Engine.prefetch`, gathered by
    :func:`~bench.toolchain.warmup.prefetching`) while this process compiles
    the rest, and the warm-ups load it when it is done: the longest compile
    (FILA's kernel) sets the pace, not the sum.  ``settings`` maps a spec to
    the settings it runs with (its own configuration), else the defaults.
    """
    engines = {spec: get_engine(spec) for spec in specs}
    engines = {spec: engine for spec, engine in engines.items() if engine.available()}
    settings = settings or {}
    with prefetching():
        for spec, engine in engines.items():
            engine.prefetch(cover, settings.get(spec))
    seconds = {}
    for spec, engine in engines.items():
        if progress is not None:
            progress.warming(spec)
        seconds[spec] = engine.warm_up(cover, settings.get(spec))
    return seconds


NO_SOLUTION_BACK = ("no engine handed a solution back (a split solve and the counting engines count without "
                    "returning one)")


def solve_rounds(entry: dict, cover, specs: list[str], rounds: int, mode: str, timeout: float,
                 compile_seconds: dict, parallel: ParallelOptions | None = None, progress=None,
                 settings: dict | None = None) -> list[dict]:
    """All rounds of all engines on one cover (split over ``parallel`` for the engines that can split).

    ``settings`` maps a spec to the settings it runs with, else the defaults.
    The first solution an engine hands back is stored in the puzzle's
    ``entry`` (``solution``, :meth:`~bench.drawing.solution.Solution.to_json`);
    without one, ``solution_note`` says why.
    """
    settings = settings or {}
    rows = []
    for round_no in range(rounds):
        shift = round_no % len(specs)
        for spec in specs[shift:] + specs[:shift]:
            if progress is not None:
                progress.engine(spec, round_no)
            result = solve_isolated(spec, cover, mode, timeout, parallel, settings.get(spec, Settings()))
            if result.status != Status.SKIPPED:
                result.timings.setdefault("compile", compile_seconds.get(spec, 0.0))
            if result.solutions and "solution" not in entry and cover.puzzle is not None:
                entry["solution"] = Solution.from_cover(cover, result.solutions[0],
                                                        title=f"{entry['key']}: a solution").to_json()
            rows.append(row(entry, spec, round_no, result))
            if progress is not None:
                progress.finished(rows[-1])
    if "solution" not in entry:
        if not any((r["covers"] or 0) > 0 for r in rows):
            entry["solution_note"] = "no engine found a solution"
        elif cover.puzzle is None:
            entry["solution_note"] = "a matrix read from an exchange file has no cells to draw"
        else:
            entry["solution_note"] = NO_SOLUTION_BACK
    return rows


def static_proof_rows(entry: dict, specs: list[str], reasons: list[str]) -> list[dict]:
    """Rows for a puzzle the model proves unsolvable before any search: the proof, and every engine not run."""
    proof = Result(engine="static-check", status=Status.SOLVED, covers=0, unique=0, total=0,
                   message="; ".join(reasons), timings={"solve": 0.0})
    entry["solution_note"] = "unsolvable, proved without search"
    return [row(entry, "static-check", 0, proof)] + skipped_rows(entry, specs,
                                                                  "not run: the static check proves it unsolvable")


def skipped_rows(entry: dict, specs: list[str], message: str) -> list[dict]:
    """A ``skipped`` row with ``message`` for each engine of ``specs`` not run on the puzzle."""
    return [row(entry, spec, 0, Result(engine=spec, status=Status.SKIPPED, message=message)) for spec in specs]
