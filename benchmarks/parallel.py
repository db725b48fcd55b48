"""Parallel speed-up: one worker against N on the same matrix, whole processes, and the cost of a task through Dask.

``python -m benchmarks.parallel [CASE...] [--workers N] [--rounds R] [--cluster]``
first times the whole ``bench solve -q --engine E FILE -w 1`` and ``-w N``
processes, as a user runs them (imports, encoding, kernel loading, split
and exit included; the case's engine untuned, so it configures itself;
counts read off the count line), and two ``-w 1`` processes started
together, the machine's own ceiling for two cores, in turns (1, N, the
pair, 1, N, ...): the medians, spreads (min-max) and the speed-ups taken
round by round, wall and CPU seconds (the processes and the workers they
reaped).  Then, in this process, it solves each case with
the engine (one core) and split over N local worker processes, and with
``--cluster`` through a Dask scheduler and N workers started on loopback.
Counts must agree with each other and with ``expected.toml``.  Writes
``results/parallel-CASE.json`` and ``.md`` with times, speed-ups, nodes
and fits, the split (depth, sub-problems, split seconds) and, for Dask,
the measured seconds per dispatched task and their share of the run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import bench
from benchmarks import user_environment
from bench.engines import Settings, Status, get_engine
from bench.system.files import write_atomic
from bench.models.expected import expected_for
from bench.parallel.executors import loopback_cluster
from bench.parallel.runner import ParallelOptions, solve_parallel
from bench.session.prepare import Request, prepare, redundancy_argument

CASES = {
    "tetriscube": ("defs/tetriscube.txt", "L", "fila"),
    "onesided18x5": ("defs/pentominoes_1s_18x5.txt", "#", "fila"),
    "10x6": ("defs/pentominoes_10x6.txt", None, "dlx"),
    "diamond": ("defs/pentominoes_tetrominoes_diamond_13x13.txt", "I", "fila"),
}
"""Case name: (definition file, redundancy piece of the in-process rows, engine)."""


COUNT_LINE = re.compile(r": (\d+) covers, (\d+) unique, (\d+) total in ([0-9.]+) s \([^,]+, ([^)]+)\)$")
"""``bench solve``'s count line on standard error: covers, unique, total, search seconds, status."""


def run_processes(commands: list[list[str]], cwd: Path) -> dict:
    """Start ``commands`` together and wait for every one: the wall seconds until the last ended, the CPU seconds
    of all of them and their workers, and each one's exit status and standard error."""
    before = os.times()
    start = time.perf_counter()
    children = [subprocess.Popen(c, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=user_environment())
                for c in commands]
    errors = [child.communicate()[1] for child in children]
    wall = time.perf_counter() - start
    after = os.times()
    cpu = after.children_user - before.children_user + after.children_system - before.children_system
    return {"wall": wall, "cpu": cpu, "status": [c.returncode for c in children], "stderr": errors}


def counted(stderr: bytes, status: int) -> tuple[float, tuple]:
    """The search seconds and (covers, unique, total, status) of one ``bench solve`` from its count line."""
    for line in reversed(stderr.decode(errors="replace").splitlines()):
        found = COUNT_LINE.search(line)
        if found:
            covers, unique, total, seconds, state = found.groups()
            return float(seconds), (int(covers), int(unique), int(total), state if status == 0 else f"exit {status}")
    return 0.0, (None, None, None, f"exit {status}")


def whole_process(path: str, engine_name: str, workers: int, rounds: int) -> dict:
    """``bench solve`` with ``-w 1`` and ``-w workers``, and two ``-w 1`` at once, as whole processes in turns.

    The two ``-w 1`` processes started together say what the second core
    gives this machine right now (a shared host's other tenants, the cache
    and memory the two cores share): their speed-up, two searches' wall
    time against one's, is the ceiling of any split, which the report sets
    beside the split's.
    """
    root = Path(__file__).resolve().parents[2]
    pair = "two -w 1 at once"
    runs: dict = {1: [], workers: [], pair: []}

    def command(w: int) -> list[str]:
        return [sys.executable, "-m", "bench", "solve", "-q", "--engine", engine_name, path, "-w", str(w)]

    # a first run fills the kernel and cover caches (the choice of configuration is made there), as a user's first
    run_processes([command(1)], root)
    for _ in range(rounds):
        for key, commands in ((1, [command(1)]), (workers, [command(workers)]), (pair, [command(1)] * 2)):
            done = run_processes(commands, root)
            found = [counted(e, s) for e, s in zip(done["stderr"], done["status"])]
            runs[key].append({"wall": round(done["wall"], 3), "cpu": round(done["cpu"], 3),
                              "solve": round(max(seconds for seconds, _ in found), 3),
                              "counts": [c for _, c in found]})
    rows = []
    for key, done in runs.items():
        wall = [r["wall"] for r in done]
        rows.append({"run": f"bench solve -w {key}" if key != pair else f"bench solve -w 1, {pair}",
                     "counts": sorted({c for r in done for c in r["counts"]}, key=str),
                     "wall_median": round(statistics.median(wall), 3), "wall_min": min(wall), "wall_max": max(wall),
                     "cpu_median": round(statistics.median(r["cpu"] for r in done), 3),
                     "solve_median": round(statistics.median(r["solve"] for r in done), 3),
                     "all_wall": wall})
    ratios = [a["wall"] / b["wall"] for a, b in zip(runs[1], runs[workers]) if b["wall"] > 0]
    # two searches in the pair's wall time against one in -w 1's: what the second core gave independent processes
    ceilings = [2 * a["wall"] / b["wall"] for a, b in zip(runs[1], runs[pair]) if b["wall"] > 0]
    return {"rows": rows, "speedup_median": round(statistics.median(ratios), 3),
            "speedup_min": round(min(ratios), 3), "speedup_max": round(max(ratios), 3),
            "ceiling_median": round(statistics.median(ceilings), 3), "ceiling_min": round(min(ceilings), 3),
            "ceiling_max": round(max(ceilings), 3),
            "command": f"bench solve -q --engine {engine_name} {path} -w 1|{workers}"}


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


def run_case(name: str, workers: int, cluster: bool, rounds: int, out: Path, in_process: bool = True) -> int:
    """Time one case (whole processes, then in this process unless ``in_process`` is False); writes its report."""
    path, redundancy, engine_name = CASES[name]
    # the load average says how far the machine was from idle: other processes take the second core first
    load_before = os.getloadavg()[0]
    whole = whole_process(path, engine_name, workers, rounds)
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

    for _ in range(rounds if in_process else 0):
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
    whole_counts = {tuple(c) for r in whole["rows"] for c in r.pop("counts")}
    # unique and total, not covers: the whole processes configure themselves (their redundancy piece may differ)
    counts = {c[1:3] for r in rows for c in r.pop("counts_each_round")} | {c[1:3] for c in whole_counts}
    agree = len(counts) == 1 and all(r.status == Status.SOLVED for done in runs.values() for _, r in done) and \
        all(c[3] == "solved" for c in whole_counts)
    if expected is not None and expected.unique is not None:
        agree = agree and counts == {(expected.unique, expected.total)}
    base = rows[0]["seconds"] if rows else 0
    for r in rows:
        r["speedup"] = round(base / r["seconds"], 2) if r["seconds"] else ""
    doc = {"case": name, "puzzle": path, "redundancy": redundancy, "engine": engine_name, "workers": workers,
           "rounds": rounds, "whole_process": whole,
           "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
           "machine": f"{platform.processor() or platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores, "
                      f"Python {platform.python_version()}", "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "counts_agree": agree, "rows": rows}
    write_atomic(out / f"parallel-{name}.json", json.dumps(doc, indent=2) + "\n", "benchmark result")
    write_atomic(out / f"parallel-{name}.md", markdown(doc), "benchmark report")
    print(markdown(doc))
    return 0 if agree else 1


def markdown(doc: dict) -> str:
    """The case as Markdown: the whole processes, then the in-process table."""
    whole = doc["whole_process"]
    keys = ["run", "status", "covers", "unique", "total", "seconds", "speedup", "nodes", "fits", "subproblems", "depth",
            "split_s", "worker_compile_s", "tasks", "dispatch_s_per_task", "dispatch_share", "all_seconds"]
    lines = [f"# Parallel speed-up: {doc['puzzle']} ({doc['engine']})", "",
             f"- Machine: {doc['machine']}; {doc['date']}; load average {doc['load_average'][0]} before, "
             f"{doc['load_average'][1]} after (an idle machine: under 0.2)",
             f"- Counts agree (with each other and expected.toml): {'yes' if doc['counts_agree'] else 'NO'}",
             f"- Rerun: `python -m benchmarks.parallel {doc['case']} --workers {doc['workers']} "
             f"--rounds {doc['rounds']}`", "",
             f"## Whole processes: `{whole['command']}`, {doc['rounds']} rounds in turns", "",
             f"Speed-up of -w {doc['workers']} over -w 1, wall, round by round: median **{whole['speedup_median']}**, "
             f"min {whole['speedup_min']}, max {whole['speedup_max']}.", "",
             "The machine's own ceiling, two `-w 1` processes started together (twice the wall time of one `-w 1` "
             "over the wall time of the two, round by round): median "
             f"**{whole['ceiling_median']}**, min {whole['ceiling_min']}, max {whole['ceiling_max']}; 2 on a machine "
             "whose second core is idle and shares nothing.  cpu: user + system seconds of the processes and their "
             "workers; solve: the search's own seconds from the count line (the later of the two).", "",
             "| run | wall median | wall min | wall max | cpu median | solve median | wall each round |",
             "|---|---|---|---|---|---|---|"]
    for r in whole["rows"]:
        lines.append(f"| {r['run']} | {r['wall_median']} | {r['wall_min']} | {r['wall_max']} | {r['cpu_median']} | "
                     f"{r['solve_median']} | {r['all_wall']} |")
    if not doc["rows"]:
        return "\n".join(lines) + "\n"
    lines += ["", f"## In one process (redundancy {doc['redundancy'] or 'off'})", "",
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
    parser = argparse.ArgumentParser(prog="python -m benchmarks.parallel", description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help="any of: " + " ".join(CASES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cluster", action="store_true", help="also run through a Dask cluster on loopback")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each configuration, interleaved; medians shown")
    parser.add_argument("--whole-only", action="store_true", help="only the whole-process rounds")
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    status = 0
    # the one-sided 18x5 takes minutes a round: on request only
    for name in args.cases or ["tetriscube"]:
        status = max(status, run_case(name, args.workers, args.cluster, args.rounds, Path(args.results),
                                      in_process=not args.whole_only))
    return status


if __name__ == "__main__":
    sys.exit(main())
