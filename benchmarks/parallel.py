"""Parallel solves: the balance of the split (machine-independent) and measured speed-ups, whole processes.

``python -m benchmarks.parallel [CASE...] [--workers 1,2,...] [--rounds R] [--balance-workers B] [--cluster]``

For each case (the Tetris Cube, the 13x13 diamond and the one-sided 18x5
by default; ``fila``, untuned, as a user runs ``bench solve``) it first runs
``bench solve -q -i --engine fila FILE -w B`` once and reads the balance
of its split from ``--info``: the sub-problems, the nodes of the whole
search and of the largest sub-problem, and the speed-up a perfect
scheduler reaches with 4, 16 and 64 workers on those sizes
(``PARALLEL_SPEEDUP_BOUND_N``, :mod:`bench.parallel.balance`): a property
of the tree and the split, the same on any machine.  With ``--workers``
it then times the whole ``bench solve -q -i -w W`` processes for each W,
in turns (W1, W2, ..., W1, W2, ...): medians, spreads (min-max), wall and
CPU seconds (the processes and the workers they reaped), the speed-up
over ``-w 1`` round by round, and the machine's load average before and
after (the machine may be shared: a speed-up is read against it); with 1
and 2 among them, two ``-w 1`` started together too, the machine's own
ceiling for two cores.  Every
counter ``--info`` prints must be the same in every run (times, rates and
``PARALLEL_*`` aside), and the counts ``expected.toml``'s.  With
``--cluster`` the largest W also runs through a Dask scheduler and W
one-thread workers started on loopback, in the same turns.  Writes
``results/parallel-CASE.json`` and ``.md``.
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
from bench.models.expected import expected_for
from bench.parallel.executors import loopback_cluster
from bench.system.files import write_atomic

CASES = {
    "tetriscube": "defs/tetriscube.txt",
    "diamond": "defs/pentominoes_tetrominoes_diamond_13x13.txt",
    "onesided18x5": "defs/pentominoes_1s_18x5.txt",
    "10x6": "defs/pentominoes_10x6.txt",
}
"""Case name: definition file (solved with fila, untuned)."""
DEFAULT_CASES = ("tetriscube", "diamond", "onesided18x5")
PAIR = "two -w 1 at once"

COUNT_LINE = re.compile(r": (\d+) covers, (\d+) unique, (\d+) total in ([0-9.]+) s \([^,]+, ([^)]+)\)$")
"""``bench solve``'s count line on standard error: covers, unique, total, search seconds, status."""
BALANCE_KEYS = ("SUBPROBLEMS", "DEPTH", "HANDED_BACK", "GENERATIONS", "BUDGET_LARGEST", "WORK_TOTAL", "WORK_SPLIT",
                "WORK_LARGEST", "LARGEST_SHARE", "SPEEDUP_BOUND_4", "SPEEDUP_BOUND_16", "SPEEDUP_BOUND_64")
"""The ``PARALLEL_*`` lines of ``--info`` that describe the split's balance."""


def run_processes(commands: list[list[str]], cwd: Path) -> dict:
    """Start ``commands`` together and wait for every one: the wall seconds until the last ended, the CPU seconds
    of all of them and their workers, and each one's exit status, standard output and standard error."""
    before = os.times()
    start = time.perf_counter()
    children = [subprocess.Popen(c, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=user_environment())
                for c in commands]
    outputs = [child.communicate() for child in children]
    wall = time.perf_counter() - start
    after = os.times()
    cpu = after.children_user - before.children_user + after.children_system - before.children_system
    return {"wall": wall, "cpu": cpu, "status": [c.returncode for c in children],
            "stdout": [o for o, _ in outputs], "stderr": [e for _, e in outputs]}


def counted(stderr: bytes, status: int) -> tuple[float, tuple]:
    """The search seconds and (covers, unique, total, status) of one ``bench solve`` from its count line."""
    for line in reversed(stderr.decode(errors="replace").splitlines()):
        found = COUNT_LINE.search(line)
        if found:
            covers, unique, total, seconds, state = found.groups()
            return float(seconds), (int(covers), int(unique), int(total), state if status == 0 else f"exit {status}")
    return 0.0, (None, None, None, f"exit {status}")


def info_lines(stdout: bytes) -> dict[str, str]:
    """The ``KEY=value`` lines of ``--info``."""
    return dict(line.split("=", 1) for line in stdout.decode(errors="replace").splitlines()
                if "=" in line and not line.startswith("#"))


def counters(info: dict[str, str]) -> dict[str, str]:
    """The lines of ``--info`` every run of a search must print alike: all but times, rates and the split's own."""
    return {k: v for k, v in info.items()
            if not (k.endswith(("_SECONDS", "_TIME", "_PER_SEC")) or k.startswith("PARALLEL_") or k == "COVER_CACHE")}


def solve_command(path: str, workers: int, cluster: str | None = None) -> list[str]:
    """``bench solve -q -i --engine fila`` on ``path`` with ``workers`` (or through the Dask scheduler ``cluster``)."""
    split = ["--cluster", cluster] if cluster else ["-w", str(workers)]
    return [sys.executable, "-m", "bench", "solve", "-q", "-i", "--engine", "fila", path, *split]


def balance_run(path: str, workers: int, root: Path) -> dict:
    """One split run with ``workers``: the balance figures of its split, its counts and counters."""
    done = run_processes([solve_command(path, workers)], root)
    info = info_lines(done["stdout"][0])
    seconds, counts = counted(done["stderr"][0], done["status"][0])
    return {"workers": workers, "counts": counts, "wall": round(done["wall"], 3),
            "balance": {k.lower(): info.get(f"PARALLEL_{k}") for k in BALANCE_KEYS}, "counters": counters(info)}


def timed_rounds(path: str, workers: list[int], rounds: int, root: Path, cluster: str | None) -> dict:
    """Whole ``bench solve`` processes for each worker count (and Dask), in turns; medians, spreads, speed-ups."""
    labels = [f"-w {w}" for w in workers]
    commands = [[solve_command(path, w)] for w in workers]
    if 1 in workers and 2 in workers:
        # two -w 1 at once: what the second core gives two independent searches right now, the ceiling of -w 2
        labels.append(PAIR)
        commands.append([solve_command(path, 1)] * 2)
    if cluster:
        labels.append(f"Dask, {max(workers)} workers")
        commands.append([solve_command(path, 0, cluster)])
    runs: dict[str, list] = {label: [] for label in labels}
    seen: dict[str, dict] = {}
    # a first run fills the kernel and cover caches (the choice of configuration is made there), as a user's first
    run_processes(commands[0], root)
    for _ in range(rounds):
        for label, command in zip(labels, commands):
            done = run_processes(command, root)
            found = [counted(e, s) for e, s in zip(done["stderr"], done["status"])]
            seen.update({f"{label} {k}": counters(info_lines(o)) for k, o in enumerate(done["stdout"])})
            runs[label].append({"wall": round(done["wall"], 3), "cpu": round(done["cpu"], 3),
                                "solve": max(seconds for seconds, _ in found), "counts": [c for _, c in found]})
    rows = []
    base = runs.get("-w 1")
    for label, done in runs.items():
        wall = [r["wall"] for r in done]
        row = {"run": label, "counts": sorted({c for r in done for c in r["counts"]}, key=str),
               "wall_median": round(statistics.median(wall), 3), "wall_min": min(wall), "wall_max": max(wall),
               "cpu_median": round(statistics.median(r["cpu"] for r in done), 3),
               "solve_median": round(statistics.median(r["solve"] for r in done), 3), "all_wall": wall}
        if base is not None:
            # the pair runs two searches in its wall time
            work = 2 if label == PAIR else 1
            ratios = [work * a["wall"] / b["wall"] for a, b in zip(base, done) if b["wall"] > 0]
            row.update(speedup_median=round(statistics.median(ratios), 3), speedup_min=round(min(ratios), 3),
                       speedup_max=round(max(ratios), 3))
        rows.append(row)
    same = len({json.dumps(c, sort_keys=True) for c in seen.values()}) <= 1
    return {"rows": rows, "counters_agree": same}


def run_case(name: str, workers: list[int], balance_workers: int, rounds: int, cluster: bool, out: Path) -> int:
    """Measure one case; writes its report and returns 0 when every count and counter agrees."""
    root = Path(__file__).resolve().parents[1]
    path = CASES[name]
    load_before = os.getloadavg()
    balance = balance_run(path, balance_workers, root)
    timing = None
    if workers:
        if cluster:
            with loopback_cluster(max(workers), cwd=root) as address:
                timing = timed_rounds(path, workers, rounds, root, address)
        else:
            timing = timed_rounds(path, workers, rounds, root, None)
    [puzzle] = bench.load(path)
    expected = expected_for(puzzle)
    counts = {balance["counts"]} | ({tuple(c) for r in timing["rows"] for c in r["counts"]} if timing else set())
    agree = len(counts) == 1 and next(iter(counts))[3] == "solved" and (timing is None or timing["counters_agree"])
    if expected is not None and expected.unique is not None:
        agree = agree and {c[1:3] for c in counts} == {(expected.unique, expected.total)}
    doc = {"case": name, "puzzle": path, "engine": "fila", "balance": balance, "timing": timing,
           "workers": workers, "rounds": rounds if workers else 0,
           "load_average_before": [round(x, 2) for x in load_before],
           "load_average_after": [round(x, 2) for x in os.getloadavg()],
           "machine": f"{platform.processor() or platform.machine()}, {len(os.sched_getaffinity(0))} cores, "
                      f"Python {platform.python_version()}", "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "counts_agree": agree}
    balance.pop("counters")
    write_atomic(out / f"parallel-{name}.json", json.dumps(doc, indent=2) + "\n", "benchmark result")
    write_atomic(out / f"parallel-{name}.md", markdown(doc, balance_workers, cluster), "benchmark report")
    print(markdown(doc, balance_workers, cluster))
    return 0 if agree else 1


def markdown(doc: dict, balance_workers: int, cluster: bool) -> str:
    """The case as Markdown: the balance, then the timed rounds."""
    b = doc["balance"]["balance"]
    rerun = f"python -m benchmarks.parallel {doc['case']} --balance-workers {balance_workers}"
    if doc["workers"]:
        rerun += f" --workers {','.join(map(str, doc['workers']))} --rounds {doc['rounds']}" + \
            (" --cluster" if cluster else "")
    lines = [f"# Parallel solves: {doc['puzzle']} (fila, untuned)", "",
             f"- Machine: {doc['machine']}; {doc['date']}; load average (1, 5, 15 min) "
             f"{doc['load_average_before']} before, {doc['load_average_after']} after (an idle machine: under 0.2)",
             f"- Counts agree (with each other and expected.toml), every counter of --info alike in every run: "
             f"{'yes' if doc['counts_agree'] else 'NO'}",
             f"- Rerun: `{rerun}`", "",
             f"## Balance of the split (`bench solve -q -i --engine fila {doc['puzzle']} -w {balance_workers}`)", "",
             "Machine-independent: the nodes of each sub-problem as measured, and the speed-up longest processing "
             "time first over them gives 4, 16 and 64 workers (the splitter's nodes serial).", "",
             "| sub-problems | depth | handed back | generations | largest budget | nodes | largest sub-problem "
             "| largest share | bound 4 | bound 16 | bound 64 |", "|" + "---|" * 11,
             f"| {b['subproblems']} | {b['depth']} | {b['handed_back']} | {b['generations']} | {b['budget_largest']} "
             f"| {b['work_total']} | {b['work_largest']} | {b['largest_share']} | **{b['speedup_bound_4']}** "
             f"| **{b['speedup_bound_16']}** | **{b['speedup_bound_64']}** |"]
    timing = doc["timing"]
    if timing:
        lines += ["", f"## Wall times, whole processes, {doc['rounds']} rounds in turns", "",
                  "wall: seconds until the process ended; cpu: user + system seconds of the process and its workers; "
                  "solve: the search's own seconds from the count line; speed-up: the `-w 1` wall time over the "
                  "row's, round by round (median, min-max); for the two `-w 1` started together, twice it: what the "
                  "second core gives two independent searches right now, the ceiling of `-w 2` on this machine.", "",
                  "| run | wall median | wall min | wall max | cpu median | solve median | speed-up median "
                  "| speed-up min | speed-up max | wall each round |", "|" + "---|" * 10]
        for r in timing["rows"]:
            lines.append(f"| {r['run']} | {r['wall_median']} | {r['wall_min']} | {r['wall_max']} | {r['cpu_median']} "
                         f"| {r['solve_median']} | {r.get('speedup_median', '')} | {r.get('speedup_min', '')} "
                         f"| {r.get('speedup_max', '')} | {r['all_wall']} |")
    return "\n".join(lines) + "\n"


def worker_list(text: str) -> list[int]:
    """``1,2,4`` as a list of worker counts."""
    try:
        workers = [int(w) for w in text.split(",") if w]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected worker counts like 1,2,4, got {text!r}") from None
    if not workers or min(workers) < 1:
        raise argparse.ArgumentTypeError(f"expected worker counts of 1 or more, got {text!r}")
    return workers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.parallel", description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE",
                        help=f"any of: {' '.join(CASES)} (default: {' '.join(DEFAULT_CASES)})")
    parser.add_argument("--workers", type=worker_list, default=[],
                        help="worker counts to time, in turns (e.g. 1,2,4; none: the balance only)")
    parser.add_argument("--balance-workers", type=int, default=16,
                        help="the workers of the run whose split's balance is reported (default 16)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each worker count, in turns; medians shown")
    parser.add_argument("--cluster", action="store_true",
                        help="also time a Dask scheduler with as many one-thread workers as the largest count")
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case {', '.join(unknown)}: expected any of {' '.join(CASES)}")
    status = 0
    for name in args.cases or DEFAULT_CASES:
        status = max(status, run_case(name, args.workers, args.balance_workers, args.rounds, args.cluster,
                                      Path(args.results)))
    return status


if __name__ == "__main__":
    sys.exit(main())
