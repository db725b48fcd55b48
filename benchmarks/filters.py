"""The filters benchmark: the polycube article's constraint cases, each configuration in the same run.

Each case is one ``bench run`` on the unfiltered matrix (``-r`` only); the
filters and triggers are engine variants (:func:`bench.engines.variants.parse_tuning`),
so every row solves the same encoding.  A filter given N pieces acts at every
node while N or more remain; N = all pieces is the one-shot filter.  Every
row runs DLX's sparse-set kernel (``dlx:sets``), the one that filters at
search nodes, so a row differs from another by its filters alone (unfiltered
DLX runs on option bitsets by default, 4-5 times as fast: see
:mod:`benchmarks.dlx`).  Written to ``results/filters-CASE.json`` and
``.md``:

``10x6``
    pentominoes, DLX with the ``s`` heuristic: P1 (``dlx:sets``) against P2
    (one-shot volume filter, ``dlx:sets/V12``), and P2 with the parity
    trigger (``dlx:sets/V12/p``) and the volume trigger (``dlx:sets/V12/v6``).
``30x3``
    one-sided pentominoes 30x3, DLX without and with the one-shot volume
    filter (``dlx:sets/V18``).
``diamond``
    the 13x13 pentomino + tetromino diamond: PT1 (``dlx:sets``), the one-shot
    volume filter (``dlx:sets/V17``) and PT2, the volume filter after every
    placement while 13 or more pieces remain (``dlx:sets/V13``).

``python -m benchmarks.filters [CASE ...] [--rounds R]``; no case runs all.
"""

from __future__ import annotations

import sys

from benchmarks import cases

CASES = {
    "10x6": (["-e", "dlx:sets,dlx:sets/V12,dlx:sets/V12/p,dlx:sets/V12/v6", "--timeout", "300"], "defs/pentominoes_10x6.txt", 3),
    "30x3": (["-e", "dlx:sets,dlx:sets/V18", "--timeout", "600"], "defs/pentominoes_1s_30x3.txt", 3),
    "diamond": (["-e", "dlx:sets,dlx:sets/V17,dlx:sets/V13", "--timeout", "1800"], "defs/pentominoes_tetrominoes_diamond_13x13.txt", 1),
}


def main(argv: list[str] | None = None) -> int:
    """Run the chosen cases (all by default); returns 1 if any count disagreed."""
    return cases.main("filters", CASES, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
