"""The Python API: bench.solve, bench.solutions as a generator, and the pictures a notebook shows."""

from __future__ import annotations

import threading

import pytest

import bench
from bench.drawing.notebook import svg_of
from bench.errors import UsageError
from support import DATA, DEFS


def test_solutions_yields_every_cover_in_search_order_as_placements():
    result = bench.solve(DEFS / "pentominoes_20x3.txt", engine="dlx", keep_solutions=8)
    found = list(bench.solutions(DEFS / "pentominoes_20x3.txt", engine="dlx"))
    assert len(found) == result.covers == 8
    assert [s.options for s in found] == [s.options for s in result.solutions]
    assert all(len(s) == 12 and {p.piece for p in s} == set("FILNPTUVWXYZ") for s in found)


@pytest.mark.parametrize("engine", ["dlx", "fila", "cpsat"])
def test_solutions_counts_as_the_engine_does(engine):
    # spare pieces: 80 covers, every engine alike
    assert sum(1 for _ in bench.solutions(DATA / "spare_3x3.txt", engine=engine)) == 80


def test_leaving_the_loop_early_stops_the_search():
    before = threading.active_count()
    solutions = bench.solutions(DEFS / "pentominoes_10x6.txt", engine="dlx")
    first = [next(solutions) for _ in range(3)]
    solutions.close()
    assert len(first) == 3 and threading.active_count() == before


def test_an_engine_that_only_counts_has_no_solutions_to_hand_out():
    with pytest.raises(UsageError, match="counts solutions without producing them"):
        next(bench.solutions(DEFS / "dominoes_4x4.txt", engine="ganak"))


def test_puzzles_solutions_and_results_are_pictures():
    [puzzle] = bench.load(DATA / "stationary_5x5.txt")
    result = bench.solve(puzzle, engine="dlx", keep_solutions=1)
    solution = result.solutions[0]
    assert svg_of(solution).startswith("<svg") and svg_of(result) == svg_of(solution)
    board = svg_of(puzzle)
    assert board.startswith("<svg") and all(p.name in board for p in puzzle.stationary)
    # a result that kept no solution has no picture: a notebook shows its text
    assert svg_of(bench.solve(puzzle, engine="dlx")) is None
