"""The warm-up compiles the kernel specializations a run uses, and a solve never counts compile time as solve time."""

from __future__ import annotations

import pytest

import bench
from bench import Cover
from bench.engines import Limits, Settings
from bench.native import warmup
from bench.native.dlx import DlxEngine
from bench.native.fila import FilaEngine, handoff_words
from conftest import DEFS


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
    resolved = engine.resolve(cover, settings)
    predicted = engine.specializations(cover, resolved)
    assert predicted == expected
    asked = _requested(monkeypatch)
    result = engine.solve(cover, settings, Limits(max_solutions=2))
    assert result.covers == 2
    assert asked == expected


def test_a_specialization_nobody_predicted_is_compiled_apart_from_the_solve(monkeypatch):
    cover = cover_of("pentominoes_10x6.txt")
    engine = FilaEngine()
    engine.warm_up(cover)
    # as if the engine had not foreseen the hand-off's bitfield, and that kernel were not warm yet
    monkeypatch.setattr(engine, "specializations", lambda cover, settings: {"sets"})
    monkeypatch.delitem(warmup._recorded, "fila1")
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
