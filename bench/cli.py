"""The ``bench`` command line.

Subcommands:

``bench solve FILE...``
    Solve puzzles with one engine, polycube-style (see :mod:`bench.solve`).
``bench run PATH...``
    Every engine on the same matrix, counts cross-validated, results stored
    under ``results/`` (see :mod:`bench.run`).
``bench report RESULT...`` / ``bench compare A B``
    Markdown or CSV from stored result files; what got faster or slower.
``bench info FILE...``
    What polycube's ``-i`` prints before a search, as ``KEY=value`` lines
    (``--json`` for scripts).
``bench check PATH...``
    Parse and encode every definition (directories are searched for
    ``*.txt``), check the ``expected.toml`` beside them, and say why a puzzle
    is unsolvable when a static check proves it.

User errors print one line (``path:line: what was wrong``) and exit with
status 2; only bugs show a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from bench import __version__, estimate, report, results, run, solve
from bench.errors import BenchError
from bench.expected import FILE_NAME, expected_for, load_expected
from bench.facts import format_facts, puzzle_facts
from bench.inputs import definition_files, load_puzzles
from bench.models.cover import Cover
from bench.models.definition import parse_file
from bench.models.diagnose import unsolvable_reasons


def _redundancy_setting(value: str):
    """polycube's ``-r`` argument: ``#`` picks a piece, ``.`` turns the filter off."""
    if value == "#":
        return True
    if value == ".":
        return None
    return value


def cmd_info(args) -> int:
    errors: list[str] = []
    results = []
    for path in args.files:
        for puzzle, parse_seconds in load_puzzles(path, errors):
            try:
                start = time.perf_counter()
                cover = Cover.from_puzzle(puzzle, redundancy=_redundancy_setting(args.redundancy))
                encode_seconds = time.perf_counter() - start
                results.append(puzzle_facts(puzzle, cover, {"parse": parse_seconds, "encode": encode_seconds}))
            except BenchError as exc:
                errors.append(f"{puzzle.name}: {exc}")
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for i, facts in enumerate(results):
            if i:
                print()
            print("\n".join(format_facts(facts)))
    for message in errors:
        print(message, file=sys.stderr)
    return 2 if errors else 0


def check_expected_file(directory: str) -> list[str]:
    """Problems with the entries of a directory's ``expected.toml``."""
    problems = []
    try:
        recorded = load_expected(directory)
    except BenchError as exc:
        return [str(exc)]
    for key in sorted(recorded):
        name, _, index = key.partition("#")
        target = Path(directory) / name
        where = f"{Path(directory) / FILE_NAME}: [\"{key}\"]"
        if not target.is_file():
            problems.append(f"{where} names a file that does not exist")
            continue
        try:
            count = len(parse_file(target))
        except BenchError:
            continue
        if index and (not index.isdigit() or not 1 <= int(index) <= count):
            problems.append(f"{where} names puzzle {index} but {name} holds {count} puzzle(s)")
    return problems


def cmd_check(args) -> int:
    errors: list[str] = []
    directories = set()
    for path in definition_files(args.paths):
        if path != "-":
            directories.add(str(Path(path).parent.resolve()))
        for puzzle, _ in load_puzzles(path, errors):
            try:
                cover = Cover.from_puzzle(puzzle)
                expected = expected_for(puzzle)
            except BenchError as exc:
                errors.append(f"{puzzle.name}: {exc}")
                continue
            reasons = unsolvable_reasons(cover)
            X, Y, Z = puzzle.dims
            summary = (f"{X}x{Y}x{Z}, {sum(s.multiplicity for s in puzzle.shapes)} pieces in {len(puzzle.shapes)} shapes, "
                       f"{cover.n_options} options, group of order {puzzle.group.order}")
            if expected and expected.unique is not None:
                summary += f", expected {expected.unique} unique / {expected.total} total"
            print(f"{'unsolvable' if reasons else 'ok':<11} {puzzle.name}: {summary}")
            for reason in reasons:
                print(f"    {reason}")
    for directory in sorted(directories):
        errors.extend(check_expected_file(directory))
    for message in errors:
        print(message, file=sys.stderr)
    return 2 if errors else 0


def cmd_report(args) -> int:
    documents = [(path, results.load(path)) for path in args.results]
    if args.csv:
        text = "".join(report.render_csv(doc) for _, doc in documents)
    else:
        text = "\n".join(report.render_markdown(doc, source=path) for path, doc in documents)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def cmd_compare(args) -> int:
    table, counts_changed = report.compare(results.load(args.before), results.load(args.after), args.threshold)
    print(table)
    if counts_changed:
        print("counts changed between the two runs on the same matrix", file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``bench`` command."""
    parser = argparse.ArgumentParser(prog="bench", description="Exact-cover tiling puzzles: one matrix, many engines, counts that agree.")
    parser.add_argument("--version", action="version", version=f"bench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    info = sub.add_parser("info", help="print puzzle facts as KEY=value lines (polycube -i, before the search)")
    info.add_argument("files", nargs="+", metavar="FILE", help="definition files; - reads standard input")
    info.add_argument("-r", "--redundancy", default="#", metavar="PIECE",
                      help="piece for the rotational-redundancy filter: # picks one (default), . turns it off")
    info.add_argument("--json", action="store_true", help="print one JSON list instead of KEY=value lines")
    info.set_defaults(func=cmd_info)

    check = sub.add_parser("check", help="parse and encode definitions without solving and list the errors")
    check.add_argument("paths", nargs="+", metavar="PATH", help="definition files or directories (searched for *.txt)")
    check.set_defaults(func=cmd_check)

    solve.add_parser(sub)
    run.add_parser(sub)
    estimate.add_parser(sub)

    rep = sub.add_parser("report", help="render stored result files as Markdown (or CSV); runs no solver")
    rep.add_argument("results", nargs="+", metavar="RESULT", help="result files written by bench run")
    rep.add_argument("--csv", action="store_true", help="CSV instead of Markdown")
    rep.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    rep.set_defaults(func=cmd_report)

    cmp = sub.add_parser("compare", help="what got faster or slower between two result files")
    cmp.add_argument("before", metavar="A")
    cmp.add_argument("after", metavar="B")
    cmp.add_argument("--threshold", type=float, default=0.1, help="relative change counted as noise (default 0.1)")
    cmp.set_defaults(func=cmd_compare)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``bench`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BenchError as exc:
        print(exc, file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``bench solve ... | head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
