"""The compile benchmark: what each kernel specialization costs cold and cached, and what a first solve costs.

Every figure comes from a fresh process with its own empty kernel cache
(``NUMBA_CACHE_DIR`` set to a new directory, which the package's cache
locators of :mod:`bench.toolchain.cache` then use alone), so nothing compiled
before counts:

- per specialization of :mod:`bench.toolchain.warmup`: CPU seconds to compile
  it cold (the specializations it is built on, FILA's DLX levels, warmed
  first and measured apart), then, in a second process on the same cache,
  to load it;
- whole first solves (``bench solve -q``, cold cache): CPU seconds (user +
  system) of the whole process, wall seconds, and the compile seconds the
  solve reports; then the same solve again on the now warm cache.

CPU seconds, not wall: the machine is shared, and CPU time moves far less
with the load than wall time.  Writes ``results/compile.json`` and
``results/compile.md``.

``python -m benchmarks.compile [--no-solves] [--solve NAME ...] [--results DIR]``
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import user_environment
from bench.system.files import write_atomic

SOLVES = {
    "10x6 fila": ["--engine", "fila", "defs/pentominoes_10x6.txt"],
    "10x6 dlx": ["--engine", "dlx", "defs/pentominoes_10x6.txt"],
    "tetriscube fila": ["--engine", "fila", "defs/tetriscube.txt"],
}


def prerequisites(name: str) -> list[str]:
    """The specializations a specialization's tiny search warms on its way (measured apart)."""
    return ["sets"] if name.startswith("fila") else []


def child(name: str) -> dict:
    """In this process: CPU seconds of importing bench, of each prerequisite, and of ``name`` (cold or cached)."""
    start = time.process_time()
    # every module the tiny searches use, so that the figures below are compiling or loading only
    import bench.models.cover  # noqa: F401
    import bench.models.definition  # noqa: F401
    import bench.models.puzzle  # noqa: F401
    import bench.kernels.bitset  # noqa: F401
    import bench.engines.fila  # noqa: F401
    from bench.toolchain import warmup

    out = {"import": time.process_time() - start}
    for step in prerequisites(name) + [name]:
        start = time.process_time()
        warmup.ensure([step])
        out[step] = time.process_time() - start
    return out


def _run(argv: list[str], cache: Path) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run ``argv`` with its own kernel cache; returns the process, its CPU seconds (user + system) and wall seconds."""
    env = user_environment(NUMBA_CACHE_DIR=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done, cpu, wall


def specialization(name: str, scratch: Path) -> dict:
    """Cold and cached CPU seconds of one specialization, each in a fresh process."""
    cache = scratch / name.replace("+", "-")
    argv = [sys.executable, "-m", "benchmarks.compile", "--child", name]
    row = {"name": name}
    for phase in ("cold", "cached"):
        done, cpu, _ = _run(argv, cache)
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        row[phase] = figures[name]
        row[f"{phase}_import"] = figures["import"]
        row[f"{phase}_prerequisites"] = sum(v for k, v in figures.items() if k not in ("import", name))
        row[f"{phase}_process"] = cpu
    return row


def solve(label: str, options: list[str], scratch: Path) -> dict:
    """A first solve on an empty kernel cache, then the same solve on the cache it left."""
    cache = scratch / ("solve-" + label.replace(" ", "-"))
    argv = [sys.executable, "-m", "bench", "solve", "-q", "-i", *options]
    row = {"solve": label, "command": "bench solve -q " + " ".join(options)}
    for phase in ("cold", "cached"):
        done, cpu, wall = _run(argv, cache)
        values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        row[phase] = {"cpu": cpu, "wall": wall, "compile": float(values.get("COMPILE_SECONDS", "nan")),
                      "solve": float(values.get("SOLVE_SECONDS", "nan")),
                      "counts": [values.get(k) for k in ("SOLUTIONS", "UNIQUE", "TOTAL")]}
    return row


def markdown(rows: list[dict], solves: list[dict]) -> str:
    """The report."""
    lines = ["# Compile cost of the native kernels", "",
             "CPU seconds (user + system), each figure from a fresh process with its own empty kernel cache "
             "(`NUMBA_CACHE_DIR`); `python -m benchmarks.compile`.", "",
             "## Per specialization", "",
             "cold: compiling it (its prerequisites, FILA's DLX levels, compiled first and not counted); cached: "
             "loading it in a second process.  import: importing the modules they use, in the cold process.", "",
             "| specialization | cold s | cached s | prerequisites cold s | import s | cold process s |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['cold']:.2f} | {r['cached']:.3f} | {r['cold_prerequisites']:.2f} | "
                     f"{r['cold_import']:.2f} | {r['cold_process']:.2f} |")
    if solves:
        lines += ["", "## First solves", "",
                  "cold: the whole process on an empty kernel cache; cached: the same command again.  compile: the "
                  "solve's COMPILE_SECONDS (wall, apart from its solve seconds).", "",
                  "| solve | cold CPU s | cold wall s | cold compile s | cached CPU s | cached wall s | "
                  "cached compile s | solve s | counts |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for s in solves:
            c, w = s["cold"], s["cached"]
            lines.append(f"| `{s['command']}` | {c['cpu']:.2f} | {c['wall']:.2f} | {c['compile']:.2f} | "
                         f"{w['cpu']:.2f} | {w['wall']:.2f} | {w['compile']:.3f} | {w['solve']:.3f} | "
                         f"{' / '.join(str(v) for v in w['counts'])} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure every specialization and the first solves; write the report."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--no-solves", action="store_true", help="measure the specializations only")
    parser.add_argument("--solve", action="append", choices=sorted(SOLVES),
                        help="a first solve to measure (repeatable; default: all)")
    parser.add_argument("--results", default="results", help="directory for the result files")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    from bench.toolchain.warmup import SPECIALIZATIONS

    out_dir = Path(args.results)
    rows, solves = [], []
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        scratch = Path(tmp)
        for name in SPECIALIZATIONS:
            rows.append(specialization(name, scratch))
            r = rows[-1]
            print(f"{name}: cold {r['cold']:.2f} s, cached {r['cached']:.3f} s (CPU)", flush=True)
        for label in ([] if args.no_solves else args.solve or list(SOLVES)):
            solves.append(solve(label, SOLVES[label], scratch))
            c = solves[-1]["cold"]
            print(f"{label}: cold {c['cpu']:.2f} s CPU, {c['wall']:.2f} s wall, compile {c['compile']:.2f} s; "
                  f"cached {solves[-1]['cached']['cpu']:.2f} s CPU", flush=True)
    document = {"specializations": rows, "solves": solves, "python": sys.version.split()[0]}
    write_atomic(out_dir / "compile.json", json.dumps(document, indent=1) + "\n", "benchmark result")
    write_atomic(out_dir / "compile.md", markdown(rows, solves), "benchmark report")
    print(f"written to {out_dir / 'compile.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
