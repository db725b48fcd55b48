"""Compiling the native kernels apart from the solve, and only the specializations a run uses.

numba compiles a kernel once per type signature.  The kernels here have a
few specializations each, picked by the arrays a search passes, and a cold
one costs seconds of CPU (``python -m benchmarks.compile`` measures
them); a run needs one or two of them:

``sets`` / ``sets+constraints``
    the sparse-set DLX kernel (:mod:`bench.kernels.sparse_sets`) without and
    with the in-search triggers and filters (``cons`` None or not); FILA's
    DLX levels, the estimator and the splitter run it too.
``bits``
    the option-bitset DLX kernel (:mod:`bench.kernels.bitset`).
``fila1``, ``fila2``
    the FILA kernel on one-word or two-word bitfields, with the hand-off
    builder.
``sampler``, ``filters``
    FILA's pipeline sampler (the automatic configuration) and the one-shot
    filters.

This module knows kernels, not engines: the module that drives a
specialization's kernels registers it (:func:`register`) with a tiny search
that passes the same types as a real one (:mod:`bench.engines.search`,
:mod:`bench.engines.fila`, :mod:`bench.kernels.pipeline_estimate`,
:mod:`bench.models.filters`).

Each is an ahead-of-time library (:mod:`bench.toolchain.aot`), built by the
first run that needs it and imported by every later one without numba;
where no library can be built, numba compiles it (or loads it from its
cache) through a tiny search that passes the same types as a real one.
Either is timed, once per process.  The engines
name what a cover and its settings need (``warm_up``); a search that meets a
specialization nobody predicted (a hand-off with more open cells than
expected) compiles it on the spot, through :func:`ensure` as well, so that
:func:`spent` lets the search keep compile time out of its solve time.

**Two cores for a cold cache.**  A first run compiles for 10 to 40 s of
CPU, nearly all of it in two or three specializations that share nothing
but the cache (FILA's tiny search starts at its hand-off, without DLX
levels).  When several of those a run asks for are not compiled at all, a
forked child compiles (or builds) some of them into the cache while this
process does the others, then this process loads the child's (a few ms each);
:func:`prefetch` starts such a child early, for a specialization a run
will need after its first.  A child that fails only costs the time: its
specializations are compiled here then.  The kernel cache's locked saves
(:mod:`bench.toolchain.cache`) keep two processes compiling at once from
mixing up their entries.

**What is compiling now.**  A first run compiles for tens of seconds; a
display that shows the run's progress asks :func:`compiling` which
specialization this process is compiling, loading or waiting for, and
since when, and within :func:`watched` the one-line announcement of
:func:`announce` is left to it.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterable

from bench.toolchain import aot, registry
import signal
from bench.system.processes import die_with_parent

_recorded: dict[str, float] = {}
_spent = 0.0
_children: dict[str, object] = {}
"""Specialization -> the forked child (a ``multiprocessing`` process) compiling it into the cache."""
_here: list[str] = []
"""Specializations a :func:`prefetch` left to this process, compiled while it waits for a child."""
_built = 0.0
"""The :data:`COLD_COST` of the libraries this process has built: how far a child forked meanwhile has got, counted in
work (the two processes compile at about the same pace) rather than read off a clock."""
_child_start: dict[str, float] = {}
"""Specialization -> :data:`_built` when the child compiling it was forked."""
_batch: set[str] | None = None
"""The specializations prefetched within :func:`prefetching`, else None."""
_now: list[tuple[str, float]] = []
"""The specializations being made ready in this process (:func:`compiling`), innermost last, each with its start."""
_watchers = 0
"""How many :func:`watched` blocks are open: while one is, a display shows the compilation instead of :func:`announce`."""

SPECIALIZATIONS: dict[str, Callable[[], None]] = {}
"""Every specialization registered so far (:func:`register`), with the tiny search that compiles (or loads) it."""
COLD_COST: dict[str, float] = {}
"""CPU seconds of each registered specialization's library built cold on this project's machine
(``results/compile.md``, ``python -m benchmarks.compile``): only to share them out evenly, so their order counts."""


def register(name: str, tiny_search: Callable[[], None], cold_cost: float) -> None:
    """Make specialization ``name`` known: the module whose kernels it compiles registers it when imported.

    ``tiny_search`` runs the kernels with the argument types of every real
    call (numba's JIT compiles them, or loads them from its cache, where no
    library can be had); ``cold_cost`` is what building its library costs,
    for sharing cold builds out between two processes.
    """
    SPECIALIZATIONS[name] = tiny_search
    COLD_COST[name] = cold_cost


def record(specs=None) -> dict[str, tuple]:
    """Run each specialization's tiny search (numba's JIT) and keep the signatures of its kernels' calls, in order.

    What :mod:`bench.toolchain.signatures` holds; ``specs`` defaults to every
    registered specialization.
    """
    out = {}
    for spec in specs or SPECIALIZATIONS:
        with registry.recording() as seen:
            SPECIALIZATIONS[spec]()
        entries = []
        for name, args in seen.calls:
            entry = (name, tuple(aot.describe(a) for a in args))
            if entry not in entries:
                entries.append(entry)
        out[spec] = tuple(entries)
    return out


def kernels_of(name: str) -> list:
    """The kernels specialization ``name`` calls from Python (its library's, :mod:`bench.toolchain.signatures`)."""
    return [aot.kernel(kernel_name) for kernel_name, _ in aot.LIBRARIES[name]]


def announce(stream=None) -> bool:
    """Say on standard error, once per process, that kernels are about to be compiled; True when it said so.

    A first run compiles for 10 to 40 s of CPU; without a word it looks
    like a hang.
    """
    global _announced
    if _announced or _watchers:
        return False
    _announced = True
    print("bench: compiling the native kernels this run needs (once; cached afterwards) ...",
          file=stream or sys.stderr, flush=True)
    return True


_announced = False
_build_failures: set[str] = set()
"""The reasons of the library builds that failed in this process, each said once."""


def ready(name: str) -> bool:
    """Whether specialization ``name`` is warm in this process (or being warmed): :func:`ensure` would do nothing."""
    return name in _recorded


def ensure(names: Iterable[str]) -> float:
    """Compile or load the specializations ``names`` not yet warm in this process; returns their seconds.

    The seconds are each one's own, measured when it was first warmed in this
    process (so a second solve reports what its kernels cost, not 0); for
    one a child compiled, the wait for the child and the load.  Several
    specializations none of whose kernels are compiled yet are shared out
    with a forked child (see the module docstring).
    """
    global _spent, _built
    names = sorted(set(names))
    todo = [name for name in names if name not in _recorded]
    cold = []
    if todo:
        cold = _cold_names([name for name in todo if name not in _children])
        if cold:
            announce()
        if len(cold) > 1:
            _start_child(_share_out(cold))
        # this process's own first, then the children's (loaded from the cache once they are done)
        todo.sort(key=lambda name: name in _children)
    for name in todo:
        # recorded before it runs: the tiny search's own ensure must not start it again
        _recorded[name] = 0.0
        before = _spent
        start = time.perf_counter()
        _now.append((name, start))
        try:
            # compiled here when nothing of it was and no child has it (_wait_for compiles this process's others)
            by_me = name in cold and name not in _children
            _wait_for(name)
            _warm(name)
            if by_me:
                _built += COLD_COST.get(name, 0.0)
        except BaseException:
            del _recorded[name]
            raise
        finally:
            _now.remove((name, start))
        # a specialization warmed on the way (FILA's DLX levels) has its own record: this one keeps the rest
        seconds = time.perf_counter() - start - (_spent - before)
        _recorded[name] = seconds
        _spent += seconds
    return sum(_recorded[name] for name in names)


def _warm(name: str) -> None:
    """Make specialization ``name`` ready here: its library loaded (built first if need be), else numba's kernels."""
    if name not in SPECIALIZATIONS:
        raise KeyError(f"no kernel specialization {name!r} is registered (its module registers it when imported)")
    if aot.load(name):
        return
    if _library_reason(name) is None:
        try:
            aot.build(name)
        except RuntimeError as exc:
            # once per reason and process: a folder that cannot be written fails every library alike
            if str(exc) not in _build_failures:
                _build_failures.add(str(exc))
                print(f"bench: could not build the {name} kernel library ({exc}); numba compiles the kernels "
                      "instead", file=sys.stderr, flush=True)
        if aot.load(name):
            return
    SPECIALIZATIONS[name]()


def _library_reason(name: str) -> str | None:
    """None when specialization ``name`` can have a library built here, else why not."""
    return aot.buildable() or aot.failed(name)


def prefetch(names: Iterable[str]) -> None:
    """Start compiling, in a forked child, the dearest of ``names`` whose kernels are not cached at all; returns at once.

    For specializations a run will need after what it compiles first (FILA's
    while its automatic configuration builds the sampler's, the next
    engine's while ``bench run`` warms the first): the :func:`ensure` that
    needs one waits for its child, then loads it.  The rest of ``names``
    are this process's: compiled when first needed, or, sooner, while it
    would otherwise wait for a child.  One child per call, as two cores
    give one process to spare: a child each for FILA's and DLX's kernels
    beside the sampler's here cost a first 10x6 solve 1 to 2 s more CPU
    than two processes (each process compiles the kernels' shared callees
    and numba's own implementations again).  A second child only takes one
    of the specializations an earlier prefetch left to this process, and
    only where this process would still have more to compile than the
    first child has left (in :data:`COLD_COST`, what this process built
    since counting as the child's progress): a first ``bench run`` of 10x6
    and the Soma cube otherwise built the bitset and sparse-set kernels one
    after the other while the child's FILA kernel was long done.
    """
    if _batch is not None:
        _batch.update(names)
        return
    cold = [name for name in sorted(set(names)) if name not in _recorded and name not in _children and _cold(name)]
    fresh = [name for name in cold if name not in _here]
    if fresh:
        dearest = max(fresh, key=lambda name: COLD_COST[name])
        _start_child([dearest])
        if dearest in _children:
            _here.extend(name for name in fresh if name != dearest and name not in _here)
        return
    # all of them left to this process already (a run's first prefetch guesses what every cover needs): one goes to
    # a second child where this process would still have more to compile than the child has left, as when a
    # puzzle's DLX needs the bitset kernel while the parent has the sparse-set one to build and the child FILA's
    for name in sorted(cold, key=lambda name: -COLD_COST[name]):
        rest = sum(COLD_COST[other] for other in _here if other != name and other not in _recorded)
        if len(set(map(id, _children.values()))) == 1 and rest > _child_left():
            _start_child([name])
            if name in _children:
                _here.remove(name)
            return


def _child_left() -> float:
    """The :data:`COLD_COST` the running children have still to compile, less what this process built meanwhile."""
    return sum(max(COLD_COST[name] - (_built - _child_start.get(name, _built)), 0.0) for name in _children)


@contextmanager
def prefetching():
    """Within the block, every :func:`prefetch` is gathered into one, made when the block ends.

    For several engines' kernels (``bench run``): one child for the dearest
    of all, this process the rest, rather than a child per engine (on a
    first ``bench run -e dlx,fila``, three processes took 13.4 s on two
    cores where two take 11).
    """
    global _batch
    if _batch is not None:
        yield
        return
    _batch = set()
    try:
        yield
    finally:
        names, _batch = _batch, None
    prefetch(names)


def _cold(name: str) -> bool:
    """True when nothing of specialization ``name`` is compiled yet: no library, and no kernel in numba's cache."""
    return bool(_cold_names([name]))


def _cold_names(names: list[str]) -> list[str]:
    """Those of ``names`` with nothing compiled yet (see :func:`_cold`), each kernel's cache index read once."""
    if not names:
        return []
    cold = [name for name in names if not aot.built(name)]
    jit = [name for name in cold if _library_reason(name) is not None]
    if jit:
        # lazy: this module imports numba; only a compile needs it
        from bench.toolchain.cache import is_cached

        cached = {id(k): is_cached(k) for name in jit for k in kernels_of(name)}
        cold = [name for name in cold if name not in jit or not any(cached[id(k)] for k in kernels_of(name))]
    return cold


def _share_out(names: list[str]) -> list[str]:
    """The child's share of ``names``: the dearest to this process, then each to the lighter side."""
    mine, theirs = 0.0, 0.0
    child = []
    for name in sorted(names, key=lambda n: -COLD_COST[n]):
        if mine <= theirs:
            mine += COLD_COST[name]
        else:
            theirs += COLD_COST[name]
            child.append(name)
    return child


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _start_child(names: list[str]) -> None:
    """Fork a child that compiles ``names`` into the cache (nothing where fork or a second core is missing)."""
    # only where kernels compile: a cached solve spares multiprocessing's import (sockets, pickling: 20 ms)
    import multiprocessing

    # a daemonic process (a pool's worker) may not have children
    if not names or _cores() < 2 or "fork" not in multiprocessing.get_all_start_methods() or \
            multiprocessing.current_process().daemon:
        return
    _set_up_compiler(names)
    # what the parent has buffered would be written again by the child's exit
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    child = multiprocessing.get_context("fork").Process(target=_compile_in_child, args=(names, os.getpid()),
                                                        daemon=True, name="bench-compile")
    child.start()
    for name in names:
        _children[name] = child
        _child_start[name] = _built


def _set_up_compiler(names: list[str]) -> None:
    """Import numba (and its ``pycc`` where ``names`` have libraries to build) and set up its CPU target.

    Done before a child is forked to compile ``names``, so that the child
    has it without doing it again (0.3 to 0.5 s of CPU on this project's
    machine, measured in the child): it starts no later, as it would do it
    first, and the two processes do it once where this one compiles a share
    meanwhile.
    """
    if any(_library_reason(name) is None for name in names):
        aot.prepare()
    else:
        registry.materialize()
    # lazy: numba loads only when a kernel is compiled (a cached run never imports it)
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


def _compile_in_child(names: list[str], parent: int) -> None:
    die_with_parent(parent)
    # the parent's other children are not this one's to wait for, nor its share this one's to compile
    _children.clear()
    _here.clear()
    # the parent answers a stop for the whole run; its exit kills this child
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        for name in names:
            _recorded[name] = 0.0
            _warm(name)
    except BaseException:
        # no traceback of its own: the process that needs the specialization compiles it and says what went wrong
        os._exit(1)


def _wait_for(name: str) -> None:
    """Wait for the child compiling ``name``, if any; whatever it left undone is compiled here afterwards.

    While the child works, this process compiles what :func:`prefetch` left
    to it.
    """
    child = _children.pop(name, None)
    if child is None:
        return
    while _here and child.is_alive():
        other = _here.pop(0)
        if other not in _recorded:
            ensure([other])
    child.join()


def compiling() -> tuple[str, float] | None:
    """``(specialization, perf_counter at its start)`` of what this process is compiling or loading now, or None.

    Read by a progress display from another thread: a cached one is loaded
    in milliseconds, so whatever lasts longer than a glance is a compile
    (or the wait for a child compiling it).
    """
    try:
        return _now[-1]
    except IndexError:
        return None


@contextmanager
def watched():
    """Within the block a display shows what compiles (:func:`compiling`): :func:`announce` prints nothing."""
    global _watchers
    _watchers += 1
    try:
        yield
    finally:
        _watchers -= 1


def spent() -> float:
    """Seconds this process has spent compiling and loading specializations so far (a clock to subtract)."""
    return _spent


class _Libraries:
    """The kernels' provider of ahead-of-time libraries (:func:`bench.toolchain.registry.provide_with`)."""

    @staticmethod
    def candidates(kernel_name: str) -> list:
        """``(library, accepts)`` of the libraries that declare the kernel."""
        return aot.candidates(kernel_name)

    @staticmethod
    def ready(libraries: list[str]) -> bool:
        """Load (or build) the first of ``libraries`` that can be had here; False when none can."""
        usable = [library for library in libraries if aot.obtainable(library)]
        if not usable:
            return False
        ensure(usable[:1])
        return True


registry.provide_with(_Libraries())
