"""``xcover`` (J. F. Rudge): Knuth's Algorithm C over dancing cells, compiled with numba.

Spare pieces become secondary items; identical pieces are refused (xcover
has no multiplicities).  Knuth's colours are xcover's own (0 for none).  Its generator yields one cover per Python call,
which is its normal way of use; the covers are classified as they come.
The generator cannot be stopped between two covers, so it runs in a child
process killed past the time limit or at a stop signal
(:func:`~bench.engines.deadline.solve_within_limit`).
JIT compile time is measured on a tiny problem first and reported apart.

xcover's kernels compile as it is imported (their signatures are given),
into numba's cache beside them: a minute of a first run on a busy 2-core
machine, milliseconds afterwards.  :meth:`XcoverEngine.prefetch` imports it
in a forked child meanwhile, so that this process compiles other things.
"""

from __future__ import annotations

import importlib
import importlib.util
import multiprocessing
import os
import signal
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from bench.engines.collect import Collector, require_plain_exact_cover
from bench.engines.deadline import solve_within_limit
from bench.engines.protocol import Engine, Limits, Result, Settings
from bench.system.processes import die_with_parent

_compile_seconds: float | None = None
QUIET = "unsafe cast from uint64 to uint32"
"""numba's warning as it compiles xcover's kernels, which cast so on purpose: nothing the user can act on."""
_child = None
"""The forked process importing (so compiling) xcover, started by :meth:`XcoverEngine.prefetch`, or None."""


def warm_up() -> float:
    """Compile (or load from numba's cache) xcover's kernel once per process."""
    global _compile_seconds, _child
    if _compile_seconds is None:
        start = time.perf_counter()
        if _child is not None:
            # its import fills numba's cache, from which this one loads
            _child.join()
            _child = None
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=QUIET)
            # lazy: xcover imports numba, and compiles as it is imported; only an xcover solve pays it
            from xcover import algorithm_c

            options = np.array([0, 1, 1, 2, 0], dtype=np.uint32)
            ptr = np.array([0, 2, 4, 5], dtype=np.uint32)
            list(algorithm_c(options, ptr, np.zeros(5, dtype=np.uint32), 3, 0))
            _compile_seconds = time.perf_counter() - start
    return _compile_seconds


def _compiled() -> bool:
    """True when xcover is imported here, missing, or its kernels are in numba's cache beside it already."""
    if "xcover" in sys.modules:
        return True
    spec = importlib.util.find_spec("xcover")
    if spec is None or spec.origin is None:
        return True
    # numba's cache index of each kernel: MODULE.FUNCTION-LINE.pyXY.nbi
    tag = f"py{sys.version_info.major}{sys.version_info.minor}"
    cache = Path(spec.origin).parent / "__pycache__"
    return all(any(cache.glob(f"{name}-*.{tag}.nbi")) for name in ("dancing_cells.algorithm_c",
                                                                    "dancing_cells_zdd.algorithm_z"))


def _import_in_child(parent: int) -> None:
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent answers Ctrl-C, and its exit ends this process
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=QUIET)
            # the import compiles its kernels into numba's cache
            importlib.import_module("xcover")
    finally:
        os._exit(0)


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

    def prefetch(self, cover=None, settings: Settings | None = None) -> None:
        """On a cold cache, start importing xcover in a forked child (see the module docstring); returns at once."""
        global _child
        if _child is not None or _compile_seconds is not None or _compiled() or \
                "fork" not in multiprocessing.get_all_start_methods():
            return
        _child = multiprocessing.get_context("fork").Process(target=_import_in_child, args=(os.getpid(),),
                                                              daemon=True, name="bench-xcover-compile")
        _child.start()

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
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=QUIET)
            status, message = collector.collect(algorithm_c(options, ptr, colors, cover.n_items, int(secondary.size)))
        seconds = time.perf_counter() - start
        return collector.result(self.name, self.variant, status, seconds, message=message,
                                timings={"setup": setup, "compile": compile_seconds})
