"""Side by side with polycube 1.2.1, the C++ solver this project's engines are measured against.

``python -m benchmarks.polycube --polycube PATH [CASE...] [--rounds R] [--cpu N]``
runs polycube's best configuration of each case (the issue's table, then
the other bundled puzzles of cubes polycube can count) and an
untuned ``bench solve --engine fila`` (its automatic configuration) as whole
processes, by turns (polycube first in odd rounds, bench first in even
ones), each pinned to one core (``taskset -c N``, default 0) so that the
other core's load touches neither.  Each run is checked: its counts against
each other and ``defs/expected.toml`` (polycube's ``SOLUTIONS`` under
``-r`` are the unique count), and its statistics kept (polycube's attempts
and fits, bench's nodes).  Reported per case: the search seconds each
solver states (polycube's ``solve`` meter less its ``solve-init``, bench's
``SOLVE_SECONDS``), the same with each one's set-up (polycube's whole
``solve``: its image lists and matrix; bench's ``SETUP_SECONDS`` too), the
whole processes' wall seconds, medians with min-max and the median of the
per-round ratios.  Writes ``results/polycube.md`` and
``.json``.

Polycube is not bundled (GPL-3, C++): build it from its public source (the
1.2.1 release is kept in the GitHub repository ``bpasanek/puzzlecode``
under ``polycube/``) with ``g++ -O3 -march=native`` and Boost's
program_options.  Its options with an optional value (``-r``, ``-V``,
``-i``, ``-q``) take the next word as their value under Boost 1.74, so the
file comes after ``--``; and it exits 0 even on an error, so a run without
a ``SOLUTIONS=`` line is an error here.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import bench
from benchmarks import user_environment
from bench.bundled import DEFS
from bench.comparison.results import machine_facts
from bench.system.files import write_atomic
from bench.models.expected import expected_for


@dataclass(frozen=True)
class Case:
    """One puzzle with polycube 1.2.1's best configuration found for it (the issue's table)."""

    name: str
    file: str
    polycube_flags: tuple[str, ...]


CASES = {
    "10x6": Case("10x6", "pentominoes_10x6.txt", ("-r", "-b", "11", "-V")),
    "12x5": Case("12x5", "pentominoes_12x5.txt", ("-r", "-b", "11")),
    "30x3": Case("30x3", "pentominoes_1s_30x3.txt", ("-r", "-b", "17", "-V")),
    # the FILA article's polycube 1.2.1 rows for the Tetris Cube: piece L, estimated MCH from 11 pieces left,
    # de Bruijn from 3
    "tetriscube": Case("tetriscube", "tetriscube.txt", ("-r", "L", "-e", "11", "-b", "3")),
    # the rest: the fastest of five configurations screened once on this machine (N = pieces - 1: -r -b N, the same
    # with -V, DLX alone -r, -r -e N -b 3, -r -e N); the pentominoes and tetrominoes in the 13x13 diamond are left
    # out, as each of the five took polycube over a minute (bench: 15 s)
    "15x4": Case("15x4", "pentominoes_15x4.txt", ("-r", "-b", "11")),
    "20x3": Case("20x3", "pentominoes_20x3.txt", ("-r", "-b", "11", "-V")),
    "8x8": Case("8x8", "pentominoes_8x8_scott.txt", ("-r", "-e", "11", "-b", "3")),
    "2x3x10": Case("2x3x10", "pentacubes_planar_2x3x10.txt", ("-r", "-b", "11")),
    "2x5x6": Case("2x5x6", "pentacubes_planar_2x5x6.txt", ("-r", "-b", "11")),
    "3x4x5": Case("3x4x5", "pentacubes_planar_3x4x5.txt", ("-r",)),
    "soma": Case("soma", "somacube.txt", ("-r", "-e", "6", "-b", "3")),
}
QUICK = ("10x6", "12x5", "30x3")
"""The issue's table: polycube's best configurations as the issue measured them."""


def pinned(cpu: int | None, command: list[str]) -> list[str]:
    """``command`` pinned to core ``cpu`` where ``taskset`` exists (else as it is)."""
    if cpu is None or shutil.which("taskset") is None:
        return command
    return ["taskset", "-c", str(cpu), *command]


def run_polycube(binary: str, case: Case, cpu: int | None) -> dict:
    """One whole polycube process: wall seconds, its search seconds, counts and statistics."""
    path = DEFS / case.file
    command = pinned(cpu, [binary, *case.polycube_flags, "-i", "-q", "--", str(path)])
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    values = dict(re.findall(r"^([A-Z_]+)=(\S+)$", done.stdout, re.M))
    meters = dict(re.findall(r"^\s*([a-z-]+)\s*:\s*([0-9.]+)\s*:", done.stdout, re.M))
    # polycube exits 0 on errors too: only its count line says it solved
    if "SOLUTIONS" not in values or "solve" not in meters:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise SystemExit(f"polycube did not solve {path}: {said[-1] if said else 'it printed nothing'}")
    return {"wall": wall, "search": float(meters["solve"]) - float(meters.get("solve-init", 0.0)),
            "solve": float(meters["solve"]), "unique": int(values["UNIQUE"]), "attempts": int(values["ATTEMPTS_TOTAL"]),
            "fits": int(values["FITS_TOTAL"])}


def run_bench(python: str, case: Case, cpu: int | None) -> dict:
    """One whole ``bench solve --engine fila`` process, untuned: wall seconds, search seconds, counts, nodes."""
    path = DEFS / case.file
    command = pinned(cpu, [python, "-m", "bench", "solve", "--engine", "fila", "-q", "-i", "-w", "1", str(path)])
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=user_environment())
    wall = time.perf_counter() - start
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise SystemExit(f"bench solve {path} exited {done.returncode}: {said[-1] if said else 'it printed nothing'}")
    values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    return {"wall": wall, "search": float(values["SOLVE_SECONDS"]),
            "solve": float(values["SETUP_SECONDS"]) + float(values["SOLVE_SECONDS"]), "covers": int(values["SOLUTIONS"]),
            "unique": int(values["UNIQUE"]), "total": int(values["TOTAL"]), "nodes": int(values["NODES"]),
            # what the automatic configuration chose, in polycube's letters
            "variant": f"-r {values['redundancyFilter']} -f {values['fila']} -o {values['orderingHeuristicConfig']}"
                       + (" -V" if values.get("volumeFilter", "0") != "0" else "")}


def median_and_range(values: list[float]) -> dict:
    """Median, min and max of ``values``."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def spread_text(x: dict) -> str:
    """A :func:`median_and_range` as a table cell: ``median (min-max)``."""
    return f"{x['median']:.4f} ({x['min']:.4f}-{x['max']:.4f})"


def compare(binary: str, python: str, case: Case, rounds: int, cpu: int | None) -> dict:
    """Interleaved rounds of one case, after a run of each that fills caches (bench's cover and kernel caches)."""
    [puzzle] = bench.load(DEFS / case.file)
    expected = expected_for(puzzle)
    run_polycube(binary, case, cpu)
    run_bench(python, case, cpu)
    poly, ours = [], []
    for r in range(rounds):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        for k in order:
            if k == 0:
                poly.append(run_polycube(binary, case, cpu))
            else:
                ours.append(run_bench(python, case, cpu))
    uniques = {p["unique"] for p in poly} | {b["unique"] for b in ours}
    agree = len(uniques) == 1 and (expected is None or expected.unique is None or uniques == {expected.unique})
    return {
        "case": case.name, "file": case.file, "polycube_flags": " ".join(case.polycube_flags), "rounds": rounds,
        "polycube": {"search": median_and_range([p["search"] for p in poly]), "solve": median_and_range([p["solve"] for p in poly]),
                     "wall": median_and_range([p["wall"] for p in poly]), "attempts": poly[-1]["attempts"],
                     "fits": poly[-1]["fits"]},
        "bench": {"search": median_and_range([b["search"] for b in ours]), "solve": median_and_range([b["solve"] for b in ours]),
                  "wall": median_and_range([b["wall"] for b in ours]), "nodes": ours[-1]["nodes"],
                  "variant": ours[-1]["variant"]},
        "search_ratio": statistics.median(p["search"] / b["search"] for p, b in zip(poly, ours)),
        "solve_ratio": statistics.median(p["solve"] / b["solve"] for p, b in zip(poly, ours)),
        "wall_ratio": statistics.median(p["wall"] / b["wall"] for p, b in zip(poly, ours)),
        "unique": sorted(uniques), "expected_unique": None if expected is None else expected.unique,
        "counts_agree": agree,
    }


def markdown(rows: list[dict], machine: dict, cpu: int | None, version: str) -> str:
    """The report: one row per case."""
    s = spread_text
    lines = ["# bench against polycube 1.2.1, side by side", "",
             f"Machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores (shared), bench commit "
             f"{machine.get('commit', '?')}; polycube: {version.rstrip('.')}.  Whole processes by turns, each pinned to "
             f"{'core ' + str(cpu) if cpu is not None else 'no core'}; bench's caches filled by a first run (a user's "
             "second run: the cover cache keeps the automatic configuration).  Search: the seconds each solver "
             "states for its search (polycube: its `solve` meter less `solve-init`, which builds its image lists and "
             "loads its matrix before the search; bench: `SOLVE_SECONDS`, which holds the building of FILA's lists at "
             "each hand-off).  With set-up: polycube's whole `solve` meter; bench's `SETUP_SECONDS` and "
             "`SOLVE_SECONDS`.  Ratios: the median over rounds of polycube / bench (above 1: bench is faster).", "",
             "| puzzle | polycube flags | polycube search s | bench search s | search ratio | polycube with set-up s | "
             "bench with set-up s | ratio with set-up | polycube process s | bench process s | process ratio | "
             "polycube attempts / fits | bench configuration | bench nodes | unique |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p, b = r["polycube"], r["bench"]
        unique = ", ".join(str(u) for u in r["unique"]) + ("" if r["counts_agree"] else " DISAGREE")
        lines.append(f"| {r['file']} | `{r['polycube_flags']}` | {s(p['search'])} | {s(b['search'])} | "
                     f"{r['search_ratio']:.2f} | {s(p['solve'])} | {s(b['solve'])} | {r['solve_ratio']:.2f} | "
                     f"{s(p['wall'])} | {s(b['wall'])} | {r['wall_ratio']:.2f} | "
                     f"{p['attempts']:,} / {p['fits']:,} | `{b['variant']}` | {b['nodes']:,} | {unique} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the cases; returns 1 when a count disagrees."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.polycube", description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"of {', '.join(CASES)} (default: all)")
    parser.add_argument("--polycube", required=True, metavar="PATH", help="the polycube 1.2.1 binary")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--cpu", type=int, default=0, help="the core both solvers are pinned to (-1: none)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    if shutil.which(args.polycube) is None:
        parser.error(f"no polycube binary at {args.polycube}")
    names = args.cases or (QUICK if args.quick else list(CASES))
    cpu = None if args.cpu < 0 else args.cpu
    version = subprocess.run([args.polycube, "--version"], capture_output=True, text=True).stdout.strip()
    rows = []
    for name in names:
        rows.append(compare(args.polycube, args.python, CASES[name], args.rounds, cpu))
        r = rows[-1]
        print(f"{r['file']}: polycube {r['polycube']['search']['median']:.4f} s, bench "
              f"{r['bench']['search']['median']:.4f} s search (ratio {r['search_ratio']:.2f}; with set-up "
              f"{r['solve_ratio']:.2f}); processes "
              f"{r['polycube']['wall']['median']:.3f} s against {r['bench']['wall']['median']:.3f} s "
              f"(ratio {r['wall_ratio']:.2f}); counts agree: {r['counts_agree']}", flush=True)
    machine = machine_facts()
    out = Path(args.results)
    write_atomic(out / "polycube.json", json.dumps({"machine": machine, "polycube": version, "rows": rows}, indent=1),
                 "benchmark results")
    write_atomic(out / "polycube.md", markdown(rows, machine, cpu, version), "benchmark report")
    print(f"written to {out / 'polycube.md'}")
    return 0 if all(r["counts_agree"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
