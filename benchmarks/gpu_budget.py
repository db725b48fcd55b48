"""The GPU engine's node budget: one solve per budget on the same prepared covers, on a device.

``python -m benchmarks.gpu_budget [CASE...] [--budgets 4096,1024,256,64] [--time-limit S] [--results DIR]``
prepares each case as ``benchmarks.gpu`` does (FILA's automatic
configuration), compiles the device kernel with a first short solve, then
solves the cover once per budget (the nodes a walk may search in one launch
before it is cut; :class:`~bench.engines.gpu.Tuning`), each under
``--time-limit``.  Per solve: wall seconds, the engine's split, copy and
kernel seconds, launches, walks cut and rows they left, and whether the
counts are ``defs/expected.toml``'s.  The budget never changes the tree
(the nodes are the same in every row), only how often walks are cut and
how long a launch waits for its slowest walk.  Writes
``results/gpu-budget.json`` and ``.md`` with the geometric mean of each
budget's wall seconds over the cases (a run that is not exact counts as
60 s), and exits 1 when a count is wrong.

Nothing here runs without a CUDA device (``benchmarks/gpu_device.sh`` shows
how to run a benchmark on a lent machine).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import bench
from bench.bundled import DEFS
from bench.comparison.results import machine_facts
from bench.engines import Limits, get_engine
from bench.models.expected import expected_for
from bench.system.files import write_atomic
from benchmarks.gpu import CASES

FAILED_SECONDS = 60.0
"""What a solve that is not exact weighs in a budget's mean."""


def sweep(name: str, budgets: list[int], time_limit: float) -> list[dict]:
    """One solve of case ``name`` per budget, after a compiling one; a row each."""
    from bench.engines.gpu import Tuning
    from bench.session.prepare import Request, prepare

    gpu, fila = get_engine("gpu"), get_engine("fila")
    [puzzle] = bench.load(DEFS / CASES[name])
    expected = expected_for(puzzle)
    prepared = prepare(puzzle, Request(tuned=False), fila)
    gpu.solve(prepared.cover, limits=Limits(time_limit=0.2))
    rows = []
    for budget in budgets:
        start = time.perf_counter()
        result = gpu.solve(prepared.cover, limits=Limits(time_limit=time_limit), tuning=Tuning(budget=budget))
        wall = time.perf_counter() - start
        stats = result.stats.get("gpu", {})
        rows.append({"case": name, "budget": budget, "device": stats.get("device", "?"), "status": result.status.value,
                     "exact": result.status.value == "solved" and (result.unique, result.total) == (
                         expected.unique, expected.total),
                     "unique": result.unique, "total": result.total, "wall": round(wall, 4),
                     **{key: round(result.timings.get(key, 0.0), 4) for key in ("split", "copy", "kernel")},
                     "nodes": result.stats.get("nodes"),
                     **{key: stats.get(key) for key in ("launches", "cut", "continued", "subproblems")}})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def means(rows: list[dict]) -> dict[int, float]:
    """Each budget's geometric mean of wall seconds over the cases (a solve that is not exact as 60 s)."""
    walls: dict[int, list[float]] = {}
    for row in rows:
        walls.setdefault(row["budget"], []).append(row["wall"] if row["exact"] else FAILED_SECONDS)
    return {b: math.exp(sum(math.log(max(w, 1e-6)) for w in ws) / len(ws)) for b, ws in walls.items()}


def markdown(doc: dict) -> str:
    """The report: the setting, each budget's mean, then every solve."""
    m = doc["machine"]
    lines = [f"# The GPU engine's node budget, {doc['device']}", "",
             f"- Machine: {m['cpu']}, {m['cores']} cores; bench commit {m.get('commit', '?')}; {doc['date']}",
             f"- Rerun: `python -m benchmarks.gpu_budget {' '.join(doc['cases'])} --budgets "
             f"{','.join(map(str, doc['budgets']))} --time-limit {doc['time_limit']:g}`",
             "- Every case's cover as `benchmarks.gpu` prepares it (FILA's automatic configuration); one solve per "
             "budget after a compiling one; seconds: wall, from the prepared cover, compile apart",
             f"- All exact (expected.toml's unique and total): {'yes' if all(r['exact'] for r in doc['rows']) else 'NO'}",
             "", "| budget | geometric mean of wall s over the cases |", "|---|---|"]
    lines += [f"| {b} | {v:.4f} |" for b, v in sorted(doc["means"].items(), key=lambda kv: -int(kv[0]))]
    lines += ["", "| case | budget | status | exact | wall s | split s | copy s | kernel s | nodes | launches | cut | "
                  "continued | sub-problems |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        lines.append(f"| {r['case']} | {r['budget']} | {r['status']} | {'yes' if r['exact'] else 'NO'} | "
                     f"{r['wall']:.4f} | {r['split']:.4f} | {r['copy']:.4f} | {r['kernel']:.4f} | {r['nodes']:,} | "
                     f"{r['launches']} | {r['cut']:,} | {r['continued']:,} | {r['subproblems']:,} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the sweep; returns 1 when a count is wrong, 2 without a device."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_budget", description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"of {', '.join(CASES)} (default: tetriscube, "
                                                                  "10x6, diamond, onesided18x5)")
    parser.add_argument("--budgets", default="4096,1024,256,64", help="comma-separated node budgets")
    parser.add_argument("--time-limit", type=float, default=15.0, help="seconds a solve may take")
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    cases = args.cases or ["tetriscube", "10x6", "diamond", "onesided18x5"]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    try:
        budgets = [int(b) for b in args.budgets.split(",")]
    except ValueError:
        parser.error(f"--budgets {args.budgets!r}: expected whole numbers separated by commas")
    gpu = get_engine("gpu")
    if not gpu.available():
        print(f"gpu: not available: {gpu.missing()}", file=sys.stderr)
        return 2
    rows = [row for name in cases for row in sweep(name, budgets, args.time_limit)]
    doc = {"machine": machine_facts(), "device": rows[0]["device"] if rows else "?", "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "cases": cases, "budgets": budgets, "time_limit": args.time_limit, "rows": rows,
           "means": {str(b): v for b, v in means(rows).items()}}
    out = Path(args.results)
    write_atomic(out / "gpu-budget.json", json.dumps(doc, indent=1) + "\n", "benchmark results")
    write_atomic(out / "gpu-budget.md", markdown(doc), "benchmark report")
    print(markdown(doc), flush=True)
    return 0 if all(r["exact"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
