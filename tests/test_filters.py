"""One-shot volume and fit filters: the reference documents' figures, and counts that never change."""

from __future__ import annotations

import numpy as np
import pytest

import bench
from bench import Cover
from bench.engines import get_engine
from bench.models.filters import apply_one_shot, fit_filter, volume_filter
from bench.kernels.regions import subset_sums
from support import DATA, DEFS


def one(path):
    [puzzle] = bench.load(path)
    return puzzle


def shape_options(cover, name):
    return sum(1 for o in range(cover.n_options) if cover.item_names[cover.option(o)[-1]] == name)


def test_volume_filter_figures_of_the_polycube_article():
    p = one(DEFS / "pentominoes_10x6.txt")
    assert volume_filter(Cover.from_puzzle(p))[1] == 128
    filtered, removed = volume_filter(Cover.from_puzzle(p, redundancy=True))
    assert removed == 125 and shape_options(filtered, "X") == 7
    assert volume_filter(Cover.from_puzzle(one(DEFS / "pentominoes_1s_30x3.txt")))[1] == 776


def test_fit_filter_figures():
    p = one(DEFS / "pentominoes_10x6.txt")
    # the 128 images of the volume filter plus 16 more; nothing more on a second pass
    assert fit_filter(Cover.from_puzzle(p), rounds=0)[1] == [144, 0]
    # with the redundancy filter: polycube's two in-place passes remove 235; so do our rounds up to the fixed point
    _, rounds = fit_filter(Cover.from_puzzle(p, redundancy=True), rounds=0)
    assert sum(rounds) == 235 and rounds[-1] == 0


def test_volume_filtered_10x6_search_has_the_fila_articles_p2_fits():
    cover, _ = apply_one_shot(Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"), redundancy=True), volume=True)
    result = get_engine("dlx").solve(cover)
    assert (result.covers, result.unique, result.total) == (2339, 2339, 9356)
    assert result.stats["fits"] == 768_356


@pytest.mark.parametrize("path, redundancy", [
    (DEFS / "pentominoes_20x3.txt", None), (DEFS / "pentominoes_20x3.txt", True), (DEFS / "somacube.txt", True),
    (DEFS / "dominoes_6x6.txt", None), (DATA / "spare_3x3.txt", True), (DATA / "stationary_5x5.txt", None),
    (DATA / "onesided_tetrominoes_6x4.txt", True), (DEFS / "pentominoes_8x8_scott.txt", True),
])
def test_filters_never_change_covers_unique_or_total(path, redundancy):
    dlx = get_engine("dlx")
    cover = Cover.from_puzzle(one(path), redundancy=redundancy)
    before = dlx.solve(cover)
    for volume, fit in ((True, None), (False, 1), (True, 0)):
        filtered, _ = apply_one_shot(cover, volume, fit)
        after = dlx.solve(filtered)
        assert (after.covers, after.unique, after.total) == (before.covers, before.unique, before.total)
        assert filtered.n_options <= cover.n_options


def test_subset_sums_of_pieces_with_one_left_out():
    reach = np.zeros(21, dtype=np.uint8)
    subset_sums(np.array([5, 4]), np.array([2, 1]), -1, 20, reach)
    assert np.flatnonzero(reach).tolist() == [0, 4, 5, 9, 10, 14]
    subset_sums(np.array([5, 4]), np.array([2, 1]), 0, 20, reach)
    assert np.flatnonzero(reach).tolist() == [0, 4, 5, 9]


def test_solve_reports_filter_counters(capsys):
    from bench.cli import main

    assert main(["solve", "-i", "-q", "-r", "-V", "-F", "--fit-rounds", "0", "--", str(DEFS / "pentominoes_20x3.txt")]) == 0
    kv = dict(line.split("=", 1) for line in capsys.readouterr().out.splitlines() if "=" in line)
    assert int(kv["VOLUME_FILTER_TOTAL"]) > 0 and kv["FIT_FILTER_ROUNDS"].endswith(" 0")
    assert kv["FIT_FILTER_TOTAL"] == kv["FIT_FILTER_ONE_SHOT"] and kv["fitFilter"] == "-1"
    assert (kv["UNIQUE"], kv["TOTAL"]) == ("2", "8")
