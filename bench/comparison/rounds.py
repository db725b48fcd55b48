"""Every engine on one cover, round after round, interleaved so slow drift of the machine favours none.

Each round starts one engine later than the one before; each solve runs
isolated (:mod:`bench.comparison.isolated`).  JIT engines are compiled once
in this process first, so forked children inherit their code and compile
time stays apart from solve time.

Nothing here prints: a ``progress`` object, when given, is told what
happens (``warming(spec)``, ``engine(spec, round_no)``, ``finished(row)``)
and shows it as it sees fit (``bench run``'s bar, :class:`bench.cli.run.RunProgress`).
"""

from __future__ import annotations

from bench.comparison.isolated import solve_isolated
from bench.comparison.results import row
from bench.engines import Result, Settings, Status, get_engine
from bench.parallel import ParallelOptions
from bench.toolchain.warmup import prefetching


def prefetch(specs: list[str]) -> None:
    """Start compiling, beside this process, what the engines need for any cover; returns at once.

    Called before the first puzzle is encoded, so that a cold cache's
    compilations overlap with the encoding's (FILA's sampler and one-shot
    filters) rather than follow them.
    """
    with prefetching():
        for spec in specs:
            engine = get_engine(spec)
            if engine.available():
                engine.prefetch()


def warm_up(specs: list[str], cover, settings: dict | None = None, progress=None) -> dict[str, float]:
    """Compile (or load) what the JIT engines need for ``cover`` in this process; forked children inherit the code.

    On a cold cache the dearest of every engine's kernels starts compiling in
    a child (:meth:`~bench.engines.protocol.Engine.prefetch`, gathered by
    :func:`~bench.toolchain.warmup.prefetching`) while this process compiles
    the rest, and the warm-ups load it when it is done: the longest compile
    (FILA's kernel) sets the pace, not the sum.  ``settings`` maps a spec to
    the settings it runs with (its own configuration), else the defaults.
    """
    engines = {spec: get_engine(spec) for spec in specs}
    engines = {spec: engine for spec, engine in engines.items() if engine.available()}
    settings = settings or {}
    with prefetching():
        for spec, engine in engines.items():
            engine.prefetch(cover, settings.get(spec))
    seconds = {}
    for spec, engine in engines.items():
        if progress is not None:
            progress.warming(spec)
        seconds[spec] = engine.warm_up(cover, settings.get(spec))
    return seconds


def solve_rounds(entry: dict, cover, specs: list[str], rounds: int, mode: str, timeout: float,
                 compile_seconds: dict, parallel: ParallelOptions | None = None, progress=None,
                 settings: dict | None = None) -> list[dict]:
    """All rounds of all engines on one cover (split over ``parallel`` for the engines that can split).

    ``settings`` maps a spec to the settings it runs with, else the defaults.
    """
    settings = settings or {}
    rows = []
    for round_no in range(rounds):
        shift = round_no % len(specs)
        for spec in specs[shift:] + specs[:shift]:
            if progress is not None:
                progress.engine(spec, round_no)
            result = solve_isolated(spec, cover, mode, timeout, parallel, settings.get(spec, Settings()))
            if result.status != Status.SKIPPED:
                result.timings.setdefault("compile", compile_seconds.get(spec, 0.0))
            rows.append(row(entry, spec, round_no, result))
            if progress is not None:
                progress.finished(rows[-1])
    return rows


def static_proof_rows(entry: dict, specs: list[str], reasons: list[str]) -> list[dict]:
    """Rows for a puzzle the model proves unsolvable before any search: the proof, and every engine not run."""
    proof = Result(engine="static-check", status=Status.SOLVED, covers=0, unique=0, total=0,
                   message="; ".join(reasons), timings={"solve": 0.0})
    return [row(entry, "static-check", 0, proof)] + skipped_rows(entry, specs,
                                                                  "not run: the static check proves it unsolvable")


def skipped_rows(entry: dict, specs: list[str], message: str) -> list[dict]:
    """A ``skipped`` row with ``message`` for each engine of ``specs`` not run on the puzzle."""
    return [row(entry, spec, 0, Result(engine=spec, status=Status.SKIPPED, message=message)) for spec in specs]
