"""One solve session: an engine, what the user asked for, and the one way from a puzzle to a :class:`Result`.

``bench solve``, the child process of each ``bench run`` solve and the
Python API (:func:`bench.solve`, :func:`bench.solutions`) all solve through
a :class:`Session`:

1. :meth:`Session.prepare` lets the engine configure the request, encodes
   the puzzle once (or reads it from the cover cache), applies the one-shot
   filters and settles the engine's settings (:func:`~bench.session.prepare.prepare`);
2. :meth:`Session.solve` warms the engine's kernels, splits the search over
   workers when asked (or by default when it is large), solves, and turns
   an engine's crash into an ``error`` result;
3. :meth:`Session.solutions` does the same but hands out the solutions as
   the engine finds them.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, replace
from typing import Iterator

from bench.engines import get_engine
from bench.engines.protocol import Engine, Limits, Result, Settings, Status
from bench.errors import BenchError, UsageError
from bench.parallel.runner import ParallelOptions, solve_maybe_parallel
from bench.session.orbits import bulk_group, count_orbits
from bench.session.prepare import Prepared, Request, prepare
from bench.system import signals

SOLUTION_BATCHES = 4
"""Batches of solutions a :meth:`Session.solutions` search runs ahead of its reader before it waits."""


class _Closed(BaseException):
    """Raised in the search's thread when the reader of :meth:`Session.solutions` stopped reading.

    Not an :class:`Exception`: the engine's failure handling must let it through to the thread that started it.
    """


@dataclass
class Session:
    """One engine and the user's request, solving puzzles one after the other.

    ``limits`` stop each search early, ``parallel`` splits it over worker
    processes or a cluster (None: one process), ``cache`` reads and stores
    prepared covers in the cover cache.
    """

    engine: Engine
    request: Request = Request()
    limits: Limits = Limits()
    parallel: ParallelOptions | None = None
    cache: bool = False

    @classmethod
    def open(cls, spec: str, **kwargs) -> "Session":
        """A session of the engine ``spec`` (``NAME[:VARIANT]``); the other fields as for :class:`Session`.

        Raises
        ------
        UsageError
            For an unknown engine, or one whose libraries are not installed.
        """
        engine = get_engine(spec)
        if not engine.available():
            raise UsageError(f"engine '{engine.name}' is not available: {engine.missing()}")
        return cls(engine, **kwargs)

    def prepare(self, puzzle) -> Prepared:
        """``puzzle`` encoded, filtered and with its settings settled for this session's engine."""
        return prepare(puzzle, self.request, self.engine, cache=self.cache)

    def solve(self, cover, settings: Settings, on_solutions=None, on_trace=None, printing: bool = False,
              alongside=None) -> Result:
        """Solve ``cover`` under ``settings``: split when asked (or large), else in this process.

        ``on_solutions`` and ``on_trace`` receive the covers and trace events
        as the search finds them; ``printing`` says they are printed in
        search order (a split search cannot keep it); ``alongside()`` runs
        once, while a split search's workers search, or before the search.
        An engine that fails gives an ``error`` result with its message, a
        stop (Ctrl-C) before the search began an ``interrupted`` one; a
        :class:`BenchError` (the user's mistake) is raised.
        """
        name = self.engine.name
        group = self._bulk_group(cover, settings, on_solutions)
        if group is not None:
            settings = replace(settings, bulk_orbits=True)
        try:
            result = solve_maybe_parallel(cover, self.engine, settings, self.limits, self.parallel, printing=printing,
                                          on_solutions=on_solutions, on_trace=on_trace, alongside=alongside)
            if group is not None and result.status == Status.SOLVED:
                count_orbits(cover, result, group)
            elif group is not None:
                # covers left unclassified say nothing of a stopped search's orbits (a split one adds up zeros)
                result.unique = result.total = None
            return result
        except (BenchError, BrokenPipeError):
            raise
        except KeyboardInterrupt:
            # a stop before the search began (an engine's set-up, a library's import): nothing counted yet
            return Result(engine=name, status=Status.INTERRUPTED, message="stopped before its search began")
        except Exception as exc:  # noqa: BLE001 - whatever fails inside an engine is its result, never a traceback
            if signals.stop_requested() is not None:
                # a stop that arrived inside a library (an import, a callback) may come back as its own error
                return Result(engine=name, status=Status.INTERRUPTED, message="interrupted")
            return Result(engine=name, status=Status.ERROR, message=f"engine '{name}' failed: {type(exc).__name__}: {exc}")

    def _bulk_group(self, cover, settings: Settings, on_solutions) -> list[int] | None:
        """The group elements whose fixed covers count unique and total after the search (:mod:`bench.session.orbits`),
        or None where the search classifies each cover: the engine cannot leave them unclassified, the covers go
        somewhere with their weights, or the search is partial (a goal, a count or node limit, a piece of a split);
        a search a time limit stops leaves them unknown."""
        whole = (settings.goal == 0 and not settings.trace and not settings.prefix and settings.cut is None
                 and not settings.budget and on_solutions is None
                 and self.limits == Limits(time_limit=self.limits.time_limit))
        if not whole or "bulk_orbits" not in self.engine.supported:
            return None
        return bulk_group(cover)

    def solve_prepared(self, prepared: Prepared, **sinks) -> Result:
        """:meth:`solve` of a prepared puzzle, its encoding and filter seconds added to the result's timings."""
        result = self.solve(prepared.cover, prepared.settings, **sinks)
        result.timings = {**prepared.timings, **result.timings}
        return result

    def solutions(self, prepared: Prepared) -> Iterator[list]:
        """The covers of a prepared puzzle as the engine finds them (lists of option numbers), in search order.

        The search runs in a thread of its own, a few batches ahead of the
        reader; closing the generator (or leaving a ``for`` loop early) stops
        it.  An engine that counts without producing covers is refused.
        """
        if self.engine.counts_only:
            raise UsageError(f"engine '{self.engine.name}' counts solutions without producing them")
        batches: queue.Queue = queue.Queue(SOLUTION_BATCHES)
        closed = threading.Event()
        outcome: list = []

        def sink(batch, weights) -> None:
            for options in batch:
                while True:
                    if closed.is_set():
                        raise _Closed
                    try:
                        batches.put(options.tolist() if hasattr(options, "tolist") else list(options), timeout=0.05)
                        break
                    except queue.Full:
                        continue

        def search() -> None:
            try:
                # one process: the covers come back in search order
                single = replace(self, parallel=None)
                outcome.append(single.solve(prepared.cover, prepared.settings, on_solutions=sink, printing=True))
            except _Closed:
                pass
            except BaseException as exc:  # noqa: BLE001 - handed to the reader, raised there
                outcome.append(exc)
            finally:
                batches.put(None)

        thread = threading.Thread(target=search, name="bench-solutions", daemon=True)
        thread.start()
        try:
            while (options := batches.get()) is not None:
                yield options
        finally:
            closed.set()
            # the search may be waiting for room: drain until it has stopped
            while thread.is_alive():
                try:
                    batches.get(timeout=0.05)
                except queue.Empty:
                    pass
            thread.join()
        if outcome and isinstance(outcome[0], BaseException):
            raise outcome[0]
        if outcome and outcome[0].status == Status.ERROR:
            raise BenchError(outcome[0].message)
