"""The configuration of an untuned FILA run, chosen from estimates of each candidate's search.

The candidates are the pieces the redundancy filter may constrain; the rest
of the configuration follows the rules of :mod:`bench.models.tuning` and
:func:`~bench.engines.fila.default_order` (the one-shot volume filter in
2-D, FILA after the first piece, ``f`` along the box's longest side in a
rectangle, ``e`` elsewhere), where estimates do not price another choice
far cheaper: the hand-off one piece later (:func:`_later_handoff`) and,
outside rectangles, the scan alone rather than ``e`` (:func:`_schedule`);
and FILA from the root where DLX's first level would branch on a cell
(:func:`_root_handoff`, read off the cover).
Which piece is constrained decides the size of the tree: on the 12x5
pentominoes FILA searches 0.84 M nodes with X and 7.56 M with Z, on the one-sided 30x3 0.55 M with X and 3.87 M
with z, on the Tetris Cube 79 M with L and 163 M with B, the next best; the
rule this replaces (fewest options left after each kept placement) picked Z
on 12x5 and W on 30x3.  So each candidate's tree is estimated by random
paths through the pipeline's own tree
(:mod:`bench.kernels.pipeline_estimate`), all candidates on one shared
cover, and priced with a cost per node and per image tried.

**Shallow estimates rank.**  Knuth's estimates of a whole tree are
heavy-tailed: with 64 to 256 paths per candidate the whole-tree means put X
first on 10x6 in 5 seeds of 10 (I, whose tree is 3 times X's, often wins).
The candidates differ at the top of the tree, where the constrained piece's
few placements are; below, the subtrees are fillings of like regions by
like pieces.  So the race ranks by the estimated cost of the top
:data:`RANK_DEPTH` levels, which has a fraction of the variance: with 64
or 256 paths, in 10 seeds of 10, X first on 10x6, 12x5, 15x4, the
one-sided 30x3 and the planar pentacubes in 2x5x6, and L on the Tetris
Cube (depth 2 picks G there, polycube's choice, and I second on 2x5x6,
where it is tenth; depths 3 to 5 rank alike, depth 3 costs least).
Every candidate gets :data:`FIRST_TRIALS` paths, then the better half twice
as many, and so on while the sampling stays within :data:`BUDGET_SHARE` of
the leader's predicted solve time (whole-tree paths, priced by the cost
model) and :data:`MAX_BUDGET_SECONDS`.  Work is counted in sampling steps
(options looked at), not seconds, so the piece and the hand-off are the
same on any machine and under any load; the seeds are fixed.

The choice does not depend on how the box and the pieces are drawn as far
as the search does not: the kept images are the smallest of each orbit in
the box's scan order (``orbit``), FILA scans along the longest side, and
the estimate walks the tree the solve will search.

**The schedule is raced on counted work.**  On small trees ``e`` and the scan
differ less in the nodes they search than in what a node and a hand-off
cost, which depend on the lattice (a hexagonal prism's 8 neighbours make
``e``'s hole dearer to choose) and on how many images each cell's lists
hold (``e`` lists an image at every one of its cells, the scan at its
first).  So each schedule runs the real search, in turns of
:data:`RACE_SLICE_NODES` nodes, where the rule's search is predicted small
enough for that, over the same sub-problems, and each is priced by what it
counted (nodes, images tried, images probed while choosing a hole, list
entries built: :func:`race_cost`): the first to lead clearly on the first
ones, or to finish, wins, the rule's ties (:func:`_race`).  No step reads a
clock, so the piece, the hand-off, the schedule and every counter are the
same on any machine under any load; the seeds are fixed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from bench.models.cover import Cover
from bench.models.filters import volume_filter
from bench.models.symmetry import redundancy_for_shape
from bench.models.tuning import filtered_handoff
from bench.toolchain import warmup
from bench.kernels.codes import S_NODES, S_PROBES
from bench.kernels.fila import ESTIMATE, SIZE
from bench.kernels.pipeline_estimate import (E_ATTEMPTS, E_NODES_DLX, E_NODES_FIXED, E_NODES_SEARCHED, E_STEPS,
                                            E_TRIALS, MAX_CELLS, N_E, PipelineArrays, warm_up)
from bench.engines.search import Search

# the cost model, measured on this project's machine (results/tuning.md): seconds per node placed by DLX, by FILA
# with a fixed order (f) and with a searched one (e, s), per image tried, and per sampling step
DLX_NODE_SECONDS = 1.0e-7
FIXED_NODE_SECONDS = 2.0e-8
SEARCHED_NODE_SECONDS = 3.8e-8
ATTEMPT_SECONDS = 3.0e-9
STEP_SECONDS = 7.0e-9
BUDGET_SHARE = 0.05
MAX_BUDGET_SECONDS = 1.5
FIRST_TRIALS = 64
RANK_DEPTH = 3
SEED = 1
# FILA's set-up of one hand-off (its image lists), about 1.3 ms on the Tetris Cube: a later hand-off has as many as
# DLX places nodes above it
HANDOFF_SECONDS = 1.3e-3
HANDOFF_TRIALS = 2048
HANDOFF_PATH_COST = 6.0
"""Steps of a path through both trees (the rule's and the later hand-off's), in paths through the rule's as the
leader's 64 paths measure them: 2 to 3 on the pentacubes, doubled as 64 paths may price them low by half."""
HANDOFF_GAIN = 0.75
"""A hand-off one piece later is taken when its whole tree is priced at most this share of the rule's."""
RACE_BELOW = 0.25
"""The schedules race where the rule's whole search is predicted under this many seconds (:func:`_schedule`): the
race stops after :data:`RACE_NODES`, about 0.1 s, paid once, and a search of this size gains more where the other
schedule wins (the Meteor puzzle: 0.04 s against 0.09 s)."""
RACE_NODES = 2_000_000
"""The race's searches stop after this many nodes in all, undecided (about 0.06 s of FILA on this project's
machine)."""
RACE_SLICE_NODES = 1 << 12
"""Nodes a search of the race runs before the next takes its turn (a turn also ends with a sub-problem)."""
RACE_EVIDENCE = 1e-3
"""Priced seconds the leader of the race must have spent up to a checkpoint for its lead to decide (:func:`_race`)."""
RACE_CLEAR = 1.25
"""A lead decides at a checkpoint when every other search is priced this many times as high to it (:func:`_race`):
a lead on the first sub-problems is the whole search's where it is clear (the scan on the planar pentacubes in 2x3x10
1.54 times as fast on the first of 4, 2.37 on all; ``e`` on the hexiamonds 1.9 times on the first of 7, 7.9 on
all), not where it is close (the hexagonal prisms: the scan 1.12, 1.23, then 1.06 times as fast on the first 1, 2,
3 of 12, 1.44 on all)."""
# the race's prices of FILA's work, in seconds per unit counted, fitted to the solve times of both schedules on
# every bundled puzzle under a second by ``python -m benchmarks.cost_model`` (results/cost-model.md): a node
# placed by FILA under the scan and under e or s (which choose a hole), an image tried, an image probed while
# choosing a hole, an entry and an image of a hand-off's lists built, a hand-off's fixed set-up; DLX's nodes above
# the hand-off are priced as the estimates price them (DLX_NODE_SECONDS)
RACE_SCAN_NODE_SECONDS = 3.8e-8
RACE_SEARCHED_NODE_SECONDS = 5.6e-8
RACE_ATTEMPT_SECONDS = 1.4e-9
RACE_PROBE_SECONDS = 3.3e-9
RACE_LIST_ENTRY_SECONDS = 2.6e-8
RACE_IMAGE_SECONDS = 9.9e-8
RACE_HANDOFF_SECONDS = 2.9e-4
EXACT_GAIN = 0.95
"""Another schedule replaces the rule's when its search takes at most this share of the rule's time."""


@dataclass(eq=False)
class Candidate:
    """One configuration the race considers, with its estimate so far."""

    piece: str
    shape: int
    kept: int
    trials: int = 0
    nodes: float = 0.0
    attempts: float = 0.0
    seconds: float = 0.0
    rounds: int = 0
    sums: np.ndarray = field(default_factory=lambda: np.zeros(N_E))

    def add(self, row: np.ndarray) -> None:
        """Fold more paths (a row of sums from the sampler) into the estimate of the top levels."""
        self.sums = self.sums + row
        self.trials, self.rounds = int(self.sums[E_TRIALS]), self.rounds + 1
        self.nodes, self.attempts, self.seconds = priced(self.sums)

    def to_json(self) -> dict:
        """The candidate's figures: piece, kept images, rounds, paths, and the top levels' nodes, attempts, seconds."""
        return {"piece": self.piece, "shape": self.shape, "kept_images": self.kept, "rounds": self.rounds,
                "trials": self.trials, "nodes": self.nodes, "attempts": self.attempts, "seconds": self.seconds}

    @classmethod
    def from_json(cls, data: dict) -> "Candidate":
        """The candidate :meth:`to_json` recorded (without its raw sums)."""
        return cls(data["piece"], data["shape"], data["kept_images"], data["trials"], data["nodes"], data["attempts"],
                   data["seconds"], data["rounds"])


@dataclass(eq=False)
class Choice:
    """What the automatic configuration chose and why: the candidates' estimates and the budget it spent."""

    piece: str | None
    volume: bool
    order: str
    handoff: int
    candidates: list[Candidate] = field(default_factory=list)
    depth: int = 0
    nodes: float = 0.0
    attempts: float = 0.0
    predicted_seconds: float = 0.0
    reason: str = ""
    budget_seconds: float = 0.0
    steps: float = 0.0
    seconds: float = 0.0
    compile_seconds: float = 0.0
    cover: Cover | None = None
    options_before: int = 0
    counters: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    handoffs: dict = field(default_factory=dict)
    schedules: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """A JSON-ready record of the choice (``--json``'s ``autoconfig``)."""
        return {"redundancy": self.piece, "volume": self.volume, "order": self.order, "fila": self.handoff,
                "reason": self.reason, "rank_depth": self.depth, "nodes": self.nodes, "attempts": self.attempts,
                "predicted_seconds": self.predicted_seconds, "budget_seconds": self.budget_seconds, "sampling_steps": self.steps,
                "sampling_seconds": self.seconds, "compile_seconds": self.compile_seconds, "candidates": [c.to_json() for c in self.candidates],
                "handoffs": {str(h): v for h, v in self.handoffs.items()}, "schedules": self.schedules}

    def __eq__(self, other) -> bool:
        # what was chosen and why, not how long it took; a choice read back from the cover cache has no cover
        timed = ("sampling_seconds", "compile_seconds")
        return isinstance(other, Choice) and all(v == other.to_json()[k] for k, v in self.to_json().items()
                                                 if k not in timed)

    def __hash__(self) -> int:
        return hash(self.piece)

    @classmethod
    def from_json(cls, data: dict) -> "Choice":
        """The choice :meth:`to_json` recorded, without its cover (the cover cache keeps the cover itself).

        Its sampling and compile seconds are this run's, none: the recorded
        ones were the run's that chose (a cached Soma cube said 10 s of
        compiling it had not spent).
        """
        return cls(data["redundancy"], data["volume"], data["order"], data["fila"],
                   [Candidate.from_json(c) for c in data["candidates"]], data["rank_depth"], data["nodes"],
                   data["attempts"], data["predicted_seconds"], data["reason"], data["budget_seconds"],
                   data["sampling_steps"], 0.0, 0.0,
                   handoffs={int(h): v for h, v in data.get("handoffs", {}).items()},
                   schedules=data.get("schedules", {}))

    def lines(self) -> list[str]:
        """``--info``'s ``AUTO_*`` lines: the choice, the budget spent, then each candidate, best first."""
        lines = [f"AUTO_CHOICE={self.piece or '.'}", f"AUTO_REASON={self.reason}",
                 f"AUTO_PREDICTED_NODES={self.nodes:.4g}", f"AUTO_PREDICTED_ATTEMPTS={self.attempts:.4g}",
                 f"AUTO_PREDICTED_SECONDS={self.predicted_seconds:.4g}", f"AUTO_RANK_DEPTH={self.depth}",
                 f"AUTO_SECONDS={self.seconds:.6f}", f"AUTO_COMPILE_SECONDS={self.compile_seconds:.6f}",
                 f"AUTO_BUDGET_SECONDS={self.budget_seconds:.6f}",
                 f"AUTO_SAMPLING_STEPS={int(self.steps)}"]
        for c in self.candidates:
            lines.append(f"AUTO_CANDIDATE[{c.piece}]=rounds={c.rounds}:trials={c.trials}:nodes={c.nodes:.4g}:"
                         f"attempts={c.attempts:.4g}:seconds={c.seconds:.4g}:kept={c.kept}")
        lines.append(f"AUTO_FILA={self.handoff}")
        for h, v in sorted(self.handoffs.items(), reverse=True):
            lines.append(f"AUTO_HANDOFF[{h}]=nodes={v['nodes']:.4g}:attempts={v['attempts']:.4g}:"
                         f"handoffs={v['handoffs']:.4g}:seconds={v['seconds']:.4g}")
        lines.append(f"AUTO_ORDER={self.order}")
        for order, v in self.schedules.items():
            lines.append(f"AUTO_SCHEDULE[{order}]=cost={v['cost']:.6f}:nodes={v['nodes']}:"
                         f"handoffs={v.get('handoffs', 0)}:finished={int(v['finished'])}:won={int(v['won'])}")
        return lines


def priced(sums: np.ndarray) -> tuple[float, float, float]:
    """Nodes, attempts and modelled seconds per path from a row of the sampler's sums."""
    n = max(sums[E_TRIALS], 1.0)
    nodes = (sums[E_NODES_DLX] + sums[E_NODES_FIXED] + sums[E_NODES_SEARCHED]) / n
    seconds = (sums[E_NODES_DLX] * DLX_NODE_SECONDS + sums[E_NODES_FIXED] * FIXED_NODE_SECONDS
               + sums[E_NODES_SEARCHED] * SEARCHED_NODE_SECONDS + sums[E_ATTEMPTS] * ATTEMPT_SECONDS) / n
    return float(nodes), float(sums[E_ATTEMPTS] / n), float(seconds)


class Pipeline(Protocol):
    """What the choice needs of FILA's pipeline (:data:`bench.engines.fila.PIPELINE`)."""

    def schedules(self, cover: Cover, handoff: int) -> list[str]:
        """FILA's schedules to choose among for ``handoff`` pieces left, the rule first."""

    def start(self, cover: Cover, order: str, handoff: int) -> tuple[Search, dict, np.ndarray]:
        """A pipeline search of ``cover`` under schedule ``order``, ready to run: the search, FILA's totals and the
        selection kind per number of pieces left."""


def choose(puzzle, pipeline: Pipeline, method: str = "orbit") -> Choice:
    """The redundancy piece (and the settings around it) an untuned FILA run of ``puzzle`` uses.

    ``pipeline`` lists FILA's schedules to choose among, the rule first,
    and starts the searches the race runs (:class:`Pipeline`).  The
    piece and the hand-off are deterministic (a fixed seed and a budget in
    sampling steps), and so is the schedule (a race priced on counted work,
    :func:`_schedule`).

    Examples
    --------
    >>> import bench
    >>> from bench.engines.fila import PIPELINE
    >>> [p] = bench.load("defs/pentominoes_12x5.txt")
    >>> choose(p, PIPELINE).piece
    'X'
    """
    compile_seconds = warm_up()
    start = time.perf_counter()
    base = Cover.from_puzzle(puzzle)
    encoded = time.perf_counter()
    volume = bool(puzzle.planar)
    cover, removed = volume_filter(base) if volume else (base, 0)
    filtered = time.perf_counter()
    n = cover.piece_count
    partitioned = filtered_handoff(puzzle, n, base.n_options, removed) if volume else None
    handoff = partitioned or max(n - 1, 1)
    order = pipeline.schedules(cover, handoff)[0]
    # the encoding and the filter are the ones every run makes: what the choice costs is the rest
    choice = Choice(None, volume, order, handoff, compile_seconds=compile_seconds, cover=cover,
                    options_before=base.n_options, counters={"VOLUME_FILTER_ONE_SHOT": removed} if volume else {},
                    timings={"encode": encoded - start, **({"filter": filtered - encoded} if volume else {})})
    start = filtered
    # a hand-off the volume filter's partitions set (filtered_handoff) is the engine's to keep, with its schedule
    free = partitioned is None
    shapes = [s for s in puzzle.shapes if s.multiplicity == 1 and np.any(puzzle.images.shape == s.index)]
    if puzzle.group.order == 1 or not shapes:
        choice.reason = "no symmetry to filter" if puzzle.group.order == 1 else "no piece of a unique shape"
        return _done(choice, start, pipeline=pipeline if free else None)
    reds = [redundancy_for_shape(puzzle, s.index, method) for s in shapes]
    if len(reds) == 1 or cover.n_cells > MAX_CELLS:
        best = min(reds, key=lambda r: (r.score, len(r.kept), r.shape))
        choice.piece = best.piece
        choice.reason = "the only candidate" if len(reds) == 1 else \
            f"over {MAX_CELLS} cells: the piece with the fewest kept images"
        return _done(choice, start, best, pipeline if free else None)
    arrays = PipelineArrays.build(cover, order, handoff)
    option_of = np.full(len(puzzle.images), -1, dtype=np.int64)
    option_of[cover.opt_image] = np.arange(cover.n_options)
    shape_of = cover.opt_items[cover.opt_ptr[1:] - 1] - cover.n_cells
    dead = np.zeros((len(reds), cover.n_options), dtype=np.bool_)
    for k, red in enumerate(reds):
        dead[k, shape_of == red.shape] = True
        kept = option_of[red.kept]
        dead[k, kept[kept >= 0]] = False
    cands = [Candidate(r.piece, r.shape, int((~dead[k] & (shape_of == r.shape)).sum())) for k, r in enumerate(reds)]
    depth = max(min(RANK_DEPTH, n - 1), 1)
    steps = 0.0
    seed = SEED

    whole_path_steps = 0.0

    def leader_prediction(k: int) -> tuple[float, float, float]:
        nonlocal steps, seed, whole_path_steps
        rows = arrays.sample(dead[[k]], FIRST_TRIALS, seed, n)
        steps += float(rows[0, E_STEPS])
        whole_path_steps = float(rows[0, E_STEPS]) / max(float(rows[0, E_TRIALS]), 1.0)
        seed += 1
        return priced(rows[0])

    alive = list(range(len(cands)))
    trials = FIRST_TRIALS
    predicted_for = -1
    while True:
        rows = arrays.sample(dead[alive], trials, seed, depth)
        seed += 1
        steps += float(rows[:, E_STEPS].sum())
        for k, row in zip(alive, rows):
            cands[k].add(row)
        alive.sort(key=lambda k: (cands[k].seconds, cands[k].kept, cands[k].shape))
        if alive[0] != predicted_for:
            predicted_for = alive[0]
            choice.nodes, choice.attempts, choice.predicted_seconds = leader_prediction(predicted_for)
        budget_steps = min(BUDGET_SHARE * choice.predicted_seconds, MAX_BUDGET_SECONDS) / STEP_SECONDS
        keep = (len(alive) + 1) // 2
        per_path = float(rows[:, E_STEPS].sum()) / max(float(rows[:, E_TRIALS].sum()), 1.0)
        if len(alive) == 1 or steps + per_path * 2 * trials * keep > budget_steps:
            break
        alive = alive[:keep]
        trials *= 2
    best = cands[alive[0]]
    choice.piece = best.piece
    red = next(r for r in reds if r.shape == best.shape)
    choice.depth = depth
    choice.candidates = sorted(cands, key=lambda c: (-c.rounds, c.seconds, c.kept, c.shape))
    choice.budget_seconds = budget_steps * STEP_SECONDS
    rounds = best.rounds
    choice.reason = (f"cheapest estimated top {depth} levels of {len(cands)} redundancy pieces after {rounds} "
                     f"round{'s' if rounds > 1 else ''} ({len(alive)} left)")
    _restrict(choice, red)
    if free:
        _root_handoff(choice, pipeline)
        _schedule(choice, pipeline)
        # the race runs on searches of milliseconds, the hand-off's pricing where the budget pays for whole-tree
        # paths (searches of seconds), so it prices the rule's schedule, on the race's arrays
        if choice.order == order and steps + whole_path_steps * HANDOFF_TRIALS * HANDOFF_PATH_COST <= budget_steps:
            steps = _later_handoff(choice, arrays, cover, dead[[alive[0]]], pipeline, n, steps)
    choice.steps = steps
    return _done(choice, start)


def _restrict(choice: Choice, red) -> None:
    """Keep only the chosen piece's kept images in the choice's cover (the redundancy filter of ``red``)."""
    cover = choice.cover
    shape_of = cover.opt_items[cover.opt_ptr[1:] - 1] - cover.n_cells
    keep = (shape_of != red.shape) | np.isin(cover.opt_image, red.kept)
    choice.cover = replace(cover.keep_options(keep) if not keep.all() else cover, redundancy=red)


def race_cost(search: Search, totals: dict, kind: np.ndarray, handoff: int) -> float:
    """The priced seconds of a pipeline search so far, from its counters alone (the race's prices, above).

    ``kind`` is the plan's selection kind per number of pieces left
    (:class:`~bench.kernels.fila_lists.Plan`), ``handoff`` FILA's hand-off:
    levels up to it are FILA's, a root node per hand-off included.
    """
    fits = search.fits[: handoff + 1]
    searched = (kind[: handoff + 1] == ESTIMATE) | (kind[: handoff + 1] == SIZE)
    handoffs = totals["handoffs"]
    fila_nodes = int(fits.sum()) + handoffs
    dlx_nodes = int(search.state[S_NODES]) - fila_nodes
    return (dlx_nodes * DLX_NODE_SECONDS
            + float(fits[~searched].sum()) * RACE_SCAN_NODE_SECONDS
            + float(fits[searched].sum()) * RACE_SEARCHED_NODE_SECONDS
            + handoffs * (RACE_HANDOFF_SECONDS + (RACE_SEARCHED_NODE_SECONDS if searched[handoff]
                                                  else RACE_SCAN_NODE_SECONDS))
            + float(search.attempts[: handoff + 1].sum()) * RACE_ATTEMPT_SECONDS
            + float(search.state[S_PROBES]) * RACE_PROBE_SECONDS
            + totals["list_entries"] * RACE_LIST_ENTRY_SECONDS + totals["images"] * RACE_IMAGE_SECONDS)


def _race(pipeline: Pipeline, cover: Cover, orders: list[str], handoff: int) -> dict[str, dict]:
    """FILA's real searches of ``cover`` under each schedule of ``orders`` (the rule first), raced over hand-offs.

    Every schedule shares DLX's levels above the hand-off, so the searches
    meet the same sub-problems in the same order, and the race compares
    them on the first ones, each priced by its counters
    (:func:`race_cost`): at a checkpoint of k sub-problems, the search
    priced lowest over them wins once every other is priced
    :data:`RACE_CLEAR` times as high to it.  Another schedule must be
    cheaper than the rule's by a margin, so its price counts as
    ``cost / EXACT_GAIN``.  While no lead is that clear, or the leader is
    priced under :data:`RACE_EVIDENCE` seconds (too little to go by), the
    checkpoint moves one sub-problem on; a search that finishes reaches
    every checkpoint, and wins once every other is priced as high (its
    lead is then the whole search's).  The search behind that is priced
    lowest runs on for :data:`RACE_SLICE_NODES` nodes (a turn also ends
    with a sub-problem), and so on, until one wins or the race has
    searched :data:`RACE_NODES` nodes (nobody wins).  Nothing here reads
    a clock: the same race runs alike everywhere.  Returns per schedule
    its priced seconds (``cost``), nodes and sub-problems done, the
    checkpoint and its price to it, whether it finished, and whether it
    won.
    """
    runs = []
    for k, order in enumerate(orders):
        search, totals, kind = pipeline.start(cover, order, handoff)
        runs.append({"order": order, "search": search, "totals": totals, "kind": kind, "cost": 0.0, "done": False,
                     "weight": 1.0 if k == 0 else 1.0 / EXACT_GAIN, "at": []})

    def counted(run: dict) -> float:
        return run["cost"] * run["weight"]

    def reached(run: dict, k: int) -> bool:
        return run["done"] or len(run["at"]) >= k

    def counted_at(run: dict, k: int) -> float:
        return (run["at"][k - 1] if len(run["at"]) >= k else run["cost"]) * run["weight"]

    winner, checkpoint = None, 1
    while sum(int(r["search"].state[S_NODES]) for r in runs) < RACE_NODES:
        lead = min((r for r in runs if reached(r, checkpoint)), key=lambda r: counted_at(r, checkpoint), default=None)
        # a finished search's lead is certain once every other is priced as high
        bar = np.inf if lead is None else counted_at(lead, checkpoint) * (1.0 if lead["done"] else RACE_CLEAR)
        behind = [r for r in runs if r is not lead and not reached(r, checkpoint) and counted(r) < bar]
        if not behind:
            # every other search reached the checkpoint, or was priced at the bar on the way
            clear = all(counted_at(r, checkpoint) >= bar for r in runs if r is not lead)
            if lead["done"] or (clear and counted_at(lead, checkpoint) / lead["weight"] >= RACE_EVIDENCE):
                winner = lead
                break
            checkpoint += 1
            continue
        run = min(behind, key=counted)
        run["done"] = run["search"].advance(RACE_SLICE_NODES)
        run["cost"] = race_cost(run["search"], run["totals"], run["kind"], handoff)
        # a turn ends where a sub-problem does: the price at each is exact
        done = run["totals"]["handoffs"] - (run["search"].sub is not None)
        run["at"] += [run["cost"]] * (done - len(run["at"]))
    return {r["order"]: {"cost": r["cost"], "nodes": int(r["search"].state[S_NODES]), "finished": r["done"],
                         "handoffs": len(r["at"]), "checkpoint": checkpoint,
                         "checkpoint_cost": counted_at(r, checkpoint) / r["weight"],
                         "reached": reached(r, checkpoint), "won": r is winner} for r in runs}


def _schedule(choice: Choice, pipeline: Pipeline) -> None:
    """Choose FILA's schedule among ``pipeline.schedules(cover, handoff)`` (the rule first) by racing their searches.

    Only where the rule's search is predicted under :data:`RACE_BELOW`
    (the race then costs about twice the cheaper search's first
    sub-problems, at most :data:`RACE_NODES` nodes, once: the cover cache
    keeps the choice); on larger trees ``e`` searched several times fewer
    nodes than the scan on every bundled puzzle (the Tetris Cube 48 M
    against 477 M), so the rule stands.  The Meteor puzzle, predicted at
    0.05 to 0.2 s depending on the piece, races from the root: the scan row
    by row with the isolated-cell trigger searches 0.69 M nodes, ``e``
    0.72 M at twice the price per node.  On the 30-ball pyramid
    the scan's whole search is priced 2.0 ms where ``e``'s is 8.9 ms
    (313,014 list entries against 6,332 over its 3 hand-offs: ``e``'s list
    sets hold each image at every one of its cells).
    """
    orders = pipeline.schedules(choice.cover, choice.handoff)
    if len(orders) < 2 or choice.predicted_seconds >= RACE_BELOW:
        return
    compiled = warmup.spent()
    raced = _race(pipeline, choice.cover, orders, choice.handoff)
    choice.compile_seconds += warmup.spent() - compiled
    choice.schedules = raced
    won = next((o for o, r in raced.items() if r["won"]), None)
    if won is None:
        nodes = sum(r["nodes"] for r in raced.values())
        choice.reason += f"; {orders[0]}: the race of schedules stopped undecided ({nodes:,} nodes)"
    elif won != orders[0]:
        rule, k = raced[orders[0]], raced[won]["checkpoint"]
        over = "whole search" if raced[won]["finished"] and raced[won]["handoffs"] < k else \
            ("first sub-problem" if k == 1 else f"first {k} sub-problems")
        choice.reason += (f"; the schedule {won}: its {over} priced at {raced[won]['checkpoint_cost'] * 1000:.3g} ms, "
                          f"{orders[0]}'s {'at' if rule['reached'] else 'over'} "
                          f"{rule['checkpoint_cost'] * 1000:.3g} ms")
        choice.order = won


def _root_handoff(choice: Choice, pipeline: Pipeline) -> None:
    """FILA from the root, not after the first piece, where DLX's first level would branch on a cell.

    DLX's level above FILA pays where it branches on a piece (the
    redundancy piece's few kept placements, X's 8 on 10x6), which FILA,
    branching on cells, cannot.  Where the item with the fewest options is
    a cell (ties go to cells, as in DLX), FILA's own first level branches
    on a cell as well, and DLX's only hands each branch over apart: on the
    Meteor puzzle 32 hand-offs, whose lists cost as much as the search
    below them (the same 724,547 nodes with ``e`` either way).  The rule
    reads the cover alone, so it is the same on any machine.
    """
    cover = choice.cover
    n = cover.piece_count
    if choice.handoff != n - 1 or cover.n_cells > MAX_CELLS:
        return
    counts = np.bincount(cover.opt_items, minlength=cover.n_items)
    if counts[: cover.n_cells].min() <= counts[cover.n_cells:].min():
        choice.handoff = n
        choice.order = pipeline.schedules(cover, n)[0]
        choice.reason += "; FILA from the root: DLX's first level would branch on a cell"


def _later_handoff(choice: Choice, arrays: PipelineArrays, cover: Cover, dead: np.ndarray, pipeline: Pipeline, n: int,
                   steps: float) -> float:
    """Move FILA's hand-off one piece later when whole-tree paths price that tree well below the rule's.

    DLX then places two pieces: it branches on the item with the fewest
    options, where FILA's ``e`` takes the tightest hole, and on the planar
    pentacubes in 3x4x5 that searches a third of the tree (2.1 s against
    6.9 s).  Both trees are priced by paths from the same seed, each
    hand-off counted at :data:`HANDOFF_SECONDS`, and the later one is taken
    below :data:`HANDOFF_GAIN` of the rule's price.  Whole trees need many
    paths: with 64 the two hand-offs of 3x4x5 ranked either way from one
    seed to the next, with 2048 they come within 15 % of the trees' sizes
    (130 M and 42 M nodes against 148 M and 48 M).  The caller runs it only
    when the budget can pay for them (not on puzzles of a few tenths of a
    second).  ``arrays`` are the race's, at the rule's schedule and
    hand-off, ``dead`` the chosen piece's row; the later hand-off takes the
    rule's schedule there (the first of ``pipeline.schedules``).  Returns the steps
    spent in all.
    """
    later = choice.handoff - 1
    if later < 2:
        return steps
    later_order = pipeline.schedules(cover, later)[0]
    priced_at = {}
    for h, at in ((choice.handoff, arrays), (later, PipelineArrays.build(cover, later_order, later))):
        row = at.sample(dead, HANDOFF_TRIALS, SEED, n)[0]
        steps += float(row[E_STEPS])
        nodes, attempts, seconds = priced(row)
        handoffs = float(row[E_NODES_DLX]) / max(float(row[E_TRIALS]), 1.0)
        priced_at[h] = {"nodes": nodes, "attempts": attempts, "handoffs": handoffs,
                        "seconds": seconds + handoffs * HANDOFF_SECONDS}
    choice.handoffs = priced_at
    if priced_at[later]["seconds"] <= HANDOFF_GAIN * priced_at[choice.handoff]["seconds"]:
        choice.reason += (f"; FILA one piece later ({later} pieces left): its tree priced at "
                          f"{priced_at[later]['seconds'] / priced_at[choice.handoff]['seconds']:.2f} of the rule's")
        choice.handoff, choice.order = later, later_order
    return steps


def _done(choice: Choice, start: float, red=None, pipeline: Pipeline | None = None) -> Choice:
    """The choice with its cover restricted to ``red``'s kept images, its schedule chosen, and the seconds it took.

    ``pipeline`` is given where no race of pieces ran: the rule's tree is
    then predicted from :data:`FIRST_TRIALS` paths for :func:`_schedule`.
    """
    if red is not None:
        _restrict(choice, red)
    if pipeline is not None:
        _root_handoff(choice, pipeline)
    if pipeline is not None and choice.cover.n_cells <= MAX_CELLS and \
            len(pipeline.schedules(choice.cover, choice.handoff)) > 1:
        n = choice.cover.piece_count
        arrays = PipelineArrays.build(choice.cover, choice.order, choice.handoff)
        row = arrays.sample(np.zeros((1, choice.cover.n_options), dtype=np.bool_), FIRST_TRIALS, SEED, n)[0]
        choice.nodes, choice.attempts, choice.predicted_seconds = priced(row)
        choice.steps = float(row[E_STEPS])
        _schedule(choice, pipeline)
    # the race's kernels (loaded or compiled, as the solve would) are compile time, not the choice's
    choice.seconds = time.perf_counter() - start - (choice.compile_seconds - warm_up())
    return choice
