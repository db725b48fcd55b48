"""FILA's hand-offs with and without the atlas: lists narrowed from the whole puzzle's, or built at each hand-off.

``python -m benchmarks.handoffs [--rounds R] [--results DIR]`` solves each
case in one process by turns, once with the atlas
(:func:`~bench.kernels.fila_lists.plan_atlas`, the default) and once with
every hand-off building its own lists, each solve on a fresh plan as a new
process has, and compares the solve's CPU seconds (``time.process_time``:
robust to a shared machine's load, unlike wall seconds) round by round.
Every counter must be identical: the atlas changes no list.  Writes
``results/handoffs.md`` and ``.json``.
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
from bench.engines.fila import FilaEngine
from bench.engines.protocol import Settings
from bench.kernels import fila_lists
from bench.models.cover import Cover
from bench.system.files import write_atomic
from benchmarks.polycube import median_and_range, spread_text

DEFS = Path(__file__).resolve().parent.parent / "defs"
CASES = [
    # (file, redundancy piece, hand-off, schedule): the automatic configuration's choices on these puzzles
    ("meteor.txt", "p9", 9, "e=9"),
    ("pentominoes_10x6.txt", "X", 10, "e=3:f=10"),
    ("somacube.txt", "Z", 6, "f=6"),
    ("hexprism_shader_triangle.txt", None, 8, "f=8"),
]


def solve(cover, settings: Settings, atlas: bool) -> tuple[float, dict]:
    """CPU seconds and statistics of one solve on a fresh plan, with or without the atlas."""
    fila_lists.make_plan.table.clear()
    saved = fila_lists.ATLAS_HANDOFFS
    fila_lists.ATLAS_HANDOFFS = saved if atlas else sys.maxsize
    try:
        start = time.process_time()
        result = FilaEngine().solve(cover, settings)
        return time.process_time() - start, {**result.stats, "counts": (result.covers, result.unique, result.total)}
    finally:
        fila_lists.ATLAS_HANDOFFS = saved


def compare(case: tuple, rounds: int) -> dict:
    """Interleaved rounds of one case, after a solve of each that fills the caches."""
    name, piece, handoff, order = case
    [puzzle] = bench.load(DEFS / name)
    cover = Cover.from_puzzle(puzzle, redundancy=piece, method="orbit")
    settings = Settings(fila=handoff, order=order, nof=True)
    for atlas in (False, True):
        solve(cover, settings, atlas)
    seconds: dict[bool, list[float]] = {False: [], True: []}
    stats: dict[bool, list] = {False: [], True: []}
    for r in range(rounds):
        for atlas in ((False, True) if r % 2 == 0 else (True, False)):
            s, st = solve(cover, settings, atlas)
            seconds[atlas].append(s)
            stats[atlas].append(st)
    identical = all(st == stats[False][0] for st in stats[False] + stats[True])
    return {"case": f"{name} -r {piece or '-'} -f {handoff} -o {order}", "built": median_and_range(seconds[False]),
            "narrowed": median_and_range(seconds[True]),
            "ratio": statistics.median(b / a for b, a in zip(seconds[False], seconds[True])),
            "handoffs": stats[True][0]["fila"]["handoffs"], "nodes": stats[True][0]["nodes"],
            "identical": identical}


def markdown(rows: list[dict], rounds: int) -> str:
    """The report: one row per case."""
    lines = ["# FILA's hand-offs: lists narrowed from the atlas against lists built at each hand-off", "",
             f"Machine: {platform.processor() or platform.machine()}, one process, {rounds} interleaved rounds per "
             "case; CPU seconds of the whole solve (DLX, hand-offs, FILA), median (min-max); ratio = median over "
             "rounds of built / narrowed (above 1: the atlas is faster).", "",
             "| case | hand-offs | nodes | built CPU s | narrowed CPU s | built/narrowed | counters identical |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['handoffs']:,} | {r['nodes']:,} | {spread_text(r['built'])} | "
                     f"{spread_text(r['narrowed'])} | {r['ratio']:.3f} | {'yes' if r['identical'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the cases; returns 1 when a counter differs."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.handoffs", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    rows = []
    for case in CASES:
        rows.append(compare(case, args.rounds))
        r = rows[-1]
        print(f"{r['case']}: built {r['built']['median']:.4f} s, narrowed {r['narrowed']['median']:.4f} s, "
              f"ratio {r['ratio']:.3f}, counters identical: {r['identical']}", flush=True)
    out = Path(args.results)
    write_atomic(out / "handoffs.md", markdown(rows, args.rounds), "benchmark report")
    write_atomic(out / "handoffs.json", json.dumps(rows, indent=1) + "\n", "benchmark report")
    print(f"written to {out / 'handoffs.md'}")
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
