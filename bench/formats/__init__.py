"""Exchange formats: the exact-cover matrix as other programs read and write it.

Each format is one module with a ``NAME``, a ``SUMMARY``, ``write(cover,
header) -> str`` and, where a matrix can be read back as a puzzle,
``read(text, path) -> Cover`` (every error a ``path:line:`` message):

``xcc``
    Knuth's text for DLX1-DLX3, SSXCC and their kin, xcover and miniexact
    (:mod:`bench.formats.xcc`); read and written.
``dimacs``
    DIMACS CNF whose models are the covers, for SAT solvers and model
    counters (:mod:`bench.formats.dimacs`); written.
``json``
    the :class:`~bench.models.cover.Cover` itself, symmetry tables
    included, so that it reads back with the same cover hash
    (:mod:`bench.formats.json`); read and written.

Adding a format is one module and one line in :data:`FORMATS`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from bench.errors import UsageError

FORMATS: dict[str, str] = {
    "xcc": "bench.formats.xcc",
    "dimacs": "bench.formats.dimacs",
    "json": "bench.formats.json",
}
"""Format name -> module; imported only when asked for."""

SUFFIXES: dict[str, str] = {".xcc": "xcc", ".dlx": "xcc", ".json": "json"}
"""File suffixes read as a matrix rather than a puzzle definition, and their format."""


def format_names() -> list[str]:
    """Every registered format."""
    return sorted(FORMATS)


def readable_names() -> list[str]:
    """The formats that can be read back as a puzzle."""
    return [name for name in format_names() if hasattr(get_format(name), "read")]


def get_format(name: str):
    """The module of format ``name`` (case-insensitive).

    Raises
    ------
    UsageError
        For an unknown name, listing the valid ones.
    """
    key = name.strip().lower()
    if key not in FORMATS:
        raise UsageError(f"unknown format '{name}'; expected one of: {', '.join(format_names())}")
    return importlib.import_module(FORMATS[key])


def matrix_format(path: str, given: str | None = None) -> str | None:
    """The format ``path`` is read in as a matrix: ``given``, else its suffix's; None for a puzzle definition.

    Raises
    ------
    UsageError
        When ``given`` names a format that cannot be read.
    """
    if given is not None:
        if not hasattr(get_format(given), "read"):
            raise UsageError(f"--format {given}: bench writes this format but does not read it; expected one of: "
                             f"{', '.join(readable_names())}")
        return given.strip().lower()
    return SUFFIXES.get(Path(path).suffix.lower())
