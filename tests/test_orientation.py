"""FILA's automatic configuration searches the same tree however the user draws the box and the pieces."""

from __future__ import annotations

from dataclasses import replace

import pytest

import bench
from benchmarks.orientation import transposed, turned_pieces
from bench.engines.protocol import Limits, Settings
from bench.errors import UsageError
from bench.models.cover import Cover
from bench.engines import fila as fila_module
from bench.engines.fila import FilaEngine, scan_heuristic
from bench.kernels.heuristics import parse_order
from bench.session.prepare import Request, prepare
from support import DEFS


def untuned(puzzle):
    """An untuned FILA solve of ``puzzle``: counts and the machine-independent counters."""
    engine = FilaEngine()
    prepared = prepare(puzzle, Request(tuned=False), engine)
    r = engine.solve(prepared.cover, prepared.settings, Limits())
    return (r.covers, r.unique, r.total, r.stats["nodes"], r.stats["attempts_by_remaining"],
            r.stats["fits_by_remaining"]), prepared.settings


@pytest.mark.parametrize("name, counts", [("pentominoes_10x6.txt", (2339, 9356)), ("pentominoes_12x5.txt", (1010, 4040)),
                                          ("pentominoes_20x3.txt", (2, 8)), ("pentominoes_1s_30x3.txt", (46, 184))])
def test_a_rectangle_drawn_either_way_searches_the_same_tree(name, counts):
    text = (DEFS / name).read_text()
    [drawn] = bench.parse_text(text)
    [turned] = bench.parse_text(transposed(text))
    first, first_settings = untuned(bench.Puzzle.from_definition(drawn))
    second, second_settings = untuned(bench.Puzzle.from_definition(turned))
    assert first[1:3] == counts
    assert first == second
    assert {first_settings.order.split("=")[0], second_settings.order.split("=")[0]} == {"f", "f@1,0,2"}


def test_pieces_drawn_turned_search_the_same_tree(monkeypatch):
    # the Soma cube's two schedules race within a few per cent of each other (1.5 ms against 1.6 ms), so the
    # measured race may go either way on any drawing: the rule's schedule stands here, and the rest of the choice
    # (piece, hand-off, from seeded estimates) and the tree must not depend on the drawing
    monkeypatch.setattr("bench.engines.autoconfig.RACE_BELOW", 0.0)
    text = (DEFS / "somacube.txt").read_text()
    first, _ = untuned(bench.Puzzle.from_definition(bench.parse_text(text)[0]))
    second, _ = untuned(bench.Puzzle.from_definition(bench.parse_text(turned_pieces(text))[0]))
    assert first[:3] == (480, 480, 11520)
    assert first == second


@pytest.mark.slow
def test_tetris_cube_drawn_two_ways_searches_the_same_tree():
    text = (DEFS / "tetriscube.txt").read_text()
    first, _ = untuned(bench.Puzzle.from_definition(bench.parse_text(text)[0]))
    second, _ = untuned(bench.Puzzle.from_definition(bench.parse_text(turned_pieces(text))[0]))
    assert first[:3] == (9839, 9839, 236136)
    assert first == second


def test_the_scan_takes_the_longest_axis_slowest():
    def scan(x, y, z):
        pieces = "".join(f"C:name=m{k}:layout=0 0 0\n" for k in range(x * y * z))
        [d] = bench.parse_text(f"D:xDim={x}:yDim={y}:zDim={z}\n{pieces}~D\n")
        return scan_heuristic(bench.Puzzle.from_definition(d))
    assert [scan(6, 4, 1), scan(4, 6, 1), scan(2, 3, 4), scan(3, 3, 3), scan(2, 2, 5)] == \
        ["f", "f@1,0,2", "f@2,1,0", "f", "f@2,0,1"]


def test_a_turned_scan_is_an_axis_permutation():
    assert str(parse_order("f@1,0,2=11")[0]) == "f@1,0,2=11"
    for bad in ("f@1,1,2", "f@0,1", "f@0,1,3"):
        with pytest.raises(UsageError):
            parse_order(bad)


@pytest.mark.parametrize("order", ["f@1,0,2", "e=11:f@1,0,2=4", "f@1,0,2=11:f=5"])
def test_turned_scans_count_exactly_in_both_bit_layouts(order, monkeypatch):
    # 12x5 drawn as 5x12, where the turned scan is the good one
    [definition] = bench.parse_text(transposed((DEFS / "pentominoes_12x5.txt").read_text()))
    puzzle = bench.Puzzle.from_definition(definition)
    cover = Cover.from_puzzle(puzzle, redundancy=True)
    settings = Settings(order=order, fila=11)
    geometric = FilaEngine().solve(cover, settings)
    plan = fila_module.make_plan
    monkeypatch.setattr(fila_module, "make_plan", lambda *args: replace(plan(*args), n_box=1 << 20))
    packed = FilaEngine().solve(cover, settings)
    assert packed.stats["fila"]["geometric"] == 0 < geometric.stats["fila"]["geometric"]
    for r in (geometric, packed):
        assert (r.covers, r.unique, r.total) == (1010, 1010, 4040)
    assert geometric.stats["nodes"] == packed.stats["nodes"]
