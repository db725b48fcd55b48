"""The interface every engine implements, and what it takes and returns.

Every engine takes the same :class:`~bench.models.cover.Cover`, the same
:class:`Settings` (search configuration) and :class:`Limits`, and returns the
same :class:`Result`.  :class:`Engine` declares everything a caller may use:
its capabilities (``supported``, ``counts_only``, ``splittable``,
``chooses_configuration``), its availability, its one-off compilation
(``warm_up``), the defaults it chooses before a puzzle is encoded
(``configure``) and after (``settle``), and
``solve``.  A setting an engine does not implement is refused, never ignored.

**Glossary.**  One meaning per word, in the code, the result files, the
documents and the messages:

- *cover* (:class:`~bench.models.cover.Cover`): the exact-cover matrix of a
  puzzle, encoded once and shared by every engine;
- *item*: a column of the cover (a cell, a piece, a colour of a cell);
  primary items must be covered, secondary ones may be;
- *option*: a row of the cover, one placement of one piece;
- *solution*: one exact cover found, a set of options; *covers* counts them
  as the search finds them, *unique* and *total* count the puzzle's
  solutions under the symmetry convention (:mod:`bench.models.symmetry`);
- *run settings* (:class:`Settings`): how the user asked the search to run
  (order, hand-off, filters), ``run_settings`` in a result file; *limits*
  (:class:`Limits`): when it stops early;
- *settle* (:meth:`Engine.settle`): fill in the engine's defaults for a
  cover, once; *configure*: choose before the encoding what the encoding
  needs (the piece the redundancy filter constrains);
- *prepare* (:func:`~bench.session.prepare.prepare`): encode, filter and
  settle; *session* (:class:`~bench.session.session.Session`): one engine
  solving prepared puzzles;
- *kernel*: a compiled function over flat arrays (:mod:`bench.kernels`);
  *specialization*: one compiled variant of a kernel; *warm up*: compile
  or load the specializations a solve needs before its clock starts;
- *split*: a search cut into *sub-problems* for workers; a *share* is a
  sub-problem's slice of FILA's roots; a *hand-off* passes a branch from
  DLX to FILA.
"""

from __future__ import annotations

import importlib.util
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Callable, ClassVar

from bench.about import DISTRIBUTION
from bench.errors import Unsupported, UsageError


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
class Cut:
    """A piece of the tree FILA searches below a hand-off (:attr:`Settings.cut`), named by the options placed.

    ``path`` are the options FILA places from the hand-off's node down, one a
    level.  Without ``after`` (-1) the piece is a continuation: the subtree
    of the node ``path`` leads to, then the children still to come at each
    level above it up to level ``stop`` (the levels counted from the
    hand-off's node, 0), so ``stop == len(path)`` is that subtree alone.
    With ``after``, the piece is the children of the node ``path`` leads to
    (``stop == len(path)``) that come after the one placing option
    ``after``, of which only those counted ``c`` from 0 with
    ``c % share[1] == share[0]``; ``lists`` says whether the piece counts
    that node's images tried for them (one of the pieces that share its
    children does).
    """

    path: tuple = ()
    stop: int = 0
    after: int = -1
    share: tuple = (0, 1)
    lists: bool = True

    def to_json(self) -> dict:
        """A JSON-ready form (for the journal)."""
        return {"path": list(self.path), "stop": self.stop, "after": self.after, "share": list(self.share),
                "lists": self.lists}

    @classmethod
    def from_json(cls, data: dict) -> "Cut":
        """Inverse of :meth:`to_json`."""
        return cls(tuple(int(o) for o in data["path"]), int(data["stop"]), int(data["after"]),
                   tuple(int(x) for x in data["share"]), bool(data["lists"]))


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
    isolated_backtrack : int
        FILA's ``-c``: after a placement at FILA's levels, backtrack when an
        open cell has no open neighbour (while every piece left has two cells
        or more, each next to another of its own) while at least this many
        pieces remain (0: off).
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
    cut : Cut or None
        A piece of the FILA tree below the node ``prefix`` leads to (which
        DLX hands over to FILA): FILA searches only that piece and counts
        only its own part, so that the pieces of a split add up to the whole
        search, every counter included.  None: the whole tree below.
    budget : int
        Nodes after which the search stops and hands back the rest of the
        FILA tree it is in as pieces (``Result.stats["rest"]``, each a
        ``prefix`` and a :class:`Cut`); its counts and counters are those of
        what it searched, so that with the pieces' they add up to the whole.
        0: no budget.
    auto : bool
        The engine chose this configuration itself because the user gave no
        tuning option (see :meth:`Engine.configure`).
    bulk_orbits : bool
        Count covers without classifying each against the symmetry group:
        unique and total are left unknown (None), for the caller to count
        from the whole search's covers (:mod:`bench.session.orbits`), which
        it does only for an engine whose ``bulk_orbits`` is true.
    settled : bool
        :meth:`Engine.settle` filled in the engine's defaults: settling again
        returns these settings as they are (not part of their repr, nor of
        their equality).
    """

    order: str | None = None
    goal: int = 0
    first_item: int | None = None
    trace: int = 0
    fila: int | None = None
    nof: bool | None = None
    parity_backtrack: int = 0
    volume_backtrack: int = 0
    isolated_backtrack: int = 0
    parity_filter: int = 0
    volume_filter: int = 0
    fit_filter: int = 0
    fit_rounds: int = 1
    prefix: tuple = ()
    cut: "Cut | None" = None
    budget: int = 0
    auto: bool = False
    bulk_orbits: bool = False
    settled: bool = field(default=False, repr=False, compare=False)

    def requested(self) -> set[str]:
        """Names of the settings that differ from their defaults."""
        return {f.name for f in fields(self) if f.name != "settled" and getattr(self, f.name) != f.default}


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


def apply_tuning(settings: Settings, tuning: dict) -> Settings:
    """``settings`` with an engine variant's values (:mod:`bench.engines.variants`) wherever the caller left the default."""
    defaults = {f.name: f.default for f in fields(Settings)}
    return replace(settings, **{k: v for k, v in tuning.items() if getattr(settings, k) == defaults[k]})


SolutionSink = Callable[[list, list], None]
"""Receives a batch of covers (option arrays) and their orbit shares (0 = not canonical)."""


@dataclass(frozen=True)
class Filtered:
    """What the one-shot filters did to a cover before an engine settles its settings.

    ``options_before`` counts the options the filters were given;
    ``counters`` holds their ``*_ONE_SHOT`` counts (:func:`~bench.models.filters.apply_one_shot`).
    """

    options_before: int
    counters: dict


class Engine(ABC):
    """Base class of every engine: what callers rely on, with the shared defaults.

    Subclasses set ``name`` and ``supported`` (the :class:`Settings` fields
    and :class:`Limits` they honour), list the importable modules they need
    in ``requires``, and implement :meth:`solve`.  The constructor takes the
    variant string of ``NAME:VARIANT``; the base refuses every variant.
    """

    name: ClassVar[str]
    supported: ClassVar[frozenset[str]] = frozenset()
    counts_only: ClassVar[bool] = False
    """True for an engine that counts covers without producing them."""
    requires: ClassVar[tuple[str, ...]] = ()
    extra: ClassVar[str | None] = None
    """The optional dependency group of the distribution that installs ``requires`` (None: always installed)."""

    def __init__(self, variant: str = ""):
        if variant:
            raise Unsupported(f"{self.name} has no variants")
        self.tuning: dict = {}

    @property
    def variant(self) -> str:
        """The variant as reported in results (the engine's own configuration)."""
        return ""

    @property
    def splittable(self) -> bool:
        """True when the engine solves sub-problems of a split search (``Settings.prefix``)."""
        return "prefix" in self.supported

    def available(self) -> bool:
        """True when the engine's libraries are installed."""
        return all(importlib.util.find_spec(module) is not None for module in self.requires)

    def missing(self) -> str:
        """Why the engine is not available and how to make it so."""
        absent = ", ".join(m for m in self.requires if importlib.util.find_spec(m) is None)
        if self.extra is None:
            return f"library not installed: {absent}"
        return f"install the {self.extra} extra (pip install '{DISTRIBUTION}[{self.extra}]'; missing: {absent})"

    def warm_up(self, cover=None, settings: Settings | None = None) -> float:
        """Compile or load what a solve of ``cover`` under ``settings`` needs, once per process; returns its seconds.

        Without a cover, what a plain solve needs.  The seconds are those of
        the compiled code the solve uses, whichever call compiled it.
        """
        return 0.0

    def prefetch(self, cover=None, settings: Settings | None = None) -> None:
        """Start compiling, beside this process, what :meth:`warm_up` with the same arguments needs; returns at once.

        Only where a cold cache makes a second core worth it; the
        :meth:`warm_up` that follows waits for it.  Engines with nothing to
        compile do nothing.
        """

    @property
    def chooses_configuration(self) -> bool:
        """True when :meth:`configure` chooses a configuration of its own for an untuned request (the piece the
        redundancy filter constrains, its one-shot filters, its settings), as ``bench run`` may then share it."""
        return False

    def configure(self, puzzle, request):
        """The :class:`~bench.session.prepare.Request` with this engine's defaults for what must be chosen before encoding."""
        return request

    def settle(self, cover, settings: Settings, filtered: Filtered | None = None) -> Settings:
        """The settings this engine runs ``cover`` with, settled once: settings already settled come back as they are.

        :func:`~bench.session.prepare.prepare` settles them (with what the
        one-shot filters did, ``filtered``); an engine's ``solve`` settles
        only settings nobody settled (a caller of ``solve`` itself).
        """
        if settings.settled:
            return settings
        return replace(self._settle(cover, settings, filtered), settled=True)

    def _settle(self, cover, settings: Settings, filtered: Filtered | None) -> Settings:
        # the engine's own defaults; the base engine's: its variant's tuning where the caller left the default
        return apply_tuning(settings, self.tuning)

    def check(self, settings: Settings, limits: Limits | None = None) -> None:
        """Refuse settings and limits the engine does not implement."""
        asked = settings.requested()
        if limits is not None:
            asked |= {name for name in ("max_solutions", "node_limit", "time_limit") if getattr(limits, name) is not None}
        unsupported = sorted(asked - set(self.supported))
        if unsupported:
            raise UsageError(f"engine '{self.name}' does not implement: {', '.join(unsupported)}")

    @abstractmethod
    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(),
              on_solutions: SolutionSink | None = None, on_trace=None) -> Result:
        """Solve ``cover``; see :class:`Result`."""
