"""Parallel solves: local workers, a Dask cluster on loopback, kill and resume, worker death, estimates."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bench
from bench import Cover
from bench.cli import main
from bench.engines import Settings, get_engine
from bench.engines.sampling import estimate_tree
from bench.parallel.journal import Journal
from bench.parallel.progress import Progress
from bench.parallel.runner import ParallelOptions, solve_parallel
from support import DEFS

ROOT = Path(__file__).resolve().parent.parent
BENCH = [sys.executable, "-m", "bench"]
# pentominoes 10x6 without the redundancy filter, DLX with s: the single-process figures
FULL = {"SOLUTIONS": 9356, "UNIQUE": 2339, "TOTAL": 9356, "NODES": 1209945, "FITS_TOTAL": 3615971}


@pytest.fixture(scope="module")
def p10x6():
    [puzzle] = bench.load(DEFS / "pentominoes_10x6.txt")
    return Cover.from_puzzle(puzzle, redundancy=True)


def keyed(text: str) -> dict:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


def test_two_local_workers_give_the_single_process_counts_and_counters(p10x6, tmp_path):
    engine = get_engine("dlx")
    single = engine.solve(p10x6)
    split = solve_parallel(p10x6, engine, Settings(), ParallelOptions(workers=2, journal=tmp_path / "j.jsonl"))
    assert (split.status.value, split.covers, split.unique, split.total) == ("solved", 2339, 2339, 9356)
    assert split.stats["nodes"] == single.stats["nodes"] and split.stats["fits"] == single.stats["fits"]
    assert split.stats["parallel"]["subproblems"] >= 32
    lines = (tmp_path / "j.jsonl").read_text().splitlines()
    assert len(lines) == 1 + split.stats["parallel"]["subproblems"]


def test_fila_split_counts(p10x6):
    result = solve_parallel(p10x6, get_engine("fila"), Settings(), ParallelOptions(workers=2, depth=1))
    assert (result.covers, result.unique, result.total) == (2339, 2339, 9356)


def test_the_callers_work_runs_while_the_workers_search(p10x6):
    # bench solve computes --info's and --json's puzzle facts there: the parent is idle while the workers search
    seen = []
    result = solve_parallel(p10x6, get_engine("fila"), Settings(), ParallelOptions(workers=2, depth=1),
                            alongside=lambda: seen.append(len(multiprocessing.active_children())))
    assert seen == [2] and result.covers == 2339


def test_the_benchmark_reads_the_count_line_bench_solve_prints():
    from benchmarks.parallel import counted
    from bench.cli.output import count_line
    from bench.engines.protocol import Result, Status

    line = count_line("defs/a b.txt", Result(engine="fila", status=Status.SOLVED, covers=9839, unique=9839,
                                               total=236136, timings={"solve": 3.25}))
    assert counted(f"compiling...\n{line}\n".encode(), 0) == (3.25, (9839, 9839, 236136, "solved"))
    assert counted(line.encode(), 3)[1][3] == "exit 3"
    assert counted(b"Traceback", 1) == (0.0, (None, None, None, "exit 1"))


COUNTERS = ("nodes", "attempts", "fits", "attempts_by_remaining", "fits_by_remaining", "updates_by_remaining")


def test_a_fila_split_adds_up_to_the_single_search_in_every_counter(p10x6, tmp_path):
    # FILA after the first piece: an automatic split cuts the first piece's branches, a deeper one FILA's own levels
    # (a piece of FILA's tree replays FILA's choices), and every counter adds up at any depth
    engine = get_engine("fila")
    settings = engine.settle(p10x6, Settings(fila=11))
    single = engine.solve(p10x6, settings)
    for depth in (None, 3):
        split = solve_parallel(p10x6, engine, settings, ParallelOptions(workers=2, depth=depth,
                                                                       journal=tmp_path / f"{depth}.jsonl"))
        assert (split.covers, split.unique, split.total) == (single.covers, single.unique, single.total)
        assert split.stats["parallel"]["depth"] == (depth or 1)
        assert split.stats["parallel"]["exact_statistics"] == "true" and split.stats["parallel"]["subproblems"] > 2
        for key in COUNTERS:
            assert split.stats[key] == single.stats[key], key
        assert split.stats["fila"] == single.stats["fila"]


@pytest.fixture
def small_budgets(p10x6, monkeypatch):
    """FILA after the first piece of 10x6 with budgets of 20,000 nodes: the engine, its settings, one search's result.

    On a 2.5 M node search (a budget is at most 1/512 of the work done, at least the floor) the 12 first placements
    hand back pieces, generation after generation.
    """
    from bench.parallel import runner

    monkeypatch.setattr(runner, "BUDGET_FLOOR", 20_000)
    engine = get_engine("fila")
    settings = engine.settle(p10x6, Settings(fila=11))
    return engine, settings, engine.solve(p10x6, settings)


def test_a_budget_cuts_the_largest_sub_problems_and_every_counter_adds_up(p10x6, tmp_path, small_budgets):
    # the pieces are journaled and resumed like any other sub-problem
    engine, settings, single = small_budgets
    path = tmp_path / "j.jsonl"
    split = solve_parallel(p10x6, engine, settings, ParallelOptions(workers=2, journal=path))
    par = split.stats["parallel"]
    assert (split.covers, split.unique, split.total) == (single.covers, single.unique, single.total)
    assert split.stats == {**single.stats, "parallel": par}
    assert par["handed_back"] > 50 and par["generations"] > 2 and par["budget_largest"] >= 20_000
    # no sub-problem is much larger than its budget: the balance bound nears the worker count
    assert par["work_largest"] < 25_000 and par["speedup_bound_16"] > 15
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + par["subproblems"]
    # a run stopped half-way resumes to the same counters: its pieces come from the journal's records
    path.write_text("".join(lines[: len(lines) // 2]))
    resumed = solve_parallel(p10x6, engine, settings, ParallelOptions(workers=2, journal=path, resume=True))
    assert resumed.stats["parallel"]["resumed"] == len(lines) // 2 - 1
    assert resumed.stats["parallel"]["subproblems"] == par["subproblems"]
    assert {k: v for k, v in resumed.stats.items() if k != "parallel"} == single.stats


def _info(argv: list[str], capsys) -> dict:
    """The KEY=value lines ``bench solve -q -i`` prints for ``argv``."""
    capsys.readouterr()
    assert main(["solve", "-q", "-i", *argv]) == 0
    return keyed(capsys.readouterr().out)


def _counters(info: dict) -> dict:
    """Every line of ``info`` but times, rates, the split's own description, whether the cover came from the cache
    and the kernel libraries the process has loaded (the splitter's DLX loads the sparse-set one, which an earlier
    test in the same process may have loaded already)."""
    return {k: v for k, v in info.items()
            if not (k.endswith(("_SECONDS", "_TIME", "_PER_SEC")) or k.startswith("PARALLEL_")
                    or k in ("COVER_CACHE", "KERNEL_LIBRARIES"))}


@pytest.mark.parametrize("engine", ["fila", "dlx"])
def test_every_counter_info_prints_adds_up_over_two_workers(engine, capsys, tmp_path):
    # the untuned 10x6 (FILA chooses its redundancy piece, volume filter and hand-off): -w 2 against -w 1
    puzzle = str(DEFS / "pentominoes_10x6.txt")
    single = _info(["-e", engine, puzzle, "-w", "1"], capsys)
    split = _info(["-e", engine, puzzle, "-w", "2", "--journal", str(tmp_path / "j.jsonl")], capsys)
    assert split["PARALLEL_EXACT_STATISTICS"] == "true"
    assert int(split["PARALLEL_SUBPROBLEMS"]) > 2
    # the balance: the sub-problems' nodes and the splitter's are every node of the search
    assert split["PARALLEL_WORK"] == "nodes" and split["PARALLEL_WORK_TOTAL"] == single["NODES"]
    assert 0 < int(split["PARALLEL_WORK_LARGEST"]) < int(split["PARALLEL_WORK_TOTAL"])
    bounds = [float(split[f"PARALLEL_SPEEDUP_BOUND_{n}"]) for n in (4, 16, 64)]
    assert 1 <= bounds[0] <= bounds[1] <= bounds[2] <= 1 / float(split["PARALLEL_LARGEST_SHARE"]) + 0.01
    counters = _counters(single)
    assert {"NODES", "ATTEMPTS_TOTAL", "FITS_TOTAL", "NO_FITS_TOTAL", "ATTEMPTS[ 1]", "FITS[12]",
            "LIST_UPDATES[12]"} <= set(counters)
    assert _counters(split) == counters


def test_worker_timings_measure_the_start_and_the_idle_tail():
    from bench.parallel.runner import worker_timings

    # worker 1 ends at 10 s, worker 2 at 9 s; dispatched at 0 s, the first sub-problem started at 0.25 s
    timelines = [{"pid": 1, "started": 0.25, "ended": 6.0, "fila_setup": 0.5},
                 {"pid": 2, "started": 0.5, "ended": 9.0, "fila_setup": 0.25},
                 {"pid": 1, "started": 6.0, "ended": 10.0, "fila_setup": 0.25}]
    assert worker_timings(timelines, 0.0, 2, local=True) == {"fila_setup": 1.0, "workers_start": 0.25,
                                                              "idle_tail": 0.5}
    # a third worker that got nothing waited all along; on a cluster the clocks differ, so only sums are kept
    assert worker_timings(timelines, 0.0, 3, local=True)["idle_tail"] == (1.0 + 10.0) / 3
    assert worker_timings(timelines, 0.0, 2, local=False) == {"fila_setup": 1.0}


def test_a_deeper_split_gives_every_counter_of_one_search(capsys, tmp_path):
    puzzle = str(DEFS / "pentominoes_10x6.txt")
    single = _counters(_info(["-e", "fila", puzzle, "-w", "1"], capsys))
    info = _info(["-e", "fila", puzzle, "-w", "2", "--split-depth", "3", "--journal", str(tmp_path / "j.jsonl")],
                 capsys)
    assert info["PARALLEL_EXACT_STATISTICS"] == "true" and info["PARALLEL_DEPTH"] == "3"
    assert _counters(info) == single


def test_a_resumed_journal_skips_what_is_done_and_drops_a_torn_line(p10x6, tmp_path):
    engine = get_engine("dlx")
    path = tmp_path / "j.jsonl"
    solve_parallel(p10x6, engine, Settings(), ParallelOptions(workers=2, journal=path))
    lines = path.read_text().splitlines(keepends=True)
    kept = lines[: 1 + len(lines) // 2]
    path.write_text("".join(kept) + lines[-1][:17])
    result = solve_parallel(p10x6, engine, Settings(), ParallelOptions(workers=2, journal=path, resume=True))
    assert (result.status.value, result.covers, result.unique, result.total) == ("solved", 2339, 2339, 9356), result.message
    assert result.stats["parallel"]["resumed"] == len(kept) - 1
    assert result.stats["fits"] == engine.solve(p10x6).stats["fits"]
    records = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert sorted(r["id"] for r in records) == sorted({r["id"] for r in records})


def test_resume_refuses_another_runs_journal(p10x6, tmp_path):
    path = tmp_path / "j.jsonl"
    solve_parallel(p10x6, get_engine("dlx"), Settings(), ParallelOptions(workers=2, journal=path, depth=1))
    with pytest.raises(bench.BenchError, match="another run"):
        Journal.resume(path, "not-this-key")
    with pytest.raises(bench.BenchError, match="another run"):
        solve_parallel(p10x6, get_engine("dlx"), Settings(order="f"), ParallelOptions(workers=2, journal=path,
                                                                                      resume=True, depth=1))


def _journal_records(path: Path) -> int:
    try:
        return max(len(path.read_text().splitlines()) - 1, 0)
    except FileNotFoundError:
        return 0


def _run_until(args: list[str], journal: Path, records: int) -> subprocess.Popen:
    proc = subprocess.Popen(BENCH + args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.time() + 120
    while _journal_records(journal) < records and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    return proc


def test_a_killed_run_resumes_to_exactly_the_uninterrupted_counts(tmp_path):
    journal = tmp_path / "run.jsonl"
    args = ["solve", "-q", "-i", "--workers", "2", "--split-depth", "2", "--journal", str(journal),
            str(DEFS / "pentominoes_10x6.txt")]
    proc = _run_until(args, journal, 40)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = _journal_records(journal)
    assert 40 <= done_before < 288
    resumed = subprocess.run(BENCH + args + ["--resume"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    out = keyed(resumed.stdout)
    assert {k: int(out[k]) for k in FULL} == FULL
    assert int(out["PARALLEL_RESUMED"]) == done_before


def test_a_worker_killed_mid_run_has_its_sub_problem_solved_again(tmp_path):
    journal = tmp_path / "run.jsonl"
    args = ["solve", "-q", "-i", "--workers", "2", "--split-depth", "2", "--journal", str(journal),
            str(DEFS / "pentominoes_10x6.txt")]
    proc = _run_until(args, journal, 30)
    assert proc.poll() is None
    children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert children
    os.kill(int(children[0]), signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert {k: int(keyed(out)[k]) for k in FULL} == FULL


def test_a_worker_that_dies_just_before_a_submit_costs_only_its_tasks(p10x6, monkeypatch):
    # the pool notices a dead worker before the queue does: its next submit raises BrokenProcessPool (seen under load)
    from concurrent.futures import ProcessPoolExecutor

    from bench.parallel import executors

    class Dying(ProcessPoolExecutor):
        submits = 0

        def submit(self, *args, **kwargs):
            Dying.submits += 1
            if Dying.submits == 5:
                os.kill(next(iter(self._processes)), signal.SIGKILL)
                deadline = time.monotonic() + 60
                while not self._broken and time.monotonic() < deadline:
                    time.sleep(0.01)
            return super().submit(*args, **kwargs)

    monkeypatch.setattr(executors, "ProcessPoolExecutor", Dying)
    engine = get_engine("dlx")
    result = solve_parallel(p10x6, engine, Settings(), ParallelOptions(workers=2, depth=2))
    assert Dying.submits > 5
    assert (result.status.value, result.covers, result.unique, result.total) == ("solved", 2339, 2339, 9356), \
        result.message
    assert result.stats["fits"] == engine.solve(p10x6).stats["fits"]


def test_sub_problem_errors_make_the_counts_partial(p10x6, monkeypatch):
    from bench.parallel import executors

    real = executors.solve_one

    def flaky(payload, sub):
        if sub.prefix[0][0] % 3 == 0:
            raise RuntimeError("disk on fire")
        return real(payload, sub)

    monkeypatch.setattr(executors, "solve_one", flaky)
    result = solve_parallel(p10x6, get_engine("dlx"), Settings(), ParallelOptions(workers=2, depth=2))
    assert result.status.value == "error"
    assert "partial counts" in result.message and "disk on fire" in result.message
    assert result.covers < 2339


@pytest.fixture(scope="module")
def dask_cluster():
    pytest.importorskip("distributed")
    from bench.parallel.executors import loopback_cluster

    with loopback_cluster(2, cwd=ROOT) as address:
        yield address


def test_a_two_worker_dask_cluster_on_loopback_gives_the_same_counts(p10x6, dask_cluster, tmp_path):
    engine = get_engine("dlx")
    result = solve_parallel(p10x6, engine, Settings(), ParallelOptions(workers=2, cluster=dask_cluster,
                                                                       journal=tmp_path / "j.jsonl"))
    assert (result.status.value, result.covers, result.unique, result.total) == ("solved", 2339, 2339, 9356), result.message
    assert result.stats["fits"] == engine.solve(p10x6).stats["fits"]
    par = result.stats["parallel"]
    assert 0 < par["dispatch_seconds_per_task"] < 1
    assert 1 <= par["tasks"] <= par["subproblems"]
    assert par["dispatch_share"] == pytest.approx(par["tasks"] * par["dispatch_seconds_per_task"] / sum(
        r["seconds"] for r in map(json.loads, (tmp_path / "j.jsonl").read_text().splitlines()[1:])))


def test_a_dask_worker_killed_mid_run_costs_only_its_sub_problems(p10x6, tmp_path, small_budgets):
    import threading

    from distributed import Client

    from bench.parallel.executors import loopback_cluster

    # small budgets: a hundred tasks and more, so the run is still going when one of the three workers is killed
    engine, settings, single = small_budgets
    journal = tmp_path / "j.jsonl"
    with loopback_cluster(3, cwd=ROOT, worker_options=("--no-nanny",)) as address, Client(address) as client:
        pids = client.run(os.getpid)
        out = {}
        run = threading.Thread(target=lambda: out.update(result=solve_parallel(
            p10x6, engine, settings, ParallelOptions(cluster=address, journal=journal, progress=False))))
        run.start()
        deadline = time.time() + 120
        while _journal_records(journal) < 20 and run.is_alive() and time.time() < deadline:
            time.sleep(0.02)
        assert run.is_alive(), "the run finished before a worker could be killed"
        os.kill(pids[sorted(pids)[0]], signal.SIGKILL)
        run.join(timeout=300)
    result = out["result"]
    assert (result.status.value, result.covers, result.unique, result.total) == ("solved", 2339, 2339, 9356), \
        result.message
    assert {k: v for k, v in result.stats.items() if k != "parallel"} == single.stats
    assert result.stats["parallel"]["handed_back"] > 20


def test_cluster_cli(dask_cluster, capsys):
    assert main(["solve", "-q", "-i", "-r", "--cluster", dask_cluster, str(DEFS / "pentominoes_20x3.txt")]) == 0
    out = keyed(capsys.readouterr().out)
    assert (out["SOLUTIONS"], out["UNIQUE"], out["TOTAL"]) == ("2", "2", "8")


@pytest.mark.slow  # waits out Dask's connection timeout (20 s)
def test_unreachable_cluster_is_a_clear_error(capsys):
    pytest.importorskip("distributed")
    assert main(["solve", "-q", "--cluster", "tcp://127.0.0.1:9", str(DEFS / "pentominoes_20x3.txt")]) == 2
    assert "cannot reach a Dask scheduler" in capsys.readouterr().err


def test_estimates_of_10x6_are_mostly_within_a_factor_of_two(p10x6):
    true = get_engine("dlx").solve(p10x6).stats["nodes"]
    ratios = [estimate_tree(p10x6, trials=1000, seed=s).nodes / true for s in range(1, 11)]
    assert sum(0.5 <= r <= 2 for r in ratios) >= 7


def test_estimate_below_a_prefix_and_to_a_goal(p10x6):
    from bench.parallel.split import split

    sub = split(p10x6, Settings(), 1).subproblems[0]
    alone = get_engine("dlx").solve(p10x6, Settings(prefix=sub.prefix)).stats["nodes"]
    est = estimate_tree(p10x6, trials=2000, prefix=sub.prefix).nodes
    assert alone / 3 < est < alone * 3
    top = get_engine("dlx").solve(p10x6, Settings(goal=10)).stats["nodes"]
    assert estimate_tree(p10x6, trials=500, goal=10).nodes == pytest.approx(top, rel=0.5)


def test_estimate_command(capsys):
    assert main(["estimate", "-r", "--repeat", "3", "--trials", "500", "--check", str(DEFS / "pentominoes_20x3.txt")]) == 0
    out = keyed(capsys.readouterr().out)
    assert out["NODES"] == "6402" and int(out["ESTIMATES"]) == 3
    assert float(out["RATIO_MIN"]) > 0
    assert main(["solve", "-r", "--sample", "200,0,7", str(DEFS / "pentominoes_20x3.txt")]) == 0
    assert "ESTIMATE_NODES=" in capsys.readouterr().out
    assert main(["solve", "--sample", "x", str(DEFS / "pentominoes_20x3.txt")]) == 2


def test_printing_solutions_is_refused_with_explicit_workers(capsys):
    assert main(["solve", "--workers", "2", str(DEFS / "pentominoes_20x3.txt")]) == 2
    assert "printed in search order" in capsys.readouterr().err
    # by default a small search stays in one process and prints as usual
    assert main(["solve", "-r", "#", str(DEFS / "pentominoes_20x3.txt")]) == 0
    assert capsys.readouterr().out.count("# --- SOLUTION") == 2


def test_progress_line():
    stream = io.StringIO()
    progress = Progress(4, {"0": 3.0, "1": 1.0, "2": 0.0, "3": 0.0}, enabled=True, delay=0.0, stream=stream)
    progress.advance("0")
    text = stream.getvalue()
    # three quarters of the estimated tree are done after the first sub-problem
    assert "1/4 sub-problems" in text and "ETA" in text and "###############" in text
    assert "################" not in text
    progress.close()
    assert stream.getvalue().endswith("\n")
    quiet = io.StringIO()
    Progress(2, {}, enabled=False, stream=quiet).advance("0")
    assert quiet.getvalue() == ""


def test_the_schedule_goes_oldest_first_and_budgets_from_the_work_two_generations_back():
    from bench.parallel.runner import BUDGET_FLOOR, BUDGET_SHARE, Schedule
    from bench.parallel.split import SubProblem

    schedule = Schedule(True, split_nodes=100)
    for ident, generation, weight in (("0", 0, 1.0), ("1", 0, 5.0), ("0/0", 1, 9.0), ("0/0/0", 2, 9.0)):
        schedule.add(SubProblem(ident, (), generation=generation), weight)
    # generation 0 and 1 get the floor at once, largest first within a generation
    assert [(s.ident, s.budget) for s in schedule.take(2)] == [("1", BUDGET_FLOOR), ("0", BUDGET_FLOOR)]
    assert [(s.ident, s.budget) for s in schedule.take(5)] == [("0/0", BUDGET_FLOOR)]
    # generation 2 waits until generation 0 is done: its budget is their work over BUDGET_SHARE
    schedule.done(0, 900 * BUDGET_SHARE)
    assert schedule.take(5) == [] and schedule.budget(2) is None
    schedule.done(0, 100 * BUDGET_SHARE)
    assert schedule.budget(2) == max(BUDGET_FLOOR, (100 + 1000 * BUDGET_SHARE) // BUDGET_SHARE)
    assert [s.ident for s in schedule.take(5)] == ["0/0/0"] and len(schedule) == 0
    # without budgets (an engine that cannot hand pieces back) nothing waits
    plain = Schedule(False, 0)
    plain.add(SubProblem("0", (), generation=3), 1.0)
    assert [s.budget for s in plain.take(1)] == [0]


def test_a_stopped_worker_has_its_sub_problem_solved_again(tmp_path):
    from support.abuse import STOPPED

    # the abuse suite's script: a split run of 10x6 whose first worker is stopped (SIGSTOP) as soon as the workers have
    # their first sub-problems; a worker that happens to be between tasks then has nothing to hand back, so up to
    # three runs, each with the exact counts, until one stops a worker in the middle of a sub-problem
    stderr = []
    for _ in range(3):
        child = subprocess.run([sys.executable, "-c", STOPPED, str(DEFS / "pentominoes_10x6.txt"), "0"], cwd=ROOT,
                               capture_output=True, text=True, timeout=300)
        assert child.returncode == 0, child.stderr
        assert child.stdout.split() == ["solved", "2339", "9356"]
        stderr.append(child.stderr)
        if re.search(r"worker process \d+ stopped answering \(no heartbeat for 2 s\); its sub-problem is solved "
                     r"again", child.stderr):
            break
    else:
        raise AssertionError(f"no run noticed its stopped worker: {stderr}")


# -- a cluster that is not one, workers running other code, workers that stop ------------------------------------


@pytest.mark.parametrize("behaviour, fragment", [
    ("silent", "not a Dask scheduler: no Dask handshake came within 1 s"),
    ("http 400", "not a Dask scheduler: it answered b'HTTP/1.1'"),
    ("short length then junk", "not a Dask scheduler: its greeting is no Dask handshake"),
])
def test_a_port_that_is_no_scheduler_is_refused_fast_and_clearly(behaviour, fragment):
    pytest.importorskip("distributed")
    import random

    from bench.errors import UsageError
    from bench.parallel import executors
    from support.abuse import Endpoint

    endpoint = Endpoint(behaviour, random.Random(0))
    try:
        with pytest.raises(UsageError, match=re.escape(f"--cluster {endpoint.address}: {fragment}")):
            executors.probe_scheduler(endpoint.address, seconds=1)
    finally:
        endpoint.close()


def test_run_and_solve_refuse_a_cluster_nobody_listens_at_before_any_work(capsys, tmp_path):
    pytest.importorskip("distributed")
    out_file = tmp_path / "run.json"
    assert main(["run", "-e", "dlx", "--cluster", "tcp://127.0.0.1:1", "--output-file", str(out_file),
                 str(DEFS / "dominoes_4x4.txt")]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("--cluster tcp://127.0.0.1:1: cannot reach a Dask scheduler: ") and err.count("\n") == 1
    assert "all counts agree" not in out and not out_file.exists()
    import random

    from support.abuse import Endpoint

    endpoint = Endpoint("http 400", random.Random(0))
    try:
        assert main(["solve", "-q", "--cluster", endpoint.address, str(DEFS / "pentominoes_20x3.txt")]) == 2
    finally:
        endpoint.close()
    assert "not a Dask scheduler" in capsys.readouterr().err


def test_a_worker_running_other_code_is_refused(p10x6, tmp_path):
    pytest.importorskip("distributed")
    from bench.errors import UsageError
    from bench.parallel.executors import loopback_cluster

    foreign = tmp_path / "foreign.py"
    foreign.write_text("import bench.toolchain.sources\nbench.toolchain.sources.code_version = lambda: '0.0.9+0123456789abcdef'\n")
    with loopback_cluster(1, cwd=ROOT, worker_options=("--preload", str(foreign))) as address:
        with pytest.raises(UsageError, match=r"the worker tcp://127\.0\.0\.1:\d+ runs bench 0\.0\.9 \(code "
                                             r"0123456789ab\) where this process runs"):
            solve_parallel(p10x6, get_engine("dlx"), Settings(), ParallelOptions(workers=2, cluster=address))


def test_a_stopped_dask_worker_has_its_tasks_solved_by_the_others(p10x6, tmp_path, capsys):
    pytest.importorskip("distributed")
    import threading

    from distributed import Client

    from bench.parallel.executors import loopback_cluster

    # each sub-problem takes 50 ms more on the workers, so that the run is still going when one is stopped
    slow = tmp_path / "slow.py"
    slow.write_text("import time\nimport bench.parallel.executors as e\n"
                    "# Dask may run a preload script twice, in one namespace: slowed once\n"
                    "if not hasattr(e, 'unslowed'):\n    e.unslowed = e.solve_one\n"
                    "    def slow(payload, sub):\n        time.sleep(0.05)\n        return e.unslowed(payload, sub)\n"
                    "    e.solve_one = slow\n")
    with loopback_cluster(2, cwd=ROOT, worker_options=("--no-nanny", "--preload", str(slow))) as address:
        client = Client(address, timeout="30s")
        victim, stopped = sorted(client.run(os.getpid).items())[0]

        def stop_it_mid_search():
            # once a sub-problem of the search runs on it
            while not any(str(key).startswith("bench-") for key in client.processing().get(victim, ())):
                time.sleep(0.02)
            os.kill(stopped, signal.SIGSTOP)

        watcher = threading.Thread(target=stop_it_mid_search, daemon=True)
        watcher.start()
        try:
            result = solve_parallel(p10x6, get_engine("dlx"), Settings(),
                                    ParallelOptions(workers=2, cluster=address, depth=2, stall_seconds=3))
            assert not watcher.is_alive()
        finally:
            os.kill(stopped, signal.SIGKILL)
            client.close()
    assert (result.status.value, result.covers, result.unique, result.total) == ("solved", 2339, 2339, 9356), result.message
    assert re.search(r"the worker tcp://127\.0\.0\.1:\d+ stopped answering \(no heartbeat for 3 s\)",
                     capsys.readouterr().err)


def test_a_cluster_task_whose_payload_was_lost_with_its_worker_is_submitted_again(tmp_path):
    # Dask's memory manager may keep the scattered payload on one worker only: when that worker goes, the scheduler
    # cancels every task that needs it ("already forgotten"); the queue scatters it again and resubmits
    pytest.importorskip("distributed")
    from distributed import Client

    from bench.parallel.executors import ClusterQueue, loopback_cluster
    from bench.parallel.split import SubProblem

    [puzzle] = bench.load(DEFS / "dominoes_4x4.txt")
    cover = Cover.from_puzzle(puzzle)
    engine = get_engine("dlx")
    expected = engine.solve(cover).covers
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": ROOT}
    with loopback_cluster(1, cwd=ROOT, worker_options=("--no-nanny",)) as address, \
            Client(address, timeout="30s") as client:
        [(holder, pid)] = client.run(os.getpid).items()
        queue = ClusterQueue(client, (cover, engine, Settings()), "lost-payload")
        spare = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                  "--no-nanny", "--no-dashboard"], **quiet)
        try:
            client.wait_for_workers(2, timeout=60)
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 60
            while holder in client.scheduler_info()["workers"] and time.monotonic() < deadline:
                time.sleep(0.05)
            assert holder not in client.scheduler_info()["workers"]
            queue.submit([SubProblem("0", ())])
            [(sub, outcome)] = list(queue)
        finally:
            spare.kill()
            spare.wait()
    assert not isinstance(outcome, BaseException), outcome
    assert (sub.ident, outcome["status"], outcome["covers"]) == ("0", "solved", expected)
