"""The engines: one interface (:mod:`bench.engines.protocol`) and the registry of engines by name.

Adding an engine is one module with a subclass of
:class:`~bench.engines.protocol.Engine` and one line in :data:`ENGINES`.
An engine whose library is missing is still registered but reports
``available() == False``; runners record it as skipped.
"""

from __future__ import annotations

import importlib

from bench.engines.protocol import Engine, Filtered, Limits, Result, Settings, SolutionSink, Status
from bench.errors import UsageError

ENGINES: dict[str, str] = {
    "dlx": "bench.engines.dlx:DlxEngine",
    "fila": "bench.engines.fila:FilaEngine",
    "cpsat": "bench.engines.cpsat:CpSatEngine",
    "sat": "bench.engines.sat:SatEngine",
    "ganak": "bench.engines.ganak:GanakEngine",
    "xcover": "bench.engines.xcover:XcoverEngine",
    "exact-cover": "bench.engines.exact_cover:ExactCoverEngine",
    "gpu": "bench.engines.gpu:GpuEngine",
}
"""Engine name -> ``module:class``; imported only when asked for."""

__all__ = ["ENGINES", "Engine", "Filtered", "Limits", "Result", "Settings", "SolutionSink", "Status", "engine_names",
           "get_engine"]


def engine_names() -> list[str]:
    """Registered engine names."""
    return sorted(ENGINES)


def get_engine(spec: str) -> Engine:
    """An engine instance from ``NAME[:VARIANT]`` (the name is case-insensitive).

    The variant is the engine's own business, e.g. ``sat:glucose4:ladder``
    or ``cpsat:2``.

    Raises
    ------
    UsageError
        For an unknown name, listing the valid ones, or a variant the engine
        does not understand.
    """
    name, _, variant = spec.strip().partition(":")
    key = name.lower()
    if key not in ENGINES:
        # lazy: only a misspelt name needs difflib, and every solve's start-up would pay its import
        import difflib

        close = difflib.get_close_matches(key, engine_names(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UsageError(f"unknown engine '{spec}'{hint}; expected one of: {', '.join(engine_names())}")
    module, _, cls = ENGINES[key].partition(":")
    return getattr(importlib.import_module(module), cls)(variant)
