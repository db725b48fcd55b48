"""One interface for every engine, and the registry of engines by name.

Every engine takes the same :class:`~bench.models.cover.Cover`, the same
:class:`Settings` (search knobs) and :class:`Limits`, and returns the same
:class:`Result`.  Adding an engine means writing one module with a class that
has ``name``, ``available()``, ``supported`` and ``solve()`` (and, for a
JIT-compiled engine, ``warm_up()``), taking its variant string in the
constructor, and adding its name to :data:`ENGINES`.  ``supported`` names
the settings and limits the engine honours; ``counts_only = True`` marks an
engine that counts covers without producing them.  An engine whose library is missing is still
registered but reports ``available() == False``; runners record it as
skipped.  A setting an engine does not implement is refused, never ignored.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Callable, Protocol

from bench.errors import UsageError


class Status(str, Enum):
    """How a solve ended.  Only ``SOLVED`` counts are exact and comparable."""

    SOLVED = "solved"
    LIMIT = "limit"
    TIMEOUT = "timeout"
    INTERRUPTED = "interrupted"
    ERROR = "error"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Limits:
    """When to stop a search early, and how many solutions to hand back.

    Attributes
    ----------
    max_solutions : int or None
        Stop after this many covers.
    node_limit : int or None
        Stop after this many search nodes.  Engines refuse the limits they
        cannot honour (see ``Engine.supported``).
    time_limit : float or None
        Seconds of solve time.
    keep_solutions : int
        How many covers to return in :attr:`Result.solutions`.
    """

    max_solutions: int | None = None
    node_limit: int | None = None
    time_limit: float | None = None
    keep_solutions: int = 0


@dataclass(frozen=True)
class Settings:
    """Search configuration.  Defaults mean "not asked for".

    Attributes
    ----------
    order : str or None
        Ordering-heuristic schedule in polycube syntax, e.g. ``s=12:f=5``.
    goal : int
        Stop each branch when this many pieces remain and report the partial
        assembly (sub-puzzle splitting); 0 solves completely.
    first_item : int or None
        Item to branch on first (polycube ``-R``: the redundancy piece).
    trace : int
        polycube ``-t``: report the state after placements and removals.
    fila : int or None
        polycube ``-f``: hand each branch to FILA when this many pieces
        remain (None: the engine's default).
    nof : bool or None
        polycube ``-n``: neighbour occupancy filtering in FILA (None: the
        engine's default).
    parity_backtrack, volume_backtrack : int
        polycube ``-p`` / ``-v``: after a placement, backtrack on a parity /
        volume violation while at least this many pieces remain (0: off).
    parity_filter, volume_filter, fit_filter : int
        polycube ``-P`` / ``-V`` / ``-F`` with a count: at each DLX node, the
        root included, remove the options that would break the constraint,
        while at least this many pieces remain (0: off).  The one-shot
        filters before the search are applied to the cover instead
        (:mod:`bench.models.filters`).
    fit_rounds : int
        Passes of the fit filter at each node (0: until nothing changes).
    prefix : tuple of (int, tuple of int)
        A sub-problem of a split (:mod:`bench.parallel.split`): per level from
        the root, the option placed and the options excluded before it (the
        siblings an identical-piece branch had tweaked out).  Empty: the whole
        search.
    """

    order: str | None = None
    goal: int = 0
    first_item: int | None = None
    trace: int = 0
    fila: int | None = None
    nof: bool | None = None
    parity_backtrack: int = 0
    volume_backtrack: int = 0
    parity_filter: int = 0
    volume_filter: int = 0
    fit_filter: int = 0
    fit_rounds: int = 1
    prefix: tuple = ()

    def requested(self) -> set[str]:
        """Names of the settings that differ from their defaults."""
        return {f.name for f in fields(self) if getattr(self, f.name) != f.default}


@dataclass
class Result:
    """What an engine reports.

    ``covers`` counts exact covers of the matrix; ``unique`` and ``total``
    come from the canonical check (None when an engine cannot tell, or in goal
    mode where the covers are partial).  ``stats`` holds machine-independent
    counters (nodes, fits, ...), ``timings`` the phases in seconds: ``compile``
    (JIT, never part of ``solve``), ``setup`` and ``solve``.
    """

    engine: str
    status: Status
    covers: int | None = None
    unique: int | None = None
    total: int | None = None
    variant: str = ""
    solutions: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    message: str = ""
    cover_hash: str = ""


SolutionSink = Callable[[list, list], None]
"""Receives a batch of covers (option arrays) and their orbit shares (0 = not canonical)."""


class Engine(Protocol):
    """What every engine provides."""

    name: str
    supported: frozenset[str]

    def __init__(self, variant: str = ""):
        """Raises UsageError for a variant the engine does not understand."""

    def available(self) -> bool:
        """True when the engine's libraries are installed."""

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(),
              on_solutions: SolutionSink | None = None, on_trace=None) -> Result:
        """Solve ``cover``; see :class:`Result`."""


ENGINES: dict[str, str] = {
    "dlx": "bench.native.dlx:DlxEngine",
    "fila": "bench.native.fila:FilaEngine",
    "cpsat": "bench.encoders.cpsat:CpSatEngine",
    "sat": "bench.encoders.sat:SatEngine",
    "ganak": "bench.encoders.counting:GanakEngine",
    "xcover": "bench.external.xcover:XcoverEngine",
    "exact-cover": "bench.external.exact_cover:ExactCoverEngine",
}
"""Engine name -> ``module:class``; imported only when asked for."""


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
        raise UsageError(f"unknown engine '{spec}'; expected one of: {', '.join(engine_names())}")
    module, _, cls = ENGINES[key].partition(":")
    return getattr(importlib.import_module(module), cls)(variant)


def check_settings(engine: Engine, settings: Settings, limits: Limits | None = None) -> None:
    """Refuse settings and limits the engine does not implement."""
    asked = settings.requested()
    if limits is not None:
        asked |= {name for name in ("max_solutions", "node_limit", "time_limit") if getattr(limits, name) is not None}
    unsupported = sorted(asked - set(engine.supported))
    if unsupported:
        raise UsageError(f"engine '{engine.name}' does not implement: {', '.join(unsupported)}")


TUNING_LETTERS = {"f": "fila", "n": "nof", "o": "order", "p": "parity_backtrack", "v": "volume_backtrack",
                  "P": "parity_filter", "V": "volume_filter", "F": "fit_filter", "R": "fit_rounds"}
COUNTED = frozenset({"fila", "parity_backtrack", "volume_backtrack", "parity_filter", "volume_filter", "fit_filter",
                     "fit_rounds"})
CONSTRAINTS = frozenset({"parity_backtrack", "volume_backtrack", "parity_filter", "volume_filter", "fit_filter",
                         "fit_rounds"})
"""The in-search triggers and filters, as settings names."""


def parse_tuning(engine_name: str, variant: str, allowed: frozenset[str]) -> dict:
    """Settings carried by an engine variant, in polycube's letters separated by ``/``.

    ``fN`` hands off to FILA with N pieces left, ``n`` / ``n0`` turns NOF
    on / off, ``oSPEC`` sets the ordering heuristics, ``pN``, ``vN``,
    ``PN``, ``VN``, ``FN`` turn on the parity and volume triggers and the
    parity, volume and fit filters while N pieces remain (``p`` alone: 1),
    ``RN`` sets the fit filter's passes, so one ``bench run`` can compare
    configurations: ``fila:f11/of=11/n0,fila:f11/of=11/n,dlx:V13``.

    Examples
    --------
    >>> parse_tuning("fila", "f11/oe=11:f=3/n", frozenset({"fila", "nof", "order"}))
    {'fila': 11, 'order': 'e=11:f=3', 'nof': True}
    """
    from bench.native.heuristics import parse_order

    letters = [k for k, name in TUNING_LETTERS.items() if name in allowed]
    expected = f"'/'-separated {', '.join(k + ('N' if TUNING_LETTERS[k] in COUNTED else 'SPEC' if k == 'o' else '[0]') for k in letters)}"
    out: dict = {}
    for token in filter(None, variant.split("/")):
        key, value = token[0], token[1:]
        name = TUNING_LETTERS.get(key)
        if name not in allowed:
            raise UsageError(f"{engine_name}: unknown variant '{token}'; expected {expected}")
        if name == "parity_backtrack" and value == "":
            out[name] = 1
        elif name in COUNTED:
            if not value.isdigit():
                raise UsageError(f"{engine_name}: '{token}' needs a number, e.g. {key}11")
            out[name] = int(value)
        elif name == "nof":
            if value not in ("", "0", "1"):
                raise UsageError(f"{engine_name}: '{token}': n or n1 turns NOF on, n0 off")
            out[name] = value != "0"
        else:
            parse_order(value)
            out[name] = value
    return out


def constraint_variant(settings: Settings) -> str:
    """The in-search triggers and filters of ``settings`` in variant letters, e.g. ``/p1/V13`` ("" when none)."""
    letters = {name: key for key, name in TUNING_LETTERS.items()}
    parts = [f"{letters[name]}{getattr(settings, name)}" for name in
             ("parity_backtrack", "volume_backtrack", "parity_filter", "volume_filter", "fit_filter")
             if getattr(settings, name)]
    if settings.fit_filter and settings.fit_rounds != 1:
        parts.append(f"R{settings.fit_rounds}")
    return "".join("/" + p for p in parts)


def apply_tuning(settings: Settings, tuning: dict) -> Settings:
    """``settings`` with the variant's values wherever the caller left the default."""
    defaults = {f.name: f.default for f in fields(Settings)}
    return replace(settings, **{k: v for k, v in tuning.items() if getattr(settings, k) == defaults[k]})
