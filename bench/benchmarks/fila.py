"""The FILA benchmark: the FILA article's test cases, FILA against DLX and the libraries, in the same runs.

Each case is one ``bench run`` (one encoding per puzzle, engines in forked
children, interleaved rounds, medians, JIT compile apart) written to
``results/fila-CASE.json`` and rendered to ``results/fila-CASE.md``:

``10x6``
    pentominoes with ``-r -V``: P4 (``fila:f11/of=11/n0``, polycube
    1.2.1's search tree), P5 (``fila:f11/of=11/n``), FILA's own defaults,
    DLX with the same filters (P2) and xcover on the same matrix.
``tetriscube``
    ``-r L`` (piece L held to one orientation): TC4, TC3 (no NOF), DLX
    (TC1) and xcover.
``diamond``
    the 13x13 pentomino + tetromino diamond with ``-r -V`` (PT5 without
    the repeated volume filter, which DLX does not have yet).
``onesided18x5``
    one-sided pentominoes 18x5 with ``-r -V -f17 -of=17 -n`` (OP4, 128-cell
    bitfield): one round, it runs for minutes.

``python -m bench.benchmarks.fila [CASE ...] [--rounds R]``; no case runs all.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.cli import main as bench_main

CASES = {
    "10x6": (["-e", "fila:f11/of=11/n0,fila:f11/of=11/n,fila,dlx,xcover", "-V", "--timeout", "120"],
             "defs/pentominoes_10x6.txt", 5),
    "tetriscube": (["-e", "fila:f11/oe=11:f=3/n,fila:f11/oe=11:f=3/n0,dlx,xcover", "-r", "L", "--timeout", "600"],
                   "defs/tetriscube.txt", 3),
    "diamond": (["-e", "fila:f13/oe=13:f=3/n,fila", "-V", "--timeout", "600"],
                "defs/pentominoes_tetrominoes_diamond_13x13.txt", 3),
    "onesided18x5": (["-e", "fila:f17/of=17/n", "-V", "--timeout", "3000"], "defs/pentominoes_1s_18x5.txt", 1),
}


def run_case(name: str, rounds: int | None, out_dir: Path) -> int:
    """One case: ``bench run`` into ``results/fila-NAME.json``, then its Markdown report; returns bench run's status."""
    options, path, default_rounds = CASES[name]
    result = out_dir / f"fila-{name}.json"
    status = bench_main(["run", *options, "--rounds", str(rounds or default_rounds), "-o", str(result), path])
    bench_main(["report", str(result), "-o", str(out_dir / f"fila-{name}.md")])
    return status


def main(argv: list[str] | None = None) -> int:
    """Run the chosen cases (all by default); returns 1 if any count disagreed."""
    parser = argparse.ArgumentParser(prog="python -m bench.benchmarks.fila", description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help="any of: " + " ".join(CASES))
    parser.add_argument("--rounds", type=int, help="rounds per engine (default per case)")
    parser.add_argument("--results", default="results", help="directory for the result files")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case {' '.join(unknown)}; expected any of: {' '.join(CASES)}")
    out_dir = Path(args.results)
    out_dir.mkdir(parents=True, exist_ok=True)
    statuses = [run_case(name, args.rounds, out_dir) for name in (args.cases or list(CASES))]
    return max(statuses, default=0)


if __name__ == "__main__":
    sys.exit(main())
