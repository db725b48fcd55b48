"""The lattice benchmark: puzzles off the cubic grid, the native engines against xcover in the same runs.

Each case is one ``bench run`` written to ``results/lattices-CASE.json``
and rendered to ``results/lattices-CASE.md``:

``meteor``
    the Meteor puzzle of the Computer Language Benchmarks Game (10
    pentahexes on a board of 10 rows of 5 hexagons, all 2,098 solutions):
    FILA's defaults, DLX on option bitsets and on sparse sets, and xcover,
    all on the matrix with the redundancy filter.
``hexiamonds``
    the 12 hexiamonds in the 6x6 rhombus (156 unique, 624 in all): the same
    engines.

``python -m benchmarks.lattices [CASE ...] [--rounds R]``; no case runs all.
"""

from __future__ import annotations

import sys

from benchmarks import cases

CASES = {
    "meteor": (["-e", "fila,dlx,dlx:sets,xcover", "--timeout", "300"], "defs/meteor.txt", 9),
    "hexiamonds": (["-e", "fila,dlx,dlx:sets,xcover", "--timeout", "300"], "defs/hexiamonds_6x6.txt", 5),
}


def main(argv: list[str] | None = None) -> int:
    """Run the chosen cases (all by default); returns 1 if any count disagreed."""
    return cases.main("lattices", CASES, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
