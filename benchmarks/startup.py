"""Start-up: whole ``bench`` processes in two checkouts, interleaved, and the libraries each command loads.

``python -m benchmarks.startup BEFORE AFTER [--cold] [--rounds R] [--python PY] [--only TEXT ...]``
runs each case (``bench --help``, ``bench info``, cached ``bench solve``
runs of 10x6, the Tetris Cube and the Meteor) as a fresh ``python -m bench`` process in
the checkout BEFORE and in AFTER by turns (A B, then B A, ...), after one
run each that fills the kernel and cover caches, and times the whole
process: wall seconds, and the CPU seconds the operating system accounts
to the child.  The ratio is the median over rounds of before / after, which
is robust to the drift of a shared machine.  It also lists the heavy
libraries each command leaves in ``sys.modules``.  Writes
``results/startup-COMMIT-COMMIT.md``.

With ``--cold`` it times first solves instead (:data:`COLD_CASES`): every
run on its own empty kernel cache (``NUMBA_CACHE_DIR``, a new temporary
folder) without the cover cache (``BENCH_NO_CACHE=1``), as on a new
install, the CPU seconds including any child process's; writes
``results/startup-cold-COMMIT-COMMIT.md``.  A checkout is any directory holding
the ``bench`` package; PY must have bench's dependencies installed.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks import user_environment
from benchmarks.checkouts import checkouts_parser, commit_of, selected
from bench.system.files import write_atomic

CASES = [
    ["--help"],
    ["info", "defs/pentominoes_10x6.txt"],
    ["solve", "-q", "-e", "fila", "defs/pentominoes_10x6.txt"],
    ["solve", "-q", "-e", "fila", "defs/tetriscube.txt"],
    ["solve", "-q", "-e", "fila", "defs/meteor.txt"],
]
COLD_CASES = [
    ["solve", "-q", "-e", "fila", "defs/pentominoes_10x6.txt"],
    ["solve", "-q", "-e", "dlx", "defs/pentominoes_10x6.txt"],
    ["run", "--no-save", "--timeout", "10", "-e", "dlx,fila", "defs/pentominoes_10x6.txt", "defs/somacube.txt"],
]
HEAVY = ("numpy", "numba", "ortools", "pysat", "dask", "tabulate", "matplotlib", "jinja2", "tqdm", "statistics",
         "multiprocessing")
PROBE = """
import json, sys
from bench.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted({m.partition(".")[0] for m in sys.modules})), file=sys.stderr)
"""


def run_once(python: str, checkout: str, argv: list[str], cold: bool = False) -> tuple[float, float]:
    """Wall and CPU seconds of one ``python -m bench ARGV`` in ``checkout`` (output thrown away).

    The CPU seconds include the children the process waited for.  ``cold``:
    on an empty kernel cache of its own, without the cover cache.
    """
    env = user_environment()
    cache = None
    if cold:
        cache = tempfile.mkdtemp(prefix="bench-cold-")
        env = user_environment(NUMBA_CACHE_DIR=cache, BENCH_NO_CACHE="1")
    try:
        start = time.perf_counter()
        child = subprocess.Popen([python, "-m", "bench", *argv], cwd=checkout, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    finally:
        if cache is not None:
            shutil.rmtree(cache, ignore_errors=True)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} in {checkout} exited with {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def libraries(python: str, checkout: str, argv: list[str]) -> list[str]:
    """The libraries of :data:`HEAVY` that ``bench ARGV`` leaves loaded."""
    done = subprocess.run([python, "-c", PROBE, *argv], cwd=checkout, capture_output=True, text=True,
                          env=user_environment())
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    return [name for name in HEAVY if name in loaded]


def compare(python: str, before: str, after: str, argv: list[str], rounds: int, cold: bool = False) -> dict:
    """Interleaved rounds of one case; unless ``cold``, the first run of each checkout only fills its caches."""
    if not cold:
        for checkout in (before, after):
            run_once(python, checkout, argv)
    wall: dict[str, list[float]] = {before: [], after: []}
    cpu: dict[str, list[float]] = {before: [], after: []}
    for r in range(rounds):
        for checkout in ((before, after) if r % 2 == 0 else (after, before)):
            w, c = run_once(python, checkout, argv, cold)
            wall[checkout].append(w)
            cpu[checkout].append(c)
    return {"case": "bench " + " ".join(argv),
            **{f"{side}_{kind}": (statistics.median(values[checkout]), min(values[checkout]), max(values[checkout]))
               for side, checkout in (("before", before), ("after", after))
               for kind, values in (("wall", wall), ("cpu", cpu))},
            "ratio": statistics.median(b / a for b, a in zip(wall[before], wall[after])),
            "loaded_before": [] if cold else libraries(python, before, argv),
            "loaded_after": [] if cold else libraries(python, after, argv)}


def _cell(figures: tuple[float, float, float]) -> str:
    return f"{figures[0]:.3f} ({figures[1]:.3f}-{figures[2]:.3f})"


def markdown(before: str, after: str, rows: list[dict], rounds: int, cold: bool = False) -> str:
    """The report: one row per case, then the libraries each command loads."""
    caches = ("on an empty kernel cache of its own and without the cover cache (a first run on a new install); "
              "CPU includes the child processes" if cold else "with its kernel and cover caches filled")
    lines = [f"# {'First solves' if cold else 'Start-up'}: commit {before} against commit {after}", "",
             f"{rounds} interleaved rounds per case, each a whole `python -m bench` process {caches}; seconds as "
             "median (min-max); ratio = median over rounds of before / after wall time (above 1: after is "
             "faster).", "",
             "| case | before wall s | after wall s | before CPU s | after CPU s | before/after |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r['case']}` | {_cell(r['before_wall'])} | {_cell(r['after_wall'])} | "
                     f"{_cell(r['before_cpu'])} | {_cell(r['after_cpu'])} | {r['ratio']:.2f} |")
    if cold:
        return "\n".join(lines) + "\n"
    lines += ["", "Heavy libraries loaded:", "", "| case | before | after |", "|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r['case']}` | {' '.join(r['loaded_before']) or '-'} | {' '.join(r['loaded_after']) or '-'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Compare the checkouts' start-up and write the report."""
    parser = checkouts_parser("python -m benchmarks.startup", __doc__, rounds=7)
    parser.add_argument("--cold", action="store_true", help="first solves on empty kernel caches instead")
    args = parser.parse_args(argv)
    rows = []
    for case in selected(parser, args, COLD_CASES if args.cold else CASES, " ".join):
        rows.append(compare(args.python, args.before, args.after, case, args.rounds, args.cold))
        r = rows[-1]
        print(f"{r['case']}: before {r['before_wall'][0]:.3f} s, after {r['after_wall'][0]:.3f} s wall, "
              f"ratio {r['ratio']:.2f}", flush=True)
    before, after = commit_of(args.before), commit_of(args.after)
    out = os.path.join(args.results, f"startup-{'cold-' if args.cold else ''}{before}-{after}.md")
    write_atomic(out, markdown(before, after, rows, args.rounds, args.cold), "benchmark report")
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
