"""Orientation benchmark: FILA's untuned configuration on the same puzzle drawn two ways, in the same runs.

Each case solves a puzzle as bundled and as redrawn (the box turned, or
every piece turned), with ``--engine fila`` and no tuning option, rounds
interleaved; it prints and writes ``results/orientation-CASE.md`` with the
search times (median and spread), their per-round ratio and the
machine-independent counters, which must be identical:

``rectangle``
    the 10x6 pentominoes against the same box drawn 6x10;
``rectangle12``
    12x5 against 5x12;
``tetriscube``
    the Tetris Cube as bundled against every piece turned a third of a
    turn about the cube's diagonal, (x, y, z) -> (z, x, y).

``python -m benchmarks.orientation [CASE ...] [--rounds R]``; no case runs all.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

import bench
from bench.bundled import DEFS
from bench.comparison.results import machine_facts
from bench.engines import get_engine
from bench.engines.protocol import Limits
from bench.system.files import write_atomic
from bench.session.prepare import Request, prepare

RESULTS = Path("results")


def transposed(text: str) -> str:
    """The definition with the box's x and y dimensions swapped (free pieces: the same puzzle)."""
    return re.sub(r"xDim=(\d+):yDim=(\d+)", r"xDim=\2:yDim=\1", text)


def turned_pieces(text: str) -> str:
    """Every ``C`` layout turned a third of a turn about the space diagonal: (x, y, z) -> (z, x, y)."""
    def turn(match):
        cells = [tuple(int(v) for v in c.split()) for c in match.group(1).split(",")]
        return "layout=" + ", ".join(f"{z} {x} {y}" for x, y, z in cells)
    return re.sub(r"layout=([0-9 ,]+?)(?=\s+#|\n)", turn, text)


CASES = {
    "rectangle": ("pentominoes_10x6.txt", transposed, "drawn 6x10", 9),
    "rectangle12": ("pentominoes_12x5.txt", transposed, "drawn 5x12", 9),
    "tetriscube": ("tetriscube.txt", turned_pieces, "pieces turned (x, y, z) -> (z, x, y)", 3),
}

COUNTERS = ("nodes", "attempts", "fits")


def run_case(name: str, rounds: int | None) -> tuple[str, bool]:
    """The case's Markdown report, and whether both drawings searched the same tree with the same counts."""
    file, redraw, label, default_rounds = CASES[name]
    rounds = rounds or default_rounds
    text = (DEFS / file).read_text()
    engine = get_engine("fila")
    compile_seconds = engine.warm_up()
    drawings = [(f"{file} as bundled", text), (f"{file} {label}", redraw(text))]
    prepared = [prepare(bench.Puzzle.from_definition(bench.parse_text(t)[0]), Request(tuned=False), engine)
                for _, t in drawings]
    times: list[list[float]] = [[], []]
    results = [None, None]
    for _ in range(rounds):
        for k, p in enumerate(prepared):
            results[k] = engine.solve(p.cover, p.settings, Limits())
            times[k].append(results[k].timings["solve"])
    ratios = [a / b for a, b in zip(*times)]
    machine = machine_facts()
    lines = [f"# Orientation: {file}, FILA untuned, drawn two ways", "",
             f"{rounds} interleaved rounds; search seconds (compile {compile_seconds:.1f} s apart); "
             f"machine: {machine['cpu']}, {machine['cores']} cores, commit {machine['commit']}.",
             "", "| drawing | configuration | median s | min s | max s | covers | unique | total | "
             + " | ".join(COUNTERS) + " |", "|---|---|---|---|---|---|---|---|" + "---|" * len(COUNTERS)]
    for (title, _), p, r, t in zip(drawings, prepared, results, times):
        lines.append(f"| {title} | {r.variant}, -r {p.cover.redundancy.piece if p.cover.redundancy else '.'} | "
                     f"{statistics.median(t):.4f} | {min(t):.4f} | {max(t):.4f} | {r.covers} | {r.unique} | {r.total} | "
                     + " | ".join(f"{r.stats[c]:,}" for c in COUNTERS) + " |")
    same = all(results[0].stats[c] == results[1].stats[c] for c in COUNTERS) and \
        (results[0].covers, results[0].unique, results[0].total) == (results[1].covers, results[1].unique,
                                                                      results[1].total)
    lines += ["", f"Ratio bundled / redrawn per round: median {statistics.median(ratios):.3f} "
              f"(min {min(ratios):.3f}, max {max(ratios):.3f}).  Same tree and counts: {'yes' if same else 'NO'}.", ""]
    return "\n".join(lines), same


def main(argv: list[str] | None = None) -> int:
    """Run the chosen cases (all by default); returns 1 if a redrawn puzzle searched another tree."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.orientation", description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help=", ".join(CASES))
    parser.add_argument("--rounds", type=int, metavar="R", help="rounds per drawing (default per case)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    failed = False
    for name in args.cases or list(CASES):
        report, same = run_case(name, args.rounds)
        print(report)
        write_atomic(RESULTS / f"orientation-{name}.md", report, "benchmark report")
        failed = failed or not same
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
