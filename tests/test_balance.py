"""The balance figure of a split: longest processing time first over the sub-problems' measured sizes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.parallel.balance import balance, lpt_makespan, speedup_bound


def test_lpt_by_hand():
    # 3, 3 to the two workers, then each 2 to the less loaded: 3+2+2 and 3+2 (the optimum, 6 and 6, is not LPT's)
    assert lpt_makespan([2, 3, 2, 3, 2], 2) == 7
    assert speedup_bound([2, 3, 2, 3, 2], 2) == pytest.approx(12 / 7)
    # more workers than jobs: the largest job is the span
    assert lpt_makespan([5, 1, 1], 16) == 5
    assert speedup_bound([5, 1, 1], 16) == pytest.approx(7 / 5)
    # ten equal jobs on four workers: 3, 3, 2, 2
    assert lpt_makespan([1] * 10, 4) == 3
    # the splitter's nodes run before any worker: 2 serial + 12 over 2 workers (6 each)
    assert speedup_bound([4, 4, 2, 2], 2, serial=2) == pytest.approx(14 / 8)


def test_balance_reports_the_largest_and_the_bounds():
    figures = balance([6, 2, 1, 1], serial=2)
    assert figures["work"] == "nodes"
    assert (figures["work_total"], figures["work_split"], figures["work_largest"]) == (12, 2, 6)
    assert figures["largest_share"] == pytest.approx(0.5)
    # the largest sub-problem decides from 2 workers on: (2 + 10) / (2 + 6)
    assert figures["speedup_bound_4"] == figures["speedup_bound_64"] == pytest.approx(1.5)
    assert balance([])["speedup_bound_16"] == 1.0


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=60), st.integers(1, 80), st.integers(0, 1000))
def test_the_bound_never_beats_the_workers_or_the_largest_sub_problem(sizes, workers, serial):
    bound = speedup_bound(sizes, workers, serial)
    total = serial + sum(sizes)
    span = serial + max(sizes)
    assert 1.0 - 1e-9 <= bound <= workers + 1e-9 or total == 0
    if span > 0:
        assert bound <= total / span + 1e-9
    # Graham's bound, which LPT as any list schedule keeps: a makespan of at most the mean load plus (1 - 1/m) of the
    # largest (4/3 of the optimum is no bound against the mean: four unit jobs on three workers take 2, the mean 4/3)
    if sum(sizes) > 0:
        assert bound >= total / (serial + sum(sizes) / workers + (1 - 1 / workers) * max(sizes)) - 1e-9
