"""Text tables for the terminal and the Markdown report, laid out as tabulate's ``simple`` and ``github`` formats.

Two layouts are all the reports need, and these few lines spare ``bench
report``, ``bench compare`` and ``bench run``'s summary the import of
tabulate (about 25 ms, as long as the rest of ``bench report``).  The output
is tabulate's with ``disable_numparse=True``, which ``tests/test_reports.py``
checks against tabulate itself: every cell is text without its outer blanks, left-aligned unless
``colalign`` says ``right``, a column at least two wider than its header,
``None`` an empty cell.  Unlike tabulate, a line break in a cell is shown as
a space (a Markdown row must stay on one line), widths count characters,
not terminal columns, and a table without rows still aligns its headers as
``colalign`` says.
"""

from __future__ import annotations

from typing import Sequence

FORMATS = ("simple", "github")


def _text(value) -> str:
    return "" if value is None else " ".join(str(value).splitlines()).strip()


def render_table(rows: Sequence[Sequence], headers: Sequence[str], fmt: str = "simple",
                 colalign: Sequence[str] | None = None) -> str:
    """``rows`` under ``headers`` in the ``simple`` (plain text) or ``github`` (Markdown) layout.

    >>> print(render_table([["10x6", 2339], ["20x3", None]], ["puzzle", "covers"], colalign=["left", "right"]))
    puzzle      covers
    --------  --------
    10x6          2339
    20x3
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown table format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    headers = [_text(h) for h in headers]
    body = [[_text(cell) for cell in row] for row in rows]
    align = list(colalign) if colalign is not None else ["left"] * len(headers)
    widths = [max([len(h) + 2] + [len(row[k]) for row in body]) for k, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        padded = [c.rjust(w) if a == "right" else c.ljust(w) for c, w, a in zip(cells, widths, align)]
        return "| " + " | ".join(padded) + " |" if fmt == "github" else "  ".join(padded).rstrip()

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|" if fmt == "github" else "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule] + [line(row) for row in body])
