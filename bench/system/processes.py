"""Child processes that never outlive their parent, and calls that a deadline can stop.

Every process ``bench`` forks (pool workers of a split solve, the isolated
child of ``bench run``, a counting call under a time limit) calls
:func:`die_with_parent` first, so killing ``bench`` (even with SIGKILL,
which no handler sees) kills its children too: on Linux the kernel sends
the child SIGKILL when its parent dies (``PR_SET_PDEATHSIG``); elsewhere a
watchdog thread polls the parent.  Grandchildren follow in a chain, each
dying with its own parent.

:func:`call_with_deadline` runs a call that cannot be interrupted from
Python (a C library's count) in such a child and kills it at the deadline.

:func:`exit_now` ends the ``bench`` program without the interpreter's
tear-down, which costs 0.07 s on an idle machine (0.2 s on a busy one).
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback

PR_SET_PDEATHSIG = 1
WATCHDOG_SECONDS = 0.5


def exit_now(status: int) -> None:
    """End the program with ``status`` once the exit handlers have run and the standard streams are flushed.

    The interpreter's own tear-down frees every object one by one (numba's
    and LLVM's a hundred thousand of them, whose memory the kernel reclaims
    at once anyway): 0.07 s of every run on an idle machine, 0.2 s on a
    busy one, serial time that no second core can share.  Files ``bench``
    writes are closed (or fsynced) where they are written, never left to
    the tear-down.
    """
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            # a reader gone away, or a stream already closed: nothing more can reach it
            status = status or 1
    os._exit(status)


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


def call_with_deadline(function, seconds: float | None, *args):
    """``function(*args)`` in a forked child that dies with this process, killed after ``seconds``.

    The child shares everything built before the call (no copying, no
    pickling of the arguments); only the return value travels back, so it
    must be picklable.  With ``seconds`` None the call runs here.

    Raises
    ------
    Overdue
        When the deadline passed first.
    RuntimeError
        When the child crashed or raised (with the exception's last line).
    """
    if seconds is None:
        return function(*args)
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_call_child, args=(function, args, send, os.getpid()), daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(max(seconds, 0.0)):
            raise Overdue(f"killed after {seconds:g} s")
        try:
            ok, value = receive.recv()
        except EOFError:
            child.join(5)
            raise RuntimeError(f"the child process crashed (exit code {child.exitcode})") from None
        if not ok:
            raise RuntimeError(value)
        return value
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receive.close()


def _call_child(function, args, send, parent_pid: int) -> None:
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it kills this child
    try:
        send.send((True, function(*args)))
    except BaseException as exc:
        send.send((False, traceback.format_exception_only(type(exc), exc)[-1].strip()))
    finally:
        send.close()
