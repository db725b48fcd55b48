"""The journal under abuse: edited, duplicated, foreign and damaged records are refused by line, the rest kept."""

from __future__ import annotations

import json

import pytest

import bench
from bench import Cover
from bench.engines import Settings, get_engine
from bench.parallel.journal import checksum
from bench.parallel.runner import ParallelOptions, solve_parallel
from support import DEFS

EXACT = ("solved", 2339, 2339, 9356)


@pytest.fixture(scope="module")
def p10x6():
    [puzzle] = bench.load(DEFS / "pentominoes_10x6.txt")
    return Cover.from_puzzle(puzzle, redundancy=True)


@pytest.fixture
def journal(p10x6, tmp_path):
    """A finished split run's journal: the header line and one record per sub-problem."""
    path = tmp_path / "j.jsonl"
    result = solve_parallel(p10x6, get_engine("dlx"), Settings(), ParallelOptions(workers=2, journal=path, depth=2))
    assert (result.status.value, result.covers, result.unique, result.total) == EXACT
    return path


def lines_of(path) -> list[str]:
    return path.read_text().splitlines()


def resume(cover, path, capsys):
    result = solve_parallel(cover, get_engine("dlx"), Settings(),
                            ParallelOptions(workers=2, journal=path, depth=2, resume=True))
    return result, capsys.readouterr().err


def test_records_carry_their_run_sub_problem_and_checksum(journal):
    header, *records = (json.loads(line) for line in lines_of(journal))
    assert header["checksum"] == checksum(header)
    subs = {s["id"]: s for s in header["subproblems"]}
    for record in records:
        assert record["checksum"] == checksum(record)
        assert (record["key"], record["cover_hash"], record["settings"]) == \
            (header["key"], header["cover_hash"], header["settings"])
        assert record["sub"] == subs[record["id"]] and record["rest"] == [] and record["budget"] == 0


def test_an_edited_count_is_refused_and_solved_again(p10x6, journal, capsys):
    # covers + 1000 once resumed into a wrong total without a word
    lines = lines_of(journal)
    record = json.loads(lines[3])
    record["covers"] += 1000
    lines[3] = json.dumps(record, separators=(",", ":"))
    journal.write_text("\n".join(lines) + "\n")
    result, err = resume(p10x6, journal, capsys)
    assert (result.status.value, result.covers, result.unique, result.total) == EXACT
    assert f"{journal}:4: record refused: its checksum does not match" in err
    assert result.stats["parallel"]["resumed"] == len(lines) - 2
    assert result.stats["parallel"]["refused"] == 1


def test_a_record_given_another_id_is_refused(p10x6, journal, capsys):
    lines = lines_of(journal)
    first, other = json.loads(lines[1]), json.loads(lines[2])
    first["id"] = other["id"]
    lines.insert(1, json.dumps(first, separators=(",", ":")))
    journal.write_text("\n".join(lines) + "\n")
    result, err = resume(p10x6, journal, capsys)
    assert (result.status.value, result.covers, result.unique, result.total) == EXACT
    assert f"{journal}:2: record refused" in err


def test_a_duplicated_record_counts_once_and_is_reported(p10x6, journal, capsys):
    lines = lines_of(journal)
    lines.append(lines[2])
    journal.write_text("\n".join(lines) + "\n")
    result, err = resume(p10x6, journal, capsys)
    assert (result.status.value, result.covers, result.unique, result.total) == EXACT
    assert f"{journal}:{len(lines)}: record refused: sub-problem" in err and "already recorded on line 3" in err
    assert result.stats["parallel"]["resumed"] == len(lines) - 2


def test_two_valid_records_of_one_sub_problem_that_differ_are_both_refused(p10x6, journal, capsys):
    lines = lines_of(journal)
    forged = json.loads(lines[2])
    forged["covers"] += 1000
    forged["checksum"] = checksum(forged)
    lines.append(json.dumps(forged))
    journal.write_text("\n".join(lines) + "\n")
    result, err = resume(p10x6, journal, capsys)
    assert (result.status.value, result.covers, result.unique, result.total) == EXACT
    assert "recorded again with other counts" in err
    assert result.stats["parallel"]["resumed"] == len(lines) - 3


def test_a_record_of_another_run_is_refused(p10x6, journal, tmp_path, capsys):
    other = tmp_path / "other.jsonl"
    solve_parallel(p10x6, get_engine("dlx"), Settings(order="f"), ParallelOptions(workers=2, journal=other, depth=2))
    lines = lines_of(journal)
    del lines[1]
    lines.append(lines_of(other)[1])
    journal.write_text("\n".join(lines) + "\n")
    result, err = resume(p10x6, journal, capsys)
    assert (result.status.value, result.covers, result.unique, result.total) == EXACT
    assert f"{journal}:{len(lines)}: record refused: it belongs to another run" in err


def test_garbage_lines_are_refused_by_line_and_the_rest_kept(p10x6, journal, capsys):
    lines = lines_of(journal)
    lines[2:2] = ["{not json", "[1, 2]", '{"id": "0"}']
    journal.write_text("\n".join(lines) + "\n")
    result, err = resume(p10x6, journal, capsys)
    assert (result.status.value, result.covers, result.unique, result.total) == EXACT
    for number in (3, 4, 5):
        assert f"{journal}:{number}: record refused" in err
    assert result.stats["parallel"]["resumed"] == len(lines) - 4


def test_a_damaged_header_refuses_the_journal(p10x6, journal, capsys):
    lines = lines_of(journal)
    header = json.loads(lines[0])
    header["depth"] += 1
    lines[0] = json.dumps(header)
    journal.write_text("\n".join(lines) + "\n")
    with pytest.raises(bench.BenchError, match=r":1: .*damaged"):
        resume(p10x6, journal, capsys)


def test_the_pieces_of_a_refused_record_are_solved_again_with_it(p10x6, tmp_path, monkeypatch, capsys):
    from bench.parallel import runner

    # FILA with small budgets: records hand back pieces, whose own records a resume trusts only behind their parent's
    monkeypatch.setattr(runner, "BUDGET_FLOOR", 50_000)
    engine = get_engine("fila")
    settings = engine.settle(p10x6, Settings(fila=11))
    path = tmp_path / "j.jsonl"
    single = engine.solve(p10x6, settings)
    solve_parallel(p10x6, engine, settings, ParallelOptions(workers=2, journal=path))
    lines = lines_of(path)
    number, parent = next((n, json.loads(line)) for n, line in enumerate(lines) if n and json.loads(line)["rest"])
    children = [n for n, line in enumerate(lines) if n and json.loads(line)["id"].startswith(parent["id"] + "/")]
    assert children
    parent["covers"] += 1
    lines[number] = json.dumps(parent)
    path.write_text("\n".join(lines) + "\n")
    result = solve_parallel(p10x6, engine, settings, ParallelOptions(workers=2, journal=path, resume=True))
    err = capsys.readouterr().err
    assert f"{path}:{number + 1}: record refused: its checksum does not match" in err
    for n in children:
        assert f"{path}:{n + 1}: record refused: sub-problem {json.loads(lines[n])['id']} is not part" in err
    assert (result.covers, result.unique, result.total) == (2339, 2339, 9356)
    assert {k: v for k, v in result.stats.items() if k != "parallel"} == single.stats


# -- one writer per journal, journals of this code only, old ones pruned ------------------------------------------


def test_a_second_run_on_a_journal_in_use_is_refused_clearly(p10x6, tmp_path, capsys):
    from bench.errors import UsageError
    from bench.system.files import open_locked

    path = tmp_path / "j.jsonl"
    with open_locked(path, "--journal"):
        with pytest.raises(UsageError, match=r"^--journal .*j.jsonl: another bench process is using this journal"):
            solve_parallel(p10x6, get_engine("dlx"), Settings(), ParallelOptions(workers=2, journal=path, depth=2))
    # an automatic split's default journal in use: the run goes on without one
    automatic = ParallelOptions(workers=2, journal_dir=tmp_path / "journals", depth=2)
    default = solve_parallel(p10x6, get_engine("dlx"), Settings(), automatic).stats["parallel"]["journal"]
    assert default
    capsys.readouterr()
    with open_locked(default, "--journal"):
        result = solve_parallel(p10x6, get_engine("dlx"), Settings(), automatic)
    assert (result.status.value, result.covers, result.unique, result.total) == EXACT
    assert result.stats["parallel"]["journal"] == ""
    assert "another bench process is using this journal" in capsys.readouterr().err


def test_two_split_solves_on_one_journal_the_second_refused(tmp_path):
    import subprocess
    import sys
    import time

    from support import ROOT

    path = tmp_path / "tc.jsonl"
    argv = [sys.executable, "-m", "bench", "solve", "-q", "-w", "2", "--journal", str(path),
            str(DEFS / "pentominoes_1s_18x5.txt")]
    first = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (path.exists() and path.stat().st_size) and time.monotonic() < deadline:
            time.sleep(0.1)
        second = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    finally:
        first.kill()
        first.wait()
    assert second.returncode == 2
    assert second.stderr.strip() == (f"--journal {path}: another bench process is using this journal; wait for it "
                                     "to end, or give another --journal")


def test_the_journal_key_holds_the_code_version(p10x6, monkeypatch):
    from bench.toolchain import sources
    from bench.parallel.runner import run_key

    engine = get_engine("dlx")
    before = run_key(p10x6, engine, Settings(), None)
    monkeypatch.setattr(sources, "code_version", lambda: "another checkout")
    assert run_key(p10x6, engine, Settings(), None) != before


def test_old_journals_are_pruned_and_the_newest_kept(tmp_path):
    import os
    import time

    from bench.parallel.journal import KEEP_DAYS, KEEP_JOURNALS, prune

    now = time.time()
    for k in range(KEEP_JOURNALS + 5):
        path = tmp_path / f"p{k:03d}.jsonl"
        path.write_text("{}\n")
        os.utime(path, (now - k, now - k))
    old = tmp_path / "old.jsonl"
    old.write_text("{}\n")
    os.utime(old, (now - KEEP_DAYS * 86400 - 1,) * 2)
    (tmp_path / "notes.txt").write_text("not a journal")
    prune(tmp_path)
    left = sorted(p.name for p in tmp_path.glob("*.jsonl"))
    assert left == [f"p{k:03d}.jsonl" for k in range(KEEP_JOURNALS)]
    assert (tmp_path / "notes.txt").exists()


def test_a_default_journal_that_cannot_be_written_costs_the_journal_not_the_run(p10x6, tmp_path, capsys, monkeypatch):
    import types

    from bench.parallel import journal as journal_module

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal_module, "os", types.SimpleNamespace(fsync=full))
    result = solve_parallel(p10x6, get_engine("dlx"), Settings(), ParallelOptions(workers=2, journal_dir=tmp_path,
                                                                                  depth=2))
    assert (result.status.value, result.covers, result.unique, result.total) == EXACT
    assert "No space left on device; going on without a journal" in capsys.readouterr().err
    with pytest.raises(bench.BenchError, match="--journal .*: cannot write: No space left on device"):
        solve_parallel(p10x6, get_engine("dlx"), Settings(), ParallelOptions(workers=2, journal=tmp_path / "j.jsonl",
                                                                              depth=2))
