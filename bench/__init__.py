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

import sys
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
    "Solution": "bench.api",
    "Puzzle": "bench.models.puzzle",
    "UsageError": "bench.errors",
    "load": "bench.models.puzzle",
    "parse_file": "bench.models.definition",
    "parse_text": "bench.models.definition",
    "solve": "bench.api",
    "solutions": "bench.api",
}

__all__ = [
    "__version__",
    "BenchError",
    "Cover",
    "Placement",
    "Solution",
    "CoverError",
    "DefinitionError",
    "Puzzle",
    "UsageError",
    "load",
    "parse_file",
    "parse_text",
    "solve",
    "solutions",
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


def _picture(value):
    """The SVG picture of a puzzle, a solution or a result that holds one (None: IPython shows the text)."""
    # lazy: the drawing loads only when a notebook shows a picture
    from bench.drawing.notebook import svg_of

    return svg_of(value)


def _show_pictures_in_notebooks() -> None:
    """Under IPython, show puzzles, solutions and results as pictures, without importing their modules now."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    formatter = shell.display_formatter.formatters["image/svg+xml"]
    for module, name in (("bench.models.puzzle", "Puzzle"), ("bench.api", "Solution"),
                         ("bench.engines.protocol", "Result")):
        formatter.for_type_by_name(module, name, _picture)


_show_pictures_in_notebooks()
