"""The run's summary: one row per puzzle, one column per engine, then one verdict line.

The same table closes ``bench run`` on the terminal (it fits 120 columns)
and opens the Markdown and HTML reports; the full per-row detail stays in
the result file and ``bench report``'s detail table.

Each engine's cell is its median solve time over the rounds, with the
spread (half the range between the slowest and fastest round, relative to
the median, ``±N%``) when there was more than one round, or why there is no
time: ``>T`` (timed out at T seconds), ``skip`` (not applicable or not
installed), ``slow`` (left out of a quick run: slower than its timeout
there, as ``expected.toml`` says), ``ERROR``, ``-`` (not run: a static check
proved the puzzle unsolvable).  A ``*`` marks the fastest engine of a puzzle, where two
engines or more finished it and the runner-up took :data:`RESOLUTION`
longer or more.  Then the counts every engine that finished agreed on
(``unique/total``, or the covers alone where no engine could tell unique
from total) and how they were checked: ``agreed`` (two sources or more,
engines or ``expected.toml``, gave the same counts), ``unchecked`` (one
source: nothing to compare it with), ``MISMATCH``, ``ERROR``, ``proof``
(unsolvable without search), ``open`` (no count yet: no engine finished)
or, in first-solution mode, ``found``.

Differences below :data:`RESOLUTION` are not ranked, and times below it are
not divided: a solve that short measures the fixed cost of a call (the
Python side of starting a kernel and collecting its result, tens to
hundreds of microseconds) and the scheduler's noise on a shared host (a
time slice is 4 ms at HZ=250), not the search, which is how a report came
to print "406x" for two engines that both took under a millisecond.

The verdict line (:func:`verdict`) says whether the counts agree, over the
puzzles where two sources were compared only, how many are ``open`` and
``unchecked``, and which engine was fastest, over the puzzles two engines
finished only (``raced``, where the line is short of room).
"""

from __future__ import annotations

import textwrap

from bench.comparison.report import RESOLUTION, summarize
from bench.comparison.results import SLOW
from bench.comparison.tables import render_table
from bench.comparison.validation import INPUT
from bench.text import escape

WIDTH = 120
PUZZLE_WIDTH = 28
MIN_PUZZLE_WIDTH = 20
STATUS_WORDS = {"skipped": "skip", "error": "ERROR", "interrupted": "stopped", "limit": "limit"}


def _seconds(x: float, digits: int = 3) -> str:
    # below a millisecond the digits are the cost of a call, not the search's
    if x < 0.001:
        return "<0.001"
    return f"{x:.{digits}g}" if x < 10 ** digits else f"{x:.0f}"


def spread(line: dict) -> float | None:
    """Half the range of the rounds' times relative to their median, or None with one round or no time."""
    if line["rounds"] < 2 or not line["solve"] or line["worst"] is None:
        return None
    return (line["worst"] - line["best"]) / 2 / line["solve"]


def cell(line: dict | None, timeout, first_mode: bool, with_spread: bool = True, digits: int = 3) -> str:
    """The text of one engine's cell for one puzzle, its time with ``digits`` significant digits."""
    if line is None:
        return ""
    status = line["status"]
    if line.get("static"):
        return "-"
    if status == "solved" or (status == "limit" and first_mode):
        text = _seconds(line["solve"], digits) if line["solve"] is not None else "?"
        s = spread(line) if with_spread else None
        if s is not None:
            text += f" ±{s * 100:.0f}%"
        return text
    if status == "timeout":
        return f">{timeout:g}" if timeout else "timeout"
    if status == "skipped" and line.get("message") == SLOW:
        return "slow"
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
    first_mode = document["run_settings"].get("mode") == "first"
    engines = [e for e in document["run_settings"].get("engines", [])]
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
    expected = {entry["key"]: entry.get("expected") for entry in document.get("puzzles", [])}
    rows = []
    for puzzle in puzzles:
        mine = by_puzzle[puzzle]
        proof = mine.get("static-check")
        if proof is not None:
            for engine in engines:
                if engine in mine:
                    mine[engine]["static"] = True
        finished = [mine[e] for e in engines if e in mine and mine[e]["status"] == "solved"] + ([proof] if proof else [])
        timed = sorted((mine[e]["solve"], e) for e in engines if e in mine and not mine[e].get("static")
                       and (mine[e]["status"] == "solved" or (first_mode and mine[e]["status"] == "limit"))
                       and mine[e]["solve"] is not None)
        fastest = timed[0][1] if len(timed) > 1 and timed[1][0] - timed[0][0] >= RESOLUTION else None
        sources = len(finished) + int(_expected_counts(expected.get(puzzle)) and not first_mode)
        kinds = problems.get(puzzle, set())
        check = ("MISMATCH" if "mismatch" in kinds else "ERROR" if "error" in kinds else
                 "proof" if proof else "found" if first_mode and timed else
                 "agreed" if sources > 1 and finished else "unchecked" if finished else "open")
        rows.append({"puzzle": puzzle, "lines": mine, "counts": _counts(finished), "check": check, "fastest": fastest,
                     "timed": len(timed), "sources": sources})
    return {"engines": engines, "rows": rows, "timeout": document["run_settings"].get("timeout"), "first_mode": first_mode,
            "rounds": document["run_settings"].get("rounds", 1)}


def _expected_counts(expected: dict | None) -> bool:
    """True when ``expected.toml`` gave the puzzle something to compare counts with."""
    return bool(expected) and any(expected.get(k) is not None for k in ("unique", "total", "solvable"))


def _counts(finished: list[dict]) -> str:
    for line in finished:
        if line["unique"] is not None and line["total"] is not None:
            return f"{line['unique']:,}/{line['total']:,}"
    for line in finished:
        if line["covers"] is not None:
            return f"{line['covers']:,} c."
    return ""


def table(document: dict, fmt: str = "simple", width: int = WIDTH) -> str:
    """The puzzle x engine table (``fmt``: ``simple`` or ``github``) in at most ``width`` columns.

    What gives way first, until it fits: the spread over rounds, a third
    significant digit, the puzzle names' length (cut in the middle, down to
    :data:`MIN_PUZZLE_WIDTH`); last, engines are numbered, with a legend.
    """
    g = grid(document)
    if not g["rows"]:
        return "no puzzles were run"
    attempts = [(True, 3, PUZZLE_WIDTH, False), (False, 3, PUZZLE_WIDTH, False)]
    attempts += [(False, 2, w, False) for w in range(PUZZLE_WIDTH, MIN_PUZZLE_WIDTH - 1, -1)]
    attempts += [(True, 3, PUZZLE_WIDTH, True), (False, 2, PUZZLE_WIDTH, True)]
    for with_spread, digits, puzzle_width, numbered in attempts:
        text = _render(g, fmt, with_spread, digits, puzzle_width, numbered, width)
        if max(len(line) for line in text.splitlines()) <= width:
            break
    return text


def _render(g: dict, fmt: str, with_spread: bool, digits: int, puzzle_width: int, numbered: bool, width: int) -> str:
    engines = g["engines"]
    headers = ["puzzle"] + [f"E{i + 1}" if numbered else e for i, e in enumerate(engines)] + ["unique/total", "counts"]
    body = []
    for row in g["rows"]:
        cells = []
        for engine in engines:
            text = cell(row["lines"].get(engine), g["timeout"], g["first_mode"], with_spread, digits)
            cells.append(text + ("*" if engine == row["fastest"] else ""))
        body.append([short_name(row["puzzle"], puzzle_width)] + cells + [row["counts"], row["check"]])
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


def verdict(document: dict, width: int = WIDTH) -> str:
    """One line of at most ``width`` characters: the puzzles and engines, whether the counts agree, who was fastest.

    The counts agree only over the puzzles where two sources or more
    (engines, a static proof, ``expected.toml``) were compared; the puzzles
    still ``open`` (no count yet) and those with one source are said apart,
    and a run that compared nothing says so.  An engine is fastest on a
    puzzle only where two engines or more finished it, by
    :data:`RESOLUTION` or more.
    """
    g = grid(document)
    rows = g["rows"]
    n_puzzles, n_engines = len(rows), len(g["engines"])
    head = f"{n_puzzles} puzzle{'s' * (n_puzzles != 1)}, {n_engines} engine{'s' * (n_engines != 1)}: "
    named = {check: [short_name(r["puzzle"], 20) for r in rows if r["check"] == check] for check in ("MISMATCH", "ERROR")}
    compared = [r for r in rows if r["sources"] > 1 and r["check"] not in ("MISMATCH", "ERROR")]
    open_ = sum(r["check"] == "open" for r in rows)
    single = sum(r["check"] in ("unchecked", "proof") and r["sources"] < 2 for r in rows)
    wins: dict[str, int] = {}
    for r in rows:
        if r["fastest"]:
            wins[r["fastest"]] = wins.get(r["fastest"], 0) + 1
    raced = sum(r["timed"] > 1 for r in rows)
    unfinished = sum(1 for r in rows for e in g["engines"] if r["lines"].get(e) and r["lines"][e]["status"] == "timeout")
    inputs = sorted({escape(p["puzzle"]) for p in document.get("validation", []) if p["kind"] == INPUT})

    races = {"long": "puzzles two engines finished", "mid": "finished by two engines", "short": "raced"}

    def line(names: int, ranked: int, one_source: bool, race: str, no_count: bool) -> str:
        parts = []
        if named["MISMATCH"]:
            parts.append(f"counts DISAGREE on {len(named['MISMATCH'])} ({_names(named['MISMATCH'], names)})")
        elif g["first_mode"]:
            parts.append(f"a solution found for {sum(r['check'] == 'found' for r in rows)}")
        else:
            parts.append(f"counts agree on {len(compared)}" if compared else "nothing was compared")
            if open_:
                parts[-1] += f", {open_} open" + (" (no count yet)" if no_count else "")
            if single:
                parts[-1] += f", {single} with one source" if one_source else f", {single} unchecked"
        if named["ERROR"]:
            parts.append(f"engine ERRORS on {len(named['ERROR'])} ({_names(named['ERROR'], names)})")
        if wins:
            order = sorted(wins.items(), key=lambda kv: (-kv[1], kv[0]))[:ranked]
            text = f"{order[0][0]} fastest on {order[0][1]}" + "".join(f", {e} on {n}" for e, n in order[1:])
            close = raced - sum(wins.values())
            parts.append(f"{text} of {raced} {races[race]}" + (f", {close} too close to call" if close else ""))
        elif raced:
            parts.append(f"no engine faster by {RESOLUTION * 1000:g} ms or more: too close to rank")
        if inputs:
            parts.append(f"INPUT problems in {len(inputs)} file{'s' * (len(inputs) != 1)} ({_names(inputs, names)})")
        if unfinished:
            parts.append(f"{unfinished} timeout{'s' * (unfinished != 1)}")
        return head + "; ".join(parts)

    for shape in ((4, 3, True, "long", True), (2, 2, True, "long", True), (2, 2, False, "long", True),
                  (2, 2, False, "mid", True), (2, 1, False, "mid", True), (1, 1, False, "short", True),
                  (1, 1, False, "short", False), (0, 1, False, "short", False)):
        text = line(*shape)
        if len(text) <= width:
            return text
    return text[: width - 1] + "…"


def _names(names: list[str], shown: int) -> str:
    """The first ``shown`` of ``names``, then ``...`` for the others (``N`` alone when none is shown)."""
    if not shown:
        return "..."
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")
