"""``bench report`` and ``bench compare``: stored result files rendered, never a solver run."""

from __future__ import annotations

import sys

from bench.cli.arguments import add_moved_o, existing_file, fraction, output_file
from bench.comparison import report, results
from bench.comparison.compare import compare
from bench.comparison.pages import render_markdown
from bench.system.files import check_output, write_atomic
from bench.text import escape


def add_parser(sub, name: str, help: str) -> None:
    """Register ``report`` or ``compare`` (``name``)."""
    if name == "compare":
        cmp = sub.add_parser("compare", help=help)
        cmp.add_argument("before", type=existing_file, metavar="A")
        cmp.add_argument("after", type=existing_file, metavar="B")
        cmp.add_argument("--threshold", type=fraction, default=0.1,
                         help="relative change counted as noise (default 0.1)")
        cmp.set_defaults(func=cmd_compare)
        return
    rep = sub.add_parser("report", help=help)
    rep.add_argument("results", nargs="+", type=existing_file, metavar="RESULT", help="result files written by bench run")
    form = rep.add_mutually_exclusive_group()
    form.add_argument("--csv", action="store_true", help="CSV instead of Markdown")
    form.add_argument("--html", action="store_true",
                      help="one self-contained HTML page: summary, plots, level profiles, a solution per puzzle")
    rep.add_argument("--output-file", dest="output", type=output_file, metavar="FILE",
                     help="write to FILE instead of standard output")
    add_moved_o(rep)
    rep.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    """``bench report``: Markdown, HTML or CSV of result files; 1 when the rows of one disagree (a MISMATCH)."""
    if args.output is not None:
        check_output(args.output, "--output-file", args.results)
    documents = [(path, results.load(path)) for path in args.results]
    if args.csv:
        text = "".join(report.render_csv(doc) for _, doc in documents)
    elif args.html:
        # lazy: the HTML report draws with matplotlib, which only --html loads
        from bench.comparison.pages import render_html

        text = render_html(documents)
    else:
        text = "\n".join(render_markdown(doc, source=path) for path, doc in documents)
    if args.output is not None:
        write_atomic(args.output, text, "-o")
    else:
        sys.stdout.write(text)
    # said on the terminal too: a report written to a file (or piped) must not exit 1 without a word
    return 1 if sum(tell_mismatches(str(path), doc) for path, doc in documents) else 0


def mismatches(document: dict) -> list[dict]:
    """The count disagreements among a loaded document's rows (validated again on loading)."""
    return [p for p in document["validation"] if p["kind"] == "mismatch"]


def tell_mismatches(name: str, document: dict) -> int:
    """Print a ``MISMATCH in NAME`` line on standard error for each disagreement of ``document``; their number."""
    found = mismatches(document)
    for problem in found:
        print(escape(f"MISMATCH in {name}: {problem['puzzle']}: {problem['message']}"), file=sys.stderr)
    return len(found)


def cmd_compare(args) -> int:
    """``bench compare``: what differs between the runs, then what got faster or slower; exit 1 when a count changed
    or either run's rows disagree among themselves."""
    before, after = results.load(args.before), results.load(args.after)
    table, counts_changed = compare(before, after, args.threshold)
    print(table)
    disagreeing = sum(tell_mismatches(name, document) for name, document in (("A", before), ("B", after)))
    if counts_changed:
        print("counts changed between the two runs on the same matrix", file=sys.stderr)
    return 1 if counts_changed or disagreeing else 0
