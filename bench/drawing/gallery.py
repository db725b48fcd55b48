"""``bench solve --draw DIR``: a picture of every solution found, and an HTML gallery of the first ones.

:class:`SolutionDrawer` is a solution sink (what engines hand their covers
to), so it sees every solution whether or not the text output is silenced.
Each solution goes to ``DIR/PUZZLE-NNNN.svg`` (or ``.png``), up to
``--draw-max`` of them; at the end ``DIR/PUZZLE.html``
shows the first ``limit`` of them inline (one file, readable without a
network or JavaScript).  The sink only keeps the solutions to draw; they
are drawn once the search is over (:meth:`SolutionDrawer.finish`), so the
seconds spent drawing (:attr:`SolutionDrawer.seconds`) are never counted
as the search's.

Every file goes through :func:`bench.system.files.write_atomic` without following
a symlink: a link named like a picture is replaced, and a FIFO or another
special file of one of the drawer's names is refused before the search.
The pictures of an earlier run of the same puzzle (``PUZZLE-NNNN.*``) are
removed first, so the folder never mixes two runs, and two puzzles of one
file name in a run get stems of their own (``puz``, ``puz_2``).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from bench.drawing.geometry import footprint
from bench.drawing.picture import draw
from bench.drawing.scene import to_png, to_svg
from bench.drawing.solution import Solution
from bench.errors import UsageError
from bench.system.files import refuse_special, write_atomic
from bench.html import markup, render_template

FORMATS = ("svg", "png")
DEFAULT_LIMIT = 60

_claimed: dict[str, set[str]] = {}
"""The stems each drawing folder's puzzles have taken in this process (by the folder's real path)."""


def puzzle_stem(puzzle) -> str:
    """A file name for a puzzle's pictures: the definition file's stem, ``-N`` for its N-th puzzle after the first."""
    definition = puzzle.definition
    stem = Path(str(definition.path)).stem if str(definition.path) not in ("-", "<stdin>") else "stdin"
    return stem + ("" if definition.index == 1 else f"-{definition.index}")


def claim_stem(directory: Path, stem: str) -> str:
    """``stem``, or ``stem_2``, ``stem_3``, ... when another puzzle drawn into ``directory`` took it."""
    taken = _claimed.setdefault(os.path.realpath(directory), set())
    name, n = stem, 1
    while name in taken:
        n += 1
        name = f"{stem}_{n}"
    taken.add(name)
    return name


def clear_stale(directory: Path, stem: str) -> None:
    """Remove an earlier run's pictures and gallery of ``stem`` from ``directory`` (links, never their targets).

    Raises
    ------
    UsageError
        When one of those names is a FIFO, a device, a socket or a directory.
    """
    own = re.compile(rf"{re.escape(stem)}(-\d{{4,}}\.({'|'.join(FORMATS)})|\.html)")
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"--draw {directory}: cannot read the folder: {exc.strerror or exc}") from None
    stale = []
    for entry in entries:
        if own.fullmatch(entry.name):
            refuse_special(Path(entry.path), "--draw", follow=False)
            stale.append(entry.path)
    for path in stale:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise UsageError(f"--draw {path}: cannot remove an earlier run's picture: {exc.strerror or exc}") from None


class SolutionDrawer:
    """Keeps each solution it receives; :meth:`finish` draws them into ``directory`` with the gallery page.

    ``unique_only`` keeps the solutions that are unique up to symmetry (as
    ``-u`` prints them); ``partial`` draws goal-mode partial assemblies;
    ``most`` bounds the pictures written (the rest are counted, not drawn; None: no bound).
    """

    def __init__(self, cover, directory: Path, fmt: str = "svg", unique_only: bool = False, partial: bool = False,
                 limit: int = DEFAULT_LIMIT, most: int | None = None):
        self.cover = cover
        self.directory = Path(directory)
        self.fmt = fmt
        self.unique_only = unique_only
        self.partial = partial
        self.limit = limit
        self.most = most
        self.stem = claim_stem(self.directory, puzzle_stem(cover.puzzle))
        self.found = 0
        self.drawn = 0
        self.seconds = 0.0
        self.kept: list = []
        self.items: list[dict] = []
        self.three_d = False
        clear_stale(self.directory, self.stem)

    def __call__(self, batch, weights) -> None:
        for options, weight in zip(batch, weights):
            if self.unique_only and not self.partial and weight == 0:
                continue
            self.found += 1
            if self.most is None or len(self.kept) < self.most:
                self.kept.append(options.copy())

    def _draw(self, options) -> None:
        self.drawn += 1
        kind = "partial assembly" if self.partial else "solution"
        solution = Solution.from_cover(self.cover, options, f"{self.stem}: {kind} {self.drawn}", self.partial)
        self.three_d = solution.three_d
        scene = draw(solution)
        path = self.directory / f"{self.stem}-{self.drawn:04d}.{self.fmt}"
        svg = to_svg(scene) if self.fmt == "svg" or len(self.items) < self.limit else None
        if self.fmt == "png":
            write_atomic(path, to_png(scene), "--draw", follow=False)
        else:
            write_atomic(path, svg + "\n", "--draw", follow=False)
        if len(self.items) < self.limit:
            self.items.append({"svg": svg, "file": path.name})

    def also(self, sink):
        """A sink that hands each batch to ``sink`` (the text printer) and then draws it."""

        def both(batch, weights):
            sink(batch, weights)
            self(batch, weights)

        return both

    def finish(self) -> Path:
        """Draw the solutions kept and write the gallery page (the time it takes is :attr:`seconds`); returns its path."""
        start = time.perf_counter()
        for options in self.kept[self.drawn:]:
            self._draw(options)
        page = self.directory / f"{self.stem}.html"
        items = [{"svg": markup(item["svg"]), "file": item["file"]} for item in self.items]
        spheres = footprint(self.cover.puzzle.lattice.name).radius is not None
        write_atomic(page, render_template("bench.drawing", "gallery.html.j2", title=f"{self.stem}: solutions",
                                           items=items, shown=len(items), found=self.found, drawn=self.drawn,
                                           limit=self.limit, three_d=self.three_d, spheres=spheres),
                     "--draw", follow=False)
        self.seconds += time.perf_counter() - start
        return page
