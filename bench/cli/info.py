"""``bench info`` and ``bench check``: what a definition holds, without solving it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.cli.arguments import (add_memory_argument, add_mirror_argument, add_redundancy_arguments, definition_path,
                                 memory_limit)
from bench.cli.inputs import definition_files, load_puzzles, puzzle_error
from bench.cli.output import format_facts, puzzle_facts
from bench.cli.syntax import suggestion
from bench.engines import engine_names
from bench.errors import BenchError
from bench.formats import matrix_format
from bench.models.definition import parse_file
from bench.models.diagnose import unsolvable_reasons
from bench.models.expected import FILE_NAME, expected_for, read_expected
from bench.session.prepare import Request, prepare, redundancy_argument
from bench.text import escape


def add_parser(sub, name: str, help: str) -> None:
    """Register ``info`` or ``check`` (``name``)."""
    if name == "check":
        check = sub.add_parser("check", help=help)
        check.add_argument("paths", nargs="+", type=definition_path, metavar="PATH",
                           help="definition files, matrices or directories (searched for *.txt, *.xcc and *.dlx)")
        add_mirror_argument(check)
        add_memory_argument(check)
        check.set_defaults(func=cmd_check)
        return
    info = sub.add_parser("info", help=help)
    info.add_argument("files", nargs="+", type=definition_path, metavar="FILE",
                      help="definition files or directories; - reads standard input")
    add_redundancy_arguments(info, default="#")
    add_mirror_argument(info)
    info.add_argument("--json", action="store_true", help="print one JSON list instead of KEY=value lines")
    add_memory_argument(info)
    info.set_defaults(func=cmd_info)


def cmd_info(args) -> int:
    """``bench info``: the facts polycube's ``-i`` prints before a search."""
    errors: list[str] = []
    results = []
    request = Request(redundancy=redundancy_argument(args.redundancy), redundancy_method=args.redundancy_method,
                      max_memory=memory_limit(args))
    for path in definition_files(args.files):
        for puzzle, parse_seconds in load_puzzles(path, errors, args.mirror):
            try:
                prepared = prepare(puzzle, request)
                results.append(puzzle_facts(puzzle, prepared.cover, {"parse": parse_seconds, **prepared.timings}))
            except BenchError as exc:
                errors.append(puzzle_error(puzzle, exc))
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for i, facts in enumerate(results):
            if i:
                print()
            print("\n".join(format_facts(facts)))
    for message in errors:
        print(escape(message), file=sys.stderr)
    return 2 if errors else 0


def check_expected_file(directory: str) -> list[str]:
    """Problems with the entries of a directory's ``expected.toml``."""
    problems = []
    try:
        recorded, bad = read_expected(directory)
    except BenchError as exc:
        return [str(exc)]
    problems.extend(bad.values())
    for key in sorted(recorded):
        name, _, index = key.partition("#")
        target = Path(directory) / name
        where = f"{Path(directory) / FILE_NAME}: [\"{key}\"]"
        for engine in recorded[key].slow_engines:
            if engine not in engine_names():
                problems.append(f"{where}: slow_engines names '{engine}', not an engine{suggestion(engine, engine_names())}")
        if not target.is_file():
            problems.append(f"{where} names a file that does not exist")
            continue
        try:
            count = 1 if matrix_format(str(target)) else len(parse_file(target))
        except BenchError:
            continue
        if index and (not index.isdigit() or not 1 <= int(index) <= count):
            problems.append(f"{where} names puzzle {index} but {name} holds {count} puzzle(s)")
    return problems


def cmd_check(args) -> int:
    """``bench check``: parse and encode without solving; static proofs and ``expected.toml`` problems."""
    errors: list[str] = []
    directories = set()
    for path in definition_files(args.paths):
        if path != "-":
            directories.add(str(Path(path).parent.resolve()))
        for puzzle, _ in load_puzzles(path, errors, args.mirror):
            try:
                cover = prepare(puzzle, Request(max_memory=memory_limit(args))).cover
            except BenchError as exc:
                errors.append(puzzle_error(puzzle, exc))
                continue
            try:
                expected = expected_for(puzzle)
            except BenchError as exc:
                errors.append(str(exc))
                expected = None
            reasons = unsolvable_reasons(cover)
            if puzzle.geometric:
                X, Y, Z = puzzle.dims
                lattice = "" if puzzle.lattice.name == "cubic" else f" {puzzle.lattice.name}"
                what = (f"{X}x{Y}x{Z}{lattice}, {sum(s.multiplicity for s in puzzle.shapes)} pieces in "
                        f"{len(puzzle.shapes)} shapes")
            else:
                what = f"a matrix ({puzzle.definition.format}), {cover.n_items} items"
            summary = f"{what}, {cover.n_options} options, group of order {puzzle.group.order} ({puzzle.convention})"
            if expected and expected.unique is not None:
                summary += f", expected {expected.unique} unique / {expected.total} total"
            print(f"{'unsolvable' if reasons else 'ok':<11} {escape(puzzle.name)}: {summary}")
            for reason in reasons:
                print(f"    {reason}")
    for directory in sorted(directories):
        errors.extend(check_expected_file(directory))
    for message in dict.fromkeys(errors):
        print(escape(message), file=sys.stderr)
    return 2 if errors else 0
