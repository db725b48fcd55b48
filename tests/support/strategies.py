"""Hypothesis strategies shared by the engine tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from bench.models.cover import Cover
from bench.models.lattice import get_lattice

# small boxes per lattice: at most about 20 cells, so the reference solver stays quick
_DIMS = {
    "hex": (st.integers(2, 4), st.integers(2, 3), st.just(1)),
    "triangle": (st.integers(2, 3), st.integers(1, 3), st.just(1)),
    "hexprism": (st.integers(2, 3), st.integers(2, 3), st.integers(1, 2)),
    "fcc": (st.integers(3, 4), st.integers(2, 3), st.integers(2, 3)),
    "tetrakis": (st.integers(1, 3), st.integers(1, 2), st.just(1)),
    "tetraocta": (st.integers(3, 4), st.integers(3, 4), st.integers(2, 4)),
}

# boxes that can wrap round: fcc repeats every 2 steps along an axis, tetraocta every 4
_WRAP_DIMS = {
    "fcc": (st.just(4), st.sampled_from([2, 4]), st.integers(2, 3)),
    "tetraocta": (st.sampled_from([4, 8]), st.just(4), st.integers(2, 4)),
    "hexprism": (st.integers(3, 4), st.integers(2, 3), st.integers(1, 2)),
}


@st.composite
def tiled_puzzles(draw, lattice: str = "cubic", small: bool = False, solid: bool = False, wrappable: bool = False):
    """A box with random holes (a stationary piece), cut into random connected pieces: solvable by construction.

    ``lattice`` names the lattice; flat puzzles off the cubic lattice are
    sometimes one-sided.  ``small`` keeps a cubic box within 12 cells, for
    the brute-force oracle (the other lattices' boxes are small anyway);
    ``solid`` makes it a 2- or 3-layer box of at most 18 cells;
    ``wrappable`` draws boxes that may wrap round along x or y (as long as
    the lattice's period, at least 3 round) where the usual ones could not.
    """
    geometry = get_lattice(lattice)
    if lattice == "cubic" and solid:
        dims = draw(st.integers(2, 3)), draw(st.integers(2, 3)), 2
    elif lattice == "cubic" and small:
        dims = draw(st.integers(2, 4)), draw(st.integers(2, 3)), 1
    elif lattice == "cubic":
        dims = draw(st.integers(3, 5)), draw(st.integers(2, 4)), draw(st.sampled_from([1, 1, 2]))
    elif wrappable and lattice in _WRAP_DIMS:
        dims = tuple(draw(s) for s in _WRAP_DIMS[lattice])
    else:
        dims = tuple(draw(s) for s in _DIMS[lattice])
    one_side = lattice != "cubic" and (geometry.flat or dims[2] == 1) and draw(st.booleans())
    cells = [tuple(map(int, c)) for c in geometry.box_coords(dims)]
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
            grow = piece[int(rng.integers(len(piece)))]
            options = [tuple(map(int, c)) for c in geometry.neighbours([grow])[0]]
            options = [c for c in options if c in set(free) and c not in owner]
            if not options:
                break
            nxt = options[int(rng.integers(len(options)))]
            owner[nxt] = len(pieces)
            piece.append(nxt)
        pieces.append(piece)
    X, Y, Z = dims
    header = f"D:xDim={X}:yDim={Y}:zDim={Z}" + ("" if lattice == "cubic" else f":lattice={lattice}")
    lines = [header + (":oneSide" if one_side else "")]
    for k, piece in enumerate(pieces):
        lines.append(f"C:name=p{k}:layout=" + ", ".join(f"{x} {y} {z}" for x, y, z in piece))
    if holes:
        lines.append("C:name=hole:type=S:layout=" + ", ".join(f"{x} {y} {z}" for x, y, z in sorted(holes)))
    lines.append("~D")
    return "\n".join(lines) + "\n"


@st.composite
def matrices(draw):
    """A small matrix: primary items with bounds lo..hi, secondary items (0..1), colours on some of their entries."""
    n_primary = draw(st.integers(1, 3))
    n_secondary = draw(st.integers(0, 3))
    lo, hi = [], []
    for _ in range(n_primary):
        a = draw(st.integers(0, 2))
        lo.append(a)
        hi.append(draw(st.integers(max(a, 1), 3)))
    lo += [0] * n_secondary
    hi += [1] * n_secondary
    n_items = n_primary + n_secondary
    options, colours, seen = [], [], set()
    for _ in range(draw(st.integers(1, 9))):
        items = sorted(draw(st.sets(st.integers(0, n_items - 1), min_size=1, max_size=3)))
        tint = [draw(st.integers(0, 2)) if i >= n_primary else 0 for i in items]
        key = (tuple(items), tuple(tint))
        if key not in seen:
            seen.add(key)
            options.append(items)
            colours.append(tint)
    return Cover.from_options(options, lo, hi, colours=colours, colour_names=["red", "blue"])
