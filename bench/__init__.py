"""bench: exact-cover tiling puzzles, one matrix, many engines, counts that agree.

The data flow runs one way: a definition file is parsed into a
:class:`~bench.models.puzzle.Puzzle`, encoded once as a
:class:`~bench.models.cover.Cover`, and handed to the engines.

>>> import bench
>>> [puzzle] = bench.load("defs/pentominoes_10x6.txt")
>>> cover = bench.Cover.from_puzzle(puzzle, redundancy=True)
>>> puzzle.group.order, cover.redundancy.piece, cover.n_options
(4, 'X', 2032)
"""

from bench import kernel_cache

# before any module defines a compiled function (see bench.kernel_cache)
kernel_cache.install()

from bench.api import Placement, solve  # noqa: E402
from bench.errors import BenchError, CoverError, DefinitionError, UsageError  # noqa: E402
from bench.models.cover import Cover  # noqa: E402
from bench.models.definition import parse_file, parse_text  # noqa: E402
from bench.models.puzzle import Puzzle, load  # noqa: E402

from bench.about import VERSION as __version__  # noqa: E402

__all__ = [
    "__version__",
    "BenchError",
    "Cover",
    "Placement",
    "CoverError",
    "DefinitionError",
    "Puzzle",
    "UsageError",
    "load",
    "parse_file",
    "parse_text",
    "solve",
]
