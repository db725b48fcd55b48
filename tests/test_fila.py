"""The FILA engine and the DLX -> FILA pipeline: fidelity to the FILA article, counts, heuristics, bitfields."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numba import njit

import bench
from bench import Cover
from bench.errors import Unsupported
from bench.engines import Limits, Settings, Status
from bench.errors import UsageError
from bench.models.expected import expected_for
from bench.models.filters import apply_one_shot
from bench.kernels import bitfield as bf
from bench.kernels import bitfield_overloads  # noqa: F401  (this module's own kernels call the overloads)
from bench.engines.dlx import DlxEngine
from bench.engines import fila as fila_module
from bench.kernels import fila_lists
from bench.engines.fila import FilaEngine, default_order, default_schedules
from support import DATA, DEFS
from support.strategies import tiled_puzzles


def one(path):
    [puzzle] = bench.load(path)
    return puzzle


@pytest.fixture(scope="module")
def p10x6_rv():
    """10x6 with -r -V: 2032 options, 125 removed by the volume filter (test cases P2 to P5)."""
    cover, counters = apply_one_shot(Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"), redundancy=True), True)
    assert counters["VOLUME_FILTER_ONE_SHOT"] == 125
    return cover


# FILA article, "Micro FILA Performance Characteristics": the -i output of test case P4
P4_ATTEMPTS = [301677, 3478035, 5722296, 3665538, 1284992, 386776, 200366, 126819, 28279, 3088, 131, 7]
P4_FITS = [2339, 302256, 760374, 617667, 272072, 82406, 26950, 17275, 7994, 1744, 131, 7]


def test_test_case_p4_fits_no_fits_and_per_level_statistics(p10x6_rv):
    # ./polycube -i -q -r -V -of=11 -f11 def/pentominoes_10x6.txt
    r = FilaEngine().solve(p10x6_rv, Settings(order="f=11", fila=11, nof=False))
    assert (r.status, r.covers, r.unique, r.total) == (Status.SOLVED, 2339, 2339, 9356)
    assert r.stats["fits"] == 2_091_215
    assert r.stats["no_fits"] == 13_106_789
    assert r.stats["attempts_by_remaining"][1:] == P4_ATTEMPTS
    assert r.stats["fits_by_remaining"][1:] == P4_FITS
    assert r.stats["fila"]["handoffs"] == 7 and r.stats["fila"]["words"] == 1


def test_test_case_p5_nof_removes_no_fits_only(p10x6_rv):
    # the same with -n: fits unchanged, 4,682,886 no-fits
    r = FilaEngine().solve(p10x6_rv, Settings(order="f=11", fila=11, nof=True))
    assert (r.covers, r.unique, r.total) == (2339, 2339, 9356)
    assert r.stats["fits"] == 2_091_215
    assert r.stats["no_fits"] == 4_682_886
    assert r.stats["fits_by_remaining"][1:] == P4_FITS


FAST = [
    (DEFS / "pentominoes_20x3.txt", True),
    (DEFS / "somacube.txt", True),
    (DEFS / "dominoes_4x4.txt", None),
    (DEFS / "dominoes_6x6.txt", None),
    (DATA / "spare_3x3.txt", None),
    (DATA / "spare_3x3.txt", True),
    (DATA / "onesided_tetrominoes_6x4.txt", True),
    (DATA / "stationary_5x5.txt", None),
    # every hand-off point of a 13-piece puzzle: a minute on a loaded 2-core machine
    pytest.param(DEFS / "pentominoes_8x8_scott.txt", True, marks=pytest.mark.slow),
]


def handoff_points(cover):
    n = int(cover.item_hi[cover.n_cells:].sum())
    return range(n, 0, -1)


@pytest.mark.parametrize("path, redundancy", FAST, ids=lambda v: getattr(v, "name", str(v)))
def test_counts_equal_dlx_at_every_handoff_point(path, redundancy):
    puzzle = one(path)
    cover = Cover.from_puzzle(puzzle, redundancy=redundancy)
    want = DlxEngine().solve(cover)
    expected = expected_for(puzzle)
    assert (want.unique, want.total) == (expected.unique, expected.total)
    for n in handoff_points(cover):
        for nof in (False, True):
            r = FilaEngine().solve(cover, Settings(fila=n, nof=nof))
            assert (r.status, r.covers, r.unique, r.total) == (Status.SOLVED, want.covers, want.unique, want.total), (n, nof)


# y and Y scan 20x3 along its long side: the same check on a tree ten times larger (50 s), so behind the marker
@pytest.mark.parametrize("order", ["f", "e", "s", "x", pytest.param("y", marks=pytest.mark.slow), "X",
                                   pytest.param("Y", marks=pytest.mark.slow), "xyz", "l@1,2,0", "a@160",
                                   "A@30,4.5,2.5", "R", "R@0,0,0", "e=11:f=3", "s=10:x=4", "f=12:e=6:s=2",
                                   "x=11:y=5:f=2"])
def test_every_heuristic_counts_the_same_with_and_without_nof(order):
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_20x3.txt"), redundancy=True)
    results = [FilaEngine().solve(cover, Settings(order=order, fila=12, nof=nof)) for nof in (False, True)]
    for r in results:
        assert (r.covers, r.unique, r.total) == (2, 2, 8)
    off, on = results
    # NOF prunes images that cannot fit; it never changes the tree
    assert on.stats["fits_by_remaining"] == off.stats["fits_by_remaining"]
    assert on.stats["no_fits"] < off.stats["no_fits"]


@pytest.mark.parametrize("order", ["e", "s", "f", "z=6:f=3", "R=6:e=3"])
def test_heuristics_in_three_dimensions(order):
    cover = Cover.from_puzzle(one(DEFS / "somacube.txt"), redundancy=True)
    r = FilaEngine().solve(cover, Settings(order=order, fila=7))
    assert (r.covers, r.unique, r.total) == (480, 480, 11520)


@pytest.mark.slow
def test_two_word_bitfield_matches_one_word():
    # one-sided 30x3: 90 open cells, so a hand-off before the first piece needs two words
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_1s_30x3.txt"), redundancy=True)
    wide = FilaEngine().solve(cover, Settings(order="f", fila=18))
    narrow = FilaEngine().solve(cover, Settings(order="s=18:f=6", fila=6))
    assert wide.stats["fila"]["words"] == 2 and wide.stats["fila"]["max_cells"] == 90
    assert narrow.stats["fila"]["words"] == 1 and narrow.stats["fila"]["max_cells"] <= 64
    for r in (wide, narrow):
        assert (r.covers, r.unique, r.total) == (46, 46, 184)
    e = FilaEngine().solve(cover, Settings(order="e", fila=18))
    assert e.stats["fila"]["words"] == 2 and (e.covers, e.unique, e.total) == (46, 46, 184)


@pytest.mark.parametrize("path, order, fila, limit", [
    ("somacube.txt", "e", 6, 0), ("somacube.txt", "s", 6, 0), ("somacube.txt", "e=5:f=2", 7, 0),
    ("pentominoes_1s_30x3.txt", "e", 18, 300_000)])
def test_geometric_and_packed_bit_layouts_search_the_same_tree(path, order, fila, limit, monkeypatch):
    cover = Cover.from_puzzle(one(DEFS / path), redundancy=True)
    settings, limits = Settings(order=order, fila=fila), Limits(node_limit=limit or None)
    geometric = FilaEngine().solve(cover, settings, limits)
    plan = fila_module.make_plan
    # a box too large for any bitfield forces the packed numbering, where neighbours are no shifts apart
    monkeypatch.setattr(fila_module, "make_plan", lambda *args: replace(plan(*args), n_box=1 << 20))
    packed = FilaEngine().solve(cover, settings, limits)
    assert geometric.stats["fila"]["geometric"] == geometric.stats["fila"]["handoffs"] > 0
    assert packed.stats["fila"]["geometric"] == 0
    for key in ("nodes", "attempts_by_remaining", "fits_by_remaining"):
        assert geometric.stats[key] == packed.stats[key]
    assert (geometric.covers, geometric.unique, geometric.total) == (packed.covers, packed.unique, packed.total)


@pytest.fixture
def own_lists(monkeypatch):
    """Every hand-off builds its own lists (or narrows the atlas's), as where the pieces above fill many cells."""
    monkeypatch.setattr(fila_lists, "shares_lists", lambda cover, plan: False)


@pytest.mark.usefixtures("own_lists")
@pytest.mark.parametrize("path, order, fila, limit", [
    ("somacube.txt", "e=5:f=2", 7, 0), ("tetrominoes_torus_5x4.txt", "e", 4, 0),
    ("hexprism_shader_triangle.txt", "f", 8, 20_000), ("meteor.txt", "e=3:f=8", 8, 20_000),
    ("pentominoes_1s_30x3.txt", "f", 18, 20_000), ("pentominoes_1s_30x3.txt", "s=18:f=6", 6, 20_000)])
def test_lists_narrowed_from_the_atlas_are_the_lists_a_hand_off_builds(path, order, fila, limit, monkeypatch):
    # geometric and packed numberings, one word and two, a hand-off's word narrower than the atlas's, two families
    cover = Cover.from_puzzle(one(DEFS / path), redundancy=True)
    build = fila_module.build_handoff
    compared = []

    def both(*args):
        narrowed = build(*args)
        built = build(*args[:-2])
        for name in narrowed._fields:
            a, b = getattr(narrowed, name), getattr(built, name)
            assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b, name
        compared.append(args[-2])
        return narrowed

    monkeypatch.setattr(fila_lists, "ATLAS_HANDOFFS", 0)
    monkeypatch.setattr(fila_module, "build_handoff", both)
    result = FilaEngine().solve(cover, Settings(order=order, fila=fila), Limits(node_limit=limit or None))
    # one atlas for every hand-off of the solve
    assert len(compared) == result.stats["fila"]["handoffs"] and len({id(a) for a in compared}) == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0, 1, 2, 3, 7, int(fila_lists.LAST)]), min_size=6, max_size=6),
                min_size=1, max_size=3))
def test_a_hand_off_s_scan_orders_are_a_stable_sort_of_the_ranks(rows):
    ranks = np.array(rows, dtype=np.int32)
    assert np.array_equal(fila_lists.scan_orders(ranks), np.argsort(ranks, axis=1, kind="stable"))


@pytest.mark.usefixtures("own_lists")
def test_the_atlas_waits_for_enough_hand_offs_and_is_shared_by_the_plans_searches(monkeypatch):
    cover = Cover.from_puzzle(one(DEFS / "somacube.txt"), redundancy="Z", method="orbit")
    settings = fila_module.with_defaults(cover, Settings(order="f", fila=6))
    plan = fila_module.make_plan(cover, settings.order, cover.piece_count, settings.fila, settings.nof)
    built = []
    real = fila_lists.build_atlas
    monkeypatch.setattr(fila_lists, "build_atlas", lambda *args: built.append(args) or real(*args))
    monkeypatch.setattr(fila_lists, "ATLAS_HANDOFFS", 1000)
    plan.built.clear()
    first = FilaEngine().solve(cover, settings)
    n = first.stats["fila"]["handoffs"]
    assert n > 1 and built == [] and plan.built["handoffs"] == n
    # the same plan's next searches (a split's sub-problems in one process) pass the threshold: one atlas for all
    monkeypatch.setattr(fila_lists, "ATLAS_HANDOFFS", n + 1)
    for _ in range(2):
        assert FilaEngine().solve(cover, settings).stats == first.stats
    assert plan.built["handoffs"] == 3 * n and len(built) == 1 and plan.built["atlas"] is not None


def _pipeline_stats(cover, settings, share_lists):
    search = fila_module.PipelineSearch(cover, fila_module.with_defaults(cover, settings), share_lists=share_lists)
    assert search.run() == Status.SOLVED
    return search.shared, search.stats()


@pytest.mark.parametrize("path, redundancy, settings", [
    ("somacube.txt", "Z", Settings(order="f=6", fila=6, isolated_backtrack=1)),
    ("somacube.txt", True, Settings(order="f@2,1,0", fila=7)),
    ("tetraboloes_pentaboloes_4x4.txt", "G", Settings(order="f=11", fila=11)),
    ("pentominoes_10x6.txt", True, Settings(order="f=11", fila=11, isolated_backtrack=11, parity_backtrack=11,
                                             volume_backtrack=6)),
    ("polyspheres_tetrahedron_20.txt", True, Settings(order="f", fila=5, isolated_backtrack=5)),
    ("tetrominoes_torus_5x4.txt", True, Settings(order="f=4", fila=4, isolated_backtrack=4)),
    ("squares_dominoes_2x6.txt", True, Settings(order="f=17", fila=17, isolated_backtrack=17)),
    ("tetrahexes_4x7.txt", True, Settings(order="f=6", fila=6)),
    ("pentacubes_planar_2x5x6.txt", True, Settings(order="f=10", fila=10, nof=False)),
    (DATA / "spare_3x3.txt", True, Settings(order="f", fila=5))])
def test_hand_offs_on_shared_lists_search_the_tree_their_own_lists_search(monkeypatch, path, redundancy, settings):
    # scans along other axes, NOF and not, every trigger, spare pieces, several pieces above the hand-off, other
    # lattices;
    # DLX places the first piece (FILA at the root has a test of its own)
    monkeypatch.setattr(fila_module, "ROOT_CELLS", 0)
    cover = Cover.from_puzzle(one(DEFS / path), redundancy=redundancy)
    shared, stats = _pipeline_stats(cover, settings, True)
    own, own_stats = _pipeline_stats(cover, settings, False)
    assert shared is not None and own is None
    # every counter, and the images and list entries counted as the hand-offs' own lists hold them
    assert stats == own_stats and stats["fila"]["handoffs"] >= 1


@pytest.mark.parametrize("per_option, expected", [(fila_module.LARGE_TREE_NODES, [True] * 3), (0, [True, False, False])])
def test_hand_offs_build_their_own_lists_after_a_large_tree_on_shared_ones(monkeypatch, per_option, expected):
    cover = Cover.from_puzzle(one(DEFS / "somacube.txt"), redundancy="Z", method="orbit")
    settings = Settings(order="f=6", fila=6, isolated_backtrack=1)
    seen = []
    real = fila_module.FilaRun.__init__

    def spy(self, *args):
        real(self, *args)
        seen.append(self.shared)

    monkeypatch.setattr(fila_module.FilaRun, "__init__", spy)
    monkeypatch.setattr(fila_module, "LARGE_TREE_NODES", per_option)
    # DLX places the first piece: three hand-offs
    monkeypatch.setattr(fila_module, "ROOT_CELLS", 0)
    plan = fila_module.make_plan(cover, "f=6", cover.piece_count, 6, True)
    plan.built.pop(fila_module.LARGE_TREES, None)
    _, stats = _pipeline_stats(cover, settings, True)
    # the Soma cube's trees, some 5,000 nodes each on 688 options, keep the shared lists
    assert seen == expected and stats == _pipeline_stats(cover, settings, False)[1]
    plan.built.pop(fila_module.LARGE_TREES, None)


@pytest.mark.parametrize("path, redundancy, order", [
    ("somacube.txt", "Z", "f=6"), ("somacube.txt", True, "f@2,1,0=6"), ("tetrominoes_torus_5x4.txt", True, "f=4"),
    ("polyspheres_tetrahedron_20.txt", True, "f=5"), ("dominoes_4x4.txt", None, "f=7")])
def test_fila_at_the_root_searches_the_tree_of_a_hand_off_after_one_piece(monkeypatch, path, redundancy, order):
    # a single piece's options first, or a cell's (the dominoes' corner, identical pieces)
    cover = Cover.from_puzzle(one(DEFS / path), redundancy=redundancy)
    n = cover.piece_count
    settings = Settings(order=order, fila=n - 1, isolated_backtrack=n - 1)
    search = fila_module.PipelineSearch(cover, fila_module.with_defaults(cover, settings))
    assert search.root >= 0 and search.run() == Status.SOLVED
    monkeypatch.setattr(fila_module, "ROOT_CELLS", 0)
    _, after_dlx = _pipeline_stats(cover, settings, True)
    at_root = search.stats()
    # DLX's updates at its level are not FILA's, and there is one hand-off, at the root
    for key in ("updates", "updates_by_remaining", "fila"):
        at_root.pop(key), after_dlx.pop(key)
    assert at_root == after_dlx and at_root["nodes"] > 1 and int(search.state[fila_module.S_COVERS]) > 0


def test_fila_takes_over_at_the_root_only_of_a_small_whole_search():
    cover = Cover.from_puzzle(one(DEFS / "somacube.txt"), redundancy="Z", method="orbit")
    plan = fila_module.make_plan(cover, "f=6", cover.piece_count, 6, True)
    settings = fila_module.with_defaults(cover, Settings(order="f=6", fila=6))
    assert list(fila_module.root_branch(cover, settings, plan)) == list(np.flatnonzero(
        cover.opt_items[cover.opt_ptr[1:] - 1] == cover.n_items - 1))
    for other in (replace(settings, fila=5), replace(settings, prefix=((0, ()),)), replace(settings, goal=3),
                  replace(settings, first_item=0), replace(settings, cut=fila_module.Cut((1,), 1))):
        assert fila_module.root_branch(cover, other, plan) is None
    # a first piece after which DLX would not hand every branch over (an item forced or dead)
    hexes = Cover.from_puzzle(one(DEFS / "tetrahexes_4x7.txt"), redundancy=True)
    hexes_settings = fila_module.with_defaults(hexes, Settings(order="f=6", fila=6))
    assert fila_module.root_branch(hexes, hexes_settings, fila_module.make_plan(hexes, "f=6", 7, 6, True)) is None
    big = Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"), redundancy=True)
    big_settings = fila_module.with_defaults(big, Settings(order="f=11", fila=11))
    assert fila_module.root_branch(big, big_settings, fila_module.make_plan(big, "f=11", 12, 11, True)) is None


def test_no_hand_off_shares_lists_below_dlx_s_filters_or_many_filled_cells():
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"), redundancy=True)
    # a filter takes options out above the hand-off, which shared lists would hold
    for key in ("parity_filter", "volume_filter", "fit_filter"):
        settings = fila_module.with_defaults(cover, Settings(order="f=11", fila=11, **{key: 11}))
        assert fila_module.PipelineSearch(cover, settings).shared is None
    # pieces above the hand-off filling over a quarter of the cells
    plan = fila_module.make_plan(cover, "f=8", cover.piece_count, 8, True)
    assert not fila_lists.shares_lists(cover, plan)
    # e or s below the hand-off
    for order in ("e=10", "f=10:s=3"):
        assert not fila_lists.shares_lists(cover, fila_module.make_plan(cover, order, cover.piece_count, 10, True))
    assert fila_lists.shares_lists(cover, fila_module.make_plan(cover, "f=10", cover.piece_count, 10, True))


def _box_neighbours(x, y, z):
    # face neighbours of a full box in the puzzle's numbering, (x * Y + y) * Z + z
    ptr, nb = [0], []
    for c in range(x * y * z):
        cx, cy, cz = c // (y * z), c // z % y, c % z
        for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
            if 0 <= cx + dx < x and 0 <= cy + dy < y and 0 <= cz + dz < z:
                nb.append(((cx + dx) * y + cy + dy) * z + cz + dz)
        ptr.append(len(nb))
    return np.array(ptr, dtype=np.int32), np.array(nb, dtype=np.int32)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(1, 4), st.integers(0, 2 ** 128 - 1), st.booleans())
def test_fewest_open_finds_the_holes_with_fewest_open_neighbours(x, y, z, bits, wide):
    n = x * y * z
    assume(n <= 128)
    words = 2 if wide or n > 64 else 1
    h = bits & ((1 << n) - 1)
    ptr, nb = _box_neighbours(x, y, z)
    right, left, masks = fila_lists.neighbour_shifts(ptr, nb, words)
    assert len(right) == 2 * sum(d > 1 for d in (x, y, z))
    open_nbrs = {c: sum(1 for d in nb[ptr[c]:ptr[c + 1]] if h >> int(d) & 1) for c in range(n) if h >> c & 1}
    least = min(open_nbrs.values(), default=0)
    want = sum(1 << c for c, k in open_nbrs.items() if k == least)
    masks = fila_lists.words(masks)
    u = np.uint64
    if words == 1:
        assert bf.fewest_open(h, right, left, masks, False) == want
        assert _fewest_open(u(h), right, left, masks) == want
        assert _fewest_open_wide(u(h), right, left, masks) == want
    else:
        two = (h & (2 ** 64 - 1), h >> 64)
        assert bf.fewest_open(two, right, left, masks, False) == (want & (2 ** 64 - 1), want >> 64)
        assert _fewest_open((u(two[0]), u(two[1])), right, left, masks) == (want & (2 ** 64 - 1), want >> 64)
        assert _fewest_open_wide((u(two[0]), u(two[1])), right, left, masks) == (want & (2 ** 64 - 1), want >> 64)


def _grid_neighbours(name, dims):
    """A lattice's box as FILA numbers it: cells, open cells and neighbour lists (``n, index, ptr, nb``)."""
    from bench.models.lattice import get_lattice

    lattice = get_lattice(name)
    # FILA numbers the cells by their places in the index grid (fcc's points off the lattice included, never open)
    grid = lattice.grid_shape(dims)
    n = int(np.prod(grid))
    coords = [(x, y, z) for x in range(grid[0]) for y in range(grid[1]) for z in range(grid[2])]
    valid = lattice.valid(coords)
    index = {c: i for i, c in enumerate(coords) if valid[i]}
    ptr, nb = [0], []
    for c, row in zip(coords, lattice.neighbours(coords)):
        if c in index:
            nb.extend(index[tuple(map(int, d))] for d in row if tuple(map(int, d)) in index)
        ptr.append(len(nb))
    return n, index, np.array(ptr, dtype=np.int32), np.array(nb, dtype=np.int32)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([("hexprism", (3, 3, 3)), ("hexprism", (4, 4, 4)), ("hex", (8, 8, 1)), ("triangle", (4, 8, 1)),
                        ("fcc", (4, 4, 4)), ("fcc", (5, 5, 5)), ("cubic", (4, 4, 4))]),
       st.integers(0, 2 ** 128 - 1))
def test_fewest_open_counts_as_many_directions_as_the_lattice_has(case, bits):
    name, dims = case
    n, index, ptr, nb = _grid_neighbours(name, dims)
    words = 1 if n <= 64 else 2
    right, left, masks = fila_lists.neighbour_shifts(ptr, nb, words)
    # a prism's 8 directions and a sphere's 12 are more than three bit planes count
    assert len(right) == {"hexprism": 8, "hex": 6, "triangle": 4, "fcc": 12, "cubic": 6}[name]
    h = bits & sum(1 << i for i in index.values())
    open_nbrs = {c: sum(1 for d in nb[ptr[c]:ptr[c + 1]] if h >> int(d) & 1) for c in range(n) if h >> c & 1}
    least = min(open_nbrs.values(), default=0)
    want = sum(1 << c for c, k in open_nbrs.items() if k == least)
    masks = fila_lists.words(masks)
    # FILA counts with three planes up to 7 directions and with four beyond
    count = _fewest_open_wide if len(right) > 7 else _fewest_open
    if words == 1:
        assert count(np.uint64(h), right, left, masks) == want
    else:
        assert count((np.uint64(h & (2 ** 64 - 1)), np.uint64(h >> 64)), right, left, masks) == (
            want & (2 ** 64 - 1), want >> 64)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([("hex", (8, 8, 1)), ("hex", (9, 10, 1)), ("triangle", (4, 8, 1)), ("fcc", (5, 5, 5)),
                        ("cubic", (4, 4, 4)), ("cubic", (10, 6, 1)), ("hexprism", (4, 4, 4))]),
       st.integers(0, 2 ** 128 - 1), st.integers(0, 127))
def test_isolated_finds_an_open_cell_without_open_neighbours(case, bits, cut):
    name, dims = case
    n, index, ptr, nb = _grid_neighbours(name, dims)
    words = 1 if n <= 64 else 2
    right, left, masks = fila_lists.neighbour_shifts(ptr, nb, words)
    # dense random fields rarely leave a cell alone: thin them to the cells below a random cut too
    h = bits & sum(1 << i for i in index.values()) & ((1 << cut) - 1 if bits & 1 else (1 << 128) - 1)
    want = any(h >> c & 1 and not any(h >> int(d) & 1 for d in nb[ptr[c]:ptr[c + 1]]) for c in range(n))
    masks = fila_lists.words(masks)
    if words == 1:
        assert bf.isolated(h, right, left, masks) == want
        assert _isolated(np.uint64(h), right, left, masks) == want
    else:
        two = (h & (2 ** 64 - 1), h >> 64)
        assert bf.isolated(two, right, left, masks) == want
        assert _isolated((np.uint64(two[0]), np.uint64(two[1])), right, left, masks) == want


@njit
def _isolated(h, right, left, masks):
    return bf.isolated(h, right, left, masks)


@njit
def _fewest_open(h, right, left, masks):
    return bf.fewest_open(h, right, left, masks, False)


@njit
def _fewest_open_wide(h, right, left, masks):
    return bf.fewest_open(h, right, left, masks, True)


@pytest.mark.parametrize("name, order, fila", [("meteor.txt", "f@1,0,2=10", 10), ("meteor.txt", "e=9", 9),
                                               ("pentominoes_10x6.txt", "f=11", 11),
                                               ("hexiamonds_6x6.txt", "f=12", 12)])
def test_the_isolated_cell_trigger_prunes_placements_and_changes_no_count(name, order, fila):
    puzzle = one(DEFS / name)
    cover = Cover.from_puzzle(puzzle, redundancy=True)
    plain = FilaEngine().solve(cover, Settings(order=order, fila=fila))
    r = FilaEngine().solve(cover, Settings(order=order, fila=fila, isolated_backtrack=1))
    assert (r.status, r.covers, r.unique, r.total) == (Status.SOLVED, plain.covers, plain.unique, plain.total)
    assert expected_for(puzzle).total == r.total
    assert r.stats["isolated_backtracks"] > 0 and plain.stats["isolated_backtracks"] == 0
    # a placement the trigger undoes is no node: the nodes it saves are at least the placements it undid
    assert plain.stats["nodes"] - r.stats["nodes"] >= r.stats["isolated_backtracks"]
    assert r.variant.endswith("/c1")
    # checked while at least 4 pieces remain: fewer placements undone, the same counts
    later = FilaEngine().solve(cover, Settings(order=order, fila=fila, isolated_backtrack=4))
    assert (later.covers, later.total) == (r.covers, r.total)
    assert 0 < later.stats["isolated_backtracks"] < r.stats["isolated_backtracks"]
    assert sum(later.stats["isolated_backtracks_by_remaining"][:4]) == 0


def test_an_untuned_run_checks_isolated_cells_only_where_shifts_check_them():
    # the hexagonal prisms' triangle is numbered without its geometry (no few shifts): asked for, the trigger
    # checks each image's neighbours and prunes; an untuned run leaves it off there, where it costs more than it saves
    puzzle = one(DEFS / "hexprism_shader_triangle.txt")
    cover = Cover.from_puzzle(puzzle, redundancy=True)
    asked = FilaEngine().solve(cover, Settings(order="f=10", fila=10, isolated_backtrack=1))
    untuned = FilaEngine().solve(cover, Settings(order="f=10", fila=10, isolated_backtrack=1, auto=True))
    plain = FilaEngine().solve(cover, Settings(order="f=10", fila=10))
    assert (asked.covers, asked.total) == (untuned.covers, untuned.total) == (plain.covers, plain.total)
    assert asked.stats["isolated_backtracks"] > 0 and asked.stats["nodes"] < plain.stats["nodes"]
    assert untuned.stats["isolated_backtracks"] == 0 and untuned.stats["nodes"] == plain.stats["nodes"]


def test_the_isolated_cell_trigger_is_off_where_a_piece_has_a_cell_apart():
    # two pieces of two squares a cell apart interlock at the start of the 6x1 strip: each fills the other's gap, a
    # cell without open neighbours
    from bench.models.definition import parse_text
    from bench.models.puzzle import Puzzle

    text = ("D:xDim=6:yDim=1:zDim=1\nC:name=A:layout=0 0 0, 2 0 0\nC:name=B:layout=0 0 0, 2 0 0\n"
            "C:name=C:layout=0 0 0, 1 0 0\n~D\n")
    cover = Cover.from_puzzle(Puzzle.from_definition(parse_text(text)[0]))
    want = DlxEngine().solve(cover)
    r = FilaEngine().solve(cover, Settings(order="f", fila=3, isolated_backtrack=1))
    assert (r.covers, r.total) == (want.covers, want.total) == (2, 2)
    assert r.stats["fila"]["handoffs"] == 1 and r.stats["isolated_backtracks"] == 0


def test_the_isolated_cell_trigger_is_off_while_a_piece_of_one_cell_is_left():
    # 2x6 in squares and dominoes: a square fills a cell without open neighbours
    cover = Cover.from_puzzle(one(DEFS / "squares_dominoes_2x6.txt"))
    plain = FilaEngine().solve(cover, Settings(order="f"))
    r = FilaEngine().solve(cover, Settings(order="f", isolated_backtrack=1))
    assert (r.covers, r.total, r.stats["nodes"]) == (plain.covers, plain.total, plain.stats["nodes"])
    assert r.stats["isolated_backtracks"] == 0


def test_no_handoff_while_more_than_128_cells_are_open():
    # 66 dominoes in 132 cells: DLX places pieces until 128 cells are open
    text = "D:xDim=66:yDim=2:zDim=1\n" + "".join(f"C:name=d{k}:layout=0 0 0, 1 0 0\n" for k in range(66)) + "~D\n"
    from bench.models.definition import parse_text
    from bench.models.puzzle import Puzzle

    cover = Cover.from_puzzle(Puzzle.from_definition(parse_text(text)[0]))
    r = FilaEngine().solve(cover, Settings(fila=66), Limits(max_solutions=3, keep_solutions=3))
    assert r.status == Status.LIMIT and r.covers == 3
    assert r.stats["fila"]["max_cells"] == 128 and r.stats["fila"]["words"] == 2
    assert all(cover.verify_solution(s) for s in r.solutions)


def test_solutions_streamed_from_fila_are_exact_covers_with_their_orbit_shares():
    cover = Cover.from_puzzle(one(DEFS / "somacube.txt"), redundancy=True)
    seen = []
    r = FilaEngine().solve(cover, Settings(fila=6), on_solutions=lambda batch, weights: seen.extend(zip(batch, weights)))
    assert len(seen) == r.covers == 480
    assert all(cover.verify_solution(s) for s, _ in seen)
    assert len({tuple(sorted(s)) for s, _ in seen}) == 480
    assert sum(w for _, w in seen) == r.total == 11520


def test_goal_below_the_handoff_reports_every_partial_assembly():
    # each fit with 9 pieces left makes one partial assembly with 8 left
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_20x3.txt"), redundancy=True)
    full = FilaEngine().solve(cover, Settings(order="f", fila=11))
    r = FilaEngine().solve(cover, Settings(order="f", goal=8, fila=11), Limits(keep_solutions=10_000))
    assert r.covers == full.stats["fits_by_remaining"][9] == len(r.solutions) > 0
    assert r.unique is None and r.total is None
    for partial in r.solutions:
        assert len(partial) == 4
        counts = np.bincount(np.concatenate([cover.option(o) for o in partial]), minlength=cover.n_items)
        assert counts.max() == 1


def test_limits_stop_inside_fila_with_partial_counts():
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"))
    r = FilaEngine().solve(cover, Settings(fila=11), Limits(node_limit=20_000))
    assert r.status == Status.LIMIT and r.stats["nodes"] == 20_000 and r.covers < 9356
    r = FilaEngine().solve(cover, Settings(fila=11), Limits(max_solutions=5, keep_solutions=5))
    assert r.status == Status.LIMIT and r.covers == 5 and all(cover.verify_solution(s) for s in r.solutions)


def test_default_configuration_scans_rectangles_and_takes_the_tightest_hole_elsewhere():
    rect = Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"))
    cube = Cover.from_puzzle(one(DEFS / "tetriscube.txt"))
    assert default_order(rect, 11) == "f=11" and default_schedules(rect, 11) == ["f=11"]
    # e down to the last piece (the article's tables hand the last three to f: 79 M nodes against 48 M here)
    assert default_order(cube, 11) == "e=11" and default_schedules(cube, 11) == ["e=11", "f=11"]
    r = FilaEngine().solve(Cover.from_puzzle(one(DEFS / "pentominoes_20x3.txt"), redundancy=True))
    assert r.variant == "f11/of=11/n1"


def test_refusals():
    with pytest.raises(Unsupported, match="built from a puzzle"):
        FilaEngine().solve(Cover.from_options([[0, 1], [1]], [1, 1]))
    cover = Cover.from_puzzle(one(DEFS / "dominoes_4x4.txt"))
    with pytest.raises(UsageError, match="--fila must be between 1 and the number of pieces"):
        FilaEngine().solve(cover, Settings(fila=9))
    with pytest.raises(UsageError, match="does not implement: fila"):
        DlxEngine().solve(cover, Settings(fila=3))


@pytest.mark.slow
def test_tetris_cube_test_case_tc4_fits():
    # ./polycube -i -q -rL -f11 -oe=11:f=3 -n def/tetriscube.txt: 80,346,268 fits, 9839 solutions
    cover = Cover.from_puzzle(one(DEFS / "tetriscube.txt"), redundancy="L")
    r = FilaEngine().solve(cover, Settings(order="e=11:f=3", fila=11, nof=True))
    assert (r.covers, r.unique, r.total) == (9839, 9839, 236136)
    assert r.stats["fits"] == 80_346_268


@pytest.mark.slow
def test_diamond_is_the_articles_puzzle_test_cases_pt1_pt2():
    # ./polycube -i -q -r def/PT12.txt: 207,341,751 fits; with -V13: 78,145,746; 51,184 solutions
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_tetrominoes_diamond_13x13.txt"), redundancy=True)
    r = DlxEngine().solve(cover)
    assert (r.covers, r.unique, r.total, r.stats["fits"]) == (51184, 51184, 204736, 207_341_751)
    r = DlxEngine().solve(cover, Settings(volume_filter=13))
    assert (r.covers, r.stats["fits"]) == (51184, 78_145_746)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(12, 0, -1))
def test_10x6_at_every_handoff_point(n):
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"), redundancy=True)
    r = FilaEngine().solve(cover, Settings(fila=n))
    assert (r.covers, r.unique, r.total) == (2339, 2339, 9356)


SWEEPS = [("pentominoes_1s_30x3.txt", True, (46, 46, 184)), ("tetriscube.txt", "L", (9839, 9839, 236136))]


@pytest.mark.slow
@pytest.mark.parametrize("name, redundancy, counts, n", [(*case, n) for case in SWEEPS for n in range(1, 19)
                                                         if n <= (18 if case[0].startswith("pent") else 12)])
def test_slow_puzzles_at_every_handoff_point(name, redundancy, counts, n):
    cover = Cover.from_puzzle(one(DEFS / name), redundancy=redundancy)
    r = FilaEngine().solve(cover, Settings(fila=n))
    assert (r.covers, r.unique, r.total) == counts


@pytest.mark.slow
def test_one_sided_30x3_and_10x6_without_redundancy():
    r = FilaEngine().solve(Cover.from_puzzle(one(DEFS / "pentominoes_1s_30x3.txt")))
    assert (r.covers, r.unique, r.total) == (184, 46, 184)
    r = FilaEngine().solve(Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt")))
    assert (r.covers, r.unique, r.total) == (9356, 2339, 9356)


def test_bitfield_vocabulary_in_python_and_numba_agree():
    @njit
    def ops(a, occ, full):
        h = bf.holes(occ, full)
        return (bf.hits(a, 0, occ), bf.lowest(h), bf.test(occ, 3), bf.count_and(a, 1, h), bf.is_empty(h),
                bf.both(a, 1, h))

    one_word = np.array([8, 48 + (1 << 63)], dtype=np.uint64)
    occ, full = np.uint64(9), np.uint64((1 << 64) - 1)
    assert ops(one_word, occ, full) == (True, 1, True, 3, False, 48 + (1 << 63))
    assert bf.both(one_word, 1, 16) == 16 and bf.both(np.array([[8, 3]], dtype=np.uint64), 0, (12, 2)) == (8, 2)
    assert (bf.hits(one_word, 0, 9), bf.lowest(bf.holes(9, (1 << 64) - 1)), bf.test(9, 3)) == (True, 1, True)
    two = np.array([[8, 0], [0, 3]], dtype=np.uint64)
    occ2, full2 = (np.uint64((1 << 64) - 1), np.uint64(1)), (np.uint64((1 << 64) - 1), np.uint64(3))
    assert ops(two, occ2, full2) == (True, 65, True, 1, False, (0, 2))
    assert bf.lowest(bf.holes((2 ** 64 - 1, 1), (2 ** 64 - 1, 3))) == 65


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 64 - 1),
       st.lists(st.integers(0, 127), max_size=6, unique=True))
def test_gather_packs_the_masked_bits_in_order_on_every_path(v0, v1, m0, bits):
    mask = sum(1 << b for b in bits)
    two = (mask & (2 ** 64 - 1), mask >> 64)
    want = sum(1 << k for k, b in enumerate(sorted(bits)) if ((v1 << 64 | v0) >> b) & 1)
    assert bf.gather((v0, v1), two) == want
    u = np.uint64
    assert _gathered((u(v0), u(v1)), (u(two[0]), u(two[1]))) == want
    assert _gathered(u(v0), u(m0)) == bf._portable_pext(u(v0), u(m0)) == bf.gather(v0, m0)
    rows = np.array([[v0, v1], [two[0], two[1]]], dtype=np.uint64)
    assert bf.gather_rows(rows[0], rows[1]) == want


# compiled once for the module: a dispatcher per example would compile hundreds of times
@njit
def _gathered(v, m):
    return bf.gather(v, m)



@settings(max_examples=40, deadline=None)
@given(tiled_puzzles(), st.sampled_from(["f", "e", "s", "x", "R", "e=6:f=2", "s=5:y=3"]), st.booleans(),
       st.integers(0, 40), st.booleans(), st.integers(0, 3))
def test_random_tilings_fila_agrees_with_dlx(text, order, nof, handoff, redundancy, isolated):
    from bench.models.definition import parse_text
    from bench.models.puzzle import Puzzle

    cover = Cover.from_puzzle(Puzzle.from_definition(parse_text(text)[0]), redundancy=redundancy or None)
    n = int(cover.item_hi[cover.n_cells:].sum())
    want = DlxEngine().solve(cover, limits=Limits(node_limit=200_000))
    assume(want.status == Status.SOLVED)
    r = FilaEngine().solve(cover, Settings(order=order, nof=nof, fila=1 + handoff % n, isolated_backtrack=isolated))
    assert want.covers >= 1
    assert (r.covers, r.unique, r.total) == (want.covers, want.unique, want.total)
