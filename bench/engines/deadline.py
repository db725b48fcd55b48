"""Engines that cannot be stopped in the middle of a call, held to their time limit all the same.

xcover's compiled generator and the SAT solvers python-sat cannot interrupt
check the clock only between two covers or two calls, and a puzzle with few
covers may give them none for hours.  Under a time limit they solve in a
child process (:func:`~bench.system.processes.call_with_deadline`) that checks the
clock where it can and is killed :data:`GRACE` seconds past the limit.
"""

from __future__ import annotations

import time

from bench.engines.protocol import Result, Status
from bench.system.processes import Overdue, call_with_deadline

GRACE = 0.02
"""Seconds past the limit before the child is killed: time to hand its counts back when its clock check came at
the limit, well within the tenth of the limit (or 50 ms) a time limit may be overshot (0.5 s made 0.5 s take 1 s)."""


def solve_within_limit(engine, solve, cover, limits, *args) -> Result:
    """``solve(cover, limits, *args)``, in a child killed past ``limits.time_limit`` (here when there is none).

    Covers handed to a sink are handed over in the child (printing goes
    to the same output); a killed child's counts are lost, so its result
    is a TIMEOUT without counts.
    """
    if limits.time_limit is None:
        return solve(cover, limits, *args)
    start = time.perf_counter()
    try:
        return call_with_deadline(solve, limits.time_limit + GRACE, cover, limits, *args)
    except Overdue as exc:
        return Result(engine=engine.name, variant=engine.variant, status=Status.TIMEOUT, cover_hash=cover.hash,
                      message=f"time limit: {exc}", timings={"solve": time.perf_counter() - start})
