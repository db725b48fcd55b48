"""Exact model counting of the cover's CNF with Ganak (``pyganak``).

The counter sees the same CNF as the SAT engine and counts its models
projected onto the option variables, so the count is the number of covers
whatever auxiliary variables the cardinality encoding adds.  It never
enumerates: 12,988,816 domino tilings of 8x8 take about a second, while
pentomino rectangles, with few covers and a hard structure, are slow.
Unique and total follow from the count only when the matrix allows it (see
:func:`~bench.engines.collect.counts_from_covers`).

Variant syntax for ``--engine``: ``ganak[:ENCODING]`` (default: the
sequential counter).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

from bench.engines.collect import counts_from_covers
from bench.engines.deadline import LOST
from bench.engines.sat import DEFAULT_ENCODING, ENCODINGS, build_cnf
from bench.engines.protocol import Engine, Limits, Result, Settings, Status
from bench.errors import Unsupported
from bench.system.processes import Overdue, call_with_deadline


@contextlib.contextmanager
def quiet_stdout():
    """Ganak prints progress lines on file descriptor 1 even when not verbose; keep them off the user's output."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def _count(counter) -> int:
    with quiet_stdout():
        return int(counter.count())


class GanakEngine(Engine):
    """Counts covers without enumerating them (see the module docstring).

    Ganak cannot be interrupted, so it counts in a child process that is
    killed at the deadline or at a stop signal
    (:func:`~bench.system.processes.call_with_deadline`).
    """

    name = "ganak"
    supported = frozenset({"time_limit"})
    counts_only = True
    requires = ("pyganak",)
    extra = "count"

    def __init__(self, variant: str = ""):
        self.tuning = {}
        self.encoding = variant or DEFAULT_ENCODING
        if self.encoding not in ENCODINGS:
            raise Unsupported(f"unknown SAT cardinality encoding '{self.encoding}'; expected one of: {', '.join(ENCODINGS)}")

    @property
    def variant(self) -> str:
        return self.encoding

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None,
              on_trace=None) -> Result:
        """Count the covers of ``cover``.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/dominoes_4x4.txt")
        >>> r = GanakEngine().solve(bench.Cover.from_puzzle(p))
        >>> r.status.value, r.covers, r.unique, r.total
        ('solved', 36, None, None)
        """
        # lazy: the model counter loads only for a ganak solve (an optional extra)
        import pyganak

        self.check(settings, limits)
        if limits.keep_solutions or on_solutions is not None:
            raise Unsupported("the counting engine counts covers without producing them")
        t0 = time.perf_counter()
        clauses, n_vars = build_cnf(cover, self.encoding)
        counter = pyganak.Counter(verbose=0, seed=0)
        counter.new_vars(n_vars)
        counter.add_clauses(clauses)
        if n_vars > cover.n_options:
            counter.set_sampling_set(range(1, cover.n_options + 1))
        setup = time.perf_counter() - t0
        start = time.perf_counter()
        try:
            covers = call_with_deadline(_count, limits.time_limit, counter)
        except (KeyboardInterrupt, Overdue, RuntimeError) as exc:
            status = {KeyboardInterrupt: Status.INTERRUPTED, Overdue: Status.TIMEOUT}.get(type(exc), Status.ERROR)
            return Result(engine=self.name, variant=self.variant, status=status, cover_hash=cover.hash,
                          message=str(exc) or LOST,
                          timings={"setup": setup, "solve": time.perf_counter() - start, "compile": 0.0})
        seconds = time.perf_counter() - start
        unique, total = counts_from_covers(cover, covers)
        return Result(engine=self.name, variant=self.variant, status=Status.SOLVED, covers=covers, unique=unique,
                      total=total, cover_hash=cover.hash,
                      stats={"variables": n_vars, "clauses": len(clauses)},
                      timings={"setup": setup, "solve": seconds, "compile": 0.0})
