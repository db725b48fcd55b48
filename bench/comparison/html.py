"""``bench report --html``: one self-contained HTML page per set of result files.

For each result file: how the run was made (machine, libraries, options),
the summary table and verdict (:mod:`bench.comparison.summary`), the plots
(:mod:`bench.comparison.plots`: time per engine and puzzle, speed relative
to the fastest, time against puzzle size, the native engines' attempts and
fits per level with their table), a picture of the solution stored for each
puzzle (:mod:`bench.drawing`), the problems and the detail table.  Plots and
pictures are inline SVG and the style sheet is in the page: it reads
without a network and without JavaScript.
"""

from __future__ import annotations

from tabulate import tabulate

from bench.comparison import plots, summary
from bench.comparison.markdown import run_facts
from bench.comparison.report import HEADERS, detail_rows, summarize
from bench.errors import BenchError
from bench.html import markup, render_template
from bench.drawing.picture import draw
from bench.drawing.solution import Solution
from bench.drawing.svg import to_svg


def summary_rows(document: dict) -> tuple[list[str], list[dict]]:
    """The summary table as the template shows it: engine names, and per puzzle its cells with a CSS class each."""
    g = summary.grid(document)
    rows = []
    for r in g["rows"]:
        cells = []
        for engine in g["engines"]:
            line = r["lines"].get(engine)
            text = summary.cell(line, g["timeout"], g["first_mode"])
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
    detail = tabulate(detail_rows(summarize(document), document["options"].get("timeout")), headers=HEADERS,
                      tablefmt="html", disable_numparse=True)
    return {"source": path, "created": document["created"], "facts": run_facts(document), "engines": engines,
            "rows": rows, "verdict": summary.verdict(document), "problems": document["validation"],
            "figures": [markup(f) for f in figures], "profiles": profiles, "pictures": pictures, "missing": missing,
            "detail": markup(detail)}


def render_html(documents: list[tuple[str, dict]]) -> str:
    """The HTML report of one or more result files ``(path, document)``."""
    sections = [document_section(path, doc) for path, doc in documents]
    title = "bench report: " + ", ".join(path for path, _ in documents)
    return render_template("bench.comparison", "report.html.j2", title=title, sections=sections)
