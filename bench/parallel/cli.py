"""Command-line options for splitting a solve, shared by ``bench solve`` and ``bench run``."""

from __future__ import annotations

from pathlib import Path

from bench.engines import Result
from bench.errors import UsageError
from bench.parallel.runner import (SUBPROBLEMS_PER_WORKER, ParallelOptions, default_workers, resolved_settings,
                                   solve_parallel, splittable, worth_splitting)

JOURNAL_DIR = Path("results") / "journals"


def add_parallel_arguments(parser) -> None:
    """``--workers``, ``--cluster`` and ``--split-depth``."""
    parser.add_argument("-w", "--workers", type=int, metavar="N",
                        help=f"worker processes (default: every core, {default_workers()} here, once random paths say "
                             "the search is worth splitting; 1 keeps everything in one process)")
    parser.add_argument("--cluster", metavar="tcp://HOST:PORT",
                        help="solve the sub-problems on this Dask scheduler's workers (they need bench installed)")
    parser.add_argument("--split-depth", type=int, metavar="D",
                        help=f"split the search D levels deep (default: deep enough for {SUBPROBLEMS_PER_WORKER} "
                             "sub-problems per worker, the large ones one level deeper)")


def parallel_options(args) -> ParallelOptions | None:
    """The split asked for on the command line; None when the user asked for one process."""
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be >= 1")
    if args.split_depth is not None and args.split_depth < 1:
        raise UsageError("--split-depth must be >= 1")
    resume = getattr(args, "resume", False)
    explicit = args.cluster is not None or resume or (args.workers or 1) > 1 or args.split_depth is not None
    if args.workers == 1 and args.cluster is None and not resume:
        return None
    return ParallelOptions(workers=args.workers or default_workers(), cluster=args.cluster,
                           journal=getattr(args, "journal", None),
                           journal_dir=JOURNAL_DIR if hasattr(args, "journal") else None,
                           resume=resume, depth=args.split_depth, progress=getattr(args, "progress", None),
                           explicit=explicit)


def solve_maybe_parallel(cover, engine, settings, limits, options: ParallelOptions | None, printing: bool,
                         on_solutions=None, on_trace=None) -> Result:
    """Split the solve when asked to, or by default when it is large and nothing needs one search; else solve it."""
    if options is not None:
        reason = splittable(engine, settings, limits) or ("solutions are printed in search order by one process"
                                                          if printing else None)
        if reason is None and options.workers == 1 and not options.cluster and not options.resume:
            reason = "one worker"
        if reason is not None:
            if options.explicit:
                raise UsageError(f"cannot split this solve: {reason} (use --workers 1, or --quiet to count only)")
        elif options.explicit or worth_splitting(cover, resolved_settings(engine, cover, settings)):
            return solve_parallel(cover, engine, settings, options, limits)
    return engine.solve(cover, settings, limits, on_solutions=on_solutions, on_trace=on_trace)


def sample_spec(text: str) -> tuple[int, int, int]:
    """``T[,R[,SEED]]`` of ``--sample``: trials, pieces left where a path stops, seed."""
    parts = text.split(",")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise UsageError(f"--sample {text}: expected T[,R[,SEED]] as integers, e.g. 1000,0,1") from None
    if not 1 <= len(values) <= 3 or values[0] < 1 or (len(values) > 1 and values[1] < 0):
        raise UsageError(f"--sample {text}: expected T >= 1 trials, then R >= 0 pieces left and a seed")
    trials, goal, seed = (values + [0, 1][len(values) - 1:])[:3]
    return trials, goal, seed
