"""Hypothesis strategies shared by the engine tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


@st.composite
def tiled_puzzles(draw, small: bool = False):
    """A box with random holes (a stationary piece), cut into random connected pieces: solvable by construction.

    ``small`` keeps the box within 12 cells, for the brute-force oracle.
    """
    if small:
        X, Y, Z = draw(st.integers(2, 4)), draw(st.integers(2, 3)), 1
    else:
        X, Y, Z = draw(st.integers(3, 5)), draw(st.integers(2, 4)), draw(st.sampled_from([1, 1, 2]))
    cells = [(x, y, z) for x in range(X) for y in range(Y) for z in range(Z)]
    holes = set(draw(st.lists(st.sampled_from(cells), max_size=3)))
    free = [c for c in cells if c not in holes]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    owner: dict = {}
    pieces = []
    for start in free:
        if start in owner:
            continue
        piece = [start]
        owner[start] = len(pieces)
        target = int(rng.integers(3, 6))
        while len(piece) < target:
            x, y, z = piece[int(rng.integers(len(piece)))]
            options = [(x + dx, y + dy, z + dz) for dx, dy, dz in
                       ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))]
            options = [c for c in options if c in set(free) and c not in owner]
            if not options:
                break
            nxt = options[int(rng.integers(len(options)))]
            owner[nxt] = len(pieces)
            piece.append(nxt)
        pieces.append(piece)
    lines = [f"D:xDim={X}:yDim={Y}:zDim={Z}"]
    for k, piece in enumerate(pieces):
        lines.append(f"C:name=p{k}:layout=" + ", ".join(f"{x} {y} {z}" for x, y, z in piece))
    if holes:
        lines.append("C:name=hole:type=S:layout=" + ", ".join(f"{x} {y} {z}" for x, y, z in sorted(holes)))
    lines.append("~D")
    return "\n".join(lines) + "\n"
