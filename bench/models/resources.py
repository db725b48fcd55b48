"""What a puzzle will cost in memory, estimated before anything large is allocated.

A few lines of definition can ask for tens of gigabytes: a 60x60x60 box of
27 cubes of side 20 has 68,921 images of 8,000 cells each (12 GiB while
they are built), 64,000 monominoes in a 40x40x40 box make the search's
level stack 64,000 levels by 64,001 items (30.5 GiB).  :func:`estimate`
adds up the large arrays from the box and the shapes alone (no image is
built): the images and their construction, the matrix and its symmetry
tables, the search's stacks (the larger of DLX's two kernels), the fit
filter's table when it is asked for and the spare pieces' volume table.
Each term is an upper bound of the same order as the real figure, so
:func:`check_memory` can refuse a puzzle above the limit with a
``path:line:`` message that names the option raising it, in well under a
second and with next to no memory.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from bench.errors import DefinitionError, UsageError

DEFAULT_MAX_MEMORY = 2 << 30
"""Bytes a puzzle may need by default: far above every bundled puzzle, far below what a shared machine can spare."""
OPTION = "--max-memory"
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*([KMGT]?)(?:i?B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


@dataclass(frozen=True)
class Estimate:
    """Estimated peak bytes of one puzzle, and the terms it is made of (name -> bytes)."""

    parts: dict

    @property
    def total(self) -> int:
        """The estimated peak: the sum of the terms (some never coexist, so it errs on the safe side)."""
        return int(sum(self.parts.values()))

    def largest(self) -> str:
        """The dominant term, e.g. ``search stacks 30.5 GiB``."""
        name = max(self.parts, key=self.parts.get)
        return f"{name} {format_size(self.parts[name])}"


def format_size(n: float) -> str:
    """Bytes for people: ``512 MiB``, ``30.5 GiB``.

    >>> format_size(3 << 30), format_size(1536 << 20), format_size(700)
    ('3 GiB', '1.5 GiB', '700 B')
    """
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} B"


def parse_size(text: str) -> int:
    """A size from the command line: bytes, or a number with K, M, G or T (binary units; ``iB`` or ``B`` may follow).

    >>> parse_size("4G"), parse_size("512M"), parse_size("1.5GiB"), parse_size("1000")
    (4294967296, 536870912, 1610612736, 1000)

    Raises
    ------
    UsageError
        For anything else, zero included.
    """
    match = _SIZE.match(text)
    value = float(match.group(1)) * _UNITS[match.group(2).upper()] if match else 0.0
    if not match or not math.isfinite(value) or value < 1:
        raise UsageError(f"{OPTION} {text!r}: expected a size such as 4G, 512M or a number of bytes")
    return int(value)


def estimate(puzzle, fit_filter: bool = False) -> Estimate:
    """Upper bounds of the large arrays ``puzzle`` will need, from its box and shapes (nothing is built)."""
    grid = [int(g) for g in puzzle.grid_dims]
    moving = [bool(m) for m in puzzle.lattice.translation_axes]
    images = entries = widest = 0
    for shape in puzzle.shapes:
        for cells in shape.orientations:
            extent = cells.max(axis=0) - cells.min(axis=0) + 1
            # Python integers: a huge box must not wrap around in int64 and pass the check
            positions = math.prod(max(g - int(e) + 1, 0) if m else 1 for g, e, m in zip(grid, extent, moving))
            images += positions
            entries += positions * shape.size
            widest = max(widest, positions * shape.size)
    n_open = puzzle.n_open
    n_items = n_open + len(puzzle.shapes)
    # as :attr:`bench.models.cover.Cover.max_depth`: every option covers a cell and places a piece
    depth = min(images, n_open, sum(s.multiplicity for s in puzzle.shapes)) + 1
    words = (images + 63) // 64
    # every motion of the lattice, not the puzzle's group: a bound that costs nothing, where the group
    # costs as much as the encoding (0.15 s for the Tetris Cube) and a cover read from the cache needs none
    order = len(puzzle.lattice.motions)
    parts = {
        "box": puzzle.grid_cells * 32,
        # one orientation's translations are built at once: int64 coordinates and cell numbers per cell
        "image construction": widest * 56,
        "images": entries * 8 + images * 24,
        "matrix": (entries + images) * 24 + images * order * 8,
        # DLX on sparse sets keeps the item counts per level; on bitsets the live options per level
        "search stacks": max(2 * depth * n_items * 4 + (entries + images) * 16,
                             (n_items + 3 * depth) * words * 8),
    }
    if fit_filter:
        parts["fit filter table"] = images * n_items * 8
    if puzzle.spare:
        parts["spare volume table"] = 3 * (n_open + 1) * (2 * n_open + 1)
    return Estimate(parts)


def check_memory(puzzle, limit: int | None = DEFAULT_MAX_MEMORY, fit_filter: bool = False) -> Estimate:
    """Refuse ``puzzle`` when its :func:`estimate` exceeds ``limit`` bytes (None: no limit).

    Raises
    ------
    DefinitionError
        At the puzzle's ``D`` line, naming the estimate, its largest term,
        the limit and the option that raises it.
    """
    needed = estimate(puzzle, fit_filter)
    if limit is not None and needed.total > limit:
        definition = puzzle.definition
        raise DefinitionError(definition.path, definition.line,
                              f"this puzzle needs about {format_size(needed.total)} of memory ({needed.largest()}), "
                              f"more than the {format_size(limit)} allowed; raise the limit with "
                              f"{OPTION} SIZE (e.g. {OPTION} {_suggest(needed.total)})")
    return needed


def _suggest(total: int) -> str:
    gib = -(-total // (1 << 30))
    return f"{gib}G"
