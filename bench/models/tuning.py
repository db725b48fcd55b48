"""Where DLX with the repeated volume filter hands over to FILA in an untuned search, and how fast subtrees grow.

Which piece the redundancy filter constrains is chosen from estimates of
each candidate's search (:mod:`bench.engines.autoconfig`).

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

# a branch's subtree grows about as the fifth power of the options its placement leaves (measured on the Tetris
# Cube: 15 % more options left doubled FILA's time); the parallel runner weighs its sub-problems by it
GROWTH_EXPONENT = 5.0
# the share of images the one-shot volume filter removes from a region prone to partition
PARTITION_PRONE = 0.15
# the share of the pieces DLX places there, filtering at every node, before FILA takes over
FILTERED_SHARE = 0.25
# fewer pieces than this leave too little search for filtering at every node to pay for itself
MIN_FILTERED_PIECES = 12


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
