"""The DLX benchmark: this project's DLX against the exact-cover libraries on the same matrices, in the same runs.

Each case is one ``bench run`` (one encoding per puzzle, engines in forked
children, interleaved rounds, medians, JIT compile apart) written to
``results/dlx-CASE.json`` and rendered to ``results/dlx-CASE.md``.  Both
DLX kernels run: ``dlx`` (option bitsets, the engine's choice for these
plain searches) and ``dlx:sets`` (sparse sets); their statistics are equal.

``10x6``
    all 9356 covers of pentominoes 10x6, no redundancy filter.
``tetriscube``
    the 9839 covers of the Tetris Cube with piece L held to one orientation
    (``-r L``); an engine is stopped after 200 s (exact-cover does not finish).

``python -m benchmarks.dlx [CASE ...] [--rounds R]``; no case runs both.
"""

from __future__ import annotations

import sys

from benchmarks import cases

CASES = {
    "10x6": (["-e", "dlx,dlx:sets,xcover,exact-cover", "-r", ".", "--timeout", "300"], "defs/pentominoes_10x6.txt", 3),
    "tetriscube": (["-e", "dlx,dlx:sets,xcover,exact-cover", "-r", "L", "--timeout", "200"], "defs/tetriscube.txt", 1),
}


def main(argv: list[str] | None = None) -> int:
    """Run the chosen cases (all by default); returns 1 if any count disagreed."""
    return cases.main("dlx", CASES, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
