"""A one-line progress bar on standard error: sub-problems done, rate, ETA from their estimated sizes."""

from __future__ import annotations

import sys
import time


class Progress:
    """Redrawn at most five times a second, only on a terminal and once the run has lasted ``delay`` seconds."""

    def __init__(self, total: int, weights: dict[str, float], enabled: bool | None = None, delay: float = 2.0,
                 stream=None):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.weights = weights
        self.all_weight = sum(weights.values()) or 1.0
        self.delay = delay
        self.start = time.perf_counter()
        self.done = 0
        self.done_weight = 0.0
        self.drawn = 0.0
        self.shown = False

    def skip(self, ident: str) -> None:
        """A sub-problem already done (resumed): counts toward the bar, not toward the rate."""
        self.total -= 1
        self.all_weight -= self.weights.get(ident, 0.0)

    def advance(self, ident: str) -> None:
        """One more sub-problem finished."""
        self.done += 1
        self.done_weight += self.weights.get(ident, 0.0)
        now = time.perf_counter()
        if self.enabled and now - self.start >= self.delay and now - self.drawn >= 0.2:
            self.drawn = now
            self.shown = True
            self.stream.write("\r" + self.line(now - self.start) + "\x1b[K")
            self.stream.flush()

    def line(self, elapsed: float) -> str:
        """The bar's text after ``elapsed`` seconds."""
        share = self.done_weight / self.all_weight if self.all_weight > 0 else self.done / max(self.total, 1)
        share = min(max(share, self.done / max(self.total, 1) * 0.5), 1.0)
        bar = "#" * int(share * 20)
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = elapsed * (1 - share) / share if share > 0 else float("nan")
        return (f"[{bar:<20}] {self.done}/{self.total} sub-problems  {rate:.1f}/s  "
                f"ETA {_clock(eta) if eta == eta else '?'}")

    def close(self) -> None:
        """End the line the bar was drawn on."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
