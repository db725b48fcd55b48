"""Expected solution counts, kept as data beside the definitions.

Each directory of definitions may hold an ``expected.toml``.  Its tables are
keyed by file name (``"name.txt"``, or ``"name.txt#2"`` for the second puzzle
of a file), and every unique count names its convention
(:data:`~bench.models.puzzle.CONVENTIONS`) in its key::

    ["somacube.txt"]
    total = 11520              # all solutions; identical pieces never counted twice
    unique_rotations = 480     # up to the rotations ...
    group_rotations = 24       # ... a group of this order
    unique_mirror = 240        # up to rotations and reflections (bench --mirror)
    group_mirror = 48
    symmetry = "..."           # the groups, in words
    source = "..."             # where the numbers come from

``rotations`` counts up to the motions the pieces make (a flat puzzle's
turns and flips, a 3-D puzzle's rotations); ``mirror`` up to reflections
too, where a reflection maps the piece set onto itself; ``none`` assumes no
symmetry (a matrix read from Knuth's format: ``unique_none`` equals
``total``, and ``group_none = 1``).  A flat puzzle's
group holds its plane's reflections under both, so its counts are
``unique_mirror`` (polycube's convention: flips of a one-sided set closed
under mirroring count).  ``group_C`` without ``unique_C`` records the group
of a puzzle counted only as solvable (``solvable = true``).

**The quick run** (``bench run`` with no path) compares what can finish:
``slow = true`` keeps a puzzle out of it because it takes long,
``quick = false`` because there is little in it to compare (a static proof,
or few engines that finish); ``slow_engines = ["cpsat", ...]`` keeps those
engines off a puzzle in it (they need more than its timeout there).

Files written before conventions were data say ``unique`` and ``group``:
they are read as the puzzle's own convention without ``--mirror``
(``mirror`` for flat puzzles, ``rotations`` for 3-D ones).

A recorded group order is checked against the puzzle's group under the
convention asked for, so a count is never compared under another
convention.  When only the rotations are recorded and the mirror group has
the same order, the two groups are one (the mirror group holds the
rotation group) and so are the counts.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bench.errors import BenchError
from bench.models.symmetry import CONVENTION_MIRROR, CONVENTION_ROTATIONS, CONVENTIONS
from bench.system.files import read_input

FILE_NAME = "expected.toml"
LEGACY = "legacy"
FIELDS = {"unique": int, "total": int, "group": int, "symmetry": str, "source": str, "solvable": bool, "slow": bool,
          "quick": bool, "slow_engines": list,
          **{f"{kind}_{c}": int for c in CONVENTIONS for kind in ("unique", "group")}}


@dataclass(frozen=True)
class Recorded:
    """One table of ``expected.toml`` as written.

    ``unique`` maps a convention (or ``legacy`` for the old ``unique`` /
    ``group`` keys) to ``(unique count or None, group order)``.
    """

    key: str
    symmetry: str
    source: str
    unique: dict = field(default_factory=dict)
    total: int | None = None
    solvable: bool | None = None
    slow: bool = False
    quick: bool = True
    slow_engines: tuple[str, ...] = ()


@dataclass(frozen=True)
class Expected:
    """The recorded facts about one puzzle, under the convention it is counted in.

    ``unique`` is None when no count is recorded for that convention;
    ``group`` is then None too.
    """

    key: str
    convention: str
    group: int | None
    symmetry: str
    source: str
    unique: int | None = None
    total: int | None = None
    solvable: bool | None = None
    slow: bool = False
    quick: bool = True
    slow_engines: tuple[str, ...] = ()

    @property
    def in_quick_run(self) -> bool:
        """True when the quick run (``bench run`` with no path) runs the puzzle: neither ``slow`` nor ``quick = false``."""
        return self.quick and not self.slow


def _parse(path: Path, key: str, entry) -> Recorded:
    where = f"{path}: [\"{key}\"]"
    if not isinstance(entry, dict):
        raise BenchError(f"{path}: '{key}' must be a table such as [\"{key}\"]")
    for name, value in entry.items():
        kind = FIELDS.get(name)
        if kind is None:
            raise BenchError(f"{where}: unknown field '{name}'; expected one of {', '.join(FIELDS)}")
        if not isinstance(value, kind) or (kind is int and (isinstance(value, bool) or value < 0)):
            raise BenchError(f"{where}: {name} must be a {'non-negative integer' if kind is int else kind.__name__}")
        if kind is list and not all(isinstance(item, str) and item for item in value):
            raise BenchError(f"{where}: {name} must be a list of engine names, such as [\"cpsat\", \"sat\"]")
    for name in ("symmetry", "source"):
        if name not in entry:
            raise BenchError(f"{where}: missing field '{name}'")
    unique = {}
    for convention, suffix in [(LEGACY, "")] + [(c, f"_{c}") for c in CONVENTIONS]:
        count, group = entry.get(f"unique{suffix}"), entry.get(f"group{suffix}")
        if count is not None and group is None:
            raise BenchError(f"{where}: unique{suffix} needs group{suffix}, the order of the group it counts under")
        if group is not None:
            unique[convention] = (count, group)
    if not unique:
        raise BenchError(f"{where}: missing field {' or '.join(repr(f'group_{c}') for c in CONVENTIONS)} "
                         f"(the order of the group the counts refer to)")
    if LEGACY in unique and len(unique) > 1:
        raise BenchError(f"{where}: give unique/group or unique_<convention>/group_<convention>, not both")
    if all(count is None for count, _ in unique.values()) and "total" not in entry and "solvable" not in entry:
        raise BenchError(f"{where}: give unique/total counts or solvable = true|false")
    return Recorded(key=key, symmetry=entry["symmetry"], source=entry["source"], unique=unique,
                    total=entry.get("total"), solvable=entry.get("solvable"), slow=entry.get("slow", False),
                    quick=entry.get("quick", True), slow_engines=tuple(entry.get("slow_engines", ())))


@lru_cache(maxsize=None)
def _read(directory: str) -> tuple[dict[str, Recorded], dict[str, str]]:
    """The valid entries of a directory's ``expected.toml`` and, per key, why an entry is not."""
    path = Path(directory) / FILE_NAME
    if not path.exists():
        return {}, {}
    try:
        data = tomllib.loads(read_input(path, "expected-counts file").decode("utf-8"))
    except BenchError as exc:
        raise BenchError(f"{exc} (expected counts)") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BenchError(f"{path}: cannot read expected counts: {exc}") from None
    out: dict[str, Recorded] = {}
    problems: dict[str, str] = {}
    for key, entry in data.items():
        try:
            out[key] = _parse(path, key, entry)
        except BenchError as exc:
            problems[key] = str(exc)
    return out, problems


def read_expected(directory: str) -> tuple[dict[str, Recorded], dict[str, str]]:
    """A directory's ``expected.toml`` read leniently: the valid entries, and per key why an entry is not.

    A bad entry leaves out only itself, so the directory's other puzzles keep their counts.

    Raises
    ------
    BenchError
        When the file cannot be read as TOML at all.
    """
    return _read(directory)


def load_expected(directory: str) -> dict[str, Recorded]:
    """Read ``expected.toml`` of a directory (an empty dict if there is none), refusing any bad entry.

    Raises
    ------
    BenchError
        For the first bad entry, or a file that is not TOML (see :func:`read_expected` to keep the good ones).
    """
    entries, problems = _read(directory)
    if problems:
        raise BenchError(next(iter(problems.values())))
    return entries


load_expected.cache_clear = _read.cache_clear  # the cache is the reader's


def expected_key(puzzle) -> str:
    """The key of a puzzle in its directory's ``expected.toml``."""
    definition = puzzle.definition
    name = Path(definition.path).name
    return name if definition.index == 1 else f"{name}#{definition.index}"


def resolve(recorded: Recorded, puzzle, where: str = "", group_order: int | None = None) -> Expected:
    """The counts of ``recorded`` that apply to ``puzzle`` under its convention.

    ``group_order`` is the order of the puzzle's group where it is known
    already (a cover carries its group), else it is computed.

    Raises
    ------
    BenchError
        When the group order recorded for the convention differs from the
        puzzle's group.
    """
    convention = puzzle.convention
    order = group_order if group_order is not None else puzzle.group.order
    own = CONVENTION_MIRROR if puzzle.planar else CONVENTION_ROTATIONS
    if convention in recorded.unique:
        found = convention
    elif LEGACY in recorded.unique and convention == own:
        found = LEGACY
    elif (convention == CONVENTION_MIRROR and CONVENTION_ROTATIONS in recorded.unique
          and recorded.unique[CONVENTION_ROTATIONS][1] == order):
        found = CONVENTION_ROTATIONS
    elif convention == CONVENTION_MIRROR and LEGACY in recorded.unique and recorded.unique[LEGACY][1] == order:
        found = LEGACY
    else:
        found = None
    unique, group = recorded.unique[found] if found else (None, None)
    if group is not None and group != order:
        name = "group" if found == LEGACY else f"group_{found}"
        raise BenchError(f"{where}[\"{recorded.key}\"] records {name} = {group}, but the puzzle's symmetry group "
                         f"({convention}) has order {order}")
    return Expected(key=recorded.key, convention=convention, group=group, symmetry=recorded.symmetry,
                    source=recorded.source, unique=unique, total=recorded.total, solvable=recorded.solvable,
                    slow=recorded.slow, quick=recorded.quick, slow_engines=recorded.slow_engines)


def expected_for(puzzle, group_order: int | None = None) -> Expected | None:
    """The expected counts recorded for a puzzle under its convention, or None (``group_order`` as for :func:`resolve`).

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
    entries, problems = read_expected(directory)
    if key in problems:
        raise BenchError(problems[key])
    entry = entries.get(key)
    if entry is None:
        return None
    return resolve(entry, puzzle, f"{path.parent / FILE_NAME}: ", group_order)
