"""A solution as a drawing needs it: the lattice, the box and the cells of each piece.

It is what :func:`bench.drawing.picture.draw` takes, what ``bench run``
stores in its result file (one per puzzle, so reports show a picture
without running a solver) and what reads back from there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.errors import BenchError
from bench.models.graph import seams
from bench.models.lattice import LATTICES


@dataclass(frozen=True)
class Placed:
    """One piece of a solution: its name, its cells (``int64[n, 3]`` lattice triples), whether it is stationary."""

    name: str
    cells: np.ndarray
    stationary: bool = False


@dataclass(frozen=True)
class Solution:
    """The pieces of one solution on a lattice.

    ``names`` lists every piece of the puzzle, placed or not, so that the
    colours (chosen from the names) are the same in every solution.
    """

    lattice: str
    dims: tuple[int, int, int]
    pieces: tuple[Placed, ...]
    names: tuple[str, ...]
    title: str = ""
    wrap: str = ""
    """The axes the board wraps round (``x``, ``y``, ``xy``): its seams are marked."""
    seams: tuple = ()
    """A graph board's edges the plane does not draw, ``(cell, ghost, partner)`` (:func:`bench.models.graph.seams`):
    marked as a wrapped box's seams are."""

    @classmethod
    def from_cover(cls, cover, options, title: str = "", partial: bool = False) -> "Solution":
        """The solution of ``cover`` made of ``options`` (an exact cover, or a partial one with ``partial``)."""
        puzzle = cover.puzzle
        pieces = tuple(Placed(name, np.asarray(cells, dtype=np.int64), bool(fixed))
                       for name, cells, fixed in cover.placements(options, partial))
        # a piece's copies (copies=) are placed under names of their own: NAME.2, NAME.3, ...
        names = tuple(sorted({p.name for p in puzzle.definition.pieces} | {n for s in puzzle.shapes for n in s.names}))
        joins = seams(puzzle.graph, puzzle.lattice) if puzzle.graph is not None else ()
        return cls(puzzle.lattice.name, tuple(int(d) for d in puzzle.dims), pieces, names, title,
                   puzzle.definition.wrap, joins)

    @property
    def three_d(self) -> bool:
        """True when the drawing needs more than one layer."""
        return self.dims[2] > 1 and not LATTICES[self.lattice].flat

    def to_json(self) -> dict:
        """The form stored in result files."""
        out = {"lattice": self.lattice, "dims": list(self.dims), "names": list(self.names), "title": self.title,
               "pieces": [{"name": p.name, "stationary": p.stationary, "cells": p.cells.tolist()} for p in self.pieces]}
        if self.wrap:
            out["wrap"] = self.wrap
        if self.seams:
            out["seams"] = [[list(c) for c in seam] for seam in self.seams]
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Solution":
        """Read back :meth:`to_json`'s form.

        Raises
        ------
        BenchError
            When a field is missing or of the wrong kind.
        """
        try:
            if data["lattice"] not in LATTICES:
                raise BenchError(f"stored solution: unknown lattice {data['lattice']!r}")
            pieces = tuple(Placed(str(p["name"]), np.asarray(p["cells"], dtype=np.int64).reshape(-1, 3),
                                  bool(p.get("stationary", False))) for p in data["pieces"])
            joins = tuple(tuple(tuple(int(v) for v in cell) for cell in seam) for seam in data.get("seams", ()))
            if any(len(seam) != 3 or any(len(cell) != 3 for cell in seam) for seam in joins):
                raise BenchError("stored solution: a seam is not three cells (x, y, z)")
            return cls(data["lattice"], tuple(int(d) for d in data["dims"]), pieces,
                       tuple(str(n) for n in data["names"]), str(data.get("title", "")), str(data.get("wrap", "")),
                       joins)
        except (KeyError, TypeError, ValueError) as exc:
            raise BenchError(f"stored solution is malformed ({type(exc).__name__}: {exc})") from None
