"""Progress on standard error: a single solve's bar, bench run's bar."""

from __future__ import annotations

import io

import bench
from bench.cli.solve import SolveProgress, watching
from bench.cli.run import RunProgress, engine_line, proof_line
from bench.toolchain import warmup
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


class Terminal(io.StringIO):
    """A stream that says it is a terminal, as standard error is for a user watching a run."""

    def isatty(self) -> bool:
        return True


def drawn(stream: io.StringIO) -> list[str]:
    """The states the bar was drawn in, one per redraw (tqdm rewrites the line after a carriage return)."""
    return [state.strip() for state in stream.getvalue().replace("\x1b[A", "").split("\r") if state.strip()]


def test_run_progress_counts_engine_runs_and_names_the_puzzle_and_engine_at_hand():
    stream = Terminal()
    progress = RunProgress(6, stream=stream, width=120)
    progress.drop(-3)  # three runs more planned
    progress.puzzle("somacube.txt")
    progress.engine("cpsat", 1)
    progress.done(2)
    progress.close()
    states = drawn(stream)
    assert any("2/9 runs" in state and "somacube · cpsat (round 2)" in state for state in states), states
    assert all(len(state) <= 120 for state in states)


def test_the_bar_names_what_compiles_and_for_how_long(monkeypatch):
    stream = Terminal()
    progress = RunProgress(7, stream=stream, width=120)
    progress.puzzle("hexiamonds_6x6.txt")
    # a compilation that started 12 s ago, as warmup.ensure records it
    monkeypatch.setattr(warmup, "_now", [("fila1", warmup.time.perf_counter() - 12.4)])
    assert "hexiamonds_6x6 · compiling the fila1 kernels (12 s; cached afterwards)" in progress.description()
    monkeypatch.setattr(warmup, "_now", [("fila1", warmup.time.perf_counter())])
    assert progress.description() == "hexiamonds_6x6 · preparing"  # a cached load is too short to mention
    progress.close()


def test_the_bar_never_cuts_the_engine_and_shows_no_path():
    stream = Terminal()
    progress = RunProgress(210, stream=stream, width=120)
    progress.puzzle("polyspheres_square_pyramid_30_and_a_much_longer_name_than_any_bundled_one.txt#12")
    progress.engine("exact-cover:some-variant", 2)
    text = progress.description()
    assert text.endswith("· exact-cover:some-variant (round 3)") and "…" in text
    progress.close()
    assert all(len(state) <= 120 for state in drawn(stream))


def test_the_bar_stands_in_for_the_compile_announcement_and_draws_nothing_without_a_terminal(capsys):
    quiet = io.StringIO()
    progress = RunProgress(1, stream=quiet)
    progress.puzzle("a.txt")
    progress.close()
    assert quiet.getvalue() == ""
    progress = RunProgress(1, stream=Terminal())
    monkey = warmup._announced
    try:
        warmup._announced = False
        assert warmup.announce() is False  # the bar shows the compilation instead
    finally:
        warmup._announced = monkey
        progress.close()
    assert capsys.readouterr().err == ""


def test_verbose_lines_read_as_words_not_python_values():
    base = {"engine": "cpsat", "round": 0, "workers": 1, "solve": 12.0, "message": "killed after 12 s"}
    timeout = engine_line({**base, "status": "timeout", "covers": None, "unique": None, "total": None})
    assert timeout == "  cpsat          round 1: timeout  killed after 12 s"
    solved = engine_line({**base, "status": "solved", "covers": 2339, "unique": 2339, "total": 9356, "message": ""})
    assert solved == "  cpsat          round 1: solved   2,339 covers, 2,339 unique, 9,356 total in 12.000 s"
    cut = engine_line({**base, "status": "limit", "covers": 2, "unique": None, "total": None, "message": ""})
    assert "2 covers, unique and total not counted" in cut
    for line in (timeout, solved, cut):
        assert "None" not in line and "nan" not in line
    reasons = [f"piece {c} fits nowhere in the open region" for c in "BCEFGHIJKLMNO"]
    assert proof_line(reasons) == ("  unsolvable without search: piece B fits nowhere in the open region "
                                   "(and 12 more reasons)")


def test_runs_left_out_leave_the_total_and_a_status_line_names_no_puzzle():
    stream = Terminal()
    progress = RunProgress(21, stream=stream, width=120)
    progress.drop(7)  # a puzzle proved unsolvable without search
    assert progress.bar.total == 14
    progress.close()
    status = RunProgress(None, stream=stream, width=120)
    status.status("writing the HTML report")
    assert status.description() == "writing the HTML report"
    status.close()
    assert any(state.endswith("writing the HTML report") and "runs" not in state for state in drawn(stream))
