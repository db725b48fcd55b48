"""Numba's on-disk cache of this package's kernels, invalidated when any source they are built from changes.

numba keys a cached function on the contents of its own file only.  A
kernel compiled against an older version of a helper in another module (the
bitfield vocabulary in :mod:`bench.kernels.bitfield`, the canonical-cover check in
:mod:`bench.kernels.canonical`, a constant from :mod:`bench.kernels.codes`)
would be loaded after the helper changed: after a ``git pull`` in an
editable install, a kernel could run old code and count wrongly.  So every
function of this package is cached under a key that also covers the
contents of every module defining compiled code and of the package modules
those import.

Importing this module installs the locators; :func:`bench.toolchain.registry.materialize`
imports it before it makes the first dispatcher (through
:data:`numba_njit`), so the locators are in place before any kernel is
compiled or loaded, and only a process that JIT-compiles or loads a kernel
through numba imports numba.

**Loading without a refresh.**  Before it loads any cached function numba
refreshes its whole target context: it imports and registers the typing
and lowering of everything it can compile, 0.03 s of every run that
loads a kernel, which nothing loaded needs.  Machine code read from the
cache calls numba's C helpers, installed when the context is made, and its
runtime (NRT), which :func:`_load_overload` initializes, as the refresh did
first (numba issue 2198: a cached function that allocates needs it).  A
compilation refreshes the context itself, so a kernel compiled later in
the same process sees every registry.  Functions outside this package load
as numba loads them.

**Environments without imports.**  A cached library holds an environment
per function numba compiled into it, its helpers included (``np.empty``,
``np.sort``, ``np.random.randint``), each naming the module that defines it,
and numba imports that module to rebuild it: ``numba.np.arrayobj`` and
``numba.np.random`` with what they import, 30 to 55 ms of every FILA run
on a slow machine.  :func:`_environment` rebuilds those of numba modules
not imported yet from their name and constants alone, which is all
nopython code reads of them.

**Saves that processes compiling at once cannot mix up.**  numba saves
a compiled function by reading its cache index, picking a data file name
the index does not use, writing the index and then the data file, with no
lock.  Two processes compiling two specializations of one kernel at once
(two ``bench`` commands on a new install, split workers meeting the same
unforeseen specialization, the parallel warm-up of :mod:`bench.toolchain.warmup`)
could both pick ``.1``: the index would then name, for one signature, the
other's machine code, and a later run would call it with the wrong types.
A reader could also meet the index before the data file it names.
:func:`_save_overload` saves this package's kernels under an exclusive
lock on the cache folder, reading the index inside it, and writes the data
file before the index names it.

**The runtime from disk.**  numba compiles its runtime's own functions
(reference counts, memory info) from LLVM IR in every process, 17 ms
of every run; :func:`initialize_runtime` keeps their machine code beside
the kernels the first time and loads it after (2.5 ms), under a key of
numba's and llvmlite's versions, the Python version, numba's source of
those functions and the target machine (triple, CPU, features), with a
checksum: a file that does not check out is compiled afresh.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import sys
from pathlib import Path

import llvmlite
import numba
from numba import njit as numba_njit
from numba.core import caching, config, environment
from numba.core.compiler_lock import global_compiler_lock
from numba.core.runtime import nrtdynmod, rtsys

from bench.about import DISTRIBUTION
from bench.toolchain.sources import ROOT, kernel_digest
from bench.system.files import exclusive_lock
import platformdirs
from bench.errors import BenchError
from bench.system.files import write_atomic

__all__ = ["initialize_runtime", "install", "is_cached", "numba_njit", "runtime_directory", "save_entry"]

class _PackageStamp:
    """A locator of numba's own kind, for this package's files only, whose stamp adds :func:`kernel_digest`."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(ROOT):
            return None
        return super().from_function(py_func, py_file)

    def get_source_stamp(self):
        return super().get_source_stamp(), kernel_digest()


class UserProvidedLocator(_PackageStamp, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR``, with the package digest in the stamp."""


class InTreeLocator(_PackageStamp, caching.InTreeCacheLocator):
    """``__pycache__`` beside the sources, with the package digest in the stamp."""


class UserWideLocator(_PackageStamp, caching.UserWideCacheLocator):
    """The user's cache directory (read-only installs), with the package digest in the stamp."""


_numba_load_overload = getattr(caching.Cache, "load_overload", None)
# what _load_overload calls of numba's: checked once, so that a numba whose cache is built otherwise loads as it does
_LOADS_WITHOUT_REFRESH = _numba_load_overload is not None and all(
    hasattr(caching.Cache, name) for name in ("_load_overload", "_guard_against_spurious_io_errors")) and \
    isinstance(getattr(caching.CacheImpl, "locator", None), property)


# what _environment calls of numba's, checked once: a numba built otherwise rebuilds its environments as it does
_numba_rebuild_env = getattr(environment, "_rebuild_env", None) if hasattr(environment, "lookup_environment") and \
    hasattr(environment.Environment, "_memo") else None


def _load_overload(self, sig, target_context):
    """numba's ``Cache.load_overload``; for this package's kernels, with the runtime initialized instead of a refresh.

    Their environments are rebuilt without importing the numba modules
    that define the helpers numba compiled into them (:func:`_environment`).
    """
    if not isinstance(self._impl.locator, _PackageStamp):
        return _numba_load_overload(self, sig, target_context)
    initialize_runtime(target_context)
    if _numba_rebuild_env is not None:
        environment._rebuild_env = _environment
    try:
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
    finally:
        if _numba_rebuild_env is not None:
            environment._rebuild_env = _numba_rebuild_env


_numba_save_overload = getattr(caching.Cache, "save_overload", None)
# what _save_overload calls of numba's, checked once: a numba built otherwise saves as it does
_SAVES_LOCKED = _numba_save_overload is not None and all(
    hasattr(caching.Cache, name) for name in ("_index_key", "_guard_against_spurious_io_errors")) and all(
    hasattr(caching.IndexDataCacheFile, name) for name in ("_load_index", "_save_index", "_save_data", "_data_name"))
SAVE_LOCK = ".bench-save.lock"
"""The file in a cache folder that this package's saves lock (see the module docstring)."""


def _save_overload(self, sig, data):
    """numba's ``Cache.save_overload``; for this package's kernels, through :func:`save_entry`."""
    if not isinstance(self._impl.locator, _PackageStamp):
        return _numba_save_overload(self, sig, data)
    with self._guard_against_spurious_io_errors():
        if not self._enabled or not self._impl.check_cachable(data):
            return
        self._impl.locator.ensure_cache_path()
        key = self._index_key(sig, data.codegen)
        save_entry(self._cache_file, key, self._impl.reduce(data))


def save_entry(cache_file, key, data) -> None:
    """Store ``data`` under ``key`` in numba's ``IndexDataCacheFile`` ``cache_file``, safely beside other processes.

    Under the folder's lock the index is read afresh, so an entry another
    process saved meanwhile keeps its name and file; the data file is
    written before the index names it, so a reader never meets an entry
    without its data.
    """
    # a folder we cannot create the lock in: the save itself says why, or numba's guard takes it
    with exclusive_lock(os.path.join(cache_file._cache_path, SAVE_LOCK)):
        overloads = cache_file._load_index()
        name = overloads.get(key)
        if name is None:
            taken = set(overloads.values())
            name = next(n for n in map(cache_file._data_name, itertools.count(1)) if n not in taken)
        cache_file._save_data(name, data)
        if overloads.get(key) != name:
            overloads[key] = name
            cache_file._save_index(overloads)


def _environment(modname, consts, env_name):
    """numba's ``_rebuild_env`` (what a cached library's pickle calls per compiled function), lazily for numba's own.

    A kernel that allocates or draws random numbers carries, for each
    helper numba compiled into it (``np.empty``, ``np.sort``,
    ``np.random.randint``), an environment naming the helper's module, and
    numba imports that module to rebuild it: ``numba.np.arrayobj`` with
    its string, hashing and sorting modules, ``numba.np.random``, 30 to 55
    ms of every FILA run on a slow machine, for nothing: an environment's
    globals are read only by object-mode code, and nopython code reads its
    constants, which are restored here as numba restores them.  So a numba
    module not imported yet gets an environment of its name alone; the
    package's own modules, and any module already imported, are rebuilt as
    numba does.
    """
    env = environment.lookup_environment(env_name)
    if env is not None:
        return env
    if not modname or not modname.startswith("numba.") or modname in sys.modules:
        return _numba_rebuild_env(modname, consts, env_name)
    env = environment.Environment({"__name__": modname})
    env.consts[:] = consts
    env.env_name = env_name
    environment.Environment._memo[env_name] = env
    return env


# what initialize_runtime does of numba's runtime set-up, checked once: a numba built otherwise initializes as it does
_CACHES_RUNTIME = hasattr(rtsys, "_init") and hasattr(nrtdynmod, "create_nrt_module")
_RUNTIME_MAGIC = b"bench-nrt-1\n"


def runtime_directory() -> Path:
    """Where the runtime's machine code is kept: ``NUMBA_CACHE_DIR`` when set, else the user's cache directory."""
    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / "bench-runtime"

    return platformdirs.user_cache_path(DISTRIBUTION) / "numba-runtime"


def _runtime_key(target_context) -> str:
    digest = hashlib.sha256()
    for part in (numba.__version__, llvmlite.__version__, sys.version, repr(target_context.codegen().magic_tuple()),
                 Path(nrtdynmod.__file__).read_bytes()):
        digest.update(part if isinstance(part, bytes) else part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def _read_runtime(path: Path):
    """The serialized runtime library stored at ``path``, or None when it is missing or does not check out."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    head, sep, payload = raw[len(_RUNTIME_MAGIC):].partition(b"\n")
    try:
        checksum, name, n_object = head.decode().split(" ")
        n_object = int(n_object)
    except ValueError:
        return None
    if not raw.startswith(_RUNTIME_MAGIC) or not sep or hashlib.sha256(payload).hexdigest() != checksum:
        return None
    return name, "object", (payload[:n_object], payload[n_object:])


def _write_runtime(path: Path, state) -> None:
    """Store the serialized runtime library ``state``; a cache that cannot be written is left unwritten."""
    name, _, (object_code, bitcode) = state
    payload = object_code + bitcode
    head = f"{hashlib.sha256(payload).hexdigest()} {name} {len(object_code)}\n".encode()
    try:
        write_atomic(path, _RUNTIME_MAGIC + head + payload, "numba runtime cache")
    except BenchError:
        pass


def initialize_runtime(target_context) -> None:
    """numba's ``rtsys.initialize``, its compiled functions read from :func:`runtime_directory` when stored there.

    The first process compiles them as numba does, with their object code
    kept, and stores them; every later one loads them (see the module
    docstring).
    """
    if rtsys._init:
        return
    if not _CACHES_RUNTIME:
        rtsys.initialize(target_context)
        return
    # lazy: numba loads only when a kernel is compiled (a cached run never imports it)
    from numba.core.runtime import _nrt_python as _nrt
    from llvmlite import binding as ll

    with global_compiler_lock:
        if rtsys._init:
            return
        if config.NRT_STATS:
            _nrt.memsys_enable_stats()
        for py_name, address in _nrt.c_helpers.items():
            ll.add_symbol(py_name if py_name.startswith("_") else "NRT_" + py_name, address)
        codegen = target_context.codegen()
        path = runtime_directory() / f"nrt-{_runtime_key(target_context)}.bin"
        state = _read_runtime(path)
        library = None
        if state is not None:
            try:
                library = codegen.unserialize_library(state)
            except Exception:
                # numba refused what it was handed: compile as numba does
                library = None
        if library is None:
            ir_module, library = nrtdynmod.create_nrt_module(target_context)
            library.enable_object_caching()
            library.add_ir_module(ir_module)
            library.finalize()
            _write_runtime(path, library.serialize_using_object_code())
        rtsys._library = library
        rtsys._init = True


def install() -> None:
    """Put the package's locators ahead of numba's; load their kernels without a refresh, save them locked (idempotent)."""
    ours = [UserProvidedLocator, InTreeLocator, UserWideLocator]
    rest = [cls for cls in caching.CacheImpl._locator_classes if cls not in ours]
    caching.CacheImpl._locator_classes = ours + rest
    if _LOADS_WITHOUT_REFRESH:
        caching.Cache.load_overload = _load_overload
    if _SAVES_LOCKED:
        caching.Cache.save_overload = _save_overload


# on import: every compiled function of the package is defined with the njit above, after this
install()


def is_cached(kernel) -> bool:
    """True when numba's cache holds a compiled version of ``kernel`` (or a dispatcher) built from today's sources."""
    cache = getattr(getattr(kernel, "dispatcher", kernel), "_cache", None)
    try:
        return bool(cache._cache_file._load_index())
    except (AttributeError, OSError, EOFError, ValueError):
        return False
