"""``bench solve``: the polycube-style front end.

It takes polycube's options as long flags (with polycube's short letters
where they do not clash), solves every puzzle of every file with one engine,
prints solutions in polycube's formats and, with ``--info``, the
configuration, the puzzle facts and the search statistics as ``KEY=value``
lines.  ``--json`` prints one JSON document for scripts instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from bench.cli.facts import format_facts, puzzle_facts
from bench.cli.inputs import load_puzzles, puzzle_error
from bench.cli.options import (add_drawing_arguments, add_filter_arguments, add_memory_argument, add_mirror_argument,
                               add_parallel_arguments, add_redundancy_arguments, in_search_settings, parallel_options,
                               request_from, sample_spec, solution_drawer)
from bench.cli.output import layout_lines, parse_format, render
from bench.cli.progress import SolveProgress, watching
from bench.engines import Limits, Result, Settings, Status, engine_names, get_engine
from bench.errors import BenchError, UsageError
from bench.models.diagnose import unsolvable_reasons
from bench.native.sampling import estimate_tree
from bench.parallel.runner import solve_maybe_parallel
from bench.prepare import prepare


def add_parser(sub) -> None:
    """Register the ``solve`` subcommand."""
    p = sub.add_parser("solve", help="solve puzzles polycube-style and print their solutions",
                       description="Solve every puzzle of the given files. Options follow polycube 2.0; "
                                   "put -- before the files when an option with an optional argument comes last.")
    p.add_argument("files", nargs="+", metavar="FILE", help="definition files; - reads standard input")
    p.add_argument("-e", "--engine", help=f"engine: {', '.join(engine_names())} (default dlx, or fila with --fila/--nof)")
    add_redundancy_arguments(p, optional_value=True, default=None)
    add_filter_arguments(p)
    add_mirror_argument(p)
    add_memory_argument(p)
    p.add_argument("-R", "--redundancy-first", action="store_true", help="branch on the redundancy piece first")
    p.add_argument("-o", "--order", metavar="SPEC", help="ordering heuristics, e.g. s=12:f=5 (default s; fila: see --info)")
    p.add_argument("-f", "--fila", type=int, metavar="N",
                   help="hand each branch from DLX to FILA when N pieces remain (default for fila: all but the first)")
    p.add_argument("-n", "--nof", action=argparse.BooleanOptionalAction, default=None,
                   help="FILA's neighbour occupancy filtering (default on)")
    p.add_argument("-g", "--goal", type=int, default=0, metavar="N",
                   help="report a partial assembly whenever N pieces remain, then backtrack")
    p.add_argument("-t", "--trace", type=int, default=0, metavar="K", help="show the puzzle after placements and removals (polycube -t)")
    p.add_argument("-i", "--info", action="store_true", help="print configuration, puzzle facts and statistics")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print solutions")
    p.add_argument("-O", "--output", default="BL", metavar="FORMAT", help="B/F/S then L/C (default BL)")
    p.add_argument("-u", "--unique", action="store_true", help="print only solutions that are unique up to symmetry")
    p.add_argument("--max-solutions", type=int, metavar="N", help="stop after N covers")
    p.add_argument("--node-limit", type=int, metavar="N", help="stop after N search nodes")
    p.add_argument("--time-limit", type=float, metavar="SECONDS", help="stop after this much solve time")
    p.add_argument("--no-static-check", action="store_true",
                   help="search even when a static check (parity, volume, a piece that fits nowhere) proves the puzzle unsolvable")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of solutions and KEY=value lines")
    p.add_argument("--solutions", action="store_true",
                   help="with --json, include the solutions found (with -u the unique ones) as piece placements; "
                        "bound them with --max-solutions")
    add_parallel_arguments(p)
    p.add_argument("--journal", type=Path, metavar="FILE",
                   help="checkpoint journal of a split run (default: the user's cache directory, "
                        "e.g. ~/.cache/polyform-bench/journals/PUZZLE-ENGINE-KEY.jsonl)")
    p.add_argument("--resume", action="store_true",
                   help="continue the split run whose journal matches this puzzle, engine and settings")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on standard error (default: on a terminal, once a run lasts 2 s)")
    p.add_argument("-s", "--sample", metavar="T[,R[,SEED]]",
                   help="estimate the search instead of running it: T random paths (Knuth), stopping with R "
                        "pieces left (default 0), seeded with SEED (default 1); see also bench estimate")
    add_drawing_arguments(p)
    p.set_defaults(func=run)


TUNING_FLAGS = ("redundancy", "volume_filter", "parity_filter", "fit_filter", "parity_backtrack", "volume_backtrack",
                "order", "fila", "nof")


def engine_name(args) -> str:
    """The engine asked for: ``--engine``, else fila when a FILA option is given, else dlx."""
    if args.engine:
        return args.engine
    return "fila" if args.fila is not None or args.nof is not None else "dlx"


def tuned(args) -> bool:
    """True when the command line sets any tuning option (else an engine may choose its own configuration)."""
    return any(getattr(args, name) not in (None, False) for name in TUNING_FLAGS)


def settings_from(args) -> Settings:
    """Engine settings from the command line."""
    if args.goal < 0:
        raise UsageError("--goal must be >= 0")
    return Settings(order=args.order, goal=args.goal, trace=args.trace, fila=args.fila, nof=args.nof,
                    **in_search_settings(args))


def configuration(args, prepared, engine_name: str) -> dict:
    """The solver configuration as polycube's ``--info`` lists it."""
    settings, cover = prepared.settings, prepared.cover
    auto = settings.auto
    config = {
        "engine": engine_name,
        "autoTuned": int(auto),
        "goal": settings.goal,
        "info": int(args.info),
        "orderingHeuristicConfig": settings.order or "s",
        "outputFormat": (args.output or "BL").upper(),
        "quiet": int(args.quiet),
        "redundancyFilter": (cover.redundancy.piece if cover.redundancy else ".") if auto else args.redundancy or ".",
        "volumeFilter": (settings.volume_filter or -1) if auto and prepared.request.volume else args.volume_filter or 0,
        "parityFilter": args.parity_filter or 0,
        "fitFilter": args.fit_filter or 0,
        "fitRounds": args.fit_rounds,
        "parityBacktrack": settings.parity_backtrack,
        "volumeBacktrack": settings.volume_backtrack,
        "redundancyFilterFirst": int(args.redundancy_first),
        "redundancyMethod": prepared.request.redundancy_method or "orientation",
        "trace": settings.trace,
        "unique": int(args.unique),
        "mirror": int(args.mirror),
        "maxSolutions": args.max_solutions or 0,
        "nodeLimit": args.node_limit or 0,
        "timeLimit": args.time_limit or 0,
    }
    if settings.fila is not None:
        config["fila"] = settings.fila
        config["nof"] = int(bool(settings.nof))
    return config


CONSTRAINT_LINES = (("parity_backtracks", "PARITY_BACKTRACK", None), ("volume_backtracks", "VOLUME_BACKTRACK", None),
                    ("fit_filtered", "FIT_FILTER", "FIT_FILTER_ONE_SHOT"),
                    ("parity_filtered", "PARITY_FILTER", "PARITY_FILTER_ONE_SHOT"),
                    ("volume_filtered", "VOLUME_FILTER", "VOLUME_FILTER_ONE_SHOT"))


def constraint_lines(stats: dict, one_shot: dict, n_pieces: int) -> list[str]:
    """polycube's trigger and filter counters: totals, then per number of pieces remaining.

    A one-shot filter counts at the root (all pieces remaining), as in polycube.
    """
    totals, lists = [], []
    width = len(str(n_pieces))
    for key, label, shot in CONSTRAINT_LINES:
        per = list(stats.get(key + "_by_remaining") or [0] * (n_pieces + 1))
        if shot and shot in one_shot:
            per[n_pieces] += one_shot[shot]
        totals.append(f"{label}_TOTAL={sum(per)}")
        if key in stats:
            lists += [f"{label}[{n:>{width}}]={per[n]}" for n in range(1, len(per))]
    return totals + lists


def result_lines(result, n_pieces: int, one_shot: dict | None = None) -> list[str]:
    """The after-search ``KEY=value`` lines."""
    stats = result.stats
    lines = [f"STATUS={result.status.value}", f"SOLUTIONS={result.covers}"]
    if result.unique is not None:
        lines += [f"UNIQUE={result.unique}", f"TOTAL={result.total}"]
    solve = result.timings.get("solve", 0.0)
    if solve > 0 and result.covers is not None:
        lines.append(f"SOLUTIONS_PER_SEC={result.covers / solve:.4f}")
    for key in ("kernel", "nodes", "updates", "dead_ends"):
        if key in stats:
            lines.append(f"{key.upper()}={stats[key]}")
    lines.append(f"ATTEMPTS_TOTAL={stats.get('attempts', 0)}")
    lines.append(f"FITS_TOTAL={stats.get('fits', 0)}")
    lines.append(f"NO_FITS_TOTAL={stats.get('attempts', 0) - stats.get('fits', 0)}")
    for key, value in stats.get("fila", {}).items():
        lines.append(f"FILA_{key.upper()}={value}")
    for key, value in stats.get("parallel", {}).items():
        lines.append(f"PARALLEL_{key.upper()}={value}")
    lines += constraint_lines(stats, one_shot or {}, n_pieces)
    for key, label in (("updates_by_remaining", "LIST_UPDATES"), ("attempts_by_remaining", "ATTEMPTS"), ("fits_by_remaining", "FITS")):
        values = stats.get(key)
        if values:
            width = len(str(n_pieces))
            lines += [f"{label}[{n:>{width}}]={values[n]}" for n in range(1, len(values))]
    for phase, seconds in result.timings.items():
        lines.append(f"{phase.upper()}_SECONDS={seconds:.6f}")
    return lines


def run(args) -> int:
    """Solve every puzzle of ``args.files``; returns the exit status."""
    if args.solutions and not args.json:
        raise UsageError("--solutions adds the solutions to --json's document; without --json they are printed anyway")
    form, piece_form = parse_format(args.output)
    engine = get_engine(engine_name(args))
    if not engine.available():
        raise UsageError(f"engine '{engine.name}' is not available: {engine.missing()}")
    limits_base = dict(max_solutions=args.max_solutions, node_limit=args.node_limit, time_limit=args.time_limit)
    request = request_from(args, settings_from(args), tuned=tuned(args))
    parallel = parallel_options(args)
    errors: list[str] = []
    failed: list[str] = []
    documents = []
    interrupted = False
    for path in args.files:
        for puzzle, parse_seconds in load_puzzles(path, errors, args.mirror):
            try:
                prepared = prepare(puzzle, request, engine)
            except BenchError as exc:
                errors.append(puzzle_error(puzzle, exc))
                continue
            cover, settings, filter_counters = prepared.cover, prepared.settings, prepared.filters
            config = configuration(args, prepared, engine.name)
            reasons = unsolvable_reasons(cover)
            facts = puzzle_facts(puzzle, cover, {"parse": parse_seconds, **prepared.timings}, reasons)
            facts.update(filter_counters)
            if args.info and not args.json:
                print("\n".join(f"{k}={v}" for k, v in config.items()))
                print("\n".join(format_facts(facts)))
            printer = _SolutionPrinter(cover, form, piece_form, args.unique, partial=settings.goal > 0,
                                       silent=args.quiet or args.json)
            recorder = _SolutionRecorder(cover, args.unique, partial=settings.goal > 0) if args.json and \
                args.solutions else None
            tracer = _Tracer(cover) if settings.trace and not args.json else None
            if reasons and not args.no_static_check:
                # proven without search: an exact count of zero
                proof = "; ".join(reasons)
                result = Result(engine=engine.name, status=Status.SOLVED, covers=0, unique=0, total=0,
                                message=f"unsolvable without search: {proof}", timings={"solve": 0.0})
                if not args.json:
                    print(f"{puzzle.name}: unsolvable without search: {proof}", file=sys.stderr)
            elif args.sample:
                trials, goal, seed = sample_spec(args.sample)
                estimate = estimate_tree(cover, settings, trials, seed, goal)
                print("\n".join(f"ESTIMATE_{k.upper()}={v:.6g}" if isinstance(v, float) else f"ESTIMATE_{k.upper()}={v}"
                                for k, v in estimate.to_json().items()))
                continue
            else:
                drawer = solution_drawer(args, cover, partial=settings.goal > 0)
                # a bar on the terminal only where solutions are not printed on it too
                progress = None if tracer is not None or args.json or not (args.quiet or not sys.stdout.isatty()) \
                    else SolveProgress(cover, settings)
                with watching(progress):
                    result = solve_maybe_parallel(cover, engine, settings, Limits(**limits_base), parallel,
                                                  printing=not (args.quiet or args.json) or recorder is not None
                                                  or drawer is not None,
                                                  on_solutions=(recorder or printer) if drawer is None
                                                  else drawer.also(recorder or printer), on_trace=tracer)
                if drawer is not None:
                    print(f"{puzzle.name}: {drawer.drawn} pictures in {args.draw}, gallery {drawer.finish()}",
                          file=sys.stderr)
            result.timings = {"parse": parse_seconds, "encode": prepared.timings["encode"], **result.timings}
            n_pieces = sum(s.multiplicity for s in puzzle.shapes)
            if args.json:
                documents.append({"configuration": config, "puzzle": facts, "result": {
                    "status": result.status.value, "covers": result.covers, "unique": result.unique,
                    "convention": puzzle.convention, "total": result.total, "variant": result.variant, "stats": result.stats,
                    "timings": result.timings, "cover_hash": result.cover_hash}})
                if recorder is not None:
                    documents[-1]["solutions"] = recorder.solutions
            elif args.info:
                print("\n".join(result_lines(result, n_pieces, filter_counters)))
            if result.status == Status.ERROR:
                failed.append(f"{puzzle.name}: {result.message}")
            elif result.message and result.status != Status.SOLVED and not args.json:
                print(f"{puzzle.name}: {result.message}", file=sys.stderr)
            interrupted = interrupted or result.status == Status.INTERRUPTED
            if interrupted:
                break
        if interrupted:
            break
    if args.json:
        json.dump(documents, sys.stdout, indent=2)
        sys.stdout.write("\n")
    for message in errors + failed:
        print(message, file=sys.stderr)
    if interrupted:
        print("bench: interrupted; the counts above are partial", file=sys.stderr)
        return 130
    return 2 if errors else (1 if failed else 0)


class _SolutionPrinter:
    """Prints each batch of covers as it arrives (numbered in order of output)."""

    def __init__(self, cover, form, piece_form, unique_only, partial, silent):
        self.cover = cover
        self.form = form
        self.piece_form = piece_form
        self.unique_only = unique_only
        self.partial = partial
        self.silent = silent
        self.printed = 0

    def __call__(self, batch, weights) -> None:
        if self.silent:
            return
        out = []
        for options, weight in zip(batch, weights):
            if self.unique_only and not self.partial and weight == 0:
                continue
            self.printed += 1
            out.append(f"# --- SOLUTION {self.printed} ---")
            out.extend(render(self.cover, options, self.form, self.piece_form, self.partial))
        if out:
            sys.stdout.write("\n".join(out) + "\n")


class _SolutionRecorder:
    """Keeps each cover as it arrives, as JSON-ready piece placements, for ``--json --solutions``."""

    def __init__(self, cover, unique_only, partial):
        self.cover = cover
        self.unique_only = unique_only
        self.partial = partial
        self.solutions: list[dict] = []

    def __call__(self, batch, weights) -> None:
        for options, weight in zip(batch, weights):
            if self.unique_only and not self.partial and weight == 0:
                continue
            pieces = [{"piece": name, "cells": np.asarray(cells).tolist(), "stationary": bool(fixed)}
                      for name, cells, fixed in self.cover.placements(options, self.partial)]
            self.solutions.append({"unique": bool(weight) if not self.partial else None, "pieces": pieces})


class _Tracer:
    """Prints the puzzle state for trace events."""

    def __init__(self, cover):
        self.cover = cover
        self.count = 0

    def __call__(self, kind, options) -> None:
        self.count += 1
        grid = self.cover.grid(options, partial=True)
        lines = [f"TRACE {self.count}:"] + layout_lines(grid, self.cover.puzzle.lattice) + ["END TRACE"]
        sys.stdout.write("\n".join(lines) + "\n")

