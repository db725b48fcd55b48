"""Matrices beyond tilings: item bounds with room to spare, secondary items and Knuth's colours, on every engine.

Each engine's count is checked against the covers found by trying every
subset of the options (the instances are tiny), which needs nothing but
:meth:`Cover.verify_solution`, the rule itself.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from bench import Cover, CoverError
from bench.engines import Limits, get_engine
from bench.errors import Unsupported, UsageError
from support.reference import brute_force
from support.strategies import matrices

ENGINES = ["dlx", "dlx:sets", "cpsat", "sat", "sat:glucose4:totalizer"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices())
def test_engines_count_bounds_secondary_items_and_colours_exactly(cover):
    expected = len(brute_force(cover))
    for spec in ENGINES:
        result = get_engine(spec).solve(cover)
        assert result.status.value == "solved", (spec, result.message)
        assert (result.covers, result.unique, result.total) == (expected, expected, expected), spec


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices())
def test_the_model_counter_and_xcover_count_them_or_say_why_not(cover):
    expected = len(brute_force(cover))
    assert get_engine("ganak").solve(cover).covers == expected
    xcover = get_engine("xcover")
    if cover.extensible or (cover.item_hi > 1).any():
        with pytest.raises(Unsupported):
            xcover.solve(cover)
    elif (cover.item_lo > 0).sum() > 1:
        # xcover 0.2.6 fails on a single primary item (IndexError: pop from empty list)
        assert xcover.solve(cover).covers == expected


def test_a_cover_may_hold_another():
    # items a (1..2) and b (1..1): {a, b} is a cover, and so is {a, b} with {a}
    cover = Cover.from_options([[0], [0, 1]], [1, 1], [2, 1])
    assert cover.extensible
    for spec in ENGINES:
        assert get_engine(spec).solve(cover).covers == 2, spec


def test_knuths_colour_example_has_one_solution():
    # dlx3.w: "A B 2:3|C | X Y"; its unique solution is A C X:1 Y:1, B X:1, C Y:1
    options = [[0, 1, 3, 4], [0, 2, 3, 4], [2, 3], [1, 3], [2, 4]]
    colours = [[0, 0, 1, 1], [0, 0, 2, 2], [0, 1], [0, 2], [0, 2]]
    cover = Cover.from_options(options, [1, 1, 2, 0, 0], [1, 1, 3, 1, 1], colours=colours, colour_names=["0", "1"])
    assert brute_force(cover) == [[1, 3, 4]]
    for spec in ENGINES:
        result = get_engine(spec).solve(cover, limits=Limits(keep_solutions=2))
        assert result.covers == 1, spec
        assert [sorted(s.tolist()) for s in result.solutions] == [[1, 3, 4]], spec


def test_options_that_differ_only_in_colour_are_two_options():
    cover = Cover.from_options([[0, 1], [0, 1]], [1, 0], [1, 1], colours=[[0, 1], [0, 2]], colour_names=["x", "y"])
    assert cover.n_options == 2
    with pytest.raises(CoverError, match="same items in the same colours"):
        Cover.from_options([[0, 1], [0, 1]], [1, 0], [1, 1], colours=[[0, 1], [0, 1]], colour_names=["x"])


def test_colours_belong_to_secondary_items():
    with pytest.raises(CoverError, match="has a colour but bounds 1..1"):
        Cover.from_options([[0]], [1], [1], colours=[[1]], colour_names=["x"])


def test_the_bitset_kernel_leaves_colours_to_the_sparse_sets():
    cover = Cover.from_options([[0, 1], [2, 1]], [1, 0, 1], [1, 1, 1], colours=[[0, 1], [0, 1]], colour_names=["x"])
    assert get_engine("dlx").solve(cover).stats["kernel"] == "sets"
    with pytest.raises(UsageError, match="dlx:bits cannot search this cover: the cover has colours"):
        get_engine("dlx:bits").solve(cover)
