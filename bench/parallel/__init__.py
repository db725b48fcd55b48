"""Scaling a solve out: sub-problems, local workers, a Dask cluster, the checkpoint journal and progress.

The defaults the command line's help shows and the options of a split
(:class:`ParallelOptions`) are here, so that building the parser and
reading its options load none of the runner (:mod:`bench.parallel.runner`)
and its kernels.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

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


@dataclass(frozen=True)
class ParallelOptions:
    """How to spread a solve: ``workers`` local processes, or the Dask scheduler at ``cluster``.

    ``journal`` is the checkpoint file (None: ``journal_dir``/NAME-KEY.jsonl,
    or none without a directory either); ``resume`` continues it;
    ``depth`` fixes the split depth (None: chosen from the worker count);
    ``progress`` forces the progress bar on or off (None: on a terminal);
    ``explicit`` says the user asked for the split (else it is only used
    when the search is large); a worker silent for ``stall_seconds`` is
    killed and its sub-problem solved again.
    """

    workers: int = 1
    cluster: str | None = None
    journal: Path | None = None
    journal_dir: Path | None = None
    resume: bool = False
    depth: int | None = None
    progress: bool | None = None
    explicit: bool = True
    stall_seconds: float = STALL_SECONDS
