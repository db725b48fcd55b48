"""The one way from a puzzle to what an engine solves: encode, filter, settle the settings.

``bench solve``, ``bench run``, ``bench estimate``, ``bench info``, the
benchmarks and the parallel runner all call :func:`prepare`: it lets the
engine choose what it chooses before encoding (:meth:`Engine.configure`,
e.g. an untuned FILA run picks its redundancy piece), encodes the puzzle
once (:meth:`Cover.from_puzzle`), applies the one-shot filters the request
asks for, and lets the engine fill in its defaults (:meth:`Engine.settle`).
No caller names an engine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import cached_property

from bench.session import cover_cache
from bench.engines.protocol import Engine, Filtered, Settings
from bench.errors import UsageError
from bench.models.cover import Cover
from bench.models.resources import DEFAULT_MAX_MEMORY, check_memory
from bench.models.diagnose import unsolvable_reasons
from bench.models.filters import apply_one_shot


@dataclass(frozen=True)
class Request:
    """What the user asked for, before any engine fills in its defaults.

    Attributes
    ----------
    settings : Settings
        The search settings asked for (in-search filters, ordering, ...).
    redundancy : None, True or str
        The rotational-redundancy filter: ``True`` picks the piece, a name
        constrains that piece, ``None`` turns it off.
    redundancy_method : str or None
        ``orientation`` or ``orbit`` (:func:`~bench.models.symmetry.redundancy_for_shape`);
        None leaves it to the engine's configuration, else ``orientation``.
    redundancy_first : bool
        Branch on the redundancy piece first (polycube ``-R``).
    volume, parity : bool
        One-shot volume and parity filters before the search.
    fit_rounds : int or None
        Passes of the one-shot fit filter (None: off, 0: until nothing changes).
    tuned : bool
        The user gave some tuning option; False lets an engine choose its
        own configuration (:meth:`Engine.configure`).
    max_memory : int or None
        Bytes the puzzle may need (:func:`~bench.models.resources.check_memory`); None: no limit.
    choice : object or None
        What an engine's automatic configuration chose and why (e.g.
        :class:`~bench.engines.autoconfig.Choice`: ``lines()`` for ``--info``,
        ``to_json()``); None when the engine chose nothing.  When it has a
        ``cover`` (with ``counters``, ``timings`` and ``options_before``),
        that is the puzzle already encoded and volume-filtered as chosen,
        and :func:`prepare` uses it rather than encoding again.
    """

    settings: Settings = Settings()
    redundancy: bool | str | None = None
    redundancy_method: str | None = None
    redundancy_first: bool = False
    volume: bool = False
    parity: bool = False
    fit_rounds: int | None = None
    tuned: bool = True
    max_memory: int | None = DEFAULT_MAX_MEMORY
    choice: object = None


@dataclass(frozen=True)
class Prepared:
    """A puzzle ready for an engine: the filtered cover, the settings it runs with, and how it got there.

    ``request`` is the request as the engine configured it, ``filters`` the
    one-shot filters' counters, ``timings`` the ``encode`` and ``filter``
    seconds (on a cache hit, ``encode`` is the time to read the entry), and
    ``cache`` says where the cover came from: ``hit`` (the cover cache),
    ``stored`` (encoded, and stored there), ``unwritable`` (encoded, the
    entry could not be written), ``uncacheable`` (encoded, the engine's
    configuration holds what an entry cannot keep) or ``off`` (encoded, no
    cache);
    ``known_reasons`` are :attr:`reasons` when the cache held or stored them.
    """

    puzzle: object
    cover: Cover
    settings: Settings
    request: Request
    filters: dict
    timings: dict
    cache: str = "off"
    known_reasons: tuple[str, ...] | None = None

    @cached_property
    def reasons(self) -> list[str]:
        """Every static proof that the puzzle has no solution (:func:`~bench.models.diagnose.unsolvable_reasons`).

        Read from the cover cache on a hit (the proof needs the puzzle's
        images, which a hit spares), computed on first use otherwise.
        """
        if self.known_reasons is not None:
            return list(self.known_reasons)

        return unsolvable_reasons(self.cover)


def redundancy_argument(value: str | None):
    """polycube's ``-r`` value as :attr:`Request.redundancy`: ``#`` picks a piece, ``.`` or nothing turns it off.

    >>> redundancy_argument("#"), redundancy_argument("."), redundancy_argument("L")
    (True, None, 'L')
    """
    return True if value == "#" else (None if value in (".", None) else value)


def first_item(cover: Cover) -> int:
    """The item of the redundancy piece, which ``-R`` places first."""
    red = cover.redundancy
    if red is None:
        raise UsageError("--redundancy-first needs the redundancy filter (-r) and a puzzle with symmetries")
    item = cover.n_cells + red.shape
    if cover.item_lo[item] == 0:
        raise UsageError(f"--redundancy-first: piece '{red.piece}' may stay unused (spare pieces), so it cannot be placed first")
    return item


def prepare(puzzle, request: Request = Request(), engine: Engine | None = None, cache: bool = False) -> Prepared:
    """Encode ``puzzle`` as ``request`` asks and settle the settings ``engine`` runs it with.

    Without an engine the cover is the one every engine shares (``bench
    run``) and the settings are the request's.  With ``cache`` the
    configured request, the encoding and the one-shot filters are read from
    the cover cache (:mod:`bench.session.cover_cache`) when an entry matches, and
    stored there otherwise; ``BENCH_NO_CACHE=1`` turns it off.

    Raises
    ------
    UsageError
        For a request the puzzle or the engine cannot honour.
    DefinitionError
        When the puzzle would need more memory than ``request.max_memory``
        (checked before anything large is built).
    """
    if not puzzle.geometric:
        return _prepare_matrix(puzzle, request, engine)
    fit = request.fit_rounds is not None or bool(request.settings.fit_filter)
    check_memory(puzzle, request.max_memory, fit_filter=fit)
    key = cover_cache.cache_key(puzzle, request, engine) if cache and not cover_cache.disabled() else None
    start = time.perf_counter()
    hit = cover_cache.load(key, puzzle, request) if key is not None else None
    state = "off"
    if hit is not None:
        request, cover, options_before, counters = hit.request, hit.cover, hit.options_before, hit.counters
        reasons = hit.reasons
        timings = {"encode": time.perf_counter() - start}
        state = "hit"
    else:
        asked = request
        if engine is not None:
            request = engine.configure(puzzle, request)
        encoded = getattr(request.choice, "cover", None)
        if encoded is not None and request.volume == request.choice.volume and not request.parity \
                and request.fit_rounds is None:
            # the engine's choice encoded the puzzle and applied the volume filter already
            cover, counters, timings = encoded, dict(request.choice.counters), dict(request.choice.timings)
            options_before = request.choice.options_before
        else:
            start = time.perf_counter()
            cover = Cover.from_puzzle(puzzle, redundancy=request.redundancy,
                                      method=request.redundancy_method or "orientation")
            timings = {"encode": time.perf_counter() - start}
            options_before = cover.n_options
            counters = {}
            if request.volume or request.parity or request.fit_rounds is not None:
                start = time.perf_counter()
                cover, counters = apply_one_shot(cover, request.volume, request.fit_rounds, request.parity)
                timings["filter"] = time.perf_counter() - start
        reasons = None
        if key is not None:
            # the images the proof needs are there now, not after a hit
            reasons = tuple(unsolvable_reasons(cover))
            state = cover_cache.store(key, asked, request, cover, options_before, counters, reasons)
    settings = request.settings
    if request.redundancy_first:
        settings = replace(settings, first_item=first_item(cover))
    if engine is not None:
        engine.check(settings)
        settings = engine.settle(cover, settings, Filtered(options_before, counters))
    return Prepared(puzzle, cover, settings, request, counters, timings, state, reasons)


def _prepare_matrix(matrix, request: Request, engine: Engine | None) -> Prepared:
    """:func:`prepare` for a matrix read from an exchange file (:class:`~bench.formats.matrix.Matrix`).

    Its cover is the file's: no engine configures it (there is no piece to
    choose), and the redundancy filter, which ``bench run`` asks for by
    default, has nothing to do without symmetry.  What needs a puzzle's
    geometry is refused: a named redundancy piece, the one-shot and
    in-search filters, the triggers.
    """
    asked = [name for name, on in (("-V", request.volume), ("-P", request.parity),
                                   ("-F", request.fit_rounds is not None)) if on]
    asked += [f"--{name.replace('_', '-')}" for name in ("parity_filter", "volume_filter", "fit_filter",
                                                          "parity_backtrack", "volume_backtrack",
                                                          "isolated_backtrack")
              if getattr(request.settings, name)]
    if isinstance(request.redundancy, str) and request.redundancy:
        asked.append(f"-r {request.redundancy}")
    if request.redundancy_first:
        asked.append("-R")
    if asked:
        raise UsageError(f"{', '.join(asked)} work on a puzzle's cells and pieces, and a matrix read "
                         f"from a {matrix.definition.format} file has none")
    cover = matrix.cover
    settings = request.settings
    if engine is not None:
        engine.check(settings)
        settings = engine.settle(cover, settings, Filtered(cover.n_options, {}))
    return Prepared(matrix, cover, settings, request, {}, {"encode": 0.0}, "off", None)