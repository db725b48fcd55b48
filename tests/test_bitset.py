"""The bitset kernel runs DLX's search: the same counts and statistics as the sparse-set kernel, level by level."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import bench
from bench import Cover, UsageError
from bench.engines import Limits, Settings, Status
from bench.engines.dlx import DlxEngine
from support import DATA, DEFS
from support.strategies import tiled_puzzles

STATS = ("nodes", "updates", "dead_ends", "attempts_by_remaining", "fits_by_remaining", "updates_by_remaining")


def both(cover, settings=Settings(), limits=Limits()):
    bits = DlxEngine("bits").solve(cover, settings, limits)
    sets = DlxEngine("sets").solve(cover, settings, limits)
    assert (bits.stats["kernel"], sets.stats["kernel"]) == ("bits", "sets")
    return bits, sets


def assert_same_search(bits, sets):
    assert (bits.status, bits.covers, bits.unique, bits.total) == (sets.status, sets.covers, sets.unique, sets.total)
    for key in STATS:
        assert bits.stats[key] == sets.stats[key], key


@pytest.mark.parametrize("path, redundancy, order", [
    ("pentominoes_10x6.txt", True, "s"), ("pentominoes_10x6.txt", True, "x"), ("pentominoes_12x5.txt", True, "s=8:f=4"),
    ("somacube.txt", True, "R"), ("somacube.txt", None, "a@160"), ("dominoes_6x6.txt", None, "s"),
    ("pentominoes_1s_30x3.txt", True, "s")], ids=str)
def test_same_search_as_the_sparse_set_kernel(path, redundancy, order):
    [puzzle] = bench.load(DEFS / path)
    assert_same_search(*both(Cover.from_puzzle(puzzle, redundancy=redundancy), Settings(order=order)))


def test_spare_pieces_and_goal_mode():
    [spare] = bench.load(DATA / "spare_3x3.txt")
    assert_same_search(*both(Cover.from_puzzle(spare)))
    [p] = bench.load(DEFS / "pentominoes_10x6.txt")
    bits, sets = both(Cover.from_puzzle(p, redundancy=True), Settings(goal=6))
    assert_same_search(bits, sets)
    assert bits.unique is None and bits.covers == sets.covers > 0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(0, n - 1), min_size=1, max_size=4, unique=True), min_size=1, max_size=40),
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=n, max_size=n))))
def test_random_covers_with_multiplicities(case):
    options, bounds = case
    lo = [min(a, b) for a, b in bounds]
    hi = [max(a, b, 1) for a, b in bounds]
    # the bitset kernel's covers: distinct options, each holding an item of exact bounds (item 0 is one), so that
    # no cover holds another (extensible covers are the sparse sets' alone: tests/test_matrices.py)
    lo[0] = hi[0] = max(lo[0], 1)
    exact = [a == b for a, b in zip(lo, hi)]
    distinct = dict.fromkeys(tuple(sorted(set(o) | ({0} if not any(exact[t] for t in o) else set()))) for o in options)
    cover = Cover.from_options([list(o) for o in distinct], lo, hi)
    assert not cover.extensible
    assert_same_search(*both(cover))


@settings(max_examples=25, deadline=None)
@given(tiled_puzzles(), st.sampled_from(["s", "f", "x", "R", "s=4:f=2"]), st.booleans())
def test_random_tilings(text, order, redundancy):
    from bench.models.definition import parse_text
    from bench.models.puzzle import Puzzle

    cover = Cover.from_puzzle(Puzzle.from_definition(parse_text(text)[0]), redundancy=redundancy or None)
    bits, sets = both(cover, Settings(order=order), Limits(node_limit=100_000))
    # a search cut by the node limit stops at different points in the two kernels' slices
    assume(sets.status == Status.SOLVED)
    assert_same_search(bits, sets)


def test_limits_stop_the_bitset_kernel_with_partial_statistics():
    [p] = bench.load(DEFS / "pentominoes_10x6.txt")
    cover = Cover.from_puzzle(p, redundancy=True)
    r = DlxEngine("bits").solve(cover, limits=Limits(node_limit=5000))
    assert r.status == Status.LIMIT and r.stats["nodes"] == 5000
    r = DlxEngine("bits").solve(cover, limits=Limits(max_solutions=7, keep_solutions=7))
    assert r.status == Status.LIMIT and r.covers == 7 and all(cover.verify_solution(s) for s in r.solutions)


def test_the_engine_picks_the_kernel_the_settings_allow():
    [p] = bench.load(DEFS / "pentominoes_12x5.txt")
    cover = Cover.from_puzzle(p, redundancy=True)
    # which kernel runs shows from the first nodes: the whole searches took 15 s of the test run
    first = Limits(node_limit=1000)
    assert DlxEngine().solve(cover, Settings(), first).stats["kernel"] == "bits"
    assert DlxEngine().solve(cover, Settings(parity_backtrack=1), first).stats["kernel"] == "sets"
    assert DlxEngine().solve(cover, Settings(first_item=0), first).stats["kernel"] == "sets"
    with pytest.raises(UsageError, match="dlx:sets"):
        DlxEngine("bits").solve(cover, Settings(volume_filter=10))
    with pytest.raises(UsageError, match="one kernel"):
        DlxEngine("bits/sets")
    assert DlxEngine("sets").solve(cover).variant == "s/sets"


def test_the_rows_of_option_bits_start_on_cache_lines():
    from bench.engines.search import CACHE_LINE, BitsetSearch

    [puzzle] = bench.load(DEFS / "pentominoes_10x6.txt")
    search = BitsetSearch(Cover.from_puzzle(puzzle, redundancy=True), Settings(), Limits())
    # 2032 options: rows of 32 words, 256 bytes, each on exactly four cache lines
    assert search.item_bits.shape[1] * 8 % CACHE_LINE == 0
    for name in ("item_bits", "class_bits", "live", "after_branch", "cand"):
        rows = getattr(search, name)
        assert rows.ctypes.data % CACHE_LINE == 0 and rows.flags.c_contiguous and rows.dtype == "uint64", name
    assert search.run() is not None and search.stats()["nodes"] > 0
