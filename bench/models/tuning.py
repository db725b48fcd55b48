"""Choices a tuned search makes before it starts: which piece the redundancy filter constrains, and
where DLX with the repeated volume filter hands over to FILA.

polycube's automatic choice (:func:`~bench.models.symmetry.choose_redundancy`)
takes the piece with the fewest kept images, which is fine for the X of the
pentominoes but poor for the Tetris Cube: FILA needs 28.7 s with its choice
G, 23.0 s with A and 11.2 s with L, the piece Stephan Westen found by hand
(FILA article, test case TC).  What separates them is how much each kept
placement constrains the rest: a branch's subtree grows steeply with the
options its first placement leaves.  Measured on the Tetris Cube, 15 % more
options left doubles the time (A against L, same 12 kept images), which is
a fifth power; so each candidate costs the sum over its kept images of
(options left)^5, and the cheapest wins.  The same rule picks X for the
10x6 pentominoes (8 kept images against F's 64 with 11 % fewer options left).

A region with jagged edges or islands is easily cut into parts no set of
pieces fills, and the one-shot volume filter shows it: it removes 28 % of
the images of the 13x13 pentomino + tetromino diamond and 21 % of the
hexomino box-in-a-diamond's.  There the FILA article's best row (PT5)
keeps DLX, with the volume filter at every node, for the first quarter of
the pieces and hands the rest to FILA: on the diamond, 35 s, against 52 s
for FILA after the first piece with the volume filter once, and 43-51 s
with the hand-off one or two pieces earlier or later.  Thin rectangles
lose as many images (39 % of the 20x3's), but FILA's left-to-right fill
seldom cuts them off, and filtering at DLX's nodes only slows them down
(one-sided 30x3: 0.22 s against 0.13 s), so rectangles keep FILA's defaults.
So do small puzzles: the Meteor puzzle's 10 pentahexes lose 17 % of their
images to the one-shot filter, yet filtering at DLX's nodes for the first
two pieces takes 0.29 s against 0.12 s without.
"""

from __future__ import annotations

import numpy as np

from bench.kernel_cache import njit
from bench.models.symmetry import Redundancy, redundancy_for_shape

GROWTH_EXPONENT = 5.0
# the share of images the one-shot volume filter removes from a region prone to partition
PARTITION_PRONE = 0.15
# the share of the pieces DLX places there, filtering at every node, before FILA takes over
FILTERED_SHARE = 0.25
# fewer pieces than this leave too little search for filtering at every node to pay for itself
MIN_FILTERED_PIECES = 12


@njit(cache=True)
def _options_left(opt_ptr, opt_items, item_ptr, item_opts):
    n = opt_ptr.shape[0] - 1
    left = np.empty(n, dtype=np.int64)
    stamp = np.full(n, -1, dtype=np.int64)
    for o in range(n):
        conflicting = 0
        for z in range(opt_ptr[o], opt_ptr[o + 1]):
            i = opt_items[z]
            for t in range(item_ptr[i], item_ptr[i + 1]):
                other = item_opts[t]
                if stamp[other] != o:
                    stamp[other] = o
                    conflicting += 1
        left[o] = n - conflicting
    return left


def options_left(cover) -> np.ndarray:
    """For every option, how many options remain once it is placed (those sharing no item with it)."""
    items = cover.opt_items
    item_opts = np.repeat(np.arange(cover.n_options, dtype=np.int32), np.diff(cover.opt_ptr))[np.argsort(items, kind="stable")]
    item_ptr = np.zeros(cover.n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(items, minlength=cover.n_items), out=item_ptr[1:])
    return _options_left(cover.opt_ptr, items, item_ptr, item_opts)


def cheapest_redundancy(puzzle, method: str = "orientation") -> Redundancy | None:
    """The redundancy choice with the best score (fewest symmetric copies kept) and the least estimated work."""
    from bench.models.cover import Cover

    if puzzle.group.order == 1:
        return None
    cover = Cover.from_puzzle(puzzle)
    left = options_left(cover).astype(np.float64)
    option_of_image = {int(image): o for o, image in enumerate(cover.opt_image)}
    best = None
    for shape in puzzle.shapes:
        if shape.multiplicity != 1 or not np.any(puzzle.images.shape == shape.index):
            continue
        cand = redundancy_for_shape(puzzle, shape.index, method)
        kept = [option_of_image[int(i)] for i in cand.kept if int(i) in option_of_image]
        cost = float(np.sum((left[kept] / cover.n_options) ** GROWTH_EXPONENT))
        key = (cand.score, cost, shape.index)
        if best is None or key < best[0]:
            best = (key, cand)
    return best[1] if best else None


def filtered_handoff(puzzle, n_pieces: int, n_images: int, volume_removed: int) -> int | None:
    """Pieces left when DLX, filtering by volume at every node, hands a partition-prone region to FILA.

    ``n_images`` and ``volume_removed`` are the cover's options before the
    one-shot volume filter and the number it removed.  None for a rectangle,
    a puzzle of fewer than :data:`MIN_FILTERED_PIECES` pieces or a region
    that is not prone to partition (FILA's own defaults then apply).

    Examples
    --------
    >>> import bench
    >>> [diamond] = bench.load("defs/pentominoes_tetrominoes_diamond_13x13.txt")
    >>> filtered_handoff(diamond, 17, 2930, 810)   # PT5's -V13 -f13
    13
    >>> [rectangle] = bench.load("defs/pentominoes_20x3.txt")
    >>> filtered_handoff(rectangle, 12, 1182, 466) is None
    True
    """
    if puzzle.rectangle or n_pieces < MIN_FILTERED_PIECES or n_images == 0 or volume_removed < PARTITION_PRONE * n_images:
        return None
    return max(n_pieces - max(int(FILTERED_SHARE * n_pieces), 1), 1)
