"""The GPU engine against FILA on the same host: ``gpu``, ``fila -w 1`` and ``fila -w N`` on the same cover.

``python -m benchmarks.gpu [CASE...] [--rounds R] [--workers N] [--baseline-limit S] [--results DIR]``
prepares each case as an untuned ``bench solve --engine fila`` does (its
automatic configuration: the redundancy piece, the one-shot filters, its
settings), then solves that one cover with the GPU engine, with FILA in this
process and with FILA split over N worker processes (default: every core),
in interleaved rounds (each round starting one runner later), after a first
run of each that compiles its kernels (the GPU's compile seconds are
reported apart).  A FILA run that passes ``--baseline-limit`` seconds in
that first run is not repeated and is reported as over the limit.  Per
runner: the whole solve's wall seconds from the prepared cover (median,
min-max, each round), nodes, nodes per second and the median of the
per-round ratios to the GPU; for the GPU, its split, copy, kernel and
classification seconds apart, the kernel's own nodes per second, the piece
its root places, the split depth, sub-problems, node budget, walks cut at
it and the rows they left, launches and the busiest walk.  Counts
must agree with each other and with ``defs/expected.toml``.  Writes
``results/gpu-CASE.json`` and ``.md``; exits 1 on any disagreement.
``--gpu-tuning KEY=VALUE`` sets a field of the engine's
:class:`~bench.engines.gpu.Tuning` (how the search is cut and launched,
never what it counts), to compare settings on a device.

Nothing here runs without a CUDA device: ``benchmarks/gpu_device.sh``
runs it on a lent machine in one call (docs/gpu.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import bench
from bench.bundled import DEFS
from bench.comparison.results import machine_facts
from bench.engines import Limits, Result, Status, get_engine
from bench.models.expected import expected_for
from bench.system.files import write_atomic
from benchmarks.polycube import median_and_range

CASES = {
    "tetriscube": "tetriscube.txt",
    "onesided18x5": "pentominoes_1s_18x5.txt",
    "10x6": "pentominoes_10x6.txt",
    "12x5": "pentominoes_12x5.txt",
    "meteor": "meteor.txt",
    "hexiamonds": "hexiamonds_6x6.txt",
    "diamond": "pentominoes_tetrominoes_diamond_13x13.txt",
}
"""Case name: bundled definition file (issue 42's list)."""

Runner = Callable[[float | None], Result]
"""Solves the case's cover under a time limit (None: none) and returns the result."""


def tuning_of(pairs: list[str]):
    """The GPU engine's :class:`~bench.engines.gpu.Tuning` from ``KEY=VALUE`` words (its field names)."""
    from dataclasses import fields

    from bench.engines.gpu import Tuning

    types = {f.name: type(f.default) for f in fields(Tuning)}
    values = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key not in types or not value:
            raise ValueError(f"--gpu-tuning {pair!r}: expected KEY=VALUE with KEY one of {', '.join(types)}")
        values[key] = types[key](value)
    return Tuning(**values)


def runners(prepared, workers: int, tuning) -> dict[str, Runner]:
    """The GPU engine (under ``tuning``), FILA in one process and FILA over ``workers`` processes, on ``prepared``'s
    cover."""
    from bench.parallel.runner import ParallelOptions, solve_parallel

    gpu, fila = get_engine("gpu"), get_engine("fila")
    cover, settings = prepared.cover, prepared.settings
    fila.warm_up(cover, settings)
    return {
        "gpu": lambda limit: gpu.solve(cover, limits=Limits(time_limit=limit), tuning=tuning),
        "fila -w 1": lambda limit: fila.solve(cover, settings, Limits(time_limit=limit)),
        f"fila -w {workers}": lambda limit: solve_parallel(cover, fila, settings,
                                                          ParallelOptions(workers=workers, progress=False),
                                                          Limits(time_limit=limit)),
    }


def timed(runner: Runner, limit: float | None) -> tuple[float, Result]:
    """Wall seconds of one solve (the split workers' one-off kernel loading left out, as compile time is) and its result."""
    start = time.perf_counter()
    result = runner(limit)
    return time.perf_counter() - start - result.timings.get("worker_compile", 0.0), result


def run_case(name: str, file: str, runs: dict[str, Runner], rounds: int, limit: float, expected) -> dict:
    """A first run of every runner, then ``rounds`` interleaved rounds of those that finished within ``limit``."""
    first = {label: timed(runner, limit) for label, runner in runs.items()}
    timed_out = {label for label, (_, r) in first.items() if r.status == Status.TIMEOUT}
    labels = [label for label in runs if label not in timed_out]
    done: dict[str, list] = {label: [] for label in labels}
    for r in range(rounds):
        shift = r % max(len(labels), 1)
        for label in labels[shift:] + labels[:shift]:
            done[label].append(timed(runs[label], None))
    counts = {(res.covers, res.unique, res.total) for runs_ in done.values() for _, res in runs_}
    statuses = {res.status for runs_ in done.values() for _, res in runs_}
    agree = len(counts) == 1 and statuses == {Status.SOLVED} and "gpu" in done
    if agree and expected is not None and expected.unique is not None:
        agree = {c[1:] for c in counts} == {(expected.unique, expected.total)}
    gpu_seconds = [s for s, _ in done.get("gpu", [])]
    rows = []
    for label in runs:
        if label in timed_out:
            rows.append({"runner": label, "status": f"over {limit:g} s", "first_seconds": round(first[label][0], 3)})
            continue
        seconds = [s for s, _ in done[label]]
        result = done[label][-1][1] if done[label] else first[label][1]
        nodes = result.stats.get("nodes")
        row = {"runner": label, "status": result.status.value, "covers": result.covers, "unique": result.unique,
               "total": result.total, "seconds": median_and_range(seconds) if seconds else None,
               "all_seconds": [round(s, 4) for s in seconds], "nodes": nodes,
               "nodes_per_second": nodes / statistics.median(seconds) if nodes and seconds else None,
               "compile_seconds": round(first[label][1].timings.get("compile", 0.0), 3)}
        if gpu_seconds and label != "gpu" and seconds:
            row["ratio_to_gpu"] = statistics.median(s / g for s, g in zip(seconds, gpu_seconds))
        if label == "gpu" and done[label]:
            phases = ("split", "copy", "kernel", "classify")
            row["phases"] = {p: statistics.median(r.timings[p] for _, r in done[label]) for p in phases}
            device_nodes = nodes - result.stats["gpu"]["split_nodes"]
            row["kernel_nodes_per_second"] = device_nodes / row["phases"]["kernel"] if row["phases"]["kernel"] else None
            row["gpu"] = result.stats["gpu"]
        rows.append(row)
    return {"case": name, "file": file, "rounds": rounds, "baseline_limit": limit,
            "expected": None if expected is None else [expected.unique, expected.total],
            "counts_agree": agree, "rows": rows}


def markdown(doc: dict) -> str:
    """One case as Markdown: the runners side by side, then the GPU's phases and split."""
    def seconds(row: dict) -> str:
        s = row.get("seconds")
        return "-" if s is None else f"{s['median']:.4f} ({s['min']:.4f}-{s['max']:.4f})"

    def rate(value) -> str:
        return "-" if value is None else f"{value:.3g}"

    m = doc["machine"]
    lines = [f"# GPU engine against FILA: {doc['file']}", "",
             f"- Machine: {m.get('cpu', '?')}, {m.get('cores', '?')} cores; GPU: {doc.get('device', '?')}; bench "
             f"commit {m.get('commit', '?')}; {doc['date']}",
             f"- Cover: FILA's automatic configuration ({doc.get('configuration', '?')}), the same for every runner",
             f"- Counts agree (with each other and expected.toml {doc['expected']}): "
             f"{'yes' if doc['counts_agree'] else 'NO'}",
             f"- Rerun: `python -m benchmarks.gpu {doc['case']} --rounds {doc['rounds']} "
             f"--workers {doc['workers']} --baseline-limit {doc['baseline_limit']:g}"
             f"{' ' + doc['gpu_tuning'] if doc.get('gpu_tuning') else ''}`",
             "- seconds: the whole solve from the prepared cover (split, copies, kernel and classification for the "
             "GPU; compile apart, after a first run of each), median (min-max) of interleaved rounds; ratio: median "
             "of the per-round ratios runner / gpu (above 1: the GPU is faster)", "",
             "| runner | status | covers | unique | total | seconds | ratio to gpu | nodes | nodes/s | compile s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        ratio = r.get("ratio_to_gpu")
        lines.append(f"| {r['runner']} | {r['status']} | {r.get('covers', '-')} | {r.get('unique', '-')} | "
                     f"{r.get('total', '-')} | {seconds(r)} | {'-' if ratio is None else f'{ratio:.2f}'} | "
                     f"{r.get('nodes', '-') if r.get('nodes') is None else format(r['nodes'], ',')} | "
                     f"{rate(r.get('nodes_per_second'))} | {r.get('compile_seconds', '-')} |")
    gpu = next((r for r in doc["rows"] if r["runner"] == "gpu" and "phases" in r), None)
    if gpu is not None:
        g, p = gpu["gpu"], gpu["phases"]
        lines += ["", "## The GPU's solve", "",
                  "- first piece: the shape the root places (else the lowest open cell); cut: walks stopped at the "
                  "node budget, whose rest (continued rows) went to later launches; busiest: the most nodes one walk "
                  "searched in one launch", "",
                  "| split s | copy s | kernel s | classify s | kernel nodes/s | threads | first piece | split depth | "
                  "sub-problems | budget | cut | continued | launches | busiest |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
                  f"| {p['split']:.4f} | {p['copy']:.4f} | {p['kernel']:.4f} | {p['classify']:.4f} | "
                  f"{rate(gpu['kernel_nodes_per_second'])} | {g['threads']:,} | {g['first_piece'] or '-'} | "
                  f"{g['split_depth']} | {g['subproblems']:,} | {g['budget']:,} | {g['cut']:,} | {g['continued']:,} | "
                  f"{g['launches']} | {g['max_subproblem_nodes']:,} |"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the cases; returns 1 when a count disagrees."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu", description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"of {', '.join(CASES)} (default: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)),
                        help="FILA's split workers (default: every core)")
    parser.add_argument("--baseline-limit", type=float, default=120.0,
                        help="seconds a runner's first run may take before it is left out of the rounds")
    parser.add_argument("--gpu-tuning", action="append", default=[], metavar="KEY=VALUE",
                        help="a field of the GPU engine's Tuning (split, grain, budget, launch_seconds, ...); repeatable")
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    try:
        tuning = tuning_of(args.gpu_tuning)
    except ValueError as exc:
        parser.error(str(exc))
    gpu = get_engine("gpu")
    if not gpu.available():
        print(f"gpu: not available: {gpu.missing()}", file=sys.stderr)
        return 2
    from bench.session.prepare import Request, prepare

    fila = get_engine("fila")
    out = Path(args.results)
    machine = machine_facts()
    status = 0
    for name in args.cases or list(CASES):
        file = CASES[name]
        [puzzle] = bench.load(DEFS / file)
        prepared = prepare(puzzle, Request(tuned=False), fila)
        doc = run_case(name, file, runners(prepared, args.workers, tuning), args.rounds, args.baseline_limit,
                       expected_for(puzzle))
        gpu_row = next(r for r in doc["rows"] if r["runner"] == "gpu")
        red = prepared.cover.redundancy
        doc.update(machine=machine, workers=args.workers, date=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                   gpu_tuning=" ".join(f"--gpu-tuning {p}" for p in args.gpu_tuning),
                   device=gpu_row.get("gpu", {}).get("device", "?"),
                   configuration=f"redundancy {red.piece if red else 'off'}, {prepared.cover.n_options} options; FILA "
                                 f"hands off at {prepared.settings.fila} pieces, order {prepared.settings.order}")
        write_atomic(out / f"gpu-{name}.json", json.dumps(doc, indent=1) + "\n", "benchmark results")
        write_atomic(out / f"gpu-{name}.md", markdown(doc), "benchmark report")
        print(markdown(doc), flush=True)
        status = max(status, 0 if doc["counts_agree"] else 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
