"""A matrix read from an exchange file (Knuth's format, JSON), solved and compared as a puzzle is.

A :class:`Matrix` stands where a :class:`~bench.models.puzzle.Puzzle`
stands in ``bench solve`` and ``bench run`` (:func:`bench.cli.inputs.load_puzzles`):
it has a name, a source for ``expected.toml`` and its cover, but no cells,
pieces or geometry, so the engines that need them (FILA), the filters and
the pictures say so instead.  No symmetry is assumed (convention ``none``):
every cover is one solution, and unique = total = covers, unless the file
brings symmetry tables of its own (bench's JSON export), which count as
they did for the puzzle.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.models.symmetry import CONVENTION_NONE


@dataclass(frozen=True)
class MatrixSource:
    """Where a matrix came from, as :class:`~bench.models.definition.PuzzleDefinition` says it for a puzzle."""

    path: str
    format: str
    line: int = 1
    index: int = 1

    @property
    def label(self) -> str:
        """The name shown for the matrix: its file."""
        return self.path


@dataclass(frozen=True)
class _Group:
    order: int


class Matrix:
    """An exact-cover matrix without geometry (see the module docstring)."""

    geometric = False
    planar = False
    shapes = ()

    def __init__(self, cover, source: MatrixSource, convention: str = CONVENTION_NONE):
        self.cover = cover
        self.definition = source
        self.group = _Group(cover.symmetry.order)
        self.convention = convention

    @property
    def name(self) -> str:
        """A label for reports: the file name."""
        return self.definition.label


def load_matrix(path: str, fmt: str) -> Matrix:
    """Read the matrix in ``path`` (``-``: standard input) in format ``fmt``; errors are ``path:line:`` messages."""
    from bench.formats import get_format
    from bench.models.definition import read_text

    name, text = read_text(path)
    cover, convention = get_format(fmt).read(text, name)
    return Matrix(cover, MatrixSource(name, fmt), convention)
