"""Cost-model benchmark: the prices the race of FILA's schedules puts on counted work, fitted to solve times.

The automatic configuration (:mod:`bench.engines.autoconfig`) chooses
between ``e`` and the scan by racing both searches and pricing what each
counted (:func:`~bench.engines.autoconfig.race_cost`), never by a clock, so
that the same command searches the same tree on any machine.  This
benchmark is where the prices come from: for every bundled puzzle whose
FILA search takes under a second or so, both schedules run whole at the
automatic configuration's piece and hand-off, in ``--rounds`` interleaved
rounds (CPU seconds of the search, median); their counters (FILA's nodes
under each schedule, images tried, images probed while choosing a hole,
list entries and images built at the hand-offs, hand-offs) are fitted to
the medians by least squares on relative errors.  It prints the fitted
prices beside the ones in :mod:`bench.engines.autoconfig` and, for each
puzzle, which schedule each price list ranks first against the measured
order, and writes ``results/cost-model.md`` and ``.json``.

``python -m benchmarks.cost_model [PUZZLE ...] [--rounds R]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

import bench
from bench.bundled import DEFS
from bench.comparison.results import machine_facts
from bench.engines.protocol import Settings
from bench.system.files import write_atomic
from bench.engines import autoconfig
from bench.kernels.codes import S_PROBES
from bench.engines.fila import PIPELINE, FilaEngine, scan_heuristic, start_pipeline
from bench.kernels.fila_lists import make_plan

RESULTS = Path("results")
PUZZLES = ("somacube.txt", "hexiamonds_6x6.txt", "polyspheres_square_pyramid_30.txt", "polyspheres_tetrahedron_20.txt",
           "tetrahexes_4x7.txt", "hexprism_shader_triangle.txt", "pentacubes_planar_2x3x10.txt",
           "pentacubes_planar_2x5x6.txt", "pentominoes_8x8_scott.txt", "pentominoes_20x3.txt", "pentominoes_15x4.txt",
           "pentominoes_12x5.txt", "pentominoes_1s_30x3.txt", "pentominoes_10x6.txt", "meteor.txt")
"""Bundled puzzles whose searches under both schedules take at most about a second each on this project's machine."""
FEATURES = ("scan_nodes", "searched_nodes", "attempts", "probes", "list_entries", "images", "handoffs")
IN_USE = {"scan_nodes": "RACE_SCAN_NODE_SECONDS", "searched_nodes": "RACE_SEARCHED_NODE_SECONDS",
          "attempts": "RACE_ATTEMPT_SECONDS", "probes": "RACE_PROBE_SECONDS",
          "list_entries": "RACE_LIST_ENTRY_SECONDS", "images": "RACE_IMAGE_SECONDS",
          "handoffs": "RACE_HANDOFF_SECONDS"}


def features(search, totals: dict, kind: np.ndarray, handoff: int) -> dict:
    """What a whole pipeline search counted, in the terms the race prices (FILA's levels only)."""
    fits = search.fits[: handoff + 1]
    searched = (kind[: handoff + 1] == autoconfig.ESTIMATE) | (kind[: handoff + 1] == autoconfig.SIZE)
    roots = totals["handoffs"]
    return {"scan_nodes": int(fits[~searched].sum()) + roots * (not searched[handoff]),
            "searched_nodes": int(fits[searched].sum()) + roots * bool(searched[handoff]),
            "attempts": int(search.attempts[: handoff + 1].sum()), "probes": int(search.state[S_PROBES]),
            "list_entries": totals["list_entries"], "images": totals["images"], "handoffs": roots}


class _EOnly:
    """FILA's pipeline with ``e`` as its only schedule: the automatic configuration's piece and hand-off, no race."""

    schedules = staticmethod(lambda cover, handoff: [f"e={handoff}"])
    start = staticmethod(PIPELINE.start)


def runs_of(name: str) -> list[dict]:
    """Both schedules of one puzzle at the automatic configuration's piece and hand-off, ready to time."""
    [puzzle] = bench.load(DEFS / name)
    choice = autoconfig.choose(puzzle, _EOnly())
    cover, handoff = choice.cover, choice.handoff
    engine = FilaEngine()
    out = []
    for order in (f"e={handoff}", f"{scan_heuristic(puzzle)}={handoff}"):
        settings = engine.settle(cover, Settings(fila=handoff, order=order, nof=True))
        engine.warm_up(cover, settings)
        kind = make_plan(cover, settings.order, cover.piece_count, handoff, True).kind
        out.append({"puzzle": name, "order": order, "cover": cover, "settings": settings, "kind": kind,
                    "seconds": []})
    return out


def time_once(run: dict) -> None:
    """One whole search of ``run``: its CPU seconds, and its counters the first time."""
    search, totals = start_pipeline(run["cover"], run["settings"])
    start = time.process_time()
    search.run()
    run["seconds"].append(time.process_time() - start)
    run.setdefault("counted", features(search, totals, run["kind"], run["settings"].fila))


def fit(runs: list[dict]) -> dict:
    """Prices per unit of each feature: least squares on the relative error of the median solve times."""
    x = np.array([[r["counted"][f] for f in FEATURES] for r in runs], dtype=np.float64)
    y = np.array([statistics.median(r["seconds"]) for r in runs])
    prices = np.linalg.lstsq(x / y[:, None], np.ones(len(y)), rcond=None)[0]
    return dict(zip(FEATURES, prices.tolist()))


def priced(run: dict, prices: dict) -> float:
    """The modelled seconds of a run's whole search at ``prices``."""
    return sum(run["counted"][f] * prices[f] for f in FEATURES)


def markdown(runs: list[dict], fitted: dict, in_use: dict, rounds: int) -> str:
    """The report: prices side by side, then per puzzle the measured and modelled seconds of both schedules."""
    lines = ["# FILA's race prices: counted work fitted to solve times", "",
             f"`python -m benchmarks.cost_model --rounds {rounds}`: both schedules of each puzzle run whole at "
             "the automatic configuration's piece and hand-off, rounds interleaved, CPU seconds of the search "
             "(median); prices fitted by least squares on relative errors.", "",
             "| counted unit | fitted price (ns) | in use (ns) |", "|---|---|---|"]
    lines += [f"| {f} | {fitted[f] * 1e9:.3g} | {in_use[f] * 1e9:.3g} |" for f in FEATURES]
    lines += ["", "| puzzle | schedule | nodes | search ms (median, min-max) | priced ms (in use) | "
              "faster measured | faster priced |", "|---|---|---|---|---|---|---|"]
    agree = 0
    pairs = [runs[k:k + 2] for k in range(0, len(runs), 2)]
    for pair in pairs:
        measured = min(pair, key=lambda r: statistics.median(r["seconds"]))["order"]
        modelled = min(pair, key=lambda r: priced(r, in_use))["order"]
        agree += measured == modelled
        for r in pair:
            s = r["seconds"]
            nodes = r["counted"]["scan_nodes"] + r["counted"]["searched_nodes"]
            lines.append(f"| {r['puzzle']} | {r['order']} | {nodes:,} | {statistics.median(s) * 1e3:.3g} "
                         f"({min(s) * 1e3:.3g}-{max(s) * 1e3:.3g}) | {priced(r, in_use) * 1e3:.3g} | "
                         f"{measured} | {modelled} |")
    lines += ["", f"The prices in use rank the faster schedule as measured on {agree} of {len(pairs)} puzzles.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Time, fit and report; returns 0."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cost_model", description=__doc__.split("\n\n")[0])
    parser.add_argument("puzzles", nargs="*", metavar="PUZZLE", help="bundled definitions (default: all of PUZZLES)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    args = parser.parse_args(argv)
    runs = [run for name in (args.puzzles or PUZZLES) for run in runs_of(name)]
    for _ in range(args.rounds):
        for run in runs:
            time_once(run)
    fitted = fit(runs)
    in_use = {f: getattr(autoconfig, IN_USE[f]) for f in FEATURES}
    text = markdown(runs, fitted, in_use, args.rounds)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    write_atomic(RESULTS / "cost-model.md", text)
    record = {"machine": machine_facts(), "rounds": args.rounds, "fitted": fitted, "in_use": in_use,
              "runs": [{"puzzle": r["puzzle"], "order": r["order"], "seconds": r["seconds"], "counted": r["counted"]}
                       for r in runs]}
    write_atomic(RESULTS / "cost-model.json", json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
