"""Nothing left behind: children die with their parent, every engine honours the time limit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bench
from bench import Cover
from bench.engines import Limits, get_engine
from bench.system.processes import Overdue, call_with_deadline
from support import DEFS

ROOT = Path(__file__).resolve().parent.parent
BENCH = [sys.executable, "-m", "bench"]


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (read from /proc; zombies count as gone)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    out, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def start(args: list[str], wanted: int) -> tuple[subprocess.Popen, set[int]]:
    """Start ``bench ARGS`` and wait until it has ``wanted`` descendants; returns them."""
    proc = subprocess.Popen(BENCH + args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    # a first run after a change to the kernels compiles them (minutes on a loaded machine) before any worker starts
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None and len(descendants(proc.pid)) < wanted:
        time.sleep(0.05)
    children = descendants(proc.pid)
    assert proc.poll() is None and len(children) >= wanted, "the run ended before it could be killed"
    return proc, children


def gone_within(pids: set[int], seconds: float) -> set[int]:
    deadline = time.time() + seconds
    while alive(pids) and time.time() < deadline:
        time.sleep(0.05)
    return alive(pids)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_pool_workers_die_with_a_killed_solve(sig, tmp_path):
    proc, workers = start(["solve", "-q", "-w", "2", "--split-depth", "2", "--journal", str(tmp_path / "j.jsonl"),
                           str(DEFS / "pentominoes_10x6.txt")], 2)
    os.kill(proc.pid, sig)  # the parent alone, as a kill -9 or an OOM killer would
    proc.wait()
    try:
        assert gone_within(workers, 2.0) == set()
    finally:
        for pid in alive(workers):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_counting_engine_dies_with_a_killed_run(tmp_path):
    # ganak cannot be interrupted and ran on at 100 % CPU after `timeout 4 bench run -e ganak ...`
    proc, children = start(["run", "-e", "ganak", "--timeout", "120", "--no-save", str(DEFS / "pentominoes_10x6.txt")],
                           2)
    os.kill(proc.pid, signal.SIGTERM)
    proc.wait()
    try:
        assert gone_within(children, 2.0) == set()
    finally:
        for pid in alive(children):
            os.kill(pid, signal.SIGKILL)


def test_ganak_honours_the_time_limit():
    [puzzle] = bench.load(DEFS / "pentominoes_10x6.txt")
    cover = Cover.from_puzzle(puzzle, redundancy=True)
    start = time.perf_counter()
    result = get_engine("ganak").solve(cover, limits=Limits(time_limit=1.0))
    assert result.status.value == "timeout" and time.perf_counter() - start < 3.0


def test_a_call_past_its_deadline_is_killed_and_a_quick_one_returns():
    start = time.perf_counter()
    with pytest.raises(Overdue):
        call_with_deadline(time.sleep, 0.5, 30)
    assert time.perf_counter() - start < 2.0
    assert call_with_deadline(sum, 10.0, [1, 2, 3]) == 6
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        call_with_deadline(divmod, 10.0, 1, 0)


PENDING_STOP = """
import multiprocessing, os, signal
from bench.system import signals
from bench.system.processes import _call_child
def child():
    # the state of a call's child whose stop signal came while the fork's mask still held it
    with signals.handled():
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        os.kill(os.getpid(), signal.SIGTERM)
        receive, send = multiprocessing.Pipe(duplex=False)
        _call_child(sum, ([1, 2],), send, os.getppid(), False)
process = multiprocessing.get_context("fork").Process(target=child)
process.start()
process.join()
print(process.exitcode)
"""


def test_a_stop_held_by_the_forks_mask_ends_the_child_without_a_traceback():
    done = subprocess.run([sys.executable, "-c", PENDING_STOP], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["1"] and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("engine", ["dlx", "fila"])
def test_the_time_limit_stops_a_search_with_dear_nodes_promptly(engine):
    # a volume filter at every node makes nodes dear: the first slice once ran far past the limit
    [puzzle] = bench.load(DEFS / "pentominoes_tetrominoes_diamond_13x13.txt")
    cover = Cover.from_puzzle(puzzle, redundancy=True)
    from bench.engines import Settings

    settings = Settings(volume_filter=20) if engine == "dlx" else Settings(fit_filter=20)
    eng = get_engine(engine)
    eng.warm_up()
    result = eng.solve(cover, settings, Limits(time_limit=1.0))
    assert result.status.value == "timeout"
    assert 1.0 <= result.timings["solve"] < 2.0
