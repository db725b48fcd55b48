"""``bench solve`` and ``bench estimate``: one engine on each puzzle, polycube-style; a search's size from random paths.

``bench solve`` takes polycube's options as long flags (with polycube's
short letters where they do not clash), solves every puzzle of every file
with one engine, prints solutions in polycube's formats and, with
``--info``, the configuration, the puzzle facts and the search statistics
as ``KEY=value`` lines, polycube's start and stop lines and its timing
table around them.  ``--json`` prints one JSON document for scripts
instead.  A bar on standard error shows a long search's progress.

``bench estimate`` averages ``--trials`` random root-to-leaf paths of the
DLX tree (Knuth's estimator, :mod:`bench.engines.sampling`) under the same
heuristics and constraints as ``bench solve``; ``--repeat K`` draws K
independent estimates (seeds SEED..SEED+K-1) so the spread shows, and
``--check`` also runs the search and prints each estimate's ratio to the
true node count.

In order: the parsers, the reading of the options, the solve of each
puzzle and what it prints, the progress bar, then ``bench estimate``.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from contextlib import contextmanager
from dataclasses import replace

from bench import __version__
from bench.cli.arguments import (add_cache_argument, add_drawing_arguments, add_engines_file_argument,
                                 add_filter_arguments, add_format_argument, add_memory_argument, add_mirror_argument,
                                 add_parallel_arguments, add_redundancy_arguments, definition_path, in_search_settings,
                                 integer, output_file, parallel_options, sample_spec, seconds, use_engines_file, word)
from bench.cli.inputs import definition_files, load_puzzles, puzzle_error, request_from
from bench.cli.output import (EXIT_STATUS_HELP, brief_reasons, count_line, counted, exit_status, format_facts,
                              layout_lines, parse_format, puzzle_facts, reached_max_solutions, render, warning)
from bench.comparison.validation import expected_counts, validate
from bench.cli.syntax import OptionalValue, Switch
from bench.engines import Limits, Result, Settings, Status, engine_names, get_engine
from bench.engines.fila import MAX_CELLS
from bench.engines.sampling import estimate_tree
from bench.engines.search import MONITOR
from bench.errors import BenchError, UsageError
from bench.kernels.codes import S_COVERS, S_NODES
from bench.models.expected import expected_for
from bench.session.prepare import prepare
from bench.session.session import Session
from bench.system import signals
from bench.system.files import check_directory
from bench.text import escape
from bench.toolchain import aot


SHOWN = 3
"""Solutions ``bench solve`` prints on a terminal without ``--all`` (the 10x6 has 9,356: 1.4 MB of text)."""

EXAMPLES = {
    "engine": ("bench solve defs/pentominoes_10x6.txt                 # DLX, every solution drawn",
               "bench solve -q -e fila defs/tetriscube.txt             # FILA, tuned by itself; the count only",
               "bench solve -q -e ganak defs/dominoes_6x6.txt          # a model counter: counts only, with -q"),
    "filters": ("bench solve -r -V defs/pentominoes_10x6.txt            # redundancy and one-shot volume filters",
                "bench solve -rX -V13 -p defs/pentominoes_10x6.txt      # piece X; volume at each node while 13 remain",
                "bench solve -r -F --max-solutions 1 -i defs/pentominoes_10x6.txt"),
    "FILA": ("bench solve -i -r -V -f11 -of=11 -n -- defs/pentominoes_10x6.txt   # the FILA article's P5",
             "bench solve -q -rL -f11 -oe=11:f=3 defs/tetriscube.txt            # TC4",
             "bench solve -f0 defs/pentominoes_10x6.txt                          # FILA off: DLX only"),
    "output": ("bench solve -O FC defs/pentominoes_20x3.txt            # full definitions in coordinates",
               "bench solve -u -i=1 defs/somacube.txt                  # unique solutions, statistics",
               "bench solve -t 3 defs/dominoes_4x4.txt                 # trace placements"),
    "limits": ("bench solve --time-limit 10 defs/tetriscube.txt         # stop after 10 s (exit 3, counts partial)",
               "bench solve --max-solutions 1 defs/pentominoes_10x6.txt"),
    "parallel": ("bench solve -q -w 2 defs/tetriscube.txt               # split over two processes",
                 "bench solve -q -w 2 --journal tc.jsonl defs/tetriscube.txt; bench solve -q -w 2 --journal tc.jsonl "
                 "--resume defs/tetriscube.txt"),
}


def _group(parser, title: str, what: str, key: str):
    """An argument group whose description ends with its examples."""
    lines = "\n".join(f"  {line}" for line in EXAMPLES[key])
    return parser.add_argument_group(title, f"{what}\n\nexamples:\n{lines}")


def add_parser(sub, name: str, help: str) -> None:
    """Register ``solve`` or ``estimate`` (``name``)."""
    if name == "estimate":
        _add_estimate_parser(sub, help)
    else:
        _add_solve_parser(sub, help)


def _add_solve_parser(sub, help: str) -> None:
    """Register ``bench solve``, its options grouped by purpose with examples."""
    p = sub.add_parser("solve", help=help,
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Solve every puzzle of the given files (directories: every *.txt below) with one "
                                   "engine.\nOptions follow polycube 2.0 (-r, -rX, -V13, -n0, -i=1, -of=11, "
                                   "--conf FILE); an optional value\nis taken from the next word only when that "
                                   "word cannot be a file, so -r defs/x.txt solves defs/x.txt.",
                       epilog=EXIT_STATUS_HELP)
    p.add_argument("files", nargs="+", type=definition_path, metavar="FILE",
                   help="definition files, matrices in Knuth's format (*.xcc, *.dlx) or directories; - reads "
                        "standard input")
    add_format_argument(p)
    p.add_argument("--version", action="version", version=f"bench {__version__} (polycube 2.0 command line)")
    p.add_argument("--conf", metavar="FILE",
                   help="read options from FILE, one NAME=VALUE a line (polycube's --conf; the command line wins)")
    add_cache_argument(p)

    engine = _group(p, "engine", "Which engine searches, and how it orders its choices.", "engine")
    engine.add_argument("-e", "--engine", type=word("an engine name"), metavar="NAME[:VARIANT]",
                        help=f"engine: {', '.join(engine_names())}, or cmd:NAME configured in bench-engines.toml "
                             "(default dlx, or fila with --fila/--nof)")
    add_engines_file_argument(engine)
    engine.add_argument("-o", "--order", type=word("an ordering spec such as s or f=11"), metavar="SPEC",
                        help="ordering heuristics, e.g. s=12:f=5 (polycube's -o; default s; fila: see --info)")
    engine.add_argument("-g", "--goal", type=integer(0, what="a count of pieces"), default=0, metavar="N",
                        help="report a partial assembly whenever N pieces remain, then backtrack")
    engine.add_argument("-s", "--sample", type=sample_spec, metavar="T[,R[,SEED]]",
                        help="estimate the search instead of running it: T random paths (Knuth), stopping with R "
                             "pieces left (default 0), seeded with SEED (default 1); see also bench estimate")
    engine.add_argument("--no-static-check", action="store_true",
                        help="search even when a static check (parity, volume, a piece that fits nowhere) proves "
                             "the puzzle unsolvable")

    filters = _group(p, "filters", "Filters and backtrack triggers (polycube's -r -R -V -P -F -p -v); none changes "
                                   "a count.", "filters")
    add_redundancy_arguments(filters, default=None)
    filters.add_argument("-R", "--redundancy-first", "--redundancyFilterFirst", action=Switch,
                         help="branch on the redundancy piece first")
    add_filter_arguments(filters)

    fila = _group(p, "FILA", "The hand-off from DLX to FILA (polycube's -f and -n), and FILA's own trigger.", "FILA")
    fila.add_argument("-f", "--fila", type=integer(0, what="a count of pieces"), metavar="N",
                      help="hand each branch from DLX to FILA when N pieces remain (0: DLX only; default for fila: "
                           "all but the first)")
    fila.add_argument("-n", "--nof", action=Switch, default=None,
                      help="FILA's neighbour occupancy filtering (default on; -n0 turns it off)")
    fila.add_argument("--no-nof", dest="nof", action="store_false", help="the same as -n0")
    fila.add_argument("-c", "--isolated-backtrack", "--isolatedBacktrack", action=OptionalValue, implicit="1",
                      type=integer(0, what="a count of pieces"), metavar="[N]",
                      help="at FILA's levels, backtrack when an open cell has no open neighbour (while every "
                           "piece left has two cells or more, each next to another of its own), checked while at "
                           "least N pieces remain (default 1; an untuned fila run turns it on where its scan fills "
                           "the first open cell)")

    output = _group(p, "output", "What is printed: solutions on standard output, the count line on standard "
                                 "error.\nOn a terminal the first few solutions are printed, then the count "
                                 f"(at most {SHOWN}; --all prints them all);\ninto a pipe or a file every solution "
                                 "is, as polycube does.", "output")
    output.add_argument("-q", "--quiet", action=Switch, help="do not print solutions")
    output.add_argument("--all", action="store_true",
                        help=f"print every solution on a terminal too (default there: the first {SHOWN})")
    output.add_argument("-i", "--info", action=Switch, help="print configuration, puzzle facts and statistics")
    output.add_argument("-O", "--output", type=word("a format such as BL"), default="BL", metavar="FORMAT",
                        help="solution format: B/F/S (brief, full, sub-puzzle) then L/C (layout, coordinates); "
                             "default BL")
    output.add_argument("-u", "--unique", action=Switch,
                        help="print only solutions that are unique up to symmetry")
    add_mirror_argument(output)
    output.add_argument("-t", "--trace", action=OptionalValue, implicit="1", type=integer(what="an integer"),
                        default=0, metavar="[K]", help="show the puzzle after placements and removals (polycube -t)")
    output.add_argument("--json", action="store_true",
                        help="print one JSON document instead of solutions and KEY=value lines")
    output.add_argument("--solutions", action="store_true",
                        help="with --json, include the solutions found (with -u the unique ones) as piece placements; "
                             "bound them with --max-solutions")
    output.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar on standard error (default: on a terminal, once a run lasts 2 s)")
    add_drawing_arguments(output)

    limits = _group(p, "limits", "When to stop early.  A stopped search prints a warning and partial counts.",
                    "limits")
    limits.add_argument("--max-solutions", type=integer(1, what="a number of solutions"), metavar="N",
                        help="stop after N covers (exit status 0: what was asked for)")
    limits.add_argument("--node-limit", type=integer(1, what="a number of nodes"), metavar="N",
                        help="stop after N search nodes (exit status 3)")
    limits.add_argument("--time-limit", type=seconds, metavar="SECONDS",
                        help="stop after this much solve time (exit status 3)")
    add_memory_argument(limits)

    parallel = _group(p, "parallel", "Splitting the search over processes or machines, with a checkpoint journal.",
                      "parallel")
    add_parallel_arguments(parallel)
    parallel.add_argument("--journal", type=output_file, metavar="FILE",
                          help="checkpoint journal of a split run (default: the user's cache directory, e.g. "
                               "~/.cache/polyform-bench/journals/PUZZLE-ENGINE-KEY.jsonl); asks for a split")
    parallel.add_argument("--resume", action="store_true",
                          help="continue the split run whose journal matches this puzzle, engine and settings")
    p.set_defaults(func=cmd_solve)


def cmd_solve(args) -> int:
    """``bench solve``: solve every puzzle of ``args.files`` (:func:`solve_all`); returns the exit status.

    The cyclic garbage collector waits until the first puzzle is solved:
    importing numpy and numba and loading the kernels make a few hundred
    thousand objects, all kept, which its passes walk again and again for
    nothing (0.03 s of the 0.4 s a cached 10x6 solve takes).
    """
    gc.disable()
    try:
        return solve_all(args)
    finally:
        gc.enable()


TUNING_FLAGS = ("redundancy", "volume_filter", "parity_filter", "fit_filter", "parity_backtrack", "volume_backtrack",
                "isolated_backtrack", "order", "fila", "nof")


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
    return "fila" if args.fila is not None or args.nof is not None or args.isolated_backtrack is not None else "dlx"


def tuned(args) -> bool:
    """True when the command line sets any tuning option (else an engine may choose its own configuration)."""
    return any(getattr(args, name) not in (None, False) for name in TUNING_FLAGS)


def settings_from(args) -> Settings:
    """Engine settings from the command line."""
    return Settings(order=args.order, goal=args.goal, trace=args.trace, fila=args.fila or None,
                    nof=None if args.fila == 0 else args.nof, isolated_backtrack=args.isolated_backtrack or 0,
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
        "isolatedBacktrack": settings.isolated_backtrack,
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
                    ("isolated_backtracks", "ISOLATED_BACKTRACK", None),
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
    unique, total = counted(result)
    if unique is not None:
        lines += [f"UNIQUE={unique}", f"TOTAL={total}"]
    solve = result.timings.get("solve", 0.0)
    if solve > 0 and result.covers is not None:
        lines.append(f"SOLUTIONS_PER_SEC={result.covers / solve:.4f}")
        if unique is not None:
            lines.append(f"UNIQUE_PER_SEC={unique / solve:.4f}")
    for key in ("kernel", "nodes", "updates", "dead_ends"):
        if key in stats:
            lines.append(f"{key.upper()}={stats[key]}")
    lines.append(f"ATTEMPTS_TOTAL={stats.get('attempts', 0)}")
    lines.append(f"FITS_TOTAL={stats.get('fits', 0)}")
    lines.append(f"NO_FITS_TOTAL={stats.get('attempts', 0) - stats.get('fits', 0)}")
    for key, value in stats.get("fila", {}).items():
        lines.append(f"FILA_{key.upper()}={value}")
    for group in ("parallel", "gpu"):
        for key, value in stats.get(group, {}).items():
            lines.append(f"{group.upper()}_{key.upper()}={escape(value)}")
    lines += constraint_lines(stats, one_shot or {}, n_pieces)
    for key, label in (("updates_by_remaining", "LIST_UPDATES"), ("attempts_by_remaining", "ATTEMPTS"), ("fits_by_remaining", "FITS")):
        values = stats.get(key)
        if values:
            width = len(str(n_pieces))
            lines += [f"{label}[{n:>{width}}]={values[n]}" for n in range(1, len(values))]
    for phase, spent in result.timings.items():
        lines.append(f"{phase.upper()}_SECONDS={spent:.6f}")
    return lines


def solve_all(args) -> int:
    """Solve every puzzle of ``args.files``; returns the exit status (see :data:`~bench.cli.output.EXIT_STATUS_HELP`)."""
    if args.solutions and not args.json:
        raise UsageError("--solutions adds the solutions to --json's document; without --json they are printed anyway")
    form, piece_form = parse_format(args.output)
    use_engines_file(args)
    limits = Limits(max_solutions=args.max_solutions, node_limit=args.node_limit, time_limit=args.time_limit)
    session = Session.open(engine_name(args), request=request_from(args, settings_from(args), tuned=tuned(args)),
                           limits=limits, parallel=parallel_options(args), cache=args.cache)
    engine = session.engine
    printing = not (args.quiet or args.json)
    if (printing or args.solutions or args.draw is not None) and engine.counts_only:
        raise UsageError(f"engine '{engine.name}' counts solutions without producing them: add -q (or --json "
                         "without --solutions, and no --draw) to get its counts")
    check_drawing_folder(args)
    errors: list[str] = []
    failed: list[str] = []
    documents = []
    limited = False
    stop = None
    for path in definition_files(args.files):
        for puzzle, parse_seconds in load_puzzles(path, errors, args.mirror, args.input_format):
            try:
                prepared = session.prepare(puzzle)
            except BenchError as exc:
                errors.append(puzzle_error(puzzle, exc))
                continue
            cover, settings, filter_counters = prepared.cover, prepared.settings, prepared.filters
            if cover.puzzle is None and (args.draw is not None or args.trace or form != "B"):
                errors.append(f"{puzzle.name}: --draw, --trace and -O {form}{piece_form} show a puzzle's cells; a "
                              "matrix's solutions are printed as its options (-O B)")
                continue
            if form != "B" and puzzle.geometric and (not puzzle.plain or puzzle.ranged):
                errors.append(f"{puzzle.name}: -O {form}{piece_form} writes polycube's definitions, which have no "
                              "copies=, motions=, colours or optional cells; use -O B")
                continue
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
            # polycube prints every solution; a terminal gets the first few unless --all asks for them all
            shown = None if args.all or not sys.stdout.isatty() else SHOWN
            printer = _SolutionPrinter(cover, form, piece_form, args.unique, partial=settings.goal > 0, limit=shown)
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
                    print(f"{escape(puzzle.name)}: unsolvable without search: {brief_reasons(reasons)}",
                          file=sys.stderr)
            elif args.sample:
                announce()
                trials, goal, seed = args.sample
                estimate = estimate_tree(cover, settings, trials, seed, goal)
                print("\n".join(f"ESTIMATE_{k.upper()}={v:.6g}" if isinstance(v, float) else f"ESTIMATE_{k.upper()}={v}"
                                for k, v in estimate.to_json().items()))
                continue
            else:
                drawer = solution_drawer(args, cover, partial=settings.goal > 0)
                # a bar on the terminal only where solutions are not printed on it too, or no longer are
                on_terminal = printing and sys.stdout.isatty()
                progress = None if settings.trace or args.json or (on_terminal and shown is None) \
                    else SolveProgress(cover, settings, ready=printer.full if on_terminal else None)
                with watching(progress):
                    sink = recorder or (printer if printing else None)
                    if drawer is not None:
                        sink = drawer.also(sink) if sink is not None else drawer
                    result = session.solve(cover, settings, on_solutions=sink, on_trace=tracer, alongside=announce,
                                           printing=printing or recorder is not None or drawer is not None)
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
            try:
                check, mismatches = expected_check(puzzle, cover, result, settings)
            except BenchError as exc:
                errors.append(str(exc))
                check, mismatches = None, []
            unique, total = counted(result)
            if args.json:
                documents.append({"configuration": config, "puzzle": facts, "result": {
                    "status": result.status.value, "partial": result.status != Status.SOLVED,
                    "covers": result.covers, "unique": unique, "convention": puzzle.convention,
                    "total": total, "variant": result.variant, "stats": result.stats,
                    "timings": result.timings, "cover_hash": result.cover_hash, "expected_check": check}})
                if prepared.request.choice is not None:
                    documents[-1]["autoconfig"] = prepared.request.choice.to_json()
                if recorder is not None:
                    documents[-1]["solutions"] = recorder.solutions
            elif args.info:
                print("\n".join(result_lines(result, n_pieces, filter_counters)))
                if check is not None:
                    print(f"EXPECTED_CHECK={check}")
                print("\n".join(footer_lines(result, prepared.timings, time.time())))
            sys.stdout.flush()
            print(count_line(puzzle.name, result), file=sys.stderr)
            if printer.hidden:
                print(f"{escape(puzzle.name)}: {printer.printed} of {printer.printed + printer.hidden} solutions "
                      f"printed (--all prints them all)", file=sys.stderr)
            for message in mismatches:
                failed.append(f"MISMATCH: {escape(puzzle.name)}: {message}")
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


def expected_check(puzzle, cover, result: Result, settings: Settings) -> tuple[str | None, list[str]]:
    """``(check, mismatches)``: how the counts compare with ``expected.toml``, as ``bench run`` compares them.

    ``check`` is ``agreed`` or ``mismatch``, or None where nothing was
    compared: no entry for the puzzle, a search cut short, or partial
    assemblies (``--goal``).  ``mismatches`` are the validation's messages.

    Raises
    ------
    BenchError
        For an entry of ``expected.toml`` that cannot be used for this puzzle.
    """
    if result.status != Status.SOLVED or settings.goal:
        return None, []
    # the cover knows its group: a puzzle read from the cover cache need not compute it again
    expected = expected_counts(expected_for(puzzle, group_order=cover.symmetry.order))
    if expected is None:
        return None, []
    unique, total = counted(result)
    row = {"engine": result.engine, "status": result.status.value, "covers": result.covers, "unique": unique,
           "total": total, "message": result.message}
    problems = [p["message"] for p in validate({"key": puzzle.name, "expected": expected}, [row])
                if p["kind"] == "mismatch"]
    return ("mismatch" if problems else "agreed"), problems


class _SolutionPrinter:
    """Prints each batch of covers as it arrives (numbered in order of output), the first ``limit`` (None: all)."""

    def __init__(self, cover, form, piece_form, unique_only, partial, limit: int | None = None):
        self.cover = cover
        self.form = form
        self.piece_form = piece_form
        self.unique_only = unique_only
        self.partial = partial
        self.limit = limit
        self.printed = 0
        self.hidden = 0
        """Solutions left unprinted past the limit."""

    def full(self) -> bool:
        """True once the limit is reached: nothing more is printed."""
        return self.limit is not None and self.printed >= self.limit

    def __call__(self, batch, weights) -> None:
        out = []
        for options, weight in zip(batch, weights):
            if self.unique_only and not self.partial and weight == 0:
                continue
            if self.full():
                self.hidden += 1
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


TIME_FORMAT = "%d/%b/%Y %H:%M:%S %Z"


def header_lines(started: float) -> list[str]:
    """``START_TIME``, ``VERSION`` and ``GRIDBITFIELD_SIZE``, with polycube's comments."""
    return ["# Program start time", f"START_TIME={time.strftime(TIME_FORMAT, time.localtime(started))}",
            "# bench version (polycube 2.0 command line)", f"VERSION={__version__}",
            "# Most open cells FILA takes over (one or two 64-bit occupancy words)", f"GRIDBITFIELD_SIZE={MAX_CELLS}"]


def phases(result, prepare_timings: dict) -> list[tuple[str, float, int]]:
    """``(name, seconds, events)`` of each phase, ``all`` first."""
    t = result.timings
    handoffs = result.stats.get("fila", {}).get("handoffs", 0)
    rows = [("parsing", t.get("parse", 0.0), 1),
            ("puzzleInit", prepare_timings.get("encode", 0.0) + prepare_timings.get("filter", 0.0), 1),
            ("solveInit", t.get("setup", 0.0) + t.get("split", 0.0), 1),
            ("solveAlgo", t.get("solve", 0.0), 1)]
    if handoffs:
        rows.append(("filaInit", t.get("fila_setup", 0.0), handoffs))
    total = sum(spent for name, spent, _ in rows if name != "filaInit")
    return [("all", total, 1), *rows, ("compile", t.get("compile", 0.0), 1)]


def timing_table(result, prepare_timings: dict) -> list[str]:
    """polycube's ``NAME : TOTAL TIME : PERCENTAGE : NUM EVENTS : AVG TIME`` table (percentages of ``all``)."""
    rows = phases(result, prepare_timings)
    total = rows[0][1]
    lines = ["NAME : TOTAL TIME : PERCENTAGE : NUM EVENTS : AVG TIME", "_" * 79]
    for name, spent, events in rows:
        share = "*" if name in ("all", "compile") or total <= 0 else f"{100 * spent / total:.3f}%"
        lines.append(f"{name} : {spent:.6f} : {share} : {events}: {spent / max(events, 1):.3f}")
    return lines


def kernel_lines() -> list[str]:
    """``KERNEL_LIBRARIES``: the kernel libraries this process ran on, or ``none`` and why numba compiled instead."""
    loaded = aot.loaded()
    reason = None if loaded else aot.buildable()
    value = ",".join(loaded) if loaded else "none" + (f" (numba's JIT: {reason})" if reason else "")
    return ["# Kernel libraries built ahead of time this process ran on (bench.toolchain.aot)",
            f"KERNEL_LIBRARIES={value}"]


def footer_lines(result, prepare_timings: dict, stopped: float) -> list[str]:
    """The kernel libraries, the timing table and ``STOP_TIME``."""
    return kernel_lines() + timing_table(result, prepare_timings) + [
        "# Program stop time", f"STOP_TIME={time.strftime(TIME_FORMAT, time.localtime(stopped))}"]


def solution_drawer(args, cover, partial: bool):
    """The sink that draws ``cover``'s solutions for ``--draw``, or None without it."""
    if args.draw is None:
        return None
    if args.gallery < 0:
        raise UsageError(f"--gallery takes a number of solutions >= 0, got {args.gallery}")
    check_drawing_folder(args)
    # lazy: the gallery draws with matplotlib, which only --draw loads
    from bench.drawing.gallery import SolutionDrawer

    return SolutionDrawer(cover, args.draw, args.draw_format, args.unique, partial, args.gallery, args.draw_max)


def check_drawing_folder(args) -> None:
    """``--draw DIR`` checked before any search: a folder (made if missing) where files can be written."""
    if args.draw is None:
        return
    if args.draw.exists() and not args.draw.is_dir():
        raise UsageError(f"--draw {args.draw}: not a directory")
    check_directory(args.draw, "--draw")


TRIALS = 1000


class SolveProgress:
    """Watches one search (see :data:`bench.engines.search.MONITOR`) and draws the bar.

    ``ready()``, when given, says whether the terminal is free for the bar
    (the solutions printed on it have stopped); until it is, nothing is drawn.
    """

    def __init__(self, cover, settings, enabled: bool | None = None, delay: float = 2.0, stream=None, ready=None):
        self.cover = cover
        self.settings = settings
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.delay = delay
        self.ready = ready
        self.start: float | None = None
        self.drawn = 0.0
        self.bar = None

    def __call__(self, search) -> None:
        now = time.perf_counter()
        # the clock starts with the search, after any compilation
        self.start = now if self.start is None else self.start
        if not self.enabled or now - self.start < self.delay or now - self.drawn < 0.2 or \
                (self.ready is not None and not self.ready()):
            return
        self.drawn = now
        nodes = int(search.state[S_NODES])
        if self.bar is None:
            # lazy: most solves never last the delay, and a cached solve spares tqdm's import (20 ms)
            from tqdm import tqdm

            # an engine whose tree is not DLX's estimates its own (the GPU engine's first-open-cell search)
            estimate = getattr(search, "estimated_nodes", None)
            total = self._estimate() if estimate is None else estimate
            self.bar = tqdm(total=max(total, nodes + 1), initial=nodes, file=self.stream, ascii=" #",
                            unit=" nodes", unit_scale=True, mininterval=0, leave=False,
                            bar_format="[{bar:20}] {n_fmt}/~{total_fmt} nodes, {desc}  {elapsed} elapsed, "
                                       "ETA ~{remaining}")
            # tqdm's clock would start now; the solve started earlier
            self.bar.start_t -= now - self.start
        if nodes >= self.bar.total:
            # past the estimate: the rest is unknown, keep the bar just short of full
            self.bar.total = int(nodes * 1.1) + 1
        self.bar.set_description_str(f"{int(search.state[S_COVERS]):,} solutions", refresh=False)
        self.bar.update(nodes - self.bar.n)

    def _estimate(self) -> int:
        try:
            return int(estimate_tree(self.cover, self.settings, trials=TRIALS, goal=self.settings.goal).nodes)
        except Exception:  # noqa: BLE001 - the estimate only decorates the bar; the solve must go on
            return 0

    def close(self) -> None:
        """Take the bar off the terminal."""
        if self.bar is not None:
            self.bar.close()


@contextmanager
def watching(progress: SolveProgress | None):
    """Let ``progress`` watch the native searches run inside the block (in this process)."""
    if progress is None:
        yield
        return
    token = MONITOR.set(progress)
    try:
        yield
    finally:
        MONITOR.reset(token)
        progress.close()


def _add_estimate_parser(sub, help: str) -> None:
    """Register ``bench estimate``."""
    p = sub.add_parser("estimate", help=help, description="The size of a search from random paths, without running it.")
    p.add_argument("files", nargs="+", type=definition_path, metavar="FILE",
                   help="definition files or directories; - reads standard input")
    add_redundancy_arguments(p, default=None)
    add_filter_arguments(p)
    add_memory_argument(p)
    add_cache_argument(p)
    p.add_argument("-o", "--order", type=word("an ordering spec such as s or f=11"), metavar="SPEC",
                   help="ordering heuristics, as in bench solve (default s)")
    p.add_argument("--trials", type=integer(1, what="a number of paths"), default=1000, metavar="T",
                   help="random paths per estimate (default 1000)")
    p.add_argument("-g", "--goal", type=integer(0, what="a count of pieces"), default=0, metavar="R",
                   help="paths stop with R pieces left (default 0)")
    p.add_argument("--seed", type=integer(0, 2**63 - 1, what="a seed"), default=1,
                   help="seed of the first estimate (default 1)")
    p.add_argument("--repeat", type=integer(1, what="a number of estimates"), default=1, metavar="K",
                   help="independent estimates (default 1)")
    p.add_argument("--check", action="store_true", help="also run the DLX search and compare (slow on big puzzles)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=cmd_estimate)


def cmd_estimate(args) -> int:
    """``bench estimate``: estimate every puzzle of ``args.files``; returns the exit status."""
    request = request_from(args, Settings(order=args.order, **in_search_settings(args)))
    errors: list[str] = []
    documents = []
    for path in definition_files(args.files):
        for puzzle, _ in load_puzzles(path, errors):
            try:
                prepared = prepare(puzzle, request, cache=args.cache)
                cover, settings = prepared.cover, prepared.settings
                start = time.perf_counter()
                estimates = [estimate_tree(cover, settings, args.trials, args.seed + k, args.goal)
                             for k in range(args.repeat)]
                seconds = (time.perf_counter() - start) / args.repeat
                true = None
                if args.check:
                    # the estimator samples DLX's tree, so DLX's search is the one to check against
                    true = get_engine("dlx").solve(cover, replace(settings, goal=args.goal)).stats
            except BenchError as exc:
                errors.append(puzzle_error(puzzle, exc))
                continue
            doc = summary(puzzle.name, estimates, seconds, true)
            documents.append(doc)
            if not args.json:
                print("\n".join(f"{k}={escape(v)}" for k, v in doc.items()))
    if args.json:
        print(json.dumps(documents, indent=2))
    for message in errors:
        print(escape(message), file=sys.stderr)
    return 2 if errors else 0


def summary(name: str, estimates: list, seconds: float, true: dict | None) -> dict:
    """The KEY=value lines of one puzzle: median and range of the estimates, and the check."""
    # bench estimate's alone: a solve spares its import (fractions, decimal)
    import statistics

    nodes = [e.nodes for e in estimates]
    doc = {"PUZZLE": name, "TRIALS": estimates[0].trials, "ESTIMATES": len(estimates),
           "ESTIMATE_NODES": round(statistics.median(nodes)),
           "ESTIMATE_NODES_MIN": round(min(nodes)), "ESTIMATE_NODES_MAX": round(max(nodes)),
           "ESTIMATE_NODES_P10": round(statistics.median(e.nodes_low for e in estimates)),
           "ESTIMATE_NODES_P90": round(statistics.median(e.nodes_high for e in estimates)),
           "ESTIMATE_FITS": round(statistics.median(e.attempts for e in estimates)),
           "ESTIMATE_COVERS": round(statistics.median(e.covers for e in estimates), 1),
           "SECONDS_PER_ESTIMATE": round(seconds, 4)}
    if true is not None:
        ratios = [n / true["nodes"] for n in nodes]
        doc.update({"NODES": true["nodes"], "FITS": true["fits"],
                    "RATIO_MIN": round(min(ratios), 3), "RATIO_MEDIAN": round(statistics.median(ratios), 3),
                    "RATIO_MAX": round(max(ratios), 3),
                    "WITHIN_FACTOR_2": sum(0.5 <= r <= 2 for r in ratios)})
    return doc
