"""Solution and trace output in polycube's formats.

The format is two letters: the puzzle form (``B`` brief: the placed pieces
only; ``F`` full: a complete definition that reads back as input; ``S``
sub-puzzle: like full, with the placed pieces stationary) and the piece form
(``L`` layout drawing, ``C`` coordinate directives).  Layouts show the box as
horizontal slices side by side, bottom slice first, top row first.
"""

from __future__ import annotations

import numpy as np

from bench.errors import UsageError

FORMS = {"B", "F", "S"}
PIECE_FORMS = {"L", "C"}


def parse_format(text: str) -> tuple[str, str]:
    """``"BL"``, ``"F"``, ``"SC"``... into (puzzle form, piece form)."""
    text = (text or "B").upper()
    form, piece = text[:1], text[1:2] or "L"
    if form not in FORMS or piece not in PIECE_FORMS or len(text) > 2:
        raise UsageError(f"output format '{text}'; expected one of B, F, S followed by L or C (e.g. BL, FC, SL)")
    return form, piece


def layout_lines(grid: np.ndarray) -> list[str]:
    """The drawing of a name grid: one line per y (top first), slices separated by commas."""
    X, Y, Z = grid.shape
    width = max((len(str(v)) for v in grid.ravel()), default=1)
    lines = []
    for y in range(Y - 1, -1, -1):
        slices = [" ".join(str(grid[x, y, z]).ljust(width) for x in range(X)).rstrip() for z in range(Z)]
        lines.append(", ".join(slices))
    return lines


def _coords(cells) -> str:
    return ", ".join(" ".join(str(int(v)) for v in c) for c in sorted(map(tuple, np.asarray(cells).tolist())))


def _header(puzzle) -> str:
    X, Y, Z = puzzle.dims
    return f"D:xDim={X}:yDim={Y}:zDim={Z}" + (":oneSide" if puzzle.one_side else "")


def render(cover, options, form: str = "B", piece_form: str = "L", partial: bool = False) -> list[str]:
    """Lines for one solution (or partial assembly) of a puzzle cover."""
    puzzle = cover.puzzle
    placed = cover.placements(options, partial)
    grid = np.full(puzzle.dims, ".", dtype=object)
    for name, coords, _ in placed:
        grid[coords[:, 0], coords[:, 1], coords[:, 2]] = name
    if form == "B":
        if piece_form == "L":
            return layout_lines(grid)
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
        lines.extend(layout_lines(grid))
        lines.append("~L")
    else:
        for name, c, fixed in placed:
            lines.append(f"C:name={name}:type={'S' if fixed or form == 'S' else 'M'}:layout={_coords(c)}")
    lines.append("~D")
    return lines
