"""Every engine on one cover, round after round, interleaved so slow drift of the machine favours none.

Each round starts one engine later than the one before; each solve runs
isolated (:mod:`bench.comparison.isolated`).  JIT engines are compiled once
in this process first, so forked children inherit their code and compile
time stays apart from solve time.
"""

from __future__ import annotations

from bench.comparison.isolated import solve_isolated
from bench.comparison.progress import RunProgress, say
from bench.comparison.results import row
from bench.engines import Result, Settings, Status, get_engine
from bench.parallel.runner import ParallelOptions
from bench.toolchain.warmup import prefetching


def warm_up(specs: list[str], cover, settings: dict | None = None) -> dict[str, float]:
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
    return {spec: engine.warm_up(cover, settings.get(spec)) for spec, engine in engines.items()}


def solve_rounds(entry: dict, cover, specs: list[str], rounds: int, mode: str, timeout: float,
                 compile_seconds: dict, parallel: ParallelOptions | None = None,
                 progress: RunProgress | None = None, settings: dict | None = None) -> list[dict]:
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
            workers = rows[-1]["workers"]
            say(f"  {spec:<14} round {round_no + 1}: {result.status.value:<8} covers={result.covers} "
                f"solve={rows[-1]['solve'] if rows[-1]['solve'] is not None else float('nan'):.3f}s"
                f"{f' on {workers} workers' if workers != 1 else ''} {result.message}")
            if progress is not None:
                progress.done()
    return rows


def static_proof_rows(entry: dict, specs: list[str], reasons: list[str]) -> list[dict]:
    """Rows for a puzzle the model proves unsolvable before any search: the proof, and every engine not run."""
    proof = Result(engine="static-check", status=Status.SOLVED, covers=0, unique=0, total=0,
                   message="; ".join(reasons), timings={"solve": 0.0})
    rows = [row(entry, "static-check", 0, proof)]
    for spec in specs:
        skipped = Result(engine=spec, status=Status.SKIPPED, message="not run: the static check proves it unsolvable")
        rows.append(row(entry, spec, 0, skipped))
    say(f"  unsolvable without search: {proof.message}")
    return rows
