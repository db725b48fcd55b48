"""The exact-cover matrix: structure, filters, validation, decoding, hashing."""

from __future__ import annotations

import numpy as np
import pytest

import bench
from bench import Cover, CoverError, UsageError
from support import DATA, DEFS


def one(path):
    [puzzle] = bench.load(path)
    return puzzle


def test_items_and_options_of_10x6():
    p = one(DEFS / "pentominoes_10x6.txt")
    cover = Cover.from_puzzle(p)
    assert cover.n_items == 72 and cover.n_cells == 60 and cover.n_options == 2056
    assert cover.opt_ptr.dtype == np.int32 and cover.opt_items.dtype == np.int32
    # every option: five cells then its shape item
    assert np.all(np.diff(cover.opt_ptr) == 6)
    assert np.all(cover.opt_items[cover.opt_ptr[1:] - 1] >= 60)
    assert np.array_equal(cover.item_lo, cover.item_hi) and np.all(cover.item_lo == 1)


def test_redundancy_filter_puts_x_in_the_lower_left_quadrant():
    p = one(DEFS / "pentominoes_10x6.txt")
    cover = Cover.from_puzzle(p, redundancy=True)
    red = cover.redundancy
    assert red.piece == "X" and red.images == 32 and len(red.kept) == 8 and red.perfect
    assert cover.n_options == 2032
    centres = sorted(tuple(int(v) for v in p.open_coords[p.images.image_cells(i)].mean(axis=0)[:2]) for i in red.kept)
    assert centres == [(x, y) for x in range(1, 5) for y in range(1, 3)]


def test_named_redundancy_piece_and_bad_names():
    p = one(DEFS / "tetriscube.txt")
    cover = Cover.from_puzzle(p, redundancy="L")
    assert cover.redundancy.piece == "L" and len(cover.redundancy.kept) * 24 == cover.redundancy.images
    with pytest.raises(UsageError, match="is not a piece"):
        Cover.from_puzzle(p, redundancy="Q")
    d = one(DEFS / "dominoes_4x4.txt")
    with pytest.raises(UsageError, match="8 pieces share its shape"):
        Cover.from_puzzle(d, redundancy="a")
    # no piece with a unique shape: nothing to constrain, counting stays exact
    assert Cover.from_puzzle(d, redundancy=True).redundancy is None


def test_spare_pieces_make_shape_items_at_most_k():
    p = one(DATA / "spare_3x3.txt")
    cover = Cover.from_puzzle(p)
    shapes = slice(cover.n_cells, cover.n_items)
    assert np.all(cover.item_lo[shapes] == 0)
    assert sorted(cover.item_hi[shapes].tolist()) == [1, 1, 1, 2]


def test_stationary_cells_are_not_items():
    p = one(DEFS / "pentominoes_8x8_scott.txt")
    cover = Cover.from_puzzle(p)
    assert cover.n_cells == 60
    assert all(name != "(3,3,0)" for name in cover.item_names)


def test_arrays_are_immutable_and_hash_is_stable():
    p = one(DEFS / "pentominoes_10x6.txt")
    a = Cover.from_puzzle(p, redundancy=True)
    with pytest.raises(ValueError):
        a.opt_items[0] = 3
    b = Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"), redundancy=True)
    assert a.hash == b.hash
    assert a.hash != Cover.from_puzzle(p).hash


def test_verify_solution_and_decoding_name_identical_pieces_canonically():
    p = one(DEFS / "dominoes_4x4.txt")
    cover = Cover.from_puzzle(p)
    # cells are numbered x * 4 + y: a vertical domino covers c and c + 1; tile each column with two
    vertical = [o for o in range(cover.n_options)
                if cover.option(o)[1] - cover.option(o)[0] == 1 and cover.option(o)[0] % 4 in (0, 2)]
    assert cover.verify_solution(vertical) and len(vertical) == 8
    grid = cover.grid(vertical)
    assert grid.shape == (4, 4, 1)
    assert sorted(set(grid.ravel())) == list("abcdefgh")
    # the copy with the first cell takes the first name
    assert grid[0, 0, 0] == "a"
    assert not cover.verify_solution(vertical[:-1])
    with pytest.raises(CoverError, match="covered 0 times"):
        cover.check_solution(vertical[:-1])
    with pytest.raises(CoverError, match="chosen twice"):
        cover.check_solution(vertical[:-1] + vertical[:1])


@pytest.mark.parametrize(
    "options, lo, hi, message",
    [
        ([[0, 0]], [1], None, "strictly ascending"),
        ([[0, 5]], [1, 1], None, "does not exist"),
        ([[0], [0]], [1], None, "same items"),
        ([[0]], [2], [1], "bounds"),
        ([[]], [1], None, "at least one item"),
    ],
)
def test_validate_rejects_broken_matrices(options, lo, hi, message):
    with pytest.raises(CoverError, match=message):
        Cover.from_options(options, lo, hi)


def test_cells_need_unit_bounds():
    with pytest.raises(CoverError, match="n_cells"):
        Cover.from_options([[0]], [2], [2], n_cells=1)
