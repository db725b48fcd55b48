"""Unique and total where covers are plentiful: Burnside's lemma instead of a canonical check per cover.

The native searches classify each cover as they find it
(:func:`~bench.kernels.canonical.classify_cover`): cheap next to the nodes
where covers are rare, but half the search where they are plentiful (the
13 million domino tilings of 8x8, 5.8 nodes a cover).  Where the filtered
matrix is closed under the symmetry group (no redundancy filter: every
image of every option was kept), each cover's whole orbit is in it, so

- total = covers, and
- unique = (covers + the sum over g != e of Fix(g)) / |G| (Burnside's lemma),

where Fix(g) counts the covers that g maps onto themselves.  A cover fixed
by g is a union of orbits of options under the cyclic group <g>, each orbit
made of options that do not overlap; Fix(g) is therefore the number of
exact covers of the cells by such orbits: a search over a matrix a fraction
of the size with a fraction of the covers (:func:`fixed_covers`), made once
for the whole puzzle, split or not.

This module counts so only where the cover's cells decide it alone: every
option covers cells and the one item of a single shape whose count the
cells imply (identical pieces filling the board, the many-cover case).
Elsewhere :func:`bulk_group` returns None and the search classifies covers
one by one as before.
"""

from __future__ import annotations

import time

import numpy as np

from bench.engines.protocol import Limits, Result, Settings, Status


def bulk_group(cover) -> list[int] | None:
    """The group elements other than the identity whose fixed covers give unique and total, or None where the
    covers must be classified one by one (a trivial group, a filtered matrix, colours, or items the cells do not
    decide)."""
    sym = cover.symmetry
    if sym.order <= 1 or cover.opt_colour is not None or cover.n_options == 0 or np.any(sym.opt_map < 0):
        return None
    n_cells = cover.n_cells
    extra = cover.n_items - n_cells
    if n_cells == 0 or extra > 1:
        return None
    if np.any(cover.item_lo[:n_cells] != 1) or np.any(cover.item_hi[:n_cells] != 1):
        return None
    sizes = np.diff(cover.opt_ptr)
    if extra == 1:
        # every option places one piece of the one shape: the count the cells imply must be the item's
        in_shape = np.bincount(cover.opt_items, minlength=cover.n_items)[n_cells]
        size = int(sizes[0]) - 1
        if (in_shape != cover.n_options or np.any(sizes != size + 1) or size <= 0 or n_cells % size
                or cover.item_lo[n_cells] != n_cells // size or cover.item_hi[n_cells] != n_cells // size):
            return None
    return list(range(1, sym.order))


def quotient_options(cover, g: int) -> list[list[int]]:
    """The cells of each orbit of options under <g> whose options do not overlap, one row per orbit."""
    opt_map = cover.symmetry.opt_map
    seen = np.zeros(cover.n_options, dtype=bool)
    rows = []
    for o in range(cover.n_options):
        if seen[o]:
            continue
        orbit = [o]
        seen[o] = True
        nxt = int(opt_map[g, o])
        while nxt != o:
            orbit.append(nxt)
            seen[nxt] = True
            nxt = int(opt_map[g, nxt])
        cells = [int(i) for m in orbit for i in cover.option(m) if i < cover.n_cells]
        if len(cells) == len(set(cells)):
            rows.append(cells)
    return rows


def fixed_covers(cover, g: int) -> int:
    """Fix(g): the covers of ``cover`` that group element ``g`` maps onto themselves (see the module's docstring)."""
    from bench.engines import get_engine
    from bench.models.cover import Cover

    rows = quotient_options(cover, g)
    # a cell no orbit covers leaves no symmetric cover (and a matrix that DLX would reject as unsolvable)
    if not rows or len({c for r in rows for c in r}) < cover.n_cells:
        return 0
    # orbits with the same cells are different covers (two dominoes across a 2x2 block, or two down): each repeat
    # gets an item of its own that nothing else covers, so that the matrix keeps both
    first: set = set()
    extra = 0
    for row in rows:
        key = tuple(sorted(row))
        if key in first:
            row.append(cover.n_cells + extra)
            extra += 1
        first.add(key)
    quotient = Cover.from_options(rows, [1] * cover.n_cells + [0] * extra, [1] * (cover.n_cells + extra),
                                  n_cells=cover.n_cells)
    result = get_engine("dlx").solve(quotient, Settings(), Limits())
    if result.status != Status.SOLVED:
        raise RuntimeError(f"counting the covers fixed by element {g} ended {result.status.value}: {result.message}")
    return int(result.covers)


def count_orbits(cover, result: Result, group: list[int]) -> None:
    """Fill in ``result``'s unique and total from its covers and the covers each element of ``group`` fixes.

    Adds the seconds spent to the result's solve time (and apart, as
    ``orbits``), and the fixed covers per element to its stats
    (``fixed_covers``, identity first).
    """
    start = time.perf_counter()
    fixed = [fixed_covers(cover, g) for g in group]
    order = cover.symmetry.order
    numerator = result.covers + sum(fixed)
    if numerator % order:
        raise AssertionError(f"Burnside's count {numerator} is not a multiple of the group's order {order}")
    result.unique = numerator // order
    result.total = result.covers
    seconds = time.perf_counter() - start
    result.stats = {**result.stats, "fixed_covers": [result.covers, *fixed]}
    result.timings = {**result.timings, "orbits": seconds, "solve": result.timings.get("solve", 0.0) + seconds}
