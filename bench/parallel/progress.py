"""The progress bar of a split solve on standard error (tqdm): sub-problems done, rate, ETA from their estimated sizes."""

from __future__ import annotations

import sys


class Progress:
    """A bar that advances by each sub-problem's estimated share of the tree.

    It shows only on a terminal (or when ``enabled``) and only once the run
    has lasted ``delay`` seconds, so short solves print nothing; it is
    redrawn at every sub-problem (there are at most a few thousand).
    """

    def __init__(self, total: int, weights: dict[str, float], enabled: bool | None = None, delay: float = 2.0,
                 stream=None):
        stream = stream or sys.stderr
        self.weights = weights if sum(weights.values()) > 0 else {}
        self.total = total
        self.done = 0
        all_weight = float(sum(self.weights.values())) if self.weights else float(total)
        self.bar = None
        if stream.isatty() if enabled is None else enabled:
            # imported only for a bar that may show: the parent of a split run imports it before its workers start
            from tqdm import tqdm

            self.bar = tqdm(total=all_weight, file=stream, delay=delay, ascii=" #", mininterval=0,
                            bar_format="[{bar:20}] {desc}  {elapsed} elapsed, ETA {remaining}")
            self._describe()

    def _weight(self, ident: str) -> float:
        return float(self.weights.get(ident, 0.0)) if self.weights else 1.0

    def _describe(self) -> None:
        self.bar.set_description_str(f"{self.done}/{self.total} sub-problems", refresh=False)

    def skip(self, ident: str) -> None:
        """A sub-problem already done (resumed): counts toward neither the bar nor the rate."""
        self.total -= 1
        if self.bar is not None:
            self.bar.total -= self._weight(ident)
            self._describe()

    def advance(self, ident: str, pieces: list[str] = ()) -> None:
        """One more sub-problem finished, having handed back ``pieces`` (new sub-problems, which carry the weight it
        shares with them)."""
        self.done += 1
        self.total += len(pieces)
        if self.bar is not None:
            self._describe()
            self.bar.update(self._weight(ident) / (len(pieces) + 1))

    def close(self) -> None:
        """End the line the bar was drawn on."""
        if self.bar is not None:
            self.bar.close()
