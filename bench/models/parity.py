"""The parity monitor: which checkerboard parities the pieces still to place can reach.

Every image has a signed parity (black minus white cells under the lattice's
colouring); the open region has one too, and a solution's images add up to
it exactly.  Pieces are grouped into *classes* by the set of parities their
images take (``{-1, 1}``, ``{-3, 3}``, ``{0}``, ...): what a group of pieces can
reach depends only on how many pieces of each class it holds.  The monitor
numbers those states mixed-radix (one digit per class, zero-parity classes
left out since they never move the sum) and tabulates, per state, the
reachable sums.  The search keeps the state index and the region's parity
per level, so a check is one table lookup (polycube's parity state objects,
as a flat array).

With spare pieces a piece may also stay unused, so each piece adds 0 as well:
the table then over-approximates (a sound check that prunes a little less).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.errors import UsageError

MAX_TABLE = 1 << 26


@dataclass(frozen=True)
class ParityMonitor:
    """Reachable parities per state of the pieces left.

    Attributes
    ----------
    ok : uint8[n_states, 2 * offset + 1]
        ``ok[s, d + offset]`` is 1 when the pieces of state ``s`` can add up
        to parity ``d``.
    offset : int
        The largest parity magnitude all pieces reach together.
    step : int64[n_shapes]
        How much placing one piece of each shape lowers the state index.
    root : int
        The state with every piece left.
    target : int
        The open region's parity.
    """

    ok: np.ndarray
    offset: int
    step: np.ndarray
    root: int
    target: int

    def reachable(self, state: int, parity: int) -> bool:
        """True when the pieces of ``state`` can add up to ``parity``."""
        k = parity + self.offset
        return 0 <= k < self.ok.shape[1] and bool(self.ok[state, k])


def shape_parity_values(puzzle) -> list[tuple[int, ...]]:
    """The distinct signed parities each shape's bounded images take."""
    parity, shape_of = puzzle.image_parity, puzzle.images.shape
    return [tuple(int(v) for v in np.unique(parity[shape_of == s.index])) for s in puzzle.shapes]


def parity_monitor(puzzle) -> ParityMonitor:
    """Build the monitor of a puzzle.

    Raises
    ------
    UsageError
        When the lattice has no two-colouring (parity means nothing there),
        or when the table would exceed :data:`MAX_TABLE` entries (very many
        classes of pieces with many copies each).
    """
    if not puzzle.lattice.two_colourable:
        raise UsageError(f"the parity filter is not available on the {puzzle.lattice.name} lattice (it has no two-colouring); "
                         "leave out --parity-filter/--parity-backtrack for this puzzle")
    values = shape_parity_values(puzzle)
    classes: dict[tuple[int, ...], int] = {}
    for shape, vals in zip(puzzle.shapes, values):
        if any(vals):
            classes[vals] = classes.get(vals, 0) + shape.multiplicity
    keys = list(classes)
    counts = [classes[k] for k in keys]
    radix = np.cumprod([1] + [c + 1 for c in counts])
    n_states = int(radix[-1])
    offset = sum(c * max(abs(v) for v in k) for k, c in zip(keys, counts))
    width = 2 * offset + 1
    if n_states * width > MAX_TABLE:
        raise UsageError(f"parity monitor: {n_states} piece states x {width} parities is too large a table; "
                         "leave out --parity-filter/--parity-backtrack for this puzzle")
    ok = np.zeros((n_states, width), dtype=np.uint8)
    ok[0, offset] = 1
    for s in range(1, n_states):
        # the pieces of s are those of a smaller state plus one piece of class k
        k = next(j for j in range(len(keys)) if (s // radix[j]) % (counts[j] + 1) > 0)
        prev = ok[s - radix[k]]
        row = prev.copy() if puzzle.spare else np.zeros(width, dtype=np.uint8)
        for v in keys[k]:
            if v >= 0:
                row[v:] |= prev[: width - v]
            else:
                row[:v] |= prev[-v:]
        ok[s] = row
    step = np.array([radix[keys.index(v)] if any(v) else 0 for v in values], dtype=np.int64)
    return ParityMonitor(ok, offset, step, n_states - 1, int(puzzle.parity))


def option_parities(cover) -> tuple[np.ndarray, np.ndarray]:
    """Per option of a puzzle cover: its signed parity and its shape number."""
    puzzle = cover.puzzle
    parity = np.asarray(puzzle.image_parity[cover.opt_image], dtype=np.int64)
    shape = np.asarray(puzzle.images.shape[cover.opt_image], dtype=np.int64)
    return parity, shape
