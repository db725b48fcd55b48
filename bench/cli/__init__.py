"""The ``bench`` command line.

Subcommands:

``bench solve FILE...``
    Solve puzzles with one engine, polycube-style (see :mod:`bench.cli.solve`).
``bench run PATH...``
    Every engine on the same matrix, counts cross-validated, results stored
    under ``results/`` (see :mod:`bench.cli.run`).
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
import os
import sys

from bench import __version__
from bench.cli import estimate, info, report, run, solve
from bench.errors import BenchError


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``bench`` command."""
    parser = argparse.ArgumentParser(prog="bench", description="Exact-cover tiling puzzles: one matrix, many engines, counts that agree.")
    parser.add_argument("--version", action="version", version=f"bench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    info.add_parsers(sub)
    solve.add_parser(sub)
    run.add_parser(sub)
    estimate.add_parser(sub)
    report.add_parsers(sub)
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
