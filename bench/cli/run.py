"""``bench run``: every engine on the same matrix, counts cross-validated, results stored.

Each puzzle is encoded once.  Every engine then solves that cover in a child
process (forked, so it shares the cover without copying and inherits the JIT
code the parent compiled while warming up), under a hard timeout: a hung or
crashing engine costs its own row, never the run.  Engines are interleaved
across rounds, each round starting one engine later, so slow drift of the
machine does not favour one of them; reports use the median over rounds.

**The shared configuration.**  With no redundancy or one-shot filter
option, the first engine that chooses a configuration of its own
(:attr:`~bench.engines.protocol.Engine.chooses_configuration`: an untuned
``fila``) chooses what the cover every engine shares is encoded with: the
piece the redundancy filter constrains, from estimates of the search, and
its one-shot filters (the volume filter in 2-D); that engine also runs
with the settings it chose (hand-off, schedule).  The choice is made once
per puzzle, before any engine runs, and recorded with the puzzle
(``autoconfig``).  Without such an engine, or with ``-r``, the filters
asked for are applied and ``-r #`` (polycube's rule) picks the piece.

After each puzzle the rows are validated (:func:`~bench.comparison.validation.validate`) and the
result file is rewritten, so an interrupted run keeps every finished puzzle.
The exit status is 1 when any count disagrees or an engine failed.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from bench.system import signals
from bench.bundled import DEFS
from bench.cli.options import (add_cache_argument, add_filter_arguments, add_memory_argument, add_mirror_argument,
                               add_moved_o, add_parallel_arguments, add_redundancy_arguments, engine_list,
                               parallel_options, request_from)
from bench.cli.outcome import EXIT_STATUS_HELP
from bench.cli.values import definition_path, integer, output_file, seconds, word
from bench.engines import ENGINES, get_engine
from bench.errors import BenchError, UsageError
from bench.system.files import check_directory, check_output, write_atomic
from bench.text import escape

DEFAULT_ENGINES = ",".join(ENGINES)
"""Every registered engine: one whose library is missing reports how to install it and the run goes on."""
OPTIONAL_FOR_HTML = ("jinja2", "markupsafe", "matplotlib")
"""Libraries the HTML report needs; a broken install without them costs the report, never the run."""


def add_parser(sub) -> None:
    """Register ``bench run``."""
    p = sub.add_parser("run", help="solve every puzzle with several engines, cross-validate counts, store results",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Every engine on the same matrix, counts cross-validated, results stored.",
                       epilog=f"engines: {engine_list()}\n\nexamples:\n"
                              "  bench run                                  # every engine, the bundled quick puzzles\n"
                              "  bench run -e dlx,fila,xcover --rounds 3 defs/pentominoes_10x6.txt\n"
                              "  bench run -e fila:f11/of=11/n0,fila:f11/of=11/n,dlx -V defs/pentominoes_10x6.txt"
                              "\n\n" + EXIT_STATUS_HELP)
    p.add_argument("paths", nargs="*", type=definition_path, metavar="PATH",
                   help="definition files or directories (searched for *.txt); none: the bundled quick puzzles "
                        "(every bundled definition not marked slow)")
    p.add_argument("-e", "--engine", type=word("a list of engines"), default=DEFAULT_ENGINES, metavar="E1,E2,...",
                   help=f"engines, each NAME[:VARIANT] (default: every engine, {DEFAULT_ENGINES})")
    p.add_argument("--timeout", type=seconds, default=10.0, metavar="S", help="seconds per engine and puzzle (default 10)")
    p.add_argument("--rounds", type=integer(1, what="a number of rounds"), default=1, metavar="R",
                   help="runs of each engine per puzzle; medians reported")
    p.add_argument("--mode", choices=("count", "first"), default="count", help="count all covers, or find one")
    add_redundancy_arguments(p, default=None, default_help="the piece an untuned fila run's estimates price "
                                                           "cheapest, else #")
    add_filter_arguments(p, in_search=False)
    add_mirror_argument(p)
    add_memory_argument(p)
    add_cache_argument(p)
    add_parallel_arguments(p)
    p.add_argument("--skip-slow", action="store_true", help="leave out puzzles marked slow in expected.toml")
    p.add_argument("--no-static-check", action="store_true",
                   help="run the engines even on puzzles that a static check proves unsolvable (parity, volume, ...)")
    p.add_argument("--output-file", "--results", dest="results", type=output_file, metavar="FILE",
                   help="result file (default results/run-DATE-TIME.json)")
    add_moved_o(p)
    p.add_argument("--no-save", action="store_true", help="do not write a result file (nor its HTML report)")
    p.add_argument("--no-html", action="store_true", help="do not write the HTML report beside the result file")
    p.set_defaults(func=cmd_run)


def parse_engines(text: str) -> list[str]:
    """The engine specs of ``--engine``, each checked now so a typo fails before any work."""
    specs = [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        raise UsageError("--engine needs at least one engine")
    if len(set(specs)) != len(specs):
        raise UsageError("--engine names an engine twice")
    for spec in specs:
        get_engine(spec)
    return specs


def shared_configuration(args, specs: list[str]) -> str | None:
    """The engine spec whose own configuration the run's shared cover takes (see the module docstring), or None.

    None when the command line gives the redundancy filter or a one-shot
    filter (the user configures the cover), or no engine chooses one.
    """
    asked = [args.redundancy, args.redundancy_method] + [getattr(args, f"{name}_filter")
                                                         for name in ("volume", "parity", "fit")]
    if any(value is not None for value in asked):
        return None
    return next((spec for spec in specs if get_engine(spec).chooses_configuration), None)


def output_path(given: str | None, inputs: list[str]) -> Path | None:
    """The result file ``--output-file FILE`` checked before any work (never one of ``inputs``), or None for
    a new file in the results folder, whose folder is checked (:func:`bench.comparison.results.reserve` names it)."""
    # lazy: `bench --help` builds every command's parser; what a command needs loads when it runs
    from bench.comparison import results

    if given is not None:
        return check_output(given, "--output-file", inputs)
    check_directory(results.DIRECTORY, "results folder", "give --output-file FILE elsewhere, or --no-save")
    return None


def write_html_report(document: dict, path: Path) -> None:
    """The HTML report beside the result file (``run-....html``); the run's outcome never depends on it.

    When it cannot be written, an earlier run's report of that name is
    removed: left beside the new results, it would be read as theirs.
    """
    html_path = path.with_suffix(".html")
    try:
        # lazy: `bench --help` builds every command's parser; what a command needs loads when it runs
        from bench.comparison.html import render_html

        write_atomic(html_path, render_html([(str(path), document)]), "HTML report")
    except ModuleNotFoundError as exc:
        if exc.name not in OPTIONAL_FOR_HTML:
            raise
        print(f"bench: HTML report not written: {exc.name} is not installed (pip install jinja2 matplotlib, or "
              f"pip install -e . again); bench report --html {escape(path)} writes it later{_remove_stale(html_path)}",
              file=sys.stderr)
        return
    except UsageError as exc:
        print(f"bench: HTML report not written: {escape(exc)}{_remove_stale(html_path)}", file=sys.stderr)
        return
    print(f"HTML report written to {escape(html_path)}", file=sys.stderr)


def _remove_stale(html_path: Path) -> str:
    """Remove an earlier report at ``html_path`` (a regular file or a link, never a link's target); what was done."""
    if not (html_path.is_symlink() or html_path.is_file()):
        return ""
    try:
        html_path.unlink()
    except OSError as exc:
        return f"; the earlier report {escape(html_path)} could not be removed ({exc.strerror}): it is not this run's"
    return f"; the earlier report {escape(html_path)} was removed"


def cmd_run(args) -> int:
    """Run the comparison; returns 1 on a count mismatch or an engine error."""
    # lazy: `bench --help` builds every command's parser; what a command needs loads when it runs
    from bench.cli.inputs import definition_files, distinct_files, file_labels, load_puzzles, puzzle_error
    from bench.comparison import results, summary
    from bench.comparison.pictures import first_solution
    from bench.comparison.progress import RunProgress, say
    from bench.comparison.results import puzzle_entry
    from bench.comparison.rounds import solve_rounds, static_proof_rows, warm_up
    from bench.comparison.validation import INPUT, input_problems, validate
    from bench.models.expected import expected_for
    from bench.session.prepare import prepare

    specs = parse_engines(args.engine)
    if not args.paths:
        args.paths, args.skip_slow = [str(DEFS)], True
    options = {"engines": specs, "timeout": args.timeout, "rounds": args.rounds, "mode": args.mode,
               "redundancy": args.redundancy, "redundancy_method": args.redundancy_method,
               "volume_filter": args.volume_filter, "parity_filter": args.parity_filter, "fit_filter": args.fit_filter,
               "fit_rounds": args.fit_rounds, "mirror": args.mirror}
    chooser = shared_configuration(args, specs)
    configuring = get_engine(chooser) if chooser is not None else None
    if chooser is None and args.redundancy is None:
        args.redundancy = "#"
    options["redundancy"] = "auto" if chooser is not None else args.redundancy
    options["configured_by"] = chooser
    request = request_from(args, tuned=chooser is None)
    for name in ("volume", "parity", "fit"):
        value = getattr(args, f"{name}_filter")
        if value is not None and value > 0:
            raise UsageError(f"bench run applies --{name}-filter once, to the matrix every engine shares; for "
                             f"filtering inside the search give the engines that do it a variant, e.g. "
                             f"dlx:{name[0].upper()}{value}")
    parallel = parallel_options(args)
    if parallel is not None:
        parallel = replace(parallel, progress=False)
        options["workers"] = parallel.workers if parallel.cluster is None else parallel.cluster
        options["split_every_search"] = parallel.explicit
    document = results.new_document(["bench", "run", *args.paths], options)
    path = None if args.no_save else output_path(args.results, args.paths)
    files = distinct_files(definition_files(args.paths))
    labels = file_labels(files)
    if not args.no_save and path is None:
        path = results.reserve(document)
    errors: list[str] = []
    interrupted = False
    progress = RunProgress(len(files), len(specs) * args.rounds)
    try:
        for file in files:
            file_errors: list[str] = []
            puzzles = list(load_puzzles(file, file_errors, args.mirror))
            progress.more_puzzles(len(puzzles) - 1)
            for puzzle, parse_seconds in puzzles:
                progress.puzzle(puzzle.name)
                try:
                    expected = expected_for(puzzle)
                except BenchError as exc:
                    # the puzzle still runs, its engines compared with each other only
                    file_errors.append(str(exc))
                    expected = None
                if args.skip_slow and expected is not None and expected.slow:
                    progress.done(len(specs) * args.rounds)
                    continue
                try:
                    prepared = prepare(puzzle, request, configuring, cache=args.cache)
                except BenchError as exc:
                    file_errors.append(puzzle_error(puzzle, exc))
                    progress.done(len(specs) * args.rounds)
                    continue
                cover = prepared.cover
                entry = puzzle_entry(puzzle, cover, expected, parse_seconds, sum(prepared.timings.values()),
                                     labels[file])
                entry["filters"] = prepared.filters
                settings = {}
                if prepared.request.choice is not None:
                    entry["autoconfig"] = {"engine": chooser, **prepared.request.choice.to_json()}
                    settings[chooser] = prepared.settings
                document["puzzles"].append(entry)
                say(f"{escape(entry['key'])}: {cover.n_options} options, {cover.n_items} items")
                reasons = [] if args.no_static_check else prepared.reasons
                if reasons:
                    rows = static_proof_rows(entry, specs, reasons)
                    progress.done(len(specs) * args.rounds)
                else:
                    rows = solve_rounds(entry, cover, specs, args.rounds, args.mode, args.timeout,
                                        warm_up(specs, cover, settings), parallel, progress, settings)
                document["rows"].extend(rows)
                document["validation"].extend(validate(entry, rows))
                if reasons:
                    entry["solution_note"] = "unsolvable, proved without search"
                else:
                    entry["solution"], note = first_solution(entry, cover, rows, args.timeout)
                    if note:
                        entry["solution_note"] = note
                if path is not None:
                    results.save(document, path)
            if file_errors:
                errors.extend(file_errors)
                document["validation"].extend(input_problems(labels[file], file_errors))
                if path is not None:
                    results.save(document, path)
    except KeyboardInterrupt:
        interrupted = True
        stop = signals.note_interrupt()
    progress.close()
    print(summary.table(document))
    print(summary.verdict(document))
    for message in dict.fromkeys(errors):
        print(escape(message), file=sys.stderr)
    if path is not None:
        results.save(document, path)
        print(f"results written to {escape(path)}", file=sys.stderr)
        if not args.no_html:
            write_html_report(document, path)
    if interrupted:
        print(f"bench: stopped by {signals.signal_name(stop)}; the finished puzzles are kept", file=sys.stderr)
        return signals.exit_status(stop)
    compared = [p for p in document["validation"] if p["kind"] != INPUT]
    for problem in compared:
        print(escape(f"{problem['kind'].upper()}: {problem['puzzle']}: {problem['message']}"), file=sys.stderr)
    return 1 if compared else 2 if errors else 0
