"""Searches cut short: never silent (a warning, a non-zero status), never lossy (every solution found printed).

The signal tests run ``bench solve`` in a child process and signal it once
its search has started (the ``-i`` facts are printed, and flushed, just
before the search).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
import types
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import bench
from bench.system import signals
from bench.cli import main
from bench.engines import ENGINES, Limits, Settings, Status
from bench.parallel import executors
from support import DEFS, ROOT

SLOW_SEARCH = DEFS / "pentominoes_1s_18x5.txt"  # hours in DLX: always still running when signalled


def start_solve(*argv):
    return subprocess.Popen([sys.executable, "-m", "bench", "solve", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(proc) -> tuple[str, str]:
    """The rest of a child's output once it ends (read through the same buffers as :func:`wait_for_line`)."""
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.wait(timeout=60)
    return out, err


def wait_for_line(stream, pattern: str, timeout: float = 120) -> list[str]:
    """Lines read from ``stream`` up to the first matching ``pattern`` (a regex)."""
    lines = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        lines.append(line)
        if re.search(pattern, line):
            return lines
    raise AssertionError(f"no line matching {pattern!r} in {lines[-5:]}")


@pytest.fixture(scope="module")
def compiled():
    """The kernels of the signalled solves compiled beforehand: a stop during compilation counts no node."""
    subprocess.run([sys.executable, "-m", "bench", "solve", "-q", "-w", "1", "--time-limit", "0.2", str(SLOW_SEARCH)],
                   cwd=ROOT, capture_output=True, timeout=600)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_every_stop_signal_gives_partial_counts_a_warning_and_128_plus_its_number(signum, compiled):
    proc = start_solve("-i", "-q", "-w", "1", str(SLOW_SEARCH))
    head = wait_for_line(proc.stdout, r"^UNSOLVABLE=")
    time.sleep(0.5)
    proc.send_signal(signum)
    out, err = finish(proc)
    out = "".join(head) + out
    assert proc.returncode == 128 + signum
    assert "STATUS=interrupted" in out and "PARTIAL=true" in out and "NODES=" in out
    name = signal.Signals(signum).name
    assert re.search(rf"warning: .*pentominoes_1s_18x5.txt: {name}.* stopped the search; the counts are partial", err)
    assert "(dlx, interrupted, partial)" in err and "Traceback" not in err


# the libraries these engines call see no signal in their native code; they solve in a child process that is killed
HELD_IN_A_CHILD = ["ganak", "exact-cover", "cpsat", "sat", "xcover"]


def wait_for_a_child(pid: int, timeout: float = 120) -> None:
    """Return once process ``pid`` has a child process (Linux's /proc), i.e. once it has forked its search."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                # pid (comm) state ppid ...: the name may hold blanks and parentheses, the rest does not
                if int(stat.read_text().rpartition(")")[2].split()[1]) == pid:
                    return
            except (OSError, ValueError, IndexError):
                continue
        time.sleep(0.05)
    raise AssertionError(f"process {pid} started no child in {timeout} s")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the search's process in /proc")
@pytest.mark.parametrize("engine, signum", [(e, signal.SIGTERM) for e in HELD_IN_A_CHILD] + [("ganak", signal.SIGINT)])
def test_engines_whose_library_cannot_be_interrupted_stop_at_a_signal_all_the_same(engine, signum):
    # minutes to hours for each of them (ganak's count never ended in 10 minutes): still searching when signalled
    proc = start_solve("-q", "-e", engine, str(SLOW_SEARCH))
    wait_for_a_child(proc.pid)
    proc.send_signal(signum)
    out, err = finish(proc)
    assert proc.returncode == 128 + signum, err
    assert f"({engine}, interrupted, partial)" in err and "Traceback" not in err
    assert f"{signal.Signals(signum).name}" in err and "stopped the search" in err


def test_a_call_held_in_a_child_relays_what_it_hands_over_in_order_and_needs_no_deadline():
    from bench.system.processes import call_with_deadline

    seen = []

    def count(n, forward):
        for k in range(n):
            forward(k, os.getpid())
        return os.getpid()

    child = call_with_deadline(count, None, 50, relay=lambda k, pid: seen.append((k, pid)))
    assert child != os.getpid()
    assert [k for k, _ in seen] == list(range(50)) and {pid for _, pid in seen} == {child}


def test_a_library_engine_in_its_child_still_hands_every_solution_to_the_caller(capsys):
    assert main(["solve", "--json", "--solutions", "-e", "xcover", str(DEFS / "pentominoes_20x3.txt")]) == 0
    [doc] = json.loads(capsys.readouterr().out)
    assert doc["result"]["covers"] == 8 and len(doc["solutions"]) == 8


def test_ctrl_c_after_thousands_of_solutions_leaves_every_one_printed(tmp_path):
    # 12,988,816 domino tilings of 8x8, printed as they are found: the search is far from done when stopped
    path = tmp_path / "dominoes_8x8.txt"
    path.write_text("D:xDim=8:yDim=8:zDim=1\n" + "".join(f"C:name=d{k}:layout=0 0 0, 1 0 0\n" for k in range(32))
                    + "~D\n")
    proc = start_solve("-i", "-w", "1", str(path))
    head = wait_for_line(proc.stdout, r"^# --- SOLUTION 5000 ---")
    proc.send_signal(signal.SIGINT)
    out, err = finish(proc)
    out = "".join(head) + out
    printed = len(re.findall(r"^# --- SOLUTION \d+ ---$", out, re.M))
    found = int(re.search(r"^SOLUTIONS=(\d+)$", out, re.M).group(1))
    assert proc.returncode == 130
    assert printed == found > 5000
    # every printed solution is whole: 8 rows of 8 cells each
    last = out.split(f"# --- SOLUTION {printed} ---\n", 1)[1].splitlines()[:8]
    assert all(len(row.split()) == 8 for row in last)


def test_sigusr1_prints_the_status_so_far_and_sigusr2_toggles_the_trace():
    # -p puts the search on the sparse-set kernel, the one that traces
    proc = start_solve("-i", "-p", "-w", "1", str(SLOW_SEARCH))
    wait_for_line(proc.stdout, r"^UNSOLVABLE=")
    time.sleep(0.5)
    proc.send_signal(signal.SIGUSR1)
    status = wait_for_line(proc.stderr, r"^LEVEL=")
    assert "STATUS=running\n" in status and any(line.startswith("NODES=") for line in status)
    proc.send_signal(signal.SIGUSR2)
    trace = wait_for_line(proc.stdout, r"^END TRACE")
    assert any(line.startswith("TRACE ") for line in trace)
    proc.send_signal(signal.SIGINT)
    finish(proc)
    assert proc.returncode == 130


def test_a_time_limit_cut_warns_and_exits_3(capsys):
    status = main(["solve", "-q", "-w", "1", "--time-limit", "0.05", str(SLOW_SEARCH)])
    err = capsys.readouterr().err
    assert status == 3
    assert "(dlx, timeout, partial)" in err
    assert "warning: " in err and "--time-limit 0.05 s stopped the search; the counts are partial" in err


def test_a_node_limit_cut_warns_and_exits_3_but_max_solutions_is_what_was_asked(capsys):
    assert main(["solve", "-q", "--node-limit", "100", str(DEFS / "pentominoes_10x6.txt")]) == 3
    assert "--node-limit 100 stopped the search" in capsys.readouterr().err
    assert main(["solve", "-q", "--max-solutions", "3", str(DEFS / "pentominoes_10x6.txt")]) == 0
    err = capsys.readouterr().err
    assert "pentominoes_10x6.txt: 3 covers" in err and "warning" not in err


def test_every_solve_ends_with_a_count_line_on_standard_error(capsys):
    assert main(["solve", "-q", "-e", "fila", str(DEFS / "pentominoes_20x3.txt")]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    # the covers depend on the piece the redundancy filter constrains (X: 4, its symmetric images), not the counts
    # on a cold cache a line before it says the kernels compile; the count line is last either way
    assert re.fullmatch(r".*pentominoes_20x3.txt: \d+ covers, 2 unique, 8 total in \d+\.\d{3} s \(fila, solved\)",
                        err.splitlines()[-1])


@pytest.mark.slow
def test_the_tetris_cube_count_line_with_fila(capsys):
    assert main(["solve", "-q", "-e", "fila", str(DEFS / "tetriscube.txt")]) == 0
    assert re.search(r"tetriscube.txt: 9839 covers, 9839 unique, 236136 total in .* \(fila, solved\)",
                     capsys.readouterr().err)


def test_counting_engines_run_under_quiet_and_report_their_counts(capsys):
    assert main(["solve", "-q", "--engine", "ganak", str(DEFS / "dominoes_6x6.txt")]) == 0
    assert "dominoes_6x6.txt: 6728 covers in" in capsys.readouterr().err
    assert main(["solve", "-q", "--engine", "exact-cover", str(DEFS / "pentominoes_20x3.txt")]) == 0
    assert "pentominoes_20x3.txt: 8 covers in" in capsys.readouterr().err
    assert main(["solve", "--engine", "ganak", str(DEFS / "dominoes_6x6.txt")]) == 2
    assert "counts solutions without producing them: add -q" in capsys.readouterr().err


def test_kissat_enumerates_without_incremental_clauses(capsys):
    assert main(["solve", "-q", "--engine", "sat:kissat404", str(DEFS / "dominoes_4x4.txt")]) == 0
    assert "dominoes_4x4.txt: 36 covers, 9 unique, 36 total" in capsys.readouterr().err


def test_an_engine_that_fails_gives_an_error_status_not_a_traceback(capsys, monkeypatch):
    monkeypatch.setitem(ENGINES, "raise", "support.fake_engines:RaiseEngine")
    status = main(["solve", "-q", "--engine", "raise", str(DEFS / "dominoes_4x4.txt")])
    err = capsys.readouterr().err
    assert status == 1
    assert "(raise, error, partial)" in err and "RuntimeError: the library broke" in err


def test_a_journal_needs_a_split(capsys, tmp_path):
    journal = tmp_path / "j.jsonl"
    assert main(["solve", "-q", "-w", "1", "--journal", str(journal), str(DEFS / "pentominoes_20x3.txt")]) == 2
    assert "--journal checkpoints the sub-problems of a split search" in capsys.readouterr().err
    assert not journal.exists()
    # with a split, the journal it writes resumes to the same counts
    assert main(["solve", "-q", "-w", "2", "--journal", str(journal), str(DEFS / "pentominoes_10x6.txt")]) == 0
    assert main(["solve", "-q", "-w", "2", "--journal", str(journal), "--resume", str(DEFS / "pentominoes_10x6.txt")]) == 0
    err = capsys.readouterr().err
    assert len(journal.read_text().splitlines()) > 2
    assert err.count("9356 covers, 2339 unique, 9356 total") == 2


def children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_split_solve_stops_on_sigterm_and_sighup_with_a_resume_hint_and_no_worker_left(tmp_path, signum):
    journal = tmp_path / "j.jsonl"
    proc = start_solve("-q", "-w", "2", "--journal", str(journal), str(SLOW_SEARCH))
    deadline = time.monotonic() + 120
    while not journal.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1)
    workers = children(proc.pid)
    assert workers
    proc.send_signal(signum)
    out, err = finish(proc)
    assert proc.returncode == 128 + signum
    assert f"{signal.Signals(signum).name} stopped the search; the counts are partial" in err
    assert f"resume with --resume (journal {journal})" in err and "Traceback" not in err
    time.sleep(2)
    assert not [pid for pid in workers if alive(pid)]


def _worker_requests():
    return signals.status_requested(), signal.getsignal(signal.SIGUSR1)


def test_a_worker_forked_with_a_status_request_pending_leaves_it_to_the_parent():
    with signals.handled():
        os.kill(os.getpid(), signal.SIGUSR1)
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"), initializer=executors._install,
                                 initargs=(None, os.getpid())) as pool:
            assert pool.submit(_worker_requests).result(timeout=60) == (False, signal.SIG_IGN)
        assert signals.status_requested()


def test_sigusr1_in_a_split_run_prints_the_counts_of_the_finished_sub_problems(tmp_path):
    journal = tmp_path / "j.jsonl"
    # DLX takes minutes over the Tetris Cube's 238 sub-problems, the first done in seconds: the run is still going
    # when both signals come, however loaded the machine (FILA's 2 s ended first under load, status or stop unseen)
    proc = start_solve("-q", "-w", "2", "--journal", str(journal), "-e", "dlx", str(DEFS / "tetriscube.txt"))
    deadline = time.monotonic() + 120
    while not journal.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(signal.SIGUSR1)
    status = wait_for_line(proc.stderr, r"^TOTAL=")
    proc.send_signal(signal.SIGTERM)
    finish(proc)
    assert "STATUS=running\n" in status and any(line.startswith("SUBPROBLEMS_DONE=") for line in status)
    assert proc.returncode == 143


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_bench_run_stops_on_sigterm_and_sighup_keeping_the_finished_puzzles(tmp_path, signum):
    out_file = tmp_path / "run.json"
    # -v: a line for each puzzle, so the test knows when the slow one has started
    proc = subprocess.Popen([sys.executable, "-m", "bench", "run", "-v", "-e", "dlx", "--timeout", "120",
                             "--output-file", str(out_file), str(DEFS / "pentominoes_20x3.txt"), str(SLOW_SEARCH)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_line(proc.stderr, r"pentominoes_1s_18x5.txt: \d+ options")
    time.sleep(1)
    proc.send_signal(signum)
    out, err = finish(proc)
    assert proc.returncode == 128 + signum
    assert f"stopped by {signal.Signals(signum).name}; the finished puzzles are kept" in err
    rows = json.loads(out_file.read_text())["rows"]
    assert [(r["puzzle"].split("/")[-1], r["status"], r["covers"]) for r in rows][:1] == \
        [("pentominoes_20x3.txt", "solved", 2)]


class _Clock:
    """A clock the simulated search below advances: no test depends on the machine's speed."""

    now = 0.0

    @classmethod
    def perf_counter(cls):
        return cls.now


def _assert_stops_in_time(monkeypatch, search, fake_slice, limit):
    """Run ``search`` with its kernel slices simulated by ``fake_slice`` on :class:`_Clock`: it must time out within
    a tenth of ``limit`` or 50 ms past it."""
    from bench.engines import search as search_module

    search._slice = types.MethodType(fake_slice, search)
    monkeypatch.setattr(search_module, "time", _Clock)
    _Clock.now = 0.0
    assert search.run() == Status.TIMEOUT
    assert _Clock.now - limit <= max(0.1 * limit, 0.05), _Clock.now


@pytest.mark.parametrize("limit", [0.045, 0.45, 0.55, 0.7, 1.9])
def test_the_time_limit_holds_within_a_tenth_or_50_ms_when_hand_offs_end_slices_early(monkeypatch, limit):
    """FILA's pipeline: long branches (0.3 s of 1 us nodes) each behind a hand-off building its lists (2.5 ms, one
    node). A slice cut short by a branch's end or a hand-off must not count as a full one: the Tetris Cube's
    slices grew eightfold at every hand-off, to 0.2 s and more, and 0.45 s stopped at 0.96 s."""
    from bench.engines import search as search_module
    from bench.kernels.codes import DONE, PAUSED

    [puzzle] = bench.load(DEFS / "dominoes_4x4.txt")
    search = search_module.Search(bench.Cover.from_puzzle(puzzle), Settings(), Limits(time_limit=limit))
    branch = {"done": 0, "left": 0}

    def fake_slice(self, budget):
        if branch["left"] == 0:
            if branch["done"] == 40:
                return DONE
            branch["done"] += 1
            branch["left"] = 300_000
            self.state[search_module.S_NODES] += 1
            _Clock.now += 0.0025
            return PAUSED
        n = min(budget, branch["left"])
        branch["left"] -= n
        self.state[search_module.S_NODES] += n
        _Clock.now += n * 1e-6
        return PAUSED

    _assert_stops_in_time(monkeypatch, search, fake_slice, limit)


def test_engines_that_cannot_be_interrupted_are_killed_at_the_limit_not_half_a_second_later(monkeypatch):
    from bench.engines import deadline

    asked = []

    def record(function, seconds, relay):
        asked.append(seconds)
        return function(relay)

    monkeypatch.setattr(deadline, "call_with_deadline", record)
    assert deadline.solve_within_limit(None, lambda cover, limits, sink: "solved", None, Limits(time_limit=0.5),
                                       None) == "solved"
    assert asked and asked[0] - 0.5 <= 0.05



@pytest.mark.parametrize("limit", [0.045, 0.45, 0.9, 1.2, 1.9])
def test_the_time_limit_holds_when_dlx_nodes_cost_a_thousand_times_a_sub_searchs(monkeypatch, limit):
    """DLX's 500 nodes of 1 ms (filters) down to each hand-off (its lists built in 2.5 ms), then FILA's branch of
    300,000 nodes of 1 us: the budget FILA's slices grew to (20,000 nodes) must never be DLX's, whose slice would
    then run on to the next hand-off (0.5 s); on a single budget --time-limit 0.9 stopped at 1.30 s."""
    from bench.engines import search as search_module
    from bench.kernels.codes import DONE, PAUSED

    [puzzle] = bench.load(DEFS / "dominoes_4x4.txt")
    search = search_module.Search(bench.Cover.from_puzzle(puzzle), Settings(), Limits(time_limit=limit))
    left = {"dlx": 500, "fila": 0, "handoffs": 0}

    def fake_slice(self, budget):
        key, seconds = ("fila", 1e-6) if self.sub is not None else ("dlx", 1e-3)
        n = min(budget, left[key])
        left[key] -= n
        self.state[search_module.S_NODES] += n
        _Clock.now += n * seconds
        if left[key] == 0 and self.sub is None:
            if left["handoffs"] == 40:
                return DONE
            left["handoffs"] += 1
            _Clock.now += 0.0025
            self.sub, left["fila"] = "FILA's run", 300_000
        elif left[key] == 0:
            self.sub, left["dlx"] = None, 500
        return PAUSED

    _assert_stops_in_time(monkeypatch, search, fake_slice, limit)


def test_a_stop_that_ended_one_solve_does_not_end_the_next_one_in_the_same_process():
    # a command stopped by a signal (the command line's handlers installed), then a Ctrl-C the Python API noted:
    # each once left its request behind, and every later solve of the process came back interrupted
    with signals.handled(), signals.polled():
        os.kill(os.getpid(), signal.SIGINT)
        assert signals.stop_requested() == signal.SIGINT
    assert signals.stop_requested() is None
    with signals.scope():
        signals.note_interrupt()
        assert signals.stop_requested() == signal.SIGINT
    assert signals.stop_requested() is None
    for engine in ("dlx", "fila"):
        result = bench.solve(DEFS / "pentominoes_10x6.txt", engine=engine, workers=1)
        assert (result.status, result.unique, result.total) == (Status.SOLVED, 2339, 9356), engine
