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

**On the terminal** a run shows one bar (:class:`RunProgress`): the engine
runs done, the puzzle and the engine at hand, and, while kernels compile,
which and for how long; then the compact table and the verdict
(:mod:`bench.comparison.summary`).  ``-v`` adds a line per puzzle and per
engine run.  No line is wider than :data:`~bench.comparison.summary.WIDTH`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
import threading
import time
from dataclasses import replace
from pathlib import Path

from tqdm import tqdm

from bench.system import signals
from bench.bundled import DEFS
from bench.cli.arguments import (add_cache_argument, add_engines_file_argument, add_filter_arguments,
                                 add_format_argument, add_memory_argument, add_mirror_argument, add_moved_o,
                                 add_parallel_arguments, add_redundancy_arguments, definition_path, engine_list,
                                 integer, output_file, parallel_options, seconds, use_engines_file, word)
from bench.cli.inputs import definition_files, distinct_files, file_labels, load_puzzles, puzzle_error, request_from
from bench.cli.output import EXIT_STATUS_HELP, brief_reasons
from bench.comparison import results, summary
from bench.comparison.results import SLOW, puzzle_entry, puzzle_key
from bench.comparison.rounds import prefetch, skipped_rows, solve_rounds, static_proof_rows, warm_up
from bench.comparison.validation import INPUT, input_problems, validate
from bench.models.expected import expected_for
from bench.session.prepare import prepare
from bench.engines import get_engine, standalone_engines
from bench.errors import BenchError, Unsupported, UsageError
from bench.system.files import check_directory, check_output, write_atomic
from bench.text import escape
from bench.toolchain import warmup

TABLE_HELP = """the table (one row per puzzle, one column per engine):
  0.33*  median solve time in seconds, * the fastest (by 10 ms or more, among two engines or more that finished)
  >10    timed out at --timeout;  skip  not applicable or not installed;  slow  left out of the quick run
  -      not run: a static check proves the puzzle unsolvable;  ERROR  the engine failed
  counts: agreed (two sources or more agree: engines, a proof, expected.toml), unchecked (one source),
          open (no count yet), proof, MISMATCH
the verdict: counts agree over the puzzles two sources were compared on; an engine is fastest over the
  puzzles two engines finished ("raced" where the line is short of room)"""

DEFAULT_TIMEOUT = 20.0
"""Seconds per engine and puzzle: twice what the slowest engine the quick run keeps on a puzzle takes on a 2-core
machine with other work on it (CP-SAT on the Soma cube, Ganak on the 20x3: 6 to 8 s), so that its cells are times."""
DEFAULT_ENGINES = ",".join(standalone_engines())
"""Every registered engine; without ``--engine`` a run takes those available here (:func:`default_engines`)."""
OPTIONAL_FOR_HTML = ("jinja2", "markupsafe", "matplotlib")
"""Libraries the HTML report needs; a broken install without them costs the report, never the run."""


def add_parser(sub, name: str, help: str) -> None:
    """Register ``bench run``."""
    p = sub.add_parser(name, help=help,
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Every engine on the same matrix, counts cross-validated, results stored.",
                       epilog=f"engines: {engine_list()}\n\nexamples:\n"
                              "  bench run                                  # every engine, the bundled quick puzzles\n"
                              "  bench run -e dlx,fila,xcover --rounds 3 defs/pentominoes_10x6.txt\n"
                              "  bench run -e fila:f11/of=11/n0,fila:f11/of=11/n,dlx -V defs/pentominoes_10x6.txt"
                              "\n\n" + TABLE_HELP + "\n\n" + EXIT_STATUS_HELP)
    p.add_argument("paths", nargs="*", type=definition_path, metavar="PATH",
                   help="definition files, matrices in Knuth's format or directories (searched for *.txt, *.xcc "
                        "and *.dlx); none: the bundled quick puzzles (every bundled definition not marked slow)")
    add_format_argument(p)
    p.add_argument("-e", "--engine", type=word("a list of engines"), metavar="E1,E2,...",
                   help=f"engines, each NAME[:VARIANT] (default: every engine available here of {DEFAULT_ENGINES}; "
                        "one named here that is missing a library or a device gives a 'skip' row that says why)")
    add_engines_file_argument(p)
    p.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="S",
                   help=f"seconds per engine and puzzle (default {DEFAULT_TIMEOUT:g})")
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
    p.add_argument("--skip-slow", action="store_true",
                   help="a quick run: leave out the puzzles expected.toml marks slow or quick = false, and on each "
                        "puzzle the engines its slow_engines names (the default without a PATH)")
    p.add_argument("--no-static-check", action="store_true",
                   help="run the engines even on puzzles that a static check proves unsolvable (parity, volume, ...)")
    p.add_argument("--output-file", "--results", dest="results", type=output_file, metavar="FILE",
                   help="result file (default results/run-DATE-TIME.json)")
    add_moved_o(p)
    p.add_argument("--no-save", action="store_true", help="do not write a result file (nor its HTML report)")
    p.add_argument("--no-html", action="store_true", help="do not write the HTML report beside the result file")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="a line for every puzzle and every engine run above the bar (default: the bar, the table and "
                        "the verdict)")
    p.set_defaults(func=cmd_run)


class RunProgress:
    """One bar on standard error over a run's engine runs: the puzzle and engine at hand, and what compiles.

    A thread redraws it twice a second, so its clock moves while a kernel
    compiles for tens of seconds in the main thread, and it names that
    compilation (:func:`bench.toolchain.warmup.compiling`) and its
    seconds.  Without a terminal (or ``enabled=False``) nothing is drawn.
    With ``verbose``, :meth:`say` prints a line above the bar (and
    without a terminal, on standard error); otherwise it prints nothing.
    """

    TICK = 0.5
    """Seconds between two redraws."""
    SHOWN_AFTER = 1.0
    """A compilation (or a load) shows once it has lasted this long: a cached kernel loads in milliseconds."""

    def __init__(self, runs: int | None, enabled: bool | None = None, verbose: bool = False, stream=None,
                 width: int | None = None):
        self.stream = stream or sys.stderr
        self.verbose = verbose
        # the bar's line: one column short of the terminal's, so that it never wraps
        self.width = min(width or shutil.get_terminal_size().columns, summary.WIDTH) - 1
        self.puzzle_name = ""
        self.doing = ""
        self.enabled = self.stream.isatty() if enabled is None else enabled
        # a status line and its clock where there are no runs to count (writing the report); a bar otherwise, even
        # before the runs are known (a run's plan adds them)
        counts = "[{bar:20}] {n_fmt}/{total_fmt} runs  " if runs is not None else ""
        # the width given: a terminal that reports none (a fresh pseudo-terminal) would get no bar at all from tqdm
        self.bar = tqdm(total=runs or 0, file=self.stream, ascii=" #", mininterval=0, leave=False,
                        disable=not self.enabled, bar_format=counts + "{elapsed}  {desc}", ncols=self.width)
        self._stop = threading.Event()
        self._ticker = None
        self._watching = warmup.watched()
        if self.enabled:
            self._watching.__enter__()
            self._ticker = threading.Thread(target=self._tick, daemon=True, name="bench-progress")
            self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(self.TICK):
            self.draw()

    def description(self) -> str:
        """What the bar says after its counts: the puzzle (cut in the middle if need be), then what is being done."""
        doing = self.doing
        now = warmup.compiling()
        if now is not None and time.perf_counter() - now[1] >= self.SHOWN_AFTER:
            doing = f"compiling the {now[0]} kernels ({time.perf_counter() - now[1]:.0f} s; cached afterwards)"
        # what the counts and the clock take, one character more for a clock past an hour
        room = self.width - len(self.bar.format_meter(**{**self.bar.format_dict, "prefix": ""})) - 1
        doing = doing[:room]
        name_room = room - len(doing) - 3
        if name_room < 8:
            return doing
        if not self.puzzle_name:
            return doing
        return f"{summary.short_name(self.puzzle_name, name_room)} · {doing}" if doing else \
            summary.short_name(self.puzzle_name, room)

    def draw(self) -> None:
        """Redraw the bar (the ticker thread does it twice a second)."""
        if self.enabled:
            self.bar.set_description_str(self.description(), refresh=True)

    def drop(self, runs: int) -> None:
        """``runs`` engine runs planned will not be made (a puzzle proved unsolvable, or not encoded); -N plans N."""
        self.bar.total -= runs
        self.draw()

    def puzzle(self, name: str) -> None:
        """Now preparing puzzle ``name`` (its key, never a path)."""
        self.puzzle_name, self.doing = name, "preparing"
        self.draw()

    def warming(self, spec: str) -> None:
        """Engine ``spec`` gets its code ready for the puzzle at hand."""
        self.doing = f"warming up {spec}"
        self.draw()

    def engine(self, spec: str, round_no: int) -> None:
        """``spec`` starts its round ``round_no`` (from 0) on the current puzzle."""
        self.doing = spec + (f" (round {round_no + 1})" if round_no else "")
        self.draw()

    def status(self, text: str) -> None:
        """Say what the run does between puzzles or after them (writing the report)."""
        self.puzzle_name, self.doing = "", text
        self.draw()

    def finished(self, row: dict) -> None:
        """One engine run is done: the bar moves on, and with ``verbose`` its line is printed."""
        self.say(engine_line(row))
        self.done()

    def done(self, runs: int = 1) -> None:
        """``runs`` engine runs finished (or were skipped)."""
        self.bar.update(runs)

    def say(self, line: str) -> None:
        """With ``verbose``, print ``line`` (control characters escaped, cut to 120 columns) above the bar."""
        if self.verbose:
            tqdm.write(fit(escape(line)), file=self.stream)
            self.stream.flush()

    def close(self) -> None:
        """Take the bar off the terminal."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
            self._watching.__exit__(None, None, None)
        self.bar.close()


def fit(line: str, width: int = summary.WIDTH) -> str:
    """``line`` cut to ``width`` characters, with an ellipsis where it was cut."""
    return line if len(line) <= width else line[: width - 1] + "…"


def engine_line(row: dict) -> str:
    """The ``-v`` line of one engine run: status, then counts and time, or why there are none."""
    head = f"  {row['engine']:<14} round {row['round'] + 1}: {row['status']:<8}"
    if row["status"] in ("solved", "limit") and row["covers"] is not None:
        counts = f"{row['covers']:,} covers"
        if row["unique"] is not None:
            counts += f", {row['unique']:,} unique, {row['total']:,} total"
        elif row["status"] != "solved":
            counts += ", unique and total not counted"
        time_text = f" in {row['solve']:.3f} s" if row["solve"] is not None else ""
        workers = f" on {row['workers']} workers" if row["workers"] != 1 else ""
        return f"{head} {counts}{time_text}{workers}"
    if not row["message"] and row["status"] == "timeout" and row["solve"] is not None:
        return f"{head} after {row['solve']:.1f} s"
    return f"{head} {row['message']}".rstrip()


def proof_line(reasons: list[str]) -> str:
    """The ``-v`` line of a puzzle a static check proves unsolvable: its first reason, and how many more."""
    return f"  unsolvable without search: {brief_reasons(reasons)}"


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


def default_engines() -> tuple[list[str], list[str]]:
    """Every registered engine available on this machine, and a line for each of the others saying why not.

    A column of ``skip`` for an engine that cannot run here (the GPU engine
    without a device) would only crowd the table; the lines follow the
    verdict instead.
    """
    specs, absent = [], []
    for name in standalone_engines():
        engine = get_engine(name)
        if engine.available():
            specs.append(name)
        else:
            absent.append(f"not run here: {name} ({engine.missing()})")
    return specs, absent


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
    if given is not None:
        return check_output(given, "--output-file", inputs)
    check_directory(results.DIRECTORY, "results folder", "give --output-file FILE elsewhere, or --no-save")
    return None


def plan(files: list[str], args, specs: list[str]) -> list[tuple[str, list[tuple], list[str]]]:
    """``(file, [(puzzle, parse seconds, expected, engine specs to run)], errors)`` of each file, before any search.

    A quick run (``--skip-slow``) leaves out what ``expected.toml`` marks:
    puzzles ``slow`` or ``quick = false``, and on a puzzle its ``slow_engines``.
    Known before the first search, the runs planned are what the bar counts.
    """
    names = {spec: get_engine(spec).name for spec in specs}
    out = []
    for file in files:
        errors: list[str] = []
        chosen = []
        for puzzle, parse_seconds in load_puzzles(file, errors, args.mirror, args.input_format):
            try:
                expected = expected_for(puzzle)
            except BenchError as exc:
                # the puzzle still runs, its engines compared with each other only
                errors.append(str(exc))
                expected = None
            quick = args.skip_slow and expected is not None
            if quick and not expected.in_quick_run:
                continue
            slow = expected.slow_engines if quick else ()
            chosen.append((puzzle, parse_seconds, expected, [spec for spec in specs if names[spec] not in slow]))
        out.append((file, chosen, errors))
    return out


def write_html_report(document: dict, path: Path) -> str:
    """The HTML report beside the result file (``run-....html``); returns what to tell the user.

    The run's outcome never depends on it: a library missing or a file that
    cannot be written is said, not raised.

    When it cannot be written, an earlier run's report of that name is
    removed: left beside the new results, it would be read as theirs.
    """
    html_path = path.with_suffix(".html")
    try:
        # lazy: the HTML report draws with matplotlib, loaded only when the report is written
        from bench.comparison.pages import render_html

        write_atomic(html_path, render_html([(str(path), document)]), "HTML report")
    except ModuleNotFoundError as exc:
        if exc.name not in OPTIONAL_FOR_HTML:
            raise
        return (f"bench: HTML report not written: {exc.name} is not installed (pip install jinja2 matplotlib, or "
                f"pip install -e . again); bench report --html {path} writes it later{_remove_stale(html_path)}")
    except UsageError as exc:
        return f"bench: HTML report not written: {exc}{_remove_stale(html_path)}"
    return f"HTML report written to {html_path}"


def _remove_stale(html_path: Path) -> str:
    """Remove an earlier report at ``html_path`` (a regular file or a link, never a link's target); what was done."""
    if not (html_path.is_symlink() or html_path.is_file()):
        return ""
    try:
        html_path.unlink()
    except OSError as exc:
        return f"; the earlier report {html_path} could not be removed ({exc.strerror}): it is not this run's"
    return f"; the earlier report {html_path} was removed"


def tell(text: str) -> None:
    """A message on standard error, control characters escaped (:func:`bench.text.escape`: it quotes file and
    piece names), wrapped at 120 columns (a path is never broken)."""
    print("\n".join(textwrap.wrap(escape(text), summary.WIDTH, subsequent_indent="  ", break_long_words=False,
                                  break_on_hyphens=False)), file=sys.stderr)


def cmd_run(args) -> int:
    """Run the comparison; returns 1 on a count mismatch or an engine error."""
    use_engines_file(args)
    specs, absent = (parse_engines(args.engine), []) if args.engine is not None else default_engines()
    if not args.paths:
        args.paths, args.skip_slow = [str(DEFS)], True
    run_settings = {"engines": specs, "timeout": args.timeout, "rounds": args.rounds, "mode": args.mode,
               "redundancy": args.redundancy, "redundancy_method": args.redundancy_method,
               "volume_filter": args.volume_filter, "parity_filter": args.parity_filter, "fit_filter": args.fit_filter,
               "fit_rounds": args.fit_rounds, "mirror": args.mirror}
    chooser = shared_configuration(args, specs)
    configuring = get_engine(chooser) if chooser is not None else None
    if chooser is None and args.redundancy is None:
        args.redundancy = "#"
    run_settings["redundancy"] = "auto" if chooser is not None else args.redundancy
    run_settings["configured_by"] = chooser
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
        run_settings["workers"] = parallel.workers if parallel.cluster is None else parallel.cluster
        run_settings["split_every_search"] = parallel.explicit
    document = results.new_document(["bench", "run", *args.paths], run_settings)
    path = None if args.no_save else output_path(args.results, args.paths)
    files = distinct_files(definition_files(args.paths))
    labels = file_labels(files)
    if not args.no_save and path is None:
        path = results.reserve(document)
    errors: list[str] = []
    interrupted = False
    progress = RunProgress(0, verbose=args.verbose)
    try:
        prefetch(specs)
        progress.status("reading the puzzles")
        planned = plan(files, args, specs)
        progress.drop(-sum(len(runs) for _, chosen, _ in planned for *_, runs in chosen) * args.rounds)
        for file, chosen, file_errors in planned:
            for puzzle, parse_seconds, expected, runs in chosen:
                progress.puzzle(puzzle_key(puzzle, labels[file]))
                try:
                    try:
                        prepared = prepare(puzzle, request, configuring, cache=args.cache)
                    except Unsupported:
                        # the configuring engine cannot solve this puzzle (a matrix, optional cells): the cover every
                        # engine shares is encoded without its choices, and its own row says why it skipped
                        prepared = prepare(puzzle, request, None, cache=args.cache)
                except BenchError as exc:
                    file_errors.append(puzzle_error(puzzle, exc))
                    progress.drop(len(runs) * args.rounds)
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
                progress.say(f"{entry['key']}: {cover.n_options} options, {cover.n_items} items")
                reasons = [] if args.no_static_check else prepared.reasons
                if reasons:
                    rows = static_proof_rows(entry, specs, reasons)
                    progress.say(proof_line(reasons))
                    progress.drop(len(runs) * args.rounds)
                else:
                    rows = skipped_rows(entry, [spec for spec in specs if spec not in runs], SLOW)
                    if runs:
                        rows += solve_rounds(entry, cover, runs, args.rounds, args.mode, args.timeout,
                                             warm_up(runs, cover, settings, progress), parallel, progress, settings)
                document["rows"].extend(rows)
                document["validation"].extend(validate(entry, rows))
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
    print(summary.verdict(document), flush=True)
    for message in dict.fromkeys(errors + absent):
        tell(message)
    if path is not None:
        results.save(document, path)
        tell(f"results written to {path}")
        if not args.no_html and not interrupted:
            progress = RunProgress(None)
            progress.status("writing the HTML report")
            try:
                written = write_html_report(document, path)
            finally:
                progress.close()
            tell(written)
    if interrupted:
        print(f"bench: stopped by {signals.signal_name(stop)}; the finished puzzles are kept", file=sys.stderr)
        return signals.exit_status(stop)
    compared = [p for p in document["validation"] if p["kind"] != INPUT]
    for problem in compared:
        tell(f"{problem['kind'].upper()}: {problem['puzzle']}: {problem['message']}")
    return 1 if compared else 2 if errors else 0
