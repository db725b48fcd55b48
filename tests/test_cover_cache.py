"""The cover cache (bench.session.cover_cache): a hit is the cover prepare() builds, and a bad entry is never trusted."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import types
from dataclasses import dataclass, replace

import numpy as np
import pytest

import bench
from bench.session import cover_cache
from bench.cli import main
from bench.engines import get_engine
from bench.engines.fila import FilaEngine
from bench.session.prepare import Request, prepare
from support import DEFS


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(cover_cache.DISABLE, raising=False)


def _prepare(name: str = "pentominoes_20x3.txt", request: Request = Request(tuned=False), engine: str | None = "fila"):
    [puzzle] = bench.load(DEFS / name)
    return prepare(puzzle, request, get_engine(engine) if engine else None, cache=True)


def _entries() -> list:
    return sorted(cover_cache.directory().glob("*.npz"))


def _same(a, b) -> None:
    assert a.cover.hash == b.cover.hash
    assert a.cover.item_names == b.cover.item_names
    assert np.array_equal(a.cover.opt_image, b.cover.opt_image)
    assert np.array_equal(a.cover.symmetry.opt_gmask, b.cover.symmetry.opt_gmask)
    assert (a.cover.redundancy is None) == (b.cover.redundancy is None)
    if a.cover.redundancy is not None:
        assert a.cover.redundancy.piece == b.cover.redundancy.piece
        assert np.array_equal(a.cover.redundancy.kept, b.cover.redundancy.kept)
    assert a.request == b.request
    assert a.settings == b.settings
    assert a.filters == b.filters
    assert a.reasons == b.reasons


@pytest.mark.parametrize("name, request_", [
    ("pentominoes_10x6.txt", Request(tuned=False)),
    ("tetriscube.txt", Request(tuned=False)),
    ("pentominoes_10x6.txt", Request(redundancy="X", volume=True, parity=True, fit_rounds=0)),
    ("somacube.txt", Request(redundancy=True, redundancy_method="orbit")),
])
def test_a_hit_is_the_cover_prepare_builds(name, request_):
    fresh = _prepare(name, request_)
    assert fresh.cache == "stored"
    hit = _prepare(name, request_)
    assert hit.cache == "hit"
    _same(fresh, hit)
    [puzzle] = bench.load(DEFS / name)
    _same(prepare(puzzle, request_, get_engine("fila")), hit)


def test_a_static_proof_comes_back_with_the_cover():
    [puzzle, *_] = bench.load(DEFS / "hexominoes_rectangles.txt")
    fresh = prepare(puzzle, Request(), cache=True)
    [puzzle, *_] = bench.load(DEFS / "hexominoes_rectangles.txt")
    hit = prepare(puzzle, Request(), cache=True)
    assert (fresh.cache, hit.cache) == ("stored", "hit")
    assert hit.reasons == fresh.reasons and "parity" in hit.reasons[0]
    assert "images" not in vars(puzzle)


def test_every_option_that_changes_the_cover_changes_the_key():
    first = _prepare("pentominoes_10x6.txt", Request(redundancy="X"))
    other = _prepare("pentominoes_10x6.txt", Request(redundancy="F"))
    assert (first.cache, other.cache) == ("stored", "stored")
    assert first.cover.hash != other.cover.hash
    [puzzle] = bench.load(DEFS / "pentominoes_10x6.txt")
    engine = get_engine("fila")
    keys = {cover_cache.cache_key(puzzle, r, e) for r, e in (
        (Request(), engine), (Request(volume=True), engine), (Request(redundancy=True), engine),
        (Request(tuned=False), engine), (Request(), get_engine("fila:f9")), (Request(), None))}
    assert len(keys) == 6
    # a flat puzzle counts up to reflections anyway; a solid one's convention is part of its encoding
    [flat_mirrored] = bench.load(DEFS / "pentominoes_10x6.txt", mirror=True)
    assert cover_cache.cache_key(flat_mirrored, Request(), engine) == cover_cache.cache_key(puzzle, Request(), engine)
    [soma], [soma_mirrored] = bench.load(DEFS / "somacube.txt"), bench.load(DEFS / "somacube.txt", mirror=True)
    assert cover_cache.cache_key(soma, Request(), engine) != cover_cache.cache_key(soma_mirrored, Request(), engine)


def _solve(prepared):
    engine = get_engine("fila")
    return engine.solve(prepared.cover, prepared.settings)


def _rewrite(path, change) -> None:
    with np.load(path, allow_pickle=False) as npz:
        arrays = {name: npz[name].copy() for name in npz.files}
    change(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def _flip_an_item(arrays):
    arrays["opt_items"][3] ^= 1


def _other_key(arrays):
    meta = json.loads(bytes(arrays["meta"]).decode())
    meta["key"] = "0" * 64
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)


CORRUPTIONS = {
    "truncated": lambda path: path.write_bytes(path.read_bytes()[:200]),
    "garbage": lambda path: path.write_bytes(os.urandom(4096)),
    "empty": lambda path: path.write_bytes(b""),
    "an item changed": lambda path: _rewrite(path, _flip_an_item),
    "another key inside": lambda path: _rewrite(path, _other_key),
    "an array missing": lambda path: _rewrite(path, lambda arrays: arrays.pop("opt_map")),
    "a pickle": lambda path: _rewrite(path, lambda arrays: arrays.update(opt_ptr=np.array([object()], dtype=object))),
}


@pytest.mark.parametrize("damage", CORRUPTIONS, ids=str)
def test_a_damaged_entry_is_rebuilt_and_the_counts_stay_exact(damage):
    fresh = _prepare("pentominoes_10x6.txt")
    expected = _solve(fresh)
    assert (expected.covers, expected.unique, expected.total) == (2339, 2339, 9356)
    [entry] = _entries()
    CORRUPTIONS[damage](entry)
    again = _prepare("pentominoes_10x6.txt")
    assert again.cache == "stored"
    _same(fresh, again)
    result = _solve(again)
    assert (result.covers, result.unique, result.total) == (2339, 2339, 9356)
    assert _prepare("pentominoes_10x6.txt").cache == "hit"


def test_a_foreign_entry_under_the_right_name_is_not_trusted():
    _prepare("pentominoes_20x3.txt")
    [other] = _entries()
    fresh = _prepare("pentominoes_12x5.txt")
    entries = _entries()
    mine = next(p for p in entries if p != other)
    shutil.copyfile(other, mine)
    again = _prepare("pentominoes_12x5.txt")
    assert again.cache == "stored"
    _same(fresh, again)


def test_the_cache_can_be_turned_off(monkeypatch, capsys):
    monkeypatch.setenv(cover_cache.DISABLE, "1")
    assert _prepare().cache == "off"
    monkeypatch.delenv(cover_cache.DISABLE)
    assert main(["solve", "-q", "-i", "--no-cache", "-e", "fila", str(DEFS / "pentominoes_20x3.txt")]) == 0
    assert "COVER_CACHE=off" in capsys.readouterr().out
    assert not cover_cache.directory().exists() or _entries() == []


def test_the_command_line_reads_what_it_stored(capsys):
    argv = ["solve", "-q", "-i", "-e", "fila", str(DEFS / "pentominoes_20x3.txt")]
    outputs = []
    for _ in range(2):
        assert main(argv) == 0
        outputs.append(capsys.readouterr())
    assert "COVER_CACHE=stored" in outputs[0].out and "COVER_CACHE=hit" in outputs[1].out
    # the X constrained: its symmetric images make 4 covers of the 2 unique solutions
    assert [o.err.split(" in ")[0] for o in outputs] == [f"{DEFS / 'pentominoes_20x3.txt'}: 4 covers, 2 unique, 8 total"] * 2
    counters = [[line for line in o.out.splitlines() if line.startswith(("ATTEMPTS", "FITS", "NODES", "OPTIONS"))]
                for o in outputs]
    assert counters[0] and counters[0] == counters[1]
    # the choice read back reports what this run spent on it: no sampling, no compiling
    sampled = [dict(line.split("=", 1) for line in o.out.splitlines() if line.startswith("AUTO_")) for o in outputs]
    assert float(sampled[0]["AUTO_SECONDS"]) > 0 and sampled[0]["AUTO_CHOICE"] == sampled[1]["AUTO_CHOICE"] == "X"
    assert float(sampled[1]["AUTO_SECONDS"]) == float(sampled[1]["AUTO_COMPILE_SECONDS"]) == 0.0


def test_an_unwritable_cache_costs_the_entry_not_the_command(monkeypatch, tmp_path):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    prepared = _prepare()
    assert prepared.cache == "unwritable"
    assert (_solve(prepared).unique, _solve(prepared).total) == (2, 8)


def test_eviction_keeps_the_most_recently_used_entries(tmp_path):
    for k in range(5):
        path = tmp_path / f"{k}.npz"
        path.write_bytes(b"x" * 1000)
        os.utime(path, (k, k))
    cover_cache.evict(tmp_path, limit=2500)
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == ["3.npz", "4.npz"]


def test_an_engine_choice_that_round_trips_through_json_is_kept(monkeypatch):
    module = types.ModuleType("bench.fake_choice")

    @dataclass(frozen=True)
    class Choice:
        piece: str

        def to_json(self):
            return {"piece": self.piece}

        @classmethod
        def from_json(cls, data):
            return cls(data["piece"])

    Choice.__module__, Choice.__qualname__ = module.__name__, "Choice"
    module.Choice = Choice
    monkeypatch.setitem(sys.modules, module.__name__, module)
    assert cover_cache._restored(json.loads(json.dumps(cover_cache._stored(Choice("X"))))) == Choice("X")
    with pytest.raises(TypeError):
        cover_cache._stored(object())
    with pytest.raises(ValueError):
        cover_cache._restored({"object": "os:system", "json": "echo"})


class _PrefixEngine(FilaEngine):
    """Configures what an entry cannot keep (a tuple in the settings)."""

    def configure(self, puzzle, request):
        return replace(request, settings=replace(request.settings, prefix=((0, ()),)))


def test_a_configuration_an_entry_cannot_keep_is_encoded_every_time():
    [puzzle] = bench.load(DEFS / "pentominoes_20x3.txt")
    for _ in range(2):
        prepared = prepare(puzzle, Request(), _PrefixEngine(), cache=True)
        assert prepared.cache == "uncacheable" and prepared.settings.prefix == ((0, ()),)
    assert _entries() == []
