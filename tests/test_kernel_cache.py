"""The kernels' on-disk cache follows every source they are built from (bench.toolchain.cache)."""

from __future__ import annotations

import json
import os
import re

from numba import njit
from numba.core import caching

from bench.toolchain import cache as kernel_cache, sources
from bench.kernels import canonical
from bench.kernels import bitfield, fila as fila_kernel


def _package(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_digest_covers_compiled_modules_and_what_they_import(tmp_path):
    _package(tmp_path, {
        "native/kernel.py": "from numba import njit\nfrom bench.native.helper import step\n",
        "native/helper.py": "def step(x):\n    return x + 1\n",
        "native/__init__.py": "",
        "cli.py": "import argparse\n",
    })
    assert [p.relative_to(tmp_path).as_posix() for p in sources.kernel_sources(tmp_path)] == [
        "native/helper.py", "native/kernel.py"]
    before = sources.kernel_digest(tmp_path)
    (tmp_path / "cli.py").write_text("import argparse\nimport sys\n")
    assert sources.kernel_digest(tmp_path) == before
    # a helper edited, its caller's file untouched: the kernel must not be loaded from the cache
    (tmp_path / "native/helper.py").write_text("def step(x):\n    return x + 2\n")
    assert sources.kernel_digest(tmp_path) != before


def test_the_stamp_follows_every_module_s_size_and_time(tmp_path):
    _package(tmp_path, {"a.py": "x = 1\n", "sub/b.py": "y = 2\n", "notes.txt": "not a module\n"})
    before = sources.stamp(tmp_path)
    (tmp_path / "notes.txt").write_text("edited\n")
    assert sources.stamp(tmp_path) == before
    # the same size, another time: an edit a size alone would miss
    os.utime(tmp_path / "sub/b.py", ns=(1, 1))
    assert sources.stamp(tmp_path) != before


def test_the_package_digests_are_remembered_under_the_stamp_and_computed_when_unreadable(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    sources._remembered.cache_clear()
    try:
        assert sources.code_version() == sources._code_version()
        assert sources.kernel_digest() == sources._kernel_digest(sources.ROOT)
        [entry] = (tmp_path / "polyform-bench" / "sources").iterdir()
        assert entry.name == f"{sources.stamp()}.json"
        # a later run reads what the entry says, without hashing the sources
        entry.write_text(json.dumps({"code_version": "remembered", "kernel_digest": "also"}))
        sources._remembered.cache_clear()
        assert (sources.code_version(), sources.kernel_digest()) == ("remembered", "also")
        for damaged in ("{", json.dumps({"code_version": "only one"})):
            entry.write_text(damaged)
            sources._remembered.cache_clear()
            assert sources.code_version() == sources._code_version()
        # an entry that can be neither read nor written (a folder in its place): computed, and the run goes on
        entry.unlink()
        entry.mkdir()
        sources._remembered.cache_clear()
        assert sources.kernel_digest() == sources._kernel_digest(sources.ROOT)
    finally:
        sources._remembered.cache_clear()


def test_package_kernels_are_cached_under_the_package_digest():
    found = {p.relative_to(kernel_cache.ROOT).as_posix() for p in sources.kernel_sources()}
    assert {"kernels/bitfield.py", "kernels/bitfield_overloads.py", "kernels/sparse_sets.py", "kernels/fila.py",
            "kernels/fila_lists.py", "kernels/canonical.py"} <= found
    for kernel in (fila_kernel.fila_search, canonical.classify_cover, bitfield.gather_rows):
        locator = kernel.dispatcher._cache._impl.locator
        assert isinstance(locator, kernel_cache._PackageStamp)
        assert locator.get_source_stamp()[1] == sources.kernel_digest()


def test_functions_outside_the_package_keep_numbas_locators():
    @njit(cache=True)
    def twice(x):
        return 2 * x

    locator = twice._cache._impl.locator
    assert not isinstance(locator, kernel_cache._PackageStamp)
    assert isinstance(locator, caching._CacheLocator)


def test_every_package_kernel_takes_njit_from_bench_kernels():
    # numba's own njit would make a dispatcher at import: numba imported by every run, and defined before this
    # package's locators may be installed
    direct = [p.relative_to(kernel_cache.ROOT).as_posix() for p in kernel_cache.ROOT.rglob("*.py")
              if re.search(r"^\s*(from numba import [^\n]*\bnjit\b|import numba\b)", p.read_text(), re.M)
              and p.relative_to(kernel_cache.ROOT).as_posix() != "toolchain/cache.py"]
    assert direct == []
    compiled = [p for p in sources.kernel_sources() if b"@njit" in p.read_bytes()]
    assert len(compiled) >= 10
    assert all(b"from bench.toolchain.registry import njit" in p.read_bytes()
               or b"from bench.toolchain.registry import lazy, njit" in p.read_bytes() for p in compiled)


LOAD_WITHOUT_REFRESH = r"""
import numpy as np
from numba.core import base

refreshed = []
real = base.BaseContext.refresh
base.BaseContext.refresh = lambda self: (refreshed.append(type(self).__name__), real(self))[1]

import bench
from bench.engines import get_engine

[puzzle] = bench.load(DEFS + "/pentominoes_20x3.txt")
result = get_engine("fila").solve(bench.Cover.from_puzzle(puzzle, redundancy=True))
loaded = len(refreshed)

import numba

@numba.njit
def doubled_sum(x):
    return np.sum(x) * 2

print(result.covers, result.total, loaded, doubled_sum(np.arange(4)), len(refreshed) > loaded)
"""


def test_cached_kernels_load_without_a_refresh_and_a_later_compile_still_gets_one():
    import os
    import subprocess
    import sys

    from support import DEFS

    code = LOAD_WITHOUT_REFRESH.replace("DEFS", repr(str(DEFS)), 1)
    # numba's JIT alone (no kernel library); the first child fills numba's cache, the second loads from it,
    # refreshing no context
    jit = {**os.environ, "BENCH_AOT": "0"}
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=jit)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=jit)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "8", "0", "12", "True"]


RUNTIME = r"""
import sys
from pathlib import Path

import numpy as np
from numba.core.runtime import nrtdynmod

from bench.toolchain import cache as kernel_cache

kernel_cache.runtime_directory = lambda: Path(STORE)
compiled = []
real = nrtdynmod.create_nrt_module
nrtdynmod.create_nrt_module = lambda ctx: (compiled.append(1), real(ctx))[1]

import bench
from bench.engines import get_engine

[puzzle] = bench.load(DEFS + "/pentominoes_20x3.txt")
result = get_engine("fila").solve(bench.Cover.from_puzzle(puzzle, redundancy=True))

import numba

@numba.njit
def filled(n):
    return np.full(n, 3).sum()

print(result.covers, result.total, len(compiled), filled(4))
"""


def test_the_runtime_is_compiled_once_then_read_back_and_rebuilt_when_damaged(tmp_path):
    import os
    import subprocess
    import sys

    import bench
    from bench.engines import get_engine
    from support import DEFS

    [puzzle] = bench.load(DEFS / "pentominoes_20x3.txt")
    assert get_engine("fila").solve(bench.Cover.from_puzzle(puzzle, redundancy=True)).covers == 2
    code = RUNTIME.replace("DEFS", repr(str(DEFS)), 1).replace("STORE", repr(str(tmp_path)), 1)

    def child() -> list[str]:
        # numba's JIT alone: a run on kernel libraries initializes no runtime of numba's
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "BENCH_AOT": "0"})
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    # the first process compiles numba's runtime and keeps it; the next reads it (no compile), runs the cached
    # kernels and still compiles a new function that allocates
    assert child() == ["2", "8", "1", "12"]
    [stored] = tmp_path.glob("nrt-*.bin")
    assert child() == ["2", "8", "0", "12"]
    # a damaged file is not trusted: compiled afresh and written again, whole
    intact = stored.read_bytes()
    stored.write_bytes(intact[:-1] + bytes([intact[-1] ^ 0xFF]))
    assert child() == ["2", "8", "1", "12"]
    assert stored.read_bytes() == intact


def test_saves_of_two_processes_at_once_keep_each_signature_with_its_own_code(tmp_path):
    # numba's own save reads the index, picks the first free name, and writes the index and then the data file,
    # unlocked: a second process saving in between picks the same name, and the index ends up naming one
    # signature's code for the other.  Here A pauses after reading the index while B saves.
    import threading

    stamp = ("stamp", "digest")
    a_file = caching.IndexDataCacheFile(str(tmp_path), "kernel-1", stamp)
    b_file = caching.IndexDataCacheFile(str(tmp_path), "kernel-1", stamp)
    read, b_done = threading.Event(), threading.Event()
    load_index = a_file._load_index

    def a_reads_then_waits():
        index = load_index()
        read.set()
        # B must not get through while A holds the lock: if it does, it has saved in the middle of A's save
        b_done.wait(timeout=1.0)
        return index

    a_file._load_index = a_reads_then_waits
    a = threading.Thread(target=kernel_cache.save_entry, args=(a_file, "sig-a", b"code for a"))
    a.start()
    assert read.wait(timeout=10)
    b = threading.Thread(target=lambda: (kernel_cache.save_entry(b_file, "sig-b", b"code for b"), b_done.set()))
    b.start()
    a.join(timeout=10)
    b.join(timeout=10)
    reader = caching.IndexDataCacheFile(str(tmp_path), "kernel-1", stamp)
    assert reader.load("sig-a") == b"code for a"
    assert reader.load("sig-b") == b"code for b"
    assert (tmp_path / kernel_cache.SAVE_LOCK).exists()


def test_a_saved_entry_has_its_data_before_the_index_names_it(tmp_path):
    stamp = ("stamp", "digest")
    cache_file = caching.IndexDataCacheFile(str(tmp_path), "kernel-1", stamp)
    order = []
    save_data, save_index = cache_file._save_data, cache_file._save_index
    cache_file._save_data = lambda name, data: (order.append("data"), save_data(name, data))
    cache_file._save_index = lambda overloads: (order.append("index"), save_index(overloads))
    kernel_cache.save_entry(cache_file, "sig", b"code")
    kernel_cache.save_entry(cache_file, "sig", b"code again")
    # the second save rewrites the data file the index already names, and leaves the index alone
    assert order == ["data", "index", "data"]
    assert caching.IndexDataCacheFile(str(tmp_path), "kernel-1", stamp).load("sig") == b"code again"


def test_package_kernels_are_saved_through_the_locked_save():
    assert caching.Cache.save_overload is kernel_cache._save_overload
