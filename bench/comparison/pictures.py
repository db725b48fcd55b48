"""One solution per puzzle for ``bench run``'s result file, so reports can draw it without running a solver.

The engines run in child processes and hand back counts only; once some
engine has found a cover, DLX finds one again here, in the parent, stopping
at the first (a search that found any cover at all finds its first one
quickly) and never running longer than :data:`TIME_LIMIT`.  The solution is
stored in the puzzle's entry (:meth:`bench.drawing.solution.Solution.to_json`).
"""

from __future__ import annotations

from bench.drawing.solution import Solution
from bench.engines import Limits, Settings, Status, get_engine

TIME_LIMIT = 5.0
"""Seconds DLX may search for the first solution (the rest of the run waits for it)."""


def first_solution(entry: dict, cover, rows: list[dict], timeout: float) -> tuple[dict | None, str]:
    """``(stored solution, note)``: a solution of ``cover`` when some row found a cover, else None and why not."""
    if not any((r["covers"] or 0) > 0 for r in rows):
        return None, "no engine found a solution"
    if cover.puzzle is None:
        return None, "a matrix read from an exchange file has no cells to draw"
    found: list = []
    engine = get_engine("dlx")
    result = engine.solve(cover, Settings(), Limits(max_solutions=1, time_limit=min(TIME_LIMIT, timeout)),
                          on_solutions=lambda batch, _: found.extend(batch[:1]))
    if not found:
        why = result.message or result.status.value
        return None, f"DLX found no solution within {min(TIME_LIMIT, timeout):g} s ({why})"
    if result.status not in (Status.SOLVED, Status.LIMIT):
        return None, result.message or result.status.value
    return Solution.from_cover(cover, found[0], title=f"{entry['key']}: a solution").to_json(), ""
