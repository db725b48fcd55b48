"""Options shared by the commands, and what they ask of :func:`~bench.session.prepare.prepare` and the parallel runner.

polycube's letters where they do not clash: ``-r`` redundancy filter,
``-V -P -F`` one-shot (and in-search) filters, ``-p -v`` backtrack triggers;
``-w --cluster --split-depth`` split a solve over processes or machines.

Every command's parser is built for every command line (``bench --help``
lists them all), so what the parsers need imports neither numpy nor the
engines: the modules that do work are imported by the functions that use them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.about import DISTRIBUTION
from bench.cli.syntax import OptionalValue, piece_word
from bench.cli.values import MAX_WORKERS, cluster, integer, word
from bench.engines import engine_names
from bench.errors import UsageError
from bench.system.files import check_directory, check_output
from bench.models.methods import REDUNDANCY_METHODS
from bench.models.resources import DEFAULT_MAX_MEMORY, format_size, parse_size
from bench.parallel import SUBPROBLEMS_PER_WORKER, default_workers
import platformdirs


def journal_dir() -> Path:
    """Where split runs keep their journals unless ``--journal`` says otherwise: the user's cache directory."""
    return platformdirs.user_cache_path(DISTRIBUTION) / "journals"


def add_redundancy_arguments(parser, default: str | None, default_help: str | None = None) -> None:
    """``-r [PIECE]`` and ``--redundancy-method`` (``parser`` may be an argument group).

    ``-r`` alone picks a piece (``#``), as in polycube; the next word is its
    piece only when it cannot be a definition file (:mod:`bench.cli.syntax`).
    ``default`` applies without ``-r`` (None: off, or the engine's choice
    for an untuned fila run), described in the help as ``default_help``
    where that says more.
    """
    parser.add_argument("-r", "--redundancy", "--redundancyFilter", action=OptionalValue, implicit="#",
                        accepts=piece_word, type=word("a piece name, # or ."), default=default, metavar="[PIECE]",
                        help="rotational-redundancy filter: # picks a piece, . turns it off, or a piece name "
                             f"(default {default_help or default or '., except for an untuned fila run'})")
    parser.add_argument("--redundancy-method", choices=REDUNDANCY_METHODS,
                        help="orientation (polycube's: one orientation per orbit, then translations) or orbit "
                             "(the smallest image of each orbit, whichever way the piece is drawn); default "
                             "orientation, and orbit where an untuned fila run picks the piece itself")


def add_mirror_argument(parser) -> None:
    """``--mirror``: count unique solutions up to reflections too."""
    parser.add_argument("--mirror", action="store_true",
                        help="count unique solutions up to rotations and reflections (a reflection counts when it "
                             "maps the piece set onto itself, chiral pieces onto their mirror images); a flat "
                             "puzzle already counts so")


def add_filter_arguments(parser, in_search: bool = True) -> None:
    """The filter options of the commands that encode puzzles, as in polycube (``parser`` may be a group).

    ``-V``, ``-P`` and ``-F`` take an optional count N of pieces remaining:
    alone (or -1) the filter runs once before the search; with N > 0 it
    also runs at every search node while at least N pieces remain (DLX's
    part of the native engines); 0 turns it off.  ``in_search`` adds the
    backtrack triggers ``-p`` and ``-v``.
    """
    where = (" and again at each search node while at least N pieces remain" if in_search else
             "; in-search filtering is per engine, as a variant: dlx:V13")
    for short, name, polycube, what in (
            ("-V", "volume", "--volumeFilter", "drop options that wall off a region no remaining pieces can fill"),
            ("-P", "parity", "--parityFilter", "drop options after which the pieces left cannot reach the parity"),
            ("-F", "fit", "--fitFilter", "drop options after which a cell or a piece can no longer be covered")):
        parser.add_argument(short, f"--{name}-filter", polycube, action=OptionalValue, implicit="-1",
                            type=integer(-1, what="a count of pieces (-1: once before the search)"), metavar="[N]",
                            help=f"{name} filter: {what}; once before the search{where} (0: off)")
    parser.add_argument("--fit-rounds", type=integer(0, what="a number of passes"), default=1, metavar="R",
                        help="passes of the fit filter each time it runs (default 1, 0 = until nothing changes)")
    if in_search:
        parser.add_argument("-p", "--parity-backtrack", "--parityBacktrack", action=OptionalValue, implicit="1",
                            type=integer(0, what="a count of pieces"), metavar="[N]",
                            help="backtrack when the pieces left cannot reach the parity of the cells left "
                                 "(checked while at least N pieces remain, default 1)")
        parser.add_argument("-v", "--volume-backtrack", "--volumeBacktrack", type=integer(0, what="a count of pieces"),
                            metavar="N",
                            help="backtrack when a region of open cells has a volume no pieces left add up to, "
                                 "checked while at least N pieces remain")


def engine_list() -> str:
    """Every registered engine, for help texts: the list is the registry's, so a new engine shows at once."""
    return ", ".join(engine_names())


class _MovedO(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        parser.error("-o is the ordering heuristic (polycube's -o, in bench solve and bench estimate); "
                     "name the output file with --output-file FILE")


def add_moved_o(parser) -> None:
    """``-o`` where it once named an output file: one line saying it is now ``--output-file`` (``-o`` is ordering)."""
    parser.add_argument("-o", nargs="?", action=_MovedO, help=argparse.SUPPRESS)


def in_search_settings(args) -> dict:
    """The in-search filter and trigger counts of ``args``, as :class:`~bench.engines.Settings` fields."""
    out = {}
    for name in ("volume", "parity", "fit"):
        value = getattr(args, f"{name}_filter")
        if value is not None and value > 0:
            out[f"{name}_filter"] = value
    if out.get("fit_filter"):
        out["fit_rounds"] = args.fit_rounds
    for name in ("parity_backtrack", "volume_backtrack"):
        value = getattr(args, name, None)
        if value is not None:
            out[name] = value
    return out


def request_from(args, settings=None, tuned: bool = True):
    """The :class:`~bench.session.prepare.Request` of a command line: redundancy, one-shot filters, ``settings``."""
    # lazy: `bench --help` builds every command's parser; what a command needs loads when it runs
    from bench.session.prepare import Request, redundancy_argument

    asked = {name: getattr(args, f"{name}_filter") for name in ("volume", "parity", "fit")}
    on = {name: value not in (None, 0) for name, value in asked.items()}
    kwargs = {} if settings is None else {"settings": settings}
    return Request(redundancy=redundancy_argument(args.redundancy), redundancy_method=args.redundancy_method,
                   redundancy_first=getattr(args, "redundancy_first", False), volume=on["volume"],
                   parity=on["parity"], fit_rounds=args.fit_rounds if on["fit"] else None, tuned=tuned,
                   max_memory=memory_limit(args), **kwargs)


def add_memory_argument(parser) -> None:
    """``--max-memory SIZE``: how much memory a puzzle may need before it is refused (see :mod:`bench.models.resources`)."""
    parser.add_argument("--max-memory", type=_size, default=DEFAULT_MAX_MEMORY, metavar="SIZE",
                        help=f"refuse a puzzle whose estimated memory exceeds SIZE, e.g. 8G or 512M (default "
                             f"{format_size(DEFAULT_MAX_MEMORY)}), before anything large is allocated")


def add_cache_argument(parser) -> None:
    """``--no-cache``: encode afresh, without the cover cache (:mod:`bench.session.cover_cache`)."""
    parser.add_argument("--no-cache", dest="cache", action="store_false",
                        help="encode the puzzle afresh: neither read nor write the cover cache in the user's cache "
                             "directory (BENCH_NO_CACHE=1 does the same)")


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def memory_limit(args) -> int:
    """The ``--max-memory`` of a command line (the default where the command has no such option)."""
    return getattr(args, "max_memory", DEFAULT_MAX_MEMORY)


def add_parallel_arguments(parser) -> None:
    """``--workers``, ``--cluster`` and ``--split-depth`` (``parser`` may be an argument group)."""
    parser.add_argument("-w", "--workers", type=integer(1, MAX_WORKERS, what="a number of processes"), metavar="N",
                        help=f"worker processes (default: every core, {default_workers()} here, once random paths say "
                             "the search is worth splitting; 1 keeps everything in one process)")
    parser.add_argument("--cluster", type=cluster, metavar="tcp://HOST:PORT",
                        help="solve the sub-problems on this Dask scheduler's workers (they need bench installed)")
    parser.add_argument("--split-depth", type=integer(1, what="a number of levels"), metavar="D",
                        help=f"split the search D levels deep (default: deep enough for {SUBPROBLEMS_PER_WORKER} "
                             "sub-problems per worker, the large ones one level deeper)")


def parallel_options(args):
    """The split asked for on the command line (:class:`~bench.parallel.runner.ParallelOptions`); None for one process.

    A journal checkpoints the sub-problems of a split, so ``--journal``
    asks for a split and is refused with ``--workers 1``.
    """
    # lazy: `bench --help` builds every command's parser; what a command needs loads when it runs
    from bench.parallel.runner import ParallelOptions

    if args.cluster is not None:
        # before any work: something else on the port (or nothing) is one line now, not a hang or a run of timeouts
        from bench.parallel.executors import probe_scheduler

        probe_scheduler(args.cluster)
    journal = getattr(args, "journal", None)
    if journal is not None:
        check_output(journal, "--journal", getattr(args, "files", None) or getattr(args, "paths", None) or ())
    resume = getattr(args, "resume", False)
    explicit = (args.cluster is not None or resume or (args.workers or 1) > 1 or args.split_depth is not None
                or journal is not None)
    if args.workers == 1 and args.cluster is None and not resume:
        if journal is not None:
            raise UsageError("--journal checkpoints the sub-problems of a split search, and --workers 1 does not "
                             "split; give --workers 2 or more (or leave --journal out)")
        return None
    return ParallelOptions(workers=args.workers or default_workers(), cluster=args.cluster,
                           journal=Path(journal) if journal is not None else None,
                           journal_dir=journal_dir() if hasattr(args, "journal") else None,
                           resume=resume, depth=args.split_depth, progress=getattr(args, "progress", None),
                           explicit=explicit)


DEFAULT_DRAWN = 100
"""Pictures ``--draw`` writes per puzzle unless ``--draw-max`` says otherwise (about 40 ms each): all 9,356 of
the 10x6 pentominoes took 222 MB and five minutes."""


def add_drawing_arguments(parser) -> None:
    """``--draw DIR``, ``--draw-format`` and ``--gallery``: pictures of the solutions found."""
    parser.add_argument("--draw", type=Path, metavar="DIR",
                        help="draw every solution found (even with -q; -u and --max-solutions bound them) as "
                             "DIR/PUZZLE-NNNN.svg, with a gallery page DIR/PUZZLE.html")
    parser.add_argument("--draw-format", choices=("svg", "png"), default="svg", help="picture format of --draw (default svg)")
    parser.add_argument("--gallery", type=int, default=60, metavar="N",
                        help="solutions shown on --draw's gallery page (default 60)")
    parser.add_argument("--draw-max", type=integer(0, what="a number of pictures"), default=DEFAULT_DRAWN, metavar="N",
                        help=f"pictures --draw writes per puzzle; the solutions after them are counted, not drawn "
                             f"(default {DEFAULT_DRAWN})")


def solution_drawer(args, cover, partial: bool):
    """The sink that draws ``cover``'s solutions for ``--draw``, or None without it."""
    if args.draw is None:
        return None
    if args.gallery < 0:
        raise UsageError(f"--gallery takes a number of solutions >= 0, got {args.gallery}")
    check_drawing_folder(args)
    # lazy: `bench --help` builds every command's parser; what a command needs loads when it runs
    from bench.drawing.gallery import SolutionDrawer

    return SolutionDrawer(cover, args.draw, args.draw_format, args.unique, partial, args.gallery, args.draw_max)


def check_drawing_folder(args) -> None:
    """``--draw DIR`` checked before any search: a folder (made if missing) where files can be written."""
    if args.draw is None:
        return
    if args.draw.exists() and not args.draw.is_dir():
        raise UsageError(f"--draw {args.draw}: not a directory")
    check_directory(args.draw, "--draw")


def sample_spec(text: str) -> tuple[int, int, int]:
    """``T[,R[,SEED]]`` of ``--sample`` (an argparse type): trials, pieces left where a path stops, seed."""
    parts = text.split(",")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected T[,R[,SEED]] as integers, e.g. 1000,0,1; got '{text}'") from None
    if not 1 <= len(values) <= 3 or values[0] < 1 or (len(values) > 1 and values[1] < 0):
        raise argparse.ArgumentTypeError(f"expected T >= 1 trials, then R >= 0 pieces left and a seed; got '{text}'")
    trials, goal, seed = (values + [0, 1][len(values) - 1:])[:3]
    return trials, goal, seed
