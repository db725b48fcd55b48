"""The reproducibility benchmark: what it compares, what it sets aside, and that a difference fails it."""

import subprocess

from benchmarks import reproducibility

OUTPUT = """# a comment
AUTO_CHOICE=X
AUTO_SECONDS=0.007950
AUTO_CANDIDATE[X]=rounds=1:trials=70:nodes=2102:attempts=3411:seconds=5.284e-05:kept=7
START_TIME=27/Nov/2026 08:20:43 UTC
COVER_CACHE=hit
KERNEL_LIBRARIES=fila1,sets
NODES=146
SOLUTIONS_PER_SEC=8706.4721
VOLUME_BACKTRACK[ 1]=0
all : 0.049934 : * : 1: 0.050
"""


def test_times_and_cache_lines_are_set_aside_and_the_search_kept(monkeypatch):
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, OUTPUT, ""))
    assert reproducibility.search_lines("defs/x.txt", 10) == [
        "x.txt AUTO_CHOICE=X",
        "x.txt AUTO_CANDIDATE[X]=rounds=1:trials=70:nodes=2102:attempts=3411:kept=7",
        "x.txt NODES=146",
        "x.txt VOLUME_BACKTRACK[ 1]=0",
        "x.txt exit=0",
    ]


def test_a_counter_that_moves_under_load_fails_the_benchmark(monkeypatch, tmp_path):
    passes = iter([["x.txt AUTO_CHOICE=X", "x.txt NODES=146"], ["x.txt AUTO_CHOICE=X", "x.txt NODES=147"]])
    monkeypatch.setattr(reproducibility, "all_lines", lambda paths, limit: next(passes))
    assert reproducibility.main(["--burners", "0", "--results", str(tmp_path), "x.txt"]) == 1
    text = (tmp_path / "auto-under-load.md").read_text()
    assert "1 lines differ" in text and "+x.txt NODES=147" in text


def test_identical_passes_say_so(monkeypatch, tmp_path):
    monkeypatch.setattr(reproducibility, "all_lines", lambda paths, limit: ["x.txt AUTO_CHOICE=X", "x.txt NODES=146"])
    assert reproducibility.main(["--burners", "0", "--results", str(tmp_path), "x.txt"]) == 0
    assert "identical" in (tmp_path / "auto-under-load.md").read_text()


def test_a_file_bench_refuses_ends_the_benchmark_with_its_message_and_writes_nothing(monkeypatch, tmp_path, capsys):
    refusal = "bench solve: error: argument FILE: no such file or directory: nope.txt"
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 2, "", refusal + "\n"))
    assert reproducibility.main(["--burners", "0", "--results", str(tmp_path), "nope.txt"]) == 2
    assert capsys.readouterr().err == f"error: nope.txt: bench solve exited 2: {refusal}\n"
    assert not (tmp_path / "auto-under-load.md").exists()
