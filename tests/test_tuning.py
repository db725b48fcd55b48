"""The automatic configuration of an untuned FILA run: estimates of the pipeline's tree and the choice they make."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import bench
from benchmarks.orientation import transposed
from bench.engines.protocol import Limits, Settings
from bench.models.cover import Cover
from bench.models.filters import volume_filter
from bench.engines import autoconfig
from bench.engines.fila import PIPELINE, FilaEngine, default_order
from bench.kernels.pipeline_estimate import (E_COVERS, E_NODES_DLX, E_NODES_FIXED, E_NODES_SEARCHED, E_TRIALS,
                                            PipelineArrays)
from bench.session.prepare import Request, prepare
from support import DATA, DEFS


def one(name):
    [puzzle] = bench.load(DEFS / name)
    return puzzle


def real_nodes(puzzle, piece):
    """Nodes of the FILA solve an untuned run makes with ``piece`` constrained."""
    engine = FilaEngine()
    auto = prepare(puzzle, Request(tuned=False), engine)
    request = Request(settings=Settings(order=auto.settings.order, fila=auto.settings.fila, nof=True),
                      redundancy=piece, redundancy_method="orbit", volume=puzzle.planar)
    prepared = prepare(puzzle, request, engine)
    return engine.solve(prepared.cover, prepared.settings, Limits()).stats["nodes"]


@pytest.mark.parametrize("name", ["pentominoes_12x5.txt", "pentominoes_1s_30x3.txt", "pentominoes_10x6.txt"])
def test_the_estimates_pick_x_where_it_searches_the_smallest_tree(name):
    # FILA's nodes with X constrained against Z (the rule the estimates replaced picked Z on 12x5):
    # 12x5 0.84 M against 7.56 M, one-sided 30x3 0.55 M against 3.83 M, 10x6 2.09 M against 17.8 M
    puzzle = one(name)
    choice = autoconfig.choose(puzzle, PIPELINE)
    assert choice.piece == "X"
    assert choice.candidates[0].piece == "X" and choice.candidates[0].seconds < choice.candidates[-1].seconds


def test_the_choice_is_deterministic():
    puzzle = one("pentominoes_12x5.txt")
    first, second = (autoconfig.choose(puzzle, PIPELINE) for _ in range(2))
    assert first.piece == second.piece and first.steps == second.steps
    assert [c.to_json() for c in first.candidates] == [c.to_json() for c in second.candidates]


@pytest.mark.parametrize("name", ["pentominoes_12x5.txt", "pentominoes_1s_30x3.txt"])
def test_a_turned_box_gets_the_same_choice(name):
    text = (DEFS / name).read_text()
    drawn = bench.Puzzle.from_definition(bench.parse_text(text)[0])
    turned = bench.Puzzle.from_definition(bench.parse_text(transposed(text))[0])
    first, second = autoconfig.choose(drawn, PIPELINE), autoconfig.choose(turned, PIPELINE)
    assert first.piece == second.piece == "X"
    assert first.order.split("=")[0] != second.order.split("=")[0]  # f against f@1,0,2: the same scan


def test_the_sampler_estimates_the_tree_fila_searches():
    # Knuth's estimate is unbiased: with many paths it comes near the nodes the FILA solve counts
    puzzle = one("pentominoes_20x3.txt")
    cover, _ = volume_filter(Cover.from_puzzle(puzzle, redundancy="X", method="orbit"))
    arrays = PipelineArrays.build(cover, default_order(cover, 11), 11)
    rows = arrays.sample(np.zeros((1, cover.n_options), dtype=np.bool_), 20000, 1, 12)
    estimate = (rows[0, E_NODES_DLX] + rows[0, E_NODES_FIXED] + rows[0, E_NODES_SEARCHED]) / rows[0, E_TRIALS]
    truth = real_nodes(puzzle, "X")
    assert 0.8 * truth < estimate < 1.25 * truth


def test_a_path_ends_at_a_box_filled_with_pieces_left():
    # spare pieces (12 cells of pieces for a 3x3 box): a path that fills the box is a cover once every shape has its
    # minimum; looking for an open cell in a full box read past the cell arrays and crashed the choice
    [puzzle] = bench.load(DATA / "spare_3x3.txt")
    cover = Cover.from_puzzle(puzzle)
    n = cover.piece_count
    arrays = PipelineArrays.build(cover, default_order(cover, n - 1), n - 1)
    rows = arrays.sample(np.zeros((1, cover.n_options), dtype=np.bool_), 20000, 1, n)
    # the matrix has 80 covers (80 total, 10 unique)
    assert 0.8 * 80 < rows[0, E_COVERS] / rows[0, E_TRIALS] < 1.25 * 80
    choice = autoconfig.choose(puzzle, PIPELINE)
    engine = FilaEngine()
    prepared = prepare(puzzle, Request(tuned=False), engine)
    r = engine.solve(prepared.cover, prepared.settings, Limits())
    assert choice.piece is not None and (r.unique, r.total) == (10, 80)


def test_the_root_is_stratified():
    # every path takes the root's children in turn: the paths come in whole multiples of its degree, and the
    # top level alone is counted exactly
    puzzle = one("pentominoes_12x5.txt")
    cover, _ = volume_filter(Cover.from_puzzle(puzzle, redundancy="X", method="orbit"))
    arrays = PipelineArrays.build(cover, default_order(cover, 11), 11)
    rows = arrays.sample(np.zeros((1, cover.n_options), dtype=np.bool_), 10, 3, 1)
    x_images = int(np.sum(arrays.opt_shape == next(s.index for s in puzzle.shapes if s.name == "X")))
    assert rows[0, E_TRIALS] % x_images == 0
    assert (rows[0, E_NODES_DLX] + rows[0, E_NODES_FIXED]) / rows[0, E_TRIALS] == x_images


def test_every_candidate_keeps_the_counts():
    # whichever piece the estimates pick, the redundancy filter's unique and total are the puzzle's
    puzzle = one("pentominoes_20x3.txt")
    engine = FilaEngine()
    for shape in puzzle.shapes:
        request = Request(redundancy=shape.name, redundancy_method="orbit", volume=True,
                          settings=Settings(order="f=11", fila=11, nof=True))
        prepared = prepare(puzzle, request, engine)
        r = engine.solve(prepared.cover, prepared.settings, Limits())
        assert (r.unique, r.total) == (2, 8), shape.name


def test_the_budget_bounds_the_sampling():
    puzzle = one("pentominoes_12x5.txt")
    choice = autoconfig.choose(puzzle, PIPELINE)
    # a sub-second puzzle: one round of the first paths, a few milliseconds of work
    assert choice.steps * autoconfig.STEP_SECONDS < 0.01
    assert all(c.rounds >= 1 for c in choice.candidates)


def test_the_estimates_move_the_hand_off_where_they_price_a_later_one_far_cheaper():
    # planar pentacubes in 3x4x5: FILA after the second piece searches 48 M nodes in 2.1 s, after the first
    # 148 M in 6.9 s; the Tetris Cube's two trees are alike, and its later hand-off only adds FILA set-ups
    moved = autoconfig.choose(one("pentacubes_planar_3x4x5.txt"), PIPELINE)
    assert moved.handoff == 10 and moved.order == "e=10" and "FILA one piece later" in moved.reason
    assert moved.handoffs[10]["seconds"] <= autoconfig.HANDOFF_GAIN * moved.handoffs[11]["seconds"]
    kept = autoconfig.choose(one("tetriscube.txt"), PIPELINE)
    assert kept.handoff == 11 and set(kept.handoffs) == {10, 11}
    assert kept.handoffs[10]["seconds"] > autoconfig.HANDOFF_GAIN * kept.handoffs[11]["seconds"]
    assert autoconfig.Choice.from_json(moved.to_json()) == moved
    assert any(line.startswith("AUTO_HANDOFF[10]=") for line in moved.lines())
    # the engine's untuned settings follow it
    auto = FilaEngine().configure(one("pentacubes_planar_3x4x5.txt"), Request(tuned=False))
    assert auto.settings.fila == 10
    # a sub-second puzzle cannot pay for the paths: the rule's hand-off, unpriced
    small = autoconfig.choose(one("pentacubes_planar_2x5x6.txt"), PIPELINE)
    assert small.handoff == 11 and small.handoffs == {}


def test_the_schedules_race_where_the_search_is_small():
    # the 30-ball pyramid: the scan searches 11,326 nodes (19,491 without the isolated-cell trigger), e 2,845
    # nodes priced 9 ms (most of it building e's list sets: 313,014 entries); the race runs both, in turns, over
    # the same sub-problems, and the scan leads
    choice = autoconfig.choose(one("polyspheres_square_pyramid_30.txt"), PIPELINE)
    assert choice.order == "f=6" and set(choice.schedules) == {"e=6", "f=6"}
    scan, tight = choice.schedules["f=6"], choice.schedules["e=6"]
    assert scan["won"] and scan["reached"] and not tight["won"]
    # e, the rule, was priced RACE_CLEAR times as high as the scan (with the margin) to the checkpoint
    assert tight["checkpoint_cost"] >= autoconfig.RACE_CLEAR * scan["checkpoint_cost"] / autoconfig.EXACT_GAIN
    assert scan["checkpoint"] <= scan["handoffs"] or scan["finished"]
    assert "AUTO_ORDER=f=6" in choice.lines() and any(line.startswith("AUTO_SCHEDULE[e=6]=") for line in choice.lines())
    # the engine's untuned settings follow it, and the cover cache's copy of the choice keeps it
    auto = FilaEngine().configure(one("polyspheres_square_pyramid_30.txt"), Request(tuned=False))
    assert auto.settings.order == auto.choice.order
    assert autoconfig.Choice.from_json(choice.to_json()).order == "f=6"


def test_a_clear_lead_on_the_first_sub_problems_decides_the_race():
    # the planar pentacubes in 2x3x10: the scan's whole search is 202,214 nodes over 4 sub-problems; it leads e
    # clearly on the first, and the race stops there, before either search ends
    choice = autoconfig.choose(one("pentacubes_planar_2x3x10.txt"), PIPELINE)
    tight, scan = choice.schedules["e=11"], choice.schedules["f=11"]
    assert choice.order == "f=11" and scan["won"] and not scan["finished"] and not tight["finished"]
    assert 1 <= scan["checkpoint"] < 4 and scan["nodes"] < 202_214
    assert tight["checkpoint_cost"] >= autoconfig.RACE_EVIDENCE


def test_a_race_without_a_clear_lead_runs_to_the_end(monkeypatch):
    # no lead is ever clear enough: the race goes on, sub-problem by sub-problem, until a search finishes; the
    # first to finish leads at every checkpoint from then on and wins
    monkeypatch.setattr(autoconfig, "RACE_CLEAR", 1e9)
    choice = autoconfig.choose(one("polyspheres_square_pyramid_30.txt"), PIPELINE)
    scan, tight = choice.schedules["f=6"], choice.schedules["e=6"]
    assert choice.order == "f=6" and scan["won"] and scan["finished"] and scan["nodes"] == 11_326
    assert scan["checkpoint"] > scan["handoffs"] == 3
    assert tight["cost"] * autoconfig.EXACT_GAIN >= scan["cost"]
    assert "its whole search priced at" in choice.reason


def test_a_race_stops_undecided_after_its_nodes_whatever_the_clock(monkeypatch):
    # counted in nodes, the race's end is the same on a slow or busy machine: the rule's schedule then stands
    monkeypatch.setattr(autoconfig, "RACE_NODES", 3_000)
    choice = autoconfig.choose(one("polyspheres_square_pyramid_30.txt"), PIPELINE)
    assert choice.order == "e=6" and not any(r["won"] for r in choice.schedules.values())
    assert 3_000 <= sum(r["nodes"] for r in choice.schedules.values()) < 11_326
    assert "stopped undecided" in choice.reason


def test_a_search_slice_never_stops_at_zero_nodes():
    # a slice that took long (a hand-off's lists built in it) shrinks the next one, never to nothing; a quick one
    # grows it at most 8-fold
    from bench.engines.search import Search

    assert Search.next_slice(16, 1.0, Search.SLICE_SECONDS) == 1
    assert Search.next_slice(16, 1e-9, Search.SLICE_SECONDS) == 16 * 8


@pytest.mark.parametrize("name", ["polyspheres_square_pyramid_30.txt", "hexiamonds_6x6.txt",
                                  "pentacubes_planar_2x3x10.txt"])
def test_the_choice_is_the_same_on_a_slowed_and_jumpy_clock(monkeypatch, name):
    # what a slow or busy machine looks like to the choice: every kernel slice takes long and the clock jumps; the
    # piece, hand-off, schedule, race and counters must not move (only the seconds it reports may)
    import time

    from bench.engines.search import Search

    steady = autoconfig.choose(one(name), PIPELINE)
    slice_ = Search._slice
    clock = [0.0]

    def jumpy():
        clock[0] += 0.37
        return clock[0]

    def slowed(self, budget):
        time.sleep(0.0005)
        return slice_(self, budget)

    monkeypatch.setattr(Search, "_slice", slowed)
    monkeypatch.setattr(autoconfig.time, "perf_counter", jumpy)
    slow = autoconfig.choose(one(name), PIPELINE)
    assert slow == steady and slow.to_json()["schedules"] == steady.to_json()["schedules"]
    assert slow.lines()[:2] == steady.lines()[:2] and slow.reason == steady.reason


def test_large_trees_keep_e_without_a_race():
    # e's tree is a tenth of the scan's on the Tetris Cube (48 M nodes against 477 M): racing them would cost seconds
    choice = autoconfig.choose(one("tetriscube.txt"), PIPELINE)
    assert choice.order == "e=11" and choice.schedules == {} and choice.predicted_seconds > autoconfig.RACE_BELOW


def test_a_puzzle_without_symmetry_has_nothing_to_choose():
    choice = autoconfig.choose(one("dominoes_6x6.txt"), PIPELINE)
    assert choice.piece is None and choice.candidates == [] and "no piece" in choice.reason


def test_a_tuned_request_is_left_alone():
    puzzle = one("pentominoes_12x5.txt")
    request = Request(redundancy="Z", settings=Settings(fila=11))
    assert FilaEngine().configure(puzzle, request) is request
    auto = FilaEngine().configure(puzzle, replace(request, tuned=False, redundancy=None))
    assert auto.redundancy == "X" and auto.choice.piece == "X" and auto.settings.auto


def test_the_tuning_benchmark_reports_the_ratio_to_the_best_grid_row(tmp_path, monkeypatch):
    import json

    from benchmarks import tuning

    monkeypatch.setattr(tuning, "RESULTS", tmp_path)
    assert tuning.main(["pentominoes_20x3", "--rounds", "1"]) == 0
    [record] = json.loads((tmp_path / "tuning.json").read_text())["puzzles"]
    assert record["auto"]["piece"] == "X" and record["auto"]["counts"][1:] == [2, 8]  # unique, total
    assert record["ratio"] > 0 and record["resolution"]  # a millisecond search: nodes compare there
    assert 0 < record["search_ratio"] < record["ratio"]
    pieces = {g["label"].split()[0] for g in record["grid"]}
    assert {f"-r{p}" for p in "FILNPTUVWXYZ"} <= pieces
    # a short search is timed as the median of many solves (how many follows the clock, so only the rule is checked
    # here: a loaded machine may see the third of a millisecond as ten)
    assert record["repeat"] >= 1
    assert tuning.repeats(0.0003) > 10 and tuning.repeats(0.01) == 5 and tuning.repeats(2.0) == 1
    assert f"| pentominoes_20x3.txt | 1 | {record['repeat']} | -rX" in (tmp_path / "tuning.md").read_text()
