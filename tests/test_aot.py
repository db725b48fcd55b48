"""Ahead-of-time kernel libraries (bench.toolchain.aot): declared exactly, built once, loaded without numba."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest

import bench.kernels
import bench.models
from hypothesis import given
from hypothesis import strategies as st

from bench.toolchain import registry as kernels
from bench.toolchain import aot, warmup
from bench.toolchain.signatures import LIBRARIES
from support import ROOT

Pair = namedtuple("Pair", ["a", "b"])

DTYPES = ["int64", "uint64", "int32", "uint32", "uint8", "bool", "float64"]


def test_every_specialization_has_a_library_and_every_library_a_specialization():
    assert set(LIBRARIES) == set(warmup.SPECIALIZATIONS)
    assert all(entries for entries in LIBRARIES.values())


@pytest.mark.slow  # every engine's tiny search, each specialization: minutes of compiling (CI runs it)
def test_the_signatures_are_what_the_tiny_searches_pass():
    # the calls are recorded before they run, from a library or numba alike: a stale declaration shows here
    assert warmup.record() == LIBRARIES


def test_descriptions_are_numbas_own_types_of_the_arguments():
    import numba

    with kernels.recording() as seen:
        for run in warmup.SPECIALIZATIONS.values():
            run()
    # every kernel a library holds was called, so each of its signatures is checked
    assert {name for name, _ in seen.calls} >= {name for entries in LIBRARIES.values() for name, _ in entries}
    for _, args in seen.calls:
        for arg in args:
            assert aot.numba_type(aot.describe(arg)) == numba.typeof(arg)


MOST_PARAMETERS = 12
"""The most parameters a kernel takes: wider groups travel as named bundles (:mod:`bench.kernels.codes`)."""


def test_no_kernel_takes_more_than_a_dozen_parameters():
    # every module that defines kernels registers them on import; one not imported would escape the check
    for package in (bench.kernels, bench.models):
        for path in sorted(Path(package.__path__[0]).glob("*.py")):
            if "from bench.toolchain.registry import" in path.read_text():
                importlib.import_module(f"{package.__name__}.{path.stem}")
    registered = kernels.kernels()
    assert {"bench.kernels.sparse_sets.dlx_search", "bench.kernels.gpu.expand",
            "bench.models.filters._fit_pass"} <= set(registered)
    wide = {name: len(inspect.signature(kernel.py_func).parameters) for name, kernel in registered.items()}
    wide = {name: n for name, n in wide.items() if n > MOST_PARAMETERS}
    assert not wide, f"kernels with more than {MOST_PARAMETERS} parameters: " + ", ".join(
        f"{name} ({n})" for name, n in sorted(wide.items()))


@given(st.sampled_from(DTYPES), st.integers(1, 3), st.booleans(), st.booleans())
def test_an_array_matches_its_own_description_and_no_other(dtype, ndim, readonly, transposed):
    a = np.zeros((3,) * ndim, dtype=dtype)
    if transposed and ndim > 1:
        a = a.T
    a.flags.writeable = not readonly
    text = aot.describe(a)
    if transposed and ndim > 1:
        # the libraries take C-contiguous arrays only: numba's type says F, and no declaration may say so
        assert text.endswith("F")
        with pytest.raises(ValueError):
            aot.matcher((text,))
        return
    accepts = aot.matcher((text,))
    assert accepts((a,))
    assert accepts((np.ascontiguousarray(a),))
    assert not accepts((a.astype("int16"),))
    assert not accepts((np.zeros((3,) * (ndim + 1), dtype=dtype),))
    assert not accepts((a[::2] if ndim == 1 else a[:, ::2],))
    assert not accepts((a.tolist(),)) and not accepts(())
    writeable = aot.matcher((text.removeprefix("readonly "),))
    # a read-only array never goes where the function may write; a writeable one may go where it only reads
    assert writeable((a,)) != readonly
    assert aot.matcher(("readonly " + text.removeprefix("readonly "),))((np.zeros_like(a),))


def test_scalars_and_named_tuples_match_as_numba_types_them():
    accepts = aot.matcher(("int64", "bool", "uint64", "none", f"{__name__}.Pair(int64, float64)"))
    assert accepts((3, True, np.uint64(3), None, Pair(1, 2.0)))
    assert accepts((np.int64(3), np.bool_(False), np.uint64(0), None, Pair(np.int64(1), 2.0)))
    assert not accepts((True, True, np.uint64(3), None, Pair(1, 2.0)))      # a bool is not an int64
    assert not accepts((3, 1, np.uint64(3), None, Pair(1, 2.0)))
    assert not accepts((3, True, 3, None, Pair(1, 2.0)))                    # numba types a small int int64
    assert not accepts((3, True, np.uint64(3), 0, Pair(1, 2.0)))
    assert not accepts((3, True, np.uint64(3), None, (1, 2.0)))             # a plain tuple is another type
    assert not accepts((3, True, np.uint64(3), None, Pair(1, 2)))
    assert aot.describe(Pair(1, np.zeros(2, dtype=np.int32))) == f"{__name__}.Pair(int64, int32[:])"
    assert aot.describe((1 << 63,)) == "(uint64)"


def test_the_compiled_argument_tests_are_kept_beside_the_libraries_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setattr(aot, "directory", lambda: tmp_path)
    monkeypatch.setattr(aot, "_unsaved", False)
    source = "def accepts(args):\n    return len(args) == 2\n"
    aot._matcher_codes.cache_clear()
    try:
        code = aot._compiled(source)
        aot._save_matchers()
        aot._matcher_codes.cache_clear()
        # a later run finds it compiled, and the test it defines is the same
        assert list(aot._matcher_codes().values()) == [code]
        names: dict = {}
        exec(aot._compiled(source), names)
        assert names["accepts"]((1, 2)) and not names["accepts"]((1,))
        # a damaged file is compiled afresh
        (tmp_path / aot.MATCHERS).write_bytes(b"\x00damaged")
        aot._matcher_codes.cache_clear()
        assert aot._matcher_codes() == {} and aot._compiled(source) == code
    finally:
        aot._matcher_codes.cache_clear()


def test_the_key_follows_the_processor_and_the_sources(monkeypatch):
    aot.key.cache_clear()
    before = aot.key()
    monkeypatch.setattr(aot, "_processor", lambda: b"another machine")
    aot.key.cache_clear()
    other = aot.key()
    monkeypatch.setattr(aot, "kernel_digest", lambda: "edited")
    aot.key.cache_clear()
    edited = aot.key()
    monkeypatch.undo()
    aot.key.cache_clear()
    assert len({before, other, edited}) == 3 and aot.key() == before


PROBE = """
import json, sys
from bench.cli import main
status = main(sys.argv[1:])
native = sorted(m for m in ("numba", "llvmlite") if m in sys.modules)
print(json.dumps({"status": status, "native": native}), file=sys.stderr)
"""


def _run(*argv, env=None):
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=900, env={**os.environ, **(env or {})})
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report, proc.stdout, proc.stderr


def _counters(stdout: str) -> dict:
    keep = ("SOLUTIONS", "UNIQUE", "TOTAL", "NODES", "ATTEMPTS", "FITS", "UPDATES", "DEAD_ENDS", "NO_FITS", "FILA_",
            "PARITY_", "VOLUME_", "FIT_FILTER", "LIST_UPDATES", "AUTO_CHOICE", "AUTO_PREDICTED", "AUTO_CANDIDATE")
    return dict(line.split("=", 1) for line in stdout.splitlines()
                if "=" in line and line.startswith(keep) and "SECONDS" not in line and "_PER_SEC" not in line)


@pytest.mark.skipif(aot.buildable() is not None, reason=f"no library can be built here: {aot.buildable()}")
@pytest.mark.parametrize("argv, libraries", [
    (("-e", "dlx", "defs/pentominoes_10x6.txt"), {"bits"}),
    # each of these compiles its specializations twice, as libraries and with numba (CI runs them)
    pytest.param(("-e", "fila", "defs/pentominoes_12x5.txt"), {"sets", "fila1"}, marks=pytest.mark.slow),
    pytest.param(("-e", "fila", "-w", "1", "-p", "6", "-v", "6", "defs/hexiamonds_6x6.txt"), {"sets+constraints"},
                 marks=pytest.mark.slow),
    pytest.param(("-e", "fila", "-w", "1", "defs/pentominoes_tetrominoes_diamond_13x13.txt", "--node-limit", "300000"),
                 {"sets+constraints", "fila1"}, marks=pytest.mark.slow),
    pytest.param(("-e", "fila", "-w", "1", "-f", "17", "defs/pentominoes_1s_30x3.txt"), {"sets", "fila2"},
                 marks=pytest.mark.slow),
], ids=lambda v: " ".join(v) if isinstance(v, tuple) else "")
def test_a_library_run_imports_no_numba_and_searches_as_numba_does(argv, libraries):
    # first run (its libraries built if they were not), second run on them, then numba's JIT alone
    first, _, _ = _run("solve", "-i", "-q", *argv)
    library, out, _ = _run("solve", "-i", "-q", *argv)
    jit, jit_out, _ = _run("solve", "-i", "-q", *argv, env={"BENCH_AOT": "0"})
    assert first["status"] == library["status"] == jit["status"]
    assert library["native"] == [] and jit["native"] == ["llvmlite", "numba"]
    [ran] = [line.split("=", 1)[1] for line in out.splitlines() if line.startswith("KERNEL_LIBRARIES=")]
    assert libraries <= set(ran.split(","))
    assert "KERNEL_LIBRARIES=none (numba's JIT: BENCH_AOT=0)" in jit_out
    counters = _counters(out)
    assert int(counters["NODES"]) > 0
    assert counters == _counters(jit_out)


@pytest.mark.slow  # numba compiles FILA's kernels from nothing in a fresh cache: minutes (CI runs it)
def test_without_a_compiler_numba_compiles_and_the_counts_stand(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path), "CC": str(tmp_path / "no-such-cc"), "BENCH_NO_CACHE": "1"}
    report, out, err = _run("solve", "-q", "-e", "fila", "defs/pentominoes_20x3.txt", env=env)
    assert report["status"] == 0 and "numba" in report["native"]
    assert "2 unique, 8 total" in out + err
    assert not (tmp_path / "bench-aot").exists() or not list((tmp_path / "bench-aot").rglob("*.so"))


def test_a_failed_build_is_said_once_and_remembered(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(aot, "_loaded", set())
    monkeypatch.setattr(warmup, "_recorded", {})
    monkeypatch.setattr(warmup, "_build_failures", set())
    monkeypatch.setattr(aot, "buildable", lambda: None)
    calls = []

    def broken(spec):
        calls.append(spec)
        aot.directory().mkdir(parents=True, exist_ok=True)
        aot._failure_path(spec).write_text("RuntimeError: the compiler crashed\n")
        raise RuntimeError("RuntimeError: the compiler crashed")

    monkeypatch.setattr(aot, "build", broken)
    warmup.ensure(["bits"])
    assert calls == ["bits"]
    assert "could not build the bits kernel library (RuntimeError: the compiler crashed)" in capsys.readouterr().err
    assert aot.failed("bits") == "RuntimeError: the compiler crashed"
    monkeypatch.setattr(warmup, "_recorded", {})
    warmup.ensure(["bits"])
    assert calls == ["bits"] and capsys.readouterr().err == ""


def test_a_damaged_library_is_not_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(aot, "_loaded", set())
    aot.directory().mkdir(parents=True)
    aot._path("bits").write_bytes(b"not an extension module")
    assert aot.built("bits")
    assert not aot.load("bits")


def test_old_keys_libraries_go_and_the_shared_helpers_stay(tmp_path):
    import os

    keys = [tmp_path / f"key{k:02d}" for k in range(aot.KEPT_KEYS + 3)]
    for age, key in enumerate(reversed(keys)):
        key.mkdir()
        os.utime(key, (1_000_000 - age, 1_000_000 - age))
    helpers = tmp_path / "helpers-0123"
    helpers.mkdir()
    os.utime(helpers, (1, 1))
    current = tmp_path / "current"
    current.mkdir()
    aot._prune(current)
    # the current key, the KEPT_KEYS built last, and the helpers every key links
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["current", "helpers-0123", *(k.name for k in keys[-aot.KEPT_KEYS:])])


def test_a_failed_build_is_tried_again_a_day_later(tmp_path, monkeypatch):
    import os
    import time

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    aot.directory().mkdir(parents=True)
    marker = aot._failure_path("bits")
    marker.write_text("CompileError: no space left on device\n")
    assert aot.failed("bits") == "CompileError: no space left on device"
    os.utime(marker, (time.time() - 2 * 86400,) * 2)
    assert aot.failed("bits") is None


def test_a_build_killed_halfway_leaves_nothing_for_long(tmp_path, monkeypatch):
    import os
    import time

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(aot, "LIBRARIES", {"tiny": ()})
    folder = aot.directory()
    folder.mkdir(parents=True)
    killed, running = folder / ".build-killed", folder / ".build-running"
    for work in (killed, running):
        work.mkdir()
        (work / "bench_aot.o").write_bytes(b"half an object")
    os.utime(killed, (time.time() - 7200,) * 2)
    # a library of no function: quick to build, and built after the clean-up
    assert aot.build("tiny").is_file()
    assert not killed.exists() and running.exists()


@pytest.mark.slow  # numba compiles from nothing, uncached (CI runs it)
def test_a_cache_folder_that_cannot_be_made_is_said_in_one_line_and_numba_compiles():
    env = {"NUMBA_CACHE_DIR": "/proc/no-such-folder", "BENCH_NO_CACHE": "1"}
    report, out, err = _run("solve", "-q", "-e", "fila", "-w", "1", "defs/pentominoes_20x3.txt", env=env)
    assert report["status"] == 0 and "numba" in report["native"]
    assert "2 unique, 8 total" in err and "Traceback" not in err
    said = [line for line in err.splitlines() if "could not build" in line]
    # one line per process that tried (this one, and the children that built beside it), never one per library
    assert 1 <= len(said) <= 3 and all("cannot make the libraries' folder /proc/no-such-folder" in s for s in said)
