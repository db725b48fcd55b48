"""The OR-Tools CP-SAT engine: one Boolean per option, one linear constraint per item.

A cell item becomes ``exactly_one`` over the options that cover it; a shape
item needed ``lo..hi`` times becomes ``lo <= sum <= hi`` (exactly k for k
identical pieces, at most k for spare ones).  A coloured item (Knuth's
colours, :class:`~bench.models.cover.Cover`) gets a Boolean per colour,
true exactly when an option of that colour is chosen; at most one of those
and of the options that give it no colour is true.  Every variable is
fixed by the options, so no cover is enumerated twice.  Counting enumerates every
solution with a callback (CP-SAT enumerates on one worker only); the
:class:`~bench.engines.collect.Collector` proves there are no duplicates and
classifies each cover.  First-solution mode may use several workers.

CP-SAT sees no Python signal while it searches (and without a solution for
minutes it never returns to Python), so it solves in a child process
killed at a stop signal (:func:`~bench.engines.deadline.solve_within_limit`);
its own time limit ends the search with the counts so far.

Variant syntax for ``--engine``: ``cpsat`` or ``cpsat:W`` with W workers for
first-solution mode.
"""

from __future__ import annotations

import time

from bench.engines.collect import Collector
from bench.engines.deadline import solve_within_limit
from bench.engines.protocol import Engine, Limits, Result, Settings, Status
from bench.errors import CoverError, Unsupported


def build_model(cover):
    """A CP-SAT model of ``cover`` and its option variables."""
    # lazy: OR-Tools takes about a second to import; only a cpsat solve pays it
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = [model.new_bool_var(f"o{o}") for o in range(cover.n_options)]
    by_item: list[list[int]] = [[] for _ in range(cover.n_items)]
    for o in range(cover.n_options):
        for item in cover.option(o):
            by_item[int(item)].append(o)
    coloured = set()
    for item, plain, by_colour in cover.colour_classes():
        coloured.add(item)
        takes = []
        for colour, options in by_colour.items():
            y = model.new_bool_var(f"i{item}c{colour}")
            for o in options:
                model.add_implication(x[o], y)
            model.add_bool_or([x[o] for o in options]).only_enforce_if(y)
            takes.append(y)
        model.add_at_most_one([x[o] for o in plain] + takes)
    for item, options in enumerate(by_item):
        if item in coloured:
            continue
        lo, hi = int(cover.item_lo[item]), int(cover.item_hi[item])
        terms = [x[o] for o in options]
        if lo == hi == 1:
            model.add_exactly_one(terms)
        elif lo == 0 and hi == 1:
            model.add_at_most_one(terms)
        else:
            model.add_linear_constraint(sum(terms), lo, hi)
    return model, x


class CpSatEngine(Engine):
    """Exact covers with OR-Tools CP-SAT (see the module docstring)."""

    name = "cpsat"
    supported = frozenset({"max_solutions", "time_limit"})
    requires = ("ortools",)

    def __init__(self, variant: str = ""):
        self.tuning = {}
        self.workers = 1
        if variant:
            if not variant.isdigit() or int(variant) < 1:
                raise Unsupported(f"cpsat variant '{variant}': expected a number of workers, e.g. cpsat:2")
            self.workers = int(variant)

    @property
    def variant(self) -> str:
        return f"workers={self.workers}"

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None,
              on_trace=None) -> Result:
        """Enumerate (or find one of) the covers of ``cover``.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/dominoes_4x4.txt")
        >>> r = CpSatEngine().solve(bench.Cover.from_puzzle(p))
        >>> r.status.value, r.covers, r.unique, r.total
        ('solved', 36, 9, 36)
        """
        self.check(settings, limits)
        if self.workers > 1 and limits.max_solutions != 1:
            raise Unsupported("CP-SAT enumerates all solutions on one worker only; use cpsat:W with --mode first")
        t0 = time.perf_counter()
        model, x = build_model(cover)
        setup = time.perf_counter() - t0
        return solve_within_limit(self, self._search, cover, limits, on_solutions, model, x, setup)

    def _search(self, cover, limits: Limits, on_solutions, model, x, setup: float) -> Result:
        """The search, in the child process (see the module docstring)."""
        # lazy: OR-Tools takes about a second to import; only a cpsat solve pays it
        from ortools.sat.python import cp_model

        first = limits.max_solutions == 1
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = self.workers
        # the process that started this one answers Ctrl-C, by ending this one
        solver.parameters.catch_sigint_signal = False
        if limits.time_limit is not None:
            solver.parameters.max_time_in_seconds = float(limits.time_limit)
        collector = Collector(cover, limits, on_solutions)

        failure: list[BaseException] = []

        class Callback(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self):
                try:
                    if collector.add([o for o, var in enumerate(x) if self.boolean_value(var)]):
                        self.stop_search()
                except CoverError as exc:
                    failure.append(exc)
                    self.stop_search()

        start = time.perf_counter()
        try:
            if first:
                code = solver.solve(model)
                if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                    collector.add([o for o, var in enumerate(x) if solver.boolean_value(var)])
            else:
                solver.parameters.enumerate_all_solutions = True
                code = solver.solve(model, Callback())
        except KeyboardInterrupt:
            code = None
        seconds = time.perf_counter() - start
        if failure:
            status, message = Status.ERROR, str(failure[0])
        elif code is None:
            status, message = Status.INTERRUPTED, "interrupted"
        elif code == cp_model.INFEASIBLE or (code == cp_model.OPTIMAL and not first and not collector.limit_reached()):
            status, message = Status.SOLVED, ""
        elif first and code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            status, message = Status.LIMIT, ""
        elif collector.limit_reached():
            status, message = Status.LIMIT, ""
        elif code == cp_model.MODEL_INVALID:
            status, message = Status.ERROR, solver.status_name(code)
        else:
            status, message = Status.TIMEOUT, solver.status_name(code)
        stats = {"branches": int(solver.num_branches), "conflicts": int(solver.num_conflicts),
                 "wall_time": float(solver.wall_time), "variables": cover.n_options}
        return collector.result(self.name, self.variant, status, seconds, stats=stats, message=message,
                                timings={"setup": setup, "compile": 0.0})
