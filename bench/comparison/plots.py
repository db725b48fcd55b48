"""The report's plots, drawn by matplotlib and returned as inline SVG (text kept as text).

matplotlib is imported inside :func:`_pyplot` only, so ``import bench`` and
``bench --help`` never load it.  Every plot has labelled axes with units;
times are on log scales, since engines differ by orders of magnitude.
"""

from __future__ import annotations

import io
import math

from bench.comparison.report import RESOLUTION
from bench.comparison.summary import grid, short_name

MARKERS = "osD^vP*Xh<>p"
WIDTH_IN = 10.0
ROW_IN = 0.3
"""Inches per puzzle of the plots with a row per puzzle, for four engines (more engines, taller rows)."""
MARKER = 5.5


def _pyplot():
    # lazy: plotting loads only for pictures and reports
    import matplotlib

    matplotlib.use("Agg")
    # lazy: plotting loads only for pictures and reports
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 10, "axes.titlesize": 11,
                         "font.family": "DejaVu Sans", "svg.hashsalt": "bench"})
    return plt


def _svg(fig) -> str:
    plt = _pyplot()
    buf = io.StringIO()
    # no metadata block: the same figure gives the same bytes, whenever it is drawn
    fig.savefig(buf, format="svg", bbox_inches="tight",
                metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _style(i: int) -> dict:
    plt = _pyplot()
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {"color": colours[i % len(colours)], "marker": MARKERS[i % len(MARKERS)]}


def _timed_rows(g: dict) -> list[dict]:
    """Puzzles where some engine ran (not those a static check settled)."""
    return [r for r in g["rows"] if r["check"] != "proof" and any(
        line["solve"] is not None or line["status"] == "timeout" for line in r["lines"].values())]


def _finished(line: dict | None, first_mode: bool) -> bool:
    return line is not None and line["solve"] is not None and (
        line["status"] == "solved" or (first_mode and line["status"] == "limit"))


def _height(rows: int, engines: int) -> float:
    # each engine has its own line within a puzzle's row, so no two engines' markers stack
    return 1.0 + ROW_IN * rows * max(1.0, engines / 4)


def _offset(i: int, engines: int) -> float:
    return (i - (engines - 1) / 2) * 0.8 / max(engines, 1)


def time_plot(document: dict) -> str | None:
    """Median solve time per engine per puzzle (log scale), the rounds' range as a bar; timeouts in a panel beside.

    A timed-out engine is drawn hollow in the panel of timeouts, in its own
    column, so the engines that timed out on one puzzle sit side by side
    instead of on top of each other at the timeout.
    """
    g = grid(document)
    rows = _timed_rows(g)
    if not rows:
        return None
    plt = _pyplot()
    engines, timeout = g["engines"], g["timeout"]
    stopped = {engine: [y for y, r in enumerate(rows)
                        if r["lines"].get(engine) is not None and r["lines"][engine]["status"] == "timeout"]
               for engine in engines}
    several_rounds = g["rounds"] > 1
    size = (WIDTH_IN, _height(len(rows), len(engines)))
    if timeout and any(stopped.values()):
        fig, (ax, side) = plt.subplots(1, 2, sharey=True, figsize=size,
                                       gridspec_kw={"width_ratios": [5, 1.2], "wspace": 0.03})
    else:
        (fig, ax), side = plt.subplots(figsize=size), None
    for i, engine in enumerate(engines):
        style = _style(i)
        offset = _offset(i, len(engines))
        ys, xs, lo, hi = [], [], [], []
        for y, r in enumerate(rows):
            line = r["lines"].get(engine)
            if _finished(line, g["first_mode"]):
                ys.append(y + offset)
                xs.append(max(line["solve"], 1e-6))
                lo.append(max(line["solve"] - (line["best"] or line["solve"]), 0))
                hi.append(max((line["worst"] or line["solve"]) - line["solve"], 0))
        if several_rounds:
            ax.errorbar(xs, ys, xerr=[lo, hi], linestyle="none", capsize=2, label=engine, markersize=MARKER, **style)
        else:
            ax.plot(xs, ys, linestyle="none", label=engine, markersize=MARKER, **style)
        if side is not None and stopped[engine]:
            side.plot([i] * len(stopped[engine]), [y + offset for y in stopped[engine]], linestyle="none",
                      markersize=MARKER, markerfacecolor="none", **style)
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)), [short_name(r["puzzle"]) for r in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("median solve time (seconds, log scale"
                  + ("; bars: fastest to slowest round)" if several_rounds else ")"))
    ax.set_title("Solve time per engine and puzzle")
    ax.grid(axis="x", which="both", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    legend_at = ax
    if side is not None:
        side.set_xlim(-0.7, len(engines) - 0.3)
        side.set_xticks(range(len(engines)), engines, rotation=90, fontsize=8)
        side.tick_params(axis="y", left=False)
        side.set_title(f"timed out\n(> {timeout:g} s)", fontsize=10)
        side.grid(axis="x", alpha=0.3)
        handles.append(side.plot([], [], linestyle="none", marker="o", markerfacecolor="none", color="#555555")[0])
        labels.append(f"hollow: timed out ({timeout:g} s)")
        legend_at = side
    legend_at.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.04 if side is None else 1.15, 1.0),
                     frameon=False)
    return _svg(fig)


def ratio_plot(document: dict) -> str | None:
    """Each engine's median over the fastest engine's, per puzzle, where the fastest took at least the resolution."""
    g = grid(document)
    rows = [r for r in _timed_rows(g) if r["fastest"] is not None]
    if not rows:
        return None
    plt = _pyplot()
    engines = g["engines"]
    fig, ax = plt.subplots(figsize=(WIDTH_IN, _height(len(rows), len(engines))))
    for i, engine in enumerate(engines):
        offset = _offset(i, len(engines))
        points = []
        for y, r in enumerate(rows):
            line, base = r["lines"].get(engine), r["lines"][r["fastest"]]["solve"]
            if _finished(line, g["first_mode"]):
                points.append((line["solve"] / base, y + offset))
        if points:
            ax.plot(*zip(*points), linestyle="none", label=engine, markersize=MARKER, **_style(i))
    ax.axvline(1.0, color="#444444", linewidth=1)
    ax.set_xscale("log")
    _ratio_axis(ax, [x for line in ax.get_lines() for x in line.get_xdata()])
    ax.set_yticks(range(len(rows)), [short_name(r["puzzle"]) for r in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("median time ÷ the fastest engine's median (×, log scale; 1 = fastest; engines that did not "
                  "finish are left out)")
    ax.set_title(f"Speed relative to the fastest engine (puzzles whose fastest time is at least {RESOLUTION * 1000:g} ms)")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _svg(fig)


def _ratio_axis(ax, ratios: list[float]) -> None:
    """Ticks at 1x, 2x, 5x, 10x... on at least 0.9x to 2x, whatever the spread of the ratios."""
    # lazy: plotting loads only for pictures and reports
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_xlim(0.9, max([2.0] + [1.3 * r for r in ratios]))
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}×"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def size_plot(document: dict) -> str | None:
    """Median solve time against the size of the puzzle's matrix (options), a point per finished solve, log-log.

    Solves that timed out are left out (the time plot shows them), so no
    marker stands for several engines at the timeout.
    """
    g = grid(document)
    sizes = {p["key"]: p["options"] for p in document["puzzles"]}
    rows = [r for r in _timed_rows(g) if sizes.get(r["puzzle"])]
    if len(rows) < 2:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 4.8))
    for i, engine in enumerate(g["engines"]):
        done = sorted((sizes[r["puzzle"]], r["lines"][engine]["solve"]) for r in rows
                      if _finished(r["lines"].get(engine), g["first_mode"]))
        if done:
            # puzzles are not a series: points, not lines, so puzzles of one size do not draw a zigzag
            ax.plot(*zip(*done), linestyle="none", label=engine, markersize=MARKER, **_style(i))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("options in the puzzle's exact-cover matrix (log scale)")
    ax.set_ylabel("median solve time (seconds, log scale)")
    ax.set_title("Solve time against puzzle size (finished solves; timeouts are in the time plot)")
    ax.grid(which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _svg(fig)


def profile(document: dict) -> list[dict]:
    """The native engines' search per level, per puzzle: ``{puzzle, levels, engines: [(engine, attempts, fits)]}``.

    ``levels`` counts pieces remaining from the most down to 1; the fits at
    n pieces are the nodes the search opens at n - 1.
    """
    g = grid(document)
    out = []
    for r in g["rows"]:
        engines = []
        for engine in g["engines"]:
            line = r["lines"].get(engine)
            stats = line["stats"] if line is not None and line["status"] == "solved" else {}
            attempts, fits = stats.get("attempts_by_remaining"), stats.get("fits_by_remaining")
            if attempts and fits and len(attempts) == len(fits) and len(attempts) > 1:
                engines.append((engine, list(attempts), list(fits)))
        if engines:
            n = max(len(a) for _, a, _ in engines) - 1
            out.append({"puzzle": r["puzzle"], "levels": list(range(n, 0, -1)), "engines": engines})
    return out


def profile_plot(entry: dict) -> str:
    """Attempts (solid) and fits (dashed) per number of pieces remaining, for each native engine of one puzzle."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(WIDTH_IN * 0.75, 3.6))
    for i, (engine, attempts, fits) in enumerate(entry["engines"]):
        style = _style(i)
        levels = [n for n in entry["levels"] if n < len(attempts)]
        for values, dash, what in ((attempts, "-", "attempts"), (fits, "--", "fits")):
            points = [(n, values[n]) for n in levels if values[n] > 0]
            if points:
                ax.plot(*zip(*points), linestyle=dash, label=f"{engine} {what}", markersize=4, linewidth=1.2, **style)
    ax.set_yscale("log")
    ax.set_xlim(max(entry["levels"]) + 0.5, 0.5)
    step = max(1, math.ceil(len(entry["levels"]) / 16))
    ax.set_xticks(entry["levels"][::step])
    ax.set_xlabel("pieces remaining (the search runs left to right)")
    ax.set_ylabel("count per level (log scale)")
    ax.set_title(f"{short_name(entry['puzzle'], 40)}: attempts and fits per level")
    ax.grid(which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=9)
    return _svg(fig)
