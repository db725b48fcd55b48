"""Tables from result files: the run summary, Markdown and CSV reports, and comparisons.

Everything here reads stored result documents (see :mod:`bench.comparison.results`);
nothing runs a solver.  One summary line per puzzle and engine: the status
over the rounds, the counts, the median solve time (compile time apart) and
the fastest round's (noise from other tenants of a shared host only ever
adds time), the ratio of medians to the fastest engine that finished the
same puzzle, and the machine-independent counters of that engine.
"""

from __future__ import annotations

import csv
import io
import statistics

from tabulate import tabulate

from bench.errors import BenchError

FINISHED = ("solved", "limit")
STAT_KEYS = ("nodes", "fits", "no_fits", "branches", "conflicts", "decisions", "clauses")
# what the in-search triggers and filters did, shown when they did something
CONSTRAINT_KEYS = ("parity_backtracks", "volume_backtracks", "parity_filtered", "volume_filtered", "fit_filtered")


def _seconds(x) -> str:
    if x is None:
        return ""
    return f"{x:.3g}" if x < 10 else f"{x:.1f}"


def _stats_text(stats: dict) -> str:
    shown = [k for k in STAT_KEYS if isinstance(stats.get(k), int)] + [k for k in CONSTRAINT_KEYS if stats.get(k)]
    return " ".join(f"{k}={stats[k]:,}" for k in shown)[:120]


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
            "best": min(times) if times else None,
            "compile": best.get("compile"), "stats": best.get("stats") or {}, "message": best.get("message", ""),
            "workers": best.get("workers", 1),
            "check": "MISMATCH" if "mismatch" in problems.get(puzzle, []) else "ok",
        })
    fastest: dict[str, float] = {}
    for line in lines:
        if line["status"] == "solved" or (line["status"] == "limit" and document["options"].get("mode") == "first"):
            if line["solve"] is not None:
                fastest[line["puzzle"]] = min(fastest.get(line["puzzle"], float("inf")), line["solve"])
    for line in lines:
        base = fastest.get(line["puzzle"])
        line["ratio"] = line["solve"] / base if base and line["solve"] is not None and line["status"] in FINISHED else None
    return lines


def _table_rows(lines: list[dict], timeout) -> list[list]:
    out = []
    for line in lines:
        solve = _seconds(line["solve"])
        if line["status"] == "timeout" and timeout:
            solve = f">{timeout:g}"
        out.append([
            line["puzzle"], line["engine"] + (f" ({line['variant']})" if line["variant"] else "")
            + (f" on {line['workers']} workers" if line["workers"] != 1 else ""), line["status"],
            line["covers"], line["unique"], line["total"], solve,
            _seconds(line["best"]) if line["rounds"] > 1 and line["status"] in FINISHED else "", _seconds(line["compile"]),
            "" if line["ratio"] is None else f"{line['ratio']:.1f}x",
            (_stats_text(line["stats"]) if line["status"] in FINISHED else "") or line["message"][:60], line["check"],
        ])
    return out


HEADERS = ["puzzle", "engine (variant)", "status", "covers", "unique", "total", "solve s", "best s", "compile s", "vs fastest",
           "statistics or reason", "counts"]


def render_run(document: dict, fmt: str = "simple") -> str:
    """The summary table of a run (``fmt``: any tabulate format)."""
    lines = summarize(document)
    if not lines:
        return "no puzzles were run"
    return tabulate(_table_rows(lines, document["options"].get("timeout")), headers=HEADERS, tablefmt=fmt,
                    disable_numparse=True)


def render_markdown(document: dict, source: str = "") -> str:
    """A Markdown report of one result file: the machine, the options, the table, the problems."""
    m, opts, libs = document["machine"], document["options"], document["libraries"]
    out = [f"# bench run {document['created']}", ""]
    if source:
        out += [f"Source: `{source}`", ""]
    out += [
        f"- Machine: {m.get('cpu')}, {m.get('cores')} cores, {m.get('memory_gib')} GiB, Python {m.get('python')}, "
        f"{m.get('platform')}; bench commit {m.get('commit')}",
        "- Libraries: " + ", ".join(f"{k} {v}" for k, v in libs.items() if v),
        f"- Options: engines {', '.join(opts['engines'])}; mode {opts['mode']}; timeout {opts['timeout']:g} s; "
        f"rounds {opts['rounds']} (median solve time; best s is the fastest round); redundancy filter {opts['redundancy']} "
        f"({opts.get('redundancy_method') or 'orientation'}); one-shot filters: "
        + (", ".join(f"{name} ({'fit rounds ' + str(opts.get('fit_rounds', 1)) if name == 'fit' else 'once'})"
                     for name in ("parity", "volume", "fit") if opts.get(f"{name}_filter")) or "none"),
        "- Times are solve seconds (a split solve's include its split); JIT compile is separate and was done once "
        "before timing." + (f" DLX and FILA split {'every search' if opts.get('split_every_search') else 'large searches'}"
                            f" over {opts['workers']} workers." if opts.get("workers") else ""),
        "",
        render_run(document, "github"),
        "",
    ]
    if document["validation"]:
        out += ["## Problems", ""] + [f"- **{p['kind']}** {p['puzzle']}: {p['message']}" for p in document["validation"]]
    else:
        out += ["All engines that finished agree with each other and with the expected counts."]
    return "\n".join(out) + "\n"


def render_csv(document: dict) -> str:
    """The summary as CSV, one line per puzzle and engine."""
    buf = io.StringIO()
    fields = ["puzzle", "cover_hash", "engine", "variant", "workers", "status", "rounds", "covers", "unique", "total",
              "solve", "best", "compile", "ratio", "check", "message"]
    writer = csv.DictWriter(buf, fieldnames=fields + [f"stat_{k}" for k in STAT_KEYS + CONSTRAINT_KEYS], extrasaction="ignore")
    writer.writeheader()
    for line in summarize(document):
        writer.writerow({**line, **{f"stat_{k}": line["stats"].get(k) for k in STAT_KEYS + CONSTRAINT_KEYS}})
    return buf.getvalue()


def compare(a: dict, b: dict, threshold: float = 0.1) -> tuple[str, bool]:
    """What got faster or slower from run ``a`` to run ``b``, matching puzzle, cover hash and engine.

    Returns the table and whether any count changed (which is never noise).
    """
    before = {(x["puzzle"], x["cover_hash"], x["engine"]): x for x in summarize(a)}
    rows, changed = [], False
    for line in summarize(b):
        old = before.get((line["puzzle"], line["cover_hash"], line["engine"]))
        if old is None:
            continue
        counts_old = (old["covers"], old["unique"], old["total"])
        counts_new = (line["covers"], line["unique"], line["total"])
        both = old["status"] == line["status"] == "solved"
        counts_differ = both and counts_old != counts_new
        changed |= counts_differ
        ratio = line["solve"] / old["solve"] if line["solve"] and old["solve"] else None
        verdict = ("COUNTS CHANGED" if counts_differ else
                   f"{old['status']} -> {line['status']}" if old["status"] != line["status"] else
                   "" if ratio is None else
                   "faster" if ratio < 1 - threshold else "slower" if ratio > 1 + threshold else "same")
        rows.append([line["puzzle"], line["engine"], _seconds(old["solve"]), _seconds(line["solve"]),
                     "" if ratio is None else f"{ratio:.2f}", verdict])
    if not rows:
        raise BenchError("the two result files share no puzzle, cover hash and engine; nothing to compare")
    table = tabulate(rows, headers=["puzzle", "engine", "before s", "after s", "after/before", "verdict"],
                     disable_numparse=True)
    return table, changed
