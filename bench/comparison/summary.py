"""The run's summary: one row per puzzle, one column per engine, then one verdict line.

The same table closes ``bench run`` on the terminal (it fits 120 columns)
and opens the Markdown and HTML reports; the full per-row detail stays in
the result file and ``bench report``'s detail table.

Each engine's cell is its median solve time over the rounds, with the
spread (half the range between the slowest and fastest round, relative to
the median, ``±N%``) when there was more than one round, or why there is no
time: ``>T`` (timed out at T seconds), ``skip`` (not applicable or not
installed), ``ERROR``, ``-`` (not run: a static check proved the puzzle
unsolvable).  A ``*`` marks the fastest engine of a puzzle when its time is
above :data:`RESOLUTION`.  Then the counts every engine that finished agreed
on (``unique/total``, or the covers alone where no engine could tell
unique from total) and ``agreed``, ``MISMATCH``, ``ERROR``, ``proof``
(unsolvable without search) or ``open`` (no engine finished).

Times below :data:`RESOLUTION` are not ranked and not divided: a solve that
short measures the fixed cost of a call (the Python side of starting a
kernel and collecting its result, tens to hundreds of microseconds) and the
scheduler's noise on a shared host (a time slice is 4 ms at HZ=250), not
the search, which is how a report came to print "406x" for two engines that
both took under a millisecond.
"""

from __future__ import annotations

import textwrap

from bench.comparison.report import RESOLUTION, summarize
from bench.comparison.tables import render_table
from bench.comparison.validation import INPUT
from bench.text import escape

WIDTH = 120
PUZZLE_WIDTH = 28
STATUS_WORDS = {"skipped": "skip", "error": "ERROR", "interrupted": "stopped", "limit": "limit"}


def _seconds(x: float) -> str:
    # below a millisecond the digits are the cost of a call, not the search's
    if x < 0.001:
        return "<0.001"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def spread(line: dict) -> float | None:
    """Half the range of the rounds' times relative to their median, or None with one round or no time."""
    if line["rounds"] < 2 or not line["solve"] or line["worst"] is None:
        return None
    return (line["worst"] - line["best"]) / 2 / line["solve"]


def cell(line: dict | None, timeout, first_mode: bool, with_spread: bool = True) -> str:
    """The text of one engine's cell for one puzzle."""
    if line is None:
        return ""
    status = line["status"]
    if line.get("static"):
        return "-"
    if status == "solved" or (status == "limit" and first_mode):
        text = _seconds(line["solve"]) if line["solve"] is not None else "?"
        s = spread(line) if with_spread else None
        if s is not None:
            text += f" ±{s * 100:.0f}%"
        return text
    if status == "timeout":
        return f">{timeout:g}" if timeout else "timeout"
    return STATUS_WORDS.get(status, status if "/" not in status else "mixed")


def short_name(key: str, width: int = PUZZLE_WIDTH) -> str:
    """A puzzle's key without ``.txt``, control characters escaped, cut in the middle to ``width`` characters."""
    name = escape(key.replace(".txt", ""))
    if len(name) <= width:
        return name
    half = (width - 1) // 2
    return name[:half] + "…" + name[-(width - 1 - half):]


def grid(document: dict) -> dict:
    """The summary as data: puzzles, engines, per puzzle the lines by engine, the counts, the check and the fastest."""
    lines = summarize(document)
    first_mode = document["options"].get("mode") == "first"
    engines = [e for e in document["options"].get("engines", [])]
    for line in lines:
        if line["engine"] not in engines and line["engine"] != "static-check":
            engines.append(line["engine"])
    puzzles: list[str] = []
    by_puzzle: dict[str, dict[str, dict]] = {}
    for line in lines:
        if line["puzzle"] not in by_puzzle:
            puzzles.append(line["puzzle"])
            by_puzzle[line["puzzle"]] = {}
        by_puzzle[line["puzzle"]][line["engine"]] = line
    problems: dict[str, set[str]] = {}
    for p in document.get("validation", []):
        problems.setdefault(p["puzzle"], set()).add(p["kind"])
    rows = []
    for puzzle in puzzles:
        mine = by_puzzle[puzzle]
        proof = mine.get("static-check")
        if proof is not None:
            for engine in engines:
                if engine in mine:
                    mine[engine]["static"] = True
        finished = [mine[e] for e in engines if e in mine and mine[e]["status"] == "solved"] + ([proof] if proof else [])
        timed = [(mine[e]["solve"], e) for e in engines if e in mine and not mine[e].get("static")
                 and (mine[e]["status"] == "solved" or (first_mode and mine[e]["status"] == "limit"))
                 and mine[e]["solve"] is not None]
        fastest = min(timed)[1] if len(timed) > 1 and min(timed)[0] >= RESOLUTION else None
        kinds = problems.get(puzzle, set())
        check = ("MISMATCH" if "mismatch" in kinds else "ERROR" if "error" in kinds else
                 "proof" if proof else "agreed" if finished else "found" if first_mode and timed else "open")
        rows.append({"puzzle": puzzle, "lines": mine, "counts": _counts(finished), "check": check, "fastest": fastest,
                     "timed": len(timed)})
    return {"engines": engines, "rows": rows, "timeout": document["options"].get("timeout"), "first_mode": first_mode,
            "rounds": document["options"].get("rounds", 1)}


def _counts(finished: list[dict]) -> str:
    for line in finished:
        if line["unique"] is not None and line["total"] is not None:
            return f"{line['unique']:,}/{line['total']:,}"
    for line in finished:
        if line["covers"] is not None:
            return f"{line['covers']:,} c."
    return ""


def table(document: dict, fmt: str = "simple", width: int = WIDTH) -> str:
    """The puzzle x engine table (``fmt``: ``simple`` or ``github``), with a legend when engine names had to be numbered."""
    g = grid(document)
    if not g["rows"]:
        return "no puzzles were run"
    attempts = [(True, False), (True, True), (False, True)]  # (spread, numbered engines)
    for with_spread, numbered in attempts:
        text = _render(g, fmt, with_spread, numbered, width)
        if max(len(line) for line in text.splitlines()) <= width:
            break
    return text


def _render(g: dict, fmt: str, with_spread: bool, numbered: bool, width: int) -> str:
    engines = g["engines"]
    headers = ["puzzle"] + [f"E{i + 1}" if numbered else e for i, e in enumerate(engines)] + ["unique/total", "counts"]
    body = []
    for row in g["rows"]:
        cells = []
        for engine in engines:
            text = cell(row["lines"].get(engine), g["timeout"], g["first_mode"], with_spread)
            cells.append(text + ("*" if engine == row["fastest"] else ""))
        body.append([short_name(row["puzzle"])] + cells + [row["counts"], row["check"]])
    out = render_table(body, headers, fmt, colalign=["left"] + ["right"] * (len(engines) + 1) + ["left"])
    split: dict[int, list[str]] = {}
    for engine in engines:
        workers = {line["workers"] for row in g["rows"] for e, line in row["lines"].items() if e == engine}
        for w in workers - {1}:
            split.setdefault(w, []).append(engine)
    if split:
        out += "\n" + "; ".join(f"on {w} workers: {', '.join(names)}" for w, names in sorted(split.items()))
    if numbered:
        out += "\n\n" + "\n".join(textwrap.wrap("; ".join(f"E{i + 1} = {e}" for i, e in enumerate(engines)), width,
                                                 break_on_hyphens=False))
    return out


def verdict(document: dict) -> str:
    """One line: how many puzzles and engines, whether the counts agree, and who was fastest where it can be told."""
    g = grid(document)
    n_puzzles, n_engines = len(g["rows"]), len(g["engines"])
    head = f"{n_puzzles} puzzle{'s' * (n_puzzles != 1)}, {n_engines} engine{'s' * (n_engines != 1)}: "
    mismatched = [short_name(r["puzzle"]) for r in g["rows"] if r["check"] == "MISMATCH"]
    errors = [short_name(r["puzzle"]) for r in g["rows"] if r["check"] == "ERROR"]
    parts = []
    if mismatched:
        shown = ", ".join(mismatched[:4]) + (", ..." if len(mismatched) > 4 else "")
        parts.append(f"counts DISAGREE on {len(mismatched)} ({shown})")
    else:
        parts.append("all counts agree")
    if errors:
        parts.append(f"engine ERRORS on {len(errors)} ({', '.join(errors[:4])})")
    wins: dict[str, int] = {}
    for r in g["rows"]:
        if r["fastest"]:
            wins[r["fastest"]] = wins.get(r["fastest"], 0) + 1
    ranked = [r for r in g["rows"] if r["timed"] > 1]
    if wins:
        order = sorted(wins.items(), key=lambda kv: (-kv[1], kv[0]))
        parts.append("; ".join(f"{e} fastest on {n}" for e, n in order[:3])
                     + f" (of {sum(wins.values())} puzzles timed above {RESOLUTION * 1000:g} ms by two engines or more)")
    elif ranked:
        parts.append(f"the fastest engine took under {RESOLUTION * 1000:g} ms on every puzzle: too short to rank")
    inputs = sorted({escape(p["puzzle"]) for p in document.get("validation", []) if p["kind"] == INPUT})
    if inputs:
        parts.append(f"INPUT problems in {len(inputs)} file{'s' * (len(inputs) != 1)} ({', '.join(inputs[:4])}"
                     f"{', ...' if len(inputs) > 4 else ''}): not compared")
    unfinished = sum(1 for r in g["rows"] for e in g["engines"]
                     if r["lines"].get(e) and r["lines"][e]["status"] == "timeout")
    if unfinished:
        parts.append(f"{unfinished} timeout{'s' * (unfinished != 1)}")
    return head + "; ".join(parts)
