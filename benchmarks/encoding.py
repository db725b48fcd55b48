"""Encoding time before and after: every bundled definition parsed and encoded in two checkouts, interleaved.

``python -m benchmarks.encoding BEFORE AFTER [--rounds R]`` times, in a
fresh process per checkout and round (A B, then B A, ...), the reading of
each ``defs/*.txt`` and its encoding as a matrix without and with the
redundancy filter (the puzzle, its orientations, images, group and the
``Cover``), and compares the per-round totals and each file's median: the
median of BEFORE/AFTER ratios is robust to the drift of a shared machine.
The cover hashes must be identical.  Writes ``results/encoding-NAME-NAME.md``.
A checkout is any directory holding the ``bench`` package (``git archive
COMMIT | tar -x -C DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench.system.files import write_atomic

# run in the checkout: its own bench first on the path, so the installed one is not used
_PROBE = r"""
import json, sys, time
from pathlib import Path
import bench
from bench import Cover
out = {}
for path in sorted(Path("defs").glob("*.txt")):
    start = time.perf_counter()
    hashes = []
    for p in bench.load(path):
        hashes += [Cover.from_puzzle(p).hash, Cover.from_puzzle(p, redundancy=True).hash]
    out[path.name] = (time.perf_counter() - start, hashes)
print(json.dumps({"bench": bench.__file__, "files": out}))
"""


def encode_once(checkout: str) -> dict:
    """Seconds and cover hashes per bundled definition, measured in one fresh process in ``checkout``."""
    env = dict(os.environ, PYTHONPATH=checkout)
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=checkout, env=env, capture_output=True, text=True,
                         check=True).stdout
    data = json.loads(out)
    if not Path(data["bench"]).resolve().is_relative_to(Path(checkout).resolve()):
        raise SystemExit(f"{checkout}: imported bench from {data['bench']}, not from the checkout")
    return data["files"]


def main(argv: list[str] | None = None) -> int:
    """Compare the encoding time of two checkouts; returns 1 if any cover hash differs."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.encoding", description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    runs: dict[str, list[dict]] = {args.before: [], args.after: []}
    encode_once(args.before), encode_once(args.after)  # warm the file system and the bytecode caches
    for r in range(args.rounds):
        order = (args.before, args.after) if r % 2 == 0 else (args.after, args.before)
        for checkout in order:
            runs[checkout].append(encode_once(checkout))
    before, after = runs[args.before], runs[args.after]
    same = all(b[name][1] == a[name][1] for b, a in zip(before, after) for name in b)
    names = sorted(before[0])
    lines = [f"# Encoding time: {args.before} against {args.after}", "",
             f"{args.rounds} interleaved rounds, each checkout in a fresh process; medians in ms, "
             "spread = (max - min) / median over the rounds.", "",
             "| definition | before ms | spread | after ms | spread | after / before |", "|---|---:|---:|---:|---:|---:|"]

    def row(label, b_times, a_times):
        mb, ma = statistics.median(b_times), statistics.median(a_times)
        ratio = statistics.median(a / b for a, b in zip(a_times, b_times))
        lines.append(f"| {label} | {1000 * mb:.1f} | {(max(b_times) - min(b_times)) / mb:.0%} | {1000 * ma:.1f} | "
                     f"{(max(a_times) - min(a_times)) / ma:.0%} | {ratio:.3f} |")

    for name in names:
        row(name, [run[name][0] for run in before], [run[name][0] for run in after])
    row("**all**", [sum(v[0] for v in run.values()) for run in before],
        [sum(v[0] for v in run.values()) for run in after])
    lines += ["", "cover hashes: " + ("identical" if same else "DIFFERENT")]
    text = "\n".join(lines) + "\n"
    print(text)
    stem = f"encoding-{Path(args.before).name}-{Path(args.after).name}"
    write_atomic(Path("results") / f"{stem}.md", text)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
