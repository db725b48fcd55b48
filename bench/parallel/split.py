"""Cutting a search into independent sub-problems.

A sub-problem is a path from the root of the DLX tree: per level, the
option placed and the options excluded before it.  The splitter runs the
engine's own search (same heuristics, same constraints, the same hand-offs
to FILA) with a goal, so the sub-problems at depth D are exactly the tree's
nodes at that depth, in the order a single search visits them; solving
each with the prefix replayed (:class:`bench.engines.Settings.prefix`)
covers the tree once, so covers, unique and total add up, and so do nodes,
attempts and fits (the splitter counts the levels above D, each sub-problem
those below).  Below the level where FILA takes over, a sub-problem is a
piece of FILA's own tree (:class:`bench.engines.Cut`): the prefix that
leads to FILA's hand-off, and the options FILA places from there, which it
replays itself, so a piece is the same subtree whoever solves it and every
counter adds up at any depth.

Identical pieces need the exclusions: the k-th branch on an item with
multiplicity places the k-th option and keeps the k-1 before it out of
its whole subtree (Knuth's tweak), and a replayed prefix must do the same
or two sub-problems would share covers (:meth:`bench.engines.search.Search.path`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bench.engines.protocol import Cut, Limits, Settings
from bench.kernels import codes
from bench.engines.search import Search


@dataclass(frozen=True)
class SubProblem:
    """One independent part of a search.

    ``ident`` is stable across runs of the same cover and settings: the
    dotted positions of the sub-problem in the splitter's order (a refined
    sub-problem ``7`` becomes ``7.0``, ``7.1``, ...), or for the pieces a
    sub-problem handed back when it spent its budget, its own ident and
    their place (``7/0``, ``7/1``, ...; :attr:`Settings.budget`).
    ``prefix`` is what :attr:`Settings.prefix` replays, ``cut`` the piece
    of FILA's tree below it (:attr:`Settings.cut`); ``generation`` counts
    the hand-backs that led to it and ``budget`` is the one it is solved
    with (neither names it).
    """

    ident: str
    prefix: tuple
    cut: Cut | None = None
    generation: int = 0
    budget: int = 0

    def to_json(self) -> dict:
        """A JSON-ready form (for the journal): what names the sub-problem."""
        out = {"id": self.ident, "prefix": [[o, list(ex)] for o, ex in self.prefix]}
        if self.cut is not None:
            out["cut"] = self.cut.to_json()
        if self.generation:
            out["generation"] = self.generation
        return out

    @classmethod
    def from_json(cls, data: dict) -> "SubProblem":
        """Inverse of :meth:`to_json`."""
        return cls(data["id"], parse_prefix(data["prefix"]),
                   Cut.from_json(data["cut"]) if data.get("cut") is not None else None,
                   int(data.get("generation", 0)))

    def settings(self, settings: Settings) -> Settings:
        """``settings`` restricted to this sub-problem, with its budget."""
        return replace(settings, prefix=self.prefix, cut=self.cut, budget=self.budget)

    def options(self) -> list[int]:
        """The options this sub-problem's prefix and cut place."""
        return [o for o, _ in self.prefix] + list(self.cut.path if self.cut is not None else ())

    def handed_back(self, rest: list[dict]) -> list["SubProblem"]:
        """The pieces this sub-problem handed back (:attr:`Settings.budget`, ``stats["rest"]``) as sub-problems."""
        return [SubProblem(f"{self.ident}/{k}", parse_prefix(piece["prefix"]),
                           Cut.from_json(piece["cut"]) if piece["cut"] is not None else None, self.generation + 1)
                for k, piece in enumerate(rest)]


def parse_prefix(data: list) -> tuple:
    """A prefix from its JSON form: ``[[option, [excluded, ...]], ...]``."""
    return tuple((int(o), tuple(int(e) for e in ex)) for o, ex in data)


@dataclass
class Split:
    """The sub-problems of a search and the splitter's own counters (the levels above them)."""

    subproblems: list[SubProblem]
    stats: dict


def split(cover, settings: Settings, depth: int, parent: SubProblem | None = None, start=None) -> Split:
    """The sub-problems ``depth`` levels below ``parent`` (the root when None), in search order.

    ``settings`` are the engine's settled settings; ``start(cover,
    settings, limits, on_solutions, batch)`` makes the engine's search (a
    DLX :class:`Search` when None, which never hands over to FILA).  A
    branch that ends (a cover, or a dead end) above the depth ends there: a
    cover becomes a sub-problem of its own, a dead end none.  A node where
    FILA searches becomes a piece of FILA's tree (a :class:`Cut` of its
    path), whose node its piece counts.
    """
    base = len(parent.prefix) if parent else 0
    n_pieces = cover.piece_count
    goal = n_pieces - base - depth
    if depth < 1 or goal < 1:
        raise ValueError(f"cannot split {depth} levels below depth {base} of {n_pieces} pieces")
    run = replace(settings, goal=goal, trace=0, prefix=parent.prefix if parent else (), cut=None, budget=0)
    search = (start or Search)(cover, run, Limits(), _ignore, batch=1)
    found: list[SubProblem] = []
    stem = parent.ident + "." if parent else ""
    fila_nodes = 0
    while True:
        code = search._slice(1 << 22)
        if code == codes.BUFFER_FULL:
            # the search stopped at the partial assembly it just recorded: read its path now
            cut = search.sub.cut_here() if search.sub is not None else None
            fila_nodes += cut is not None
            found.append(SubProblem(f"{stem}{len(found)}", search.path(), cut))
            search.state[codes.S_STORED] = 0
        elif code == codes.DONE:
            break
    stats = search.stats()
    stats["nodes"] -= fila_nodes
    return Split(found, stats)


def _ignore(batch, weights) -> None:
    """The splitter reads partial assemblies from the search's state, not from the buffer."""


def options_left(cover, subs: list[SubProblem]) -> np.ndarray:
    """For each sub-problem, the options that share no item with its prefix's placements (a size it costs nothing to read)."""
    left = np.empty(len(subs), dtype=np.int64)
    starts = cover.opt_ptr[:-1]
    for k, sub in enumerate(subs):
        taken = np.zeros(cover.n_items, dtype=bool)
        for option in sub.options():
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
