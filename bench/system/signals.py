"""What the signals a user sends ask of a running search.

SIGINT (Ctrl-C), SIGTERM and SIGHUP all ask for the same orderly stop.  The
native searches poll for it between kernel slices (about 20 ms apart) and
return with the counts so far, every solution found handed to the caller
first; anywhere else (encoding, the libraries of the other engines, the
parent of a split solve) the stop arrives as :class:`KeyboardInterrupt`,
exactly as Python's own Ctrl-C does, so every ``except KeyboardInterrupt``
path serves all three signals.  A second stop signal while a search polls
raises at once, for a user who does not want to wait.

SIGUSR1 asks a running native search to print its status and statistics so
far on standard error, and SIGUSR2 toggles its trace: polycube's signals 10
and 12.

Handlers are installed only by the command line, for the duration of one
command (:func:`handled`); a library user keeps Python's defaults, under
which the searches still stop on :class:`KeyboardInterrupt`.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
STATUS_SIGNAL = getattr(signal, "SIGUSR1", None)
TRACE_SIGNAL = getattr(signal, "SIGUSR2", None)
_DEFERRED = {*STOP_SIGNALS, STATUS_SIGNAL, TRACE_SIGNAL} - {None}


class _Requests:
    """What the signals received so far ask for (read and cleared by the running search)."""

    def __init__(self):
        self.stop: int | None = None
        self.polling = 0
        self.status = False
        self.trace_toggles = 0


_requests = _Requests()


def _on_stop(signum, frame) -> None:
    first = _requests.stop is None
    if first:
        _requests.stop = signum
    if not _requests.polling or not first:
        raise KeyboardInterrupt


def _on_status(signum, frame) -> None:
    _requests.status = True


def _on_trace(signum, frame) -> None:
    _requests.trace_toggles += 1


@contextlib.contextmanager
def handled():
    """Install the handlers of this module for the duration of a command, then restore the previous ones; the
    command's requests are its own (:func:`scope`).

    Outside the main thread (where Python allows no handler) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = {s: _on_stop for s in STOP_SIGNALS}
    if STATUS_SIGNAL is not None:
        wanted[STATUS_SIGNAL] = _on_status
        wanted[TRACE_SIGNAL] = _on_trace
    with scope():
        previous = {s: signal.signal(s, handler) for s, handler in wanted.items()}
        try:
            yield
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)


@contextlib.contextmanager
def scope():
    """Requests of one command or one call of the Python API: none on entry, and none of them left after it.

    A stop that ended one solve must not end the next one the same process
    starts (a notebook's second ``bench.solve`` after a Ctrl-C, a test after
    one that interrupts its search): without a scope each of them would
    find the old request and stop after its first slice.
    """
    global _requests
    previous, _requests = _requests, _Requests()
    try:
        yield
    finally:
        _requests = previous


@contextlib.contextmanager
def polled():
    """Declare that the caller polls :func:`stop_requested` often: a stop signal then only sets the request."""
    _requests.polling += 1
    try:
        yield
    finally:
        _requests.polling -= 1


@contextlib.contextmanager
def deferred():
    """Hold this module's signals back while the caller writes: a write to a pipe that a handler interrupts
    loses the rest of its data without a word (CPython's buffered writer), so solutions are written whole
    and the signal is handled right after.  A fork is held the same way: a :class:`KeyboardInterrupt` raised
    in ``fork``'s own handlers (the logging module's locks) is printed as "Exception ignored" and lost.
    Where signals cannot be blocked (Windows) this does nothing.
    """
    mask = _DEFERRED
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, mask)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def forget_requests() -> None:
    """Drop every request received so far: a forked process starts with none of its parent's."""
    global _requests
    _requests = _Requests()


def release() -> None:
    """In a child forked under :func:`deferred`: take this module's signals back (the mask is inherited)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _DEFERRED)


def stop_requested() -> int | None:
    """The signal that asked to stop (None when none did)."""
    return _requests.stop


def note_interrupt() -> int:
    """The stop signal behind a :class:`KeyboardInterrupt` just caught (SIGINT when no handler recorded one)."""
    if _requests.stop is None:
        _requests.stop = signal.SIGINT
    return _requests.stop


def status_requested() -> bool:
    """True once per SIGUSR1: the search should print its status now."""
    wanted, _requests.status = _requests.status, False
    return wanted


def trace_toggled() -> bool:
    """True when SIGUSR2 arrived an odd number of times since the last call: the trace flips."""
    toggles, _requests.trace_toggles = _requests.trace_toggles, 0
    return toggles % 2 == 1


def signal_name(signum: int) -> str:
    """``SIGINT (Ctrl-C)``, ``SIGTERM``, ..."""
    name = signal.Signals(signum).name
    return f"{name} (Ctrl-C)" if signum == signal.SIGINT else name


def exit_status(signum: int) -> int:
    """The shell's convention for a process stopped by a signal: 128 + its number (130 for Ctrl-C)."""
    return 128 + int(signum)


def write_status(lines: list[str]) -> None:
    """Print a status report (SIGUSR1) on standard error, where it cannot mix with solutions."""
    sys.stderr.write("\n".join(lines) + "\n")
    sys.stderr.flush()
