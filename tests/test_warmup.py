"""The warm-up compiles the kernel specializations a run uses, and a solve never counts compile time as solve time."""

from __future__ import annotations

import pytest

import bench
from bench import Cover
from bench.engines import Limits, Settings
from bench.toolchain import warmup
from bench.engines.dlx import DlxEngine
from bench.engines import fila
from bench.engines.fila import FilaEngine, handoff_words
from support import DEFS


def cover_of(name: str, redundancy=None) -> Cover:
    [puzzle] = bench.load(DEFS / name)
    return Cover.from_puzzle(puzzle, redundancy=redundancy)


@pytest.mark.parametrize("name, handoff_at, words", [
    ("pentominoes_10x6.txt", 11, {1}),      # 55 open cells
    ("pentominoes_10x6.txt", 1, {1}),
    ("tetriscube.txt", 11, {1}),            # 64 cells less the first piece
    ("pentominoes_1s_30x3.txt", 17, {2}),   # 85 of 90 cells
    ("pentominoes_1s_30x3.txt", 12, {1}),   # 60
])
def test_the_hand_off_word_counts_follow_from_the_pieces_left(name, handoff_at, words):
    assert handoff_words(cover_of(name), handoff_at) == words


def _requested(monkeypatch) -> set:
    """Every specialization asked for from now on (by the engines, the searches and the hand-offs)."""
    asked: set = set()
    real = warmup.ensure

    def spy(names):
        names = set(names)
        asked.update(names)
        return real(names)

    monkeypatch.setattr(warmup, "ensure", spy)
    return asked


@pytest.mark.parametrize("engine, name, settings, expected", [
    (FilaEngine(), "pentominoes_10x6.txt", Settings(), {"sets", "fila1"}),
    (FilaEngine(), "pentominoes_10x6.txt", Settings(parity_backtrack=1, volume_backtrack=3),
     {"sets+constraints", "fila1"}),
    (FilaEngine(), "pentominoes_1s_30x3.txt", Settings(), {"sets", "fila2"}),
    (DlxEngine(), "pentominoes_10x6.txt", Settings(), {"bits"}),
    (DlxEngine(), "pentominoes_10x6.txt", Settings(volume_filter=11), {"sets+constraints"}),
    (DlxEngine("sets"), "somacube.txt", Settings(), {"sets"}),
])
def test_a_solve_uses_exactly_the_specializations_its_engine_warms(monkeypatch, engine, name, settings, expected):
    cover = cover_of(name)
    resolved = engine.settle(cover, settings)
    predicted = engine.specializations(cover, resolved)
    assert predicted == expected
    asked = _requested(monkeypatch)
    result = engine.solve(cover, settings, Limits(max_solutions=2))
    assert result.covers == 2
    assert asked == expected


def _forget(monkeypatch, name: str) -> None:
    """As if this process had not warmed specialization ``name``: not recorded, its library not loaded here."""
    from bench.toolchain import aot

    monkeypatch.delitem(warmup._recorded, name)
    monkeypatch.setattr(aot, "_loaded", aot._loaded - {name})
    for kernel in warmup.kernels_of(name):
        monkeypatch.setattr(kernel, "_compiled", [])
        monkeypatch.setattr(kernel, "_wanted", None)


def test_a_specialization_nobody_predicted_is_compiled_apart_from_the_solve(monkeypatch):
    cover = cover_of("pentominoes_10x6.txt")
    engine = FilaEngine()
    engine.warm_up(cover)
    # as if the engine had not foreseen the hand-off's bitfield, and that kernel were not warm yet
    monkeypatch.setattr(engine, "specializations", lambda cover, settings: {"sets"})
    _forget(monkeypatch, "fila1")
    before = warmup.spent()
    result = engine.solve(cover, Settings(), Limits(max_solutions=1))
    late = warmup.spent() - before
    assert late > 0 and "fila1" in warmup._recorded
    assert result.timings["compile"] == pytest.approx(warmup._recorded["sets"] + late)
    assert result.covers == 1


def test_the_seconds_of_a_specialization_are_its_own():
    warmup.ensure(["sets", "fila1"])
    # fila1's tiny search runs DLX levels too: their compile is sets', counted once
    assert warmup.ensure(["sets", "fila1"]) == pytest.approx(warmup._recorded["sets"] + warmup._recorded["fila1"])
    assert set(warmup.SPECIALIZATIONS) >= {"sets", "sets+constraints", "bits", "fila1", "fila2"}


def test_filas_warm_up_runs_no_dlx_level_and_compiles_what_a_real_hand_off_calls(monkeypatch):
    from bench.kernels.fila import fila_search
    from bench.kernels.fila_lists import handoff_arrays
    from bench.engines.search import Search

    # numba's JIT alone here: what it compiles is what its dispatchers list (the libraries' side: test_aot)
    monkeypatch.setenv("BENCH_AOT", "0")
    for kernel in (fila_search, handoff_arrays):
        monkeypatch.setattr(kernel, "_compiled", [])
        monkeypatch.setattr(kernel, "_wanted", None)
    _forget(monkeypatch, "fila1")
    warmup.ensure(["fila1"])
    signatures = {d: len(d.dispatcher.signatures) for d in (fila_search, handoff_arrays)}
    asked = _requested(monkeypatch)
    slices = []
    real_slice = Search._slice
    monkeypatch.setattr(Search, "_slice", lambda self, budget: slices.append(budget))
    warmup.SPECIALIZATIONS["fila1"]()
    # FILA from the root: no DLX slice, and no specialization asked for but its own (the hand-off finds it warming
    # and asks for nothing), so it compiles beside ``sets``
    assert slices == [] and asked <= {"fila1"}
    monkeypatch.setattr(Search, "_slice", real_slice)
    result = FilaEngine().solve(cover_of("pentominoes_10x6.txt"), Settings(), Limits(max_solutions=2))
    assert result.covers == 2
    # the real hand-offs called the kernels with the warm-up's types: nothing compiled again
    assert {d: len(d.dispatcher.signatures) for d in signatures} == signatures


def _fake_specializations(monkeypatch, tmp_path, names):
    import os

    def compile_one(name):
        def run():
            # every process that ran it, in order
            with open(tmp_path / name, "a") as f:
                f.write(f"{os.getpid()}\n")
        return run

    monkeypatch.setattr(warmup, "SPECIALIZATIONS", {name: compile_one(name) for name in names})
    monkeypatch.setattr(warmup, "_recorded", {})
    monkeypatch.setattr(warmup, "_children", {})
    monkeypatch.setattr(warmup, "_here", [])
    monkeypatch.setattr(warmup, "kernels_of", lambda name: [])
    monkeypatch.setattr(warmup, "_cold_names", lambda names: [n for n in names if not (tmp_path / n).exists()])
    # no library: what the fakes do is all there is to each
    monkeypatch.setattr(warmup.aot, "load", lambda name: False)
    monkeypatch.setattr(warmup, "_library_reason", lambda name: "faked")
    monkeypatch.setattr(warmup, "_cores", lambda: 2)


def test_cold_specializations_are_shared_out_with_a_child_and_loaded_here_after(monkeypatch, tmp_path):
    import os

    _fake_specializations(monkeypatch, tmp_path, ["sets", "fila1", "bits"])
    warmup.ensure(["sets", "fila1", "bits"])
    runs = {name: [int(pid) for pid in (tmp_path / name).read_text().split()] for name in ("sets", "fila1", "bits")}
    # the dearest (fila1, 7 s) here, the next (sets, 6.5 s) in the child, the last (bits, 3 s) to the lighter
    # side, the child's; the child's are loaded here once it is done
    me = os.getpid()
    assert runs["fila1"] == [me]
    for name in ("sets", "bits"):
        assert len(runs[name]) == 2 and runs[name][0] != me and runs[name][1] == me, name
    assert set(warmup._recorded) == {"sets", "fila1", "bits"} and warmup._children == {}


def test_a_prefetched_specialization_is_waited_for_then_loaded(monkeypatch, tmp_path):
    import os

    _fake_specializations(monkeypatch, tmp_path, ["sets", "fila1"])
    warmup.prefetch(["fila1"])
    assert set(warmup._children) == {"fila1"}
    warmup.ensure(["sets"])
    me = os.getpid()
    assert (tmp_path / "sets").read_text().split() == [str(me)]
    warmup.ensure(["fila1", "sets"])
    # compiled by the child, then loaded here once the child was done
    fila1 = [int(pid) for pid in (tmp_path / "fila1").read_text().split()]
    assert len(fila1) == 2 and fila1[0] != me and fila1[1] == me and warmup._children == {}
    # cached ones are not prefetched, nor on one core
    warmup.prefetch(["fila1"])
    assert warmup._children == {}


def test_the_compiler_is_set_up_here_before_a_child_is_forked(monkeypatch, tmp_path):
    import os

    _fake_specializations(monkeypatch, tmp_path, ["sets", "fila1"])
    calls = []
    monkeypatch.setattr(warmup, "_set_up_compiler", lambda names: calls.append((os.getpid(), list(names),
                                                                               set(warmup._children))))
    warmup.prefetch(["fila1"])
    # in this process, for the child's share, before the child existed
    assert calls == [(os.getpid(), ["fila1"], set())] and set(warmup._children) == {"fila1"}
    warmup.ensure(["fila1"])
    assert len((tmp_path / "fila1").read_text().split()) == 2


@pytest.mark.parametrize("reason, pycc", [(None, True), ("faked: no compiler", False)])
def test_setting_up_the_compiler_imports_pycc_only_where_a_library_is_built(monkeypatch, reason, pycc):
    import bench.toolchain.registry

    calls = []
    monkeypatch.setattr(warmup, "_library_reason", lambda name: reason)
    monkeypatch.setattr(warmup.aot, "prepare", lambda: calls.append("pycc"))
    monkeypatch.setattr(bench.toolchain.registry, "materialize", lambda: calls.append("numba"))
    warmup._set_up_compiler(["filters"])
    assert calls == (["pycc"] if pycc else ["numba"])


def test_one_core_compiles_everything_here(monkeypatch, tmp_path):
    import os

    _fake_specializations(monkeypatch, tmp_path, ["sets", "fila1"])
    monkeypatch.setattr(warmup, "_cores", lambda: 1)
    warmup.ensure(["sets", "fila1"])
    assert [(tmp_path / n).read_text().split() for n in ("sets", "fila1")] == [[str(os.getpid())]] * 2


def test_a_default_solve_asks_for_the_split_decisions_kernel_beside_its_own(monkeypatch):
    from bench.parallel.runner import ParallelOptions, solve_maybe_parallel

    calls = []
    real_prefetch, real_ensure = warmup.prefetch, warmup.ensure
    monkeypatch.setattr(warmup, "prefetch", lambda names: (calls.append(("prefetch", sorted(names))),
                                                           real_prefetch(names)))
    monkeypatch.setattr(warmup, "ensure", lambda names: (calls.append(("ensure", sorted(set(names)))),
                                                         real_ensure(names))[1])
    cover = cover_of("pentominoes_10x6.txt")
    result = solve_maybe_parallel(cover, DlxEngine(), Settings(), Limits(), ParallelOptions(workers=2, explicit=False),
                                  printing=False)
    assert result.covers == 9356
    # on a cold cache, DLX's bitset kernel and the random paths' sparse-set kernel compile side by side
    assert calls[:2] == [("prefetch", ["sets"]), ("ensure", ["bits"])]


def test_a_prefetch_gives_the_dearest_to_a_child_and_compiles_the_rest_here_while_it_waits(monkeypatch, tmp_path):
    import os
    import time

    _fake_specializations(monkeypatch, tmp_path, ["sets", "fila1", "bits"])
    me = os.getpid()
    quick = warmup.SPECIALIZATIONS["fila1"]

    def slow_in_the_child():
        quick()
        if os.getpid() != me:
            time.sleep(1.0)

    warmup.SPECIALIZATIONS["fila1"] = slow_in_the_child
    warmup.prefetch(["sets", "fila1"])
    # fila1 (9.8 s cold) in a child; sets (6.5 s) is this process's, not started yet
    assert set(warmup._children) == {"fila1"} and warmup._here == ["sets"]
    assert not (tmp_path / "sets").exists()
    # a later prefetch of it starts no child: it is planned here
    warmup.prefetch(["sets"])
    assert set(warmup._children) == {"fila1"}
    warmup.ensure(["bits"])
    assert not (tmp_path / "sets").exists()
    warmup.ensure(["fila1"])
    # sets was compiled here while this process waited for fila1's child, which then loaded here
    assert (tmp_path / "sets").read_text().split() == [str(me)] and warmup._here == []
    fila1 = [int(pid) for pid in (tmp_path / "fila1").read_text().split()]
    assert len(fila1) == 2 and fila1[0] != me and fila1[1] == me
    warmup.ensure(["sets", "bits"])
    assert (tmp_path / "sets").read_text().split() == [str(me)]
    assert (tmp_path / "bits").read_text().split() == [str(me)]
    assert warmup._children == {}


def test_prefetches_gathered_start_one_child_for_the_dearest_of_them_all(monkeypatch, tmp_path):
    _fake_specializations(monkeypatch, tmp_path, ["sets", "fila1", "bits"])
    monkeypatch.setattr(warmup, "_batch", None)
    with warmup.prefetching():
        # two engines' kernels, as bench run's warm-up asks for them
        warmup.prefetch(["bits"])
        warmup.prefetch(["sets", "fila1"])
        assert warmup._children == {} and warmup._here == []
    assert set(warmup._children) == {"fila1"} and sorted(warmup._here) == ["bits", "sets"]
    warmup.ensure(["bits", "sets", "fila1"])
    assert warmup._children == {} and set(warmup._recorded) == {"bits", "sets", "fila1"}


def test_a_second_child_takes_a_kernel_left_here_only_where_this_process_has_more_to_build(monkeypatch, tmp_path):
    import os

    _fake_specializations(monkeypatch, tmp_path, ["sets", "fila1", "bits", "sampler", "filters"])
    monkeypatch.setattr(warmup, "_batch", None)
    monkeypatch.setattr(warmup, "_built", 0.0)
    monkeypatch.setattr(warmup, "_child_start", {})
    monkeypatch.setattr(warmup, "COLD_COST", {"fila1": 11.3, "sets": 6.9, "bits": 4.7, "sampler": 3.2, "filters": 1.9})
    me = os.getpid()
    # bench run's first prefetch, before any puzzle: FILA's kernel in a child, DLX's two left here
    with warmup.prefetching():
        warmup.prefetch(["bits", "sets"])
        warmup.prefetch(["fila1", "sets"])
    assert set(warmup._children) == {"fila1"} and sorted(warmup._here) == ["bits", "sets"]
    # FILA's own prefetch of a puzzle: 4.7 left here beside sets is less than the child's 11.3, so no second child
    warmup.prefetch(["fila1", "sets"])
    assert set(warmup._children) == {"fila1"}
    # the sampler and the filters built here (5.1): the child has about 6.2 left, this process sets' 6.9 beside bits
    warmup.ensure(["sampler"])
    warmup.ensure(["filters"])
    warmup.prefetch(["bits"])
    assert set(warmup._children) == {"fila1", "bits"} and warmup._here == ["sets"]
    warmup.ensure(["bits", "sets", "fila1"])
    runs = {name: [int(pid) for pid in (tmp_path / name).read_text().split()] for name in ("bits", "sets", "fila1")}
    assert runs["sets"] == [me]
    for name in ("bits", "fila1"):
        assert len(runs[name]) == 2 and runs[name][0] != me and runs[name][1] == me, name
    assert warmup._children == {} and warmup._here == []


def test_bench_run_starts_every_engines_kernels_before_it_waits_for_any(monkeypatch):
    from bench.comparison import rounds
    from bench.engines import Engine

    calls = []

    class Recording(Engine):
        def __init__(self, name):
            self.name = name

        def prefetch(self, cover=None, settings=None):
            calls.append(("prefetch", self.name))

        def warm_up(self, cover=None, settings=None):
            calls.append(("warm_up", self.name))
            return 1.5

        def solve(self, cover, settings=None, limits=None, on_solutions=None, on_trace=None):
            raise AssertionError("bench run's warm-up does not solve")

    monkeypatch.setattr(rounds, "get_engine", Recording)
    assert rounds.warm_up(["a", "b", "c"], None) == {"a": 1.5, "b": 1.5, "c": 1.5}
    assert calls == [("prefetch", "a"), ("prefetch", "b"), ("prefetch", "c"),
                     ("warm_up", "a"), ("warm_up", "b"), ("warm_up", "c")]


def test_the_native_engines_prefetch_what_they_warm(monkeypatch):
    asked = []
    monkeypatch.setattr(warmup, "prefetch", lambda names: asked.append(set(names)))
    cover = cover_of("pentominoes_10x6.txt")
    FilaEngine().prefetch(cover)
    DlxEngine().prefetch(cover, Settings(volume_filter=11))
    assert asked == [{"sets", "fila1"}, {"sets+constraints"}]


@pytest.mark.parametrize("name, words", [("fila1", 1), ("fila2", 2)])
def test_filas_warm_up_hands_over_what_a_dlx_hand_off_may(monkeypatch, name, words):

    seen = []
    real = fila.FilaRun.__init__

    def spy(self, search, plan, totals, shared=None):
        real(self, search, plan, totals, shared)
        seen.append((totals["max_cells"], totals["words"], self.n_shapes, self.shared))

    warmup.ensure([name])
    monkeypatch.setattr(fila.FilaRun, "__init__", spy)
    warmup.SPECIALIZATIONS[name]()
    # a hand-off on its own lists, then one on shared lists where they fit one word
    assert [s for *_, s in seen] == [False, words == 1]
    for cells, used, shapes, _ in seen:
        # the bitfield it is named for, and no more cells or shapes than DLX ever hands over
        assert used == words and 64 * (words - 1) < cells <= min(64 * words, fila.MAX_CELLS)
        assert shapes <= fila.MAX_SHAPES


def test_a_warm_up_that_would_overflow_the_bitfield_is_refused():
    with pytest.raises(ValueError, match="more than a hand-off may hold"):
        fila._tiny_fila(65)


def test_a_child_that_fails_is_quiet_and_its_share_is_compiled_here(monkeypatch, tmp_path, capfd):
    import os

    _fake_specializations(monkeypatch, tmp_path, ["sets", "fila1"])
    here = os.getpid()

    def only_here():
        if os.getpid() != here:
            raise RuntimeError("the child's compiler broke")
        (tmp_path / "sets").write_text(f"{here}\n")

    warmup.SPECIALIZATIONS["sets"] = only_here
    warmup.ensure(["sets", "fila1"])
    assert (tmp_path / "sets").read_text().split() == [str(here)]
    assert "Traceback" not in capfd.readouterr().err
