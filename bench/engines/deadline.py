"""Engines that cannot be stopped in the middle of a call, held to their time limit and to a stop signal all the same.

xcover's compiled generator, CP-SAT and the SAT solvers python-sat drives
run long stretches of native code that neither look at the clock nor see a
signal: a puzzle with few covers may keep them there for hours, deaf to
Ctrl-C.  So they solve in a child process
(:func:`~bench.system.processes.call_with_deadline`) that checks the clock
where it can, is killed :data:`GRACE` seconds past the limit, and is killed
at once when a stop signal reaches this process.  The covers the child
finds come back through a pipe as it finds them and reach the caller's
sink here, so printing, drawing and ``--json --solutions`` see every one.
"""

from __future__ import annotations

import time

from bench.engines.protocol import Result, Status
from bench.system.processes import Overdue, call_with_deadline

GRACE = 0.02
"""Seconds past the limit before the child is killed: time to hand its counts back when its clock check came at
the limit, well within the tenth of the limit (or 50 ms) a time limit may be overshot (0.5 s made 0.5 s take 1 s)."""
LOST = "counts lost with its process"
"""The message of a search stopped by a signal in a child process: the child was killed before it could say."""


def solve_within_limit(engine, solve, cover, limits, on_solutions, *args) -> Result:
    """``solve(cover, limits, sink, *args)`` in a child killed past ``limits.time_limit`` or at a stop signal.

    ``sink`` hands each batch of covers back to ``on_solutions`` in this
    process (None without one).  A killed child's counts go with it: its
    result is a TIMEOUT, or INTERRUPTED after a stop signal, without counts.
    """
    start = time.perf_counter()

    def apart(forward):
        # in the child: its covers travel to this process, which hands them to the sink
        return solve(cover, limits, forward if on_solutions is not None else None, *args)

    seconds = None if limits.time_limit is None else limits.time_limit + GRACE
    try:
        return call_with_deadline(apart, seconds, relay=on_solutions or (lambda *batch: None))
    except Overdue as exc:
        return Result(engine=engine.name, variant=engine.variant, status=Status.TIMEOUT, cover_hash=cover.hash,
                      message=f"time limit: {exc}", timings={"solve": time.perf_counter() - start})
    except KeyboardInterrupt:
        return Result(engine=engine.name, variant=engine.variant, status=Status.INTERRUPTED, cover_hash=cover.hash,
                      message=LOST,
                      timings={"solve": time.perf_counter() - start})
