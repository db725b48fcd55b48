"""``bench report``'s pages of result files: Markdown, and one self-contained HTML page.

Both open with how the run was made (:func:`run_facts`: machine,
libraries, options, what the times mean), the summary table and verdict
(:mod:`bench.comparison.summary`) and the problems, and end with the detail
per puzzle and engine (:func:`bench.comparison.report.detail`).

The HTML page adds the plots (:mod:`bench.comparison.plots`: time per
engine and puzzle, speed relative to the fastest, time against puzzle
size, the native engines' attempts and fits per level with their table)
and a picture of the solution stored for each puzzle
(:mod:`bench.drawing`).  Its first screens stay readable however many
puzzles ran: the per-puzzle search profiles and the detail table are
folded (``<details>``), opened with a click.  Plots and pictures are inline
SVG and the style sheet is in the page: it reads without a network and
without JavaScript.
"""

from __future__ import annotations

import re

from bench.comparison import plots, summary
from bench.comparison.report import RESOLUTION, compile_times, detail, render_run
from bench.drawing.picture import draw
from bench.drawing.scene import to_svg
from bench.drawing.solution import Solution
from bench.errors import BenchError
from bench.html import markup, render_template
from bench.text import escape

NUMERIC = ("covers", "unique", "total", "median", "fastest round", "slowest round", "vs fastest")
"""Detail columns aligned right, as numbers."""


def run_facts(document: dict) -> list[tuple[str, str]]:
    """``(label, text)`` pairs saying how a run was made: machine, libraries, options, what the times mean."""
    m, opts, libs = document["machine"], document["run_settings"], document["libraries"]
    filters = ", ".join(f"{name} ({'fit rounds ' + str(opts.get('fit_rounds', 1)) if name == 'fit' else 'once'})"
                        for name in ("parity", "volume", "fit") if opts.get(f"{name}_filter")) or "none"
    compiled = compile_times(document)
    if opts.get("redundancy") == "auto":
        chooser = opts.get("configured_by") or "an engine"
        matrix = (f"redundancy filter and one-shot filters chosen per puzzle by {chooser}'s own configuration (the "
                  f"piece its estimates price cheapest, orbit; the volume filter in 2-D), {chooser} running with "
                  "the settings it chose, the other engines with their defaults")
    else:
        matrix = (f"redundancy filter {opts.get('redundancy')} ({opts.get('redundancy_method') or 'orientation'}); "
                  f"one-shot filters: {filters}")
    facts = [
        ("Machine", f"{m.get('cpu')}, {m.get('cores')} cores, {m.get('memory_gib')} GiB, Python {m.get('python')}, "
                    f"{m.get('platform')}; bench commit {m.get('commit')}"),
        ("Libraries", ", ".join(f"{k} {v}" for k, v in libs.items() if v)),
        ("Options", f"engines {', '.join(opts['engines'])}; mode {opts['mode']}; timeout {opts['timeout']:g} s; "
                    f"rounds {opts['rounds']}; {matrix}"),
        ("Times", "solve seconds, the median over the rounds (a split solve's include its split); ±N% is half the "
                  "range between the slowest and the fastest round; * marks the fastest engine of a puzzle. Times "
                  f"under {RESOLUTION * 1000:g} ms are not ranked or divided: they measure the cost of a call and "
                  "the scheduler, not the search."
                  + (f" DLX and FILA split {'every search' if opts.get('split_every_search') else 'large searches'}"
                     f" over {opts['workers']} workers." if opts.get("workers") else "")),
        ("JIT compile", ("once per run, before any timing: " + ", ".join(f"{e} {s:.2f} s" for e, s in compiled.items()))
         if compiled else "none"),
    ]
    return facts


def render_markdown(document: dict, source: str = "") -> str:
    """A Markdown report of one result file: facts, summary table, verdict, problems, detail table."""
    out = [f"# bench run {document['created']}", ""]
    if source:
        out += [f"Source: `{source}`", ""]
    out += [f"- {label}: {text}" for label, text in run_facts(document)]
    out += ["", "## Summary", "", summary.table(document, "github"), "", f"**{summary.verdict(document)}**", ""]
    if document["validation"]:
        out += ["## Problems", ""] + [f"- **{p['kind']}** {escape(p['puzzle'])}: {escape(p['message'])}"
                                      for p in document["validation"]]
    else:
        out += ["All engines that finished agree with each other and with the expected counts."]
    out += ["", "## Detail", "", render_run(document, "github"), ""]
    return "\n".join(out)


def _with_unit(text: str) -> str:
    # a summary cell that is a time ("0.15", ">1", "1.1 ±9%") gets its unit after the number
    return re.sub(r"^([<>]?[0-9][0-9.]*)", r"\1 s", text)


def summary_rows(document: dict) -> tuple[list[str], list[dict]]:
    """The summary table as the template shows it: engine names, and per puzzle its cells with a CSS class each."""
    g = summary.grid(document)
    rows = []
    for r in g["rows"]:
        cells = []
        for engine in g["engines"]:
            line = r["lines"].get(engine)
            text = _with_unit(summary.cell(line, g["timeout"], g["first_mode"]))
            kind = ("fastest" if engine == r["fastest"] else "" if line is None else
                    "bad" if line["status"] == "error" else "stopped" if line["status"] == "timeout" else
                    "muted" if line["status"] == "skipped" or line.get("static") else "")
            cells.append({"text": text, "kind": kind})
        rows.append({"puzzle": r["puzzle"], "cells": cells, "counts": r["counts"], "check": r["check"]})
    return g["engines"], rows


def solution_pictures(document: dict) -> tuple[list[dict], list[dict]]:
    """One picture per puzzle from the solutions ``bench run`` stored; and the puzzles without one, with why."""
    pictures, missing = [], []
    for entry in document["puzzles"]:
        stored = entry.get("solution")
        if stored:
            try:
                pictures.append({"puzzle": entry["key"], "svg": markup(to_svg(draw(Solution.from_json(stored))))})
            except BenchError as exc:
                missing.append({"puzzle": entry["key"], "note": str(exc)})
        else:
            missing.append({"puzzle": entry["key"], "note": entry.get("solution_note") or
                            "no solution stored (the result file predates stored solutions)"})
    return pictures, missing


def document_section(path: str, document: dict) -> dict:
    """Everything the template shows of one result file."""
    engines, rows = summary_rows(document)
    pictures, missing = solution_pictures(document)
    figures = [plot for plot in (plots.time_plot(document), plots.ratio_plot(document), plots.size_plot(document))
               if plot is not None]
    profiles = []
    for entry in plots.profile(document):
        profiles.append({"puzzle": entry["puzzle"], "svg": markup(plots.profile_plot(entry)),
                         "engines": [engine for engine, _, _ in entry["engines"]],
                         "levels": [{"n": n, "values": [(a[n] if n < len(a) else None, f[n] if n < len(f) else None)
                                                        for _, a, f in entry["engines"]]}
                                    for n in entry["levels"]]})
    headers, cells = detail(document)
    return {"source": path, "created": document["created"], "facts": run_facts(document), "engines": engines,
            "rows": rows, "verdict": summary.verdict(document), "problems": document["validation"],
            "figures": [markup(f) for f in figures], "profiles": profiles, "pictures": pictures, "missing": missing,
            "detail_headers": headers, "detail_rows": cells,
            "detail_kinds": ["num" if h in NUMERIC else "reason" if h == "statistics or reason" else "" for h in headers]}


def render_html(documents: list[tuple[str, dict]]) -> str:
    """The HTML report of one or more result files ``(path, document)``."""
    sections = [document_section(path, doc) for path, doc in documents]
    title = "bench report: " + ", ".join(path for path, _ in documents)
    return render_template("bench.comparison", "report.html.j2", title=title, sections=sections)
