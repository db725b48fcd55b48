"""The Python API: ``bench.solve`` and ``bench.solutions``, through the same solve session as the command line.

>>> import bench
>>> result = bench.solve("defs/pentominoes_20x3.txt", engine="dlx", redundancy=True, keep_solutions=1)
>>> result.status.value, result.covers, result.unique, result.total
('solved', 2, 2, 8)
>>> sorted(p.piece for p in result.solutions[0])[:4]
['F', 'I', 'L', 'N']
>>> first = next(bench.solutions("defs/pentominoes_20x3.txt", engine="dlx"))
>>> len(first), sorted(p.piece for p in first)[:3]
(12, ['F', 'I', 'L'])
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Iterator

import numpy as np

from bench.engines.protocol import Limits, Result, Settings
from bench.errors import UsageError
from bench.models.puzzle import Puzzle, load
from bench.parallel.runner import ParallelOptions
from bench.session.prepare import Request
from bench.session.session import Session
from bench.system import signals


@dataclass(frozen=True)
class Placement:
    """One piece of a solution: its name, the box coordinates of its cells, and whether it is stationary."""

    piece: str
    cells: tuple[tuple[int, ...], ...]
    stationary: bool


class Solution(list):
    """One solution as :class:`Placement` rows (stationary pieces first), with the puzzle it solves.

    In a notebook it shows as its picture (:func:`bench.drawing.picture.draw`).
    """

    def __init__(self, placements, puzzle: Puzzle, cover, options):
        super().__init__(placements)
        self.puzzle = puzzle
        self.cover = cover
        self.options = list(options)


def _puzzle(puzzle) -> Puzzle:
    if isinstance(puzzle, (str, Path)):
        puzzles = load(puzzle)
        if len(puzzles) != 1:
            raise UsageError(f"{puzzle}: holds {len(puzzles)} puzzles; pick one with bench.load({str(puzzle)!r})[k]")
        return puzzles[0]
    if not isinstance(puzzle, Puzzle):
        raise UsageError(f"expected a definition file or a bench.Puzzle, got {type(puzzle).__name__}")
    return puzzle


def _session(engine: str, redundancy, settings: dict, limits: Limits, workers: int, auto: bool = True) -> Session:
    known = {f.name for f in fields(Settings)} - {"prefix", "auto"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise UsageError(f"unknown setting(s) {', '.join(unknown)}; expected one of: {', '.join(sorted(known))}")
    tuned = not auto or bool(settings) or redundancy is not None
    request = Request(settings=replace(Settings(), **settings), redundancy=redundancy, tuned=tuned)
    parallel = ParallelOptions(workers=workers, explicit=False) if workers > 1 else None
    return Session.open(engine, request=request, limits=limits, parallel=parallel)


def solve(puzzle, engine: str = "fila", *, redundancy: bool | str | None = None, max_solutions: int | None = None,
          node_limit: int | None = None, time_limit: float | None = None, keep_solutions: int = 0,
          workers: int = 1, **settings) -> Result:
    """Solve one puzzle with one engine and return its :class:`~bench.engines.protocol.Result`.

    Parameters
    ----------
    puzzle : str, Path or Puzzle
        A definition file holding one puzzle, or a puzzle from :func:`bench.load`.
    engine : str
        An engine as ``bench run --engine`` takes it: ``fila``, ``dlx``,
        ``dlx:sets``, ``cpsat``, ``sat``, ``ganak``, ``xcover`` ...
    redundancy : None, True or str
        The rotational-redundancy filter: ``True`` lets ``bench`` pick the
        piece, a name constrains that piece, None leaves the choice to the
        engine (an untuned ``fila`` picks one; the others run without).
    max_solutions, node_limit, time_limit :
        Stop early; a stopped search has ``status`` ``limit`` or ``timeout``
        and partial counts.
    keep_solutions : int
        How many solutions to return in ``result.solutions``, each a
        :class:`Solution` (a list of :class:`Placement`: piece name, box
        coordinates, stationary) rather than the engine's option numbers.
        ``result.timings`` has the compile seconds (once per process) apart
        from ``solve``.
    workers : int
        Worker processes for a split search (engines that split; 1: none).
    **settings :
        Any :class:`~bench.engines.protocol.Settings` field (``order``,
        ``fila``, ``nof``, ``parity_backtrack``, ...).  Giving any of them,
        or ``redundancy``, turns off the engine's automatic configuration.

    Raises
    ------
    BenchError
        For a file that cannot be read or parsed, a file with several
        puzzles, an unknown engine or setting, or a setting the engine does
        not implement.
    """
    puzzle = _puzzle(puzzle)
    limits = Limits(max_solutions=max_solutions, node_limit=node_limit, time_limit=time_limit,
                    keep_solutions=keep_solutions)
    session = _session(engine, redundancy, settings, limits, workers)
    prepared = session.prepare(puzzle)
    with signals.scope():
        result = session.solve_prepared(prepared)
    result.solutions = [solution(prepared.cover, options) for options in result.solutions[:keep_solutions]]
    return result


def solutions(puzzle, engine: str = "dlx", *, redundancy: bool | str | None = None,
              max_solutions: int | None = None, time_limit: float | None = None, **settings) -> Iterator[Solution]:
    """The solutions of one puzzle as the engine finds them, each a :class:`Solution`; a generator.

    The parameters are :func:`solve`'s.  Leaving the loop early stops the
    search.  Every solution is yielded, symmetric copies included: no
    engine constrains a piece on its own here; with ``redundancy`` (True or
    a piece's name) only the solutions the redundancy filter keeps.

    Raises
    ------
    BenchError
        As :func:`solve`, and for an engine that counts without producing
        solutions (``ganak``, ``exact-cover``).
    """
    puzzle = _puzzle(puzzle)
    limits = Limits(max_solutions=max_solutions, time_limit=time_limit)
    session = _session(engine, redundancy, settings, limits, 1, auto=False)
    prepared = session.prepare(puzzle)
    with signals.scope():
        for options in session.solutions(prepared):
            yield solution(prepared.cover, options)


def solution(cover, options) -> Solution:
    """A cover's solution as a :class:`Solution` (:class:`Placement` rows, stationary pieces first)."""
    rows = [Placement(name, tuple(tuple(int(v) for v in row) for row in np.asarray(cells).tolist()), bool(fixed))
            for name, cells, fixed in cover.placements(options)]
    return Solution(rows, cover.puzzle, cover, options)
