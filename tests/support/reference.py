"""A small, obviously correct exact-cover enumerator for tiny covers.

It is the oracle every engine is tested against, so it favours clarity over
speed.  The search branches on the lowest item still below its lower bound and
tries the options that contain it in index order; trying option a_k forbids
a_1 .. a_(k-1) for the rest of that branch, so the branches partition the
candidate sets and no set of options is produced twice, even for items with a
multiplicity.  Once every lower bound is met, the remaining options are added
in every combination that respects the upper bounds.
"""

from __future__ import annotations

import itertools
import sys

import numpy as np


def enumerate_covers(cover, limit: int | None = None) -> list[list[int]]:
    """All exact covers of ``cover`` as sorted option lists (at most ``limit``)."""
    n_items, n_options = cover.n_items, cover.n_options
    lo = [int(v) for v in cover.item_lo]
    hi = [int(v) for v in cover.item_hi]
    options = [[int(i) for i in cover.option(o)] for o in range(n_options)]
    by_item: list[list[int]] = [[] for _ in range(n_items)]
    for o, items in enumerate(options):
        for i in items:
            by_item[i].append(o)
    count = [0] * n_items
    chosen = [False] * n_options
    forbidden = [0] * n_options
    found: list[list[int]] = []

    def fits(o: int) -> bool:
        return not chosen[o] and not forbidden[o] and all(count[i] < hi[i] for i in options[o])

    def place(o: int, delta: int) -> None:
        chosen[o] = delta > 0
        for i in options[o]:
            count[i] += delta

    def done() -> bool:
        return limit is not None and len(found) >= limit

    def extend(start: int) -> None:
        found.append([o for o in range(n_options) if chosen[o]])
        for o in range(start, n_options):
            if done():
                return
            if fits(o):
                place(o, 1)
                extend(o + 1)
                place(o, -1)

    def search() -> None:
        if done():
            return
        needy = next((i for i in range(n_items) if count[i] < lo[i]), None)
        if needy is None:
            extend(0)
            return
        tried = []
        for o in by_item[needy]:
            if fits(o):
                place(o, 1)
                search()
                place(o, -1)
                forbidden[o] += 1
                tried.append(o)
        for o in tried:
            forbidden[o] -= 1

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10 * (n_items + n_options) + 1000))
    try:
        search()
    finally:
        sys.setrecursionlimit(old)
    return found


def count_covers(cover) -> int:
    """Number of exact covers of ``cover``."""
    return len(enumerate_covers(cover))


def orbit_counts(puzzle, solutions: list[list[int]], cover) -> tuple[int, int]:
    """Unique and total by brute force over *all* solutions of an unfiltered cover.

    Each solution becomes a set of (shape, cells) pieces in lattice
    coordinates; every lattice motion of the puzzle's group is applied to the
    coordinates directly (not through the cover's symmetry tables), followed
    by the translation that takes the lexicographically smallest moved open
    cell to the smallest open cell, and orbits are formed with a dictionary.
    Raises AssertionError if a group element does not map the open region
    onto itself or maps a solution to something that is not a solution, or
    if an orbit's size times its stabilizer's order is not the group's order
    (so a set of motions that is not a group cannot go unnoticed).
    """
    lattice = puzzle.lattice
    images = puzzle.images

    def as_pieces(solution):
        pieces = []
        for o in solution:
            image = int(cover.opt_image[o])
            shape = int(images.shape[image])
            coords = puzzle.open_coords[images.image_cells(image)]
            pieces.append((shape, frozenset(map(tuple, coords.tolist()))))
        return frozenset(pieces)

    known = {as_pieces(s) for s in solutions}
    region = sorted(map(tuple, puzzle.open_coords.tolist()))
    orbits: dict[frozenset, int] = {}
    next_orbit = 0
    for sol in known:
        if sol in orbits:
            continue
        orbit = set()
        stabilizer = 0
        for g, m in enumerate(puzzle.group.motions):
            moved_region = sorted(map(tuple, lattice.apply(int(m), np.array(region)).tolist()))
            shift = np.array(region[0]) - np.array(moved_region[0])
            assert sorted(map(tuple, (np.array(moved_region) + shift).tolist())) == region, "a symmetry moves the open region"
            moved = []
            for shape, cells in sol:
                pts = lattice.apply(int(m), np.array(sorted(cells))) + shift
                moved.append((int(puzzle.group.shape_perm[g, shape]), frozenset(map(tuple, pts.tolist()))))
            image = frozenset(moved)
            assert image in known, "a symmetry maps a solution to a non-solution"
            orbit.add(image)
            stabilizer += image == sol
        assert len(orbit) * stabilizer == puzzle.group.order, "orbit size times stabilizer order is not the group order"
        for member in orbit:
            orbits[member] = next_orbit
        next_orbit += 1
    return next_orbit, len(known)


def brute_force(cover) -> list[list[int]]:
    """Every subset of the options that is a cover (:meth:`Cover.verify_solution` is the whole rule: colours too)."""
    found = []
    for size in range(cover.n_options + 1):
        for subset in itertools.combinations(range(cover.n_options), size):
            if cover.verify_solution(list(subset)):
                found.append(list(subset))
    return found
