"""Where sub-problems run: worker processes on this machine, or a Dask cluster.

Both take tasks, bundles of sub-problems, at any time and yield
``(sub_problem, outcome)`` as tasks finish, where the outcome is the
record :func:`solve_one` returns or the exception that ended it.  Local
workers are forked after the parent has compiled the kernels, so they
start warm and share the cover without copying it; a worker that dies
breaks the pool, which is rebuilt and given every task not yet finished (a
few times, then the rest are reported as errors); workers die with the
process that started them, even when it is killed with SIGKILL
(:func:`~bench.system.processes.die_with_parent`).  On a cluster the cover
is scattered once to every worker, tasks carry only their sub-problems,
and Dask itself reschedules the tasks of a worker that dies; a task that
raises is retried twice.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

from bench.system import signals
from bench.errors import UsageError
from bench.system.processes import die_with_parent

MAX_POOL_RESTARTS = 3

_payload = None


def solve_one(payload, sub) -> dict:
    """Solve one sub-problem ``sub``: ``payload`` is ``(cover, engine, settings)``; returns its counts and counters.

    ``rest`` lists the pieces it handed back when it spent its budget
    (:attr:`~bench.engines.Settings.budget`).  ``timeline`` (never
    journaled) says where and when it ran: the process, its
    :func:`time.perf_counter` at the start and the end (one clock for every
    process of a machine) and FILA's set-up seconds.
    """
    started = time.perf_counter()
    cover, engine, settings = payload
    result = engine.solve(cover, sub.settings(settings))
    rest = result.stats.pop("rest", [])
    return {"status": result.status.value, "variant": result.variant, "covers": result.covers, "unique": result.unique,
            "total": result.total, "stats": result.stats, "seconds": result.timings.get("solve", 0.0), "rest": rest,
            "timeline": {"pid": os.getpid(), "started": started, "ended": time.perf_counter(),
                         "fila_setup": result.timings.get("fila_setup", 0.0)}}


def _install(payload, parent: int) -> None:
    global _payload
    die_with_parent(parent)
    _payload = payload
    # the parent's start-up turned the collector off and froze what it had (local_results): the worker's own is new
    gc.enable()
    # the parent answers a stop signal for the whole run (it kills the pool); a worker that stopped on
    # its own would hand back partial counts as if its sub-problem were finished
    for number in (signal.SIGINT, getattr(signal, "SIGHUP", None)):
        if number is not None:
            signal.signal(number, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # the parent answers SIGUSR1 for the whole run (the counts of the finished sub-problems): a worker forked
    # while a request was pending, or signalled with its process group, would print its own sub-problem's
    # status as if it were the run's
    signals.forget_requests()
    if signals.STATUS_SIGNAL is not None:
        signal.signal(signals.STATUS_SIGNAL, signal.SIG_IGN)


def _solve_installed(subs: list) -> list[dict]:
    return solve_bundle(_payload, subs)


class LocalQueue:
    """Tasks on ``workers`` forked processes: bundles of sub-problems, submitted at any time.

    Iterating yields ``(sub_problem, outcome)`` per sub-problem as tasks
    finish, including tasks submitted during the iteration, and ends when
    none is left or at ``deadline`` (a :func:`time.perf_counter` time).  A
    worker that dies breaks the pool: it is rebuilt and given again every
    task it had not finished (a few times, then they are reported as
    errors).  ``close`` kills the workers, whatever is still running.
    """

    def __init__(self, payload, workers: int, deadline: float | None = None):
        self.payload = payload
        self.workers = workers
        self.deadline = deadline
        self.restarts = 0
        self.failed: list = []
        self.futures: dict = {}
        self.pool = None
        # a parent in its start-up (bench solve's, collector off) has made nothing to collect yet: frozen, what it
        # has is walked by the collector of neither it nor the workers (nor copied page by page); a parent whose
        # collector runs may hold garbage it has not found yet, which a freeze would keep for good
        if not gc.isenabled():
            gc.freeze()
        self._start()

    def _start(self) -> None:
        self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                        initializer=_install, initargs=(self.payload, os.getpid()))

    def __len__(self) -> int:
        """Tasks submitted and not yet yielded."""
        return len(self.futures) + len(self.failed)

    def submit(self, bundle: list) -> None:
        """Queue one task solving the sub-problems of ``bundle`` in order."""
        if self.pool is None:
            self.failed.append(bundle)
            return
        self.futures[self.pool.submit(_solve_installed, list(bundle))] = bundle

    def __iter__(self):
        while self.futures or self.failed:
            for bundle in self.failed:
                for sub in bundle:
                    yield sub, RuntimeError(f"worker processes died {self.restarts} times; giving up")
            self.failed = []
            if not self.futures:
                continue
            left = None if self.deadline is None else self.deadline - time.perf_counter()
            if left is not None and left <= 0:
                return
            finished, _ = wait(list(self.futures), timeout=left, return_when=FIRST_COMPLETED)
            broken = False
            for future in finished:
                error = future.exception()
                if isinstance(error, BrokenProcessPool):
                    broken = True
                    continue
                bundle = self.futures.pop(future)
                if error is not None:
                    yield from ((sub, error) for sub in bundle)
                else:
                    yield from zip(bundle, future.result())
            if broken:
                self._restart()

    def _restart(self) -> None:
        """A worker died: a new pool gets every task not finished, or after a few times they fail."""
        bundles = list(self.futures.values())
        self.futures = {}
        _stop(self.pool)
        self.restarts += 1
        if self.restarts > MAX_POOL_RESTARTS:
            self.pool = None
            self.failed.extend(bundles)
            return
        self._start()
        for bundle in bundles:
            self.submit(bundle)

    def close(self) -> None:
        """Kill the workers now: queued tasks are cancelled, running ones stopped."""
        if self.pool is not None:
            _stop(self.pool)
            self.pool = None
        self.futures = {}


def _stop(pool: ProcessPoolExecutor) -> None:
    """Shut the pool down now: queued tasks are cancelled and running workers killed."""
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(timeout=5)


def _noop(x):
    return x


def connect(address: str):
    """A Dask client for ``address`` (``tcp://HOST:PORT``); a clear error when it cannot be reached."""
    try:
        # lazy: Dask loads only for --cluster
        from distributed import Client
    except ImportError:
        raise UsageError("--cluster needs Dask: pip install 'bench[cluster]' (dask[distributed])") from None
    try:
        return Client(address, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"--cluster: cannot reach a Dask scheduler at {address}: {exc}") from None


def dispatch_cost(client, tasks: int = 40) -> float:
    """Seconds per task of a round trip through the scheduler, measured with tasks that do nothing."""
    start = time.perf_counter()
    futures = [client.submit(_noop, k, pure=False) for k in range(tasks)]
    client.gather(futures)
    return (time.perf_counter() - start) / tasks


def solve_bundle(payload, subs: list) -> list[dict]:
    """Solve several sub-problems in one task (one round trip through the scheduler for all of them).

    The kernels are loaded first (a no-op once they are), so that no
    sub-problem's time holds their loading.
    """
    cover, engine, settings = payload
    engine.warm_up(cover, settings)
    return [solve_one(payload, sub) for sub in subs]


class ClusterQueue:
    """Tasks on the Dask cluster behind ``client``: bundles of sub-problems, submitted at any time.

    The payload is scattered to every worker once.  Iterating yields
    ``(sub_problem, outcome)`` per sub-problem as tasks finish, including
    tasks submitted during the iteration; every sub-problem of a task that
    failed gets its error.  ``close`` cancels what has not finished.
    """

    def __init__(self, client, payload, key: str):
        # lazy: Dask loads only for --cluster
        from distributed import as_completed

        self.client = client
        self.key = key
        self.remote = client.scatter(payload, broadcast=True, hash=False)
        self.futures: dict = {}
        self.finished = as_completed()

    def __len__(self) -> int:
        """Tasks submitted and not yet yielded."""
        return len(self.futures)

    def submit(self, bundle: list) -> None:
        """Queue one task solving the sub-problems of ``bundle`` in order."""
        future = self.client.submit(solve_bundle, self.remote, list(bundle),
                                    key=f"bench-{self.key[:12]}-{bundle[0].ident}+{len(bundle)}", pure=False,
                                    retries=2)
        self.futures[future] = bundle
        self.finished.add(future)

    def __iter__(self):
        for future in self.finished:
            bundle = self.futures.pop(future)
            try:
                # a result held by a worker that died since is computed again (the call waits for it)
                outcomes = future.result()
            except Exception as error:
                yield from ((sub, error) for sub in bundle)
            else:
                yield from zip(bundle, outcomes)

    def close(self) -> None:
        """Cancel every task still queued or running."""
        self.client.cancel(list(self.futures))


@contextmanager
def loopback_cluster(workers: int, cwd=None):
    """A Dask scheduler and ``workers`` one-thread workers on 127.0.0.1, for tests and benchmarks; yields the address."""
    # lazy: Dask loads only for --cluster
    from distributed import Client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": cwd}
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], **quiet)]
    try:
        # no nanny: a worker is one process, which a test may kill, and which nothing starts again
        procs += [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                    "--no-dashboard", "--no-nanny"], **quiet) for _ in range(workers)]
        with Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for process in procs[::-1]:
            process.terminate()
        for process in procs:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                # a worker closing gracefully waits for the task it runs, which a cancelled run no longer needs
                process.kill()
                process.wait()
