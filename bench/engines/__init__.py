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
    "cmd": "bench.engines.command:CommandEngine",
}
"""Engine name -> ``module:class``; imported only when asked for."""

CONFIGURED = frozenset({"cmd"})
"""Engines that exist only as ``NAME:CONFIGURATION`` (``cmd:clasp``, configured in a file): lists of every engine,
``bench run``'s default among them, leave them out."""

__all__ = ["CONFIGURED", "ENGINES", "Engine", "Filtered", "Limits", "Result", "Settings", "SolutionSink", "Status",
           "engine_names", "get_engine", "standalone_engines"]


def engine_names() -> list[str]:
    """Registered engine names, without the :data:`CONFIGURED` ones."""
    return sorted(standalone_engines())


def standalone_engines() -> list[str]:
    """Every engine that runs without a configuration, in the registry's order (``bench run``'s default)."""
    return [name for name in ENGINES if name not in CONFIGURED]


def get_engine(spec: str) -> Engine:
    """An engine instance from ``NAME[:VARIANT]`` (the name is case-insensitive).

    The variant is the engine's own business, e.g. ``sat:glucose4:ladder``,
    ``cpsat:2`` or ``cmd:clasp`` (a command configured in a file).

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
        raise UsageError(f"unknown engine '{spec}'{hint}; expected one of: {', '.join(engine_names())}, or cmd:NAME")
    module, _, cls = ENGINES[key].partition(":")
    return getattr(importlib.import_module(module), cls)(variant)
