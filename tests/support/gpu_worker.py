"""The GPU engine's solves for tests/test_gpu.py, in whichever process runs them.

The tests call these in a child process started with numba-cuda's simulator
switched on (``NUMBA_ENABLE_CUDASIM=1``, read when ``numba.cuda`` is first
imported), so that the rest of the test run keeps the real ``numba.cuda``;
on a machine with a device they call them in the test process itself.
Arguments and results are plain data, so they cross a process boundary.
"""

from __future__ import annotations

import os
import signal


def cover_of(source, redundancy=None):
    """A cover from a definition file's path, a definition's text, or ``("options", rows, lo, hi, n_cells)``."""
    import bench
    from bench import Cover
    from bench.models.definition import parse_text
    from bench.models.puzzle import Puzzle

    if isinstance(source, tuple):
        _, rows, lo, hi, n_cells = source
        return Cover.from_options(rows, lo, hi, n_cells=n_cells)
    if "\n" in str(source):
        return Cover.from_puzzle(Puzzle.from_definition(parse_text(source)[0]), redundancy=redundancy)
    [puzzle] = bench.load(source)
    return Cover.from_puzzle(puzzle, redundancy=redundancy)


def solve(source, redundancy=None, limits=None, tuning=None, collect=False, stop_after=0) -> dict:
    """Solve with the GPU engine; the result as plain data.

    ``collect`` gathers what the engine hands its sink; ``stop_after`` sends
    this process SIGINT after that many launches, with the command line's
    signal handlers installed (as ``bench solve`` runs a search).
    """
    from bench.engines import Limits, get_engine
    from bench.engines.gpu import Tuning
    from bench.engines.search import MONITOR
    from bench.system import signals

    cover = cover_of(source, redundancy)
    handed = []
    sink = (lambda batch, weights: handed.append(([b.tolist() for b in batch], list(weights)))) if collect else None
    launches = []

    def monitor(search):
        launches.append(search)
        if len(launches) == stop_after:
            os.kill(os.getpid(), signal.SIGINT)

    token = MONITOR.set(monitor if stop_after else None)
    try:
        with signals.handled():
            result = get_engine("gpu").solve(cover, limits=Limits(**(limits or {})), on_solutions=sink,
                                             tuning=Tuning(**(tuning or {})))
    finally:
        MONITOR.reset(token)
    return {"status": result.status.value, "counts": (result.covers, result.unique, result.total),
            "stats": result.stats, "timings": result.timings, "solutions": [s.tolist() for s in result.solutions],
            "handed": handed}


def engine_state() -> dict:
    """Whether the engine sees a device here, and whether numba-cuda simulates it."""
    from bench.engines import get_engine
    from bench.engines.gpu import simulated

    engine = get_engine("gpu")
    return {"available": engine.available(), "simulated": simulated(), "missing": engine.missing()}
