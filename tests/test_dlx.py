"""The DLX engine: statistics, heuristics, limits, goal mode and traces."""

from __future__ import annotations

import pytest

import bench
from bench import Cover, UsageError
from bench.engines import Limits, Settings, Status
from bench.engines.dlx import DlxEngine
from bench.kernels.heuristics import parse_order, schedule
from support import DEFS


def one(path):
    [puzzle] = bench.load(path)
    return puzzle


@pytest.fixture(scope="module")
def p10x6():
    return Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"), redundancy=True)


def test_10x6_fits_equal_the_fila_article_test_case_p1(p10x6):
    r = DlxEngine().solve(p10x6)
    assert (r.covers, r.unique, r.total) == (2339, 2339, 9356)
    # P1: ./polycube -i -q -r (DLX, s heuristic): 892,247 fits
    assert r.stats["fits"] == 892_247
    fits = r.stats["fits_by_remaining"]
    assert fits[12] == 8 and fits[1] == 2339
    assert r.stats["attempts"] == r.stats["fits"]
    assert set(r.timings) == {"compile", "setup", "solve"}


def test_10x6_without_redundancy_filter(p10x6):
    cover = Cover.from_puzzle(p10x6.puzzle)
    r = DlxEngine().solve(cover)
    assert (r.covers, r.unique, r.total) == (9356, 2339, 9356)


@pytest.mark.parametrize("order", ["f", "x", "y", "X", "Y", "xyz", "l@1,2,0", "a@160", "A@30,4.5,2.5", "R", "R@0,0,0",
                                   "e=12:f=5", "s=11:f=3", "f=12:s=4"])
def test_every_heuristic_counts_the_same(order):
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_20x3.txt"), redundancy=True)
    r = DlxEngine().solve(cover, Settings(order=order))
    assert (r.covers, r.unique, r.total) == (2, 2, 8)


@pytest.mark.parametrize("order", ["f", "s=12:x=6", "a@160=12:s=8"])
def test_heuristics_on_a_square_with_a_hole(order):
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_8x8_scott.txt"), redundancy=True)
    r = DlxEngine().solve(cover, Settings(order=order))
    assert (r.covers, r.unique, r.total) == (65, 65, 520)


def test_fixed_order_heuristic_changes_the_tree_but_not_the_counts():
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_20x3.txt"), redundancy=True)
    s = DlxEngine().solve(cover, Settings(order="s"))
    f = DlxEngine().solve(cover, Settings(order="f"))
    assert (s.covers, s.total) == (f.covers, f.total) == (2, 8)
    assert s.stats["fits"] != f.stats["fits"]


def test_order_syntax():
    assert [str(h) for h in parse_order("e=11:f=3")] == ["e=11", "f=3"]
    active = schedule("e=11:f=3", 12)
    assert [active[p].name for p in (12, 11, 4, 3, 1)] == ["s", "e", "e", "f", "f"]
    assert schedule("x:s=20", 30)[30].name == "x"
    for bad in ("q", "l@1", "s=x", "s:f", "a@1,2,3,4", "s=-1"):
        with pytest.raises(UsageError):
            parse_order(bad)


def test_redundancy_first_branches_on_the_constrained_piece(p10x6):
    first = p10x6.n_cells + p10x6.redundancy.shape
    r = DlxEngine().solve(p10x6, Settings(order="f", first_item=first))
    assert r.covers == 2339
    assert r.stats["fits_by_remaining"][12] == 8


def test_goal_mode_reports_partial_assemblies(p10x6):
    first = p10x6.n_cells + p10x6.redundancy.shape
    r = DlxEngine().solve(p10x6, Settings(goal=11, first_item=first), Limits(keep_solutions=20))
    assert r.unique is None and r.total is None
    # eight X placements; the one in the corner is a dead end caught on placement
    assert r.covers == 7 and all(len(s) == 1 for s in r.solutions)


def test_node_limit_time_limit_and_interrupt_keep_the_statistics(p10x6):
    r = DlxEngine().solve(p10x6, limits=Limits(node_limit=5000))
    assert r.status == Status.LIMIT and r.stats["nodes"] == 5000
    cover = Cover.from_puzzle(p10x6.puzzle)
    r = DlxEngine().solve(cover, limits=Limits(time_limit=0.2))
    assert r.status == Status.TIMEOUT and 0 < r.stats["nodes"] and r.covers < 9356

    def stop(batch, weights):
        raise KeyboardInterrupt

    r = DlxEngine().solve(cover, on_solutions=stop)
    assert r.status == Status.INTERRUPTED and r.covers >= 1


def test_streamed_solutions_arrive_in_batches_with_their_orbit_share(p10x6):
    batches = []
    r = DlxEngine().solve(p10x6, on_solutions=lambda b, w: batches.append((b, w)))
    assert sum(len(b) for b, _ in batches) == r.covers == 2339
    assert all(w == 4 for _, ws in batches for w in ws)
    assert len(batches) >= 1


def test_trace_events_follow_placements_and_removals():
    cover = Cover.from_puzzle(one(DEFS / "somacube.txt"), redundancy=True)
    events = []
    DlxEngine().solve(cover, Settings(trace=7), Limits(max_solutions=1), on_trace=lambda k, o: events.append((k, len(o))))
    # K=7 with 7 pieces: after placements that leave at least 6 (the first) and removals that leave at least 7 (the first)
    assert events and all(e == ("place", 1) or e == ("remove", 0) for e in events)


def test_unknown_settings_are_refused():
    from bench.engines import Engine

    class Other(Engine):
        name = "other"

        def solve(self, cover, settings=Settings(), limits=Limits(), on_solutions=None, on_trace=None):
            raise AssertionError("never called")

    with pytest.raises(UsageError, match="does not implement: order"):
        Other().check(Settings(order="f"))


@pytest.mark.slow
def test_tetris_cube_matches_test_case_tc1():
    cover = Cover.from_puzzle(one(DEFS / "tetriscube.txt"), redundancy="L")
    r = DlxEngine().solve(cover)
    assert (r.covers, r.unique, r.total) == (9839, 9839, 236_136)
    assert r.stats["fits"] == 30_255_329


@pytest.mark.slow
@pytest.mark.parametrize("name, expected", [("pentominoes_12x5.txt", (1010, 4040)), ("pentominoes_15x4.txt", (368, 1472)),
                                            ("pentominoes_1s_30x3.txt", (46, 184))])
def test_slower_rectangles(name, expected):
    r = DlxEngine().solve(Cover.from_puzzle(one(DEFS / name), redundancy=True))
    assert (r.unique, r.total) == expected


def test_stacks_hold_covers_of_options_without_an_exact_item():
    # {0,1} and {0,3} cover no item exactly once: the depth bound must not come from item 2 alone
    cover = Cover.from_options([[0, 1], [0, 3], [2]], [2, 0, 1, 0], [3, 1, 1, 1])
    assert cover.max_depth == 3
    assert DlxEngine().solve(cover).covers == 1
