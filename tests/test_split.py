"""Splitting a search: the sub-problems partition the tree, so counts and counters add up exactly."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import bench
from bench import Cover
from bench.engines import Settings, get_engine
from bench.engines import fila
from bench.engines.protocol import Cut
from bench.parallel.split import SubProblem, merge_stats, split
from support import DEFS

ADDITIVE = ("covers", "unique", "total")
COUNTERS = ("nodes", "attempts", "fits", "updates", "dead_ends")


def solve_parts(engine, cover, settings_, parts):
    results = [engine.solve(cover, replace(settings_, prefix=s.prefix)) for s in parts.subproblems]
    counts = tuple(sum(getattr(r, key) for r in results) for key in ADDITIVE)
    return counts, merge_stats([parts.stats] + [r.stats for r in results])


@pytest.fixture(scope="module")
def p10x6():
    [puzzle] = bench.load(DEFS / "pentominoes_10x6.txt")
    return Cover.from_puzzle(puzzle, redundancy=True)


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_dlx_parts_add_up_to_the_whole_search(p10x6, depth):
    engine = get_engine("dlx")
    whole = engine.solve(p10x6)
    parts = split(p10x6, Settings(), depth)
    counts, stats = solve_parts(engine, p10x6, Settings(), parts)
    assert counts == (whole.covers, whole.unique, whole.total) == (2339, 2339, 9356)
    for key in COUNTERS:
        assert stats[key] == whole.stats[key], key
    assert stats["fits_by_remaining"] == whole.stats["fits_by_remaining"]


def test_the_split_is_deterministic_and_in_search_order(p10x6):
    a, b = split(p10x6, Settings(), 2), split(p10x6, Settings(), 2)
    assert a.subproblems == b.subproblems
    assert [s.ident for s in a.subproblems] == [str(k) for k in range(len(a.subproblems))]
    sub = a.subproblems[5]
    assert SubProblem.from_json(sub.to_json()) == sub


def test_refining_one_sub_problem_keeps_the_partition(p10x6):
    engine = get_engine("dlx")
    top = split(p10x6, Settings(), 1)
    big = top.subproblems[0]
    deeper = split(p10x6, Settings(), 2, parent=big)
    assert all(s.ident.startswith(big.ident + ".") for s in deeper.subproblems)
    alone = engine.solve(p10x6, Settings(prefix=big.prefix))
    counts, stats = solve_parts(engine, p10x6, Settings(), deeper)
    assert counts == (alone.covers, alone.unique, alone.total)
    assert stats["fits"] == alone.stats["fits"] and stats["nodes"] == alone.stats["nodes"]


def test_fila_parts_above_the_hand_off_reproduce_the_tree(p10x6):
    engine = get_engine("fila")
    resolved = fila.with_defaults(p10x6, Settings())
    whole = engine.solve(p10x6, resolved)
    parts = split(p10x6, resolved, 1)
    counts, stats = solve_parts(engine, p10x6, resolved, parts)
    assert counts == (whole.covers, whole.unique, whole.total)
    assert (stats["fits"], stats["attempts"]) == (whole.stats["fits"], whole.stats["attempts"])
    # below the hand-off DLX runs deeper: another tree, the same counts
    counts, _ = solve_parts(engine, p10x6, resolved, split(p10x6, resolved, 3))
    assert counts == (2339, 2339, 9356)


def test_constraints_in_the_replayed_levels(p10x6):
    engine = get_engine("dlx")
    tuned = Settings(volume_filter=8, parity_backtrack=1, volume_backtrack=5)
    whole = engine.solve(p10x6, tuned)
    counts, stats = solve_parts(engine, p10x6, tuned, split(p10x6, tuned, 3))
    assert counts == (2339, 2339, 9356)
    for key in ("fits", "nodes", "volume_filtered", "volume_backtracks", "parity_backtracks"):
        assert stats[key] == whole.stats[key], key


@st.composite
def multiplicity_covers(draw):
    """Random covers whose first item needs several options: the splitter meets identical-piece branches."""
    n_items = draw(st.integers(3, 7))
    options = draw(st.lists(st.lists(st.integers(1, n_items - 1), min_size=1, max_size=3, unique=True),
                            min_size=3, max_size=16))
    options = [[0] + o for o in options] + draw(st.lists(st.lists(st.integers(1, n_items - 1), min_size=1,
                                                                   max_size=2, unique=True), max_size=6))
    k = draw(st.integers(1, 3))
    hi = [k + draw(st.integers(0, 1))] + [1] * (n_items - 1)
    lo = [k] + [draw(st.sampled_from([0, 1, 1])) for _ in range(n_items - 1)]
    distinct = sorted({tuple(sorted(o)) for o in options if any(lo[i] for i in o)})
    return Cover.from_options(distinct, lo, hi), draw(st.integers(1, 3))


def test_a_cover_that_holds_others_splits_into_parts_that_extend_it_once():
    # item 0 needs 3 or 4 options and the last three cover no item of exact bounds: {0, 3, 4} is a cover, and so is
    # {0, 3, 4, 5}.  The splitter stops at the first; the sub-problem that replays it extends it (hypothesis found
    # the double count, and the replay of a prefix past a cover wrote out of bounds)
    cover = Cover.from_options([[0, 1], [0, 1, 2], [0, 1, 2, 3], [0, 2, 5], [0, 3], [0, 4]], [3, 1, 0, 0, 0, 0],
                               [4, 1, 1, 1, 1, 1])
    assert cover.extensible
    engine = get_engine("dlx")
    first = Settings(first_item=0)
    whole = engine.solve(cover, first)
    parts = split(cover, first, 3)
    counts, stats = solve_parts(engine, cover, first, parts)
    assert whole.covers == counts[0] == 5
    assert stats["nodes"] == whole.stats["nodes"] and stats["fits"] == whole.stats["fits"]


@settings(max_examples=150, deadline=None)
@given(multiplicity_covers())
def test_identical_piece_branches_split_without_double_counting(case):
    cover, depth = case
    engine = get_engine("dlx")
    first = Settings(first_item=0)
    whole = engine.solve(cover, first)
    # split() refuses to go as deep as the search (it would have no sub-problem left to solve)
    assume(whole.covers > 0 and depth < cover.piece_count)
    parts = split(cover, first, depth)
    counts, stats = solve_parts(engine, cover, first, parts)
    assert counts[0] == whole.covers
    assert stats["fits"] == whole.stats["fits"] and stats["nodes"] == whole.stats["nodes"]
    seen = set()
    for sub in parts.subproblems:
        for cover_options in engine.solve(cover, replace(first, prefix=sub.prefix),
                                          limits=bench.engines.Limits(keep_solutions=10**6)).solutions:
            key = tuple(sorted(int(o) for o in cover_options))
            assert key not in seen
            seen.add(key)
    assert len(seen) == whole.covers


def test_merge_stats_adds_numbers_lists_and_fila_totals():
    merged = merge_stats([{"fits": 2, "by": [1, 2], "fila": {"handoffs": 1, "max_cells": 40}},
                          {"fits": 3, "by": [1, 0, 5], "fila": {"handoffs": 2, "max_cells": 30}}])
    assert merged == {"fits": 5, "by": [2, 2, 5], "fila": {"handoffs": 3, "max_cells": 40}}
    assert np.isclose(merge_stats([{"x": 0.5}, {"x": 0.25}])["x"], 0.75)
    assert merge_stats([{"kernel": "bits"}, {}, {"kernel": "bits"}]) == {"kernel": "bits"}
    assert merge_stats([{"kernel": "bits"}, {"kernel": "sets"}]) == {"kernel": "mixed"}


def test_identical_piece_branch_carries_its_tweaked_siblings():
    # item 0 needs two of four options: three branches, the k-th excluding the k-1 taken before it
    cover = Cover.from_options([[0, 1], [0, 2], [0, 3], [0, 4]], [2, 0, 0, 0, 0], [2, 1, 1, 1, 1])
    first = Settings(first_item=0)
    parts = split(cover, first, 1)
    assert [len(s.prefix[0][1]) for s in parts.subproblems] == [0, 1, 2]
    engine = get_engine("dlx")
    counts = [engine.solve(cover, replace(first, prefix=s.prefix)).covers for s in parts.subproblems]
    assert counts == [3, 2, 1]


FILA_ENGINE = get_engine("fila")


def fila_split(cover, resolved, depth: int):
    """The split ``depth`` levels down with FILA's own search, so that the levels FILA takes over are cut as FILA's."""
    return split(cover, resolved, depth, start=FILA_ENGINE.search)


def solve_in_pieces(cover, resolved, parts, budget: int = 0):
    """Solve the sub-problems of ``parts`` and, in turn, every piece they hand back under ``budget``, in this process.

    Returns the counts, the merged counters and how many pieces were solved.
    """
    todo = list(parts.subproblems)
    results = []
    while todo:
        sub = todo.pop()
        result = FILA_ENGINE.solve(cover, replace(sub, budget=budget).settings(resolved))
        assert result.status.value == "solved"
        todo.extend(sub.handed_back(result.stats.pop("rest", [])))
        results.append(result)
    counts = tuple(sum(getattr(r, key) for r in results) for key in ADDITIVE)
    return counts, merge_stats([parts.stats] + [r.stats for r in results]), len(results)


PIECE_PUZZLES = {name: Cover.from_puzzle(bench.load(path)[0], redundancy=True) for name, path in (
    ("soma", DEFS / "somacube.txt"),
    ("fcc", DEFS.parent / "tests" / "data" / "fcc_pyramid_3.txt"),
    ("tetrahexes", DEFS / "tetrahexes_4x7.txt"),
    ("spare", DEFS.parent / "tests" / "data" / "spare_3x3.txt"),
    ("dominoes", DEFS / "dominoes_4x4.txt"),
)}
"""Small puzzles FILA solves in a few thousand nodes: 3-D, fcc, hex, spare pieces, identical pieces."""


@pytest.fixture
def dlx_first(monkeypatch):
    """The whole search as its pieces search it: DLX places the first piece and hands over (where FILA would take
    over at the root, it counts no DLX updates and one hand-off: the same tree, counted as another pipeline)."""
    monkeypatch.setattr(fila, "ROOT_CELLS", 0)


@pytest.mark.usefixtures("dlx_first")
@pytest.mark.parametrize("name", sorted(PIECE_PUZZLES))
def test_fila_pieces_at_every_depth_add_up_in_every_counter(name):
    # cut statically at each depth, through FILA's own levels: every counter is the single search's
    cover = PIECE_PUZZLES[name]
    resolved = fila.with_defaults(cover, Settings())
    whole = FILA_ENGINE.solve(cover, resolved)
    for depth in range(1, cover.piece_count):
        parts = fila_split(cover, resolved, depth)
        counts, stats, _ = solve_in_pieces(cover, resolved, parts)
        assert counts == (whole.covers, whole.unique, whole.total), depth
        assert stats == whole.stats, depth


def _whole(name: str, tuning: str):
    cover = PIECE_PUZZLES[name]
    n = cover.piece_count
    # "dlx": three DLX levels above the hand-off, filtered at every node (the diamond's configuration), where a spent
    # budget hands back the branches still to come at each DLX level (identical pieces too, the dominoes)
    asked = {"default": Settings(), "f": Settings(order="f"), "handoff": Settings(fila=max(n - 2, 1)),
             "triggers": Settings(parity_backtrack=int(cover.puzzle.lattice.two_colourable), volume_backtrack=2),
             "dlx": Settings(fila=max(n - 3, 1), volume_filter=max(n - 3, 1))}
    resolved = fila.with_defaults(cover, asked[tuning])
    # the whole search as its pieces search it (the dlx_first fixture's)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fila, "ROOT_CELLS", 0)
        return resolved, FILA_ENGINE.solve(cover, resolved)


WHOLE = {}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(PIECE_PUZZLES)), st.integers(1, 3), st.sampled_from([0, 4, 25, 150]),
       st.sampled_from(["default", "f", "triggers", "handoff", "dlx"]))
def test_pieces_a_budget_hands_back_add_up_in_every_counter(name, depth, parts_per_search, tuning):
    # a budget cuts the tree anywhere: continuations and shares of the children still to come, many generations;
    # the budget is a share of the search (0: a single node, on the smaller trees)
    cover = PIECE_PUZZLES[name]
    assume(depth < cover.piece_count)
    if (name, tuning) not in WHOLE:
        WHOLE[name, tuning] = _whole(name, tuning)
    resolved, whole = WHOLE[name, tuning]
    nodes = whole.stats["nodes"]
    assume(parts_per_search or nodes < 1000)
    budget = max(nodes // parts_per_search, 1) if parts_per_search else 1
    parts = fila_split(cover, resolved, depth)
    counts, stats, _ = solve_in_pieces(cover, resolved, parts, budget)
    assert counts == (whole.covers, whole.unique, whole.total)
    assert stats == whole.stats


@pytest.mark.parametrize("name", ["soma", "dominoes"])
def test_a_budget_spent_above_the_hand_off_hands_back_the_dlx_branches_to_come(name):
    # FILA three levels down, a budget of three nodes: the branches still to come at each DLX level go back as
    # sub-problems one level below theirs (with the dominoes' identical pieces, their tweaked siblings)
    cover = PIECE_PUZZLES[name]
    resolved, _ = _whole(name, "dlx")
    if name == "dominoes":
        # the root branches on the dominoes' item: eight identical pieces, each branch with the ones before out
        resolved = replace(resolved, first_item=cover.n_cells)
    whole = FILA_ENGINE.solve(cover, resolved)
    handoff = cover.piece_count - resolved.fila
    top = fila_split(cover, resolved, 1)
    rests = []
    for sub in top.subproblems:
        result = FILA_ENGINE.solve(cover, replace(sub, budget=3).settings(resolved))
        rests += [SubProblem.from_json({"id": "x", **piece}) for piece in result.stats.get("rest", [])]
    assert any(p.cut is None and len(p.prefix) < handoff for p in rests)
    if name == "dominoes":
        assert any(ex for p in rests for _, ex in p.prefix)
    counts, stats, _ = solve_in_pieces(cover, resolved, top, budget=3)
    assert counts == (whole.covers, whole.unique, whole.total)
    assert stats == whole.stats


def test_fila_pieces_of_a_10x6_sub_problem_add_up_with_triggers(p10x6):
    tuned = fila.with_defaults(p10x6, Settings(parity_backtrack=1, volume_backtrack=6, order="e=11:f=3"))
    whole = FILA_ENGINE.solve(p10x6, tuned)
    parts = fila_split(p10x6, tuned, 3)
    assert all(s.cut is not None and len(s.cut.path) == 2 for s in parts.subproblems)
    counts, stats, solved = solve_in_pieces(p10x6, tuned, parts, budget=50_000)
    assert counts == (whole.covers, whole.unique, whole.total) == (2339, 2339, 9356)
    assert stats == whole.stats and solved > len(parts.subproblems)


def test_a_piece_keeps_its_place_in_the_journal_and_refuses_goals():
    sub = SubProblem("3", ((5, ()),), Cut((7, 9), 1, 12, (1, 4), False), generation=2, budget=100)
    back = SubProblem.from_json(sub.to_json())
    assert back == replace(sub, budget=0)
    assert SubProblem.from_json(SubProblem("4", ((5, ()),)).to_json()).cut is None
    rest = [{"prefix": [[5, []]], "cut": Cut((7,), 1).to_json()}, {"prefix": [[6, [2]]], "cut": None}]
    pieces = sub.handed_back(rest)
    assert [p.ident for p in pieces] == ["3/0", "3/1"] and [p.generation for p in pieces] == [3, 3]
    assert pieces[1].prefix == ((6, (2,)),) and pieces[1].cut is None
    [puzzle] = bench.load(DEFS / "pentominoes_20x3.txt")
    cover = Cover.from_puzzle(puzzle, redundancy=True)
    with pytest.raises(bench.errors.UsageError, match="piece"):
        FILA_ENGINE.solve(cover, Settings(cut=Cut((1,), 1), goal=3))
    with pytest.raises(bench.errors.UsageError, match="piece"):
        FILA_ENGINE.solve(cover, Settings(cut=Cut((1,), 1, share=(2, 2))))
    with pytest.raises(bench.errors.UsageError, match="cut"):
        get_engine("dlx").solve(cover, Settings(cut=Cut((1,), 1)))
