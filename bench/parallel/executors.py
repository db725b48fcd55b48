"""Where sub-problems run: worker processes on this machine, or a Dask cluster.

Both take tasks, bundles of sub-problems, at any time and yield
``(sub_problem, outcome)`` as tasks finish, where the outcome is the
record :func:`solve_one` returns or the exception that ended it.  Local
workers are forked after the parent has compiled the kernels, so they
start warm and share the cover without copying it; a worker that dies
breaks the pool, which is rebuilt and given every task not yet finished (a
few times, then the rest are reported as errors); workers die with the
process that started them, even when it is killed with SIGKILL
(:func:`~bench.system.processes.die_with_parent`).  A worker that stops
answering (stopped by SIGSTOP, or frozen) is killed by a watchdog once its
heartbeat, a thread beating every :data:`HEARTBEAT_SECONDS`, has been
silent for ``stall_seconds`` (:data:`STALL_SECONDS` by default: long
enough for a kernel compile or a hand-off holding the interpreter), which
breaks the pool in the same way.

On a cluster the cover is scattered once to every worker, tasks carry only
their sub-problems, and Dask itself reschedules the tasks of a worker that
dies; a task that raises is retried twice.  Before anything is sent,
:func:`probe_scheduler` checks that a Dask scheduler answers at the
address (anything else is refused in seconds), and :func:`check_workers`
that every worker runs this very code (a task that lands on a worker
running other code refuses to count); :class:`ClusterWatchdog` has the
scheduler drop a worker whose heartbeat has been silent for
``stall_seconds``, and its tasks go to the others.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, CancelledError, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

from bench.system import signals
from bench.errors import UsageError
from bench.parallel import STALL_SECONDS
from bench.system.processes import die_with_parent
from bench.toolchain import sources

MAX_POOL_RESTARTS = 3
# times a cluster task cancelled by the scheduler (its payload lost with a worker) is submitted again
RESUBMISSIONS = 3
CONNECT_SECONDS = 5.0
"""Seconds to reach a scheduler and read its greeting, then for Dask's client to connect."""
HEARTBEAT_SECONDS = 0.25

_payload = None
_beats = None


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


def _install(payload, parent: int, beats=None) -> None:
    global _payload
    die_with_parent(parent)
    _payload = payload
    if beats is not None:
        _start_heartbeat(beats)
    # the parent's start-up turned the collector off and froze what it had (LocalQueue): the worker's own is new
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


def _start_heartbeat(beats) -> None:
    """Take a slot of ``beats`` (pid, last beat) and beat in it from a thread: a stopped process beats no more."""
    slots, lock = beats
    with lock:
        slot = next(k for k in range(0, len(slots), 2) if slots[k] == 0)
        slots[slot] = os.getpid()
        slots[slot + 1] = time.monotonic()

    def beat() -> None:
        while True:
            slots[slot + 1] = time.monotonic()
            time.sleep(HEARTBEAT_SECONDS)

    threading.Thread(target=beat, daemon=True, name="bench-heartbeat").start()


def _silent(beats, seconds: float) -> list[int]:
    """The pids of the workers whose heartbeat has been silent for ``seconds``."""
    slots, _ = beats
    now = time.monotonic()
    return [int(slots[k]) for k in range(0, len(slots), 2) if slots[k] and now - slots[k + 1] >= seconds]


class LocalQueue:
    """Tasks on ``workers`` forked processes: bundles of sub-problems, submitted at any time.

    Iterating yields ``(sub_problem, outcome)`` per sub-problem as tasks
    finish, including tasks submitted during the iteration, and ends when
    none is left or at ``deadline`` (a :func:`time.perf_counter` time).  A
    worker that dies breaks the pool: it is rebuilt and given again every
    task it had not finished (a few times, then they are reported as
    errors).  A worker silent for ``stall_seconds`` is killed, which breaks
    the pool the same way.  ``close`` kills the workers, whatever is still
    running.
    """

    def __init__(self, payload, workers: int, deadline: float | None = None, stall_seconds: float = STALL_SECONDS):
        self.payload = payload
        self.workers = workers
        self.deadline = deadline
        self.stall_seconds = stall_seconds
        self.context = multiprocessing.get_context("fork")
        self.restarts = 0
        self.failed: list = []
        # tasks a broken pool refused (a worker died since the last look): they go to the rebuilt pool
        self.waiting: list = []
        self.futures: dict = {}
        self.pool = None
        # a parent in its start-up (bench solve's, collector off) has made nothing to collect yet: frozen, what it
        # has is walked by the collector of neither it nor the workers (nor copied page by page); a parent whose
        # collector runs may hold garbage it has not found yet, which a freeze would keep for good
        if not gc.isenabled():
            gc.freeze()
        self._start()

    def _start(self) -> None:
        # a pid and a last beat per worker: a replacement for a worker that died takes the next free slot
        self.beats = (self.context.Array("d", 2 * (self.workers + MAX_POOL_RESTARTS + 1), lock=False),
                      self.context.Lock())
        self.pool = ProcessPoolExecutor(self.workers, mp_context=self.context, initializer=_install,
                                        initargs=(self.payload, os.getpid(), self.beats))

    def __len__(self) -> int:
        """Tasks submitted and not yet yielded."""
        return len(self.futures) + len(self.failed) + len(self.waiting)

    def submit(self, bundle: list) -> None:
        """Queue one task solving the sub-problems of ``bundle`` in order."""
        if self.pool is None:
            self.failed.append(bundle)
            return
        try:
            self.futures[self.pool.submit(_solve_installed, list(bundle))] = bundle
        except BrokenProcessPool:
            # a worker died after the last look at the pool, which has not rebuilt it yet: the next look does
            self.waiting.append(bundle)

    def __iter__(self):
        while self.futures or self.failed or self.waiting:
            if self.waiting:
                self._restart()
            for bundle in self.failed:
                for sub in bundle:
                    yield sub, RuntimeError(f"worker processes died {self.restarts} times; giving up")
            self.failed = []
            if not self.futures:
                continue
            left = None if self.deadline is None else self.deadline - time.perf_counter()
            if left is not None and left <= 0:
                return
            watch = min(HEARTBEAT_SECONDS * 4, self.stall_seconds / 2)
            finished, _ = wait(list(self.futures), timeout=watch if left is None else min(left, watch),
                               return_when=FIRST_COMPLETED)
            self._kill_silent()
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

    def _kill_silent(self) -> None:
        """Kill the workers whose heartbeat has been silent for ``stall_seconds``: the pool sees them die."""
        slots = self.beats[0]
        for pid in _silent(self.beats, self.stall_seconds):
            print(f"bench: worker process {pid} stopped answering (no heartbeat for {self.stall_seconds:g} s); "
                  "its sub-problem is solved again", file=sys.stderr)
            slots[slots[:].index(pid)] = 0
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _restart(self) -> None:
        """A worker died: a new pool gets every task not finished, or after a few times they fail."""
        bundles = list(self.futures.values()) + self.waiting
        self.futures = {}
        self.waiting = []
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


def probe_scheduler(address: str, seconds: float = CONNECT_SECONDS) -> None:
    """Check, in ``seconds`` at most, that a Dask scheduler answers at ``address`` (``tcp://HOST:PORT``).

    A scheduler greets every connection with its handshake, a short
    length-prefixed message; anything else on the port (an HTTP server that
    waits for a request, one that answers ``HTTP/1.1 400``, whose first
    bytes Dask read as a length of 3 EiB) is refused here, before Dask's
    client waits on it.  Addresses of other protocols are left to Dask.

    Raises
    ------
    UsageError
        ``--cluster ADDRESS: ...`` saying what answered, or that nothing did.
    """
    try:
        # lazy: Dask loads only for --cluster
        import distributed  # noqa: F401 - the greeting is decoded by Dask's own protocol
    except ImportError:
        raise UsageError("--cluster needs Dask: pip install 'bench[cluster]' (dask[distributed])") from None
    match = re.match(r"^tcp://([^\s:/]+):(\d+)/?$", address)
    if match is None:
        return
    try:
        sock = socket.create_connection((match.group(1), int(match.group(2))), timeout=seconds)
    except OSError as exc:
        raise UsageError(f"--cluster {address}: cannot reach a Dask scheduler: {exc.strerror or exc}") from None
    with sock:
        sock.settimeout(seconds)
        try:
            head = _receive(sock, 8)
            length = struct.unpack("<Q", head)[0]
            if not 0 < length <= MAX_HANDSHAKE:
                raise UsageError(f"--cluster {address}: not a Dask scheduler: it answered {head!r}, not a Dask "
                                 "handshake")
            greeting = _handshake(_receive(sock, length))
        except (TimeoutError, socket.timeout):
            raise UsageError(f"--cluster {address}: not a Dask scheduler: no Dask handshake came within "
                             f"{seconds:g} s") from None
        except OSError as exc:
            raise UsageError(f"--cluster {address}: not a Dask scheduler: {exc.strerror or exc}") from None
    if greeting is None:
        raise UsageError(f"--cluster {address}: not a Dask scheduler: its greeting is no Dask handshake")


MAX_HANDSHAKE = 1 << 16
"""Bytes a scheduler's greeting may take (Dask's is about 60)."""


def _receive(sock, n: int) -> bytes:
    """Exactly ``n`` bytes from ``sock``; an ``OSError`` when it closes first."""
    chunks, left = [], n
    while left:
        chunk = sock.recv(left)
        if not chunk:
            raise ConnectionError(0, "the connection was closed before a Dask handshake")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _handshake(body: bytes) -> dict | None:
    """Dask's greeting decoded (a dict naming the pickle protocol), or None when ``body`` is not one."""
    from distributed.protocol import loads
    from distributed.protocol.utils import unpack_frames

    try:
        frames, _ = unpack_frames(body, partial=True)
        greeting = loads(frames)
    except Exception:  # noqa: BLE001 - whatever the bytes are, they are no Dask greeting
        return None
    return greeting if isinstance(greeting, dict) and "pickle-protocol" in greeting else None


def connect(address: str):
    """A Dask client for ``address`` (``tcp://HOST:PORT``); a clear error when no scheduler answers there."""
    probe_scheduler(address)
    from distributed import Client

    try:
        return Client(address, timeout=f"{CONNECT_SECONDS:g}s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"--cluster: cannot reach a Dask scheduler at {address}: {exc}") from None


def worker_version() -> str:
    """The code version of the process this runs in (:func:`bench.toolchain.sources.code_version`), called on each
    worker."""
    return sources.code_version()


def check_workers(client, address: str, workers: list[str] | None = None) -> None:
    """Refuse a cluster where a worker runs other code than this process: its counts could be another code's.

    ``workers`` limits the question to those (None: every worker).

    Raises
    ------
    UsageError
        Naming the worker and both versions, or why a worker could not answer.
    """
    ours = sources.code_version()
    try:
        theirs = client.run(worker_version, workers=workers)
    except Exception as exc:  # noqa: BLE001 - a worker without bench, or another that fails, says why in one line
        raise UsageError(f"--cluster {address}: a worker cannot run bench: {type(exc).__name__}: {exc}") from None
    for worker, version in sorted(theirs.items()):
        if version != ours:
            raise UsageError(f"--cluster {address}: the worker {worker} runs bench {_short(version)} where this "
                             f"process runs {_short(ours)}; give every worker this code (the same version and "
                             "checkout) and start it again")


def _short(version: str) -> str:
    number, _, digest = version.partition("+")
    return f"{number} (code {digest[:12]})"


def dispatch_cost(client, tasks: int = 40) -> float:
    """Seconds per task of a round trip through the scheduler, measured with tasks that do nothing."""
    start = time.perf_counter()
    futures = [client.submit(_noop, k, pure=False) for k in range(tasks)]
    client.gather(futures)
    return (time.perf_counter() - start) / tasks


def solve_bundle(payload, subs: list, version: str | None = None) -> list[dict]:
    """Solve several sub-problems in one task (one round trip through the scheduler for all of them).

    ``version`` is the code version of the process that sent the task: a
    worker running other code (one that joined after :func:`check_workers`)
    refuses the task rather than count with that code.  The kernels are
    loaded first (a no-op once they are), so that no sub-problem's time
    holds their loading.
    """
    if version is not None and worker_version() != version:
        raise RuntimeError(f"this worker runs bench {_short(worker_version())}, the task came from "
                           f"{_short(version)}")
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
        self.payload = payload
        self.remote = client.scatter(payload, broadcast=True, hash=False)
        self.version = worker_version()
        self.futures: dict = {}
        self.tries: dict = {}
        self.finished = as_completed()

    def __len__(self) -> int:
        """Tasks submitted and not yet yielded."""
        return len(self.futures)

    def submit(self, bundle: list) -> None:
        """Queue one task solving the sub-problems of ``bundle`` in order."""
        key = self._key(bundle)
        tries = self.tries.get(key, 0)
        future = self.client.submit(solve_bundle, self.remote, list(bundle), self.version,
                                    key=key + (f"~{tries}" if tries else ""), pure=False, retries=2)
        self.futures[future] = bundle
        self.finished.add(future)

    def __iter__(self):
        for future in self.finished:
            bundle = self.futures.pop(future)
            try:
                # a result held by a worker that died since is computed again (the call waits for it)
                outcomes = future.result()
            except CancelledError as error:
                if self._resubmitted(bundle):
                    continue
                yield from ((sub, error) for sub in bundle)
            except Exception as error:
                yield from ((sub, error) for sub in bundle)
            else:
                yield from zip(bundle, outcomes)

    def _key(self, bundle: list) -> str:
        return f"bench-{self.key[:12]}-{bundle[0].ident}+{len(bundle)}"

    def _resubmitted(self, bundle: list) -> bool:
        """Submit ``bundle`` again after the scheduler cancelled its task, scattering the payload again if it was lost.

        Dask's active memory manager keeps one replica of scattered data that
        no task waits for, so the payload can live on a single worker; when
        that worker is removed (killed, or stopped and dropped by the
        watchdog) the payload is gone and the scheduler cancels every task
        that needs it ("already forgotten").  A bundle is tried again a
        bounded number of times, so that a cluster that keeps losing it ends
        the run with the error instead of looping.
        """
        key = self._key(bundle)
        self.tries[key] = self.tries.get(key, 0) + 1
        if self.tries[key] > RESUBMISSIONS:
            return False
        # the payload is a tuple, scattered as one future per part
        if any(part.status != "finished" for part in self.remote) or \
                not all(self.client.who_has(list(self.remote)).values()):
            self.remote = self.client.scatter(self.payload, broadcast=True, hash=False)
        self.submit(bundle)
        return True

    def close(self) -> None:
        """Cancel every task still queued or running."""
        self.client.cancel(list(self.futures))


class ClusterWatchdog:
    """Asks the scheduler, every few seconds, to remove the workers whose heartbeat has been silent for ``seconds``.

    A worker stopped by SIGSTOP keeps its tasks, and Dask's own limit is
    five minutes: removed, its tasks go back to the other workers.  Used as
    a context manager around everything a run asks of the cluster.
    """

    def __init__(self, client, seconds: float = STALL_SECONDS):
        self.client = client
        self.seconds = seconds
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True, name="bench-cluster-watchdog")

    def __enter__(self) -> "ClusterWatchdog":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.closed.set()

    def _watch(self) -> None:
        seconds = self.seconds

        # defined here, so that it travels by value: the scheduler need not have bench installed
        async def drop_silent(dask_scheduler=None):
            import time as clock

            now = clock.time()
            silent = [ws.address for ws in dask_scheduler.workers.values() if now - ws.last_seen > seconds]
            for address in silent:
                await dask_scheduler.remove_worker(address=address, stimulus_id=f"bench-silent-worker-{now}",
                                                   close=False)
            return silent

        while not self.closed.wait(min(seconds / 2, 2.0)):
            try:
                dropped = self.client.run_on_scheduler(drop_silent)
            except Exception:  # noqa: BLE001 - a watchdog that cannot ask leaves the run to Dask's own limit
                continue
            for address in dropped:
                print(f"bench: the worker {address} stopped answering (no heartbeat for {seconds:g} s); its tasks "
                      "go to the other workers", file=sys.stderr)


def responsive_workers(client, seconds: float) -> list[str]:
    """The workers whose last heartbeat is under ``seconds`` old: the ones a call to every worker can wait for."""

    async def fresh(dask_scheduler=None):
        import time as clock

        now = clock.time()
        return [ws.address for ws in dask_scheduler.workers.values() if now - ws.last_seen < seconds]

    return client.run_on_scheduler(fresh)


@contextmanager
def loopback_cluster(workers: int, cwd=None, worker_options=()):
    """A Dask scheduler and ``workers`` one-thread workers on 127.0.0.1, for tests and benchmarks; yields the address.

    ``worker_options`` are added to every worker's command line (``--preload SCRIPT``).
    """
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
        procs += [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                    "--no-dashboard", *worker_options], **quiet) for _ in range(workers)]
        with Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for process in procs[::-1]:
            process.terminate()
        for process in procs:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                # a worker closing gracefully can wait on a peer that is gone
                process.kill()
                process.wait()
