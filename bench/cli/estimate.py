"""``bench estimate``: the size of a search from random paths, without running it.

Each estimate averages ``--trials`` random root-to-leaf paths of the DLX
tree (Knuth's estimator, :mod:`bench.engines.sampling`) under the same
heuristics and constraints as ``bench solve``; ``--repeat K`` draws K
independent estimates (seeds SEED..SEED+K-1) so the spread shows, and
``--check`` also runs the search and prints each estimate's ratio to the
true node count.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace

from bench.cli.facts import escape
from bench.cli.options import (add_cache_argument, add_filter_arguments, add_memory_argument,
                               add_redundancy_arguments, in_search_settings, request_from)
from bench.cli.values import definition_path, integer, word
from bench.engines import Settings, get_engine
from bench.errors import BenchError
import statistics


def add_parser(sub) -> None:
    """Register the ``estimate`` subcommand."""
    p = sub.add_parser("estimate", help="estimate a search's nodes, fits and covers from random paths",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", type=definition_path, metavar="FILE",
                   help="definition files or directories; - reads standard input")
    add_redundancy_arguments(p, default=None)
    add_filter_arguments(p)
    add_memory_argument(p)
    add_cache_argument(p)
    p.add_argument("-o", "--order", type=word("an ordering spec such as s or f=11"), metavar="SPEC",
                   help="ordering heuristics, as in bench solve (default s)")
    p.add_argument("--trials", type=integer(1, what="a number of paths"), default=1000, metavar="T",
                   help="random paths per estimate (default 1000)")
    p.add_argument("-g", "--goal", type=integer(0, what="a count of pieces"), default=0, metavar="R",
                   help="paths stop with R pieces left (default 0)")
    p.add_argument("--seed", type=integer(0, 2**63 - 1, what="a seed"), default=1,
                   help="seed of the first estimate (default 1)")
    p.add_argument("--repeat", type=integer(1, what="a number of estimates"), default=1, metavar="K",
                   help="independent estimates (default 1)")
    p.add_argument("--check", action="store_true", help="also run the DLX search and compare (slow on big puzzles)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def run(args) -> int:
    """Estimate every puzzle of ``args.files``; returns the exit status."""
    # lazy: `bench --help` builds every command's parser; what a command needs loads when it runs
    from bench.cli.inputs import definition_files, load_puzzles, puzzle_error
    from bench.engines.sampling import estimate_tree
    from bench.session.prepare import prepare

    request = request_from(args, Settings(order=args.order, **in_search_settings(args)))
    errors: list[str] = []
    documents = []
    for path in definition_files(args.files):
        for puzzle, _ in load_puzzles(path, errors):
            try:
                prepared = prepare(puzzle, request, cache=args.cache)
                cover, settings = prepared.cover, prepared.settings
                start = time.perf_counter()
                estimates = [estimate_tree(cover, settings, args.trials, args.seed + k, args.goal)
                             for k in range(args.repeat)]
                seconds = (time.perf_counter() - start) / args.repeat
                true = None
                if args.check:
                    # the estimator samples DLX's tree, so DLX's search is the one to check against
                    true = get_engine("dlx").solve(cover, replace(settings, goal=args.goal)).stats
            except BenchError as exc:
                errors.append(puzzle_error(puzzle, exc))
                continue
            doc = summary(puzzle.name, estimates, seconds, true)
            documents.append(doc)
            if not args.json:
                print("\n".join(f"{k}={escape(v)}" for k, v in doc.items()))
    if args.json:
        print(json.dumps(documents, indent=2))
    for message in errors:
        print(escape(message), file=sys.stderr)
    return 2 if errors else 0


def summary(name: str, estimates: list, seconds: float, true: dict | None) -> dict:
    """The KEY=value lines of one puzzle: median and range of the estimates, and the check."""
    nodes = [e.nodes for e in estimates]
    doc = {"PUZZLE": name, "TRIALS": estimates[0].trials, "ESTIMATES": len(estimates),
           "ESTIMATE_NODES": round(statistics.median(nodes)),
           "ESTIMATE_NODES_MIN": round(min(nodes)), "ESTIMATE_NODES_MAX": round(max(nodes)),
           "ESTIMATE_NODES_P10": round(statistics.median(e.nodes_low for e in estimates)),
           "ESTIMATE_NODES_P90": round(statistics.median(e.nodes_high for e in estimates)),
           "ESTIMATE_FITS": round(statistics.median(e.attempts for e in estimates)),
           "ESTIMATE_COVERS": round(statistics.median(e.covers for e in estimates), 1),
           "SECONDS_PER_ESTIMATE": round(seconds, 4)}
    if true is not None:
        ratios = [n / true["nodes"] for n in nodes]
        doc.update({"NODES": true["nodes"], "FITS": true["fits"],
                    "RATIO_MIN": round(min(ratios), 3), "RATIO_MEDIAN": round(statistics.median(ratios), 3),
                    "RATIO_MAX": round(max(ratios), 3),
                    "WITHIN_FACTOR_2": sum(0.5 <= r <= 2 for r in ratios)})
    return doc
