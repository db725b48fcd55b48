"""``bench solve``: the polycube-style front end.

It takes polycube's options as long flags (with polycube's short letters
where they do not clash), solves every puzzle of every file with one engine,
prints solutions in polycube's formats and, with ``--info``, the
configuration, the puzzle facts and the search statistics as ``KEY=value``
lines.  ``--json`` prints one JSON document for scripts instead.

This module builds the parser and reads the options; the search and what
it prints are :mod:`bench.cli.solving`'s, imported only when a solve runs
(the parser is built for every command, ``--help`` included).
"""

from __future__ import annotations

import argparse
import gc

from bench import __version__
from bench.cli.options import (add_cache_argument, add_drawing_arguments, add_engines_file_argument,
                               add_filter_arguments, add_format_argument, add_memory_argument, add_mirror_argument,
                               add_parallel_arguments, add_redundancy_arguments, sample_spec)
from bench.cli.outcome import EXIT_STATUS_HELP
from bench.cli.syntax import OptionalValue, Switch
from bench.cli.values import definition_path, integer, output_file, seconds, word
from bench.engines import engine_names


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


def add_parser(sub) -> None:
    """Register the ``solve`` subcommand, its options grouped by purpose with examples."""
    p = sub.add_parser("solve", help="solve puzzles polycube-style and print their solutions",
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

    fila = _group(p, "FILA", "The hand-off from DLX to FILA (polycube's -f and -n).", "FILA")
    fila.add_argument("-f", "--fila", type=integer(0, what="a count of pieces"), metavar="N",
                      help="hand each branch from DLX to FILA when N pieces remain (0: DLX only; default for fila: "
                           "all but the first)")
    fila.add_argument("-n", "--nof", action=Switch, default=None,
                      help="FILA's neighbour occupancy filtering (default on; -n0 turns it off)")
    fila.add_argument("--no-nof", dest="nof", action="store_false", help="the same as -n0")

    output = _group(p, "output", "What is printed (solutions on standard output, the count line on standard "
                                 "error).", "output")
    output.add_argument("-q", "--quiet", action=Switch, help="do not print solutions")
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
    p.set_defaults(func=run)


def run(args) -> int:
    """Solve every puzzle of ``args.files`` (:func:`bench.cli.solving.run`); returns the exit status.

    The cyclic garbage collector waits until the first puzzle is solved:
    importing numpy and numba and loading the kernels make a few hundred
    thousand objects, all kept, which its passes walk again and again for
    nothing (0.03 s of the 0.4 s a cached 10x6 solve takes).
    """
    gc.disable()
    try:
        # lazy: `bench --help` and the other commands build this parser without importing the engines
        from bench.cli import solving

        return solving.run(args)
    finally:
        gc.enable()
