"""Reproducibility under load: an untuned ``fila`` makes the same choices and counts the same tree beside busy cores.

``python -m benchmarks.reproducibility [--burners N] [--node-limit N] [FILE ...]``
solves every bundled definition (or the FILEs) with
``bench solve -q -i -e fila -w 1 --node-limit N``, once on the machine as it
is and once beside N more CPU-bound processes (3 by default), and compares
what the two runs print: every ``KEY=VALUE`` line, which holds the automatic
configuration's choice, its estimates and every candidate it sampled, the
puzzle's encoding and every counter (nodes, attempts, fits, probes, pruning
per level).  Times are the only thing set aside: keys naming seconds, rates
or the clock, each candidate's ``seconds=`` field, and the two lines that
describe this machine's caches rather than the search (``COVER_CACHE``,
``KERNEL_LIBRARIES``).  Nothing else may differ: a difference means the
load changed a search.  Writes ``results/auto-under-load.md``; exits 1 on
any difference, 2 (writing nothing) where bench refuses a file or fails.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import user_environment
from benchmarks.checkouts import commit_of
from bench.system.files import write_atomic

# set aside: what a clock or this machine's caches decide, never the search
TIMING_KEY = re.compile(r"SECONDS|PER_SEC|_TIME$|^COVER_CACHE$|^KERNEL_LIBRARIES$")
CANDIDATE_SECONDS = re.compile(r":seconds=[^:]*")
KEY = re.compile(r"[A-Za-z_]\w*(\[[^]]*\])?")
BURNER = "while True: pass"
# bench's statuses of a search that ran: finished, or cut short by --node-limit (its counters still compared)
RAN = (0, 3)


class NotSolved(Exception):
    """A definition bench did not search (bad input, a failed engine): there is nothing to compare."""


def search_lines(path: str, node_limit: int) -> list[str]:
    """The ``KEY=VALUE`` lines of one ``bench solve -q -i -e fila`` process, times set aside, prefixed by the file."""
    command = [sys.executable, "-m", "bench", "solve", "-q", "-i", "-e", "fila", "-w", "1",
               "--node-limit", str(node_limit), path]
    done = subprocess.run(command, capture_output=True, text=True, env=user_environment())
    if done.returncode not in RAN:
        # two identical refusals would compare equal and say nothing of the search
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise NotSolved(f"{path}: bench solve exited {done.returncode}: {said}")
    lines = []
    for line in done.stdout.splitlines():
        key, sep, value = line.partition("=")
        if not sep or not KEY.fullmatch(key) or TIMING_KEY.search(key.split("[")[0]):
            continue
        lines.append(f"{Path(path).name} {key}={CANDIDATE_SECONDS.sub('', value)}")
    lines.append(f"{Path(path).name} exit={done.returncode}")
    return lines


def all_lines(paths: list[str], node_limit: int) -> list[str]:
    """The lines of every file, in order."""
    return [line for path in paths for line in search_lines(path, node_limit)]


def timed_pass(paths: list[str], node_limit: int) -> tuple[list[str], str]:
    """:func:`all_lines`, and the share of a core the solves got (their CPU over their wall): what the load left them."""
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    lines = all_lines(paths, node_limit)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    return lines, f"load {loadavg()}, the solves got {used / wall:.0%} of a core"


def loadavg() -> str:
    """The one-minute load average (``-`` where the system does not say)."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "-"


def main(argv: list[str] | None = None) -> int:
    """Run both passes, write the comparison; 1 if any line differs."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reproducibility", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="definition files (default: every defs/*.txt)")
    parser.add_argument("--burners", type=int, default=3, help="CPU-bound processes beside the second pass")
    parser.add_argument("--node-limit", type=int, default=200_000, help="nodes per search (default 200000)")
    parser.add_argument("--results", default="results", help="directory for the result file")
    args = parser.parse_args(argv)
    paths = args.files or sorted(str(p) for p in Path("defs").glob("*.txt"))

    started = time.time()
    burners = []
    try:
        quiet, quiet_load = timed_pass(paths, args.node_limit)
        burners = [subprocess.Popen([sys.executable, "-c", BURNER]) for _ in range(args.burners)]
        busy, busy_load = timed_pass(paths, args.node_limit)
    except NotSolved as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    diff = list(difflib.unified_diff(quiet, busy, "as the machine was", f"beside {args.burners} burners", lineterm=""))
    choices = [line for line in quiet if " AUTO_CHOICE=" in line]
    verdict = ("identical: every choice, estimate and counter the same" if not diff
               else f"{sum(1 for d in diff if d.startswith('+') and not d.startswith('+++'))} lines differ")
    text = "\n".join([
        "# The automatic configuration under load: the same choices and counters",
        "",
        f"Commit {commit_of('.')}, `python -m benchmarks.reproducibility --burners {args.burners} --node-limit {args.node_limit}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}, {os.cpu_count()} cores. "
        f"Each of {len(paths)} definition files solved with `bench solve -q -i -e fila -w 1 --node-limit {args.node_limit}`, "
        f"once as the machine was ({quiet_load}) and once beside {args.burners} more CPU-bound processes "
        f"({busy_load}). Compared: every `KEY=VALUE` line but times (keys naming seconds, rates or the clock, "
        "each candidate's `seconds=`) and the two cache lines (`COVER_CACHE`, `KERNEL_LIBRARIES`).",
        "",
        f"**Result: {verdict}** ({len(quiet)} lines compared, {len(choices)} automatic choices).",
        "",
        "```diff" if diff else "```",
        *(diff or [line for line in quiet if " AUTO_CHOICE=" in line or " NODES=" in line]),
        "```",
        "",
    ])
    out = Path(args.results)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "auto-under-load.md", text)
    print(text.split("```")[0].rstrip())
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
