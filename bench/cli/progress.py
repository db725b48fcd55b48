"""Progress of a single-process native solve on standard error (tqdm): nodes, solutions found, ETA.

The bar appears on a terminal once the solve has run for two seconds.  Its
total is Knuth's random-path estimate of the search tree
(:func:`~bench.engines.sampling.estimate_tree`, 1,000 paths, taken only then,
so short solves never pay for it; a search that estimates its own tree says
so in ``estimated_nodes``), so the ETA is an estimate too: it is redrawn as
the counted nodes pass it.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

from bench.kernels.codes import S_COVERS, S_NODES
from bench.engines.search import MONITOR

TRIALS = 1000


class SolveProgress:
    """Watches one search (see :data:`bench.engines.search.MONITOR`) and draws the bar."""

    def __init__(self, cover, settings, enabled: bool | None = None, delay: float = 2.0, stream=None):
        self.cover = cover
        self.settings = settings
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.delay = delay
        self.start: float | None = None
        self.drawn = 0.0
        self.bar = None

    def __call__(self, search) -> None:
        now = time.perf_counter()
        # the clock starts with the search, after any compilation
        self.start = now if self.start is None else self.start
        if not self.enabled or now - self.start < self.delay or now - self.drawn < 0.2:
            return
        self.drawn = now
        nodes = int(search.state[S_NODES])
        if self.bar is None:
            # here, once a solve has lasted the delay: most solves never draw a bar
            from tqdm import tqdm

            # an engine whose tree is not DLX's estimates its own (the GPU engine's first-open-cell search)
            estimate = getattr(search, "estimated_nodes", None)
            total = self._estimate() if estimate is None else estimate
            self.bar = tqdm(total=max(total, nodes + 1), initial=nodes, file=self.stream, ascii=" #",
                            unit=" nodes", unit_scale=True, mininterval=0, leave=False,
                            bar_format="[{bar:20}] {n_fmt}/~{total_fmt} nodes, {desc}  {elapsed} elapsed, "
                                       "ETA ~{remaining}")
            # tqdm's clock would start now; the solve started earlier
            self.bar.start_t -= now - self.start
        if nodes >= self.bar.total:
            # past the estimate: the rest is unknown, keep the bar just short of full
            self.bar.total = int(nodes * 1.1) + 1
        self.bar.set_description_str(f"{int(search.state[S_COVERS]):,} solutions", refresh=False)
        self.bar.update(nodes - self.bar.n)

    def _estimate(self) -> int:
        # lazy: `bench --help` builds every command's parser; what a command needs loads when it runs
        from bench.engines.sampling import estimate_tree

        try:
            return int(estimate_tree(self.cover, self.settings, trials=TRIALS, goal=self.settings.goal).nodes)
        except Exception:  # noqa: BLE001 - the estimate only decorates the bar; the solve must go on
            return 0

    def close(self) -> None:
        """Take the bar off the terminal."""
        if self.bar is not None:
            self.bar.close()


@contextmanager
def watching(progress: SolveProgress | None):
    """Let ``progress`` watch the native searches run inside the block (in this process)."""
    if progress is None:
        yield
        return
    token = MONITOR.set(progress)
    try:
        yield
    finally:
        MONITOR.reset(token)
        progress.close()
