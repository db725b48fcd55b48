"""The ``bench`` command line.

Commands, by family (the module of each holds its parser and what it does):

``bench solve FILE...`` / ``bench estimate FILE...`` (:mod:`bench.cli.solve`)
    Solve puzzles with one engine, polycube-style; estimate a search's size
    from random paths without running it.
``bench run PATH...`` (:mod:`bench.cli.run`)
    Every engine on the same matrix, counts cross-validated, results stored
    under ``results/``.
``bench info FILE...`` / ``bench check PATH...`` (:mod:`bench.cli.info`)
    What polycube's ``-i`` prints before a search, as ``KEY=value`` lines
    (``--json`` for scripts); parse and encode every definition, check the
    ``expected.toml`` beside them, and say why a puzzle is unsolvable when a
    static check proves it.
``bench export FILE --format xcc|dimacs|json`` (:mod:`bench.cli.export`)
    The matrix an engine would solve, in an exchange format.
``bench report RESULT...`` / ``bench compare A B`` (:mod:`bench.cli.report`)
    Markdown, HTML or CSV from stored result files; what got faster or slower.

Shared by them: :mod:`bench.cli.arguments` (the values options take and the
options several commands share), :mod:`bench.cli.syntax` (polycube's option
syntax, and the misspelt option named), :mod:`bench.cli.inputs` (paths to
puzzles) and :mod:`bench.cli.output` (what the commands print).

Only the module of the command being run is imported (:data:`COMMANDS`), so
``bench --help`` loads none of them.  User errors print one line
(``path:line: what was wrong``, or ``bench CMD: error: ...`` for a bad
command line) and exit with status 2; only bugs show a traceback.  The
other exit statuses are listed in :data:`bench.cli.output.EXIT_STATUS_HELP`.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
from typing import Iterable

from bench import __version__
from bench.cli import syntax
from bench.cli.syntax import suggestion
from bench.errors import BenchError, UsageError
from bench.system import signals
from bench.system.files import forget_inputs
from bench.text import escape

COMMANDS: dict[str, tuple[str, str]] = {
    "info": ("info", "print puzzle facts as KEY=value lines (polycube -i, before the search)"),
    "check": ("info", "parse and encode definitions without solving and list the errors"),
    "solve": ("solve", "solve puzzles polycube-style and print their solutions"),
    "estimate": ("solve", "estimate a search's nodes, fits and covers from random paths"),
    "run": ("run", "solve every puzzle with several engines, cross-validate counts, store results"),
    "export": ("export", "write the matrix an engine would solve in an exchange format"),
    "report": ("report", "render stored result files as Markdown, HTML or CSV; runs no solver"),
    "compare": ("report", "what differs between two runs, and what got faster or slower"),
}
"""Command -> (module of :mod:`bench.cli` that builds its parser and runs it, one line of help)."""


class Parser(argparse.ArgumentParser):
    """argparse with one line per error, ``bench solve: error: ...`` with a pointer to ``--help``: a :class:`UsageError`."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: error: {escape(message)} (see {self.prog} --help)")


def build_parser(commands: Iterable[str] = tuple(COMMANDS)) -> argparse.ArgumentParser:
    """The argument parser of the ``bench`` command, with the full parsers of ``commands``.

    Every command is listed (``bench --help``); only those of ``commands``
    get their options, which imports their modules: :func:`main` passes
    the one command being run.
    """
    parser = Parser(prog="bench", description="Exact-cover tiling puzzles: one matrix, many engines, counts that agree.")
    parser.add_argument("--version", action="version", version=f"bench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = set(commands)
    for name, (module, help) in COMMANDS.items():
        if name in wanted:
            importlib.import_module(f"bench.cli.{module}").add_parser(sub, name, help)
        else:
            sub.add_parser(name, help=help)
    return parser


def command_of(argv: list[str]) -> str | None:
    """The command word of ``argv`` (its first word that is not an option), or None.

    Raises
    ------
    UsageError
        For a word that names no command, with the closest one.
    """
    for word in argv:
        if word.startswith("-"):
            continue
        if word not in COMMANDS:
            raise UsageError(f"bench: error: unknown command '{escape(word)}'{suggestion(word, COMMANDS)}; expected "
                             f"one of {', '.join(COMMANDS)} (see bench --help)")
        return word
    return None


def polycube_syntax(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` with the subcommand's ``--conf`` files read and its optional values made explicit (:mod:`bench.cli.syntax`).

    An option the subcommand does not know is refused here, by name and with
    the closest one, before argparse reads its value as a file.
    """
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for k, word in enumerate(argv):
        if word in commands:
            command = commands[word]
            rest = syntax.expand_conf(command, argv[k + 1:]) if "--conf" in command._option_string_actions else argv[k + 1:]
            return argv[: k + 1] + syntax.normalize(command, rest)
        if not word.startswith("-"):
            break
    return argv


def exit_now(status: int) -> None:
    """End the program with ``status`` once the exit handlers have run and the standard streams are flushed.

    The interpreter's own tear-down frees every object one by one (numba's
    and LLVM's a hundred thousand of them, whose memory the kernel reclaims
    at once anyway): 0.07 s of every run on an idle machine, 0.2 s on a
    busy one, serial time that no second core can share.  Files ``bench``
    writes are closed (or fsynced) where they are written, never left to
    the tear-down.
    """
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            # a reader gone away, or a stream already closed: nothing more can reach it
            status = status or 1
    os._exit(status)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``bench`` console script; returns the exit status (see :mod:`bench.cli.output`).

    Run as the program (``argv`` None) it does not return: it exits at
    once (:func:`exit_now`), skipping the interpreter's
    tear-down.
    """
    if argv is None:
        exit_now(_main(sys.argv[1:]))
    return _main(list(argv))


def _main(argv: list[str]) -> int:
    """:func:`main` once the arguments are known.

    The command's module (and the numba kernels it imports) loads inside
    the signal handlers, so a Ctrl-C while it loads is answered like any
    other.
    """
    forget_inputs()
    with signals.handled():
        try:
            command = command_of(argv)
            parser = build_parser([command] if command else [])
            args, extra = parser.parse_known_args(polycube_syntax(parser, argv))
            if extra:
                words = " ".join(escape(word) for word in extra)
                raise UsageError(f"bench {command}: error: unexpected argument(s) after the others: {words} "
                                 f"(see bench {command} --help)")
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
