"""The native DLX engine: Algorithm X with item multiplicities on two kernels that run the same search.

Option bitsets (:mod:`bench.kernels.bitset`) wherever the settings allow, and
sparse sets (:mod:`bench.kernels.sparse_sets`, "dancing cells") with
constraints at search nodes, a trace or a forced first item.  Both report
the same nodes, attempts, fits, list updates and dead ends, level by level.
"""

from __future__ import annotations

import time

from bench.engines.constraints import constrained
from bench.engines.protocol import Limits, Result, Settings
from bench.engines.search import (BitsetSearch, CompiledEngine, Search, plain_cover, search_result,
                                  search_specialization, suits)
from bench.engines.variants import CONSTRAINTS, constraint_variant, parse_tuning
from bench.errors import UsageError
from bench.toolchain import warmup

# -- the engine -----------------------------------------------------------------------


KERNELS = ("bits", "sets")


class DlxEngine(CompiledEngine):
    """The native DLX engine (see the module docstring).

    Two kernels run the same search with the same statistics: option
    bitsets (:mod:`bench.kernels.bitset`) wherever the settings allow, and
    the sparse sets of this module with constraints at search nodes, a trace
    or a forced first item.  The variant ``bits`` or ``sets`` picks one
    (``dlx:sets``, ``dlx:s/sets``); the result's ``stats["kernel"]`` says
    which ran.
    """

    name = "dlx"
    supported = frozenset({"order", "goal", "first_item", "trace", "prefix", "bulk_orbits", "max_solutions", "node_limit", "time_limit"}) | CONSTRAINTS
    PLAIN = frozenset({"bits", "sets"})
    """The specializations of a plain search (no cover given): both kernels, without in-search constraints."""

    def __init__(self, variant: str = ""):
        tokens = [t for t in variant.split("/") if t]
        kernels = [t for t in tokens if t in KERNELS]
        if len(kernels) > 1:
            raise UsageError(f"dlx: choose one kernel, bits or sets, not {' and '.join(kernels)}")
        self.kernel = kernels[0] if kernels else None
        self.tuning = parse_tuning(self.name, "/".join(t for t in tokens if t not in KERNELS),
                                   frozenset({"order"}) | CONSTRAINTS)

    def specializations(self, cover, settings: Settings) -> set[str]:
        """The kernel specialization a solve under settled ``settings`` runs (see :mod:`bench.toolchain.warmup`)."""
        if (self.kernel or ("bits" if suits(settings, cover) else "sets")) == "bits":
            return {"bits"}
        return {search_specialization(constrained(settings))}

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None, on_trace=None) -> Result:
        """Count (and optionally return) the exact covers of ``cover``.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/pentominoes_20x3.txt")
        >>> r = DlxEngine().solve(bench.Cover.from_puzzle(p, redundancy=True))
        >>> r.status.value, r.covers, r.unique, r.total
        ('solved', 2, 2, 8)
        """
        self.check(settings, limits)
        settings = self.settle(cover, settings)
        plain = suits(settings, cover)
        if self.kernel == "bits" and not plain:
            why = plain_cover(cover)
            raise UsageError(f"dlx:bits cannot search this cover: {why}; use dlx:sets" if why else
                             "dlx:bits runs searches without in-search constraints, trace or first item; use dlx:sets")
        kernel = self.kernel or ("bits" if plain else "sets")
        compile_seconds = warmup.ensure(self.specializations(cover, settings))
        t0 = time.perf_counter()
        search = (BitsetSearch if kernel == "bits" else Search)(cover, settings, limits, on_solutions, on_trace)
        setup_seconds = time.perf_counter() - t0
        status = search.run()
        stats = search.stats()
        stats["kernel"] = kernel
        variant = search.order.text + constraint_variant(settings) + ("/" + self.kernel if self.kernel else "")
        return search_result(self.name, variant, search, status, stats,
                             {"compile": compile_seconds, "setup": setup_seconds})
