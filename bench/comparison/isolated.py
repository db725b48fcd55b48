"""One engine on one cover in a child process with a hard timeout: a hang or a crash costs its row, never the run.

The child is forked, so it shares the cover without copying it and
inherits the JIT code the parent compiled while warming up.  It leads its
own process group, so the timeout also stops the worker processes of a
split solve, and it dies with the run (:func:`~bench.system.processes.die_with_parent`),
so killing ``bench run`` leaves no engine behind.
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import signal
import time
import traceback

from bench.engines import Limits, Result, Settings, Status, get_engine
from bench.errors import UsageError
from bench.parallel.runner import ParallelOptions, solve_maybe_parallel
from bench.system.processes import die_with_parent


def limits_for(engine, mode: str, timeout: float) -> Limits:
    """The limits an engine is given: the ones it supports, the hard timeout backing them up."""
    return Limits(max_solutions=1 if mode == "first" else None,
                  time_limit=timeout if "time_limit" in engine.supported else None)


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
        elif parallel is not None and mode == "count" and engine.splittable:
            result = solve_maybe_parallel(cover, engine, settings, limits_for(engine, mode, timeout), parallel,
                                          printing=False)
        else:
            result = engine.solve(cover, settings, limits_for(engine, mode, timeout))
    except UsageError as exc:
        result = Result(engine=spec, status=Status.SKIPPED, message=str(exc))
    except BaseException as exc:
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        result = Result(engine=spec, status=Status.ERROR, message=last)
    result.solutions = []
    conn.send(result)
    conn.close()


def solve_isolated(spec: str, cover, mode: str, timeout: float, parallel: ParallelOptions | None = None,
                   settings: Settings = Settings()) -> Result:
    """Solve in a forked child with a hard timeout, under ``settings``; a crash or a hang becomes a status."""
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
