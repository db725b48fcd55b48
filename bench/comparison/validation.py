"""Cross-validation of one puzzle's rows: engines against each other and against ``expected.toml``."""

from __future__ import annotations


from bench.engines import Status


def validate(entry: dict, rows: list[dict]) -> list[dict]:
    """Count disagreements and engine failures of one puzzle.

    Kinds: ``mismatch`` (two solved rows disagree on covers, unique or total,
    or a solved row disagrees with the expected counts) and ``error`` (an
    engine crashed or raised); :func:`input_problems` adds ``input``.  First-solution rows are checked against
    solvability only.
    """
    problems = []
    solved = [r for r in rows if r["status"] == Status.SOLVED.value]
    for r in rows:
        if r["status"] == Status.ERROR.value:
            problems.append({"puzzle": entry["key"], "kind": "error", "message": f"{r['engine']}: {r['message']}"})
    for field in ("covers", "unique", "total"):
        seen: dict[int, list[str]] = {}
        for r in solved:
            if r[field] is not None:
                seen.setdefault(r[field], [])
                if r["engine"] not in seen[r[field]]:
                    seen[r[field]].append(r["engine"])
        if len(seen) > 1:
            detail = "; ".join(f"{', '.join(engines)}: {value}" for value, engines in sorted(seen.items()))
            problems.append({"puzzle": entry["key"], "kind": "mismatch", "message": f"{field} disagree ({detail})"})
    expected = entry["expected"] or {}
    for r in solved:
        for field in ("unique", "total"):
            want = expected.get(field)
            if want is not None and r[field] is not None and r[field] != want:
                problems.append({"puzzle": entry["key"], "kind": "mismatch",
                                 "message": f"{r['engine']} reports {field}={r[field]}, expected {want}"})
    solvable = expected.get("solvable")
    if solvable is None and expected.get("total") is not None:
        solvable = expected["total"] > 0
    if solvable is not None:
        for r in rows:
            found = r["covers"] is not None and r["covers"] > 0
            proved_none = r["status"] == Status.SOLVED.value and r["covers"] == 0
            if (found and not solvable) or (proved_none and solvable):
                problems.append({"puzzle": entry["key"], "kind": "mismatch",
                                 "message": f"{r['engine']} finds {r['covers']} covers, expected "
                                            f"{'a solvable' if solvable else 'an unsolvable'} puzzle"})
    return problems


def expected_counts(expected) -> dict | None:
    """What an :class:`~bench.models.expected.Expected` gives to compare counts with, as a result file stores it."""
    if expected is None:
        return None
    return {"unique": expected.unique, "convention": expected.convention, "total": expected.total,
            "solvable": expected.solvable}


INPUT = "input"
"""The kind of a validation problem that is the input's: a definition or an ``expected.toml`` entry that could not be used."""


def input_problems(label: str, messages: list[str]) -> list[dict]:
    """Validation entries for the input errors of one definition file (its name in the run's keys), so the result
    file shows them too."""
    return [{"puzzle": label, "kind": INPUT, "message": message} for message in dict.fromkeys(messages)]


def revalidate(document: dict) -> list[dict]:
    """The validation of a stored result document, computed again from its rows and puzzles.

    A report never takes the stored ``validation`` on trust (a hand-edited
    file may disagree with it): only its ``input`` problems, which no row
    can show, are kept.  On top of :func:`validate` per puzzle, two rows of
    one engine and round with different results, a row whose cover hash is
    not its puzzle's, and two puzzles with one key are mismatches.
    """
    problems = [p for p in document["validation"] if p["kind"] == INPUT]
    entries: dict[str, dict] = {}
    for entry in document["puzzles"]:
        if entry["key"] in entries:
            problems.append({"puzzle": entry["key"], "kind": "mismatch",
                             "message": "two puzzles of the run are stored under this key"})
        entries.setdefault(entry["key"], entry)
    by_puzzle: dict[str, list[dict]] = {}
    for r in document["rows"]:
        by_puzzle.setdefault(r["puzzle"], []).append(r)
    for key, rows in by_puzzle.items():
        entry = entries.get(key, {"key": key, "expected": None})
        problems += validate(entry, rows)
        seen: dict[tuple, dict] = {}
        for r in rows:
            if "cover_hash" in entry and r["cover_hash"] != entry["cover_hash"]:
                problems.append({"puzzle": key, "kind": "mismatch",
                                 "message": f"{r['engine']}: its row's cover hash is not the puzzle's"})
            outcome = {f: r.get(f) for f in ("status", "covers", "unique", "total")}
            first = seen.setdefault((r["engine"], r.get("round")), outcome)
            if first != outcome:
                problems.append({"puzzle": key, "kind": "mismatch", "message": f"{r['engine']}: round "
                                 f"{r.get('round')} is stored twice with different results"})
    return list({(p["puzzle"], p["kind"], p["message"]): p for p in problems}.values())
