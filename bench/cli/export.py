"""``bench export``: the exact matrix an engine would solve, in an exchange format (:mod:`bench.formats`).

The puzzle is encoded as ``bench solve`` encodes it, with the same
redundancy and one-shot filter options (off unless asked for), and written
in Knuth's format (``xcc``), as DIMACS CNF (``dimacs``) or as JSON
(``json``), on standard output or into ``--output-file``.  A header names
the puzzle, the filters and the cover hash, so a count made elsewhere can
be matched to the matrix it counts.
"""

from __future__ import annotations

import argparse
import sys

from bench.cli.arguments import (add_filter_arguments, add_format_argument, add_memory_argument, add_mirror_argument,
                                 add_redundancy_arguments, definition_path, integer, output_file, word)
from bench.cli.inputs import load_puzzles, request_from
from bench.errors import UsageError
from bench.formats import FORMATS, get_format
from bench.session.prepare import prepare
from bench.system.files import check_output, write_atomic

EXAMPLES = """examples:
  bench export defs/pentominoes_10x6.txt --format xcc > 10x6.xcc       # Knuth's format, no filter
  bench export -r -V defs/pentominoes_10x6.txt --format dimacs --output-file 10x6.cnf
  bench export defs/somacube.txt --format json --output-file soma.json  # reads back with the same hash
"""


def add_parser(sub, name: str, help: str) -> None:
    """Register ``bench export`` (``name``)."""
    p = sub.add_parser(name, help=help,
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Encode a puzzle as bench solve does (the same filter options) and write the "
                                   "exact-cover matrix in an exchange format, with a header naming the puzzle, the "
                                   "filters and the cover hash.", epilog=EXAMPLES)
    p.add_argument("file", type=definition_path, metavar="FILE",
                   help="a definition file (or a matrix in Knuth's format, *.xcc, to convert); - reads standard input")
    p.add_argument("--format", type=word("a format name"), required=True, metavar="FORMAT",
                   help=f"the format written: {', '.join(sorted(FORMATS))}")
    p.add_argument("--output-file", type=output_file, metavar="OUT", help="write here (default: standard output)")
    p.add_argument("--puzzle", type=integer(1, what="a puzzle number"), default=1, metavar="K",
                   help="the K-th puzzle of a file that holds several (default 1)")
    add_format_argument(p, "--input-format")
    add_redundancy_arguments(p, default=None)
    add_filter_arguments(p, in_search=False)
    add_mirror_argument(p)
    add_memory_argument(p)
    p.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    """Write the matrix; returns the exit status."""
    writer = get_format(args.format)
    for name in ("volume", "parity", "fit"):
        value = getattr(args, f"{name}_filter")
        if value is not None and value > 0:
            raise UsageError(f"--{name}-filter {value} filters at search nodes; an exported matrix can hold only the "
                             f"one-shot filter (--{name}-filter alone)")
    if args.output_file is not None:
        check_output(args.output_file, "--output-file")
    errors: list[str] = []
    puzzles = [puzzle for puzzle, _ in load_puzzles(args.file, errors, args.mirror, args.input_format)]
    if errors:
        raise UsageError(errors[0])
    if args.puzzle > len(puzzles):
        raise UsageError(f"{args.file} holds {len(puzzles)} puzzle(s); --puzzle {args.puzzle} is not one of them")
    puzzle = puzzles[args.puzzle - 1]
    prepared = prepare(puzzle, request_from(args))
    text = writer.write(prepared.cover, header(puzzle, prepared, writer.NAME))
    if args.output_file is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_atomic(args.output_file, text, "--output-file")
        print(f"{puzzle.name}: {prepared.cover.n_options} options written to {args.output_file} ({writer.NAME})",
              file=sys.stderr)
    return 0


def header(puzzle, prepared, fmt: str) -> dict[str, str]:
    """What the exported file says about itself: the puzzle, the filters, the cover hash, what a count means."""
    cover = prepared.cover
    if puzzle.geometric:
        X, Y, Z = puzzle.dims
        pieces = sum(s.multiplicity for s in puzzle.shapes)
        source = (f"{puzzle.name}: {X}x{Y}x{Z} {puzzle.lattice.name}, {pieces} pieces in {len(puzzle.shapes)} "
                  f"shapes, {puzzle.n_open} open cells")
    else:
        source = f"{puzzle.name}: a matrix read as {puzzle.definition.format}"
    red = cover.redundancy
    filters = [f"redundancy filter on piece {red.piece} ({prepared.request.redundancy_method or 'orientation'}: "
               f"{len(red.kept)} of its {red.images} images kept)" if red else "no redundancy filter"]
    filters += [f"{key.removesuffix('_ONE_SHOT').lower().replace('_', ' ')} (one-shot): {value} options removed"
                for key, value in prepared.filters.items() if key.endswith("_ONE_SHOT")]
    order = cover.symmetry.order
    if order == 1:
        counts = "each cover is one solution (no symmetry): unique = total = covers"
    elif fmt == "json":
        counts = f"unique solutions up to a group of order {order} ({puzzle.convention}), from the symmetry tables"
    else:
        counts = (f"covers of this matrix; unique and total need the symmetry group (order {order}, "
                  f"{puzzle.convention}), which only --format json keeps")
    return {
        "": f"written by bench export ({fmt})",
        "puzzle": source,
        "filters": "; ".join(filters),
        "cover hash": cover.hash,
        "matrix": f"{cover.n_options} options, {cover.n_items} items ({cover.n_cells} cells)",
        "counts": counts,
        "convention": puzzle.convention,
    }
