"""Pictures for notebooks: a puzzle's board, a solution, a result's first kept solution, as SVG text.

``import bench`` under IPython registers :func:`svg_of` for
:class:`~bench.models.puzzle.Puzzle`, :class:`bench.api.Solution` and
:class:`~bench.engines.protocol.Result`, so a notebook shows them as
pictures.
"""

from __future__ import annotations

from bench.drawing.picture import draw
from bench.drawing.solution import Placed, Solution
from bench.drawing.scene import to_svg


def svg_of(value) -> str | None:
    """The SVG of a puzzle (its board, stationary pieces in place), a solution, or a result's first solution.

    None for a result without a kept solution (IPython then shows its text).
    """
    if hasattr(value, "cover") and hasattr(value, "options"):
        return to_svg(draw(Solution.from_cover(value.cover, value.options, title=value.puzzle.name)))
    if hasattr(value, "shapes") and hasattr(value, "stationary"):
        pieces = tuple(Placed(p.name, p.cells, True) for p in value.stationary)
        names = tuple(sorted({p.name for p in value.definition.pieces}))
        board = Solution(value.lattice.name, tuple(int(d) for d in value.dims), pieces, names, value.name)
        return to_svg(draw(board))
    kept = getattr(value, "solutions", None)
    if kept and hasattr(kept[0], "cover"):
        return svg_of(kept[0])
    return None
