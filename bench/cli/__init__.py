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

User errors print one line (``path:line: what was wrong``, or
``bench CMD: error: ...`` for a bad command line) and exit with status 2;
only bugs show a traceback.  The other exit statuses are listed in
:mod:`bench.cli.outcome`.
"""

from __future__ import annotations

import argparse
import os
import sys

from bench import __version__
from bench.system import signals
from bench.errors import BenchError, UsageError
from bench.system.files import forget_inputs
from bench.text import escape
from bench.cli import syntax
from bench.system.processes import exit_now


class Parser(argparse.ArgumentParser):
    """argparse with one line per error, ``bench solve: error: ...`` with a pointer to ``--help``: a :class:`UsageError`."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: error: {escape(message)} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``bench`` command.

    The commands' modules (and the numba kernels they import) are imported
    here, so that :func:`main` has its signal handlers in place first.
    """
    # here, not at the top: a Ctrl-C while the commands' modules load is then answered like any other
    from bench.cli import estimate, info, report, run, solve

    parser = Parser(prog="bench", description="Exact-cover tiling puzzles: one matrix, many engines, counts that agree.")
    parser.add_argument("--version", action="version", version=f"bench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    info.add_parsers(sub)
    solve.add_parser(sub)
    run.add_parser(sub)
    estimate.add_parser(sub)
    report.add_parsers(sub)
    return parser


def polycube_syntax(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` with the subcommand's ``--conf`` files read and its optional values made explicit (:mod:`bench.cli.syntax`)."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for k, word in enumerate(argv):
        if word in commands:
            command = commands[word]
            rest = syntax.expand_conf(command, argv[k + 1:]) if "--conf" in command._option_string_actions else argv[k + 1:]
            return argv[: k + 1] + syntax.normalize(command, rest)
        if not word.startswith("-"):
            break
    return argv


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``bench`` console script; returns the exit status (see :mod:`bench.cli.outcome`).

    Run as the program (``argv`` None) it does not return: it exits at
    once (:func:`bench.system.processes.exit_now`), skipping the interpreter's
    tear-down.
    """
    if argv is None:
        exit_now(_main(sys.argv[1:]))
    return _main(list(argv))


def _main(argv: list[str]) -> int:
    """:func:`main` once the arguments are known."""
    forget_inputs()
    with signals.handled():
        try:
            parser = build_parser()
            args = parser.parse_args(polycube_syntax(parser, argv))
            return args.func(args)
        except BenchError as exc:
            # a message quotes file and piece names: their control characters never reach the terminal
            print(escape(exc), file=sys.stderr)
            return exc.exit_status
        except KeyboardInterrupt:
            signum = signals.note_interrupt()
            print(f"bench: stopped by {signals.signal_name(signum)}", file=sys.stderr)
            return signals.exit_status(signum)
        except BrokenPipeError:
            # the reader went away (``bench solve ... | head``): stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141


if __name__ == "__main__":
    sys.exit(main())
