"""What ``bench solve`` does once its options are read: solve each puzzle, print what was asked, count.

The parser and the reading of the options are :mod:`bench.cli.solve`'s.
"""

from __future__ import annotations

import gc
import json
import sys
import time

from bench.system import signals
from bench.cli.facts import escape, format_facts, puzzle_facts
from bench.cli.inputs import definition_files, load_puzzles, puzzle_error
from bench.cli.options import check_drawing_folder, in_search_settings, parallel_options, request_from, solution_drawer
from bench.cli.outcome import count_line, exit_status, reached_max_solutions, warning
from bench.cli.output import layout_lines, parse_format, render
from bench.cli.polycube_info import footer_lines, header_lines
from bench.cli.progress import SolveProgress, watching
from bench.engines import Limits, Result, Settings, Status, get_engine
from bench.errors import BenchError, UsageError
from bench.engines.sampling import estimate_tree
from bench.parallel.runner import solve_maybe_parallel
from bench.session.prepare import prepare


TUNING_FLAGS = ("redundancy", "volume_filter", "parity_filter", "fit_filter", "parity_backtrack", "volume_backtrack",
                "order", "fila", "nof")


def engine_name(args) -> str:
    """The engine asked for: ``--engine``, else fila when a FILA option is given, else dlx.

    ``-f 0`` is polycube's "FILA off": DLX only.
    """
    if args.fila == 0:
        if args.engine and get_engine(args.engine).name == "fila":
            raise UsageError("-f 0 turns FILA off, which leaves DLX: use --engine dlx, or -f N with N > 0 for fila")
        return args.engine or "dlx"
    if args.engine:
        return args.engine
    return "fila" if args.fila is not None or args.nof is not None else "dlx"


def tuned(args) -> bool:
    """True when the command line sets any tuning option (else an engine may choose its own configuration)."""
    return any(getattr(args, name) not in (None, False) for name in TUNING_FLAGS)


def settings_from(args) -> Settings:
    """Engine settings from the command line."""
    return Settings(order=args.order, goal=args.goal, trace=args.trace, fila=args.fila or None,
                    nof=None if args.fila == 0 else args.nof,
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
    lines = [f"STATUS={result.status.value}", f"PARTIAL={'false' if result.status == Status.SOLVED else 'true'}",
             f"SOLUTIONS={result.covers}"]
    if result.unique is not None:
        lines += [f"UNIQUE={result.unique}", f"TOTAL={result.total}"]
    solve = result.timings.get("solve", 0.0)
    if solve > 0 and result.covers is not None:
        lines.append(f"SOLUTIONS_PER_SEC={result.covers / solve:.4f}")
        if result.unique is not None:
            lines.append(f"UNIQUE_PER_SEC={result.unique / solve:.4f}")
    for key in ("kernel", "nodes", "updates", "dead_ends"):
        if key in stats:
            lines.append(f"{key.upper()}={stats[key]}")
    lines.append(f"ATTEMPTS_TOTAL={stats.get('attempts', 0)}")
    lines.append(f"FITS_TOTAL={stats.get('fits', 0)}")
    lines.append(f"NO_FITS_TOTAL={stats.get('attempts', 0) - stats.get('fits', 0)}")
    for key, value in stats.get("fila", {}).items():
        lines.append(f"FILA_{key.upper()}={value}")
    for key, value in stats.get("parallel", {}).items():
        lines.append(f"PARALLEL_{key.upper()}={escape(value)}")
    lines += constraint_lines(stats, one_shot or {}, n_pieces)
    for key, label in (("updates_by_remaining", "LIST_UPDATES"), ("attempts_by_remaining", "ATTEMPTS"), ("fits_by_remaining", "FITS")):
        values = stats.get(key)
        if values:
            width = len(str(n_pieces))
            lines += [f"{label}[{n:>{width}}]={values[n]}" for n in range(1, len(values))]
    for phase, spent in result.timings.items():
        lines.append(f"{phase.upper()}_SECONDS={spent:.6f}")
    return lines


def run(args) -> int:
    """Solve every puzzle of ``args.files``; returns the exit status (see :mod:`bench.cli.outcome`)."""
    if args.solutions and not args.json:
        raise UsageError("--solutions adds the solutions to --json's document; without --json they are printed anyway")
    form, piece_form = parse_format(args.output)
    engine = get_engine(engine_name(args))
    if not engine.available():
        raise UsageError(f"engine '{engine.name}' is not available: {engine.missing()}")
    printing = not (args.quiet or args.json)
    if (printing or args.solutions or args.draw is not None) and engine.counts_only:
        raise UsageError(f"engine '{engine.name}' counts solutions without producing them: add -q (or --json "
                         "without --solutions, and no --draw) to get its counts")
    limits = Limits(max_solutions=args.max_solutions, node_limit=args.node_limit, time_limit=args.time_limit)
    request = request_from(args, settings_from(args), tuned=tuned(args))
    parallel = parallel_options(args)
    check_drawing_folder(args)
    errors: list[str] = []
    failed: list[str] = []
    documents = []
    limited = False
    stop = None
    for path in definition_files(args.files):
        for puzzle, parse_seconds in load_puzzles(path, errors, args.mirror):
            try:
                prepared = prepare(puzzle, request, engine, cache=args.cache)
            except BenchError as exc:
                errors.append(puzzle_error(puzzle, exc))
                continue
            cover, settings, filter_counters = prepared.cover, prepared.settings, prepared.filters
            n_pieces = sum(s.multiplicity for s in puzzle.shapes)
            if settings.goal >= max(n_pieces, 1):
                errors.append(f"{puzzle.name}: --goal {settings.goal}: the puzzle has {n_pieces} pieces; "
                              f"expected a goal from 0 to {max(n_pieces - 1, 0)}")
                continue
            config = configuration(args, prepared, engine.name)
            reasons = prepared.reasons
            facts = None

            def announce() -> None:
                # the facts need the puzzle's images and group, which a cover read from the cache spares: a split
                # search computes them while its workers search (the parent is idle then), else they come first
                nonlocal facts
                if args.info or args.json:
                    facts = puzzle_facts(puzzle, cover, {"parse": parse_seconds, **prepared.timings}, reasons)
                    facts.update(filter_counters)
                    facts["COVER_CACHE"] = prepared.cache
                if args.info and not args.json:
                    print("\n".join(header_lines(time.time())))
                    print("\n".join(f"{k}={escape(v)}" for k, v in config.items()))
                    if prepared.request.choice is not None:
                        print("\n".join(prepared.request.choice.lines()))
                    print("\n".join(format_facts(facts)), flush=True)
            printer = _SolutionPrinter(cover, form, piece_form, args.unique, partial=settings.goal > 0)
            recorder = _SolutionRecorder(cover, args.unique, partial=settings.goal > 0) if args.json and \
                args.solutions else None
            tracer = _Tracer(cover) if not args.json else None
            if reasons and not args.no_static_check:
                announce()
                # proven without search: an exact count of zero
                proof = "; ".join(reasons)
                result = Result(engine=engine.name, status=Status.SOLVED, covers=0, unique=0, total=0,
                                message=f"unsolvable without search: {proof}", timings={"solve": 0.0})
                if not args.json:
                    print(f"{escape(puzzle.name)}: unsolvable without search: {proof}", file=sys.stderr)
            elif args.sample:
                announce()
                trials, goal, seed = args.sample
                estimate = estimate_tree(cover, settings, trials, seed, goal)
                print("\n".join(f"ESTIMATE_{k.upper()}={v:.6g}" if isinstance(v, float) else f"ESTIMATE_{k.upper()}={v}"
                                for k, v in estimate.to_json().items()))
                continue
            else:
                drawer = solution_drawer(args, cover, partial=settings.goal > 0)
                # a bar on the terminal only where solutions are not printed on it too
                progress = None if settings.trace or args.json or not (args.quiet or not sys.stdout.isatty()) \
                    else SolveProgress(cover, settings)
                with watching(progress):
                    sink = recorder or (printer if printing else None)
                    if drawer is not None:
                        sink = drawer.also(sink) if sink is not None else drawer
                    result = solve_guarded(cover, engine, settings, limits, parallel,
                                           printing or recorder is not None or drawer is not None, sink, tracer,
                                           announce)
                # start-up is over (bench.cli.solve.run): what it made stays, so the collector leaves it be
                if not gc.isenabled():
                    gc.freeze()
                    gc.enable()
                if drawer is not None:
                    gallery = drawer.finish()
                    result.timings["draw"] = drawer.seconds
                    bound = (f"; {drawer.drawn} of {drawer.found} solutions drawn (--draw-max {args.draw_max} "
                             "draws more)" if drawer.drawn < drawer.found else "")
                    print(f"{escape(puzzle.name)}: {drawer.drawn} pictures in {escape(args.draw)} in "
                          f"{drawer.seconds:.3f} s, gallery {escape(gallery)}{bound}", file=sys.stderr)
            result.timings = {"parse": parse_seconds, "encode": prepared.timings["encode"], **result.timings}
            if args.json:
                documents.append({"configuration": config, "puzzle": facts, "result": {
                    "status": result.status.value, "partial": result.status != Status.SOLVED,
                    "covers": result.covers, "unique": result.unique, "convention": puzzle.convention,
                    "total": result.total, "variant": result.variant, "stats": result.stats,
                    "timings": result.timings, "cover_hash": result.cover_hash}})
                if prepared.request.choice is not None:
                    documents[-1]["autoconfig"] = prepared.request.choice.to_json()
                if recorder is not None:
                    documents[-1]["solutions"] = recorder.solutions
            elif args.info:
                print("\n".join(result_lines(result, n_pieces, filter_counters)))
                print("\n".join(footer_lines(result, prepared.timings, time.time())))
            sys.stdout.flush()
            print(count_line(puzzle.name, result), file=sys.stderr)
            cut = warning(puzzle.name, result, limits)
            if cut:
                print(cut, file=sys.stderr)
            elif result.status == Status.ERROR:
                failed.append(f"error: {escape(puzzle.name)}: {result.message}")
            limited = limited or result.status in (Status.LIMIT, Status.TIMEOUT) and not reached_max_solutions(result, limits)
            if result.status == Status.INTERRUPTED:
                stop = signals.note_interrupt()
                break
        if stop is not None:
            break
    if args.json:
        json.dump(documents, sys.stdout, indent=2)
        sys.stdout.write("\n")
    for message in errors + failed:
        print(escape(message), file=sys.stderr)
    if stop is not None:
        return signals.exit_status(stop)
    return exit_status(bool(errors), bool(failed), limited)


def solve_guarded(cover, engine, settings, limits, parallel, printing, printer, tracer, alongside) -> Result:
    """The engine's solve, split when asked; an engine that crashes gives an ``error`` result with its message.

    ``alongside()`` runs once, while the workers of a split search run, or
    before a search in this process.
    """
    try:
        return solve_maybe_parallel(cover, engine, settings, limits, parallel, printing=printing,
                                    on_solutions=printer, on_trace=tracer, alongside=alongside)
    except (BenchError, BrokenPipeError):
        raise
    except Exception as exc:  # noqa: BLE001 - whatever fails inside an engine is its result, never a traceback
        return Result(engine=engine.name, status=Status.ERROR,
                      message=f"engine '{engine.name}' failed: {type(exc).__name__}: {exc}")


class _SolutionPrinter:
    """Prints each batch of covers as it arrives (numbered in order of output)."""

    def __init__(self, cover, form, piece_form, unique_only, partial):
        self.cover = cover
        self.form = form
        self.piece_form = piece_form
        self.unique_only = unique_only
        self.partial = partial
        self.printed = 0

    def __call__(self, batch, weights) -> None:
        out = []
        for options, weight in zip(batch, weights):
            if self.unique_only and not self.partial and weight == 0:
                continue
            self.printed += 1
            out.append(f"# --- SOLUTION {self.printed} ---")
            out.extend(render(self.cover, options, self.form, self.piece_form, self.partial))
        if out:
            with signals.deferred():
                sys.stdout.write("\n".join(out) + "\n")
                sys.stdout.flush()


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
            pieces = [{"piece": name, "cells": cells.tolist(), "stationary": bool(fixed)}
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
        with signals.deferred():
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()

