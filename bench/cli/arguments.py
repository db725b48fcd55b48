"""Reading the command line: the values options take, the options several commands share, the puzzles named.

**Values.**  Each of :func:`integer`, :func:`seconds`, :func:`fraction`,
:func:`word`, :func:`cluster`, :func:`existing_file`,
:func:`definition_path` and :func:`output_file` is an argparse ``type``: it
returns the value or raises :class:`argparse.ArgumentTypeError` saying what
was expected, which the parser turns into ``bench CMD: error: argument
--opt: ...`` and exit status 2.  Numbers must be finite and in range
(``nan``, ``inf`` and ``1e400`` are refused); names must not be empty.

**Shared options**, with polycube's letters where they do not clash:
``-r`` redundancy filter, ``-V -P -F`` one-shot (and in-search) filters,
``-p -v`` backtrack triggers; ``-w --cluster --split-depth`` split a solve
over processes or machines; :func:`parallel_options` says what they ask
of the parallel runner.

Nothing here imports numpy, the models or the engines' modules: every
command's parser is built from these, ``bench report --help`` included.
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

import platformdirs

from bench.about import DISTRIBUTION
from bench.cli.syntax import OptionalValue, piece_word
from bench.engines import engine_names
from bench.errors import UsageError
from bench.models.methods import REDUNDANCY_METHODS
from bench.models.resources import DEFAULT_MAX_MEMORY, format_size, parse_size
from bench.parallel import SUBPROBLEMS_PER_WORKER, ParallelOptions, default_workers
from bench.system.files import check_output

MAX_WORKERS = 1024
"""More worker processes than this is a typo, not a machine."""

CLUSTER_ADDRESS = re.compile(r"^(tcp|tls|ucx|ws|wss)://[^\s:/]+:(\d{1,5})/?$")


def integer(minimum: int | None = None, maximum: int | None = None, what: str = "an integer"):
    """An integer type within ``[minimum, maximum]``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'") from None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            bounds = (f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}" if minimum is not None
                      else f"<= {maximum}")
            raise argparse.ArgumentTypeError(f"expected {what} {bounds}, got {value}")
        return value

    return parse


def real(what: str, minimum: float, inclusive: bool):
    """A finite number above ``minimum`` (or equal to it, ``inclusive``); ``what`` says what is expected (``a number ...``)."""
    bound = f"{'>=' if inclusive else '>'} {minimum:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'") from None
        if not math.isfinite(value) or value < minimum or (value == minimum and not inclusive):
            raise argparse.ArgumentTypeError(f"expected a finite {what.removeprefix('a ')} {bound}, got '{text}'")
        return value

    return parse


seconds = real("a number of seconds", 0, inclusive=False)
"""A finite, positive number of seconds."""
fraction = real("a number", 0, inclusive=True)
"""A finite number >= 0 (a relative change)."""


def word(what: str):
    """A non-empty word without blanks (an ordering spec, a format, an engine list)."""

    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"expected {what}, got an empty value")
        return text.strip()

    return parse


def cluster(text: str) -> str:
    """A Dask scheduler address, ``tcp://HOST:PORT``."""
    match = CLUSTER_ADDRESS.match(text.strip())
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a scheduler address such as tcp://HOST:8786, got '{text}'")
    return text.strip()


def existing_file(text: str) -> str:
    """A path to a regular file that exists (or ``-`` for standard input)."""
    if text == "-":
        return text
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty one")
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"not a regular file: {text}")
    return text


def definition_path(text: str) -> str:
    """A definition file, a directory of them, or ``-`` for standard input."""
    if text == "-":
        return text
    if not text:
        raise argparse.ArgumentTypeError("expected a definition file or directory, got an empty name")
    path = Path(text)
    if not path.exists():
        # a word meant for an option, as "bench solve fila x.txt" for "-e fila"
        hint = f" (to pick the engine, write -e {text})" if text.lower() in engine_names() else ""
        raise argparse.ArgumentTypeError(f"no such file or directory: {text}{hint}")
    if not (path.is_file() or path.is_dir()):
        raise argparse.ArgumentTypeError(f"not a regular file or directory: {text}")
    return text


def output_file(text: str) -> str:
    """A file to write: not empty, not a directory."""
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty one")
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"is a directory, expected a file: {text}")
    return text


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


def add_format_argument(parser, flag: str = "--format") -> None:
    """``--format NAME``: read the files as matrices in an exchange format (:mod:`bench.formats`), any suffix."""
    parser.add_argument(flag, dest="input_format", type=word("a format name"), metavar="NAME",
                        help="read every file as a matrix in this exchange format: xcc (Knuth's, the default for "
                             "*.xcc and *.dlx files) or json (bench export's, the default for *.json)")


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
    return ", ".join(engine_names()) + ", cmd:NAME (a command configured in bench-engines.toml)"


def add_engines_file_argument(parser) -> None:
    """``--engines-file FILE``: where the ``cmd:NAME`` engines are configured (:mod:`bench.engines.command`)."""
    parser.add_argument("--engines-file", type=_engines_file, metavar="FILE",
                        help="the TOML file that configures the cmd:NAME engines (default: $BENCH_ENGINES_FILE, "
                             "./bench-engines.toml, then the user's configuration directory)")


def _engines_file(text: str) -> str:
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    return text


def use_engines_file(args) -> None:
    """Make ``--engines-file`` the one every ``cmd:NAME`` engine reads, here and in the children that solve."""
    if getattr(args, "engines_file", None) is not None:
        # lazy: the command engine's module (1.3 ms) only where its file is named
        import os

        from bench.engines.command import ENV

        # the environment carries it to every engine, in this process and in the processes it starts
        os.environ[ENV] = str(Path(args.engines_file).resolve())


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
                        help=f"split the search D levels deep, FILA's own levels too (default: deep enough for "
                             f"{SUBPROBLEMS_PER_WORKER} sub-problems per worker, down to where FILA takes over; then "
                             "FILA's sub-problems hand back what their node budget leaves, DLX's are split one level "
                             "deeper where large)")


def parallel_options(args):
    """The split asked for on the command line (:class:`~bench.parallel.runner.ParallelOptions`); None for one process.

    A journal checkpoints the sub-problems of a split, so ``--journal``
    asks for a split and is refused with ``--workers 1``.
    """
    if args.cluster is not None:
        # lazy: `bench --help` builds every command's parser; what a command needs loads when it runs
        from bench.parallel.executors import probe_scheduler

        # before any work: something else on the port (or nothing) is one line now, not a hang or a run of timeouts
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
