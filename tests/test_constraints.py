"""Parity and volume triggers, and the parity, volume and fit filters inside the search.

Figures from the polycube article, the in-search filters checked against the
one-shot ones at the root, and counts that no trigger or filter changes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import bench
from bench import Cover
from bench.cli import main
from bench.engines import Limits, Settings, Status, get_engine
from bench.engines.variants import parse_tuning
from bench.errors import UsageError
from bench.models.definition import parse_text
from bench.models.filters import apply_one_shot, fit_filter, parity_filter, volume_filter
from bench.models.lattice import CUBIC
from bench.models.parity import parity_monitor
from bench.models.puzzle import Puzzle
from bench.kernels.regions import subset_sums
from bench.engines.constraints import SETTING_SLOTS
from bench.kernels import constraints as cn
from bench.engines.dlx import DlxEngine
from bench.engines.search import Search
from bench.engines.fila import FilaEngine
from support import DATA, DEFS
from support.reference import enumerate_covers
from support.strategies import tiled_puzzles


def one(path):
    [puzzle] = bench.load(path)
    return puzzle


def counts(result):
    assert result.status == Status.SOLVED
    return result.covers, result.unique, result.total


# -- the parity monitor and subset sums against brute force ------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([(-1, 1), (-3, 3), (0,), (-2, 2), (-2, 0, 2)]), st.integers(1, 3)),
                min_size=1, max_size=4), st.booleans())
def test_parity_monitor_matches_brute_force(shapes, spare):
    monitor_input = []
    for values, copies in shapes:
        monitor_input += [values] * copies
    # a fake puzzle exposing what parity_monitor reads
    class Shape:
        def __init__(self, index, multiplicity):
            self.index, self.multiplicity = index, multiplicity

    class Images:
        pass

    class Fake:
        pass

    fake = Fake()
    fake.shapes = [Shape(k, copies) for k, (_, copies) in enumerate(shapes)]
    fake.images = Images()
    fake.images.shape = np.concatenate([[k] * len(values) for k, (values, _) in enumerate(shapes)])
    fake.image_parity = np.concatenate([values for values, _ in shapes])
    fake.spare = spare
    fake.parity = 0
    fake.lattice = CUBIC
    monitor = parity_monitor(fake)
    options = [values + ((0,) if spare else ()) for values in monitor_input]
    want = {sum(choice) for choice in itertools.product(*options)}
    root = monitor.root
    got = {d for d in range(-monitor.offset, monitor.offset + 1) if monitor.reachable(root, d)}
    assert got == want


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 7), st.integers(0, 3)), min_size=1, max_size=4), st.integers(-1, 3))
def test_subset_sums_match_brute_force(shapes, skip):
    sizes = np.array([s for s, _ in shapes], dtype=np.int64)
    copies = np.array([c for _, c in shapes], dtype=np.int64)
    skip = skip if skip < len(shapes) and (skip < 0 or copies[skip] > 0) else -1
    limit = 30
    out = np.zeros(limit + 1, dtype=np.uint8)
    subset_sums(sizes, copies, skip, limit, out)
    pieces = [int(s) for j, (s, c) in enumerate(shapes) for _ in range(c - (j == skip))]
    want = {sum(sub) for r in range(len(pieces) + 1) for sub in itertools.combinations(pieces, r)}
    assert set(np.flatnonzero(out).tolist()) == {v for v in want if v <= limit}


# -- figures of the polycube article -----------------------------------------------------------------


def test_box_in_a_diamond_parity_filter_removes_about_half_of_the_odd_pieces_images():
    p = one(DEFS / "hexominoes_box_in_diamond.txt")
    odd = [s for s in p.shapes if s.parity]
    assert (abs(p.parity), len(odd)) == (22, 11)
    images = sum(len(p.images.of_shape(s.index)) for s in odd)
    _, removed = parity_filter(Cover.from_puzzle(p))
    # every odd piece must favour the region's colour: all images of the other sign go
    assert (removed, images) == (3012, 6892)


@pytest.mark.parametrize("args, removed", [(["-r", "-F"], "227"), (["-r", "-F", "--fit-rounds", "2"], "227 8"),
                                           (["-F"], "144"), (["-r", "-F", "--fit-rounds", "0"], "227 8 0")])
def test_fit_filter_removes_in_place_as_the_polycube_article_counts(capsys, args, removed):
    # "If the rotational redundancy filter is also enabled ... the fit filter will eliminate 227 images";
    # "If you run the fit filter twice ... the number of filtered images jumps from 227 to 235"; 128 + 16 without -r
    assert main(["solve", *args, "--max-solutions", "1", "-i", str(DEFS / "pentominoes_10x6.txt")]) == 0
    kv = _kv(capsys.readouterr().out)
    assert kv["FIT_FILTER_ROUNDS"] == removed
    assert int(kv["FIT_FILTER_ONE_SHOT"]) == sum(map(int, removed.split()))


def _fit_violations_all_at_once(cover):
    """Options a pass judging every option against the unfiltered matrix removes (the pass before in-place)."""
    options = [set(cover.option(o).tolist()) for o in range(cover.n_options)]
    single = {i for i in range(cover.n_items) if cover.item_hi[i] == 1}
    bad = set()
    for o, mine in enumerate(options):
        rest = [p for p, theirs in enumerate(options) if p != o and not (mine & theirs & single)]
        reach = [sum(i in options[p] for p in rest) + (i in mine) for i in range(cover.n_items)]
        if any(r < lo for r, lo in zip(reach, cover.item_lo)):
            bad.add(o)
    return bad


@settings(max_examples=40, deadline=None)
@given(tiled_puzzles(small=True))
def test_a_fit_pass_removes_only_dead_options_and_at_least_what_an_all_at_once_pass_removes(text):
    [puzzle] = [Puzzle.from_definition(d) for d in parse_text(text)]
    cover = Cover.from_puzzle(puzzle)
    kept, removed = fit_filter(cover, 1)
    gone = {o for o in range(cover.n_options) if cover.opt_image[o] not in set(kept.opt_image.tolist())}
    assert len(gone) == removed[0]
    used = {o for solution in enumerate_covers(cover) for o in solution}
    assert not gone & used
    assert _fit_violations_all_at_once(cover) <= gone


def test_hexomino_rectangles_are_refused_by_parity_without_search(capsys):
    assert main(["check", str(DEFS / "hexominoes_rectangles.txt")]) == 0
    out = capsys.readouterr().out
    assert out.count("parity") >= 6


def _root_pass(cover, which):
    """One in-search filter pass on the root state of a DLX search over ``cover``."""
    s = Search(cover, Settings(**{which: 1}), Limits())
    c = s.cons_args
    if which == "volume_filter":
        n = cn.volume_filter_pass(s.matrix, s.sparse, c)
    elif which == "parity_filter":
        n = cn.parity_filter_pass(s.matrix, s.sparse, c, c.par_d[0], c.par_s[0])
    else:
        n = cn.fit_filter_pass(s.matrix, s.sparse, c)
    return set(c.out[:n].tolist())


@pytest.mark.parametrize("path, redundancy", [(DEFS / "pentominoes_10x6.txt", None), (DEFS / "pentominoes_10x6.txt", True),
                                              (DEFS / "pentominoes_1s_30x3.txt", None), (DEFS / "somacube.txt", True),
                                              (DATA / "spare_3x3.txt", None), (DEFS / "hexominoes_box_in_diamond.txt", None)])
def test_in_search_filters_at_the_root_find_what_the_one_shot_filters_find(path, redundancy):
    cover = Cover.from_puzzle(one(path), redundancy=redundancy)
    for which, one_shot in (("volume_filter", volume_filter), ("parity_filter", parity_filter),
                            ("fit_filter", lambda c: fit_filter(c, 1))):
        kept, _ = one_shot(cover)
        removed = _root_pass(cover, which)
        assert cover.n_options - len(removed) == kept.n_options
        if which == "volume_filter" and path.name == "pentominoes_10x6.txt":
            assert len(removed) == (128 if redundancy is None else 125)
        if which == "fit_filter" and path.name == "pentominoes_10x6.txt":
            assert len(removed) == (144 if redundancy is None else 227)


def test_parity_violations_in_10x6_appear_only_from_the_ninth_piece():
    # polycube article, of its fastest configuration (-r -V, filling left to right): "the first parity
    # violations did not appear until the 9th piece was placed"; FILA's default here is that tree
    cover, _ = apply_one_shot(Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"), redundancy=True), volume=True)
    r = FilaEngine().solve(cover, Settings(parity_backtrack=1))
    per = r.stats["parity_backtracks_by_remaining"]
    assert counts(r) == (2339, 2339, 9356)
    assert max(n for n, k in enumerate(per) if k) == 3 and sum(per) == r.stats["parity_backtracks"] > 0


# -- counts never change -------------------------------------------------------------------------------

CONFIGS = [
    Settings(parity_backtrack=1), Settings(volume_backtrack=1), Settings(parity_filter=1), Settings(volume_filter=2),
    Settings(fit_filter=2), Settings(fit_filter=3, fit_rounds=0),
    Settings(parity_backtrack=1, volume_backtrack=2, parity_filter=3, volume_filter=3, fit_filter=4),
]
PUZZLES = [(DEFS / "pentominoes_20x3.txt", True), (DEFS / "somacube.txt", True), (DEFS / "dominoes_6x6.txt", None),
           (DEFS / "dominoes_4x4.txt", None), (DATA / "spare_3x3.txt", True), (DATA / "stationary_5x5.txt", None),
           (DATA / "onesided_tetrominoes_6x4.txt", True), (DEFS / "pentominoes_8x8_scott.txt", True)]


@pytest.mark.parametrize("path, redundancy", PUZZLES, ids=lambda v: getattr(v, "name", str(v)))
def test_triggers_and_filters_never_change_covers_unique_or_total(path, redundancy):
    cover = Cover.from_puzzle(one(path), redundancy=redundancy)
    want = counts(DlxEngine().solve(cover))
    for settings_ in CONFIGS:
        assert counts(DlxEngine().solve(cover, settings_)) == want, settings_
        # FILA after the first piece: the triggers run inside it too
        assert counts(FilaEngine().solve(cover, settings_)) == want, settings_
    shot, _ = apply_one_shot(cover, volume=True, fit_rounds=0, parity=True)
    assert counts(DlxEngine().solve(shot)) == want


def test_10x6_with_every_trigger_and_filter():
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_10x6.txt"), redundancy=True)
    for engine in (DlxEngine(), FilaEngine()):
        r = engine.solve(cover, Settings(parity_backtrack=1, volume_backtrack=5, parity_filter=8, volume_filter=9,
                                         fit_filter=10))
        assert counts(r) == (2339, 2339, 9356)
        assert r.stats["volume_filtered"] > 0 and r.stats["fit_filtered"] > 0 and r.stats["volume_backtracks"] > 0


@settings(max_examples=30, deadline=None)
@given(tiled_puzzles(), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3),
       st.booleans())
def test_random_tilings_keep_their_counts_under_any_constraint(text, pb, vb, pf, vf, ff, fila):
    cover = Cover.from_puzzle(Puzzle.from_definition(parse_text(text)[0]))
    want = DlxEngine().solve(cover, limits=Limits(node_limit=100_000))
    assume(want.status == Status.SOLVED)
    engine = FilaEngine() if fila else DlxEngine()
    r = engine.solve(cover, Settings(parity_backtrack=pb, volume_backtrack=vb, parity_filter=pf, volume_filter=vf,
                                     fit_filter=ff))
    assert counts(r) == (want.covers, want.unique, want.total) and want.covers >= 1


# -- the front ends ------------------------------------------------------------------------------------


def _kv(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_solve_reports_polycube_counters(capsys):
    assert main(["solve", "-i", "-q", "-r", "-V", "-p", "-v", "5", "-P", "8", "-F", "10", "--fit-rounds", "0", "--",
                 str(DEFS / "pentominoes_20x3.txt")]) == 0
    kv = _kv(capsys.readouterr().out)
    assert (kv["UNIQUE"], kv["TOTAL"]) == ("2", "8")
    assert (kv["parityFilter"], kv["fitFilter"], kv["fitRounds"], kv["parityBacktrack"], kv["volumeBacktrack"]) == \
        ("8", "10", "0", "1", "5")
    assert int(kv["VOLUME_FILTER_TOTAL"]) == int(kv["VOLUME_FILTER_ONE_SHOT"]) == int(kv["VOLUME_FILTER[12]"]) > 0
    assert int(kv["FIT_FILTER_TOTAL"]) == sum(int(kv[f"FIT_FILTER[{n:>2}]"]) for n in range(1, 13))
    for key in ("PARITY_BACKTRACK_TOTAL", "VOLUME_BACKTRACK_TOTAL", "PARITY_FILTER_TOTAL", "PARITY_BACKTRACK[ 1]"):
        assert key in kv


def test_engine_variants_carry_the_constraints():
    tuning = parse_tuning("dlx", "V13/p/v4/F9/R0/P5", frozenset(SETTING_SLOTS) | {"fit_rounds"})
    assert tuning == {"volume_filter": 13, "parity_backtrack": 1, "volume_backtrack": 4, "fit_filter": 9,
                      "fit_rounds": 0, "parity_filter": 5}
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_20x3.txt"), redundancy=True)
    r = get_engine("dlx:V11/p").solve(cover)
    assert r.variant == "s/p1/V11" and counts(r) == (2, 2, 8)
    assert get_engine("fila:v3").solve(cover).variant.endswith("/v3")


def test_refusals(capsys):
    cover = Cover.from_puzzle(one(DEFS / "pentominoes_20x3.txt"))
    with pytest.raises(UsageError, match="does not implement: parity_backtrack"):
        get_engine("cpsat").solve(cover, Settings(parity_backtrack=1))
    with pytest.raises(UsageError, match="need a cover built from a puzzle"):
        DlxEngine().solve(Cover.from_options([[0, 1], [1]], [1, 1]), Settings(volume_filter=1))
    with pytest.raises(UsageError, match="needs a number"):
        parse_tuning("dlx", "Vx", frozenset(SETTING_SLOTS))
    assert main(["run", "-V", "13", "-e", "dlx", "--no-save", str(DEFS / "pentominoes_20x3.txt")]) == 2
    assert "dlx:V13" in capsys.readouterr().err


def test_solve_reports_parity_proofs_at_once(capsys):
    rectangles = str(DEFS / "hexominoes_rectangles.txt")
    assert main(["solve", "-q", "-i", rectangles]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("SOLUTIONS=0") == 6 and captured.err.count("unsolvable without search: parity") == 6
    # without the static check, the parity trigger refuses the root: one node, one backtrack
    assert main(["solve", "-q", "-i", "--no-static-check", "-p", "--", rectangles]) == 0
    blocks = capsys.readouterr().out.split("PUZZLE_FILE=")[1:]
    assert len(blocks) == 6
    for block in blocks:
        kv = _kv(block)
        assert (kv["SOLUTIONS"], kv["NODES"], kv["PARITY_BACKTRACK_TOTAL"], kv["PARITY_BACKTRACK[35]"]) == ("0", "1", "1", "1")
