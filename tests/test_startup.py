"""Start-up: each command imports only what it needs.

Each case runs the command in a fresh interpreter and lists the heavy
libraries in ``sys.modules`` at its end: numba alone costs about 0.15-0.45 s
of a process's start, the solvers' and the reports' libraries more.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench.toolchain import aot
from support import ROOT

SOLVERS = ("ortools", "pysat", "dask", "distributed", "xcover", "exact_cover", "pyganak")
REPORTING = ("tabulate", "matplotlib", "jinja2")
NATIVE = ("numba", "llvmlite")

PROBE = """
import json, sys
from bench.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
print(json.dumps({"status": status, "modules": sorted({name.partition(".")[0] for name in sys.modules})}),
      file=sys.stderr)
"""


def loaded(*argv: str) -> tuple[int, set[str]]:
    """Exit status and top-level modules imported by ``bench ARGV`` in a fresh interpreter."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=ROOT, timeout=600)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["status"], set(report["modules"])


LIGHT_COMMANDS = [
    ("--help",),
    ("--version",),
    *[(command, "--help") for command in ("solve", "run", "estimate", "info", "check", "report", "compare")],
    ("info", "defs/pentominoes_10x6.txt"),
    ("info", "-r", "L", "defs/tetriscube.txt"),
    ("check", "defs/pentominoes_10x6.txt", "tests/data"),
    ("report", "results/fila-10x6.json"),
    ("report", "--csv", "results/fila-10x6.json"),
    ("compare", "results/dlx-10x6.json", "results/fila-10x6.json"),
]


@pytest.mark.parametrize("argv", LIGHT_COMMANDS, ids=" ".join)
def test_commands_that_solve_nothing_load_no_solver_and_no_compiler(argv):
    status, modules = loaded(*argv)
    assert status in (0, 1)
    assert modules & {*SOLVERS, *REPORTING, *NATIVE} == set()


@pytest.mark.parametrize("argv", [("--help",), ("--version",)], ids=" ".join)
def test_help_loads_not_even_numpy_nor_a_commands_module(argv):
    status, modules = loaded(*argv)
    assert status == 0
    assert modules & {"numpy", "multiprocessing", "ctypes"} == set()
    full = loaded_names(*argv)
    assert {name for name in full if name.startswith("bench.cli.")} == {"bench.cli.syntax"}


def loaded_names(*argv: str) -> set[str]:
    """Every module (full names) imported by ``bench ARGV`` in a fresh interpreter."""
    proc = subprocess.run([sys.executable, "-c", FULL_NAMES, *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
    return set(json.loads(proc.stderr.strip().splitlines()[-1])["modules"])


@pytest.mark.parametrize("command, family", [("solve", "solve"), ("estimate", "solve"), ("run", "run"),
                                             ("info", "info"), ("check", "info"), ("report", "report"),
                                             ("compare", "report")])
def test_a_command_imports_its_own_familys_module_only(command, family):
    commands = {name for name in loaded_names(command, "--help") if name.startswith("bench.cli.")}
    assert f"bench.cli.{family}" in commands
    assert commands & {f"bench.cli.{other}" for other in ("solve", "run", "info", "report")} == {f"bench.cli.{family}"}


@pytest.mark.parametrize("engine", ["fila", "dlx"])
def test_native_solves_load_no_other_solver_and_no_report_library(engine):
    argv = ("solve", "-q", "--engine", engine, "defs/pentominoes_20x3.txt")
    # the first run builds the kernel libraries and fills the cover cache where they are missing
    status, modules = loaded(*argv)
    assert status == 0
    assert modules & {*SOLVERS, *REPORTING} == set()
    status, modules = loaded(*argv)
    assert status == 0
    assert modules & {*SOLVERS, *REPORTING} == set()
    # with its kernel libraries, numba is not imported at all (bench.toolchain.aot); without, it is
    assert modules & set(NATIVE) == (set() if aot.buildable() is None else set(NATIVE))


# what a cached small solve has no use for: the GPU's compiler, and the workers' machinery (forks, pools, sockets)
# and the statistics a split or an estimate reports, 20-25 ms each of a process that should cost little more than
# Python's own start-up
SMALL_SOLVE_SPARES = ("numba_cuda", "cuda", "multiprocessing", "concurrent", "statistics", "logging")


# numpy's parts a cached small solve has no use for: the random generators and masked arrays that a split's
# bootstrapped spread of estimates needs (bench.engines.sampling.mean_nodes), 50-100 ms of the Meteor's process
SMALL_SOLVE_NUMPY_SPARES = ("numpy.random", "numpy.ma")


@pytest.mark.parametrize("puzzle", ["polyspheres_tetrahedron_20", "meteor"])
def test_a_small_cached_solve_loads_no_solver_no_report_library_and_no_worker_machinery(puzzle):
    argv = ("solve", "-q", "--engine", "fila", f"defs/{puzzle}.txt")
    # the first run builds the kernel libraries and fills the cover cache where they are missing
    status, _ = loaded(*argv)
    assert status == 0
    names = loaded_names(*argv)
    modules = {name.partition(".")[0] for name in names}
    assert modules & {*SOLVERS, *REPORTING, *SMALL_SOLVE_SPARES} == set()
    assert modules & set(NATIVE) == (set() if aot.buildable() is None else set(NATIVE))
    assert names & set(SMALL_SOLVE_NUMPY_SPARES) == set()


def test_the_library_encodes_without_numba():
    code = ("import sys, bench\n"
            "from bench.session.prepare import Request, prepare\n"
            "[p] = bench.load('defs/pentominoes_10x6.txt')\n"
            "prepared = prepare(p, Request(redundancy=True))\n"
            "print(prepared.cover.n_options, p.group.order, 'numba' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert proc.stdout.split() == ["2032", "4", "False"]


def test_the_collector_waits_for_the_first_solve_and_then_runs_again(monkeypatch):
    import gc

    from bench.cli import main
    from bench.session.session import Session
    from support import DEFS

    seen = []
    real = Session.solve

    def watched(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(Session, "solve", watched)
    try:
        assert main(["solve", "-q", "-e", "fila", str(DEFS / "pentominoes_20x3.txt"),
                     str(DEFS / "pentominoes_20x3.txt")]) == 0
    finally:
        gc.unfreeze()
    assert seen == [False, True] and gc.isenabled()


FULL_NAMES = PROBE.replace('name.partition(".")[0] for name in sys.modules', "name for name in sys.modules")


@pytest.mark.parametrize("engine", ["fila", "dlx"])
def test_cached_kernels_load_without_numbas_array_and_random_modules(engine):
    # the helpers numba compiled into the kernels (np.empty, np.sort, np.random.randint) name those modules in their
    # environments; rebuilt without importing them, a cached solve spares 30-55 ms (bench.toolchain.cache._environment)
    argv = ["solve", "-q", "--engine", engine, "defs/pentominoes_10x6.txt"]
    # numba's JIT alone (no kernel library), as where no library can be built
    jit = {**os.environ, "BENCH_AOT": "0"}
    # the first run fills the kernel cache where it is empty (a compilation imports every module numba has)
    subprocess.run([sys.executable, "-m", "bench", *argv], capture_output=True, cwd=ROOT, timeout=900, check=True,
                   env=jit)
    proc = subprocess.run([sys.executable, "-c", FULL_NAMES, *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, env=jit)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["status"] == 0 and "2339 unique, 9356 total" in proc.stderr
    assert "numba.core.registry" in report["modules"]
    assert {"numba.np.arrayobj", "numba.np.random.legacy", "numba.cpython.randomimpl"} & set(report["modules"]) == set()
