"""``bench solve --draw DIR``: a picture of every solution as it is found, and an HTML gallery of the first ones.

:class:`SolutionDrawer` is a solution sink (what engines hand their covers
to), so it sees every solution whether or not the text output is silenced.
Each solution goes to ``DIR/PUZZLE-NNNN.svg`` (or ``.png``); at the end
``DIR/PUZZLE.html`` shows the first ``limit`` of them inline (one file,
readable without a network or JavaScript).
"""

from __future__ import annotations

from pathlib import Path

from bench.drawing.geometry import footprint
from bench.drawing.picture import draw
from bench.drawing.scene import to_svg, write_png
from bench.drawing.solution import Solution
from bench.html import markup, render_template

FORMATS = ("svg", "png")
DEFAULT_LIMIT = 60


def puzzle_stem(puzzle) -> str:
    """A file name for a puzzle's pictures: the definition file's stem, ``-N`` for its N-th puzzle after the first."""
    definition = puzzle.definition
    stem = Path(str(definition.path)).stem if str(definition.path) != "-" else "stdin"
    return stem + ("" if definition.index == 1 else f"-{definition.index}")


class SolutionDrawer:
    """Draws each solution it receives into ``directory``; :meth:`finish` writes the gallery page.

    ``unique_only`` keeps the solutions that are unique up to symmetry (as
    ``-u`` prints them); ``partial`` draws goal-mode partial assemblies.
    """

    def __init__(self, cover, directory: Path, fmt: str = "svg", unique_only: bool = False, partial: bool = False,
                 limit: int = DEFAULT_LIMIT):
        self.cover = cover
        self.directory = Path(directory)
        self.fmt = fmt
        self.unique_only = unique_only
        self.partial = partial
        self.limit = limit
        self.stem = puzzle_stem(cover.puzzle)
        self.drawn = 0
        self.items: list[dict] = []
        self.three_d = False
        self.directory.mkdir(parents=True, exist_ok=True)

    def __call__(self, batch, weights) -> None:
        for options, weight in zip(batch, weights):
            if self.unique_only and not self.partial and weight == 0:
                continue
            self.drawn += 1
            kind = "partial assembly" if self.partial else "solution"
            solution = Solution.from_cover(self.cover, options, f"{self.stem}: {kind} {self.drawn}", self.partial)
            self.three_d = solution.three_d
            scene = draw(solution)
            path = self.directory / f"{self.stem}-{self.drawn:04d}.{self.fmt}"
            if self.fmt == "png":
                write_png(scene, path)
            else:
                svg = to_svg(scene)
                path.write_text(svg + "\n", encoding="utf-8")
            if len(self.items) < self.limit:
                self.items.append({"svg": to_svg(scene) if self.fmt == "png" else svg, "file": path.name})

    def also(self, sink):
        """A sink that hands each batch to ``sink`` (the text printer) and then draws it."""

        def both(batch, weights):
            sink(batch, weights)
            self(batch, weights)

        return both

    def finish(self) -> Path:
        """Write the gallery page; returns its path."""
        page = self.directory / f"{self.stem}.html"
        items = [{"svg": markup(item["svg"]), "file": item["file"]} for item in self.items]
        page.write_text(render_template("bench.drawing", "gallery.html.j2", title=f"{self.stem}: solutions",
                                        items=items, shown=len(items), found=self.drawn, limit=self.limit,
                                        three_d=self.three_d,
                                        spheres=footprint(self.cover.puzzle.lattice.name).radius is not None),
                      encoding="utf-8")
        return page
