"""Exact counts: covers, unique and total, checked against the reference solver and brute force.

The canonical check (bench.models.symmetry) decides unique and total from the
covers of a filtered matrix.  Brute force (tests/reference.py: orbit_counts)
enumerates every solution of the unfiltered matrix and forms orbits by rotating
coordinates directly.  Both must agree on known puzzles and on random ones.
"""

from __future__ import annotations

import itertools
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bench
from bench import Cover, parse_text
from bench.models.expected import expected_for
from bench.models.puzzle import Puzzle
from bench.kernels.canonical import SolutionCounter
from support import DATA, DEFS
from support.reference import enumerate_covers, orbit_counts


def counts(cover):
    counter = SolutionCounter(cover)
    for solution in enumerate_covers(cover):
        counter.add(solution)
    return counter.counts()


def brute(puzzle):
    cover = Cover.from_puzzle(puzzle)
    return orbit_counts(puzzle, enumerate_covers(cover), cover)


@pytest.mark.parametrize(
    "path, redundancy",
    [
        (DEFS / "dominoes_4x4.txt", None),
        (DEFS / "pentominoes_20x3.txt", True),
        (DATA / "spare_3x3.txt", True),
        (DATA / "onesided_tetrominoes_6x4.txt", True),
        (DATA / "stationary_5x5.txt", True),
        (DEFS / "somacube.txt", "L"),
    ],
)
def test_reference_counts_match_the_expected_data(path, redundancy):
    [puzzle] = bench.load(path)
    expected = expected_for(puzzle)
    covers, unique, total = counts(Cover.from_puzzle(puzzle, redundancy=redundancy))
    assert (unique, total) == (expected.unique, expected.total)
    if redundancy is None:
        assert covers == total


def test_identical_dominoes_are_never_counted_twice():
    [puzzle] = bench.load(DEFS / "dominoes_4x4.txt")
    covers, unique, total = counts(Cover.from_puzzle(puzzle))
    assert covers == total == 36
    assert brute(puzzle) == (unique, total) == (9, 36)


def test_redundancy_covers_are_a_quarter_for_10x6_style_puzzles():
    [puzzle] = bench.load(DEFS / "pentominoes_20x3.txt")
    covers, unique, total = counts(Cover.from_puzzle(puzzle, redundancy=True))
    assert (covers, unique, total) == (2, 2, 8)
    assert brute(puzzle) == (2, 8)


def test_non_trivial_stabilizers_count_exactly():
    # every solution is a pinwheel fixed by the quarter turns: orbit of 2, not 8
    [puzzle] = bench.load(DATA / "stationary_5x5.txt")
    cover = Cover.from_puzzle(puzzle)
    assert counts(cover) == (2, 1, 2)


# -- property: random planted puzzles ------------------------------------------------

NEIGHBOURS = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]


@st.composite
def planted_puzzles(draw):
    """A small puzzle with at least one solution: a random partition of its open region."""
    if draw(st.booleans()):
        dims = draw(st.sampled_from([(2, 2, 2), (2, 2, 3), (3, 2, 2), (2, 3, 2)]))
        one_side = False
    else:
        dims = (draw(st.integers(2, 4)), draw(st.integers(1, 4)), 1)
        one_side = draw(st.booleans())
    X, Y, Z = dims
    cells = [(x, y, z) for x in range(X) for y in range(Y) for z in range(Z)]
    cells = draw(st.permutations(cells))
    n_fixed = draw(st.integers(0, min(2, len(cells) - 2)))
    fixed, remaining = cells[:n_fixed], cells[n_fixed:]
    free = set(remaining)
    pieces = []
    for start in remaining:
        if start not in free:
            continue
        piece = [start]
        free.discard(start)
        for _ in range(draw(st.integers(0, 3))):
            frontier = sorted({(x + dx, y + dy, z + dz) for x, y, z in piece for dx, dy, dz in NEIGHBOURS} & free)
            if not frontier:
                break
            nxt = draw(st.sampled_from(frontier))
            piece.append(nxt)
            free.discard(nxt)
        pieces.append(piece)
    if draw(st.booleans()):
        pieces.append(list(draw(st.sampled_from(pieces))))  # a spare copy of a used shape
    lines = [f"D:xDim={X}:yDim={Y}:zDim={Z}" + (":oneSide" if one_side else "")]
    if fixed:
        lines.append("C:name=S:type=S:layout=" + ", ".join(" ".join(map(str, c)) for c in fixed))
    for k, piece in enumerate(pieces):
        lines.append(f"C:name=p{k}:layout=" + ", ".join(" ".join(map(str, c)) for c in piece))
    lines.append("~D")
    [definition] = parse_text("\n".join(lines), "planted")
    return Puzzle.from_definition(definition)


@settings(max_examples=60)
@given(planted_puzzles())
def test_canonical_counts_equal_brute_force_orbit_counts(puzzle):
    unfiltered = Cover.from_puzzle(puzzle)
    solutions = enumerate_covers(unfiltered)
    assert solutions, "a planted puzzle has a solution"
    unique, total = orbit_counts(puzzle, solutions, unfiltered)
    assert counts(unfiltered) == (total, unique, total)
    candidates = [True] + [s.name for s in puzzle.shapes if s.multiplicity == 1]
    for redundancy, method in itertools.product(candidates, ("orbit", "orientation")):
        cover = Cover.from_puzzle(puzzle, redundancy=redundancy, method=method)
        covers, u, t = counts(cover)
        assert (u, t) == (unique, total), f"redundancy={redundancy} method={method}"
        assert unique <= covers <= total
        if cover.redundancy is not None and cover.redundancy.perfect:
            assert covers == unique
