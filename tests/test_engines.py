"""Every engine against the same oracles: known counts, the reference solver, planted covers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bench
from bench import Cover
from bench.engines import Limits, Settings, Status
from bench.expected import expected_for
from conftest import DATA, DEFS
from reference import enumerate_covers

FAST = [
    (DEFS / "dominoes_4x4.txt", None),
    (DEFS / "dominoes_6x6.txt", None),
    (DEFS / "pentominoes_20x3.txt", True),
    (DEFS / "somacube.txt", True),
    (DATA / "spare_3x3.txt", None),
    (DATA / "spare_3x3.txt", True),
    (DATA / "onesided_tetrominoes_6x4.txt", True),
    (DATA / "stationary_5x5.txt", None),
]


def one(path):
    [puzzle] = bench.load(path)
    return puzzle


@pytest.mark.parametrize("path, redundancy", FAST)
def test_known_counts(engine, path, redundancy):
    puzzle = one(path)
    expected = expected_for(puzzle)
    result = engine.solve(Cover.from_puzzle(puzzle, redundancy=redundancy))
    assert result.status == Status.SOLVED
    assert (result.unique, result.total) == (expected.unique, expected.total)
    if redundancy is None:
        assert result.covers == expected.total


def test_covers_agree_with_the_reference_solver(engine):
    for path, redundancy in FAST[:5]:
        cover = Cover.from_puzzle(one(path), redundancy=redundancy)
        assert engine.solve(cover).covers == len(enumerate_covers(cover))


def test_solutions_are_exact_covers(engine):
    cover = Cover.from_puzzle(one(DEFS / "dominoes_6x6.txt"))
    result = engine.solve(cover, limits=Limits(keep_solutions=50))
    assert len(result.solutions) == 50
    assert len({tuple(sorted(s)) for s in result.solutions}) == 50
    assert all(cover.verify_solution(s) for s in result.solutions)


def test_max_solutions_stops_with_limit_status(engine):
    cover = Cover.from_puzzle(one(DEFS / "dominoes_6x6.txt"))
    result = engine.solve(cover, limits=Limits(max_solutions=7, keep_solutions=7))
    assert result.status == Status.LIMIT
    assert result.covers == 7 and len(result.solutions) == 7


@st.composite
def small_covers(draw):
    """Random covers with exact, multiplicity and optional items (every option has an exact item)."""
    n_exact = draw(st.integers(1, 5))
    n_free = draw(st.integers(0, 2))
    lo = [draw(st.sampled_from([1, 1, 1, 2, 3])) for _ in range(n_exact)]
    hi = list(lo)
    for _ in range(n_free):
        k = draw(st.integers(1, 3))
        lo.append(0)
        hi.append(k)
    n_items = len(lo)
    options = set()
    for _ in range(draw(st.integers(1, 12))):
        exact = draw(st.sets(st.integers(0, n_exact - 1), min_size=1, max_size=n_exact))
        extra = draw(st.sets(st.integers(0, n_items - 1), max_size=2))
        options.add(tuple(sorted(exact | extra)))
    return Cover.from_options([list(o) for o in sorted(options)], lo, hi)


@settings(max_examples=150)
@given(small_covers())
def test_random_covers_match_the_reference_solver(cover):
    from bench.engines import get_engine

    expected = enumerate_covers(cover)
    for name in ("dlx",):
        result = get_engine(name).solve(cover, limits=Limits(keep_solutions=len(expected) + 1))
        assert result.status == Status.SOLVED
        assert result.covers == len(expected)
        assert sorted(tuple(sorted(s)) for s in result.solutions) == sorted(tuple(s) for s in expected)
