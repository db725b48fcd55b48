"""The prepared cover on disk: what :func:`~bench.session.prepare.prepare` computes, kept for the next run of the same puzzle.

Encoding a puzzle costs more than loading the result: the images, the
symmetry group, an untuned engine's choice of the redundancy piece, the
matrix and the one-shot filters take about 0.07 s for the 10x6 pentominoes
and 0.2 s for the Tetris Cube, where reading them back takes a few
milliseconds.  An entry is found by a key over everything the result
depends on:

* the puzzle as parsed (lattice, box, pieces and their cells, one-sided or
  not, the counting convention), not the file's bytes: the file may change
  between the parse and the hash, and standard input has no file;
* the request (:class:`~bench.session.prepare.Request`) and the engine that
  configures it (its class and its variant's tuning);
* the package's version and the contents of every module of the package, so
  an editable install whose code changed never reads an entry an older
  encoder wrote.

Entries live in the user's cache directory (``covers/`` beside the
journals, e.g. ``~/.cache/polyform-bench/covers`` on Linux), are written
atomically (:func:`bench.system.files.write_atomic`) and are evicted oldest first
once they exceed :data:`MAX_BYTES`.  An entry is a NumPy ``.npz`` file read
without pickle, holding its own key and a SHA-256 over its contents; an
entry that cannot be read, fails its checksum, holds another key or builds
a cover that :meth:`~bench.models.cover.Cover.validate` refuses is ignored
and rebuilt, never trusted.  The cache never fails a command: an entry that
cannot be written is simply not written.  ``BENCH_NO_CACHE=1`` (or the
commands' ``--no-cache``) bypasses it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from dataclasses import dataclass, fields, replace
from importlib import import_module
from pathlib import Path

import numpy as np

from bench.about import DISTRIBUTION
from bench.errors import BenchError
from bench.system.files import write_atomic
from bench.models.cover import Cover, CoverSymmetry
from bench.models.symmetry import Redundancy
from bench.toolchain.sources import code_version
import platformdirs

FORMAT = 1
"""Version of the entry layout, part of every key."""
MAX_BYTES = 256 << 20
"""Entries beyond this many bytes in all are evicted, least recently used first."""
DISABLE = "BENCH_NO_CACHE"
"""Environment variable: set to anything but ``0`` or empty, the cache is neither read nor written."""

_ARRAYS = ("opt_ptr", "opt_items", "item_lo", "item_hi", "opt_image", "cell_perm", "cell_inv", "opt_map", "opt_gmask",
           "kept", "stabilizers")
_DTYPES = {"opt_ptr": np.int32, "opt_items": np.int32, "item_lo": np.int32, "item_hi": np.int32, "opt_image": np.int32,
           "cell_perm": np.int32, "cell_inv": np.int32, "opt_map": np.int32, "opt_gmask": np.uint64, "kept": np.int32,
           "stabilizers": np.int64}
_SCALARS = (type(None), bool, int, float, str)


def disabled() -> bool:
    """True when :data:`DISABLE` is set in the environment."""
    return os.environ.get(DISABLE, "") not in ("", "0")


def directory() -> Path:
    """Where the entries live: ``covers/`` in the user's cache directory."""
    return platformdirs.user_cache_path(DISTRIBUTION) / "covers"


def _canonical(value):
    """A JSON-ready form of a definition, request or setting value (dataclasses by field, tuples as lists)."""
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _canonical(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (tuple, list)):
        return [_canonical(v) for v in value]
    if isinstance(value, _SCALARS):
        return value
    raise TypeError(f"cannot key on {type(value).__name__}")


_WHERE = frozenset({"path", "line", "end_line", "index"})
"""Fields of a definition that say where it was read, not what it is."""


def puzzle_identity(puzzle) -> dict:
    """What the encoding of ``puzzle`` depends on: every field of its definition but where it was read from."""
    d = puzzle.definition
    from bench.models.lattice import BUNDLED_NAMES

    # a lattice read from a description beside the definition is known by its text, not its name alone
    lattice = d.lattice.name if d.lattice.name in BUNDLED_NAMES else f"{d.lattice.name}@{d.lattice.digest}"
    out = {"convention": puzzle.convention, "lattice": lattice}
    for f in fields(d):
        if f.name in _WHERE or f.name == "lattice":
            continue
        value = getattr(d, f.name)
        out[f.name] = ([{g.name: _canonical(getattr(p, g.name)) for g in fields(p) if g.name not in _WHERE}
                        for p in value] if f.name == "pieces" else _canonical(value))
    return out


def cache_key(puzzle, request, engine) -> str | None:
    """The key of ``prepare(puzzle, request, engine)``'s result, or None when it cannot be keyed."""
    try:
        what = {"format": FORMAT, "sources": code_version(), "puzzle": puzzle_identity(puzzle),
                "request": _canonical(request),
                "engine": None if engine is None else [type(engine).__module__, type(engine).__qualname__,
                                                       sorted((k, _canonical(v)) for k, v in engine.tuning.items())]}
    except TypeError:
        return None
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


def _stored(value):
    """``value`` as the entry keeps it: a scalar, or an object of the package that round-trips through JSON.

    An engine's configuration may record what it chose in the request
    (an object with ``to_json()`` whose class has ``from_json()``).
    Raises TypeError for anything else.
    """
    if isinstance(value, _SCALARS):
        return value
    cls = type(value)
    if cls.__module__.startswith("bench.") and hasattr(value, "to_json") and hasattr(cls, "from_json"):
        return {"object": f"{cls.__module__}:{cls.__qualname__}", "json": value.to_json()}
    raise TypeError(f"{cls.__name__} cannot be stored")


def _restored(value):
    """The inverse of :func:`_stored`; only classes of this package with ``from_json`` are rebuilt."""
    if isinstance(value, dict):
        module, _, name = value["object"].partition(":")
        if not module.startswith("bench."):
            raise ValueError(f"refusing to rebuild {value['object']!r}")
        return getattr(import_module(module), name).from_json(value["json"])
    if not isinstance(value, _SCALARS):
        raise ValueError(f"unusable value {value!r}")
    return value


def _changes(before, after) -> dict:
    """The fields of a frozen dataclass that differ between ``before`` and ``after``, as stored (:func:`_stored`)."""
    return {f.name: _stored(getattr(after, f.name)) for f in fields(before)
            if getattr(before, f.name) != getattr(after, f.name)}


def _apply(value, changes: dict):
    names = {f.name for f in fields(value)}
    if not set(changes) <= names:
        raise ValueError(f"unknown fields {sorted(set(changes) - names)}")
    return replace(value, **{name: _restored(new) for name, new in changes.items()})


def _checksum(meta: dict, arrays: dict) -> str:
    digest = hashlib.sha256(json.dumps(meta, sort_keys=True).encode())
    for name in _ARRAYS:
        a = arrays[name]
        digest.update(f"{name}{a.dtype.str}{a.shape}".encode() + np.ascontiguousarray(a).tobytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Hit:
    """A cover read back and what came with it.

    ``request`` is the request as the engine configured it, ``cover`` the
    filtered cover, ``options_before`` and ``counters`` the one-shot
    filters' record and ``reasons`` the static proofs that the puzzle has no
    solution (:func:`~bench.models.diagnose.unsolvable_reasons`).
    """

    request: object
    cover: Cover
    options_before: int
    counters: dict
    reasons: tuple[str, ...]


def load(key: str, puzzle, request) -> Hit | None:
    """The entry ``key`` rebuilt on ``puzzle`` and the unconfigured ``request``; None when missing or not to be trusted."""
    path = directory() / f"{key}.npz"
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in _ARRAYS}
            meta = json.loads(bytes(npz["meta"]).decode())
        hit = _rebuild(key, meta, arrays, puzzle, request)
    except Exception:  # noqa: BLE001 - an entry missing, unreadable, foreign or damaged in any way is rebuilt
        return None
    if hit is not None:
        try:
            # eviction goes by modification time: a used entry is a recent one
            os.utime(path)
        except OSError:
            pass
    return hit


def _rebuild(key: str, meta: dict, arrays: dict, puzzle, request) -> Hit | None:
    checksum = meta.pop("checksum", None)
    if meta.get("key") != key or meta.get("format") != FORMAT or checksum != _checksum(meta, arrays):
        return None
    for name, dtype in _DTYPES.items():
        if arrays[name].dtype != dtype:
            return None
    n_cells = meta["n_cells"]
    if n_cells != puzzle.n_open or len(arrays["item_lo"]) != n_cells + len(puzzle.shapes):
        return None
    symmetry = CoverSymmetry(tuple(meta["group"]), arrays["cell_perm"], arrays["cell_inv"], arrays["opt_map"],
                             arrays["opt_gmask"])
    red = meta["redundancy"]
    redundancy = None
    if red is not None:
        if puzzle.shapes[red["shape"]].name != red["piece"]:
            return None
        redundancy = Redundancy(red["shape"], red["piece"], arrays["kept"], red["images"], red["subgroup_order"],
                                arrays["stabilizers"], red["score"], red["always_used"], red["method"])
    for a in arrays.values():
        a.flags.writeable = False
    cover = Cover(arrays["opt_ptr"], arrays["opt_items"], arrays["item_lo"], arrays["item_hi"], n_cells,
                  tuple(meta["item_names"]), symmetry, arrays["opt_image"], puzzle, redundancy)
    cover.validate()
    configured = _apply(request, meta["request"])
    configured = replace(configured, settings=_apply(configured.settings, meta["settings"]))
    reasons = meta["reasons"]
    if not all(isinstance(r, str) for r in reasons):
        return None
    return Hit(configured, cover, int(meta["options_before"]), dict(meta["counters"]), tuple(reasons))


def store(key: str, request, configured, cover: Cover, options_before: int, counters: dict,
          reasons: tuple[str, ...]) -> str:
    """Write the entry ``key``; the caller goes on without it when it cannot be stored.

    Returns ``stored``, ``unwritable`` (the folder or the file cannot be
    written) or ``uncacheable`` (the configured request holds a value the
    entry cannot keep, see :func:`_stored`).
    """
    try:
        changes = _changes(request, replace(configured, settings=request.settings))
        settings = _changes(request.settings, configured.settings)
    except TypeError:
        return "uncacheable"
    if cover.opt_image is None or not all(isinstance(v, _SCALARS) for v in counters.values()):
        return "uncacheable"
    red = cover.redundancy
    sym = cover.symmetry
    arrays = {"opt_ptr": cover.opt_ptr, "opt_items": cover.opt_items, "item_lo": cover.item_lo,
              "item_hi": cover.item_hi, "opt_image": cover.opt_image, "cell_perm": sym.cell_perm,
              "cell_inv": sym.cell_inv, "opt_map": sym.opt_map, "opt_gmask": sym.opt_gmask,
              "kept": red.kept if red is not None else np.zeros(0, np.int32),
              "stabilizers": red.stabilizers if red is not None else np.zeros(0, np.int64)}
    arrays = {name: np.ascontiguousarray(a, dtype=_DTYPES[name]) for name, a in arrays.items()}
    meta = {"format": FORMAT, "key": key, "n_cells": cover.n_cells, "item_names": list(cover.item_names),
            "group": list(sym.names), "request": changes, "settings": settings, "counters": counters,
            "options_before": options_before, "reasons": list(reasons),
            "redundancy": None if red is None else {
                "shape": red.shape, "piece": red.piece, "images": red.images, "subgroup_order": red.subgroup_order,
                "score": red.score, "always_used": red.always_used, "method": red.method}}
    meta["checksum"] = _checksum(meta, arrays)
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    folder = directory()
    try:
        write_atomic(folder / f"{key}.npz", buffer.getvalue(), "cover cache entry")
    except (BenchError, OSError):
        return "unwritable"
    evict(folder)
    return "stored"


def evict(folder: Path, limit: int = MAX_BYTES) -> None:
    """Remove the least recently used entries of ``folder`` until they take at most ``limit`` bytes."""
    entries = []
    for path in folder.glob("*.npz"):
        try:
            st = path.stat()
        except OSError:
            continue
        entries.append((st.st_mtime, st.st_size, path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
