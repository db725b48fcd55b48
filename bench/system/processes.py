"""Child processes that never outlive their parent, and calls that a deadline can stop.

Every process ``bench`` forks (pool workers of a split solve, the isolated
child of ``bench run``, a counting call under a time limit) calls
:func:`die_with_parent` first, so killing ``bench`` (even with SIGKILL,
which no handler sees) kills its children too: on Linux the kernel sends
the child SIGKILL when its parent dies (``PR_SET_PDEATHSIG``); elsewhere a
watchdog thread polls the parent.  Grandchildren follow in a chain, each
dying with its own parent.

:func:`call_with_deadline` runs a call that cannot be interrupted from
Python (a C library's count) in such a child and kills it at the deadline,
or as soon as a stop signal reaches this process.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback

from bench.system import signals

PR_SET_PDEATHSIG = 1
WATCHDOG_SECONDS = 0.5


def die_with_parent(parent_pid: int) -> None:
    """Make this (forked) process die when ``parent_pid``, the process that forked it, dies.

    Call it first thing in the child, with the parent's pid taken before
    the fork: a parent that died in between is then noticed at once.
    """
    if not _ask_kernel():
        threading.Thread(target=_watch, args=(parent_pid,), daemon=True, name="bench-watchdog").start()
    if os.getppid() != parent_pid:
        os._exit(1)


def _ask_kernel() -> bool:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)``; False where the kernel has no such call."""
    if not sys.platform.startswith("linux"):
        return False
    # lazy: ctypes.util imports subprocess and more, 2 ms of every run that starts no child
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(WATCHDOG_SECONDS)
    os._exit(1)


class Overdue(Exception):
    """A call run by :func:`call_with_deadline` did not finish in time (it was killed)."""


STOP_POLL = 0.1
"""Seconds between two looks at the stop flag while :func:`call_with_deadline` waits for its child."""


def call_with_deadline(function, seconds: float | None, *args, relay=None):
    """``function(*args)`` in a forked child that dies with this process, killed after ``seconds`` (None: never).

    For a call that cannot be interrupted from Python (a C library's
    search): it is killed at the deadline, or at once when a stop signal
    reaches this process while it waits (the ``KeyboardInterrupt`` goes on
    to the caller).  The child shares everything built before the call (no
    copying, no pickling of the arguments); only the return value travels
    back, so it must be picklable.  With ``relay``, the child calls
    ``function(*args, forward)``, and each ``forward(*items)`` there is a
    ``relay(*items)`` here, in order, while the call runs (the covers of an
    enumeration, printed or kept by this process).

    Raises
    ------
    Overdue
        When the deadline passed first.
    RuntimeError
        When the child crashed or raised (with the exception's last line).
    """
    # a child only for a deadline: a plain solve spares multiprocessing's import
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_call_child, args=(function, args, send, os.getpid(), relay is not None),
                            daemon=True)
    deadline = None if seconds is None else time.monotonic() + max(seconds, 0.0)
    with signals.deferred():
        child.start()
    send.close()
    try:
        while True:
            # a stop whose KeyboardInterrupt something swallowed before this call (a library's set-up, an import)
            # is still asked for: seen here within a tenth of a second, the child never outlives it
            if signals.stop_requested() is not None:
                raise KeyboardInterrupt
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if not receive.poll(STOP_POLL if left is None else min(left, STOP_POLL)):
                if left is not None and left <= STOP_POLL:
                    raise Overdue(f"killed after {seconds:g} s")
                continue
            try:
                kind, value = receive.recv()
            except EOFError:
                child.join(5)
                raise RuntimeError(f"the child process crashed (exit code {child.exitcode})") from None
            if kind == "items":
                relay(*value)
            elif kind == "error":
                raise RuntimeError(value)
            else:
                return value
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receive.close()


def _call_child(function, args, send, parent_pid: int, relayed: bool) -> None:
    try:
        die_with_parent(parent_pid)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it kills this child
        signals.release()  # deferred by the parent while it forked
    except KeyboardInterrupt:
        # a stop signal that reached this child while its mask still held it (seen on CI as a traceback of the
        # child's beside the parent's orderly stop): the parent stops too and says so; nothing was computed here
        send.close()
        os._exit(1)
    try:
        if relayed:
            send.send(("value", function(*args, lambda *items: send.send(("items", items)))))
        else:
            send.send(("value", function(*args)))
    except BaseException as exc:
        send.send(("error", traceback.format_exception_only(type(exc), exc)[-1].strip()))
    finally:
        send.close()
