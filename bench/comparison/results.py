"""Result files: one versioned JSON document per ``bench run``.

Layout (``schema`` = :data:`SCHEMA`)::

    {"schema": 1, "created": ISO time, "command": [...], "options": {...},
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
files alone.
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
from bench.comparison.validation import revalidate
from bench.engines import Result
from bench.errors import BenchError
from bench.system.files import create_new, read_input, write_atomic

SCHEMA = 1
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


def new_document(command: list[str], options: dict) -> dict:
    """An empty result document for a run about to start."""
    return {"schema": SCHEMA, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": command, "options": options,
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
        document = json.loads(read_input(path, "result file").decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BenchError(f"{path}: not a bench result file (invalid JSON: {exc})") from None
    if not isinstance(document, dict) or "schema" not in document or "rows" not in document:
        raise BenchError(f"{path}: not a bench result file (expected the keys 'schema' and 'rows')")
    if document["schema"] != SCHEMA:
        raise BenchError(f"{path}: result schema {document['schema']} is not supported; expected {SCHEMA}")
    check(document, path)
    # the rows are the facts: a stored verdict that says otherwise (an edited file) is never believed
    document["validation"] = revalidate(document)
    return document


_NUMBER = (int, float)
_OPTIONAL_INT = (int, type(None))
_OPTIONAL_NUMBER = (int, float, type(None))
FIELDS = {
    "": {"created": str, "options": dict, "machine": dict, "libraries": dict, "puzzles": list, "rows": list,
         "validation": list},
    "options": {"engines": list, "timeout": _NUMBER, "rounds": int, "mode": str},
    "puzzles": {"key": str, "cover_hash": str, "options": int, "items": int},
    "rows": {"puzzle": str, "cover_hash": str, "engine": str, "variant": str, "status": str, "covers": _OPTIONAL_INT,
             "unique": _OPTIONAL_INT, "total": _OPTIONAL_INT, "solve": _OPTIONAL_NUMBER},
    "validation": {"puzzle": str, "kind": str, "message": str},
}
"""The fields reports rely on, per part of the document, with the types they must have."""


def _kind(types) -> str:
    names = {str: "a string", int: "an integer", float: "a number", dict: "an object", list: "a list",
             type(None): "null"}
    types = types if isinstance(types, tuple) else (types,)
    return " or ".join(dict.fromkeys(names[t] for t in types))


def _check_fields(obj, fields: dict, where: str, path) -> None:
    if not isinstance(obj, dict):
        raise BenchError(f"{path}: {where} is not an object")
    for name, types in fields.items():
        if name not in obj:
            raise BenchError(f"{path}: {where}: the field '{name}' is missing")
        value = obj[name]
        allowed = types if isinstance(types, tuple) else (types,)
        # JSON true/false are Python bools, which isinstance counts as integers
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            raise BenchError(f"{path}: {where}: the field '{name}' is {type(value).__name__} {value!r:.40}; "
                             f"expected {_kind(types)}")


def check(document: dict, path="result file") -> None:
    """Check that ``document`` has every field reports read, with the right types.

    Raises
    ------
    BenchError
        One line naming the file, the place (``rows[3]``) and the field that is missing or wrong.
    """
    _check_fields(document, FIELDS[""], "the document", path)
    _check_fields(document["options"], FIELDS["options"], "options", path)
    for part in ("puzzles", "rows", "validation"):
        for i, entry in enumerate(document[part]):
            _check_fields(entry, FIELDS[part], f"{part}[{i}]", path)


def puzzle_entry(puzzle, cover, expected, parse_seconds: float, encode_seconds: float, label: str | None = None) -> dict:
    """The facts of one puzzle stored in the result file.

    Its key is ``label`` (the file's name in the run, unique among its
    files: :func:`bench.cli.inputs.file_labels`; the base name by default)
    with ``#N`` for the N-th puzzle of the file after the first.
    """
    definition = puzzle.definition
    key = (label or Path(definition.path).name) + ("" if definition.index == 1 else f"#{definition.index}")
    return {
        "key": key, "file": str(definition.path), "index": definition.index, "name": puzzle.name,
        "cover_hash": cover.hash, "options": cover.n_options, "items": cover.n_items,
        "redundancy": cover.redundancy.piece if cover.redundancy else None, "group": puzzle.group.order,
        "convention": puzzle.convention,
        "parse_seconds": parse_seconds, "encode_seconds": encode_seconds,
        "expected": None if expected is None else {"unique": expected.unique, "convention": expected.convention,
                                                   "total": expected.total, "solvable": expected.solvable},
    }


def row(entry: dict, spec: str, round_no: int, result: Result) -> dict:
    """One result row of the file; a split solve's time includes its split."""
    solve = result.timings.get("solve")
    if solve is not None:
        solve += result.timings.get("split", 0.0)
    return {
        "puzzle": entry["key"], "cover_hash": entry["cover_hash"], "engine": spec, "variant": result.variant,
        "round": round_no, "status": result.status.value, "covers": result.covers, "unique": result.unique,
        "total": result.total, "solve": solve, "setup": result.timings.get("setup"),
        "workers": result.stats.get("parallel", {}).get("workers", 1),
        "compile": result.timings.get("compile"), "stats": result.stats, "message": result.message,
    }
