"""What a new user meets first: the bundled definitions, optional extras, where files go, the API, the compile notice."""

from __future__ import annotations

import importlib.util
import io
import json

import pytest

import bench
from bench.bundled import DEFS as BUNDLED
from bench.cli import main
from bench.cli.arguments import journal_dir
from bench.engines import get_engine
from bench.toolchain.cache import is_cached
from support import DEFS, ROOT


def test_the_definitions_ship_inside_the_package():
    assert BUNDLED.parent == ROOT / "bench"
    assert (BUNDLED / "expected.toml").is_file()
    assert sorted(p.name for p in DEFS.glob("*.txt")) == sorted(p.name for p in BUNDLED.glob("*.txt"))
    assert len(list(BUNDLED.glob("*.txt"))) >= 20


def test_run_with_no_path_solves_the_bundled_quick_puzzles_from_anywhere(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status = main(["run", "--engine", "dlx", "--timeout", "30", "--output-file", str(tmp_path / "run.json")])
    doc = json.loads((tmp_path / "run.json").read_text())
    keys = {p["key"] for p in doc["puzzles"]}
    assert status == 0
    assert {"pentominoes_10x6.txt", "somacube.txt", "hexiamonds_6x6.txt", "polyspheres_tetrahedron_20.txt"} <= keys
    assert "tetriscube.txt" not in keys and "pentominoes_1s_18x5.txt" not in keys  # slow = true
    assert "meteor.txt" not in keys and "hexominoes_rectangles.txt" not in keys  # quick = false
    solved = {r["puzzle"]: r["total"] for r in doc["rows"] if r["engine"] == "dlx"}
    assert solved["pentominoes_10x6.txt"] == 9356
    assert not list(tmp_path.glob("results*"))


def test_a_missing_extra_says_how_to_install_it(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyganak" else real(name, *a))
    ganak = get_engine("ganak")
    assert not ganak.available()
    assert "install the count extra" in ganak.missing() and "polyform-bench[count]" in ganak.missing()
    assert get_engine("dlx").available()
    assert main(["solve", "--engine", "ganak", str(DEFS / "dominoes_4x4.txt")]) == 2


def test_journals_go_to_the_user_cache_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert journal_dir() == tmp_path / "cache" / "polyform-bench" / "journals"


def test_the_compile_notice_names_the_wait_once(monkeypatch):
    from bench.toolchain import warmup

    stream = io.StringIO()
    monkeypatch.setattr(warmup, "_announced", False)
    assert warmup.announce(stream)
    assert not warmup.announce(stream)
    assert stream.getvalue().count("compiling the native kernels") == 1


def test_a_warm_engine_is_seen_as_compiled():
    from bench.toolchain import aot, warmup
    from bench.kernels.bitset import bitset_search

    get_engine("dlx").warm_up()
    # its library built and loaded, or (where no library can be built) its kernel in numba's cache
    assert not warmup._cold("bits")
    assert aot.built("bits") or is_cached(bitset_search)


def test_solve_api_returns_counts_and_placements():
    result = bench.solve(DEFS / "somacube.txt", engine="dlx", redundancy=True, keep_solutions=2)
    assert (result.status.value, result.covers, result.unique, result.total) == ("solved", 480, 480, 11520)
    assert len(result.solutions) == 2
    cells = sorted(c for placement in result.solutions[0] for c in placement.cells)
    assert cells == sorted((x, y, z) for x in range(3) for y in range(3) for z in range(3))
    assert "compile" in result.timings and "solve" in result.timings
    limited = bench.solve(DEFS / "pentominoes_10x6.txt", max_solutions=3)
    assert limited.status.value == "limit" and limited.covers == 3


def test_solve_api_refuses_what_it_cannot_do():
    with pytest.raises(bench.UsageError, match="unknown setting"):
        bench.solve(DEFS / "dominoes_4x4.txt", colour="red")
    with pytest.raises(bench.UsageError, match="holds 6 puzzles"):
        bench.solve(DEFS / "hexominoes_rectangles.txt")
    with pytest.raises(bench.BenchError):
        bench.solve(DEFS / "dominoes_4x4.txt", engine="nonesuch")


def test_json_can_carry_the_solutions(capsys):
    assert main(["solve", "--json", "--solutions", "-r", "#", str(DEFS / "pentominoes_20x3.txt")]) == 0
    [doc] = json.loads(capsys.readouterr().out)
    assert doc["result"]["covers"] == 2 and len(doc["solutions"]) == 2
    for solution in doc["solutions"]:
        assert solution["unique"] is True
        cells = sorted(tuple(c) for piece in solution["pieces"] for c in piece["cells"])
        assert cells == sorted((x, y, 0) for x in range(20) for y in range(3))
        assert sorted(p["piece"] for p in solution["pieces"]) == list("FILNPTUVWXYZ")
    assert main(["solve", "--json", "-u", "--solutions", str(DEFS / "dominoes_4x4.txt")]) == 0
    [doc] = json.loads(capsys.readouterr().out)
    assert doc["result"]["unique"] == 9 and len(doc["solutions"]) == 9
    assert main(["solve", "--json", str(DEFS / "dominoes_4x4.txt")]) == 0
    assert "solutions" not in json.loads(capsys.readouterr().out)[0]
    assert main(["solve", "--solutions", str(DEFS / "dominoes_4x4.txt")]) == 2
