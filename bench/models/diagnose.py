"""Reasons a well-formed puzzle has no solution, found without searching.

A piece that fits nowhere is not an input error: the puzzle is legal and
simply unsolvable.  :func:`unsolvable_reasons` lists every such reason that a
cheap static check can prove: an open cell no option covers, a piece with too
few images, a region volume no subset of the pieces adds up to (spare pieces),
and a two-colour parity the pieces cannot reach (on lattices that have a
two-colouring).
"""

from __future__ import annotations

import numpy as np


def _describe_cells(names, cells, limit=5):
    shown = " ".join(names[c] for c in cells[:limit])
    more = f" and {len(cells) - limit} more" if len(cells) > limit else ""
    return shown + more


def shape_parities(puzzle) -> list[np.ndarray]:
    """The distinct parities the bounded images of each shape take."""
    parity = puzzle.image_parity
    return [np.unique(parity[puzzle.images.shape == s.index]) for s in puzzle.shapes]


def reachable_parities(puzzle) -> np.ndarray:
    """Sorted parities the mobile pieces can sum to, all placed (no spare pieces).

    The copies of a shape whose images take at most two parities add up in
    closed form, so 64,000 monominoes cost one step, not 64,000.
    """
    limit = sum(s.size * s.multiplicity for s in puzzle.shapes)
    reach = np.zeros(2 * limit + 1, dtype=bool)
    reach[limit] = True
    for shape, values in zip(puzzle.shapes, shape_parities(puzzle)):
        if len(values) == 0:
            continue
        m = shape.multiplicity
        if len(values) <= 2:
            a, b = int(values[0]), int(values[-1])
            sums = [m * a + k * (b - a) for k in range(m + 1)] if b != a else [m * a]
            steps = [sums]
        else:
            steps = [values] * m
        for step in steps:
            nxt = np.zeros_like(reach)
            for v in step:
                nxt |= np.roll(reach, int(v))
            reach = nxt
    return np.flatnonzero(reach) - limit


def reachable_volume_parity(puzzle) -> np.ndarray:
    """Boolean table ``[volume, parity + n_open]`` of what subsets of pieces can fill, up to the open volume.

    Volumes past the open volume never matter, nor copies of a shape past
    the number that fits in it, so the table and the work grow with the
    region and the distinct shapes, not with the spare copies (20,000 spare
    monominoes once held 2.4 GB for minutes).
    """
    vmax = puzzle.n_open
    reach = np.zeros((vmax + 1, 2 * vmax + 1), dtype=bool)
    reach[0, vmax] = True
    for shape, values in zip(puzzle.shapes, shape_parities(puzzle)):
        if shape.size > vmax:
            continue
        for _ in range(min(shape.multiplicity, vmax // shape.size)):
            nxt = reach.copy()
            for v in values:
                nxt[shape.size :] |= np.roll(reach, int(v), axis=1)[: vmax + 1 - shape.size]
            reach = nxt
    return reach


def unsolvable_reasons(cover) -> list[str]:
    """Every statically provable reason the cover's puzzle has no solution.

    An empty list means no cheap proof was found, not that a solution exists.
    """
    puzzle = cover.puzzle
    reasons = []
    covered = np.zeros(cover.n_items, dtype=np.int64)
    np.add.at(covered, cover.opt_items, 1)
    bare = np.flatnonzero((covered[: cover.n_cells] == 0) & (cover.item_lo[: cover.n_cells] > 0))
    if len(bare):
        reasons.append(f"{len(bare)} open cell(s) no piece can cover: {_describe_cells(cover.item_names, bare)}")
    for k in range(cover.n_cells, cover.n_items):
        if covered[k] < cover.item_lo[k]:
            shape = puzzle.shapes[k - cover.n_cells] if puzzle is not None else None
            what = f"piece {' '.join(shape.names)}" if shape else f"item {cover.item_names[k]}"
            if shape is None:
                where = f"is in {covered[k]} option(s) but must be covered {cover.item_lo[k]} time(s)"
            else:
                where = "fits nowhere in the open region" if covered[k] == 0 else f"has only {covered[k]} placement(s) for {cover.item_lo[k]} copies"
            reasons.append(f"{what} {where}")
    if puzzle is None or reasons or puzzle.has_optional_cells:
        # the volume and parity proofs count on every open cell being filled
        return reasons
    target = puzzle.parity
    if puzzle.spare:
        table = reachable_volume_parity(puzzle)
        vmax = puzzle.n_open
        if not table[puzzle.n_open].any():
            sizes = sorted({s.size for s in puzzle.shapes})
            reasons.append(f"no subset of the pieces (sizes {sizes}) has volume {puzzle.n_open}, the open volume")
        elif puzzle.has_parity and not table[puzzle.n_open, target + vmax]:
            reasons.append(f"parity: no subset of the pieces with volume {puzzle.n_open} reaches the open region's parity {abs(target)}")
    elif puzzle.has_parity:
        reach = reachable_parities(puzzle)
        if target not in reach:
            odd = [(s.name, s.parity, s.multiplicity) for s in puzzle.shapes if s.parity]
            pieces = sum(k for _, _, k in odd)
            reasons.append(f"parity: the open region has parity {abs(target)} but the {pieces} piece(s) of non-zero parity "
                           f"can only reach {_describe_reach(reach)}")
    return reasons


def _describe_reach(reach: np.ndarray) -> str:
    values = sorted({abs(int(v)) for v in reach})
    if len(values) > 8:
        return f"magnitudes {values[0]}..{values[-1]} in steps of {values[1] - values[0]}"
    return "magnitude(s) " + ", ".join(map(str, values))
