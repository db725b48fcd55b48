"""``xcover`` (J. F. Rudge): Knuth's Algorithm C over dancing cells, compiled with numba.

Spare pieces become secondary items; identical pieces are refused (xcover
has no multiplicities).  Knuth's colours are xcover's own (0 for none).  Its generator yields one cover per Python call,
which is its normal way of use; the covers are classified as they come.
The generator cannot be stopped between two covers, so under a time limit
it runs in a child process killed past the limit
(:func:`~bench.engines.deadline.solve_within_limit`).
JIT compile time is measured on a tiny problem first and reported apart.
"""

from __future__ import annotations

import time

import numpy as np

from bench.engines.collect import Collector, require_plain_exact_cover
from bench.engines.deadline import solve_within_limit
from bench.engines.protocol import Engine, Limits, Result, Settings

_compile_seconds: float | None = None


def warm_up() -> float:
    """Compile (or load from numba's cache) xcover's kernel once per process."""
    global _compile_seconds
    if _compile_seconds is None:
        # lazy: xcover imports numba; only an xcover solve pays it
        from xcover import algorithm_c

        start = time.perf_counter()
        options = np.array([0, 1, 1, 2, 0], dtype=np.uint32)
        ptr = np.array([0, 2, 4, 5], dtype=np.uint32)
        list(algorithm_c(options, ptr, np.zeros(5, dtype=np.uint32), 3, 0))
        _compile_seconds = time.perf_counter() - start
    return _compile_seconds


def as_arrays(cover, primary: np.ndarray, secondary: np.ndarray):
    """The cover in xcover's sparse form: primary items first, then secondary ones."""
    renumber = np.empty(cover.n_items, dtype=np.uint32)
    renumber[primary] = np.arange(primary.size, dtype=np.uint32)
    renumber[secondary] = primary.size + np.arange(secondary.size, dtype=np.uint32)
    options = renumber[cover.opt_items]
    colours = np.zeros(options.size, dtype=np.uint32) if cover.opt_colour is None else \
        cover.opt_colour.astype(np.uint32)
    return options, cover.opt_ptr.astype(np.uint32), colours


class XcoverEngine(Engine):
    """Exact covers with ``xcover.algorithm_c``."""

    name = "xcover"
    supported = frozenset({"max_solutions", "time_limit"})
    variant = "algorithm_c"
    requires = ("xcover",)
    extra = "compare"

    def warm_up(self, cover=None, settings: Settings | None = None) -> float:
        """Seconds spent compiling (or loading) the kernel in this process (one for every cover)."""
        return warm_up()

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None,
              on_trace=None) -> Result:
        """Enumerate the covers of ``cover`` with xcover.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/pentominoes_20x3.txt")
        >>> r = XcoverEngine().solve(bench.Cover.from_puzzle(p, redundancy=True))
        >>> r.status.value, r.covers, r.unique, r.total
        ('solved', 2, 2, 8)
        """
        self.check(settings, limits)
        primary, secondary = require_plain_exact_cover(cover, self.name, secondary=True, colours=True)
        warm_up()
        return solve_within_limit(self, self._solve, cover, limits, on_solutions, primary, secondary)

    def _solve(self, cover, limits: Limits, on_solutions, primary, secondary) -> Result:
        # lazy: xcover imports numba; only an xcover solve pays it
        from xcover import algorithm_c

        compile_seconds = warm_up()
        t0 = time.perf_counter()
        options, ptr, colors = as_arrays(cover, primary, secondary)
        collector = Collector(cover, limits, on_solutions)
        setup = time.perf_counter() - t0
        start = time.perf_counter()
        status, message = collector.collect(algorithm_c(options, ptr, colors, cover.n_items, int(secondary.size)))
        seconds = time.perf_counter() - start
        return collector.result(self.name, self.variant, status, seconds, message=message,
                                timings={"setup": setup, "compile": compile_seconds})
