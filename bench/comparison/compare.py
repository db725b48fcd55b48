"""``bench compare``: what differs between two runs, then what got faster, slower or changed.

Before any table it states what differs in how the runs were made (commit,
timeout, rounds, mode, engines, filters, machine, library versions), so a
"solved -> timeout" under a shorter timeout is not read as a regression.
The table lists every puzzle and engine found in either file; a status
change that the timeouts explain (the faster run's time lies beyond the
other run's timeout) is marked as caused by the timeout.  Times below
:data:`~bench.comparison.report.RESOLUTION` are shown but not divided.
A count that changed on the same matrix is never noise: the caller exits 1.
"""

from __future__ import annotations

from bench.comparison.report import RESOLUTION, summarize
from bench.comparison.tables import render_table
from bench.errors import BenchError
from bench.text import escape

RUN_OPTIONS = (("timeout", "timeout", " s"), ("rounds", "rounds", ""), ("mode", "mode", ""),
               ("redundancy", "redundancy filter", ""), ("configured_by", "configuration chosen by", ""),
               ("volume_filter", "volume filter", ""),
               ("parity_filter", "parity filter", ""), ("fit_filter", "fit filter", ""), ("workers", "workers", ""))
MACHINE = (("cpu", "CPU"), ("cores", "cores"), ("memory_gib", "memory GiB"), ("python", "Python"),
           ("platform", "platform"))


def _fmt(value, unit: str = "") -> str:
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:g}{unit}"
    return f"{value}{unit}"


def differences(a: dict, b: dict) -> list[str]:
    """What differs between the ways runs ``a`` and ``b`` were made, one sentence each (empty when nothing does)."""
    out = []
    ca, cb = a["machine"].get("commit"), b["machine"].get("commit")
    if ca != cb:
        out.append(f"commit: {_fmt(ca)} -> {_fmt(cb)}")
    oa, ob = a["run_settings"], b["run_settings"]
    for key, label, unit in RUN_OPTIONS:
        if oa.get(key) != ob.get(key):
            out.append(f"{label}: {_fmt(oa.get(key), unit)} -> {_fmt(ob.get(key), unit)}")
    ea, eb = list(oa.get("engines", [])), list(ob.get("engines", []))
    only_a, only_b = [e for e in ea if e not in eb], [e for e in eb if e not in ea]
    if only_a:
        out.append(f"engines only in A: {', '.join(only_a)}")
    if only_b:
        out.append(f"engines only in B: {', '.join(only_b)}")
    for key, label in MACHINE:
        if a["machine"].get(key) != b["machine"].get(key):
            out.append(f"machine {label}: {_fmt(a['machine'].get(key))} -> {_fmt(b['machine'].get(key))}")
    la, lb = a.get("libraries", {}), b.get("libraries", {})
    changed = [f"{name} {_fmt(la.get(name))} -> {_fmt(lb.get(name))}" for name in sorted(set(la) | set(lb))
               if la.get(name) != lb.get(name)]
    if changed:
        out.append("libraries: " + ", ".join(changed))
    return out


def _by_timeout(old: dict, new: dict, timeout_a, timeout_b) -> bool:
    """True when a status change between a finished solve and a timeout is explained by the two timeouts."""
    if timeout_a == timeout_b or None in (timeout_a, timeout_b):
        return False
    if old["status"] == "timeout" and new["status"] == "solved" and new["solve"] is not None:
        return new["solve"] > timeout_a
    if old["status"] == "solved" and new["status"] == "timeout" and old["solve"] is not None:
        return old["solve"] > timeout_b
    return False


def _verdict(old: dict | None, new: dict | None, threshold: float, timeouts: tuple) -> tuple[str, str, bool]:
    """(after/before, verdict, counts changed) of one puzzle and engine."""
    if old is None:
        return "", "only in B", False
    if new is None:
        return "", "only in A", False
    if old["cover_hash"] != new["cover_hash"]:
        return "", "different matrix: not compared", False
    counts_old = (old["covers"], old["unique"], old["total"])
    counts_new = (new["covers"], new["unique"], new["total"])
    if old["status"] == new["status"] == "solved" and counts_old != counts_new:
        return "", "COUNTS CHANGED", True
    if old["status"] != new["status"]:
        change = f"{old['status']} -> {new['status']}"
        if _by_timeout(old, new, *timeouts):
            change += f" (caused by the timeout: {timeouts[0]:g} s -> {timeouts[1]:g} s)"
        return "", change, False
    if old["solve"] is None or new["solve"] is None:
        return "", "", False
    if min(old["solve"], new["solve"]) < RESOLUTION:
        # one time is below the resolution: no ratio, but a direction when the other is well above it
        if max(old["solve"], new["solve"]) >= 2 * RESOLUTION:
            word = "faster" if new["solve"] < old["solve"] else "slower"
            return "", f"{word} (one time under {RESOLUTION * 1000:g} ms: no ratio)", False
        return "", f"under {RESOLUTION * 1000:g} ms: not compared", False
    ratio = new["solve"] / old["solve"]
    word = "faster" if ratio < 1 - threshold else "slower" if ratio > 1 + threshold else "same"
    return f"{ratio:.2f}", word, False


def compare(a: dict, b: dict, threshold: float = 0.1) -> tuple[str, bool]:
    """The differences of the runs, then a line per puzzle and engine of either run; and whether a count changed.

    Raises
    ------
    BenchError
        When the two files share no puzzle at all.
    """
    before = {(x["puzzle"], x["engine"]): x for x in summarize(a)}
    after = {(x["puzzle"], x["engine"]): x for x in summarize(b)}
    if not {p for p, _ in before} & {p for p, _ in after}:
        raise BenchError("the two result files share no puzzle; nothing to compare")
    keys = list(before) + [k for k in after if k not in before]
    timeouts = (a["run_settings"].get("timeout"), b["run_settings"].get("timeout"))
    rows, changed = [], False
    for key in keys:
        old, new = before.get(key), after.get(key)
        ratio, verdict, counts = _verdict(old, new, threshold, timeouts)
        changed |= counts
        rows.append([escape(key[0]), key[1], _time(old, timeouts[0]), _time(new, timeouts[1]), ratio, verdict])
    diffs = differences(a, b)
    head = (["What differs between the runs (A -> B):"] + [f"  - {d}" for d in diffs] if diffs else
            ["The runs were made the same way (commit, options, engines, machine and libraries)."])
    table = render_table(rows, ["puzzle", "engine", "A s", "B s", "B/A", "verdict"])
    return "\n".join(head) + "\n\n" + table, changed


def _time(line: dict | None, timeout) -> str:
    if line is None:
        return ""
    if line["status"] == "timeout":
        return f">{timeout:g}" if timeout else "timeout"
    if line["solve"] is None:
        return line["status"]
    return "<0.001" if line["solve"] < 0.001 else f"{line['solve']:.3g}"
