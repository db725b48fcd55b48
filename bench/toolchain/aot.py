"""Ahead-of-time kernel libraries: a run whose kernels come from them imports no numba and compiles nothing.

numba's JIT cache spares a run the compiling, not the start: importing
numba (0.17 s on a fast machine, 0.45 s on a slow one) and loading the
cached machine code through it (0.1 s) come before every search, and both
runs of a two-core comparison pay them.  So the kernels a specialization of
:mod:`bench.toolchain.warmup` runs are also built, with numba's ``pycc``, into a
CPython extension module of their own (``bench_aot_fila1`` and so on), kept in
the kernel cache; a run imports that module (under a millisecond) and its
kernels (:class:`bench.toolchain.registry.Kernel`) call its functions.

**Signatures.**  An extension module has one fixed signature per function
and does not check what it is given, so each library's functions are
declared in :mod:`bench.toolchain.signatures`, as the text :func:`describe`
gives for the arguments the specialization's tiny search passes (checked
against numba's own typing by the tests), and a kernel calls a library
function only with arguments that match its declaration exactly
(:func:`matcher`); anything else goes to numba's dispatcher, which compiles
it as before.

**Key.**  A library is built for the package's kernel sources (the kernel
cache's digest), this module and the signatures, the versions of numba,
llvmlite, numpy and Python, and this machine's processor (name and feature
flags: the code is compiled for the host, as numba's JIT does); all of it
is read without importing numba.

**Building.**  The first run that needs a specialization builds it (the
compile notice says so), a forked child building another one meanwhile
where there are two cores, as :mod:`bench.toolchain.warmup` shares out cold
work.  The build compiles the same numba IR as the JIT (so the searches and
every counter are the same), for the host's processor and features, plus
numba's C helpers; it needs a C compiler and Python's headers.  Where it
cannot build (no compiler, no ``pycc``, ``BENCH_AOT=0``, a build that
failed before, recorded beside the libraries with its reason), kernels are
JIT-compiled as before.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import marshal
import os
import re
import sys
import sysconfig
import time
import warnings
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from bench.toolchain import registry as _kernels
from bench.errors import BenchError
from bench.system.files import exclusive_lock, write_atomic
from bench.toolchain.signatures import LIBRARIES
import platform
from bench.toolchain.sources import kernel_digest
import platformdirs
from bench.about import DISTRIBUTION
import shutil
import tempfile

__all__ = ["LIBRARIES", "build", "buildable", "built", "candidates", "describe", "directory", "failed", "load",
           "loaded", "matcher", "module_name", "numba_type", "obtainable", "prepare", "record"]

_loaded: set[str] = set()
_modules: dict[str, object] = {}
"""Specialization -> its library's module, once imported (all are named :data:`EXTENSION`, none in sys.modules)."""
_SCALARS = {"int64", "uint64", "int32", "uint32", "int8", "uint8", "bool", "float64", "none"}


# -- describing arguments ----------------------------------------------------------------------


def describe(value) -> str:
    """The type numba gives ``value`` as an argument, as text (``int32[:]``, ``readonly uint64[:, :]``, ``int64``).

    Arrays: dtype, dimensions, ``readonly`` when not writeable, ``F``/``A``
    after the brackets when not C-contiguous and ``unaligned`` when so;
    named tuples: the class's qualified name and their fields' types;
    Python ``int`` is ``int64`` (``uint64`` beyond it), ``bool`` ``bool``,
    ``float`` ``float64``, ``None`` ``none``.
    """
    kind = type(value)
    if kind is np.ndarray:
        flags = value.flags
        layout = "" if flags.c_contiguous else ("F" if flags.f_contiguous else "A")
        head = ("readonly " if not flags.writeable else "") + ("unaligned " if not flags.aligned else "")
        return f"{head}{value.dtype.name}[{', '.join(':' * value.ndim)}]{layout}"
    if kind is bool or kind is np.bool_:
        return "bool"
    if kind is int:
        return "int64" if -(1 << 63) <= value < (1 << 63) else "uint64"
    if kind is float:
        return "float64"
    if value is None:
        return "none"
    if isinstance(value, np.generic):
        return value.dtype.name
    if isinstance(value, tuple):
        fields = ", ".join(describe(v) for v in value)
        if hasattr(kind, "_fields"):
            return f"{kind.__module__}.{kind.__qualname__}({fields})"
        return f"({fields})"
    raise TypeError(f"no description of {kind.__name__} arguments")


def _split(text: str) -> list[str]:
    """Top-level comma-separated parts of ``text``."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


_ARRAY = re.compile(r"^(readonly )?(unaligned )?(\w+)\[([:, ]*)\]([FA]?)$")
_TUPLE = re.compile(r"^([\w.]*)\((.*)\)$", re.S)


def _parse(text: str):
    """A description as a tree: ``("scalar", name)``, ``("array", dtype, ndim, layout, readonly, aligned)`` or
    ``("tuple", class or None, [fields])``."""
    text = text.strip()
    if text in _SCALARS:
        return ("scalar", text)
    array = _ARRAY.match(text)
    if array:
        readonly, unaligned, dtype, dims, layout = array.groups()
        return ("array", np.dtype(dtype), dims.count(":"), layout or "C", bool(readonly), not unaligned)
    tup = _TUPLE.match(text)
    if tup:
        name, inner = tup.groups()
        cls = None
        if name:
            module, _, qualname = name.rpartition(".")
            cls = getattr(importlib.import_module(module), qualname)
        return ("tuple", cls, [_parse(part) for part in _split(inner)])
    raise ValueError(f"not a description of an argument: {text!r}")


_INT64 = "(type({v}) is int and -9223372036854775808 <= {v} <= 9223372036854775807 or type({v}) is _int64)"
_SCALAR_TESTS = {
    "int64": _INT64,
    "uint64": "(type({v}) is _uint64 or type({v}) is int and 9223372036854775808 <= {v} <= 18446744073709551615)",
    "bool": "(type({v}) is bool or type({v}) is _bool)",
    "float64": "(type({v}) is float or type({v}) is _float64)",
    "none": "{v} is None",
}


def _tests(node, v: str, names: dict, lines: list[str], indent: str) -> None:
    """Append the statements that return False unless the value in variable ``v`` matches ``node``."""
    def name_of(value) -> str:
        key = f"_c{len(names)}"
        names[key] = value
        return key

    if node[0] == "scalar":
        test = _SCALAR_TESTS.get(node[1])
        if test is None:
            test = f"type({{v}}) is {name_of(np.dtype(node[1]).type)}"
        lines.append(f"{indent}if not {test.format(v=v)}: return False")
        return
    if node[0] == "array":
        _, dtype, ndim, layout, readonly, aligned = node
        if layout != "C" or not aligned:
            raise ValueError("libraries take aligned C-contiguous arrays only")
        d = name_of(dtype)
        # carray: C-contiguous, aligned and writeable; a writeable array where a read-only one is declared is
        # fine (the function only reads it), never the other way round
        flags = f"(_f := {v}.flags).c_contiguous and _f.aligned" if readonly else f"{v}.flags.carray"
        lines.append(f"{indent}if not (type({v}) is _ndarray and {v}.ndim == {ndim} and "
                     f"({v}.dtype is {d} or {v}.dtype == {d}) and {flags}): return False")
        return
    _, cls, fields = node
    kind = name_of(cls if cls is not None else tuple)
    lines.append(f"{indent}if type({v}) is not {kind} or len({v}) != {len(fields)}: return False")
    parts = [f"{v}_{i}" for i in range(len(fields))]
    lines.append(f"{indent}{', '.join(parts)}{',' if len(parts) == 1 else ''} = {v}")
    for field, part in zip(fields, parts):
        _tests(field, part, names, lines, indent)


@lru_cache(maxsize=None)
def matcher(descriptions: tuple[str, ...]) -> Callable[[tuple], bool]:
    """A test of a call's arguments: True when each matches its description exactly (what a library function takes).

    Generated as one flat function, since it runs before every call of a
    library function: 5 us for FILA's 49 arguments, where a loop of
    closures took 13 us, a tenth of a search of a few milliseconds.
    """
    names = {"_ndarray": np.ndarray, "_int64": np.int64, "_uint64": np.uint64, "_bool": np.bool_,
             "_float64": np.float64}
    args = [f"a{i}" for i in range(len(descriptions))]
    lines = ["def accepts(args):", f"    if len(args) != {len(args)}: return False"]
    if args:
        lines.append(f"    {', '.join(args)}{',' if len(args) == 1 else ''} = args")
    for description, v in zip(descriptions, args):
        _tests(_parse(description), v, names, lines, "    ")
    lines.append("    return True")
    exec(_compiled("\n".join(lines)), names)
    return names["accepts"]


MATCHERS = "matchers.marshal"
"""The file beside a key's libraries that keeps the compiled tests of their arguments (:func:`_compiled`)."""

_unsaved = False


@lru_cache(maxsize=None)
def _matcher_codes() -> dict:
    """Source digest -> compiled code of the tests :func:`matcher` generates, as kept in :data:`MATCHERS`."""
    try:
        table = marshal.loads((directory() / MATCHERS).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return table if isinstance(table, dict) else {}


def _compiled(source: str):
    """``source`` compiled, or read back as compiled by an earlier run: compiling a run's dozen tests (FILA's of 49
    arguments) cost 4 ms of every run's start-up, as Python's own bytecode cache spares it its modules'."""
    global _unsaved
    digest = hashlib.sha256(source.encode()).hexdigest()
    table = _matcher_codes()
    code = table.get(digest)
    if code is None:
        code = table[digest] = compile(source, "<bench.toolchain.aot matcher>", "exec")
        _unsaved = True
    return code


def _save_matchers() -> None:
    """Keep the tests compiled since the file was read (in the key's directory: the marshal format is the
    interpreter's, and the key names it)."""
    global _unsaved
    if not _unsaved:
        return
    try:
        write_atomic(directory() / MATCHERS, marshal.dumps(_matcher_codes()), "compiled argument tests")
    except BenchError:
        # a cache that cannot be written (write_atomic says why as a UsageError): compiled again next run
        return
    _unsaved = False


def numba_type(description: str):
    """numba's type for a description (imports numba: for building and for the tests)."""
    # lazy: numba loads only when a kernel is compiled (a cached run never imports it)
    from numba.core import types
    from numba.np.numpy_support import from_dtype

    def convert(node):
        if node[0] == "scalar":
            return types.none if node[1] == "none" else getattr(types, "boolean" if node[1] == "bool" else node[1])
        if node[0] == "array":
            _, dtype, ndim, layout, readonly, aligned = node
            return types.Array(from_dtype(dtype), ndim, layout, readonly=readonly, aligned=aligned)
        _, cls, fields = node
        return types.BaseTuple.from_types([convert(f) for f in fields], cls if cls is not None else tuple)
    return convert(_parse(description))


# -- where libraries live ----------------------------------------------------------------------


EXTENSION = "bench_aot"
"""The name every library is built and imported under (``PyInit_bench_aot``): numba's C helpers, which pycc
compiles into each module under its name, are then compiled once and linked into all (:func:`_helpers`)."""


def module_name(spec: str) -> str:
    """The file name (without suffix) of a specialization's library: ``bench_aot_`` and the name as an identifier."""
    return f"{EXTENSION}_" + re.sub(r"\W", "_", spec)


def _export_name(kernel: str, index: int) -> str:
    return f"{kernel.rpartition('.')[2]}__{index}"


def _file_bytes(package: str, relative: str) -> bytes:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return b"missing " + package.encode()
    try:
        return spec.origin.encode() + b"\0" + (Path(spec.origin).parent / relative).read_bytes()
    except OSError:
        return spec.origin.encode()


def _processor() -> bytes:
    """This machine's processor as far as compiled code cares: its model and feature flags."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return f"{platform.machine()} {platform.processor()}".encode()
    first = text.split("\n\n", 1)[0]
    keep = [line for line in first.splitlines() if line.split(":")[0].strip() in ("vendor_id", "cpu family", "model",
                                                                                   "model name", "flags", "Features",
                                                                                   "CPU implementer", "CPU part")]
    return ("\n".join(keep) + "\n" + sys.platform + " " + os.uname().machine).encode()


@lru_cache(maxsize=None)
def key() -> str:
    """The libraries' key (see the module docstring): what the code in them was built from and for."""
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for part in (kernel_digest(), (here / "aot.py").read_bytes(), (here / "signatures.py").read_bytes(),
                 _file_bytes("numba", "_version.py"), _file_bytes("llvmlite", "_version.py"),
                 _file_bytes("numpy", "version.py"), sys.version.encode(), _processor()):
        digest.update(part if isinstance(part, bytes) else part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:24]


def directory() -> Path:
    """Where this key's libraries are, as numba looks for its cache: ``NUMBA_CACHE_DIR/bench-aot/KEY`` when it is
    set, else ``__pycache__/bench-aot/KEY`` beside this module when that can be written, else the user's cache."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        return Path(root) / "bench-aot" / key()
    in_tree = Path(__file__).resolve().parent / "__pycache__"
    if os.access(in_tree if in_tree.is_dir() else in_tree.parent, os.W_OK):
        return in_tree / "bench-aot" / key()


    return platformdirs.user_cache_path(DISTRIBUTION) / "aot" / key()


def _path(spec: str) -> Path:
    return directory() / (module_name(spec) + sysconfig.get_config_var("EXT_SUFFIX"))


def built(spec: str) -> bool:
    """True when the library of ``spec`` is on disk for this key."""
    return _path(spec).is_file()


def _failure_path(spec: str) -> Path:
    return directory() / (module_name(spec) + ".failed")


def enabled() -> bool:
    """False when ``BENCH_AOT=0`` asks for numba's JIT alone."""
    return os.environ.get("BENCH_AOT", "1") != "0"


# -- loading -----------------------------------------------------------------------------------


def load(spec: str) -> bool:
    """Import the library of ``spec`` when it is built, attaching its functions to their kernels; True when loaded."""
    if spec in _loaded:
        return True
    if not enabled() or spec not in LIBRARIES:
        return False
    path = _path(spec)
    if not path.is_file():
        return False
    module = _modules.get(spec)
    if module is not None and getattr(module, "__file__", None) != str(path):
        # another key's library of the same specialization is loaded here (the cache moved under a running process)
        return False
    if module is None:
        loader_spec = importlib.util.spec_from_file_location(EXTENSION, path)
        try:
            module = importlib.util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(module)
        except ImportError:
            # a library that does not load (a truncated file, another machine's): numba compiles instead
            return False
        _modules[spec] = module
    for index, (kernel_name, descriptions) in enumerate(LIBRARIES[spec]):
        kernel(kernel_name).attach(matcher(descriptions), getattr(module, _export_name(kernel_name, index)))
    _save_matchers()
    _loaded.add(spec)
    return True


def loaded() -> list[str]:
    """The specializations whose libraries this process has loaded, sorted."""
    return sorted(_loaded)


def candidates(kernel_name: str) -> list[tuple[str, Callable[[tuple], bool]]]:
    """``(library, accepts)`` for each library with a function of ``kernel_name``; none with ``BENCH_AOT=0``."""
    if not enabled():
        return []
    return [(spec, matcher(descriptions)) for spec, entries in LIBRARIES.items()
            for name, descriptions in entries if name == kernel_name]


def kernel(name: str):
    """The kernel of qualified name ``name`` (its module imported)."""
    module, _, _ = name.rpartition(".")
    importlib.import_module(module)
    return _kernels.kernels()[name]


# -- building ----------------------------------------------------------------------------------


def buildable() -> str | None:
    """None when libraries can be built here, else why not (one line)."""
    if not enabled():
        return "BENCH_AOT=0"
    if importlib.util.find_spec("setuptools") is None:
        return "setuptools is not installed (numba's pycc needs it)"
    numba = importlib.util.find_spec("numba")
    # looked for as a file: find_spec("numba.pycc") would import numba
    if numba is None or numba.origin is None or not (Path(numba.origin).parent / "pycc" / "__init__.py").is_file():
        return "this numba has no pycc"
    include = sysconfig.get_paths().get("include")
    if not include or not Path(include, "Python.h").is_file():
        return "Python's headers (Python.h) are not installed"

    compiler = os.environ.get("CC", sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    return None


def obtainable(spec: str) -> bool:
    """True when the library of ``spec`` is loaded, built, or can be built here."""
    return spec in _loaded or (enabled() and (built(spec) or (buildable() is None and failed(spec) is None)))


FAILURE_DAYS = 1.0
"""A failed build is tried again after this many days (a compiler installed meanwhile, a disk no longer full)."""


def failed(spec: str) -> str | None:
    """Why an earlier build of ``spec`` failed for this key (within :data:`FAILURE_DAYS`), or None."""
    path = _failure_path(spec)
    try:
        if time.time() - path.stat().st_mtime > FAILURE_DAYS * 86400:
            return None
        return path.read_text().strip() or "failed"
    except OSError:
        return None


@contextmanager
def _host_features():
    """numba's AOT code generator, for the duration, targeting the host's feature flags as its JIT does.

    pycc compiles for a processor name and its default features; a virtual
    machine may hide some of them, so the flags are the host's own.
    """
    # lazy: numba loads only when a kernel is compiled (a cached run never imports it)
    from numba.core.codegen import AOTCPUCodegen

    original = AOTCPUCodegen._customize_tm_features
    AOTCPUCodegen._customize_tm_features = lambda self: self._get_host_cpu_features()
    try:
        yield
    finally:
        AOTCPUCodegen._customize_tm_features = original


def build(spec: str) -> Path:
    """Build the library of ``spec`` for this key (unless another process just did); returns its path.

    Raises ``RuntimeError`` with the reason when it cannot be built; the
    reason is kept beside the libraries, so later runs do not try again.
    """
    folder = directory()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RuntimeError(f"cannot make the libraries' folder {folder}: {exc.strerror or exc}") from None
    target = _path(spec)
    with exclusive_lock(folder / (module_name(spec) + ".lock")):
        if target.is_file():
            return target
        functions = [(kernel_name, descriptions, kernel(kernel_name).py_func)
                     for kernel_name, descriptions in LIBRARIES[spec]]
        CC = prepare()

        for stale in folder.glob(".build-*"):
            # a build killed halfway (another process's builds are under an hour old)
            try:
                if time.time() - stale.stat().st_mtime > 3600:
                    shutil.rmtree(stale, ignore_errors=True)
            except OSError:
                pass
        work = None
        try:
            work = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
            cc = CC(EXTENSION)
            cc.output_dir = str(work)
            cc.target_cpu = "host"
            compile_helpers = cc._compile_mixins
            cc._compile_mixins = lambda build_dir: _helpers(cc, compile_helpers, build_dir)
            for index, (kernel_name, descriptions, py_func) in enumerate(functions):
                cc.export(_export_name(kernel_name, index), tuple(numba_type(d) for d in descriptions))(py_func)
            with _host_features():
                cc.compile()
            os.replace(work / cc.output_file, target)
            _failure_path(spec).unlink(missing_ok=True)
        except Exception as exc:
            reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"
            try:
                _failure_path(spec).write_text(reason + "\n")
            except OSError:
                pass
            raise RuntimeError(reason) from exc
        finally:
            if work is not None:
                shutil.rmtree(work, ignore_errors=True)
    _prune(folder)
    return target


def prepare():
    """Import numba and its ``pycc`` and make the package's kernels numba's; returns pycc's ``CC`` class.

    What every build does first, and :mod:`bench.toolchain.warmup` before it
    forks a child to build, for the child to inherit.
    """
    _kernels.materialize()
    with warnings.catch_warnings():
        # pycc is "pending deprecation" with no replacement yet; where a numba drops it, buildable() says so
        warnings.simplefilter("ignore")
        # lazy: numba loads only when a kernel is compiled (a cached run never imports it)
        from numba.pycc import CC
    return CC


HELPER_CFLAGS = ["-O0", "-g0"]
"""gcc's flags for numba's C helpers: nothing hot runs in them (the kernels' loops are LLVM's code, with numba's
reference counts; the helpers allocate a hand-off's arrays and refill the random generator's state), and -O0 compiles
them in 0.7 s of CPU where -O1 took 0.95 s and -O3 2.1 to 2.6 s."""
UNUSED_HELPERS = ("dictobject", "listobject", "setobject")
"""numba's typed containers, which no kernel uses: 0.5 to 0.8 s of gcc.  A kernel that came to use one would fail to
import its library (an undefined symbol), and numba's JIT would run it; ``tests/test_aot.py`` loads every library."""


def _helpers(cc, compile_helpers, build_dir: str) -> list[str]:
    """numba's C helpers (runtime, helperlib, the module's init) as object files: compiled once, then kept.

    They depend on numba's sources, Python's headers and the compiler, not
    on the kernels (all libraries share one extension name), so a first run
    that builds four libraries compiles them once, and a rebuild after an
    edit of the kernels not at all.
    """
    cc._mixin_sources = [name for name in cc._mixin_sources if Path(name).stem not in UNUSED_HELPERS]
    digest = hashlib.sha256()
    for part in (_file_bytes("numba", "_version.py"), sys.version.encode(), repr(cc._get_mixin_defines()).encode(),
                 repr(HELPER_CFLAGS).encode(), repr(sysconfig.get_config_vars("CC", "CFLAGS")).encode(),
                 os.environ.get("CC", "").encode(), _processor()):
        digest.update(part)
        digest.update(b"\0")
    kept = directory().parent / f"helpers-{digest.hexdigest()[:16]}"
    names = [f"{i}-{Path(source).stem}.o" for i, source in enumerate(cc._get_mixin_sources())]
    if all((kept / name).is_file() for name in names):
        return [str(kept / name) for name in names]
    cc._extra_cflags = {sys.platform: HELPER_CFLAGS} if os.name == "posix" else {}
    objects = compile_helpers(build_dir)
    try:
        kept.mkdir(parents=True, exist_ok=True)
        for name, made in zip(names, objects):
            part = kept / f".{name}.{os.getpid()}"
            shutil.copyfile(made, part)
            os.replace(part, kept / name)
    except OSError:
        # kept or not, this build has its objects
        pass
    return objects


KEPT_KEYS = 8
"""Libraries of this many keys are kept beside the current one, the most recently built first."""


def _prune(current: Path) -> None:
    """Remove the libraries of all but the :data:`KEPT_KEYS` keys built last besides ``current``.

    Every edit of a kernel's sources, and every new numba, makes a new key;
    libraries of older ones would pile up (1 to 3 MB a key).
    """
    try:
        others = [p for p in current.parent.iterdir() if p.is_dir() and p != current and
                  not p.name.startswith("helpers-")]
        others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in others[KEPT_KEYS:]:
        shutil.rmtree(old, ignore_errors=True)
