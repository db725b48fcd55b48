"""The FILA benchmark: the FILA article's test cases, FILA against DLX and the libraries, in the same runs.

Each case is one ``bench run`` (one encoding per puzzle, engines in forked
children, interleaved rounds, medians, JIT compile apart) written to
``results/fila-CASE.json`` and rendered to ``results/fila-CASE.md``:

``10x6``
    pentominoes with ``-r -V``: P4 (``fila:f11/of=11/n0``, polycube
    1.2.1's search tree), P5 (``fila:f11/of=11/n``), FILA's own defaults,
    DLX with the same filters on both of its kernels (``dlx``, option
    bitsets; ``dlx:sets``, sparse sets), choosing by fewest options (P2)
    and filling in FILA's order (P3, ``of``: the article's like-for-like
    comparison), and xcover on the same matrix.
``tetriscube``
    ``-r L`` (piece L held to one orientation): TC4, TC3 (no NOF), DLX
    (TC1) and xcover.
``diamond``
    the 13x13 pentomino + tetromino diamond with ``-r -V``: PT5
    (``fila:V13/f13/oe=13:f=3/n``, DLX filtering by volume at every node
    until FILA takes over with 13 pieces left; what ``bench solve -e fila``
    picks for this region), the same without the repeated volume filter,
    and DLX with the same filters (PT2, ``dlx:V13``).
``onesided18x5``
    one-sided pentominoes 18x5 with ``-r -V -f17 -of=17 -n`` (OP4, 128-cell
    bitfield): one round, it runs for minutes.

``python -m benchmarks.fila [CASE ...] [--rounds R]``; no case runs all.
"""

from __future__ import annotations

import sys

from benchmarks import cases

CASES = {
    "10x6": (["-e", "fila:f11/of=11/n0,fila:f11/of=11/n,fila,dlx,dlx:sets,dlx:of,dlx:sets/of,xcover", "-V", "--timeout", "120"],
             "defs/pentominoes_10x6.txt", 9),
    "tetriscube": (["-e", "fila:f11/oe=11:f=3/n,fila:f11/oe=11:f=3/n0,dlx,xcover", "-r", "L", "--timeout", "600"],
                   "defs/tetriscube.txt", 3),
    "diamond": (["-e", "fila:V13/f13/oe=13:f=3/n,fila:f13/oe=13:f=3/n,dlx:V13", "-V", "--timeout", "900"],
                "defs/pentominoes_tetrominoes_diamond_13x13.txt", 3),
    "onesided18x5": (["-e", "fila:f17/of=17/n", "-V", "--timeout", "3000"], "defs/pentominoes_1s_18x5.txt", 1),
}


def main(argv: list[str] | None = None) -> int:
    """Run the chosen cases (all by default); returns 1 if any count disagreed."""
    return cases.main("fila", CASES, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
