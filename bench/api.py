"""``bench.solve``: one puzzle, one engine, one call, the same path the command line takes.

>>> import bench
>>> result = bench.solve("defs/pentominoes_20x3.txt", engine="dlx", redundancy=True, keep_solutions=1)
>>> result.status.value, result.covers, result.unique, result.total
('solved', 2, 2, 8)
>>> sorted(p.piece for p in result.solutions[0])[:4]
['F', 'I', 'L', 'N']
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from bench.errors import UsageError
from bench.engines import get_engine
from bench.engines.protocol import Limits, Settings
from bench.models.puzzle import Puzzle, load
from bench.parallel.runner import ParallelOptions, solve_maybe_parallel
from bench.session.prepare import Request, prepare


@dataclass(frozen=True)
class Placement:
    """One piece of a solution: its name, the box coordinates of its cells, and whether it is stationary."""

    piece: str
    cells: tuple[tuple[int, ...], ...]
    stationary: bool


def solve(puzzle, engine: str = "fila", *, redundancy: bool | str | None = None, max_solutions: int | None = None,
          node_limit: int | None = None, time_limit: float | None = None, keep_solutions: int = 0,
          workers: int = 1, **settings):
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
        How many solutions to return in ``result.solutions``, each as a list
        of :class:`Placement` (piece name, box coordinates, stationary)
        rather than the engine's option numbers.  ``result.timings`` has the
        compile seconds (JIT, once per process) apart from ``solve``.
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
    if isinstance(puzzle, (str, Path)):
        puzzles = load(puzzle)
        if len(puzzles) != 1:
            raise UsageError(f"{puzzle}: holds {len(puzzles)} puzzles; pick one with bench.load({str(puzzle)!r})[k]")
        puzzle = puzzles[0]
    elif not isinstance(puzzle, Puzzle):
        raise UsageError(f"expected a definition file or a bench.Puzzle, got {type(puzzle).__name__}")
    known = {f.name for f in fields(Settings)} - {"prefix", "auto"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise UsageError(f"unknown setting(s) {', '.join(unknown)}; expected one of: {', '.join(sorted(known))}")
    solver = get_engine(engine)
    if not solver.available():
        raise UsageError(f"engine '{solver.name}' is not available: {solver.missing()}")
    tuned = bool(settings) or redundancy is not None
    request = Request(settings=replace(Settings(), **settings), redundancy=redundancy, tuned=tuned)
    prepared = prepare(puzzle, request, solver)
    limits = Limits(max_solutions=max_solutions, node_limit=node_limit, time_limit=time_limit,
                    keep_solutions=keep_solutions)
    compile_seconds = solver.warm_up(prepared.cover, prepared.settings)
    parallel = ParallelOptions(workers=workers, explicit=False) if workers > 1 else None
    result = solve_maybe_parallel(prepared.cover, solver, prepared.settings, limits, parallel, printing=False)
    result.timings = {"compile": compile_seconds, **prepared.timings, **result.timings}
    result.solutions = [placements(prepared.cover, options) for options in result.solutions[:keep_solutions]]
    return result


def placements(cover, options) -> list[Placement]:
    """A cover's solution as :class:`Placement` rows, stationary pieces first."""
    return [Placement(name, tuple(tuple(int(v) for v in row) for row in np.asarray(cells).tolist()), bool(fixed))
            for name, cells, fixed in cover.placements(options)]
