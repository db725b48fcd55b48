"""The picture of one solution: a title, the layers side by side and, for a 3-D puzzle, the 3-D view."""

from __future__ import annotations

from bench.drawing.colours import piece_colours
from bench.drawing.isometric import isometric_scene
from bench.drawing.layers import layers_scene
from bench.drawing.scene import Scene, Text
from bench.drawing.solution import Solution

TITLE = 20.0
GAP = 28.0


def draw(solution: Solution) -> Scene:
    """The :class:`~bench.drawing.scene.Scene` of ``solution``; write it with :func:`~bench.drawing.svg.to_svg`.

    Examples
    --------
    >>> import bench
    >>> from bench.drawing.svg import to_svg
    >>> [p] = bench.load("defs/dominoes_4x4.txt")
    >>> cover = bench.Cover.from_puzzle(p)
    >>> svg = to_svg(draw(Solution.from_cover(cover, [0, 5, 10, 15, 16, 19, 22, 23])))  # doctest: +SKIP
    """
    colours = piece_colours(solution.names, [p.name for p in solution.pieces if p.stationary])
    layers = layers_scene(solution, colours)
    out = Scene(title=solution.title)
    top = TITLE if solution.title else 0.0
    if solution.title:
        out.add(Text(6.0, TITLE / 2 + 2, solution.title, 13.0, "#222222", "title", anchor="start"))
    out.place(layers, 0.0, top)
    if solution.three_d:
        view = isometric_scene(solution, colours)
        out.place(view, layers.width + GAP, top + max(0.0, (layers.height - view.height) / 2))
    if solution.title:
        out.width = max(out.width, _text_width(solution.title) + 12.0)
    return out


def _text_width(text: str, size: float = 13.0) -> float:
    # an average glyph of a sans-serif font is at most about 0.6 of its size: room enough for the title
    return 0.6 * size * len(text)
