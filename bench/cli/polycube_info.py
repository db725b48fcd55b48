"""The lines polycube's ``-i`` prints around a search beyond the configuration, facts and counters.

Before the search: ``START_TIME``, ``VERSION`` and ``GRIDBITFIELD_SIZE``
(the most open cells FILA takes over: bench picks one or two 64-bit words
per hand-off, so 128); after it: the per-phase timing table and
``STOP_TIME``, in polycube's layout (``shared/reference/polycube-2.0-README.txt``,
INFORMATIONAL OUTPUT).  bench's phases are its own: parsing, encoding the
matrix with its one-shot filters, the JIT compile (outside ``all``: it
happens once per machine, not per solve), the search's set-up and the
search itself, FILA's hand-offs counted as events.
"""

from __future__ import annotations

import time

from bench import __version__
from bench.engines.fila import MAX_CELLS
from bench.toolchain import aot

TIME_FORMAT = "%d/%b/%Y %H:%M:%S %Z"


def header_lines(started: float) -> list[str]:
    """``START_TIME``, ``VERSION`` and ``GRIDBITFIELD_SIZE``, with polycube's comments."""
    return ["# Program start time", f"START_TIME={time.strftime(TIME_FORMAT, time.localtime(started))}",
            "# bench version (polycube 2.0 command line)", f"VERSION={__version__}",
            "# Most open cells FILA takes over (one or two 64-bit occupancy words)", f"GRIDBITFIELD_SIZE={MAX_CELLS}"]


def phases(result, prepare_timings: dict) -> list[tuple[str, float, int]]:
    """``(name, seconds, events)`` of each phase, ``all`` first."""
    t = result.timings
    handoffs = result.stats.get("fila", {}).get("handoffs", 0)
    rows = [("parsing", t.get("parse", 0.0), 1),
            ("puzzleInit", prepare_timings.get("encode", 0.0) + prepare_timings.get("filter", 0.0), 1),
            ("solveInit", t.get("setup", 0.0) + t.get("split", 0.0), 1),
            ("solveAlgo", t.get("solve", 0.0), 1)]
    if handoffs:
        rows.append(("filaInit", t.get("fila_setup", 0.0), handoffs))
    total = sum(seconds for name, seconds, _ in rows if name != "filaInit")
    return [("all", total, 1), *rows, ("compile", t.get("compile", 0.0), 1)]


def timing_table(result, prepare_timings: dict) -> list[str]:
    """polycube's ``NAME : TOTAL TIME : PERCENTAGE : NUM EVENTS : AVG TIME`` table (percentages of ``all``)."""
    rows = phases(result, prepare_timings)
    total = rows[0][1]
    lines = ["NAME : TOTAL TIME : PERCENTAGE : NUM EVENTS : AVG TIME", "_" * 79]
    for name, seconds, events in rows:
        share = "*" if name in ("all", "compile") or total <= 0 else f"{100 * seconds / total:.3f}%"
        lines.append(f"{name} : {seconds:.6f} : {share} : {events}: {seconds / max(events, 1):.3f}")
    return lines


def kernel_lines() -> list[str]:
    """``KERNEL_LIBRARIES``: the kernel libraries this process ran on, or ``none`` and why numba compiled instead."""
    loaded = aot.loaded()
    reason = None if loaded else aot.buildable()
    value = ",".join(loaded) if loaded else "none" + (f" (numba's JIT: {reason})" if reason else "")
    return ["# Kernel libraries built ahead of time this process ran on (bench.toolchain.aot)",
            f"KERNEL_LIBRARIES={value}"]


def footer_lines(result, prepare_timings: dict, stopped: float) -> list[str]:
    """The kernel libraries, the timing table and ``STOP_TIME``."""
    return kernel_lines() + timing_table(result, prepare_timings) + [
        "# Program stop time", f"STOP_TIME={time.strftime(TIME_FORMAT, time.localtime(stopped))}"]
