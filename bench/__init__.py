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

from importlib import import_module

from bench.about import VERSION as __version__

# imported on first use (PEP 562), so that ``import bench`` and the command line's
# ``--help`` load none of numpy, numba or the engines' libraries
_EXPORTS = {
    "BenchError": "bench.errors",
    "Cover": "bench.models.cover",
    "CoverError": "bench.errors",
    "DefinitionError": "bench.errors",
    "Placement": "bench.api",
    "Puzzle": "bench.models.puzzle",
    "UsageError": "bench.errors",
    "load": "bench.models.puzzle",
    "parse_file": "bench.models.definition",
    "parse_text": "bench.models.definition",
    "solve": "bench.api",
}

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


def __getattr__(name: str):
    """The public names of :data:`__all__`, each imported from its module the first time it is asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bench' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the ones not imported yet included."""
    return sorted(set(globals()) | set(__all__))
