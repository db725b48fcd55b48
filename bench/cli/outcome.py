"""What a finished solve tells the user: its count line, the warning of a search cut short, the exit status.

After every puzzle ``bench solve`` writes one count line on standard
error (so it never mixes with solutions)::

    defs/tetriscube.txt: 9839 covers, 9839 unique, 236136 total in 7.390 s (fila, solved)

and, when a limit or a signal cut the search short, a warning saying what
stopped it and that the counts are partial.  The exit statuses are those
of :data:`EXIT_STATUS_HELP`.
"""

from __future__ import annotations

from bench.system import signals
from bench.cli.facts import escape
from bench.engines import Limits, Result, Status

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LIMIT = 0, 1, 2, 3

EXIT_STATUS_HELP = """exit status:
  0    every search finished (or stopped at --max-solutions, as asked)
  1    an engine failed (bench run: or counts disagree)
  2    bad input: a definition, an option or a file
  3    --time-limit or --node-limit cut a search short: its counts are partial
  128+N  signal N stopped the run (130 Ctrl-C, 129 SIGHUP, 143 SIGTERM): counts partial,
       a split run continues with --resume"""


def count_line(name: str, result: Result) -> str:
    """``NAME: C covers, U unique, T total in S s (ENGINE, STATUS)``; unique and total where the engine knows them."""
    parts = [f"{result.covers if result.covers is not None else '?'} covers"]
    if result.unique is not None:
        parts += [f"{result.unique} unique", f"{result.total} total"]
    seconds = result.timings.get("solve", 0.0)
    status = result.status.value + ("" if result.status == Status.SOLVED else ", partial")
    return f"{escape(name)}: {', '.join(parts)} in {seconds:.3f} s ({result.engine}, {status})"


def stopped_by(result: Result, limits: Limits) -> str | None:
    """What cut the search short (None when it finished, failed, or stopped at ``--max-solutions`` as asked)."""
    if result.status == Status.TIMEOUT:
        return f"--time-limit {limits.time_limit:g} s" if limits.time_limit is not None else "a time limit"
    if result.status == Status.INTERRUPTED:
        signum = signals.stop_requested()
        return signals.signal_name(signum) if signum is not None else "an interrupt"
    if result.status == Status.LIMIT and not reached_max_solutions(result, limits):
        return f"--node-limit {limits.node_limit}" if limits.node_limit is not None else "a limit"
    return None


def reached_max_solutions(result: Result, limits: Limits) -> bool:
    """True when the search stopped because it found the ``--max-solutions`` covers asked for."""
    return (result.status == Status.LIMIT and limits.max_solutions is not None and result.covers is not None
            and result.covers >= limits.max_solutions)


def warning(name: str, result: Result, limits: Limits) -> str | None:
    """The warning line of a search a limit or a signal cut short (None otherwise)."""
    cause = stopped_by(result, limits)
    if cause is None:
        return None
    hint = f"; {result.message}" if result.message else ""
    return f"warning: {escape(name)}: {cause} stopped the search; the counts are partial{hint}"


def exit_status(errors: bool, failed: bool, limited: bool) -> int:
    """The status of a command that was not stopped by a signal (that one is :func:`bench.system.signals.exit_status`)."""
    if errors:
        return EXIT_USAGE
    if failed:
        return EXIT_FAILED
    return EXIT_LIMIT if limited else EXIT_OK
