"""The ``exact-cover`` package: a C implementation of Algorithm X with dancing links.

It takes a dense Boolean matrix and returns only the number of covers (its
enumeration returns them all at once, at the end), so unique and total are
known only where the count alone determines them.  It has neither secondary
items nor multiplicities, so spare and identical pieces are refused, and it
cannot be interrupted from Python: it counts in a child process killed at
the deadline or at a stop signal (:func:`~bench.system.processes.call_with_deadline`).
"""

from __future__ import annotations

import time

import numpy as np

from bench.engines.collect import counts_from_covers, require_plain_exact_cover
from bench.engines.deadline import LOST
from bench.engines.protocol import Engine, Limits, Result, Settings, Status
from bench.errors import Unsupported
from bench.system.processes import Overdue, call_with_deadline


class ExactCoverEngine(Engine):
    """Counts covers with ``exact_cover.get_solution_count``."""

    name = "exact-cover"
    variant = "get_solution_count"
    counts_only = True
    supported = frozenset({"time_limit"})
    requires = ("exact_cover",)
    extra = "compare"

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None,
              on_trace=None) -> Result:
        """Count the covers of ``cover``.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/pentominoes_20x3.txt")
        >>> r = ExactCoverEngine().solve(bench.Cover.from_puzzle(p, redundancy=True))
        >>> r.status.value, r.covers
        ('solved', 2)
        """
        # lazy: only an exact-cover solve loads its library
        from exact_cover import get_solution_count

        self.check(settings, limits)
        if limits.keep_solutions or on_solutions is not None:
            raise Unsupported("engine 'exact-cover' is used here to count covers, not to produce them")
        require_plain_exact_cover(cover, self.name, secondary=False)
        t0 = time.perf_counter()
        matrix = np.zeros((cover.n_options, cover.n_items), dtype=np.bool_)
        rows = np.repeat(np.arange(cover.n_options), np.diff(cover.opt_ptr))
        matrix[rows, cover.opt_items] = True
        setup = time.perf_counter() - t0
        start = time.perf_counter()
        try:
            covers = int(call_with_deadline(get_solution_count, limits.time_limit, matrix))
        except (Overdue, KeyboardInterrupt) as exc:
            status = Status.TIMEOUT if isinstance(exc, Overdue) else Status.INTERRUPTED
            return Result(engine=self.name, variant=self.variant, status=status, cover_hash=cover.hash,
                          message=str(exc) or LOST,
                          timings={"setup": setup, "solve": time.perf_counter() - start, "compile": 0.0})
        seconds = time.perf_counter() - start
        unique, total = counts_from_covers(cover, covers)
        return Result(engine=self.name, variant=self.variant, status=Status.SOLVED, covers=covers, unique=unique,
                      total=total, cover_hash=cover.hash, timings={"setup": setup, "solve": seconds, "compile": 0.0})
