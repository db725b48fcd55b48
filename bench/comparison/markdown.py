"""``bench report``'s Markdown: the run's facts, the summary table and verdict, then the detail per engine."""

from __future__ import annotations

from bench.comparison import summary
from bench.comparison.report import RESOLUTION, compile_times, render_run
from bench.text import escape


def run_facts(document: dict) -> list[tuple[str, str]]:
    """``(label, text)`` pairs saying how a run was made: machine, libraries, options, what the times mean."""
    m, opts, libs = document["machine"], document["options"], document["libraries"]
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
