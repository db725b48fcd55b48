"""Before and after: the same searches in two checkouts of bench, interleaved, for a change that must not slow them.

``python -m benchmarks.checkouts BEFORE AFTER [--rounds R] [--python PY] [--only TEXT ...] [--bundled]``
runs ``bench solve -q -i -w 1`` on each case in the checkout BEFORE and
in AFTER by turns (A B, then B A, ...), each a fresh process whose kernels
are already cached, and compares the search seconds (``SOLVE_SECONDS``)
round by round: the median of BEFORE/AFTER ratios is robust to the drift of
a shared machine.  The machine-independent counters (covers, unique,
total, nodes, attempts, fits) must be identical, unless the change is
meant to change the tree.  ``--bundled`` adds an untuned ``fila`` solve of
every bundled puzzle whose search takes under a second (:data:`BUNDLED`),
for a change of the automatic configuration.  Writes
``results/checkouts-COMMIT-COMMIT.md``.  A checkout is any directory holding
the ``bench`` package (``git worktree add DIR COMMIT``); PY must have
bench's dependencies installed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Callable

from bench.system.files import write_atomic

CASES = [
    ("fila", "defs/pentominoes_10x6.txt", []),
    ("dlx", "defs/pentominoes_10x6.txt", ["-r", "#"]),
    ("dlx:sets", "defs/pentominoes_10x6.txt", ["-r", "#"]),
    ("fila", "defs/tetriscube.txt", ["-r", "L", "-f", "11", "-o", "e=11:f=3"]),
    ("dlx", "defs/tetriscube.txt", ["-r", "L"]),
    # the hand-off set-up weighs most here: building the 32 hand-offs' lists is about 40 % of the search
    ("fila", "defs/meteor.txt", []),
    # a small solve: three hand-offs whose Python set-up is a third of the search (issue 43's polycube anchor)
    ("fila", "defs/somacube.txt", []),
]
BUNDLED = [("fila", f"defs/{name}.txt", []) for name in (
    "dominoes_4x4", "dominoes_6x6", "dominoes_checkered_6x6", "dominoes_fixed_2x10", "hexiamonds_6x6",
    "hexprism_shader_triangle", "meteor", "pentacubes_planar_2x3x10", "pentacubes_planar_2x5x6", "pentominoes_10x6",
    "pentominoes_12x5", "pentominoes_15x4", "pentominoes_1s_30x3", "pentominoes_20x3",
    "pentominoes_8x8_scott", "polyspheres_square_pyramid_30", "polyspheres_tetrahedron_20", "somacube",
    "squares_dominoes_2x6", "tetraboloes_pentaboloes_4x4", "tetrahexes_4x7", "tetraocta_octahedron_2",
    "tetrominoes_cylinder_5x4", "tetrominoes_torus_5x4")]
"""An untuned ``fila`` solve of each bundled puzzle whose search takes under a second (``--bundled``); the others
(the Tetris Cube, the 13x13 diamond, the pentacubes in 3x4x5, the torus, the hexominoes, dominoes 8x8, the
one-sided 18x5) take seconds to minutes a round."""
COUNTERS = ("SOLUTIONS", "UNIQUE", "TOTAL", "NODES", "ATTEMPTS_TOTAL", "FITS_TOTAL")


def solve_once(python: str, checkout: str, engine: str, path: str, options: list[str]) -> tuple[float, tuple]:
    """Search seconds and counters of one ``bench solve`` in ``checkout``."""
    out = subprocess.run([python, "-m", "bench", "solve", "-e", engine, "-q", "-i", "-w", "1", *options, path],
                         cwd=checkout, capture_output=True, text=True, check=True).stdout
    values = dict(line.split("=", 1) for line in out.splitlines() if "=" in line and not line.startswith("SHAPE"))
    return float(values["SOLVE_SECONDS"]), tuple(values.get(k) for k in COUNTERS)


def compare(python: str, before: str, after: str, case: tuple, rounds: int) -> dict:
    """Interleaved rounds of one case; the first run of each checkout only warms its caches."""
    engine, path, options = case
    for checkout in (before, after):
        solve_once(python, checkout, engine, path, options)
    times: dict[str, list[float]] = {before: [], after: []}
    counters: dict[str, set] = {before: set(), after: set()}
    for r in range(rounds):
        for checkout in ((before, after) if r % 2 == 0 else (after, before)):
            seconds, counts = solve_once(python, checkout, engine, path, options)
            times[checkout].append(seconds)
            counters[checkout].add(counts)
    ratios = [b / a for b, a in zip(times[before], times[after])]
    return {"case": case_line(case),
            "before": statistics.median(times[before]), "after": statistics.median(times[after]),
            "before_range": (min(times[before]), max(times[before])),
            "after_range": (min(times[after]), max(times[after])),
            "ratio": statistics.median(ratios), "counters": sorted(counters[after]),
            "identical": counters[before] == counters[after] and len(counters[after]) == 1}


def commit_of(checkout: str) -> str:
    """The short commit a checkout stands at (its directory name when it is not a git work tree)."""
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else Path(checkout).name


def markdown(before: str, after: str, rows: list[dict], rounds: int) -> str:
    """The report: one row per case."""
    lines = [f"# Before and after: commit {before} against commit {after}", "",
             f"{rounds} interleaved rounds per case, `bench solve -q -i -w 1`, search seconds (SOLVE_SECONDS); "
             "ratio = median over rounds of before / after (above 1: after is faster).", "",
             "| case | before median s (min-max) | after median s (min-max) | before/after | counters identical |",
             "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['before']:.4f} ({r['before_range'][0]:.4f}-{r['before_range'][1]:.4f}) | "
                     f"{r['after']:.4f} ({r['after_range'][0]:.4f}-{r['after_range'][1]:.4f}) | {r['ratio']:.3f} | "
                     f"{'yes' if r['identical'] else 'NO'}: {', '.join(f'{k}={v}' for k, v in zip(COUNTERS, r['counters'][0]))} |")
    return "\n".join(lines) + "\n"


def checkouts_parser(prog: str, doc: str, rounds: int) -> argparse.ArgumentParser:
    """The command line of a benchmark that runs two checkouts by turns: BEFORE AFTER [--rounds] [--python] [--results]
    [--only TEXT ...]."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    parser.add_argument("before", metavar="BEFORE")
    parser.add_argument("after", metavar="AFTER")
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--results", default="results")
    parser.add_argument("--only", metavar="TEXT", action="append",
                        help="only the cases whose line holds TEXT (repeatable: any of them)")
    return parser


def case_line(case: tuple) -> str:
    """A case as ``--only`` reads it: engine, options, file."""
    engine, path, options = case
    return " ".join([engine, *options, path])


def selected(parser: argparse.ArgumentParser, args: argparse.Namespace, cases: list, line: Callable) -> list:
    """The cases to run: all of them without ``--only``, else those whose ``line(case)`` holds one of its texts; a
    usage error (one line, exit 2) before anything runs when no case does."""
    chosen = [case for case in cases if not args.only or any(text in line(case) for text in args.only)]
    if not chosen:
        parser.error(f"--only {', '.join(map(repr, args.only))}: no case holds it; the cases: "
                     + "; ".join(line(case) for case in cases))
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Compare the checkouts; returns 1 when a counter differs."""
    parser = checkouts_parser("python -m benchmarks.checkouts", __doc__, rounds=5)
    parser.add_argument("--bundled", action="store_true",
                        help="add an untuned fila solve of every bundled puzzle that takes under a second")
    args = parser.parse_args(argv)
    rows = []
    cases = CASES + [case for case in BUNDLED if case not in CASES] if args.bundled else CASES
    for case in selected(parser, args, cases, case_line):
        rows.append(compare(args.python, args.before, args.after, case, args.rounds))
        print(f"{rows[-1]['case']}: before {rows[-1]['before']:.4f} s, after {rows[-1]['after']:.4f} s, "
              f"ratio {rows[-1]['ratio']:.3f}, counters identical: {rows[-1]['identical']}", flush=True)
    before, after = commit_of(args.before), commit_of(args.after)
    out = Path(args.results) / f"checkouts-{before}-{after}.md"
    write_atomic(out, markdown(before, after, rows, args.rounds), "benchmark report")
    print(f"written to {out}")
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
