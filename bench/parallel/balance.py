"""How well a split spreads its work: a figure that depends on the tree, not on the machine.

A split run knows the work of every sub-problem it solved, counted in
search nodes (the same nodes ``--info`` adds up to ``NODES``).  Longest
processing time first (Graham's LPT: the largest sub-problem to the least
loaded worker) over those sizes gives the time a perfect scheduler with N
workers would need, and so the speed-up it would reach: the figure a
2-core machine can check for 16 or 64 cores.  The splitter's own nodes run
before any worker starts, so they count as serial work.
"""

from __future__ import annotations

import heapq

BOUND_WORKERS = (4, 16, 64)
"""The worker counts ``--info`` reports the bound for (``PARALLEL_SPEEDUP_BOUND_N``)."""


def lpt_makespan(sizes, workers: int) -> int:
    """The time the last of ``workers`` finishes when the jobs ``sizes`` go, largest first, to the least loaded."""
    if workers < 1:
        raise ValueError("at least one worker")
    loads = [0] * min(workers, max(len(sizes), 1))
    for size in sorted(sizes, reverse=True):
        heapq.heapreplace(loads, loads[0] + size)
    return max(loads)


def speedup_bound(sizes, workers: int, serial: int = 0) -> float:
    """All the work (``serial`` plus ``sizes``) over ``serial`` plus the LPT makespan on ``workers``: at most ``workers``."""
    total = serial + sum(sizes)
    span = serial + lpt_makespan(sizes, workers)
    return total / span if span > 0 else 1.0


def balance(sizes, serial: int = 0) -> dict:
    """The balance figures of a split run: the work of all and of the largest sub-problem, and the bounds.

    ``sizes`` are the sub-problems' nodes, ``serial`` the splitter's; keys
    as ``--info`` prints them after ``PARALLEL_``.
    """
    sizes = list(sizes)
    total = serial + sum(sizes)
    largest = max(sizes, default=0)
    out = {"work": "nodes", "work_total": total, "work_split": serial, "work_largest": largest,
           "largest_share": round(largest / total, 6) if total else 0.0}
    for workers in BOUND_WORKERS:
        out[f"speedup_bound_{workers}"] = round(speedup_bound(sizes, workers, serial), 3)
    return out
