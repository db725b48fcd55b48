"""Progress on standard error: a single solve's bar, bench run's bar."""

from __future__ import annotations

import io

import bench
from bench.cli.progress import SolveProgress, watching
from bench.comparison.progress import RunProgress
from bench.engines import get_engine
from bench.engines.protocol import Limits, Settings
from support import DEFS


def test_a_native_solve_reports_nodes_solutions_and_an_estimate():
    [puzzle] = bench.load(DEFS / "pentominoes_12x5.txt")
    cover = bench.Cover.from_puzzle(puzzle, redundancy=True)
    stream = io.StringIO()
    progress = SolveProgress(cover, Settings(), enabled=True, delay=0.0, stream=stream)
    with watching(progress):
        result = get_engine("dlx").solve(cover, Settings(), Limits())
    assert result.covers == 1010
    text = stream.getvalue()
    assert "nodes" in text and "solutions" in text and "ETA ~" in text


def test_no_bar_without_a_terminal_or_before_the_delay():
    [puzzle] = bench.load(DEFS / "pentominoes_20x3.txt")
    cover = bench.Cover.from_puzzle(puzzle, redundancy=True)
    for enabled, delay in ((False, 0.0), (True, 60.0)):
        stream = io.StringIO()
        with watching(SolveProgress(cover, Settings(), enabled=enabled, delay=delay, stream=stream)):
            assert get_engine("fila").solve(cover).covers == 2
        assert stream.getvalue() == ""


def test_run_progress_counts_engine_runs_and_names_the_one_at_hand(capsys):
    progress = RunProgress(2, 3, enabled=True, delay=0.0)
    progress.more_puzzles(1)
    progress.puzzle("somacube.txt")
    progress.engine("cpsat", 0)
    progress.done(2)
    progress.close()
    err = capsys.readouterr().err
    assert "2/9 engine runs" in err and "somacube.txt: cpsat (round 1)" in err
