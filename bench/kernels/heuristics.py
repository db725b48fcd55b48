"""Ordering heuristics in polycube's syntax, compiled to arrays for the kernels.

A schedule such as ``e=11:f=3`` names heuristics and the number of remaining
pieces at which each takes over; one entry may omit ``=R`` and is then active
from the start (the default start is ``s``).  Heuristics:

``s``
    fewest options (min-fit), over cells and pieces.
``e``
    in DLX the same as ``s``; FILA counts open neighbours.
``f`` / ``f@a,b,c``
    first open cell in x, y, z priority order (x slowest); with arguments, a
    permutation of the axes 0, 1, 2 from slowest to fastest (``f@1,0,2``:
    y, then x, then z), the box scanned as if turned.
``l@a,b,c``
    cell minimizing ``a*x + b*y + c*z``; shorthands ``x y z X Y Z xyz``.
``a@i,xc,yc`` / ``A@i,xc,yc``
    cell with the smallest / largest angle about ``(xc, yc)`` measured from
    ``i`` degrees (defaults: 0 and the middle of the box).
``R@xc,yc,zc``
    cell farthest from ``(xc, yc, zc)`` (default: the middle of the box).

Every fixed-order heuristic becomes a rank per cell item (ties keep cell
priority order); the kernels pick the open cell of lowest rank.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.errors import UsageError
from bench.toolchain.registry import njit

MIN_FIT = 0
FIXED_ORDER = 1
ESTIMATE = 2


@njit(inline="always")
def fixed_order_step(pick, i, degree, cell, rank):
    """One item of a fixed-order scan, in scalars so that both DLX kernels inline it.

    ``pick`` is ``(small, small_degree, best, best_rank, fallback,
    fallback_degree)``: the first item with the fewest options below 2 (it
    wins: 0 options is a dead end, 1 is forced), the cell with the lowest
    ``rank``, and the shape item with the fewest options, for puzzles
    whose cells are all covered.
    """
    small, small_degree, best, best_rank, fallback, fallback_degree = pick
    if degree < small_degree:
        small, small_degree = i, degree
    if cell:
        if rank < best_rank:
            best, best_rank = i, rank
    elif degree < fallback_degree:
        fallback, fallback_degree = i, degree
    return small, small_degree, best, best_rank, fallback, fallback_degree


@njit(inline="always")
def fixed_order_choice(pick, none):
    """The item a fixed-order scan ends on (``none`` when there was none)."""
    small, _, best, _, fallback, _ = pick
    if small != none:
        return small
    if best != none:
        return best
    return fallback


SHORTHANDS = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1), "X": (-1, 0, 0), "Y": (0, -1, 0), "Z": (0, 0, -1), "xyz": (1, 1, 1)}
NAMES = ("s", "e", "f", "l", "a", "A", "R") + tuple(SHORTHANDS)
SYNTAX = "NAME[@ARGS][=R][:NAME[@ARGS]=R...], NAME one of " + " ".join(NAMES)


@dataclass(frozen=True)
class Heuristic:
    """One heuristic of a schedule: its name, arguments and activation point."""

    name: str
    args: tuple[float, ...]
    remaining: int | None

    def __str__(self) -> str:
        text = self.name
        if self.args:
            text += "@" + ",".join(f"{a:g}" for a in self.args)
        if self.remaining is not None:
            text += f"={self.remaining}"
        return text


def parse_order(spec: str | None) -> list[Heuristic]:
    """Parse a schedule; raise :class:`UsageError` with the expected syntax."""
    if spec is None or spec.strip() == "":
        return [Heuristic("s", (), None)]
    out = []
    for part in spec.split(":"):
        part = part.strip()
        body, eq, rem = part.partition("=")
        name, at, args = body.partition("@")
        if name not in NAMES:
            raise UsageError(f"unknown ordering heuristic '{name}' in '{spec}'; expected {SYNTAX}")
        try:
            values = tuple(float(a) for a in args.split(",")) if at else ()
            remaining = int(rem) if eq else None
        except ValueError:
            raise UsageError(f"malformed ordering heuristic '{part}'; expected {SYNTAX}") from None
        if remaining is not None and remaining < 0:
            raise UsageError(f"'{part}': the number of remaining pieces must be >= 0")
        limits = {"l": (3, 3), "a": (0, 3), "A": (0, 3), "R": (0, 3), "f": (0, 3)}.get(name, (0, 0))
        if not limits[0] <= len(values) <= limits[1]:
            raise UsageError(f"'{part}': heuristic '{name}' takes {limits[0]}..{limits[1]} arguments")
        if name == "f" and values and sorted(values) != [0, 1, 2]:
            raise UsageError(f"'{part}': 'f@a,b,c' takes the axes 0, 1, 2 in scan order, slowest first")
        out.append(Heuristic(name, values, remaining))
    if sum(h.remaining is None for h in out) > 1:
        raise UsageError(f"'{spec}': only one heuristic may be given without =R")
    return out


def schedule(spec: str | None, n_pieces: int) -> list[Heuristic]:
    """The active heuristic for each number of remaining pieces ``0 .. n_pieces``."""
    entries = parse_order(spec)
    start = next((h for h in entries if h.remaining is None), Heuristic("s", (), None))
    timed = sorted((h for h in entries if h.remaining is not None), key=lambda h: h.remaining)
    out = []
    for p in range(n_pieces + 1):
        active = next((h for h in timed if h.remaining >= p), start)
        out.append(active)
    return out


def cell_keys(heuristic: Heuristic, coords: np.ndarray, dims) -> np.ndarray:
    """The value a fixed-order heuristic minimizes, per cell."""
    coords = np.asarray(coords, dtype=np.float64)
    mid = (np.asarray(dims, dtype=np.float64) - 1) / 2
    name, args = heuristic.name, heuristic.args
    if name == "f":
        return np.arange(len(coords), dtype=np.float64) if not args else scan_keys(coords, scan_axes(heuristic))
    if name in SHORTHANDS or name == "l":
        weights = np.array(SHORTHANDS.get(name, args), dtype=np.float64)
        return coords @ weights
    if name in ("a", "A"):
        ref = args[0] if args else 0.0
        xc = args[1] if len(args) > 1 else mid[0]
        yc = args[2] if len(args) > 2 else mid[1]
        angle = (np.degrees(np.arctan2(coords[:, 1] - yc, coords[:, 0] - xc)) - ref) % 360.0
        return angle if name == "a" else -angle
    if name == "R":
        centre = np.array([args[k] if len(args) > k else mid[k] for k in range(3)])
        return -np.sum((coords - centre) ** 2, axis=1)
    raise ValueError(name)


def scan_axes(heuristic: Heuristic) -> tuple[int, int, int]:
    """The axes an ``f`` scan runs through, slowest first."""
    return tuple(int(a) for a in heuristic.args) if heuristic.args else (0, 1, 2)


def scan_keys(coords: np.ndarray, axes) -> np.ndarray:
    """Each cell's place in a scan of its grid with ``axes`` from slowest to fastest."""
    coords = np.asarray(coords, dtype=np.int64)
    extent = coords.max(axis=0) + 1 if len(coords) else np.ones(3, dtype=np.int64)
    key = np.zeros(len(coords), dtype=np.int64)
    for axis in axes:
        key = key * int(extent[axis]) + coords[:, axis]
    return key.astype(np.float64)


@dataclass(frozen=True)
class CompiledOrder:
    """A schedule as kernel arrays.

    ``kind[p]`` is MIN_FIT, FIXED_ORDER or ESTIMATE for ``p`` remaining
    pieces; ``table[p]`` selects a row of ``rank`` (rank of each item; items
    that are not cells rank last).
    """

    kind: np.ndarray
    table: np.ndarray
    rank: np.ndarray
    text: str


def compile_order(spec: str | None, cover, n_pieces: int) -> CompiledOrder:
    """Turn a schedule into per-remaining-pieces arrays for ``cover``."""
    active = schedule(spec, n_pieces)
    puzzle = cover.puzzle
    rows: list[np.ndarray] = []
    index: dict[Heuristic, int] = {}
    kind = np.zeros(n_pieces + 1, dtype=np.int32)
    table = np.zeros(n_pieces + 1, dtype=np.int32)
    for p, h in enumerate(active):
        if h.name in ("s", "e"):
            kind[p] = MIN_FIT if h.name == "s" else ESTIMATE
            continue
        kind[p] = FIXED_ORDER
        key = Heuristic(h.name, h.args, None)
        if key not in index:
            if (h.name != "f" or h.args) and puzzle is None:
                raise UsageError(f"heuristic '{h.name}' needs cell coordinates, but this cover has no puzzle")
            coords = puzzle.open_coords if puzzle is not None else np.zeros((cover.n_cells, 3))
            dims = puzzle.dims if puzzle is not None else (1, 1, 1)
            keys = cell_keys(h, coords[: cover.n_cells], dims)
            order = np.lexsort((np.arange(cover.n_cells), keys))
            rank = np.full(cover.n_items, np.iinfo(np.int32).max, dtype=np.int32)
            rank[order] = np.arange(cover.n_cells, dtype=np.int32)
            index[key] = len(rows)
            rows.append(rank)
        table[p] = index[key]
    if not rows:
        rows.append(np.full(cover.n_items, np.iinfo(np.int32).max, dtype=np.int32))
    text = ":".join(str(h) for h in parse_order(spec))
    return CompiledOrder(kind, table, np.ascontiguousarray(np.array(rows, dtype=np.int32)), text)

