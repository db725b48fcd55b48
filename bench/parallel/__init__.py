"""Scaling a solve out: sub-problems, local workers, a Dask cluster, the checkpoint journal and progress.

The defaults the command line's help shows are here, so that building the
parser loads none of the runner (:mod:`bench.parallel.runner`) and its kernels.
"""

import os

SUBPROBLEMS_PER_WORKER = 6
STALL_SECONDS = 30.0
"""A worker whose heartbeat has been silent this long (stopped by SIGSTOP, or frozen) is given up and its
sub-problem solved again: long enough for a kernel compile or a hand-off that holds the interpreter."""


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
