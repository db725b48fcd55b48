"""Expected solution counts, kept as data beside the definitions.

Each directory of definitions may hold an ``expected.toml``.  Its tables are
keyed by file name (``"name.txt"``, or ``"name.txt#2"`` for the second puzzle
of a file)::

    ["pentominoes_10x6.txt"]
    unique = 2339        # solutions up to the symmetry group
    total = 9356         # all solutions; identical pieces never counted twice
    group = 4            # order of the group the unique count refers to
    symmetry = "..."     # the convention, in words
    source = "..."       # where the numbers come from

A puzzle without counts (a first-solution case) says ``solvable = true``;
``slow = true`` keeps a puzzle out of quick runs.  The group order is checked
against the puzzle's own group, so a count is never compared under a
different symmetry convention.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bench.errors import BenchError

FILE_NAME = "expected.toml"
FIELDS = {"unique": int, "total": int, "group": int, "symmetry": str, "source": str, "solvable": bool, "slow": bool}


@dataclass(frozen=True)
class Expected:
    """The recorded facts about one puzzle."""

    key: str
    group: int
    symmetry: str
    source: str
    unique: int | None = None
    total: int | None = None
    solvable: bool | None = None
    slow: bool = False


@lru_cache(maxsize=None)
def _read(directory: str) -> tuple[dict[str, Expected], dict[str, str]]:
    """The valid entries of a directory's ``expected.toml`` and, per key, why an entry is not."""
    path = Path(directory) / FILE_NAME
    if not path.exists():
        return {}, {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BenchError(f"{path}: cannot read expected counts: {exc}") from None
    out: dict[str, Expected] = {}
    problems: dict[str, str] = {}
    for key, entry in data.items():
        try:
            out[key] = _entry(path, key, entry)
        except BenchError as exc:
            problems[key] = str(exc)
    return out, problems


def _entry(path: Path, key: str, entry) -> Expected:
    """One table of ``expected.toml``, checked."""
    if not isinstance(entry, dict):
        raise BenchError(f"{path}: '{key}' must be a table such as [\"{key}\"]")
    for name, value in entry.items():
        kind = FIELDS.get(name)
        if kind is None:
            raise BenchError(f"{path}: [\"{key}\"]: unknown field '{name}'; expected one of {', '.join(FIELDS)}")
        if not isinstance(value, kind) or (kind is int and (isinstance(value, bool) or value < 0)):
            raise BenchError(f"{path}: [\"{key}\"]: {name} must be a {'non-negative integer' if kind is int else kind.__name__}")
    for name in ("group", "symmetry", "source"):
        if name not in entry:
            raise BenchError(f"{path}: [\"{key}\"]: missing field '{name}'")
    if "unique" not in entry and "total" not in entry and "solvable" not in entry:
        raise BenchError(f"{path}: [\"{key}\"]: give unique/total counts or solvable = true|false")
    return Expected(key=key, **entry)


def load_expected(directory: str) -> dict[str, Expected]:
    """The valid entries of a directory's ``expected.toml`` (an empty dict if there is none).

    A bad entry leaves out only itself (see :func:`expected_problems`).

    Raises
    ------
    BenchError
        When the file cannot be read as TOML at all.
    """
    return _read(directory)[0]


def expected_problems(directory: str) -> dict[str, str]:
    """Per key, why an entry of a directory's ``expected.toml`` was left out."""
    return _read(directory)[1]


def expected_key(puzzle) -> str:
    """The key of a puzzle in its directory's ``expected.toml``."""
    definition = puzzle.definition
    name = Path(definition.path).name
    return name if definition.index == 1 else f"{name}#{definition.index}"


def expected_for(puzzle) -> Expected | None:
    """The expected counts recorded for a puzzle, or None.

    Raises
    ------
    BenchError
        When the recorded group order differs from the puzzle's group, the
        puzzle's entry is malformed or the file is not TOML (the other
        puzzles of the directory keep their counts).
    """
    path = Path(puzzle.definition.path)
    if not path.is_file():
        return None
    directory = str(path.parent.resolve())
    key = expected_key(puzzle)
    problem = expected_problems(directory).get(key)
    if problem is not None:
        raise BenchError(problem)
    entry = load_expected(directory).get(key)
    if entry is not None and entry.group != puzzle.group.order:
        raise BenchError(f"{path.parent / FILE_NAME}: [\"{entry.key}\"] records counts for a group of order {entry.group}, "
                         f"but the puzzle's symmetry group has order {puzzle.group.order}")
    return entry
