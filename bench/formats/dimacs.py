"""DIMACS CNF whose models are the covers, one for one: for SAT solvers that enumerate and for model counters.

Variables ``1..n`` are the options (option k is variable k + 1).  Every
auxiliary variable is *defined* by them: an item covered ``lo..hi`` times
becomes a sequential counter whose variable ``s[i][j]`` is true exactly
when at least ``j`` of the item's first ``i`` options are chosen (both
directions of the equivalence are clauses), then ``s[n][lo]`` and
``not s[n][hi + 1]`` (at most one: each option excludes the disjunction
of the ones before it, again a defined variable); a coloured item gets a variable per colour, true
exactly when an option of that colour is chosen, and at most one of those
and of the options that give it no colour.  So an assignment of the option
variables that is a cover extends to exactly one model, and no other
assignment extends to any: a plain enumerator (``clasp --models 0``) or
model counter counts the covers, and one that projects (Ganak, d4) may read
the ``c p show`` line of the model counting competition's format (``c t
pmc``) and count the same.  Items the cells force (18 dominoes in 6x6) get
no clauses, as in the SAT engine (:func:`~bench.engines.sat.implied_items`).

This is not the CNF the ``sat`` and ``ganak`` engines build
(:func:`~bench.engines.sat.build_cnf`): their cardinality encodings leave
auxiliary variables free, which only a projecting counter forgives.
"""

from __future__ import annotations

NAME = "dimacs"
SUMMARY = "DIMACS CNF, one model per cover (options are variables 1..n; c p show lists them)"


class Clauses:
    """Clauses over the option variables and the auxiliary variables they define."""

    def __init__(self, n_options: int):
        self.top = n_options
        self.clauses: list[list[int]] = []

    def new(self) -> int:
        """A fresh variable."""
        self.top += 1
        return self.top

    def either(self, a: int, x: int) -> int:
        """A variable equivalent to ``a or x``."""
        s = self.new()
        self.clauses += [[-a, s], [-x, s], [-s, a, x]]
        return s

    def both(self, b: int, x: int) -> int:
        """A variable equivalent to ``b and x``."""
        s = self.new()
        self.clauses += [[-b, -x, s], [-s, b], [-s, x]]
        return s

    def either_or_both(self, a: int, b: int, x: int) -> int:
        """A variable equivalent to ``a or (b and x)``."""
        s = self.new()
        self.clauses += [[-a, s], [-b, -x, s], [-s, a, b], [-s, a, x]]
        return s

    def any_of(self, lits: list[int]) -> int:
        """A variable equivalent to the disjunction of ``lits``."""
        y = self.new()
        self.clauses += [[-lit, y] for lit in lits] + [[-y] + list(lits)]
        return y

    def between(self, lits: list[int], lo: int, hi: int) -> None:
        """Between ``lo`` and ``hi`` of ``lits`` are true, through a sequential counter of defined variables."""
        n = len(lits)
        hi = min(hi, n)
        if lo > n:
            # unsatisfiable: a contradiction rather than an empty clause, which some readers refuse
            v = self.new()
            self.clauses += [[v], [-v]]
            return
        if lo == 0 and hi == n:
            return
        if hi == 1:
            if n <= 6:
                # pairwise: no variable at all
                self.clauses += [[-a, -b] for k, a in enumerate(lits) for b in lits[k + 1:]]
            else:
                # each option excludes the disjunction of the ones before it, a defined variable
                before = lits[0]
                for k, x in enumerate(lits[1:], 1):
                    self.clauses.append([-before, -x])
                    if k < n - 1:
                        before = self.either(before, x)
            if lo == 1:
                self.clauses.append(list(lits))
            return
        top = max(lo, hi + 1 if hi < n else 0)
        # row[j - 1]: at least j of the options so far (j = 1..min(i, top))
        row = [lits[0]]
        for x in lits[1:]:
            new = []
            for j in range(1, min(len(row) + 1, top) + 1):
                if j == 1:
                    new.append(self.either(row[0], x))
                elif j > len(row):
                    new.append(self.both(row[j - 2], x))
                else:
                    new.append(self.either_or_both(row[j - 1], row[j - 2], x))
            row = new
        if lo >= 1:
            self.clauses.append([row[lo - 1]])
        if hi < n:
            self.clauses.append([-row[hi]])


def defined_cnf(cover) -> tuple[list[list[int]], int]:
    """The clauses of ``cover`` (see the module docstring) and the number of variables."""
    from bench.engines.sat import implied_items, item_options

    out = Clauses(cover.n_options)
    skip = implied_items(cover)
    for item, plain, by_colour in cover.colour_classes():
        skip.add(item)
        takes = [out.any_of([o + 1 for o in options]) for options in by_colour.values()]
        out.between([o + 1 for o in plain] + takes, 0, 1)
    for item, lits in enumerate(item_options(cover)):
        if item not in skip:
            out.between(lits, int(cover.item_lo[item]), int(cover.item_hi[item]))
    return out.clauses, out.top


def write(cover, header: dict[str, str]) -> str:
    """The DIMACS text of ``cover``, ``header`` first as comment lines."""
    clauses, n_vars = defined_cnf(cover)
    lines = ["c t pmc"]
    lines += [f"c {key}: {value}" if key else f"c {value}" for key, value in header.items()]
    lines.append(f"c variables 1..{cover.n_options} are the options, in the order of the other formats; "
                 "the others are defined by them")
    lines.append(f"p cnf {n_vars} {len(clauses)}")
    lines.append("c p show " + " ".join(str(v) for v in range(1, cover.n_options + 1)) + " 0")
    lines += [" ".join(map(str, clause)) + " 0" for clause in clauses]
    return "\n".join(lines) + "\n"

