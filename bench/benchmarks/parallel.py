"""Parallel speed-up: one worker against N on the same matrix, and the cost of a task through Dask.

``python -m bench.benchmarks.parallel [CASE...] [--workers N] [--cluster]``
solves each case with the engine in this process (one core), then split
over N local worker processes, and with ``--cluster`` through a Dask
scheduler and N workers started on loopback; counts must agree with each
other and with ``expected.toml``.  Writes ``results/parallel-CASE.json``
and ``.md`` with times, speed-ups, nodes and fits, the split (depth,
sub-problems, split seconds) and, for Dask, the measured seconds per
dispatched task and their share of the run.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import bench
from bench.engines import Settings, get_engine
from bench.files import write_atomic
from bench.models.expected import expected_for
from bench.parallel.executors import loopback_cluster
from bench.parallel.runner import ParallelOptions, solve_parallel
from bench.prepare import Request, prepare, redundancy_argument

CASES = {
    "tetriscube": ("defs/tetriscube.txt", "L", "fila"),
    "onesided18x5": ("defs/pentominoes_1s_18x5.txt", "#", "fila"),
    "10x6": ("defs/pentominoes_10x6.txt", None, "dlx"),
}


def row(label: str, result, seconds: float) -> dict:
    """One table row."""
    par = result.stats.get("parallel", {})
    return {"run": label, "status": result.status.value, "covers": result.covers, "unique": result.unique,
            "total": result.total, "seconds": round(seconds, 3), "nodes": result.stats.get("nodes"),
            "fits": result.stats.get("fits"), "subproblems": par.get("subproblems", ""), "depth": par.get("depth", ""),
            "split_s": round(result.timings.get("split", 0.0), 3),
            "worker_compile_s": round(result.timings["worker_compile"], 3) if "worker_compile" in result.timings else "",
            "tasks": par.get("tasks", ""), "dispatch_s_per_task": _round(par.get("dispatch_seconds_per_task"), 4),
            "dispatch_share": _round(par.get("dispatch_share"), 4)}


def _round(value, digits: int):
    return "" if value is None else round(value, digits)


def run_case(name: str, workers: int, cluster: bool, rounds: int, out: Path) -> int:
    path, redundancy, engine_name = CASES[name]
    [puzzle] = bench.load(path)
    cover = prepare(puzzle, Request(redundancy=redundancy_argument(redundancy))).cover
    engine = get_engine(engine_name)
    engine.warm_up()
    runs: dict[str, list] = {}

    def timed(label: str, solve) -> None:
        start = time.perf_counter()
        result = solve()
        # the Dask workers' one-off kernel loading is compile time, kept apart as for one process
        seconds = time.perf_counter() - start - result.timings.get("worker_compile", 0.0)
        runs.setdefault(label, []).append((seconds, result))

    for _ in range(rounds):
        timed(f"{engine_name}, 1 process", lambda: engine.solve(cover, Settings()))
        timed(f"{engine_name}, {workers} workers", lambda: solve_parallel(
            cover, engine, Settings(), ParallelOptions(workers=workers, progress=False)))
    if cluster:
        # started after the local rounds: an idle scheduler and workers still take CPU time from them
        with loopback_cluster(workers) as address:
            for _ in range(rounds):
                timed(f"{engine_name}, Dask {workers} workers", lambda: solve_parallel(
                    cover, engine, Settings(), ParallelOptions(workers=workers, cluster=address, progress=False)))
    rows = []
    for label, done in runs.items():
        seconds = [t for t, _ in done]
        median = statistics.median(seconds)
        _, result = min(done, key=lambda d: abs(d[0] - median))
        rows.append({**row(label, result, median), "all_seconds": [round(t, 3) for t in seconds]})
        rows[-1]["counts_each_round"] = sorted({(r.covers, r.unique, r.total, r.status.value) for _, r in done})
    expected = expected_for(puzzle)
    counts = {c for r in rows for c in r.pop("counts_each_round")}
    agree = len(counts) == 1 and next(iter(counts))[3] == "solved"
    if expected is not None and expected.unique is not None:
        agree = agree and (rows[0]["unique"], rows[0]["total"]) == (expected.unique, expected.total)
    base = rows[0]["seconds"]
    for r in rows:
        r["speedup"] = round(base / r["seconds"], 2) if r["seconds"] else ""
    doc = {"case": name, "puzzle": path, "redundancy": redundancy, "engine": engine_name, "workers": workers,
           "rounds": rounds,
           "machine": f"{platform.processor() or platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores, "
                      f"Python {platform.python_version()}", "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "counts_agree": agree, "rows": rows}
    write_atomic(out / f"parallel-{name}.json", json.dumps(doc, indent=2) + "\n", "benchmark result")
    write_atomic(out / f"parallel-{name}.md", markdown(doc), "benchmark report")
    print(markdown(doc))
    return 0 if agree else 1


def markdown(doc: dict) -> str:
    """The case as a Markdown table."""
    keys = ["run", "status", "covers", "unique", "total", "seconds", "speedup", "nodes", "fits", "subproblems", "depth",
            "split_s", "worker_compile_s", "tasks", "dispatch_s_per_task", "dispatch_share", "all_seconds"]
    lines = [f"# Parallel speed-up: {doc['puzzle']} (redundancy {doc['redundancy'] or 'off'}, {doc['engine']})", "",
             f"- Machine: {doc['machine']}; {doc['date']}",
             f"- Counts agree (with each other and expected.toml): {'yes' if doc['counts_agree'] else 'NO'}",
             f"- seconds: median of {doc['rounds']} interleaved rounds (all_seconds: each round) of the wall time of the whole solve (split, estimates and dispatch included; the "
             "Dask workers' one-off kernel loading is worker_compile_s, apart, as compile time is for one process); "
             "speedup against one process; tasks: Dask tasks (bundles of sub-problems); dispatch_share: tasks x "
             "the measured round trip of an empty task, over the workers' solving seconds", "",
             "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for r in doc["rows"]:
        cells = [f"{r.get(k):,}" if isinstance(r.get(k), int) and k not in ("depth",) else str(r.get(k, "")) for k in keys]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.benchmarks.parallel", description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help="any of: " + " ".join(CASES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cluster", action="store_true", help="also run through a Dask cluster on loopback")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each configuration, interleaved; medians shown")
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    status = 0
    for name in args.cases or ["tetriscube", "onesided18x5"]:
        status = max(status, run_case(name, args.workers, args.cluster, args.rounds, Path(args.results)))
    return status


if __name__ == "__main__":
    sys.exit(main())
