"""``bench run``'s shared matrix: configured by an untuned fila, against polycube's rule (``-r #``), run by turns.

``python -m benchmarks.configuration [PUZZLE...] [--pairs N] [--rounds R] [--engines E1,E2]``
runs ``bench run -e dlx,fila`` on the puzzles twice per pair, once as it
runs by default (the first untuned fila configures the matrix every engine
shares: :mod:`bench.cli.run`) and once with ``-r #`` (polycube's rule picks
the piece, no one-shot filter), in alternating order (A B, then B A, ...),
each ``bench run`` a fresh process with ``R`` rounds of its own.  Per
puzzle and engine it reports the median over pairs of the run's median
solve seconds, the ratio rule / automatic (the median of the pairs'
ratios, robust to the drift of a shared machine), the nodes each searched
(machine-independent) and the pieces.  Every run's counts are
cross-validated by ``bench run`` itself, and both modes' unique and total
counts against each other; a run that exits non-zero, or counts that
differ, stop the benchmark.  Writes ``results/configuration.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import user_environment
from bench.bundled import DEFS
from bench.system.files import write_atomic

PUZZLES = ["pentominoes_10x6", "pentominoes_12x5", "pentominoes_15x4", "pentominoes_1s_30x3", "hexiamonds_6x6",
           "meteor", "pentacubes_planar_2x5x6", "somacube", "polyspheres_square_pyramid_30"]
MODES = {"automatic": [], "rule": ["-r", "#"]}
RESULTS = Path(__file__).resolve().parents[2] / "results"


def bench_run(files: list[Path], engines: str, rounds: int, extra: list[str], out: Path) -> dict:
    """One ``bench run`` process; returns its result document (raises SystemExit when it fails)."""
    command = [sys.executable, "-m", "bench", "run", "-e", engines, "--rounds", str(rounds), "--timeout", "120",
               "--no-html", "--output-file", str(out), *extra, *map(str, files)]
    proc = subprocess.run(command, capture_output=True, text=True, env=user_environment())
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return json.loads(out.read_text())


def figures(document: dict) -> dict:
    """Per puzzle key: its piece and, per engine, the median solve seconds over the rounds and the nodes."""
    out = {}
    for entry in document["puzzles"]:
        rows = [r for r in document["rows"] if r["puzzle"] == entry["key"] and r["status"] == "solved"]
        engines = {}
        for engine in sorted({r["engine"] for r in rows}):
            mine = [r for r in rows if r["engine"] == engine]
            engines[engine] = {"seconds": statistics.median(r["solve"] for r in mine),
                               "nodes": mine[0]["stats"].get("nodes"), "variant": mine[0]["variant"]}
        out[entry["key"]] = {"piece": entry["redundancy"], "engines": engines,
                             "counts": sorted({(r["unique"], r["total"]) for r in rows})}
    return out


def _count(value) -> str:
    return "-" if value is None else f"{value:,}"


def markdown(record: dict) -> str:
    """The report: per puzzle and engine, both modes' seconds, the ratio, nodes and pieces."""
    lines = ["# bench run's shared matrix: configured by an untuned fila against polycube's rule", "",
             f"`python -m benchmarks.configuration --pairs {record['pairs']} --rounds {record['rounds']}`: "
             f"`bench run -e {record['engines']}` as it runs by default (automatic: the first untuned fila "
             "configures the matrix every engine shares, and runs with the settings it chose) and with `-r #` "
             "(rule: polycube's piece, no one-shot filter), fresh processes by turns; seconds are the median over "
             "pairs of each run's median solve over its rounds, the ratio the median of the pairs' rule / "
             "automatic.  Nodes are machine-independent.", "",
             "| puzzle | engine | piece auto / rule | variant auto | auto s | rule s | rule / auto | auto nodes | "
             "rule nodes |", "|---|---|---|---|---|---|---|---|---|"]
    for key, p in record["puzzles"].items():
        for engine, e in p["engines"].items():
            lines.append(f"| {key} | {engine} | {p['pieces']['automatic']} / {p['pieces']['rule']} | "
                         f"{e['variant']} | {e['automatic']:.4f} | {e['rule']:.4f} | {e['ratio']:.2f} | "
                         f"{_count(e['nodes']['automatic'])} | {_count(e['nodes']['rule'])} |")
    return "\n".join(lines) + "\n"


def compare_modes(runs: dict) -> dict:
    """Per puzzle key (in every run): both modes' pieces and, per engine, seconds, ratio, nodes and variant.

    ``runs`` maps each mode to its runs' :func:`figures`; raises
    ``SystemExit`` when two runs count a puzzle differently.
    """
    puzzles = {}
    for key, first in runs["automatic"][0].items():
        if any(key not in r for mode in MODES for r in runs[mode]):
            continue
        counts = {tuple(map(tuple, r[key]["counts"])) for mode in MODES for r in runs[mode]}
        if len(counts) > 1:
            raise SystemExit(f"{key}: the runs count differently (unique, total): {sorted(counts)}")
        engines = {}
        for engine in first["engines"]:
            if any(engine not in r[key]["engines"] for mode in MODES for r in runs[mode]):
                continue
            at = {mode: [r[key]["engines"][engine] for r in runs[mode]] for mode in MODES}
            engines[engine] = {
                **{mode: statistics.median(e["seconds"] for e in at[mode]) for mode in MODES},
                "ratio": statistics.median(r["seconds"] / a["seconds"] for a, r in zip(at["automatic"], at["rule"])),
                "nodes": {mode: at[mode][0]["nodes"] for mode in MODES},
                "variant": at["automatic"][0]["variant"]}
        puzzles[key] = {"pieces": {mode: runs[mode][0][key]["piece"] for mode in MODES}, "engines": engines}
    return puzzles


def main(argv: list[str] | None = None) -> int:
    """Run the pairs and write the report."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.configuration",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("puzzles", nargs="*", metavar="PUZZLE",
                        help=f"bundled definitions (default: {', '.join(PUZZLES)})")
    parser.add_argument("--pairs", type=int, default=3, help="alternating pairs of runs (default 3)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds within each bench run (default 3)")
    parser.add_argument("--engines", default="dlx,fila", help="engines of each run (default dlx,fila)")
    args = parser.parse_args(argv)
    files = [DEFS / (name if name.endswith(".txt") else name + ".txt") for name in args.puzzles or PUZZLES]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        parser.error(f"no such bundled definition: {', '.join(missing)}")
    runs = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as tmp:
        for pair in range(args.pairs):
            order = list(MODES) if pair % 2 == 0 else list(MODES)[::-1]
            for mode in order:
                runs[mode].append(figures(bench_run(files, args.engines, args.rounds, MODES[mode],
                                                    Path(tmp) / f"{mode}-{pair}.json")))
                print(f"pair {pair + 1} {mode}: done", file=sys.stderr, flush=True)
    puzzles = compare_modes(runs)
    record = {"pairs": args.pairs, "rounds": args.rounds, "engines": args.engines, "puzzles": puzzles}
    RESULTS.mkdir(exist_ok=True)
    write_atomic(RESULTS / "configuration.json", json.dumps(record, indent=1), "benchmark results")
    report = markdown(record)
    write_atomic(RESULTS / "configuration.md", report, "benchmark report")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
