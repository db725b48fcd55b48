"""Writing files safely: only regular files, atomically, output locations checked before any work."""

from __future__ import annotations

import csv
import io
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


# -- round three: names created exclusively, inputs never overwritten, inputs read with a bound ------------------


def test_two_runs_in_the_same_second_get_two_result_files(tmp_path, monkeypatch):
    from bench.comparison import results

    monkeypatch.chdir(tmp_path)
    document = results.new_document(["bench", "run"], {"engines": ["dlx"], "timeout": 1, "rounds": 1, "mode": "count"})
    first, second = (results.reserve(document, stamp="20260101-120000") for _ in range(2))
    assert (first.name, second.name) == ("run-20260101-120000.json", "run-20260101-120000-2.json")
    # a stale report without its result file keeps its name from being taken
    (tmp_path / "results" / "run-20260101-120000-3.html").write_text("old")
    assert results.reserve(document, stamp="20260101-120000").name == "run-20260101-120000-4.json"
    assert all(json.loads(p.read_text())["rows"] == [] for p in (tmp_path / "results").glob("*.json"))


def test_concurrent_runs_each_keep_their_result_file(tmp_path):
    import subprocess
    import sys

    argv = [sys.executable, "-m", "bench", "run", "-e", "dlx", "--no-html", str(DEFS / "dominoes_4x4.txt")]
    children = [subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                for _ in range(3)]
    errors = [c.communicate(timeout=120)[1] for c in children]
    assert [c.returncode for c in children] == [0, 0, 0], errors
    written = {line.split("results written to ")[1] for err in errors for line in err.splitlines()
               if "results written to" in line}
    assert len(written) == 3 and len(list((tmp_path / "results").glob("run-*.json"))) == 3


@pytest.mark.parametrize("command", ["run", "report", "journal"])
def test_an_output_that_is_an_input_is_refused_before_any_work(tmp_path, capsys, command):
    definition = tmp_path / "soma.txt"
    shutil.copy(DEFS / "somacube.txt", definition)
    before = definition.read_bytes()
    if command == "run":
        argv = ["run", "-e", "dlx", "--output-file", str(definition), str(definition)]
    elif command == "journal":
        argv = ["solve", "-q", "-w", "2", "--journal", str(tmp_path / "." / "soma.txt"), str(definition)]
    else:
        assert main(["run", "-e", "dlx", "--no-html", "--output-file", str(tmp_path / "r.json"),
                     str(DEFS / "dominoes_4x4.txt")]) == 0
        definition = tmp_path / "r.json"
        before = definition.read_bytes()
        argv = ["report", str(definition), "--output-file", str(definition)]
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "is also an input of this command" in err and len(err.strip().splitlines()) == 1, err
    assert definition.read_bytes() == before


def test_the_writer_never_replaces_a_file_this_process_read(tmp_path):
    from bench.system.files import read_input

    path = tmp_path / "in.txt"
    path.write_text("keep")
    read_input(path, "definition")
    with pytest.raises(UsageError, match="is also an input of this command"):
        write_atomic(tmp_path / "." / "in.txt", "lost")
    assert path.read_text() == "keep"


@pytest.mark.parametrize("kind", ["fifo", "dev zero", "directory"])
def test_an_input_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    from bench.errors import BenchError
    from bench.system.files import read_input

    path = tmp_path / "x.txt"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    with pytest.raises(BenchError, match=rf"^{path}: is a (FIFO|character device|directory)"):
        read_input(path, "definition")


def test_an_input_larger_than_the_bound_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    import io
    import sys

    from bench.errors import BenchError
    from bench.system.files import read_input

    path = tmp_path / "big.txt"
    path.write_bytes(b"#" * 2000)
    assert read_input(path, "definition", limit=2000) == b"#" * 2000
    with pytest.raises(BenchError, match=rf"^{path}: larger than 1,999 bytes"):
        read_input(path, "definition", limit=1999)

    class Endless(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, buffer):
            buffer[:] = b"\0" * len(buffer)
            return len(buffer)

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    with pytest.raises(BenchError, match="^<stdin>: larger than 4,096 bytes"):
        read_input("-", "definition", limit=4096)


def test_special_files_named_txt_in_a_directory_are_refused_and_the_rest_checked(tmp_path, capsys):
    shutil.copy(DEFS / "dominoes_4x4.txt", tmp_path)
    os.mkfifo(tmp_path / "fifo.txt")
    (tmp_path / "zero.txt").symlink_to("/dev/zero")
    assert main(["check", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'fifo.txt'}: is a FIFO" in err and f"{tmp_path / 'zero.txt'}: is a character device" in err


def test_the_folder_probe_writes_data_so_a_full_disk_is_unwritable(tmp_path):
    import subprocess
    import sys

    script = ("import os,sys; from bench.system.files import writable_directory\n"
              "d=sys.argv[1]; os.makedirs(d+'/m')\n"
              "assert os.system(f'mount -t tmpfs -o size=64k tmpfs {d}/m') == 0\n"
              "f=open(d+'/m/fill','wb')\n"
              "try:\n    f.write(b'x'*(1<<20)); f.flush()\nexcept OSError: pass\n"
              "print(writable_directory(d+'/m/journals'), writable_directory(d))\n")
    probe = subprocess.run(["unshare", "-rm", sys.executable, "-c", script, str(tmp_path)], capture_output=True,
                           text=True, timeout=60)
    if probe.returncode != 0 and "mount" in probe.stderr + probe.stdout:
        pytest.skip(f"no tmpfs in a user namespace here: {probe.stderr.strip()[-200:]}")
    assert probe.stdout.split() == ["False", "True"], probe.stderr


def test_file_names_with_escape_codes_never_reach_the_terminal_raw(tmp_path, capsys):
    folder = tmp_path / "defs"
    folder.mkdir()
    odd = "\x1b[2J\x1b[31mred\x07.txt"
    shutil.copy(DEFS / "dominoes_4x4.txt", folder / odd)
    (folder / "bad\x1b[1m.txt").write_text("D:xDim=1:yDim=1:zDim=1\n~D\n")
    out_file = tmp_path / "run.json"
    commands = [["check", str(folder)], ["solve", "-q", str(folder)], ["info", str(folder / odd)],
                ["run", "-e", "dlx", "--output-file", str(out_file), str(folder)], ["report", str(out_file)],
                ["compare", str(out_file), str(out_file)]]
    for argv in commands:
        main(argv)
        out, err = capsys.readouterr()
        assert "\x1b" not in out + err and "\x07" not in out + err, (argv, out, err)
        assert "\\x1b" in out + err, (argv, out, err)


def test_csv_cells_that_a_spreadsheet_would_run_are_quoted(tmp_path, capsys):
    shutil.copy(DEFS / "dominoes_4x4.txt", tmp_path / "=HYPERLINK(1).txt")
    out_file = tmp_path / "run.json"
    assert main(["run", "-e", "dlx", "--no-html", "--output-file", str(out_file), str(tmp_path / "=HYPERLINK(1).txt")]) == 0
    capsys.readouterr()
    assert main(["report", "--csv", str(out_file)]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[1][0] == "'=HYPERLINK(1).txt"
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
