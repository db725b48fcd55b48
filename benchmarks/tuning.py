"""Tuning benchmark: FILA's automatic configuration against a grid of configurations, per bundled puzzle.

For every bundled puzzle that solves in under a minute (or the ones named),
in one process, one core:

1. the automatic configuration (``bench solve -e fila`` with no tuning
   option): its choice, the seconds the choice took (encoding, volume
   filter, random paths: :mod:`bench.engines.autoconfig`) and its search;
2. a screening pass over the grid: every piece the redundancy filter may
   constrain, with the automatic run's filters and schedule; for the three
   best pieces the one-shot volume filter toggled (2-D) and, in a
   rectangle, FILA's scan as drawn (``f``) rather than along the longest
   side; for the chosen piece, FILA one piece earlier and later and the
   other schedules (``e``, the scan, ``e`` then the scan for the last three
   pieces); and the published best rows (polycube 1.2.1's and the FILA
   article's), each run cut at :data:`LIMIT_FACTOR` times the best time so
   far, so the sweep stays bounded;
3. ``--rounds`` interleaved rounds of the automatic run (choice + search,
   the choice made afresh each round) and the :data:`FINALISTS` best grid
   rows: medians and spreads.

A search shorter than :data:`TIMED` is timed as the median of as many
solves as fill it (:func:`repeats`, column ``x``), in the screening and in
the rounds alike.  It reports per puzzle the ratio of the automatic run
(its choice counted) to the best grid row, the ratio of its search alone,
nodes of both, and the choice; times under :data:`RESOLUTION` seconds are
marked, as there the choice's own cost (a race of schedules, a few
milliseconds) outweighs any search.  Against polycube 1.2.1 (10x6, 12x5, one-sided 30x3) it
scales the issue's figures, measured on this machine with polycube built
from source, by a same-run calibration: the configuration bench's default
was then (10x6, ``-rX -V -f11 -of=11 -n``, 0.082 s then), timed in the
same rounds, for a machine without polycube; with a polycube binary,
:mod:`benchmarks.polycube` runs the two side by side.

Writes ``results/tuning.md`` and ``results/tuning.json`` (puzzles run
before and not named again are kept, so the benchmark runs in parts).

``python -m benchmarks.tuning [PUZZLE ...] [--rounds R] [--quick]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

import bench
from bench.bundled import DEFS
from bench.comparison.results import machine_facts
from bench.engines import get_engine
from bench.engines.protocol import Limits, Settings, Status
from bench.system.files import write_atomic
from bench.models.diagnose import unsolvable_reasons
from bench.engines.fila import scan_heuristic
from bench.session.prepare import Request, prepare

RESULTS = Path("results")
# untuned over a minute here: 149 s, over 150 s and 149 s
OVER_A_MINUTE = ("pentominoes_1s_18x5.txt", "hexominoes_box_in_diamond.txt", "hexominoes_parallelogram_15x14.txt")
LIMIT_FACTOR = 3.0
MIN_LIMIT = 0.2
FINALISTS = 3
RESOLUTION = 0.010
TIMED = 0.05
MINUTE = 60.0
# polycube 1.2.1's best configurations, search only (the issue's table), and the bench run they were measured beside
POLYCUBE = {"pentominoes_10x6.txt": ("-r -b 11 -V", 0.173), "pentominoes_12x5.txt": ("-r -b 11", 0.15),
            "pentominoes_1s_30x3.txt": ("-r -b 17 -V", 0.12)}
CALIBRATION = ("pentominoes_10x6.txt", "X", True, Settings(order="f=11", fila=11, nof=True), 0.082)


@dataclass
class Row:
    """One configuration of the grid: how it is asked for and what its runs gave."""

    label: str
    piece: str | None
    volume: bool
    settings: Settings
    times: list
    nodes: int = 0
    status: str = ""
    counts: tuple = ()

    def request(self) -> Request:
        """The tuned request of this row (orbit images, as the automatic configuration keeps)."""
        return Request(settings=self.settings, redundancy=self.piece, redundancy_method="orbit", volume=self.volume)


def timed_search(engine, prepared, limit: float | None, repeat: int) -> tuple[float, object]:
    """The median search seconds of ``repeat`` solves of ``prepared`` (one when cut by ``limit``), and the last result."""
    times = []
    for _ in range(repeat):
        r = engine.solve(prepared.cover, prepared.settings, Limits(time_limit=limit))
        times.append(r.timings["solve"])
        if r.status != Status.SOLVED:
            break
    return statistics.median(times), r


def solve_row(engine, puzzle, row: Row, limit: float | None, repeat: int = 1) -> float:
    """Run one grid row (``repeat`` times, the median kept); records its nodes, counts and status, returns its seconds."""
    prepared = prepare(puzzle, row.request(), engine)
    seconds, r = timed_search(engine, prepared, limit, repeat)
    row.nodes, row.status, row.counts = r.stats["nodes"], r.status.value, (r.covers, r.unique, r.total)
    return seconds


def solve_auto(engine, puzzle, limit: float | None = None, repeat: int = 1) -> tuple[float, float, object]:
    """One automatic run: the choice made afresh, then the search (its median of ``repeat``).

    Returns (choice seconds, search seconds, (result, prepared)).
    """
    prepared = prepare(puzzle, Request(tuned=False), engine)
    choice = prepared.request.choice
    seconds, r = timed_search(engine, prepared, limit, repeat)
    return choice.seconds, seconds, (r, prepared)


def repeats(seconds: float) -> int:
    """How many solves a round times for a search of ``seconds``: enough for :data:`TIMED` seconds, at most 200.

    A search of a millisecond, timed once, is at the clock's and the
    machine's mercy; the median of many is not.
    """
    return int(min(max(TIMED / max(seconds, 1e-6), 1), 200))


def grid(puzzle, path: Path, auto_settings: Settings, choice) -> list[Row]:
    """The grid rows for ``puzzle`` (see the module docstring), the estimates' order first."""
    base = replace(auto_settings, auto=False)
    pieces = [c.piece for c in choice.candidates] or [None]
    volume = " -V" if choice.volume else ""
    rows = [Row(f"-r{p or '.'}{volume}", p, choice.volume, base, []) for p in pieces]
    for p in pieces[:3]:
        if puzzle.planar:
            rows.append(Row(f"-r{p or '.'}{'' if choice.volume else ' -V'}", p, not choice.volume, base, []))
        if puzzle.rectangle and base.order and "@" in base.order:
            drawn = base.order.split("=")[0].split("@")[0] + "=" + base.order.split("=")[1]
            rows.append(Row(f"-r{p or '.'}{volume} -o{drawn}", p, choice.volume, replace(base, order=drawn), []))
    # for the chosen piece, the other choices: FILA one piece earlier (as far as the first piece) and later, and
    # the other schedule (e then the scan, or the scan alone)
    p = choice.piece
    h = base.fila
    n = sum(shape.multiplicity for shape in puzzle.shapes)
    scan = scan_heuristic(puzzle)
    for moved in (h + 1, h - 1):
        if 4 < moved < n:
            order = ":".join(f"{k}={moved if int(v) == h else v}"
                             for k, v in (part.split("=") for part in base.order.split(":")))
            rows.append(Row(f"-r{p or '.'}{volume} -f{moved} -o{order}", p, choice.volume,
                            replace(base, fila=moved, order=order), []))
    for other in (f"e={h}", f"{scan}={h}", f"e={h}:{scan}=3"):
        if other != base.order and (h > 3 or ":" not in other):
            rows.append(Row(f"-r{p or '.'}{volume} -o{other}", p, choice.volume, replace(base, order=other), []))
    if path.name in POLYCUBE:
        flags, _ = POLYCUBE[path.name]
        # polycube picks the piece with the fewest kept images (X here); -b N: FILA from N pieces left
        rows.append(Row(f"polycube {flags}", "X", "-V" in flags, base, []))
    return rows


def run_puzzle(path: Path, index: int, puzzle, rounds: int, engine, cut: float = LIMIT_FACTOR) -> dict:
    """Screen the grid, then interleave the automatic run with the finalists; returns the puzzle's record.

    A puzzle proved unsolvable without search, or whose automatic run takes
    over :data:`MINUTE`, is recorded as such, with no grid.
    """
    label = f"{path.name}" + (f"#{index}" if index else "")
    auto_tuning, auto_search, (result, prepared) = solve_auto(engine, puzzle, MINUTE)
    choice = prepared.request.choice
    reasons = unsolvable_reasons(prepared.cover)
    if reasons or result.status != Status.SOLVED:
        why = "unsolvable without search: " + "; ".join(reasons) if reasons else "over a minute"
        return {"puzzle": label, "skipped": why, "choice": choice.to_json()}
    rows = grid(puzzle, path, prepared.settings, choice)
    repeat = repeats(auto_search)
    best = None
    for row in rows:
        limit = None if best is None else max(cut * best, MIN_LIMIT)
        seconds = solve_row(engine, puzzle, row, limit, repeat)
        if row.status == Status.SOLVED.value:
            row.times.append(seconds)
            best = seconds if best is None else min(best, seconds)
    solved = [r for r in rows if r.status == Status.SOLVED.value]
    finalists = sorted(solved, key=lambda r: r.times[0])[:FINALISTS]
    autos: list[tuple[float, float]] = [(auto_tuning, auto_search)]
    for row in finalists:
        row.times = []
    calib = []
    for _ in range(rounds):
        autos.append(solve_auto(engine, puzzle, repeat=repeat)[:2])
        for row in finalists:
            row.times.append(solve_row(engine, puzzle, row, None, repeat))
        if path.name in POLYCUBE:
            calib.append(calibration_run(engine))
    autos = autos[1:] if rounds else autos
    totals = [a + b for a, b in autos]
    top = min(finalists, key=lambda r: statistics.median(r.times)) if finalists else None
    record = {
        "puzzle": label, "rounds": rounds, "repeat": repeat, "choice": choice.to_json(),
        "auto": {"piece": choice.piece, "variant": result.variant, "nodes": result.stats["nodes"],
                 "counts": [result.covers, result.unique, result.total], "tuning_median": statistics.median(a for a, _ in autos),
                 "search_median": statistics.median(b for _, b in autos), "total_median": statistics.median(totals),
                 "total_min": min(totals), "total_max": max(totals)},
        "grid": [{"label": r.label, "status": r.status, "nodes": r.nodes, "counts": list(r.counts),
                  "median": statistics.median(r.times) if r.times else None,
                  "min": min(r.times) if r.times else None, "max": max(r.times) if r.times else None,
                  "finalist": r in finalists} for r in rows],
        "best": top.label if top else None,
    }
    if top is not None:
        record["ratio"] = record["auto"]["total_median"] / statistics.median(top.times)
        record["search_ratio"] = record["auto"]["search_median"] / statistics.median(top.times)
        record["best_nodes"] = top.nodes
        record["resolution"] = statistics.median(top.times) < RESOLUTION
    if calib:
        flags, published = POLYCUBE[path.name]
        scale = statistics.median(calib) / CALIBRATION[-1]
        record["polycube"] = {"flags": flags, "published": published, "calibration_median": statistics.median(calib),
                              "scale": scale, "scaled": published * scale}
    return record


def calibration_run(engine) -> float:
    """Search seconds of the configuration the issue's table timed beside polycube (10x6, P5)."""
    name, piece, volume, settings, _ = CALIBRATION
    [puzzle] = bench.load(DEFS / name)
    prepared = prepare(puzzle, Request(settings=settings, redundancy=piece, volume=volume), engine)
    return engine.solve(prepared.cover, prepared.settings, Limits()).timings["solve"]


def markdown(records: list[dict], machine: dict) -> str:
    """The report: one line per puzzle, then the polycube comparison."""
    lines = ["# Tuning: FILA's automatic configuration against a grid of configurations", "",
             f"Machine: {machine['cpu']}, {machine['cores']} cores (shared), commit {machine['commit']}; R "
             "interleaved rounds (column R) of the automatic run (its choice made afresh and counted) and the "
             f"{FINALISTS} best grid rows of a screening pass (each cut at a few times the best so far: 3, or 1.5 for "
             "the puzzles of seconds).  "
             f"A search under {TIMED * 1000:g} ms is timed as the median of as many solves as fill {TIMED * 1000:g} ms "
             f"(column x); `*` marks the best row under {RESOLUTION * 1000:g} ms, where the choice costs more than the "
             "search.", "",
             "`auto / best` counts the choice, made afresh; `search / best` is the configuration's search alone, "
             "what every later run of the puzzle pays (the cover cache keeps the choice).", "",
             "| puzzle | R | x | auto choice | auto s (median, min-max) | of which choice s | auto nodes | best grid row | "
             "best s | best nodes | auto / best | search / best | counts |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        if "skipped" in r:
            lines.append(f"| {r['puzzle']} | - | - | -r{r['choice']['redundancy'] or '.'} | {r['skipped']} ||||||||| ")
            continue
        a = r["auto"]
        best = next((g for g in r["grid"] if g["label"] == r.get("best")), None)
        star = " *" if r.get("resolution") else ""
        lines.append(
            f"| {r['puzzle']} | {r['rounds']} | {r.get('repeat', 1)} | -r{a['piece'] or '.'} {a['variant']} | {a['total_median']:.4f} ({a['total_min']:.4f}-"
            f"{a['total_max']:.4f}) | {a['tuning_median']:.4f} | {a['nodes']:,} | {r.get('best') or '-'} | "
            + (f"{best['median']:.4f} | {best['nodes']:,} | {r['ratio']:.2f}{star} | "
               f"{a['search_median'] / best['median']:.2f}{star}" if best else "- | - | - | -")
            + f" | {a['counts'][1]} / {a['counts'][2]} |")
    poly = [r for r in records if "polycube" in r]
    if poly:
        lines += ["", "## Against polycube 1.2.1", "",
                  "Polycube is not bundled, so its best search times from the issue (measured on this machine, g++ "
                  "-O3) are scaled by a same-run calibration (`python -m benchmarks.polycube --polycube PATH` "
                  "runs a polycube binary side by side instead: results/polycube.md): the "
                  f"configuration bench's default was then ({CALIBRATION[0]}, -rX -V -f11 -of=11 -n; "
                  f"{CALIBRATION[-1]} s then), timed in the same rounds.", "",
                  "| puzzle | polycube flags | polycube s then | calibration now / then | polycube s scaled | "
                  "bench auto s (choice counted) | bench / polycube |", "|---|---|---|---|---|---|---|"]
        for r in poly:
            p = r["polycube"]
            lines.append(f"| {r['puzzle']} | {p['flags']} | {p['published']:.3f} | {p['scale']:.2f} | "
                         f"{p['scaled']:.4f} | {r['auto']['total_median']:.4f} | "
                         f"{r['auto']['total_median'] / p['scaled']:.2f} |")
    lines += ["", "Grid rows per puzzle (screening pass, then the finalists' medians) are in results/tuning.json.", ""]
    return "\n".join(lines)


def puzzles(names: list[str]) -> list[tuple[Path, int, object]]:
    """The bundled puzzles to run: the named files (stems or names), else every one under a minute."""
    files = sorted(DEFS.glob("*.txt"))
    if names:
        wanted = {n if n.endswith(".txt") else n + ".txt" for n in names}
        unknown = wanted - {f.name for f in files}
        if unknown:
            raise SystemExit(f"unknown puzzle(s) {', '.join(sorted(unknown))}; choose from "
                             f"{', '.join(f.stem for f in files)}")
        files = [f for f in files if f.name in wanted]
    else:
        files = [f for f in files if f.name not in OVER_A_MINUTE]
    return [(f, k, p) for f in files for k, p in enumerate(bench.load(f))]


def save(store: Path, kept: dict) -> None:
    """Write the records (the JSON store and the Markdown report)."""
    records = sorted(kept.values(), key=lambda r: r["puzzle"])
    machine = machine_facts()
    store.parent.mkdir(exist_ok=True)
    write_atomic(store, json.dumps({"machine": machine, "puzzles": records}, indent=1,
                                   default=lambda o: o.item() if isinstance(o, np.generic) else str(o)),
                 "benchmark results")
    write_atomic(store.with_suffix(".md"), markdown(records, machine), "benchmark report")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark on the chosen puzzles; returns 1 if an automatic run's counts differ from a grid row's."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tuning", description=__doc__.split("\n\n")[0])
    parser.add_argument("puzzles", nargs="*", metavar="PUZZLE", help="bundled definition names (default: all under a minute)")
    parser.add_argument("--rounds", type=int, default=5, metavar="R", help="interleaved rounds (default 5)")
    parser.add_argument("--cut", type=float, default=LIMIT_FACTOR, metavar="F",
                        help=f"screening: stop a grid run at F times the best so far (default {LIMIT_FACTOR:g})")
    parser.add_argument("--quick", action="store_true", help="one round, and only the puzzles that solve in about a "
                                                             "second or less")
    args = parser.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    engine = get_engine("fila")
    engine.warm_up()
    store = RESULTS / "tuning.json"
    kept = {r["puzzle"]: r for r in json.loads(store.read_text())["puzzles"]} if store.exists() else {}
    disagree = False
    for path, index, puzzle in puzzles(args.puzzles):
        if args.quick and path.name in ("tetriscube.txt", "pentacubes_planar_3x4x5.txt",
                                        "pentominoes_tetrominoes_diamond_13x13.txt"):
            continue
        start = time.perf_counter()
        record = run_puzzle(path, index, puzzle, rounds, engine, args.cut)
        counts = {tuple(g["counts"][1:]) for g in record.get("grid", []) if g["status"] == "solved"}
        disagree = disagree or any(c != tuple(record["auto"]["counts"][1:]) for c in counts)
        kept[record["puzzle"]] = record
        # written after every puzzle: a sweep stopped midway keeps what it measured
        save(store, kept)
        if "skipped" in record:
            print(f"{record['puzzle']}: {record['skipped']}", flush=True)
        else:
            print(f"{record['puzzle']}: auto -r{record['auto']['piece']} {record['auto']['total_median']:.4f} s, best "
                  f"{record.get('best')} ratio {record.get('ratio', float('nan')):.2f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
