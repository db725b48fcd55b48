"""What engines that produce covers in Python share: counting covers handed back one at a time.

CP-SAT, SAT and the external DLX libraries produce covers in Python, one per
call, so they all count through a :class:`Collector`: it verifies each cover
against the matrix, refuses duplicates (an enumeration that repeats a cover
is a bug in the engine, never a second solution), classifies it with the
foundation's canonical check, keeps the first ones asked for and hands
batches to the caller's sink.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import numpy as np

from bench.engines.protocol import Limits, Result, Status
from bench.errors import CoverError, Unsupported
from bench.kernels.canonical import SolutionCounter

class Collector:
    """Counts, checks and forwards the covers an enumeration produces."""

    BATCH = 1024

    def __init__(self, cover, limits: Limits, on_solutions=None):
        self.cover = cover
        self.limits = limits
        self.on_solutions = on_solutions
        self.counter = SolutionCounter(cover)
        self.seen: set[bytes] = set()
        self.kept: list[np.ndarray] = []
        self._batch: list[np.ndarray] = []
        self._weights: list[int] = []
        self.start = time.perf_counter()

    def add(self, options) -> bool:
        """Record one cover; True when the search should stop (a limit was reached).

        Raises
        ------
        CoverError
            When the cover is not exact or was produced before.
        """
        chosen = np.sort(np.asarray(options, dtype=np.int32))
        key = chosen.tobytes()
        if key in self.seen:
            raise CoverError(f"the engine produced the same cover twice (options {chosen.tolist()})")
        self.seen.add(key)
        weight = self.counter.add(chosen)
        if len(self.kept) < self.limits.keep_solutions:
            self.kept.append(chosen)
        if self.on_solutions is not None:
            self._batch.append(chosen)
            self._weights.append(weight)
            if len(self._batch) >= self.BATCH:
                self.flush()
        return self.limit_reached()

    def collect(self, covers: Iterable) -> tuple[Status, str]:
        """Record the covers an enumeration yields until it ends, a limit stops it or it is interrupted.

        Returns the status and message of the enumeration: SOLVED when it
        ended, LIMIT at the maximum number of solutions, TIMEOUT at the time
        limit (checked between covers), INTERRUPTED on Ctrl-C, ERROR when a
        cover is not exact or comes twice.
        """
        try:
            for options in covers:
                if self.add(options):
                    return Status.LIMIT, ""
                if self.out_of_time():
                    return Status.TIMEOUT, "time limit"
        except KeyboardInterrupt:
            return Status.INTERRUPTED, "interrupted"
        except CoverError as exc:
            return Status.ERROR, str(exc)
        return Status.SOLVED, ""

    def limit_reached(self) -> bool:
        """True once the maximum number of solutions is reached."""
        return self.limits.max_solutions is not None and self.counter.covers >= self.limits.max_solutions

    def out_of_time(self) -> bool:
        """True once the time limit has passed."""
        limit = self.limits.time_limit
        return limit is not None and time.perf_counter() - self.start >= limit

    def flush(self) -> None:
        """Hand the buffered covers to the sink."""
        if self._batch and self.on_solutions is not None:
            self.on_solutions(self._batch, self._weights)
        self._batch, self._weights = [], []

    def result(self, engine: str, variant: str, status: Status, solve_seconds: float, **extra) -> Result:
        """The :class:`Result` for what has been collected."""
        self.flush()
        covers, unique, total = self.counter.counts()
        return Result(engine=engine, variant=variant, status=status, covers=covers, unique=unique, total=total,
                      solutions=self.kept, cover_hash=self.cover.hash,
                      timings={"solve": solve_seconds, **extra.pop("timings", {})}, **extra)


def counts_from_covers(cover, covers: int) -> tuple[int | None, int | None]:
    """Unique and total from the number of covers alone, when the matrix allows it.

    That is the case when the puzzle has no symmetry, or when the redundancy
    filter is perfect (every orbit of solutions keeps exactly one cover, with
    a trivial stabilizer).  Otherwise ``(None, None)``: the covers would have
    to be classified one by one.
    """
    order = cover.symmetry.order
    if order == 1:
        return covers, covers
    if cover.redundancy is not None and cover.redundancy.perfect:
        return covers, covers * order
    return None, None


def require_plain_exact_cover(cover, engine: str, secondary: bool,
                              colours: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Primary and secondary items for libraries that know only "exactly once" (and "at most once").

    Raises
    ------
    Unsupported
        For an item with a multiplicity above one (identical pieces), an
        optional item when the library has no secondary items, colours when
        it has none, or an :attr:`~bench.models.cover.Cover.extensible`
        cover (a library that branches on primary items only never adds an
        option made of secondary ones).
    """
    lo, hi = cover.item_lo, cover.item_hi
    multi = np.flatnonzero(hi > 1)
    if multi.size:
        i = int(multi[0])
        raise Unsupported(f"engine '{engine}' has no item multiplicities (item '{cover.item_names[i]}' is needed "
                          f"{lo[i]}..{hi[i]} times); only DLX, CP-SAT, SAT and the counting engine handle identical pieces")
    optional = np.flatnonzero(lo == 0)
    if optional.size and not secondary:
        raise Unsupported(f"engine '{engine}' has no optional items (spare piece '{cover.item_names[int(optional[0])]}')")
    if cover.opt_colour is not None and not colours:
        raise Unsupported(f"engine '{engine}' has no colours")
    if cover.extensible:
        raise Unsupported(f"engine '{engine}' adds options only for items that must be covered; here an option "
                          "covers only items that may stay uncovered")
    return np.flatnonzero(lo == 1), optional
