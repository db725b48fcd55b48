"""A CNF of the cover (python-sat), solved by enumeration with blocking clauses.

Variables 1..n are the options; an :class:`~pysat.formula.IDPool` hands out
the auxiliary variables of the cardinality encodings.  Each item needed
``lo..hi`` times becomes ``CardEnc.atleast(lo)`` and ``CardEnc.atmost(hi)``
in the chosen encoding.  Every encoding offered here is exact on the option
variables: an assignment of them extends to a model exactly when it is a
cover.  Enumeration blocks on the option variables and the counting engine
projects onto them, so auxiliary variables never multiply a count.
Encodings that handle only bounds of one (pairwise, bitwise, ladder) use the
totalizer for larger multiplicities, which the variant name says.

Counting blocks each cover with one clause over the option variables it
chose: no other cover can contain all of them, because every option covers
an item needed an exact number of times (every cell is covered exactly
once).  Where that fails (an :attr:`~bench.models.cover.Cover.extensible`
cover, in which one cover may hold another) the clause names every option
variable, blocking that assignment alone.

A coloured item (Knuth's colours) gets a variable per colour, defined as
the disjunction of the options of that colour; at most one of those and of
the options that give the item no colour is true.

Variant syntax for ``--engine``: ``sat[:SOLVER[:ENCODING]]``, e.g.
``sat:glucose4:ladder``; the defaults are CaDiCaL 1.9.5 and the sequential
counter.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from bench.engines.collect import Collector
from bench.engines.deadline import solve_within_limit
from bench.engines.protocol import Engine, Limits, Result, Settings, Status
from bench.errors import Unsupported

DEFAULT_SOLVER = "cadical195"
DEFAULT_ENCODING = "seqcounter"
ENCODINGS = ("pairwise", "seqcounter", "sortnetwrk", "cardnetwrk", "bitwise", "ladder", "totalizer", "mtotalizer",
             "kmtotalizer")
# python-sat cannot interrupt these mid-call: the clock is checked between calls, and the child process every
# SAT solve runs in is killed past the limit (bench.engines.deadline)
NOT_INTERRUPTIBLE = ("cadical", "kissat")
# python-sat's kissat refuses clauses after a solve (it aborts the process): enumerate by solving afresh
NOT_INCREMENTAL = ("kissat",)
AT_MOST_ONE_ONLY = frozenset({"pairwise", "bitwise", "ladder"})


def item_options(cover) -> list[list[int]]:
    """The options of each item, as 1-based variable numbers."""
    by_item: list[list[int]] = [[] for _ in range(cover.n_items)]
    for o in range(cover.n_options):
        for item in cover.option(o):
            by_item[int(item)].append(o + 1)
    return by_item


def implied_items(cover) -> set[int]:
    """Items whose count the cell items already force, so that encoding them only slows solvers down.

    An item needed exactly k times is implied when every option holds it and
    has the same number s of cells, and the cells number k * s: covering every
    cell once then takes exactly k options (18 identical dominoes in 6x6).
    Cardinality constraints of large bounds are expensive in CNF, and model
    counters suffer most from them.
    """
    if cover.n_options == 0:
        return set()
    cells = np.add.reduceat(cover.opt_items < cover.n_cells, cover.opt_ptr[:-1]).astype(np.int64)
    out = set()
    for item in range(cover.n_cells, cover.n_items):
        k = int(cover.item_lo[item])
        if k < 1 or k != cover.item_hi[item] or cells.min() != cells.max() or cells[0] == 0:
            continue
        holders = np.count_nonzero(cover.opt_items == item)
        if holders == cover.n_options and k * int(cells[0]) == cover.n_cells:
            out.add(item)
    return out


def build_cnf(cover, encoding: str = DEFAULT_ENCODING):
    """The clauses of ``cover`` and the number of variables they use.

    Returns
    -------
    (list of clauses, int)
        Variables ``1..cover.n_options`` are the options; the rest are
        auxiliary variables of the cardinality encodings.
    """
    # lazy: python-sat loads only for a sat solve
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool

    if encoding not in ENCODINGS:
        raise Unsupported(f"unknown SAT cardinality encoding '{encoding}'; expected one of: {', '.join(ENCODINGS)}")
    pool = IDPool(start_from=cover.n_options + 1)
    clauses: list[list[int]] = []
    skip = implied_items(cover)
    for item, plain, by_colour in cover.colour_classes():
        skip.add(item)
        takes = []
        for colour, options in by_colour.items():
            y = pool.id(("colour", item, colour))
            clauses.extend([-(o + 1), y] for o in options)
            clauses.append([-y] + [o + 1 for o in options])
            takes.append(y)
        lits = [o + 1 for o in plain] + takes
        if len(lits) > 1:
            enc = getattr(EncType, encoding)
            clauses.extend(CardEnc.atmost(lits, bound=1, vpool=pool, encoding=enc).clauses)
    for item, lits in enumerate(item_options(cover)):
        if item in skip:
            continue
        lo, hi = int(cover.item_lo[item]), int(cover.item_hi[item])
        kind = encoding if hi <= 1 or encoding not in AT_MOST_ONE_ONLY else "totalizer"
        enc = getattr(EncType, kind)
        if lo > len(lits):
            # an item that cannot be covered often enough: a contradiction, as two unit clauses
            v = pool.id(("uncoverable", item))
            clauses.extend([[v], [-v]])
            continue
        if lo == len(lits) and lo > 0:
            clauses.extend([lit] for lit in lits)
        elif lo == 1:
            clauses.append(list(lits))
        elif lo > 1:
            clauses.extend(CardEnc.atleast(lits, bound=lo, vpool=pool, encoding=enc).clauses)
        if hi < len(lits):
            clauses.extend(CardEnc.atmost(lits, bound=hi, vpool=pool, encoding=enc).clauses)
    # an option no constraint mentions (only items with room for all their options) is free: a tautology makes it
    # a variable of the solver, so that a model assigns it and enumeration sees both of its values
    if cover.extensible:
        named = np.zeros(cover.n_options + 1, dtype=bool)
        for clause in clauses:
            for lit in clause:
                if abs(lit) <= cover.n_options:
                    named[abs(lit)] = True
        clauses.extend([int(v), -int(v)] for v in np.flatnonzero(~named[1:]) + 1)
    return clauses, max(pool.top, cover.n_options)


class SatEngine(Engine):
    """Exact covers with a SAT solver from python-sat (see the module docstring)."""

    name = "sat"
    supported = frozenset({"max_solutions", "time_limit"})
    requires = ("pysat",)

    def __init__(self, variant: str = ""):
        self.tuning = {}
        parts = variant.split(":") if variant else []
        if len(parts) > 2:
            raise Unsupported(f"sat variant '{variant}': expected SOLVER or SOLVER:ENCODING")
        self.solver = parts[0] if parts and parts[0] else DEFAULT_SOLVER
        self.encoding = parts[1] if len(parts) > 1 else DEFAULT_ENCODING
        if self.encoding not in ENCODINGS:
            raise Unsupported(f"unknown SAT cardinality encoding '{self.encoding}'; expected one of: {', '.join(ENCODINGS)}")

    @property
    def variant(self) -> str:
        return f"{self.solver}/{self.encoding}"

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None,
              on_trace=None) -> Result:
        """Enumerate the covers of ``cover`` one SAT call at a time.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/dominoes_4x4.txt")
        >>> r = SatEngine().solve(bench.Cover.from_puzzle(p))
        >>> r.status.value, r.covers, r.unique, r.total
        ('solved', 36, 9, 36)
        """
        # lazy: python-sat loads only for a sat solve
        from pysat.solvers import SolverNames

        self.check(settings, limits)
        if self.solver not in vars(SolverNames):
            names = sorted(k for k in vars(SolverNames) if not k.startswith("_"))
            raise Unsupported(f"unknown SAT solver '{self.solver}'; expected one of: {', '.join(names)}")
        # in a child process: a call may search for minutes without giving the signal handlers a chance
        return solve_within_limit(self, self._solve, cover, limits, on_solutions)

    def _solve(self, cover, limits: Limits, on_solutions) -> Result:
        # lazy: python-sat loads only for a sat solve
        from pysat.solvers import Solver

        t0 = time.perf_counter()
        clauses, n_vars = build_cnf(cover, self.encoding)
        n = cover.n_options
        collector = Collector(cover, limits, on_solutions)
        interruptible = not self.solver.startswith(NOT_INTERRUPTIBLE)
        models = _Models(Solver, self.solver, clauses, n, interruptible, whole=cover.extensible)
        setup = time.perf_counter() - t0
        timer = None
        if limits.time_limit is not None and interruptible:
            timer = threading.Timer(limits.time_limit, models.solver.interrupt)
            timer.start()
        start = time.perf_counter()
        try:
            status, message = collector.collect(models)
        finally:
            if timer is not None:
                timer.cancel()
        if models.interrupted and status == Status.SOLVED:
            status, message = Status.TIMEOUT, "time limit"
        seconds = time.perf_counter() - start
        try:
            stats = {key: int(value) for key, value in models.solver.accum_stats().items()}
        except NotImplementedError:
            stats = {}  # kissat exposes none
        models.solver.delete()
        stats.update({"variables": n_vars, "clauses": len(clauses), "calls": models.calls})
        return collector.result(self.name, self.variant, status, seconds, stats=stats, message=message,
                                timings={"setup": setup, "compile": 0.0})


class _Models:
    """The covers a SAT solver finds, one call each, every cover blocked before the next call.

    ``interrupted`` tells that a call was stopped by the solver's interrupt
    (the time limit's timer) rather than the enumeration ending.
    """

    def __init__(self, solver_class, name: str, clauses: list, n_options: int, interruptible: bool,
                 whole: bool = False):
        # whole: block each cover's whole assignment (a cover may hold another), not only the options it chose
        self.whole = whole
        self.solver_class = solver_class
        self.name = name
        self.clauses = clauses
        self.n = n_options
        self.interruptible = interruptible
        self.incremental = not name.startswith(NOT_INCREMENTAL)
        self.solver = solver_class(name=name, bootstrap_with=clauses)
        self.blocked: list[list[int]] = []
        self.calls = 0
        self.interrupted = False

    def __iter__(self):
        while True:
            self.calls += 1
            found = self.solver.solve_limited(expect_interrupt=True) if self.interruptible else self.solver.solve()
            if found is None:
                self.interrupted = True
                return
            if not found:
                return
            model = self.solver.get_model()[: self.n]
            chosen = [v - 1 for v in model if v > 0]
            yield chosen
            block = [-v for v in model] if self.whole else [-(o + 1) for o in chosen]
            if self.incremental:
                self.solver.add_clause(block)
            else:
                # a solver that takes no clause after solving starts afresh with every cover blocked so far
                self.blocked.append(block)
                self.solver.delete()
                self.solver = self.solver_class(name=self.name, bootstrap_with=self.clauses + self.blocked)
