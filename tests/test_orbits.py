"""Covers counted in bulk: unique and total by Burnside's lemma where covers are plentiful (bench.session.orbits)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bench
from bench import Cover, parse_text
from bench.engines.protocol import Result, Status
from bench.kernels.canonical import SolutionCounter
from bench.models.expected import expected_for
from bench.models.puzzle import Puzzle
from bench.session.orbits import bulk_group, count_orbits
from support import DEFS
from support.reference import enumerate_covers, orbit_counts

# identical pieces filling a board, with symmetric covers (stabilizers of order 2, 4 and 8 on 4x4)
BULK = [DEFS / "dominoes_4x4.txt", DEFS / "dominoes_6x6.txt", DEFS / "dominoes_checkered_6x6.txt"]


def one_by_one(cover, solutions) -> tuple[int, int, int]:
    counter = SolutionCounter(cover)
    for options in solutions:
        counter.add(options)
    return counter.counts()


@pytest.mark.parametrize("engine", ["dlx", "fila"])
@pytest.mark.parametrize("path", BULK, ids=lambda p: p.stem)
def test_bulk_counts_are_the_expected_ones_and_each_cover_is_left_unclassified(path, engine):
    [puzzle] = bench.load(path)
    expected = expected_for(puzzle)
    result = bench.solve(puzzle, engine)
    assert result.status == Status.SOLVED
    assert (result.covers, result.unique, result.total) == (expected.total, expected.unique, expected.total)
    fixed = result.stats["fixed_covers"]
    assert fixed[0] == result.covers and len(fixed) == Cover.from_puzzle(puzzle).symmetry.order
    assert "orbits" in result.timings


def test_bulk_counts_equal_the_canonical_check_on_the_same_covers():
    [puzzle] = bench.load(DEFS / "dominoes_4x4.txt")
    cover = Cover.from_puzzle(puzzle)
    solutions = enumerate_covers(cover)
    result = Result(engine="reference", status=Status.SOLVED, covers=len(solutions))
    count_orbits(cover, result, bulk_group(cover))
    assert (result.covers, result.unique, result.total) == one_by_one(cover, solutions) == (36, 9, 36)
    # Burnside: the covers each element fixes add up to the orbits times the group's order
    assert sum(result.stats["fixed_covers"]) == 9 * 8


def test_a_limited_search_classifies_its_covers_one_by_one():
    [puzzle] = bench.load(DEFS / "dominoes_6x6.txt")
    result = bench.solve(puzzle, "dlx", max_solutions=100)
    assert result.status == Status.LIMIT and result.covers == 100
    assert "fixed_covers" not in result.stats and 0 < result.unique <= 100 <= result.total


def test_a_search_its_time_limit_stops_leaves_unique_and_total_unknown():
    # 13 million covers: seconds of search, far beyond the limit
    result = bench.solve(DEFS / "dominoes_8x8.txt", "dlx", time_limit=0.05)
    assert result.status != Status.SOLVED
    assert (result.unique, result.total) == (None, None) and "fixed_covers" not in result.stats


def test_only_matrices_the_cells_decide_and_the_group_keeps_count_in_bulk():
    [dominoes] = bench.load(DEFS / "dominoes_4x4.txt")
    assert bulk_group(Cover.from_puzzle(dominoes)) == list(range(1, 8))
    # a redundancy filter drops images: orbits are no longer whole in the matrix
    [pentominoes] = bench.load(DEFS / "pentominoes_20x3.txt")
    assert bulk_group(Cover.from_puzzle(pentominoes, redundancy=True)) is None
    # several shapes: the cells do not say which pieces a cover used
    assert bulk_group(Cover.from_puzzle(pentominoes)) is None
    # cells that may stay empty, squares beside dominoes
    for name in ("dominoes_optional_2x5.txt", "squares_dominoes_2x6.txt"):
        [puzzle] = bench.load(DEFS / name)
        assert bulk_group(Cover.from_puzzle(puzzle)) is None
    # no symmetry to count by
    assert bulk_group(Cover.from_options([[0, 1], [1, 2], [0], [2]], [1, 1, 1])) is None


@st.composite
def identical_pieces(draw):
    """Copies of one random piece (a straight or bent line of 2 or 3 cells) filling a small box."""
    dims = draw(st.sampled_from([(2, 2, 1), (3, 2, 1), (4, 2, 1), (3, 3, 1), (4, 3, 1), (4, 4, 1), (2, 2, 2),
                                 (6, 2, 1), (3, 2, 2)]))
    shape = draw(st.sampled_from(["0 0 0, 1 0 0", "0 0 0, 1 0 0, 2 0 0", "0 0 0, 1 0 0, 1 1 0"]))
    size = shape.count(",") + 1
    cells = dims[0] * dims[1] * dims[2]
    if cells % size:
        shape, size = ("0 0 0, 1 0 0", 2) if cells % 2 == 0 else ("0 0 0, 1 0 0, 2 0 0", 3)
    lines = [f"D:xDim={dims[0]}:yDim={dims[1]}:zDim={dims[2]}"]
    lines += [f"C:name=p{k}:layout={shape}" for k in range(cells // size)]
    lines.append("~D")
    [definition] = parse_text("\n".join(lines), "identical")
    return Puzzle.from_definition(definition)


@settings(max_examples=25, deadline=None)
@given(identical_pieces())
def test_burnside_counts_equal_brute_force_orbits(puzzle):
    cover = Cover.from_puzzle(puzzle)
    group = bulk_group(cover)
    assert group is not None
    solutions = enumerate_covers(cover)
    result = Result(engine="reference", status=Status.SOLVED, covers=len(solutions))
    if not solutions:
        return
    count_orbits(cover, result, group)
    unique, total = orbit_counts(puzzle, solutions, cover)
    assert (result.unique, result.total) == (unique, total)
