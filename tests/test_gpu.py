"""The GPU engine: its device kernel under numba-cuda's CUDA simulator, its host split, its refusals.

Every test of the kernel runs twice: under the simulator, in a child process
started with ``NUMBA_ENABLE_CUDASIM=1`` (numba-cuda reads it when
``numba.cuda`` is first imported, so the switch stays out of this process),
and, marked ``gpu``, on a CUDA device in this process, skipped with the
reason where there is none.  The simulator runs every device thread as a
Python thread, some 10,000 nodes a second: tiny puzzles only.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bench
from bench import Cover
from bench.engines import Limits, Result, Status, get_engine
from bench.engines.gpu import SIMULATOR, build_tables, unsupported
from bench.errors import Unsupported
from bench.kernels.canonical import SolutionCounter
from bench.models.expected import expected_for
from support import DATA, DEFS, ROOT, gpu_worker
from support.reference import enumerate_covers
from support.strategies import tiled_puzzles

NUMBA_CUDA = importlib.util.find_spec("numba_cuda") is not None
needs_numba_cuda = pytest.mark.skipif(not NUMBA_CUDA, reason="numba-cuda is not installed (the gpu extra)")

# a 3-D box of 12 cubes: an I-tricube and three L-tricubes, one drawn otherwise (identical pieces)
BOX = ("D:xDim=3:yDim=2:zDim=2\n" + "".join(f"C:name=L{k}:layout=0 0 0, 1 0 0, 0 1 0\n" for k in range(2)) +
       "C:name=I:layout=0 0 0, 1 0 0, 2 0 0\nC:name=V:layout=0 0 0, 0 0 1, 1 0 0\n~D\n")

CASES = [
    (str(DEFS / "dominoes_4x4.txt"), None),  # one shape, eight identical pieces
    (str(DATA / "spare_3x3.txt"), True),  # spare pieces
    (str(DATA / "stationary_5x5.txt"), None),  # a stationary piece
    (str(DATA / "hex_hexagon_side3.txt"), True),  # hex
    (str(DATA / "triangle_side4.txt"), True),  # triangle
    (str(DATA / "hexprism_hexagon_2_layers.txt"), True),  # hex prism, two layers
    (str(DATA / "fcc_pyramid_3.txt"), True),  # fcc spheres, covers with symmetric redundancy images
    (str(DATA / "onesided_tetrominoes_6x4.txt"), True),  # one-sided pieces
    (BOX, None),  # a 3-D box of cubes
    (BOX, True),
    (str(DEFS / "tetrahexes_4x7.txt"), None),  # a bundled hex puzzle, 4,212 nodes
    (str(DEFS / "polyspheres_tetrahedron_20.txt"), True),  # a bundled fcc puzzle, its root placing a piece first
]
CASE_IDS = ["dominoes4x4", "spare", "stationary", "hex", "triangle", "hexprism", "fcc", "onesided", "box", "box-r",
            "tetrahexes", "tetrahedron"]
PYRAMID = str(DATA / "fcc_pyramid_3.txt")


@pytest.fixture(scope="module")
def simulator():
    """A child process with numba-cuda's simulator switched on (before it imports numba.cuda)."""
    if not NUMBA_CUDA:
        pytest.skip("numba-cuda is not installed (the gpu extra)")
    context = multiprocessing.get_context("spawn")
    before = os.environ.get(SIMULATOR)
    os.environ[SIMULATOR] = "1"
    try:
        pool = context.Pool(1)
    finally:
        if before is None:
            del os.environ[SIMULATOR]
        else:
            os.environ[SIMULATOR] = before
    yield pool
    pool.close()
    pool.join()


@pytest.fixture(scope="module")
def device_state():
    """Whether this process sees a CUDA device (asked without touching the driver here)."""
    if not NUMBA_CUDA:
        pytest.skip("numba-cuda is not installed (the gpu extra)")
    return gpu_worker.engine_state()


@pytest.fixture(params=["simulator", pytest.param("device", marks=pytest.mark.gpu)])
def gpu(request):
    """Calls a function of :mod:`gpu_worker` under the simulator, or on the device here."""
    if request.param == "simulator":
        pool = request.getfixturevalue("simulator")
        return lambda name, *args, **kwargs: pool.apply(getattr(gpu_worker, name), args, kwargs)
    state = request.getfixturevalue("device_state")
    if not state["available"]:
        pytest.skip(f"no CUDA device: {state['missing']}")
    return lambda name, *args, **kwargs: getattr(gpu_worker, name)(*args, **kwargs)


def dlx_counts(source, redundancy=None):
    result = get_engine("dlx").solve(gpu_worker.cover_of(source, redundancy))
    return result.covers, result.unique, result.total


def test_the_simulator_is_on_in_its_child_only(simulator):
    state = simulator.apply(gpu_worker.engine_state)
    assert state["simulated"] and state["available"]
    assert SIMULATOR not in os.environ


@pytest.mark.parametrize("source, redundancy", CASES, ids=CASE_IDS)
def test_counts_match_the_oracle_and_dlx(gpu, source, redundancy):
    got = gpu("solve", source, redundancy)
    assert got["status"] == "solved"
    assert tuple(got["counts"]) == dlx_counts(source, redundancy)
    assert got["counts"][0] == len(enumerate_covers(gpu_worker.cover_of(source, redundancy)))
    if "\n" not in source:
        expected = expected_for(bench.load(source)[0])
        assert tuple(got["counts"][1:]) == (expected.unique, expected.total)
    stats = got["stats"]
    assert stats["nodes"] == stats["fits"] + 1 >= stats["gpu"]["split_nodes"]
    assert got["timings"]["solve"] >= got["timings"]["kernel"] > 0


def test_cut_walks_and_overflowing_buffers_change_nothing_counted(gpu):
    # a budget no walk reaches, against one of 3 nodes that cuts nearly every walk, buffers of one cover or row
    # overflowing every launch
    plain = gpu("solve", PYRAMID, True, tuning=dict(budget=1 << 30))
    cut = gpu("solve", PYRAMID, True, tuning=dict(budget=3, buffer=1))
    assert tuple(cut["counts"]) == tuple(plain["counts"]) == dlx_counts(PYRAMID, True)
    for key in ("nodes", "attempts"):
        assert cut["stats"][key] == plain["stats"][key]
    assert cut["stats"]["gpu"]["cut"] > 0 and cut["stats"]["gpu"]["reruns"] > 0 and plain["stats"]["gpu"]["cut"] == 0
    assert cut["stats"]["gpu"]["max_subproblem_nodes"] <= 3 < plain["stats"]["gpu"]["max_subproblem_nodes"]


def test_a_solution_limit_keeps_the_first_covers_in_search_order_however_the_search_is_cut(gpu):
    cover = gpu_worker.cover_of(PYRAMID, True)
    runs = [gpu("solve", PYRAMID, True, limits=dict(max_solutions=40, keep_solutions=5), collect=True,
                tuning=tuning) for tuning in ({}, dict(budget=3, buffer=1), dict(split=1, buffer=2))]
    handed = [[tuple(s) for batch, _ in run["handed"] for s in batch] for run in runs]
    assert handed[0] == handed[1] == handed[2] and len(set(handed[0])) == 40
    counter = SolutionCounter(cover)
    for options in handed[0]:
        counter.add(options)
    for run in runs:
        assert run["status"] == "limit" and tuple(run["counts"]) == counter.counts()
        assert [tuple(s) for s in run["solutions"]] == handed[0][:5]


def test_every_cover_is_handed_over_once_with_its_share_of_the_total(gpu):
    source = str(DATA / "spare_3x3.txt")
    got = gpu("solve", source, True, limits=dict(keep_solutions=3), collect=True, tuning=dict(buffer=1))
    covers = [tuple(sorted(s)) for batch, _ in got["handed"] for s in batch]
    weights = [w for _, batch in got["handed"] for w in batch]
    cover = gpu_worker.cover_of(source, True)
    assert len(set(covers)) == len(covers) == got["counts"][0] and all(cover.verify_solution(c) for c in covers)
    assert (np.count_nonzero(weights), sum(weights)) == tuple(got["counts"][1:]) == (10, 80)
    assert len(got["solutions"]) == 3


def test_a_time_limit_or_ctrl_c_stops_between_launches_with_partial_counts(gpu):
    source = str(DEFS / "dominoes_4x4.txt")
    # a launch as short as can be, and a node budget of 3 so that walks are cut and go on through many launches
    tuning = dict(launch_seconds=0.0, budget=3)
    timed = gpu("solve", source, limits=dict(time_limit=1e-9), tuning=tuning)
    assert timed["status"] == "timeout" and 0 <= timed["counts"][0] < 36
    stopped = gpu("solve", source, tuning=tuning, stop_after=2)
    assert stopped["status"] == "interrupted" and 0 <= stopped["counts"][0] < 36


@given(st.sampled_from(["cubic", "hex", "triangle", "hexprism", "fcc"]).flatmap(
    lambda lattice: tiled_puzzles(lattice, small=True)), st.booleans())
@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
          deadline=None)
def test_random_tilings_of_every_lattice_match_dlx(simulator, text, redundancy):
    # the simulator runs some 10,000 nodes a second: larger trees are left to the device's run
    assume(host_walk(gpu_worker.cover_of(text, redundancy or None))[1] < 3000)
    got = simulator.apply(gpu_worker.solve, (text, redundancy or None))
    assert got["status"] == "solved" and tuple(got["counts"]) == dlx_counts(text, redundancy or None)


@needs_numba_cuda
def test_bench_solve_and_bench_run_run_the_engine_under_the_simulator():
    env = {**os.environ, SIMULATOR: "1"}
    done = subprocess.run([sys.executable, "-m", "bench", "solve", "-q", "-e", "gpu", "-r", "#",
                           str(DATA / "spare_3x3.txt")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert ": 18 covers, 10 unique, 80 total in" in done.stderr and "(gpu, solved)" in done.stderr
    # bench run solves in forked children, each its own CUDA (here, simulated) process
    done = subprocess.run([sys.executable, "-m", "bench", "run", "-v", "-e", "gpu,dlx", "--no-save", "-r",
                           str(DATA / "triangle_side4.txt")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "gpu            round 1: solved   5 covers, 3 unique, 15 total in" in done.stderr
    assert "1 puzzle, 2 engines: counts agree on 1" in done.stdout


# -- without the simulator: the host's split and the checks -----------------------------------------


def host_walk(cover) -> tuple[int, int, np.ndarray]:
    """The engine's search run to the leaves on the host alone: its leaves (full boards), nodes and their rows.

    The engine's own first split (for one thread: a few sub-problems),
    then each sub-problem walked down to its leaves.
    """
    from bench.kernels import gpu as k
    from bench.engines.gpu import GpuSearch

    tables = build_tables(cover)
    search = GpuSearch(cover, tables, Limits())
    search.threads = 1
    subs = search._first_split()
    empty = np.zeros((0, tables.width), dtype=np.int32)
    n, _, _ = k.expand(subs, tables.width, empty, tables.board())
    rows = np.zeros((n, tables.width), dtype=np.int32)
    _, nodes, _ = k.expand(subs, tables.width, rows, tables.board())
    # every full board is a node of its own, which the walk leaves to its row
    return n, search.out.nodes + nodes + n, rows


def host_counts(cover) -> tuple[int, int, int]:
    """Covers, unique and total of a puzzle without spare pieces, from the host walk and the engine's classification."""
    from bench.kernels import gpu as k

    n, _, paths = host_walk(cover)
    lengths = (paths >= 0).sum(axis=1).astype(np.int32)
    rows = np.where(paths >= 0, build_tables(cover).popt[np.maximum(paths, 0)], 0).astype(np.int32)
    sym = cover.symmetry
    weights = k.classify_rows(rows, lengths, cover.opt_ptr, cover.opt_items, cover.n_cells, sym.cell_inv, sym.opt_map,
                              sym.opt_gmask)
    return n, int(np.count_nonzero(weights)), int(weights.sum())


# the host walks some 10 million nodes a second: the trees of the quick ones hold under 3 million (the random-path
# estimates), the slow ones' from 13 million (2x5x6) to 14 billion (the 13x13 diamond)
QUICK_BUNDLED = ["pentominoes_20x3.txt", "pentominoes_10x6.txt", "pentominoes_12x5.txt", "pentominoes_15x4.txt",
                 "pentominoes_8x8_scott.txt", "pentominoes_1s_30x3.txt", "pentacubes_planar_2x3x10.txt", "somacube.txt",
                 "tetrahexes_4x7.txt", "hexiamonds_6x6.txt", "hexprism_shader_triangle.txt",
                 "polyspheres_tetrahedron_20.txt", "polyspheres_square_pyramid_30.txt"]
SLOW_BUNDLED = ["meteor.txt", "pentacubes_planar_2x5x6.txt", "pentominoes_1s_18x5.txt", "pentacubes_planar_3x4x5.txt",
                "tetriscube.txt", "pentominoes_tetrominoes_diamond_13x13.txt"]


@needs_numba_cuda
@pytest.mark.parametrize("name", QUICK_BUNDLED + [pytest.param(n, marks=pytest.mark.slow) for n in SLOW_BUNDLED])
def test_the_search_counts_the_bundled_puzzles_walked_on_the_host(name):
    [puzzle] = bench.load(DEFS / name)
    expected = expected_for(puzzle)
    cover = Cover.from_puzzle(puzzle, redundancy=True)
    covers, unique, total = host_counts(cover)
    assert (unique, total) == (expected.unique, expected.total)
    if name in ("pentominoes_20x3.txt", "pentominoes_10x6.txt", "somacube.txt"):
        assert covers == get_engine("dlx").solve(cover).covers


def test_every_bundled_puzzle_but_the_hexomino_boards_is_supported():
    refused = {}
    for path in sorted(DEFS.glob("*.txt")):
        for puzzle in bench.load(path):
            reason = unsupported(Cover.from_puzzle(puzzle))
            if reason is not None:
                refused.setdefault(path.name, reason)
    optional = refused.pop("dominoes_optional_2x5.txt")
    assert "cells that may stay empty" in optional
    assert sorted(refused) == ["hexominoes_box_in_diamond.txt", "hexominoes_parallelogram_15x14.txt",
                               "hexominoes_rectangles.txt"]
    assert all("at most 128 cells" in reason and "210" in reason for reason in refused.values())


@pytest.mark.parametrize("rows, lo, hi, n_cells, reason", [
    ([[0, 1]], [1, 1], None, 0, "no cell items"),
    ([[0, 1, 2], [2]], [1, 1, 1], None, 2, "option 1 covers no cell"),
    ([[0, 1, 2, 3]], [1, 1, 1, 1], None, 2, "exactly one piece item; option 0 has 2"),
    ([[0, 1]], [1, 1], None, 2, "exactly one piece item; option 0 has 0"),
    ([[0, 2], [1, 2]], [0, 1, 1], [1, 1, 2], 2, "cells that may stay empty"),
])
def test_covers_the_search_cannot_take_are_refused_with_the_reason(rows, lo, hi, n_cells, reason):
    cover = Cover.from_options(rows, lo, hi, n_cells=n_cells)
    with pytest.raises(Unsupported, match=reason):
        build_tables(cover)
    assert reason in unsupported(cover)


def test_the_tables_sort_placements_by_their_lowest_cell_in_scan_order():
    [puzzle] = bench.load(DEFS / "pentominoes_10x6.txt")
    cover = Cover.from_puzzle(puzzle, redundancy=True)
    t = build_tables(cover)
    masks = [int(m0) | int(m1) << 64 for m0, m1 in zip(t.pm0, t.pm1)]
    lowest = [(m & -m).bit_length() - 1 for m in masks]
    assert lowest == sorted(lowest) and all(t.gstart[b] <= p < t.gend[b] for p, b in enumerate(lowest))
    assert not t.two and t.full0 == np.uint64((1 << 60) - 1) and t.full1 == 0 and (t.popt[t.place_of] ==
                                                                                   np.arange(cover.n_options)).all()
    # the scan runs along the short side: the cell after the first is the one above it, not beside it
    cell_of_bit = np.argsort(puzzle.scan_rank)
    assert tuple(puzzle.open_coords[cell_of_bit[1]][:2]) == (0, 1)


@needs_numba_cuda
def test_without_a_device_bench_run_says_skip_with_the_reason(capsys, tmp_path, device_state):
    from bench.cli import main

    if device_state["available"]:
        pytest.skip("a CUDA device is here")
    status = main(["run", "-e", "gpu,dlx", "--output-file", str(tmp_path / "run.json"), "--no-html",
                   str(DEFS / "dominoes_4x4.txt")])
    out, _ = capsys.readouterr()
    assert status == 0
    import json

    rows = {r["engine"]: r for r in json.loads((tmp_path / "run.json").read_text())["rows"]}
    assert rows["gpu"]["status"] == "skipped" and "no CUDA" in rows["gpu"]["message"]
    assert rows["dlx"]["status"] == "solved"


def test_without_numba_cuda_the_engine_names_the_extra(monkeypatch):
    engine = get_engine("gpu")
    monkeypatch.setattr(type(engine), "requires", ("a_module_that_is_not_there",))
    assert not engine.available()
    assert "pip install 'polyform-bench[gpu]'" in engine.missing()


@needs_numba_cuda
def test_the_kernel_compiles_for_hopper_where_nvvm_is_installed():
    import numba
    from cuda.pathfinder import DynamicLibNotFoundError
    from numba import cuda
    from numba.cuda.cudadrv import nvvm

    from bench.engines.gpu import DEVICE_TABLES, GpuSearch
    from bench.kernels import gpu as k
    from bench.kernels import gpu_device

    if not nvvm.is_available():
        pytest.skip("no NVVM here (numba-cuda[cu12] or [cu13] installs it)")
    cover = gpu_worker.cover_of(PYRAMID, True)
    tables = build_tables(cover)
    search = GpuSearch(cover, tables, Limits())
    # the arguments of a launch, host arrays of the same types standing for the device's
    search.dev = {name: getattr(tables, name) for name in DEVICE_TABLES}
    rows = np.zeros((1, tables.width), dtype=np.int32)
    ones = np.zeros(1, dtype=np.int32)
    arguments = search.arguments(rows, ones, 1, np.zeros(k.N_COUNTS, dtype=np.int64), rows, ones, rows, ones, ones)
    try:
        ptx, _ = cuda.compile_ptx(gpu_device.search_kernel.py_func, tuple(numba.typeof(a) for a in arguments),
                                  cc=(9, 0))
    except DynamicLibNotFoundError as exc:
        pytest.skip(f"a CUDA toolkit library is missing (numba-cuda[cu12] or [cu13] installs them): {exc}")
    assert ".entry" in ptx and "atom.global.add" in ptx


@pytest.mark.gpu
@pytest.mark.parametrize("name", QUICK_BUNDLED + SLOW_BUNDLED + ["dominoes_6x6.txt"])
def test_the_bundled_puzzles_on_a_device(device_state, name):
    if not device_state["available"]:
        pytest.skip(f"no CUDA device: {device_state['missing']}")
    [puzzle] = bench.load(DEFS / name)
    expected = expected_for(puzzle)
    result = get_engine("gpu").solve(Cover.from_puzzle(puzzle, redundancy=True))
    assert result.status == Status.SOLVED
    assert (result.unique, result.total) == (expected.unique, expected.total)


# -- the benchmark, with stand-in runners ------------------------------------------------------------


def stand_in(counts, nodes=1000, status=Status.SOLVED, gpu=False, calls=None):
    """A runner returning fixed counts; ``status`` TIMEOUT when it is given a time limit."""
    def run(limit):
        if calls is not None:
            calls.append(limit)
        timings = {"compile": 0.5}
        stats = {"nodes": nodes}
        if gpu:
            timings.update(split=0.01, copy=0.02, kernel=0.03, classify=0.0)
            stats["gpu"] = {"device": "stand-in", "threads": 8, "first_piece": "X", "split_depth": 2,
                            "subproblems": 40, "budget": 4096, "cut": 1, "continued": 3, "launches": 3,
                            "max_subproblem_nodes": 77, "split_nodes": 100}
        state = Status.TIMEOUT if status == Status.TIMEOUT and limit is not None else Status.SOLVED
        return Result(engine="x", status=state, covers=counts[0], unique=counts[1], total=counts[2],
                                    stats=stats, timings=timings)
    return run


def test_the_benchmark_interleaves_rounds_checks_counts_and_leaves_slow_baselines_out():
    from benchmarks.gpu import markdown, run_case

    [puzzle] = bench.load(DEFS / "pentominoes_20x3.txt")
    expected = expected_for(puzzle)
    calls = []
    runs = {"gpu": stand_in((2, 2, 8), gpu=True), "fila -w 1": stand_in((2, 2, 8), status=Status.TIMEOUT),
            "fila -w 4": stand_in((2, 2, 8), calls=calls)}
    doc = run_case("20x3", "pentominoes_20x3.txt", runs, 3, 30.0, expected)
    assert doc["counts_agree"] and calls == [30.0, None, None, None]
    rows = {r["runner"]: r for r in doc["rows"]}
    assert rows["fila -w 1"]["status"] == "over 30 s" and "seconds" not in rows["fila -w 1"]
    assert len(rows["gpu"]["all_seconds"]) == 3 and rows["gpu"]["phases"]["kernel"] == 0.03
    assert rows["gpu"]["kernel_nodes_per_second"] == (1000 - 100) / 0.03 and "ratio_to_gpu" in rows["fila -w 4"]
    doc.update(machine={"cpu": "cpu", "cores": 4, "commit": "abc"}, date="today", workers=4, device="stand-in",
               configuration="redundancy X")
    text = markdown(doc)
    assert "| fila -w 1 | over 30 s |" in text and "Counts agree (with each other and expected.toml [2, 8]): yes" in text
    assert "| 0.0100 | 0.0200 | 0.0300 | 0.0000 | 3e+04 | 8 | X | 2 | 40 | 4,096 | 1 | 3 | 3 | 77 |" in text
    runs["fila -w 4"] = stand_in((2, 2, 9))
    assert not run_case("20x3", "pentominoes_20x3.txt", runs, 1, 30.0, expected)["counts_agree"]


def test_the_benchmark_takes_the_gpu_engines_tuning_by_name():
    from benchmarks.gpu import main, tuning_of

    assert tuning_of(["budget=512", "split=0.5"]) == tuning_of([]).__class__(budget=512, split=0.5)
    with pytest.raises(ValueError, match="KEY one of split, grain, budget"):
        tuning_of(["budgt=5"])
    with pytest.raises(SystemExit):
        main(["--gpu-tuning", "budget"])


def test_the_budget_sweep_weighs_a_wrong_count_as_a_minute_and_says_so():
    from benchmarks.gpu_budget import FAILED_SECONDS, markdown, means, main

    def row(case, budget, wall, exact=True):
        return {"case": case, "budget": budget, "device": "stand-in", "status": "solved", "exact": exact, "unique": 1,
                "total": 4, "wall": wall, "split": 0.01, "copy": 0.02, "kernel": wall / 2, "nodes": 1000,
                "launches": 2, "cut": 3, "continued": 9, "subproblems": 40}

    rows = [row("a", 4096, 2.0), row("b", 4096, 8.0), row("a", 256, 1.0), row("b", 256, 1.0, exact=False)]
    mean = means(rows)
    assert mean[4096] == pytest.approx(4.0)
    assert mean[256] == pytest.approx(FAILED_SECONDS ** 0.5)
    doc = {"machine": {"cpu": "cpu", "cores": 16, "commit": "abc"}, "device": "stand-in", "date": "d",
           "cases": ["a", "b"], "budgets": [4096, 256], "time_limit": 15.0, "rows": rows,
           "means": {str(b): v for b, v in mean.items()}}
    text = markdown(doc)
    assert "All exact (expected.toml's unique and total): NO" in text
    assert "| 4096 | 4.0000 |" in text and "| b | 256 | solved | NO | 1.0000 |" in text
    with pytest.raises(SystemExit):
        main(["--budgets", "4096,lots"])


def test_the_progress_bar_takes_the_engines_own_estimate_of_its_tree():
    import io

    from bench.cli.solve import SolveProgress
    from bench.kernels.codes import N_STATE, S_COVERS, S_NODES

    class Search:
        state = np.zeros(N_STATE, dtype=np.int64)
        estimated_nodes = 12_345

    Search.state[S_NODES], Search.state[S_COVERS] = 500, 7
    stream = io.StringIO()
    # no cover: the DLX estimate, which needs one, is not taken
    progress = SolveProgress(None, None, enabled=True, delay=0.0, stream=stream)
    progress(Search())
    progress.close()
    assert "500/~12.3k nodes, 7 solutions" in stream.getvalue()
