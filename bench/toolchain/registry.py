"""The package's compiled kernels, defined without importing numba.

Every compiled function of the package is decorated with the :func:`njit`
here, which records the function and numba's options and returns a
:class:`Kernel`.  Calling a kernel runs, in this order:

1. a function of an ahead-of-time library (:mod:`bench.toolchain.aot`) whose
   signature the arguments match exactly: no numba, no compiling, nothing
   but an extension module import; a library declared for such arguments
   and not loaded yet is loaded, or built first, on that first call, by
   the provider :mod:`bench.toolchain.warmup` installs (:func:`provide_with`);
2. otherwise numba's dispatcher, made on the first such call
   (:meth:`Kernel.dispatcher`), JIT-compiled or loaded from numba's cache
   as before (:mod:`bench.toolchain.cache`).

So ``import bench.engines.fila`` costs no numba import (0.17 s of every
run on a fast machine, 0.45 s on a slow one), and a run whose kernels all
come from the library never imports numba at all.

**Numba's view.**  Before numba compiles anything, :func:`materialize`
imports it (with the package's cache locators), teaches it that a
:class:`Kernel` is typed as its dispatcher (so kernels call kernels as
they always did, ``inline="always"`` included, which numba reads off
``targetoptions`` and ``py_func``), and resolves every :class:`Lazy`
placeholder: objects that exist only in numba's world (the bit-counting
intrinsics of :mod:`bench.kernels.bitfield`), which no Python code calls,
are bound into the modules that named them.
"""

from __future__ import annotations

import importlib
import sys
import threading
from typing import Callable

__all__ = ["Kernel", "Lazy", "kernels", "lazy", "materialize", "njit", "provide_with", "recording"]

_lock = threading.RLock()
_materialized = False
_kernels: dict[str, "Kernel"] = {}
_lazies: list["Lazy"] = []
_recorder: list | None = None
_provider = None
"""What finds and readies the ahead-of-time libraries (:func:`provide_with`); None: numba runs every kernel."""


class Kernel:
    """A compiled function of the package: an ahead-of-time library's when it fits the arguments, else numba's."""

    def __init__(self, py_func: Callable, options: dict):
        self.py_func = py_func
        self.options = options
        self.name = f"{py_func.__module__}.{py_func.__qualname__}"
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__module__ = py_func.__module__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self._dispatcher = None
        # (accepts, function) pairs of the libraries loaded for this kernel
        self._compiled: list = []
        # (library, accepts) of the libraries that have a function of this kernel and are not loaded yet; None
        # until first looked up
        self._wanted: list | None = None

    def __repr__(self) -> str:
        return f"<kernel {self.name}>"

    def __call__(self, *args):
        return self.resolve(*args)(*args)

    def resolve(self, *args) -> Callable:
        """The function a call with ``args`` runs: a library's that takes them exactly, else numba's dispatcher.

        For a call site that calls again and again with arguments of the
        same types (a search's slices): it keeps what this returns and
        skips the check of every argument on every call.
        """
        if _recorder is not None:
            _recorder.append((self.name, args))
        for accepts, function in self._compiled:
            if accepts(args):
                return function
        if self._wanted is None or self._wanted:
            function = self._provide(args)
            if function is not None:
                return function
        return self.dispatcher

    def _provide(self, args: tuple):
        """A library's function for ``args``, made ready by the provider (:func:`provide_with`), if there is one."""
        if _provider is None:
            return None
        with _lock:
            if self._wanted is None:
                self._wanted = _provider.candidates(self.name)
            wanted = [library for library, accepts in self._wanted if accepts(args)]
            # each looked at once: a library that cannot be had leaves these arguments to numba for good
            self._wanted = [entry for entry in self._wanted if entry[0] not in wanted]
        if not _provider.ready(wanted):
            return None
        for accepts, function in self._compiled:
            if accepts(args):
                return function
        return None

    def attach(self, accepts: Callable[[tuple], bool], function: Callable) -> None:
        """Run ``function`` instead of numba's dispatcher for the arguments ``accepts`` takes (an AOT library's)."""
        with _lock:
            self._compiled.append((accepts, function))

    @property
    def dispatcher(self):
        """numba's dispatcher of this kernel, made (and numba imported) on first use."""
        materialize()
        if self._dispatcher is None:
            with _lock:
                if self._dispatcher is None:
                    # lazy: this module imports numba; only a compile needs it
                    from bench.toolchain.cache import numba_njit

                    self._dispatcher = numba_njit(**self.options)(self.py_func)
        return self._dispatcher

    @property
    def targetoptions(self) -> dict:
        """numba's options of the dispatcher (numba's inliner reads ``inline`` here)."""
        return self.dispatcher.targetoptions


def provide_with(provider) -> None:
    """Let ``provider`` find kernels' functions in ahead-of-time libraries (:mod:`bench.toolchain.warmup` does).

    ``provider.candidates(kernel_name)`` lists ``(library, accepts)`` pairs
    of the libraries declaring the kernel; ``provider.ready(libraries)``
    loads (or builds) the first it can and says whether it did, the
    library attaching its functions to the kernels (:meth:`Kernel.attach`).
    """
    global _provider
    _provider = provider


def njit(function: Callable | None = None, **options):
    """numba's ``njit``, deferred: returns a :class:`Kernel` (decorator with or without options).

    Without the C-callable wrapper numba would make of each kernel: nothing
    calls a kernel through C, and the wrappers (with the bitfield overloads')
    cost about 0.5 s of the 9 to 11 s FILA's library takes to build.
    """
    options = {"no_cfunc_wrapper": True, **options}

    def wrap(py_func: Callable) -> Kernel:
        kernel = Kernel(py_func, options)
        with _lock:
            _kernels[kernel.name] = kernel
        return kernel

    return wrap(function) if function is not None else wrap


class Lazy:
    """A placeholder for an object of numba's world (an intrinsic), ``module:name``, bound in by :func:`materialize`."""

    def __init__(self, module: str, name: str):
        self.module = module
        self.name = name

    def __repr__(self) -> str:
        return f"<lazy {self.module}:{self.name}>"

    def __call__(self, *args):
        raise TypeError(f"{self.module}.{self.name} exists only inside compiled kernels")

    def resolve(self):
        """The object itself (importing its module, which needs numba)."""
        return getattr(importlib.import_module(self.module), self.name)


def lazy(module: str, name: str) -> Lazy:
    """A :class:`Lazy` placeholder for ``module.name``, which the next :func:`materialize` binds."""
    placeholder = Lazy(module, name)
    with _lock:
        _lazies.append(placeholder)
    return placeholder


def kernels() -> dict[str, Kernel]:
    """Every kernel defined so far, by qualified name (``bench.kernels.fila.fila_search``)."""
    return dict(_kernels)


def materialize() -> None:
    """Import numba and make the package's kernels and placeholders what numba's compiler expects.

    Idempotent and cheap once done; placeholders of modules imported since
    the last call are bound on the next (every dispatcher is made through
    here, so before numba compiles anything that names them).
    """
    global _materialized
    if _materialized and not _lazies:
        return
    with _lock:
        if not _materialized:
            # lazy: numba loads only when a kernel is compiled (a cached run never imports it)
            from numba.extending import typeof_impl

            import bench.toolchain.cache  # noqa: F401  (the package's cache locators, before any dispatcher exists)

            @typeof_impl.register(Kernel)
            def _typeof_kernel(value, context):
                return typeof_impl(value.dispatcher, context)

            _materialized = True
        if _lazies:
            resolved = {id(p): p.resolve() for p in _lazies}
            _lazies.clear()
            # bound wherever a module named them, so numba's compiler finds the objects themselves
            for module in list(sys.modules.values()):
                if module is None or not getattr(module, "__name__", "").startswith("bench"):
                    continue
                namespace = vars(module)
                for key, value in list(namespace.items()):
                    if type(value) is Lazy and id(value) in resolved:
                        namespace[key] = resolved[id(value)]


class recording:
    """Within the block, every kernel call made from Python is kept as ``(kernel name, args)`` in :attr:`calls`."""

    def __init__(self):
        self.calls: list[tuple[str, tuple]] = []

    def __enter__(self) -> "recording":
        global _recorder
        _recorder = self.calls
        return self

    def __exit__(self, *exc) -> None:
        global _recorder
        _recorder = None
