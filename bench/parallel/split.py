"""Cutting a search into independent sub-problems.

A sub-problem is a path from the root of the DLX tree: per level, the
option placed and the options excluded before it.  The splitter runs the
engine's own DLX levels (same heuristics, same constraints) with a goal, so
the sub-problems at depth D are exactly the tree's nodes at that depth, in
the order a single search visits them; solving each with the prefix
replayed (:class:`bench.engines.Settings.prefix`) covers the tree once,
so covers, unique and total add up, and so do nodes, attempts and fits
(the splitter counts the levels above D, each sub-problem those below) for
DLX.  With FILA the counts add up at any depth, the statistics where FILA
takes over at or below the split depth, which is as deep as the runner cuts
unless told otherwise (:func:`bench.parallel.runner.exact_depth` says why).

Identical pieces need the exclusions: the k-th branch on an item with
multiplicity places the k-th option and keeps the k-1 before it out of
its whole subtree (Knuth's tweak), and a replayed prefix must do the same
or two sub-problems would share covers.  They are read from the positions
past the item's active segment, where the tweaks leave them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bench.engines.protocol import Limits, Settings
from bench.kernels import codes
from bench.engines.search import Search


@dataclass(frozen=True)
class SubProblem:
    """One independent part of a search.

    ``ident`` is stable across runs of the same cover and settings: the
    dotted positions of the sub-problem in the splitter's order (a refined
    sub-problem ``7`` becomes ``7.0``, ``7.1``, ..., or ``7/0``, ``7/1``,
    ... cut in shares); ``prefix`` is what :attr:`Settings.prefix` replays,
    ``share`` what :attr:`Settings.share` takes.
    """

    ident: str
    prefix: tuple
    share: tuple = (0, 1)

    def to_json(self) -> dict:
        """A JSON-ready form (for the journal)."""
        out = {"id": self.ident, "prefix": [[o, list(ex)] for o, ex in self.prefix]}
        if self.share != (0, 1):
            out["share"] = list(self.share)
        return out

    @classmethod
    def from_json(cls, data: dict) -> "SubProblem":
        """Inverse of :meth:`to_json`."""
        return cls(data["id"], tuple((int(o), tuple(int(e) for e in ex)) for o, ex in data["prefix"]),
                   tuple(int(x) for x in data.get("share", (0, 1))))

    def shares(self, count: int) -> list["SubProblem"]:
        """This sub-problem cut in ``count`` shares below FILA's root (:attr:`Settings.share`): ``7/0``, ``7/1``, ..."""
        return [SubProblem(f"{self.ident}/{j}", self.prefix, (j, count)) for j in range(count)]

    def settings(self, settings: Settings) -> Settings:
        """``settings`` restricted to this sub-problem."""
        return replace(settings, prefix=self.prefix, share=self.share)


@dataclass
class Split:
    """The sub-problems of a search and the splitter's own counters (the levels above them)."""

    subproblems: list[SubProblem]
    stats: dict


def split(cover, settings: Settings, depth: int, parent: SubProblem | None = None) -> Split:
    """The sub-problems ``depth`` levels below ``parent`` (the root when None), in search order.

    ``settings`` are the engine's settled settings: the splitter uses their
    ordering heuristics and constraints, never a FILA hand-off.  A branch
    that ends (a cover, or a dead end) above the depth ends there: a cover
    becomes a sub-problem of its own, a dead end none.
    """
    base = len(parent.prefix) if parent else 0
    n_pieces = cover.piece_count
    goal = n_pieces - base - depth
    if depth < 1 or goal < 1:
        raise ValueError(f"cannot split {depth} levels below depth {base} of {n_pieces} pieces")
    run = replace(settings, goal=goal, trace=0, prefix=parent.prefix if parent else ())
    search = Search(cover, run, Limits(), on_solutions=_ignore, batch=1)
    found: list[SubProblem] = []
    stem = parent.ident + "." if parent else ""
    while True:
        code = search._slice(1 << 22)
        if code == codes.BUFFER_FULL:
            # the kernel stopped at the partial assembly it just recorded: read its path now
            found.append(SubProblem(f"{stem}{len(found)}", _path(search, run.prefix)))
            search.state[codes.S_STORED] = 0
        elif code == codes.DONE:
            break
    return Split(found, search.stats())


def _ignore(batch, weights) -> None:
    """The splitter reads partial assemblies from the kernel's state, not from the buffer."""


def _path(search, prefix: tuple) -> tuple:
    """Options and exclusions of the levels the search is at (the kernel is stopped at a leaf)."""
    level = int(search.state[codes.S_LEVEL])
    path = list(prefix)
    for lv in range(len(prefix), level):
        excluded: tuple = ()
        if search.mode[lv] == codes.TWEAKED:
            b = search.branch[lv]
            start = int(search.set_start[b])
            tweaked = search.sets[start + int(search.snap[2 * lv + 1, b]): start + int(search.snap[2 * lv, b])]
            excluded = tuple(int(o) for o in search.node_opt[tweaked])
        path.append((int(search.chosen[lv]), excluded))
    return tuple(path)


def options_left(cover, subs: list[SubProblem]) -> np.ndarray:
    """For each sub-problem, the options that share no item with its prefix's placements (a size it costs nothing to read)."""
    left = np.empty(len(subs), dtype=np.int64)
    starts = cover.opt_ptr[:-1]
    for k, sub in enumerate(subs):
        taken = np.zeros(cover.n_items, dtype=bool)
        for option, _ in sub.prefix:
            taken[cover.opt_items[cover.opt_ptr[option]:cover.opt_ptr[option + 1]]] = True
        clash = np.logical_or.reduceat(taken[cover.opt_items], starts) if cover.n_options else np.zeros(0, bool)
        left[k] = cover.n_options - int(np.count_nonzero(clash))
    return left


def merge_stats(parts: list[dict]) -> dict:
    """Sum machine-independent counters: numbers add, lists add element-wise, ``fila`` totals add (maxima for sizes).

    Strings (the DLX kernel that ran) are kept when every part says the same, else ``"mixed"``.
    """
    out: dict = {}
    for stats in parts:
        for key, value in stats.items():
            if isinstance(value, bool) or value is None:
                continue
            if isinstance(value, str):
                out[key] = value if out.get(key, value) == value else "mixed"
                continue
            if isinstance(value, (int, float, np.integer, np.floating)):
                out[key] = out.get(key, 0) + value
            elif isinstance(value, list):
                have = out.setdefault(key, [0] * len(value))
                if len(have) < len(value):
                    have.extend([0] * (len(value) - len(have)))
                for i, v in enumerate(value):
                    have[i] += v
            elif isinstance(value, dict):
                have = out.setdefault(key, {})
                for k, v in value.items():
                    have[k] = max(have.get(k, 0), v) if k in ("max_cells", "words") else have.get(k, 0) + v
    return out
