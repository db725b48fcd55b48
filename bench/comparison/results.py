"""Result files: one versioned JSON document per ``bench run``.

Layout (``schema`` = :data:`SCHEMA`)::

    {"schema": 2, "created": ISO time, "command": [...], "run_settings": {...},
     "machine": {...}, "libraries": {...},
     "puzzles": [{"key", "file", "index", "name", "cover_hash", "options", "items",
                  "redundancy", "group", "convention" (of the unique counts: rotations or mirror),
                  "encode_seconds", "expected": {...} | null,
                  "autoconfig": {"engine", ...} where an engine configured the cover}],
     "rows": [{"puzzle", "cover_hash", "engine", "variant", "round", "status",
               "covers", "unique", "total", "solve", "setup", "compile",
               "stats", "message"}],
     "validation": [{"puzzle", "kind", "message"}]}

Rows name their puzzle by key and carry the cover's hash, so counts and times
from different encodings are never compared.  Reports are rendered from these
files alone.  A puzzle's ``options`` counts the rows of its matrix;
``run_settings`` is what the command line asked for (schema 1 called it
``options``: such files are still read, :func:`load` renames the key).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from importlib import metadata
from pathlib import Path

from bench.about import VERSION
from bench.comparison.validation import expected_counts, revalidate
from bench.engines import Result, Status
from bench.errors import BenchError
from bench.system.files import create_new, read_input, write_atomic

SCHEMA = 2
SLOW = "left out of the quick run: slower than its timeout here (slow_engines in expected.toml)"
"""The message of an engine a quick run does not run on a puzzle (:attr:`bench.models.expected.Expected.slow_engines`)."""
LIBRARIES = ("numpy", "numba", "ortools", "python-sat", "pyganak", "xcover", "exact-cover", "tabulate")


def machine_facts() -> dict:
    """What the timings depend on: CPU, cores, memory, Python, OS and the code version."""
    cpu = platform.processor() or platform.machine()
    memory = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = round(int(line.split()[1]) / 2**20, 1)
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": memory, "python": platform.python_version(),
            "platform": platform.platform(), "commit": _git_commit()}


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True,
                               timeout=5, cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def library_versions() -> dict:
    """This code's version and the installed versions of the libraries that matter to the figures (None when missing)."""
    out = {"bench": VERSION}
    for name in LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def new_document(command: list[str], run_settings: dict) -> dict:
    """An empty result document for a run about to start."""
    return {"schema": SCHEMA, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": command,
            "run_settings": run_settings,
            "machine": machine_facts(), "libraries": library_versions(), "puzzles": [], "rows": [], "validation": []}


DIRECTORY = Path("results")
"""Where ``bench run`` writes its result files unless told otherwise."""


def reserve(document: dict, directory: Path = DIRECTORY, stamp: str | None = None) -> Path:
    """A new result file ``directory/run-YYYYMMDD-HHMMSS.json`` holding ``document``, created exclusively.

    Two runs started in the same second get two files (the second's named
    ``...-2.json``, :func:`bench.system.files.create_new`); a name whose HTML
    report exists without it is passed over too.
    """
    stamp = stamp or time.strftime("%Y%m%d-%H%M%S")
    return create_new(Path(directory) / f"run-{stamp}.json", json.dumps(document, indent=1) + "\n", "result file",
                      siblings=(".html",))


def save(document: dict, path: Path) -> None:
    """Write atomically to a regular file (:func:`bench.system.files.write_atomic`), so an interrupted run never leaves half a file."""
    write_atomic(path, json.dumps(document, indent=1) + "\n", "result file")


def load(path: str) -> dict:
    """Read a result file, checking its schema and fields; its ``validation`` is computed again from its rows.

    Raises
    ------
    BenchError
        For a missing, malformed or newer-schema file.
    """
    try:
        text = read_input(path, "result file").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BenchError(f"{path}: not a bench result file (not UTF-8 text: {exc})") from None
    document = parse(text, path)
    if not isinstance(document, dict) or "schema" not in document or "rows" not in document:
        raise BenchError(f"{path}: not a bench result file (expected the keys 'schema' and 'rows')")
    if document["schema"] == 1 and isinstance(document.get("options"), dict) and "run_settings" not in document:
        # schema 1 named the run settings 'options', the word for a row of the matrix
        document["run_settings"] = document.pop("options")
        document["schema"] = SCHEMA
    if document["schema"] != SCHEMA:
        raise BenchError(f"{path}: result schema {document['schema']} is not supported; expected {SCHEMA}")
    check(document, path)
    # the rows are the facts: a stored verdict that says otherwise (an edited file) is never believed
    document["validation"] = revalidate(document)
    return document


_NUMBER = (int, float)
_NULL = type(None)
_OPTIONAL_INT = (int, _NULL)
_OPTIONAL_NUMBER = (int, float, _NULL)
_OPTIONAL_STR = (str, _NULL)
FIELDS = {
    "": {"created": str, "run_settings": dict, "machine": dict, "libraries": dict, "puzzles": list, "rows": list,
         "validation": list},
    "run_settings": {"engines": list, "timeout": _NUMBER, "rounds": int, "mode": str},
    "puzzles": {"key": str, "cover_hash": str, "options": int, "items": int},
    "rows": {"puzzle": str, "cover_hash": str, "engine": str, "variant": str, "status": str, "covers": _OPTIONAL_INT,
             "unique": _OPTIONAL_INT, "total": _OPTIONAL_INT, "solve": _OPTIONAL_NUMBER},
    "validation": {"puzzle": str, "kind": str, "message": str},
}
"""The fields reports rely on, per part of the document, with the types they must have."""
OPTIONAL = {
    "": {"command": list},
    "run_settings": {"redundancy": _OPTIONAL_STR, "redundancy_method": _OPTIONAL_STR, "configured_by": _OPTIONAL_STR,
                "volume_filter": _OPTIONAL_INT, "parity_filter": _OPTIONAL_INT, "fit_filter": _OPTIONAL_INT,
                "fit_rounds": int, "mirror": bool, "workers": (int, str), "split_every_search": bool},
    "machine": {"cpu": _OPTIONAL_STR, "cores": _OPTIONAL_INT, "memory_gib": _OPTIONAL_NUMBER,
                "python": _OPTIONAL_STR, "platform": _OPTIONAL_STR, "commit": _OPTIONAL_STR},
    "puzzles": {"file": str, "index": int, "name": str, "redundancy": _OPTIONAL_STR, "group": int, "convention": str,
                "parse_seconds": _NUMBER, "encode_seconds": _NUMBER, "expected": (dict, _NULL),
                "solution": (dict, _NULL), "solution_note": str, "filters": dict, "autoconfig": dict},
    "expected": {"unique": _OPTIONAL_INT, "total": _OPTIONAL_INT, "convention": _OPTIONAL_STR,
                 "solvable": (bool, _NULL)},
    "rows": {"round": int, "setup": _OPTIONAL_NUMBER, "compile": _OPTIONAL_NUMBER, "workers": int, "stats": dict,
             "message": _OPTIONAL_STR},
}
"""Fields a file may leave out (older files do), checked when present."""
ITEMS = {("", "command"): str, ("run_settings", "engines"): str}
"""The kind of every element of these lists."""
STAT_TYPES = {key: int for key in ("nodes", "fits", "no_fits", "branches", "conflicts", "decisions", "clauses",
                                   "parity_backtracks", "volume_backtracks", "isolated_backtracks", "parity_filtered",
                                   "volume_filtered", "fit_filtered", "attempts", "updates", "dead_ends")}
STAT_TYPES.update({f"{key}_by_remaining": list for key in ("attempts", "fits", "updates")})
"""The search counters the reports read from a row's ``stats``, when present."""
POSITIVE = {("run_settings", "timeout"), ("run_settings", "rounds")}
SIGNED = {("run_settings", "volume_filter"), ("run_settings", "parity_filter"), ("run_settings", "fit_filter")}
"""Numbers that must be above zero, and those that may be below (-1: a filter applied once); every other number
must be zero or more."""


def _kind(types) -> str:
    names = {str: "a string", int: "an integer", float: "a number", dict: "an object", list: "a list",
             bool: "true or false", _NULL: "null"}
    types = types if isinstance(types, tuple) else (types,)
    return " or ".join(dict.fromkeys(names[t] for t in types))


def _fits(value, allowed: tuple, positive: bool = False, signed: bool = False) -> bool:
    # JSON true/false are Python bools, which isinstance counts as integers
    if isinstance(value, bool):
        return bool in allowed
    if not isinstance(value, allowed):
        return False
    if isinstance(value, (int, float)) and not signed:
        return value > 0 if positive else value >= 0
    return True


def _check_fields(obj, fields: dict, where: str, path, part: str = "", required: bool = True) -> None:
    if not isinstance(obj, dict):
        raise BenchError(f"{path}: {where} is not an object")
    for name, types in fields.items():
        if name not in obj:
            if required:
                raise BenchError(f"{path}: {where}: the field '{name}' is missing")
            continue
        value = obj[name]
        allowed = types if isinstance(types, tuple) else (types,)
        item = ITEMS.get((part, name))
        good = _fits(value, allowed, (part, name) in POSITIVE, (part, name) in SIGNED) and (
            item is None or all(_fits(v, (item,)) for v in value))
        if not good:
            expected = _kind(types) + (f" of {_kind(item).removeprefix('a ').removeprefix('an ')}s" if item else "")
            if isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(value, allowed):
                expected += " above zero" if (part, name) in POSITIVE else " of zero or more"
            raise BenchError(f"{path}: {where}: the field '{name}' is {type(value).__name__} {value!r:.40}; "
                             f"expected {expected}")


def _check_stats(stats: dict, where: str, path) -> None:
    for name, kind in STAT_TYPES.items():
        value = stats.get(name)
        if value is None:
            continue
        good = _fits(value, (kind,)) and (kind is not list or all(_fits(v, (int,)) for v in value))
        if not good:
            raise BenchError(f"{path}: {where}: stats: the field '{name}' is {type(value).__name__} {value!r:.40}; "
                             f"expected {'a list of integers' if kind is list else 'an integer'} of zero or more")


def check(document: dict, path="result file") -> None:
    """Check that ``document`` has every field reports read, with the right types.

    Numbers must be finite (the reader refuses NaN and infinities) and zero
    or more, and above zero where :data:`POSITIVE` says so; the lists of
    :data:`ITEMS` must hold the kind named there.

    Raises
    ------
    BenchError
        One line naming the file, the place (``rows[3]``) and the field that is missing or wrong.
    """
    _check_fields(document, FIELDS[""], "the document", path)
    _check_fields(document, OPTIONAL[""], "the document", path, required=False)
    for part in ("run_settings", "machine"):
        _check_fields(document[part], FIELDS.get(part, {}), part, path, part)
        _check_fields(document[part], OPTIONAL[part], part, path, part, required=False)
    for name, version in document["libraries"].items():
        if not isinstance(version, _OPTIONAL_STR):
            raise BenchError(f"{path}: libraries: the field '{name}' is {type(version).__name__} {version!r:.40}; "
                             "expected a string or null")
    for part in ("puzzles", "rows", "validation"):
        for i, entry in enumerate(document[part]):
            where = f"{part}[{i}]"
            _check_fields(entry, FIELDS[part], where, path, part)
            _check_fields(entry, OPTIONAL.get(part, {}), where, path, part, required=False)
            if part == "puzzles" and entry.get("expected") is not None:
                _check_fields(entry["expected"], OPTIONAL["expected"], f"{where}: expected", path, "expected",
                              required=False)
            if part == "rows" and "stats" in entry:
                _check_stats(entry["stats"], where, path)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def parse(text: str, path) -> dict:
    """The JSON of a result file, strictly: no NaN or infinity, nothing nested deeper than Python can follow.

    Raises
    ------
    BenchError
        One line naming the file and what is wrong with its JSON.
    """
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise BenchError(f"{path}: not a bench result file (invalid JSON: nested too deep)") from None
    except ValueError as exc:
        raise BenchError(f"{path}: not a bench result file (invalid JSON: {exc})") from None


def puzzle_key(puzzle, label: str | None = None) -> str:
    """The name a puzzle is stored and shown under: ``label``, its file's name in the run (unique among the run's
    files: :func:`bench.cli.inputs.file_labels`; the base name by default), and ``#N`` for the N-th puzzle of a file."""
    definition = puzzle.definition
    return (label or Path(definition.path).name) + ("" if definition.index == 1 else f"#{definition.index}")


def puzzle_entry(puzzle, cover, expected, parse_seconds: float, encode_seconds: float, label: str | None = None) -> dict:
    """The facts of one puzzle stored in the result file, under :func:`puzzle_key` with ``label``."""
    definition = puzzle.definition
    return {
        "key": puzzle_key(puzzle, label), "file": str(definition.path), "index": definition.index, "name": puzzle.name,
        "cover_hash": cover.hash, "options": cover.n_options, "items": cover.n_items,
        "redundancy": cover.redundancy.piece if cover.redundancy else None, "group": puzzle.group.order,
        "convention": puzzle.convention,
        "parse_seconds": parse_seconds, "encode_seconds": encode_seconds,
        "expected": expected_counts(expected),
    }


def row(entry: dict, spec: str, round_no: int, result: Result) -> dict:
    """One result row of the file; a split solve's time includes its split.

    Unique and total are counts of the whole search: a search cut short
    (any status but ``solved``) has them ``null``, never the figures of the
    covers it happened to find.
    """
    solve = result.timings.get("solve")
    if solve is not None:
        solve += result.timings.get("split", 0.0)
    finished = result.status == Status.SOLVED
    return {
        "puzzle": entry["key"], "cover_hash": entry["cover_hash"], "engine": spec, "variant": result.variant,
        "round": round_no, "status": result.status.value, "covers": result.covers,
        "unique": result.unique if finished else None, "total": result.total if finished else None, "solve": solve, "setup": result.timings.get("setup"),
        "workers": result.stats.get("parallel", {}).get("workers", 1),
        "compile": result.timings.get("compile"), "stats": result.stats, "message": result.message,
    }
