"""Writing files safely: only regular files, atomically, output locations checked before any work."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from bench.cli import main
from bench.engines import Settings, get_engine
from bench.errors import UsageError
from bench.system.files import check_directory, check_output, write_atomic, writable_directory
from support import DEFS

SPECIALS = ["fifo", "device", "link to device", "directory", "link to directory"]


@pytest.fixture
def special(tmp_path, request):
    """A path that is not a regular file: a FIFO, /dev/null, a directory, or a symlink to one of them."""
    kind = request.param
    path = tmp_path / kind.replace(" ", "-")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        return "/dev/null"
    elif kind == "link to device":
        path.symlink_to("/dev/null")
    elif kind == "directory":
        path.mkdir()
    else:
        (tmp_path / "dir").mkdir()
        path.symlink_to(tmp_path / "dir")
    return str(path)


@pytest.mark.parametrize("special", SPECIALS, indirect=True)
def test_special_files_are_refused(special):
    with pytest.raises(UsageError, match="expected a regular file or a new file name"):
        check_output(special, "-o")
    with pytest.raises(UsageError, match="expected a regular file"):
        write_atomic(special, "x")
    assert not os.path.isfile(special)


def test_a_new_file_is_written_and_an_old_one_replaced(tmp_path):
    path = tmp_path / "new" / "out.json"
    assert check_output(path, "-o") == path
    write_atomic(path, "one")
    write_atomic(path, "two")
    assert path.read_text() == "two"
    assert sorted(p.name for p in path.parent.iterdir()) == ["out.json"]


def test_a_symlink_to_a_regular_file_stays_a_link(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_a_folder_that_cannot_be_made_is_reported(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(UsageError, match="cannot write"):
        check_output(tmp_path / "file" / "out.json", "-o")
    with pytest.raises(UsageError, match="results folder .*; give -o"):
        check_directory(tmp_path / "file" / "results", "results folder", "give -o FILE")
    assert not writable_directory(tmp_path / "file" / "journals")
    assert writable_directory(tmp_path / "journals")


def test_checking_a_new_folder_leaves_nothing_and_writing_makes_it(tmp_path):
    new = tmp_path / "a" / "b"
    assert check_output(new / "out.json", "-o") == new / "out.json"
    assert check_directory(new / "results", "results folder") == new / "results"
    assert writable_directory(new / "journals")
    assert list(tmp_path.iterdir()) == []
    write_atomic(new / "out.json", "{}")
    assert (new / "out.json").read_text() == "{}"


def test_appending_makes_its_folder(tmp_path):
    from bench.system.files import open_append

    with open_append(tmp_path / "new" / "journal.jsonl", "--journal") as f:
        f.write(b"x\n")
    assert (tmp_path / "new" / "journal.jsonl").read_bytes() == b"x\n"


def test_an_empty_name_is_refused():
    with pytest.raises(UsageError, match="empty file name"):
        check_output("", "-o")


@pytest.mark.parametrize("special", ["fifo", "link to device", "directory"], indirect=True)
def test_bench_run_refuses_a_special_output_before_solving(special, capsys):
    status = main(["run", "-e", "dlx", "--output-file", special, str(DEFS / "dominoes_4x4.txt")])
    out, err = capsys.readouterr()
    # one line naming the file and what it is (a directory is already refused by the option's type)
    assert status == 2 and len(err.splitlines()) == 1 and special in err and ": is a" in err
    assert "options" not in err and out == ""


def test_an_unwritable_results_folder_is_reported_before_the_first_engine(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").write_text("a file where the folder should be")
    status = main(["run", "-e", "dlx", str(DEFS / "dominoes_4x4.txt")])
    out, err = capsys.readouterr()
    assert status == 2 and err.startswith("results folder results: cannot write there")
    assert "options" not in err and out == ""


@pytest.mark.parametrize("special", ["fifo", "link to device"], indirect=True)
def test_journal_and_report_outputs_are_checked_first(special, tmp_path, capsys):
    status = main(["solve", "-q", "-w", "2", "--journal", special, str(DEFS / "dominoes_4x4.txt")])
    assert status == 2 and capsys.readouterr().err.startswith(f"--journal {special}: is ")
    result = tmp_path / "run.json"
    assert main(["run", "-e", "dlx", "--output-file", str(result), str(DEFS / "dominoes_4x4.txt")]) == 0
    capsys.readouterr()
    assert main(["report", "--output-file", special, str(result)]) == 2
    assert capsys.readouterr().err.startswith(f"--output-file {special}: is ")


def test_an_unwritable_default_journal_folder_falls_back_to_no_journal(tmp_path, capsys):
    import bench
    from bench import Cover
    from bench.parallel.runner import ParallelOptions, solve_parallel

    [puzzle] = bench.load(DEFS / "pentominoes_20x3.txt")
    cover = Cover.from_puzzle(puzzle, redundancy=True)
    (tmp_path / "file").write_text("")
    result = solve_parallel(cover, get_engine("dlx"), Settings(),
                            ParallelOptions(workers=2, depth=1, journal_dir=tmp_path / "file" / "journals"))
    assert (result.status.value, result.unique, result.total) == ("solved", 2, 8)
    assert result.stats["parallel"]["journal"] == ""
    assert "cannot write journals in" in capsys.readouterr().err


# -- directories -------------------------------------------------------------------------------


def test_an_empty_directory_is_an_error_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    out_file = tmp_path / "run.json"
    assert main(["run", "-e", "dlx", "--output-file", str(out_file), str(tmp_path / "empty")]) == 2
    assert "no definition files" in capsys.readouterr().err
    assert not out_file.exists()
    assert main(["check", str(tmp_path / "empty")]) == 2


def test_an_empty_path_is_an_error(capsys):
    assert main(["check", ""]) == 2
    assert "empty name" in capsys.readouterr().err


def test_one_bad_expected_entry_leaves_the_other_puzzles_their_counts(tmp_path, capsys):
    for name in ("dominoes_4x4.txt", "pentominoes_20x3.txt"):
        shutil.copy(DEFS / name, tmp_path)
    text = (DEFS / "expected.toml").read_text()
    blocks = []
    for name in ("dominoes_4x4.txt", "pentominoes_20x3.txt"):
        block = text[text.index(f'["{name}"]'):]
        blocks.append(block[: block.index("\n\n")])
    blocks[0] = blocks[0].replace("total = 36", "total = -36")
    (tmp_path / "expected.toml").write_text("\n\n".join(blocks) + "\n")
    out_file = tmp_path / "run.json"
    status = main(["run", "-e", "dlx", "--output-file", str(out_file), str(tmp_path)])
    err = capsys.readouterr().err
    doc = json.loads(out_file.read_text())
    entries = {p["key"]: p["expected"] for p in doc["puzzles"]}
    assert (entries["pentominoes_20x3.txt"]["unique"], entries["pentominoes_20x3.txt"]["total"]) == (2, 8)
    assert entries["dominoes_4x4.txt"] is None
    # messages are wrapped at 120 columns, where the path's length decides
    assert status == 2 and "total must be a non-negative integer" in " ".join(err.split())
    assert [p["kind"] for p in doc["validation"]] == ["input"]


def test_a_malformed_definition_is_a_problem_in_the_result_file(tmp_path, capsys):
    shutil.copy(DEFS / "dominoes_4x4.txt", tmp_path)
    (tmp_path / "broken.txt").write_text("D:xDim=2:yDim=1:zDim=1\nC:name=a:layout=0 0\n~D\n")
    out_file = tmp_path / "run.json"
    assert main(["run", "-e", "dlx", "--output-file", str(out_file), str(tmp_path)]) == 2
    capsys.readouterr()
    doc = json.loads(out_file.read_text())
    [problem] = doc["validation"]
    assert problem["puzzle"] == "broken.txt" and problem["kind"] == "input" and ":2: " in problem["message"]
    assert main(["report", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "**input** broken.txt" in out and "INPUT problems in 1 file (broken.txt)" in out
    assert "All engines that finished agree" not in out
