"""Solution and trace output in polycube's formats.

The format is two letters: the puzzle form (``B`` brief: the placed pieces
only; ``F`` full: a complete definition that reads back as input; ``S``
sub-puzzle: like full, with the placed pieces stationary) and the piece form
(``L`` layout drawing, ``C`` coordinate directives).  Layouts show the box as
horizontal slices side by side, bottom slice first, top row first, drawn by
the conventions of the puzzle's lattice (:mod:`bench.models.definition`), so
that ``F`` output reads back as the same puzzle.
"""

from __future__ import annotations

import numpy as np

from bench.errors import UsageError
from bench.models.lattice import CUBIC, Lattice

FORMS = {"B", "F", "S"}
PIECE_FORMS = {"L", "C"}


def parse_format(text: str) -> tuple[str, str]:
    """``"BL"``, ``"F"``, ``"SC"``... into (puzzle form, piece form)."""
    text = (text or "B").upper()
    form, piece = text[:1], text[1:2] or "L"
    if form not in FORMS or piece not in PIECE_FORMS or len(text) > 2:
        raise UsageError(f"output format '{text}'; expected one of B, F, S followed by L or C (e.g. BL, FC, SL)")
    return form, piece


def layout_lines(grid: np.ndarray, lattice: Lattice = CUBIC) -> list[str]:
    """The drawing of a name grid (indexed like the lattice's ``grid_shape``).

    One line per row y, top first; layers side by side, bottom first,
    separated by commas; cells placed as :meth:`Lattice.drawing_column`
    says, so hexagon and triangle rows are offset as in the plane and the
    fcc's rows show only its points.  Reading the lines back as an ``L``
    drawing gives the same cells (white space is ignored there).
    """
    coords = np.indices(grid.shape).reshape(3, -1).T
    coords = coords[lattice.valid(coords)]
    names = [str(grid[tuple(c)]) for c in coords]
    width = max((len(n) for n in names), default=1)
    layer, _ = lattice.drawing_slot(coords)
    start = lattice.drawing_column(coords) * (width + 1) // 2
    n_layers = int(layer.max()) + 1 if len(coords) else 0
    block = [int(start[layer == z].max()) + width for z in range(n_layers)]
    rows = [[[" "] * block[z] for z in range(n_layers)] for _ in range(grid.shape[1])]
    for (_, y, _), z, at, name in zip(coords, layer, start, names):
        rows[y][z][at : at + width] = name.ljust(width)
    return [", ".join("".join(b) for b in rows[y]).rstrip() for y in range(grid.shape[1] - 1, -1, -1)]


def _coords(cells) -> str:
    return ", ".join(" ".join(str(int(v)) for v in c) for c in sorted(map(tuple, np.asarray(cells).tolist())))


def _header(puzzle) -> str:
    X, Y, Z = puzzle.dims
    lattice = "" if puzzle.lattice is CUBIC else f":lattice={puzzle.lattice.name}"
    return f"D:xDim={X}:yDim={Y}:zDim={Z}" + lattice + (":oneSide" if puzzle.one_side else "")


def render(cover, options, form: str = "B", piece_form: str = "L", partial: bool = False) -> list[str]:
    """Lines for one solution (or partial assembly) of a puzzle cover; a matrix's are its options in Knuth's format."""
    puzzle = cover.puzzle
    if puzzle is None:
        from bench.formats.xcc import option_lines

        return option_lines(cover, sorted(int(o) for o in options))
    placed = cover.placements(options, partial)
    grid = np.full(puzzle.grid_dims, ".", dtype=object)
    for name, coords, _ in placed:
        grid[coords[:, 0], coords[:, 1], coords[:, 2]] = name
    if form == "B":
        if piece_form == "L":
            return layout_lines(grid, puzzle.lattice)
        return [f"C:name={name}:type={'S' if fixed else 'M'}:layout={_coords(c)}" for name, c, fixed in placed]
    used = {name for name, _, _ in placed}
    unplaced = [p for p in puzzle.definition.pieces if not p.stationary and p.name not in used]
    lines = [_header(puzzle)]
    # a drawing holds one character per cell, so longer names force coordinates
    drawable = piece_form == "L" and all(len(name) == 1 for name, _, _ in placed)
    fixed_names = [name for name, _, fixed in placed if fixed or form == "S"]
    for piece in unplaced:
        lines.append(f"C:name={piece.name}:type=M:layout={_coords(piece.cells)}")
    if drawable:
        lines.append("L:stationary=" + " ".join(fixed_names) if fixed_names else "L")
        lines.extend(layout_lines(grid, puzzle.lattice))
        lines.append("~L")
    else:
        for name, c, fixed in placed:
            lines.append(f"C:name={name}:type={'S' if fixed or form == 'S' else 'M'}:layout={_coords(c)}")
    lines.append("~D")
    return lines
