"""Against the anchors one core is measured by: the Benchmarks Game's fastest Meteor program, Knuth's DLX3, and a
small solve's whole process.

``python -m benchmarks.anchors --meteor PATH --dlx3 PATH [--polycube PATH] [--rounds R] [--cpu N]``
runs, by turns (the anchor first in odd rounds, bench first in even ones),
each a whole process pinned to one core (``taskset -c N``, default 0):

- **meteor**: the meteor-contest program ``meteor.gpp-6`` (one thread:
  ``OMP_NUM_THREADS=1``) against ``bench solve --engine fila`` (untuned) of
  ``defs/meteor.txt``: the program's process CPU seconds against bench's
  search seconds (``SOLVE_SECONDS``) and whole process;
- **dlx3**: Knuth's DLX3 on the matrix ``bench export --format xcc`` writes
  for ``--dominoes`` (default ``defs/dominoes_8x8.txt``: 12,988,816
  covers), against ``bench solve`` with FILA and with DLX (which walks the
  same tree: its nodes are DLX3's) of the same file;
- **small**: ``bench solve -q --engine fila`` of ``--small`` (default the
  20-sphere tetrahedron), whole process, beside Python's own start-up
  (``python -c pass``) and numpy's import, in the same rounds;
- **soma** (with ``--polycube``): polycube 1.2.1 on the Soma cube, as
  ``benchmarks.polycube`` runs it.

Counts are checked: the Meteor program's solutions against bench's total,
DLX3's solutions against bench's covers, both against
``defs/expected.toml``.  Times are medians with min-max over the rounds,
ratios the median of the per-round ratios (anchor / bench: above 1, bench
is faster).  Writes ``results/anchors.md`` and ``.json``; exits 1 when a
count disagrees.

Neither program is bundled: build them from their public sources (the
meteor-contest's C++ #6 by Stefan Westen, ``g++ -O3 -march=native
-fopenmp``; DLX3 from Knuth's ``dlx3.w`` and ``gb_flip.w`` with
``ctangle``, ``gcc -O3``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench
from benchmarks import user_environment
from benchmarks.polycube import CASES as POLYCUBE_CASES
from benchmarks.polycube import (median_and_range as stats, pinned, run_bench as run_bench_soma, run_polycube,
                                 spread_text)
from bench.bundled import DEFS
from bench.comparison.results import machine_facts
from bench.models.expected import expected_for
from bench.system.files import write_atomic


def timed(command: list[str], *, stdin=None, env=None) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run ``command``; its result, wall seconds and the CPU seconds (user and system) its process used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdin=stdin, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_meteor(binary: str, cpu: int | None) -> dict:
    """One ``meteor.gpp-6`` process on one thread: its count, wall and CPU seconds."""
    done, wall, cpu_s = timed(pinned(cpu, [binary]), env={**os.environ, "OMP_NUM_THREADS": "1"})
    found = re.search(r"^(\d+) solutions found", done.stdout, re.M)
    if done.returncode != 0 or found is None:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise SystemExit(f"{binary} did not solve the Meteor puzzle: {said[-1] if said else 'it printed nothing'}")
    return {"count": int(found.group(1)), "wall": wall, "cpu": cpu_s}


def run_dlx3(binary: str, matrix: Path, cpu: int | None) -> dict:
    """One DLX3 process reading ``matrix``: its solutions, nodes, wall and CPU seconds."""
    with open(matrix) as source:
        done, wall, cpu_s = timed(pinned(cpu, [binary]), stdin=source)
    found = re.search(r"Altogether (\d+) solutions?,.* (\d+) nodes", done.stderr)
    if found is None:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise SystemExit(f"{binary} did not solve {matrix}: {said[-1] if said else 'it printed nothing'}")
    return {"count": int(found.group(1)), "nodes": int(found.group(2)), "wall": wall, "cpu": cpu_s}


def run_bench(python: str, engine: str, path: Path, cpu: int | None, quiet_only: bool = False) -> dict:
    """One whole ``bench solve`` process on one core: search seconds, counts and nodes (``-i``), wall and CPU."""
    command = [python, "-m", "bench", "solve", "--engine", engine, "-q", *([] if quiet_only else ["-i"]), "-w", "1",
               str(path)]
    done, wall, cpu_s = timed(pinned(cpu, command), env=user_environment())
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise SystemExit(f"bench solve {path} exited {done.returncode}: {said[-1] if said else 'it printed nothing'}")
    row = {"wall": wall, "cpu": cpu_s}
    if not quiet_only:
        values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        row.update(search=float(values["SOLVE_SECONDS"]), covers=int(values["SOLUTIONS"]),
                   unique=int(values["UNIQUE"]), total=int(values["TOTAL"]), nodes=int(values["NODES"]))
    return row


def run_python(python: str, code: str, cpu: int | None) -> dict:
    """One ``python -c CODE`` process: the floor a whole bench process stands on."""
    done, wall, cpu_s = timed(pinned(cpu, [python, "-c", code]), env=user_environment())
    if done.returncode != 0:
        raise SystemExit(f"{python} -c {code!r} failed: {done.stderr.strip()}")
    return {"wall": wall, "cpu": cpu_s}


def interleave(rounds: int, runners: dict) -> dict[str, list[dict]]:
    """``rounds`` rounds of every runner (a name and a function of no argument) after one run each that fills the
    caches, in turn order reversed every other round."""
    names = list(runners)
    for name in names:
        runners[name]()
    runs: dict[str, list[dict]] = {name: [] for name in names}
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            runs[name].append(runners[name]())
    return runs


def ratio(anchor: list[dict], key_a: str, ours: list[dict], key_b: str) -> float:
    """Median over rounds of anchor / bench."""
    return statistics.median(a[key_a] / b[key_b] for a, b in zip(anchor, ours))


def meteor_case(binary: str, python: str, rounds: int, cpu: int | None) -> dict:
    """The Meteor puzzle: the program's process CPU against FILA's search and whole process."""
    path = DEFS / "meteor.txt"
    runs = interleave(rounds, {"anchor": lambda: run_meteor(binary, cpu),
                               "fila": lambda: run_bench(python, "fila", path, cpu)})
    [puzzle] = bench.load(path)
    expected = expected_for(puzzle)
    counts = {r["count"] for r in runs["anchor"]} | {r["total"] for r in runs["fila"]}
    return {"case": "meteor", "file": path.name, "anchor": "meteor.gpp-6 (one thread)",
            "anchor_cpu": stats([r["cpu"] for r in runs["anchor"]]),
            "anchor_wall": stats([r["wall"] for r in runs["anchor"]]),
            "bench": {"fila": {"search": stats([r["search"] for r in runs["fila"]]),
                               "cpu": stats([r["cpu"] for r in runs["fila"]]),
                               "wall": stats([r["wall"] for r in runs["fila"]]), "nodes": runs["fila"][-1]["nodes"]}},
            "search_ratio": {"fila": ratio(runs["anchor"], "cpu", runs["fila"], "search")},
            "process_ratio": {"fila": ratio(runs["anchor"], "cpu", runs["fila"], "cpu")},
            "counts": sorted(counts), "expected": expected.total,
            "counts_agree": counts == {expected.total}}


def dlx3_case(binary: str, python: str, path: Path, rounds: int, cpu: int | None) -> dict:
    """Many covers: DLX3 on bench's own matrix against bench's FILA and DLX searches of the same file."""
    with tempfile.TemporaryDirectory() as work:
        matrix = Path(work) / f"{path.stem}.xcc"
        subprocess.run([python, "-m", "bench", "export", "--format", "xcc", "--output-file", str(matrix), str(path)],
                       check=True, capture_output=True, env=user_environment())
        runs = interleave(rounds, {"anchor": lambda: run_dlx3(binary, matrix, cpu),
                                   "fila": lambda: run_bench(python, "fila", path, cpu),
                                   "dlx": lambda: run_bench(python, "dlx", path, cpu)})
    [puzzle] = bench.load(path)
    expected = expected_for(puzzle)
    covers = {r["count"] for r in runs["anchor"]} | {r["covers"] for e in ("fila", "dlx") for r in runs[e]}
    exact = {(r["unique"], r["total"]) for e in ("fila", "dlx") for r in runs[e]}
    agree = (len(covers) == 1 and (expected is None or expected.total is None or covers == {expected.total})
             and (expected is None or expected.unique is None or exact == {(expected.unique, expected.total)}))
    engines = ("fila", "dlx")
    return {"case": "dlx3", "file": path.name, "anchor": "DLX3",
            "anchor_cpu": stats([r["cpu"] for r in runs["anchor"]]),
            "anchor_wall": stats([r["wall"] for r in runs["anchor"]]), "anchor_nodes": runs["anchor"][-1]["nodes"],
            "bench": {e: {"search": stats([r["search"] for r in runs[e]]), "cpu": stats([r["cpu"] for r in runs[e]]),
                          "wall": stats([r["wall"] for r in runs[e]]), "nodes": runs[e][-1]["nodes"]} for e in engines},
            "search_ratio": {e: ratio(runs["anchor"], "cpu", runs[e], "search") for e in engines},
            "process_ratio": {e: ratio(runs["anchor"], "cpu", runs[e], "cpu") for e in engines},
            "counts": sorted(covers), "exact": sorted(exact),
            "expected": None if expected is None else [expected.unique, expected.total], "counts_agree": agree}


def small_case(python: str, path: Path, rounds: int, cpu: int | None) -> dict:
    """A small solve's whole process beside Python's start-up and numpy's import."""
    runs = interleave(rounds, {"python": lambda: run_python(python, "pass", cpu),
                               "numpy": lambda: run_python(python, "import numpy", cpu),
                               "bench": lambda: run_bench(python, "fila", path, cpu, quiet_only=True)})
    return {"case": "small", "file": path.name,
            **{name: {"wall": stats([r["wall"] for r in rows]), "cpu": stats([r["cpu"] for r in rows])}
               for name, rows in runs.items()}}


def soma_case(binary: str, python: str, rounds: int, cpu: int | None) -> dict:
    """The Soma cube against polycube 1.2.1 (its best configuration in ``benchmarks.polycube``)."""
    case = POLYCUBE_CASES["soma"]
    runs = interleave(rounds, {"anchor": lambda: run_polycube(binary, case, cpu),
                               "fila": lambda: run_bench_soma(python, case, cpu)})
    [puzzle] = bench.load(DEFS / case.file)
    uniques = {r["unique"] for r in runs["anchor"]} | {r["unique"] for r in runs["fila"]}
    return {"case": "soma", "file": case.file, "anchor": f"polycube {' '.join(case.polycube_flags)}",
            "anchor_search": stats([r["search"] for r in runs["anchor"]]),
            "bench_search": stats([r["search"] for r in runs["fila"]]),
            "search_ratio": ratio(runs["anchor"], "search", runs["fila"], "search"),
            "counts": sorted(uniques), "counts_agree": uniques == {expected_for(puzzle).unique}}


def markdown(rows: list[dict], machine: dict, cpu: int | None, rounds: int) -> str:
    """The report: the anchors' rows, then the small solve."""
    s = spread_text
    lines = ["# One core against the anchors", "",
             f"Machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores (shared), bench commit "
             f"{machine.get('commit', '?')}.  {rounds} rounds of whole processes by turns, each pinned to "
             f"{'core ' + str(cpu) if cpu is not None else 'no core'}, after one run each that fills the caches.  "
             "Seconds: median (min-max).  Anchor: its process's CPU seconds (user and system).  Bench: its search "
             "(`SOLVE_SECONDS`) and its whole process's CPU seconds.  Ratios: median over rounds of anchor / bench "
             "(above 1: bench is faster).", "",
             "| case | anchor | anchor CPU s | bench engine | bench search s | bench process CPU s | search ratio | "
             "process ratio | nodes (anchor / bench) | counts |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["case"] in ("small", "soma"):
            continue
        counts = ", ".join(f"{c:,}" for c in r["counts"]) + ("" if r["counts_agree"] else " DISAGREE")
        for engine, b in r["bench"].items():
            nodes = f"{r['anchor_nodes']:,} / {b['nodes']:,}" if "anchor_nodes" in r else f"- / {b['nodes']:,}"
            lines.append(f"| {r['file']} | {r['anchor']} | {s(r['anchor_cpu'])} | {engine} | {s(b['search'])} | "
                         f"{s(b['cpu'])} | {r['search_ratio'][engine]:.2f} | {r['process_ratio'][engine]:.2f} | "
                         f"{nodes} | {counts} |")
    for r in rows:
        if r["case"] == "soma":
            counts = ", ".join(f"{c:,}" for c in r["counts"]) + ("" if r["counts_agree"] else " DISAGREE")
            lines.append(f"| {r['file']} | {r['anchor']} (its search) | {s(r['anchor_search'])} | fila | "
                         f"{s(r['bench_search'])} | - | {r['search_ratio']:.2f} | - | - | {counts} |")
    for r in rows:
        if r["case"] == "small":
            lines += ["", f"Small solve, whole processes ({r['file']}):", "",
                      "| process | wall s | CPU s |", "|---|---|---|",
                      f"| `python -c pass` | {s(r['python']['wall'])} | {s(r['python']['cpu'])} |",
                      f"| `python -c 'import numpy'` | {s(r['numpy']['wall'])} | {s(r['numpy']['cpu'])} |",
                      f"| `bench solve -q -e fila {r['file']}` | {s(r['bench']['wall'])} | {s(r['bench']['cpu'])} |"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the cases; returns 1 when a count disagrees."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.anchors", description=__doc__.split("\n\n")[0])
    parser.add_argument("--meteor", required=True, metavar="PATH", help="the meteor-contest's meteor.gpp-6 binary")
    parser.add_argument("--dlx3", required=True, metavar="PATH", help="Knuth's dlx3 binary")
    parser.add_argument("--polycube", metavar="PATH", help="polycube 1.2.1's binary (adds the Soma cube)")
    parser.add_argument("--dominoes", type=Path, default=DEFS / "dominoes_8x8.txt",
                        help="the puzzle of many covers DLX3 solves (default %(default)s)")
    parser.add_argument("--small", type=Path, default=DEFS / "polyspheres_tetrahedron_20.txt",
                        help="the small solve timed as a whole process (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", type=int, default=0, help="the core every process is pinned to (-1: none)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    for name in ("meteor", "dlx3", "polycube"):
        binary = getattr(args, name)
        if binary is not None and not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            parser.error(f"no executable at {binary} (--{name})")
    cpu = None if args.cpu < 0 else args.cpu
    rows = [meteor_case(args.meteor, args.python, args.rounds, cpu),
            dlx3_case(args.dlx3, args.python, args.dominoes, args.rounds, cpu)]
    if args.polycube:
        rows.append(soma_case(args.polycube, args.python, args.rounds, cpu))
    rows.append(small_case(args.python, args.small, args.rounds, cpu))
    machine = machine_facts()
    report = markdown(rows, machine, cpu, args.rounds)
    print(report, end="")
    out = Path(args.results)
    write_atomic(out / "anchors.json", json.dumps({"machine": machine, "rounds": args.rounds, "rows": rows}, indent=1),
                 "benchmark results")
    write_atomic(out / "anchors.md", report, "benchmark report")
    print(f"written to {out / 'anchors.md'}")
    return 0 if all(r.get("counts_agree", True) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
