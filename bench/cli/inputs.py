"""From the words of a command line to puzzles and what to prepare them with.

:func:`definition_files` expands directories, :func:`load_puzzles` parses
each file and records errors instead of stopping (one bad file never hides
the others), and :func:`request_from` turns the shared filter options into
the :class:`~bench.session.prepare.Request` every puzzle is prepared with.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from bench.cli.arguments import memory_limit
from bench.errors import BenchError, DefinitionError, UsageError
from bench.models.definition import parse_file
from bench.models.puzzle import Puzzle
from bench.session.prepare import Request, redundancy_argument


def load_puzzles(path: str, errors: list[str], mirror: bool = False, fmt: str | None = None):
    """Yield ``(puzzle, parse_seconds)`` for each puzzle of a file; record errors instead of raising.

    ``mirror`` counts unique solutions up to reflections too (:class:`~bench.models.puzzle.Puzzle`).
    A file in an exchange format (``fmt``, or its suffix: ``*.xcc``,
    ``*.dlx``, ``*.json``) is one :class:`~bench.formats.matrix.Matrix`.
    """
    from bench.formats import matrix_format

    start = time.perf_counter()
    try:
        as_matrix = matrix_format(path, fmt)
        if as_matrix is not None:
            from bench.formats.matrix import load_matrix

            matrix = load_matrix(path, as_matrix)
            yield matrix, time.perf_counter() - start
            return
        definitions = parse_file(path)
    except BenchError as exc:
        errors.append(str(exc))
        return
    parse_seconds = time.perf_counter() - start
    for definition in definitions:
        try:
            yield Puzzle.from_definition(definition, mirror), parse_seconds
        except BenchError as exc:
            errors.append(str(exc))


DIRECTORY_SUFFIXES = (".txt", ".xcc", ".dlx")
"""What a directory is searched for: definition files and matrices in Knuth's format."""


def definition_files(paths: list[str]) -> list[str]:
    """Expand directories to the definition files (``*.txt``) and Knuth-format matrices below them, sorted.

    Raises
    ------
    UsageError
        For an empty path (it would mean the working directory) or a
        directory without any of them (a run of nothing is no success).
    """
    out = []
    for path in paths:
        if path == "":
            raise UsageError("an empty path was given; expected a definition file or a directory")
        p = Path(path)
        if path != "-" and p.is_dir():
            # whatever is named so is passed on, a FIFO or a directory too: the reader refuses it with its reason
            found = sorted(f for f in p.rglob("*") if f.suffix in DIRECTORY_SUFFIXES)
            if not found:
                raise UsageError(f"{path}: no definition files (*.txt) or matrices (*.xcc, *.dlx) in this directory")
            out.extend(str(f) for f in found)
        else:
            out.append(path)
    return out


def file_labels(files: list[str]) -> dict[str, str]:
    """Each file's name in a run's puzzle keys: its base name, or with as many of its folders as tell it from others.

    ``a/puz.txt`` and ``b/puz.txt`` in one run are ``a/puz.txt`` and
    ``b/puz.txt``; a file whose base name no other file of the run has
    keeps its base name, so runs of the same puzzles compare by key.

    >>> file_labels(["x/a/puz.txt", "y/b/puz.txt", "y/b/other.txt"])
    {'x/a/puz.txt': 'a/puz.txt', 'y/b/puz.txt': 'b/puz.txt', 'y/b/other.txt': 'other.txt'}
    """
    parts = {f: Path(os.path.abspath(f)).parts if f != "-" else ("-",) for f in files}
    labels: dict[str, str] = {}
    depth = 1
    pending = list(dict.fromkeys(files))
    while pending:
        groups: dict[tuple, list[str]] = {}
        for f in pending:
            groups.setdefault(parts[f][-depth:], []).append(f)
        pending = []
        for tail, members in groups.items():
            if len(members) == 1 or all(len(parts[f]) <= depth for f in members):
                for f in members:
                    labels[f] = "/".join(tail).lstrip("/") or f
            else:
                pending += members
        depth += 1
    return {f: labels[f] for f in files}


def distinct_files(files: list[str]) -> list[str]:
    """``files`` without a second mention of a file (``x.txt`` and ``./x.txt``), in order."""
    seen: dict[str, str] = {}
    for f in files:
        seen.setdefault(os.path.abspath(f) if f != "-" else f, f)
    return list(seen.values())


def puzzle_error(puzzle, error: BenchError) -> str:
    """The one line of an error about a puzzle: a definition error names its own ``path:line``, others get the puzzle's name."""
    return str(error) if isinstance(error, DefinitionError) else f"{puzzle.name}: {error}"


def request_from(args, settings=None, tuned: bool = True):
    """The :class:`~bench.session.prepare.Request` of a command line: redundancy, one-shot filters, ``settings``."""
    asked = {name: getattr(args, f"{name}_filter") for name in ("volume", "parity", "fit")}
    on = {name: value not in (None, 0) for name, value in asked.items()}
    kwargs = {} if settings is None else {"settings": settings}
    return Request(redundancy=redundancy_argument(args.redundancy), redundancy_method=args.redundancy_method,
                   redundancy_first=getattr(args, "redundancy_first", False), volume=on["volume"],
                   parity=on["parity"], fit_rounds=args.fit_rounds if on["fit"] else None, tuned=tuned,
                   max_memory=memory_limit(args), **kwargs)
