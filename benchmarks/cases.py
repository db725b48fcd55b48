"""Running a benchmark's cases: each a ``bench run`` into ``results/PREFIX-CASE.json`` (and .html), then its Markdown."""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.cli import main as bench_main


def run_case(prefix: str, name: str, case: tuple, rounds: int | None, out_dir: Path) -> int:
    """One case ``(options, path, default_rounds)``; returns bench run's status."""
    options, path, default_rounds = case
    result = out_dir / f"{prefix}-{name}.json"
    # one core per engine: these compare engines and published single-thread figures, not machines
    status = bench_main(["run", *options, "--workers", "1", "--rounds", str(rounds or default_rounds),
                         "--output-file", str(result), path])
    bench_main(["report", str(result), "--output-file", str(out_dir / f"{prefix}-{name}.md")])
    return status


def main(prefix: str, cases: dict, doc: str, argv: list[str] | None = None) -> int:
    """Run the chosen cases (all by default); returns 1 if any count disagreed."""
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks.{prefix}", description=doc.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help="any of: " + " ".join(cases))
    parser.add_argument("--rounds", type=int, help="rounds per engine (default per case)")
    parser.add_argument("--results", default="results", help="directory for the result files")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.cases) - set(cases))
    if unknown:
        parser.error(f"unknown case {' '.join(unknown)}; expected any of: {' '.join(cases)}")
    out_dir = Path(args.results)
    out_dir.mkdir(parents=True, exist_ok=True)
    statuses = [run_case(prefix, name, cases[name], args.rounds, out_dir) for name in (args.cases or list(cases))]
    return max(statuses, default=0)
