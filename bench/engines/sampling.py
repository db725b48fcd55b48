"""Monte Carlo estimates of a DLX search's size (Knuth's random-path estimator).

One trial walks from the root (or a sub-problem's prefix) to a leaf,
taking one uniformly random branch at every node; the product of the
branching degrees above a node is an unbiased estimate of how many nodes
the full search visits at that depth.  Summed over the path it estimates
the nodes, attempts (fits) and complete covers of the whole search, with
this engine's heuristics and constraints, because the walk runs the same
kernel.  The spread between trials is large for unbalanced trees, so the
estimate comes with quantiles of the trial means, and many trials are
cheap: a trial costs one path, not a search.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bench.engines.protocol import Limits, Settings
from bench.engines.search import Search


@dataclass(frozen=True)
class TreeEstimate:
    """Estimated nodes, attempts and covers of a search, from ``trials`` random paths.

    ``nodes`` etc. are means over the trials; ``nodes_low`` / ``nodes_high``
    the 10 % and 90 % quantiles of the mean of a batch of trials (bootstrap),
    ``per_trial`` the raw rows (nodes, attempts, covers).
    """

    trials: int
    nodes: float
    attempts: float
    covers: float
    nodes_low: float
    nodes_high: float
    per_trial: np.ndarray

    def to_json(self) -> dict:
        """The figures without the raw rows."""
        return {"trials": self.trials, "nodes": self.nodes, "attempts": self.attempts, "covers": self.covers,
                "nodes_low": self.nodes_low, "nodes_high": self.nodes_high}


def estimate_tree(cover, settings: Settings = Settings(), trials: int = 1000, seed: int = 1, goal: int = 0,
                  prefix: tuple = ()) -> TreeEstimate:
    """Estimate the DLX search of ``cover`` under ``settings`` down to ``goal`` pieces left, below ``prefix``.

    Examples
    --------
    >>> import bench
    >>> [p] = bench.load("defs/pentominoes_20x3.txt")
    >>> cover = bench.Cover.from_puzzle(p, redundancy=True)
    >>> e = estimate_tree(cover, trials=2000)   # the search visits 6402 nodes
    >>> 6402 / 2 < e.nodes < 6402 * 2
    True
    """
    rows = _paths(cover, settings, trials, seed, goal, prefix)
    rng = np.random.default_rng(seed)
    boot = rows[rng.integers(0, trials, size=(200, trials)), 0].mean(axis=1)
    low, high = np.quantile(boot, [0.1, 0.9])
    mean = rows.mean(axis=0)
    return TreeEstimate(trials, float(mean[0]), float(mean[1]), float(mean[2]), float(low), float(high), rows)


def mean_nodes(cover, settings: Settings, trials: int, seed: int = 1) -> float:
    """:func:`estimate_tree`'s ``nodes`` of the complete search, without the bootstrap spread.

    For a caller that needs the mean alone (whether to split): the spread's
    quantiles import numpy's random and masked-array modules, a tenth of a
    second of a small solve's whole process.
    """
    return float(_paths(cover, settings, trials, seed, 0, ()).mean(axis=0)[0])


def _paths(cover, settings: Settings, trials: int, seed: int, goal: int, prefix: tuple) -> np.ndarray:
    """The rows of ``trials`` random paths of the DLX search down to ``goal`` pieces left, below ``prefix``."""
    if trials < 1:
        raise ValueError("trials must be >= 1")
    run = replace(settings, goal=goal, trace=0, prefix=prefix, fila=None, nof=None)
    search = Search(cover, run, Limits(), on_solutions=_ignore, batch=Search.BATCH)
    return search.sample(trials, seed)


def estimate_nodes(cover, settings: Settings, prefixes: list, trials: int, seed: int = 1) -> list[float]:
    """Estimated nodes below each prefix (complete searches), from one search object reused for all of them."""
    run = replace(settings, goal=0, trace=0, prefix=(), fila=None, nof=None)
    search = Search(cover, run, Limits(), on_solutions=_ignore, batch=Search.BATCH)
    sizes = []
    for prefix in prefixes:
        search.set_prefix(prefix)
        sizes.append(float(search.sample(trials, seed)[:, 0].mean()))
    return sizes


def _ignore(batch, weights) -> None:
    """Covers met on the random paths are not reported."""
