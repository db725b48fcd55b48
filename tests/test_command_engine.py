"""Any solver as an engine: cmd:NAME configured in a TOML file, cross-validated, a miscount caught."""

from __future__ import annotations

import json
import shutil
import sys
import time

import pytest

import bench
from bench import Cover
from bench.cli import main
from bench.engines import Limits, Status, get_engine
from bench.engines.command import ENV
from bench.errors import UsageError
from support import DEFS, ROOT

COUNTER = ROOT / "tests" / "support" / "xcc_counter.py"
QUEENS = "r1 r2 r3 r4 c1 c2 c3 c4 | " + " ".join(f"a{k}" for k in range(2, 9)) + " " + \
         " ".join(f"b{k}" for k in range(-3, 4)) + "\n" + \
         "".join(f"r{i} c{j} a{i + j} b{i - j}\n" for i in range(1, 5) for j in range(1, 5))


def engines_file(tmp_path, extra: str = "") -> str:
    path = tmp_path / "engines.toml"
    path.write_text(
        f"[tiny]\ncommand = {json.dumps([sys.executable, str(COUNTER), '{input}'])}\nformat = \"xcc\"\n"
        "count = '^solutions: (\\d+)$'\n\n"
        f"[liar]\ncommand = {json.dumps([sys.executable, str(COUNTER), '{input}', '--add', '1'])}\n"
        "format = \"xcc\"\ncount = '^solutions: (\\d+)$'\n\n"
        f"[sleeper]\ncommand = {json.dumps([sys.executable, '-c', 'import time; time.sleep(30)', '{input}'])}\n"
        "format = \"xcc\"\ncount = '(\\d+)'\n\n"
        "[mute]\ncommand = \"true {input}\"\nformat = \"json\"\ncount = 'count=(\\d+)'\n" + extra)
    return str(path)


@pytest.fixture
def configured(tmp_path, monkeypatch):
    path = engines_file(tmp_path)
    monkeypatch.setenv(ENV, path)
    return path


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_configured_command_counts_a_puzzle_and_a_matrix(configured, tmp_path):
    engine = get_engine("cmd:tiny")
    assert engine.variant == "tiny" and engine.counts_only
    [puzzle] = bench.load(DEFS / "dominoes_4x4.txt")
    result = engine.solve(Cover.from_puzzle(puzzle))
    assert (result.status, result.covers, result.unique, result.total) == (Status.SOLVED, 36, None, None)
    knuth = Cover.from_options([[0, 1, 3, 4], [0, 2, 3, 4], [2, 3], [1, 3], [2, 4]], [1, 1, 2, 0, 0],
                               [1, 1, 3, 1, 1], colours=[[0, 0, 1, 1], [0, 0, 2, 2], [0, 1], [0, 2], [0, 2]],
                               colour_names=["0", "1"])
    assert engine.solve(knuth).covers == 1


def test_bench_run_cross_validates_and_reports_a_miscount_as_mismatch(capsys, tmp_path):
    path = engines_file(tmp_path)
    queens = tmp_path / "queens_4.xcc"
    queens.write_text(QUEENS)
    out_file = tmp_path / "run.json"
    status, out, err = run(capsys, "run", "--engines-file", path, "-e", "dlx,cmd:tiny", "--no-html",
                           "--output-file", out_file, DEFS / "dominoes_4x4.txt", queens)
    assert status == 0, err
    assert "counts agree on 2" in out
    rows = json.loads(out_file.read_text())["rows"]
    assert {(r["puzzle"], r["engine"], r["covers"]) for r in rows} == {
        ("dominoes_4x4.txt", "dlx", 36), ("dominoes_4x4.txt", "cmd:tiny", 36),
        ("queens_4.xcc", "dlx", 2), ("queens_4.xcc", "cmd:tiny", 2)}
    status, out, err = run(capsys, "run", "--engines-file", path, "-e", "dlx,cmd:liar", "--no-save", queens)
    assert status == 1
    assert "MISMATCH: queens_4.xcc: covers disagree (dlx: 2; cmd:liar: 3)" in err


def test_a_time_limit_kills_the_command_and_no_count_is_an_error(configured):
    [puzzle] = bench.load(DEFS / "dominoes_4x4.txt")
    cover = Cover.from_puzzle(puzzle)
    start = time.perf_counter()
    result = get_engine("cmd:sleeper").solve(cover, limits=Limits(time_limit=0.3))
    assert result.status == Status.TIMEOUT and time.perf_counter() - start < 5
    result = get_engine("cmd:mute").solve(cover)
    assert result.status == Status.ERROR and "no count in the output (exit status 0)" in result.message


def test_bench_solve_takes_a_command_with_quiet(capsys, configured):
    status, _, err = run(capsys, "solve", "-q", "-e", "cmd:tiny", DEFS / "dominoes_4x4.txt")
    assert status == 0 and "36 covers" in err
    status, _, err = run(capsys, "solve", "-e", "cmd:tiny", DEFS / "dominoes_4x4.txt")
    assert status == 2 and "counts solutions without producing them" in err


@pytest.mark.parametrize("extra, message", [
    ("[bad]\ncommand = \"x\"\nformat = \"xcc\"\ncount = '(\\d+)'\n", "never names {input}"),
    ("[bad]\ncommand = \"x {input}\"\nformat = \"cnf\"\ncount = '(\\d+)'\n", "unknown format 'cnf'"),
    ("[bad]\ncommand = \"x {input}\"\nformat = \"xcc\"\ncount = 'n'\n", "needs a group"),
    ("[bad]\ncommand = \"x {input}\"\nformat = \"xcc\"\n", "missing key 'count'"),
    ("[bad]\ncommand = \"x {input}\"\nformat = \"xcc\"\ncount = '(\\d+)'\ncolour = 1\n", "unknown key 'colour'"),
])
def test_a_bad_engines_file_is_a_clear_error(tmp_path, monkeypatch, extra, message):
    monkeypatch.setenv(ENV, engines_file(tmp_path, "\n" + extra))
    with pytest.raises(UsageError, match=message):
        get_engine("cmd:tiny")


def test_an_unknown_or_unconfigured_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ENV, engines_file(tmp_path))
    with pytest.raises(UsageError, match="cmd:nope is not configured in .*it configures: cmd:tiny, cmd:liar"):
        get_engine("cmd:nope")
    with pytest.raises(UsageError, match="cmd needs the name"):
        get_engine("cmd")
    monkeypatch.delenv(ENV)
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, "run", "-e", "dlx,cmd:tiny", "--no-save", DEFS / "dominoes_4x4.txt")
    assert status == 2 and "no engines file" in err


@pytest.mark.skipif(shutil.which("clasp") is None, reason="clasp is not installed (apt-get install clasp)")
def test_the_documented_clasp_engine(capsys, tmp_path):
    # docs/formats.md's worked example, as written there
    text = (ROOT / "docs" / "formats.md").read_text()
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "bench-engines.toml"
    path.write_text(block)
    status, out, err = run(capsys, "run", "--engines-file", path, "-e", "dlx,cmd:clasp", "--no-save",
                           DEFS / "dominoes_4x4.txt", DEFS / "somacube.txt", DEFS / "tetrahexes_4x7.txt")
    assert status == 0, err
    assert "counts agree on 3" in out
