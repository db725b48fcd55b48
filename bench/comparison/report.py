"""The per-engine lines of a result file, and the detail table and CSV made of them.

Everything here reads stored result documents (see :mod:`bench.comparison.results`);
nothing runs a solver.  One line per puzzle and engine: the status over the
rounds, the counts, the median solve time (compile time apart, listed once
per engine by the reports) with the fastest and slowest round, the ratio of
medians to the fastest engine that finished the same puzzle (only where
both times are above :data:`RESOLUTION`), and the machine-independent
counters of that engine.  The compact puzzle x engine table is
:mod:`bench.comparison.summary`'s.
"""

from __future__ import annotations

import csv
import io
import statistics

from bench.comparison.tables import render_table
from bench.text import csv_cell, escape

FINISHED = ("solved", "limit")
RESOLUTION = 0.01
"""Seconds below which times are shown but never ranked or divided (see :mod:`bench.comparison.summary`)."""
STAT_KEYS = ("nodes", "fits", "no_fits", "branches", "conflicts", "decisions", "clauses")
# what the in-search triggers and filters did, shown when they did something
CONSTRAINT_KEYS = ("parity_backtracks", "volume_backtracks", "isolated_backtracks", "parity_filtered",
                   "volume_filtered", "fit_filtered")


def _seconds(x) -> str:
    if x is None:
        return ""
    if x < 0.001:
        # below a millisecond the digits are the cost of a call, not the search's
        return "<0.001 s"
    return f"{x:.3g} s" if x < 10 else f"{x:.1f} s"


def _stats_text(stats: dict) -> str:
    shown = [k for k in STAT_KEYS if isinstance(stats.get(k), int)] + [k for k in CONSTRAINT_KEYS if stats.get(k)]
    return " ".join(f"{k}={stats[k]:,}" for k in shown)


def summarize(document: dict) -> list[dict]:
    """One line per puzzle and engine, with medians over rounds and ratios to the fastest."""
    problems: dict[str, list[str]] = {}
    for p in document.get("validation", []):
        problems.setdefault(p["puzzle"], []).append(p["kind"])
    groups: dict[tuple, list[dict]] = {}
    for r in document["rows"]:
        groups.setdefault((r["puzzle"], r["cover_hash"], r["engine"]), []).append(r)
    lines = []
    for (puzzle, cover_hash, engine), rows in groups.items():
        statuses = sorted({r["status"] for r in rows})
        finished = [r for r in rows if r["status"] in FINISHED]
        best = finished[0] if finished else rows[0]
        times = [r["solve"] for r in finished if r["solve"] is not None]
        lines.append({
            "puzzle": puzzle, "cover_hash": cover_hash, "engine": engine, "variant": best["variant"],
            "status": statuses[0] if len(statuses) == 1 else "/".join(statuses),
            "rounds": len(rows), "covers": best["covers"], "unique": best["unique"], "total": best["total"],
            "solve": statistics.median(times) if times else None,
            "best": min(times) if times else None, "worst": max(times) if times else None,
            "compile": best.get("compile"), "stats": best.get("stats") or {}, "message": best.get("message", ""),
            "workers": best.get("workers", 1),
            "check": "MISMATCH" if "mismatch" in problems.get(puzzle, []) else "ok",
        })
    fastest: dict[str, float] = {}
    for line in lines:
        if line["status"] == "solved" or (line["status"] == "limit" and document["run_settings"].get("mode") == "first"):
            if line["solve"] is not None:
                fastest[line["puzzle"]] = min(fastest.get(line["puzzle"], float("inf")), line["solve"])
    for line in lines:
        base = fastest.get(line["puzzle"])
        timed = base is not None and base >= RESOLUTION and line["solve"] is not None
        line["ratio"] = line["solve"] / base if timed and line["status"] in FINISHED else None
    return lines


def detail(document: dict) -> tuple[list[str], list[list[str]]]:
    """The detail table: its headers, and its cells for each line of :func:`summarize`.

    Times carry their unit; the fastest and slowest rounds have columns only
    when some engine ran more than one round; statistics and reasons are
    whole, never cut.
    """
    lines = summarize(document)
    timeout = document["run_settings"].get("timeout")
    rounds = any(line["rounds"] > 1 for line in lines)
    headers = (["puzzle", "engine (variant)", "status", "covers", "unique", "total", "median"]
               + (["fastest round", "slowest round"] if rounds else [])
               + ["vs fastest", "statistics or reason", "counts"])
    out = []
    for line in lines:
        finished = line["status"] in FINISHED
        solve = f">{timeout:g} s" if line["status"] == "timeout" and timeout else _seconds(line["solve"])
        spread = [_seconds(line["best"]), _seconds(line["worst"])] if finished and line["rounds"] > 1 else ["", ""]
        ratio = "" if line["ratio"] is None else f"{line['ratio']:.2f}×" if line["ratio"] < 10 else f"{line['ratio']:.0f}×"
        out.append([
            escape(line["puzzle"]), line["engine"] + (f" ({line['variant']})" if line["variant"] else "")
            + (f" on {line['workers']} workers" if line["workers"] != 1 else ""), line["status"],
            _count(line["covers"]), _count(line["unique"]), _count(line["total"]), solve]
            + (spread if rounds else [])
            + [ratio, (_stats_text(line["stats"]) if finished else "") or escape(line["message"]), line["check"]])
    return headers, out


def _count(value) -> str:
    return "" if value is None else f"{value:,}"


def compile_times(document: dict) -> dict[str, float]:
    """Each engine's JIT compile seconds (done once per run, before any timing); engines that compile nothing left out."""
    out: dict[str, float] = {}
    for r in document["rows"]:
        if r.get("compile"):
            out.setdefault(r["engine"], r["compile"])
    return out


def render_run(document: dict, fmt: str = "simple") -> str:
    """The detail table of a run, one line per puzzle and engine (``fmt``: ``simple`` or ``github``, :mod:`bench.comparison.tables`)."""
    headers, rows = detail(document)
    if not rows:
        return "no puzzles were run"
    return render_table(rows, headers, fmt)


def render_csv(document: dict) -> str:
    """The summary as CSV, one line per puzzle and engine; a cell a spreadsheet would run as a formula is quoted."""
    buf = io.StringIO()
    fields = ["puzzle", "cover_hash", "engine", "variant", "workers", "status", "rounds", "covers", "unique", "total",
              "solve", "best", "worst", "compile", "ratio", "check", "message"]
    writer = csv.DictWriter(buf, fieldnames=fields + [f"stat_{k}" for k in STAT_KEYS + CONSTRAINT_KEYS], extrasaction="ignore")
    writer.writeheader()
    for line in summarize(document):
        row = {**line, **{f"stat_{k}": line["stats"].get(k) for k in STAT_KEYS + CONSTRAINT_KEYS}}
        writer.writerow({k: csv_cell(v) for k, v in row.items()})
    return buf.getvalue()
